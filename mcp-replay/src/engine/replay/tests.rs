//! The session core driven by hand, without a runtime: scripted arrivals at chosen
//! instants, every line it hands out read back, the report it concludes into.

use super::session::{Ending, Session, Transmit, WriteError};
use crate::analyses::validate::ProtocolCheck;
use crate::data::fixture::Fixture;
use crate::engine::transport::Incoming;
use crate::findings::report::{MismatchKind, Report};
use crate::options::{Options, Settings};
use crate::rules::Rules;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

mod order;

const LIST: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"work","arguments":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#,
    "\n",
);

/// A fixture whose first client message is not `initialize`: the harness performs the
/// handshake itself.
const BARE: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#,
    "\n",
);

/// A server request inside a call, answered from the recording.
const ROOTS: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"roots","arguments":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:1>","method":"roots/list"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:1>","result":{"roots":[]}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#,
    "\n",
);

const TIMEOUT: Duration = Duration::from_millis(500);

/// One session driven by hand: the instants are `start + ms`.
struct Script<'f> {
    session: Session<'f>,
    start: Instant,
    now: Instant,
    buf: Vec<u8>,
}

impl<'f> Script<'f> {
    fn new(fixture: &'f Fixture, settings: &'f Settings<'f>) -> Script<'f> {
        let start = Instant::now();
        Script {
            session: Session::new(fixture, settings, start),
            start,
            now: start,
            buf: Vec::new(),
        }
    }

    fn at(&mut self, ms: u64) -> &mut Self {
        self.now = self.start + Duration::from_millis(ms);
        self
    }

    /// The lines the session hands out now, parsed; `"<close>"` for the close of the input
    /// (reported closed at once, as a shell does).
    fn sent(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(t) = self.session.poll_transmit(self.now, &mut self.buf) {
            match t {
                Transmit::Line => out.push(serde_json::from_slice(&self.buf).unwrap()),
                Transmit::CloseInput => {
                    self.session.input_closed(self.now, None);
                    out.push(json!("<close>"));
                }
            }
        }
        out
    }

    fn arrive(&mut self, message: Value) -> &mut Self {
        self.session.handle(Incoming::Message(message), self.now);
        self
    }

    fn wake(&mut self) -> &mut Self {
        self.session.handle_timeout(self.now);
        self
    }

    fn deadline_ms(&self) -> Option<u128> {
        self.session
            .poll_timeout()
            .map(|d| d.duration_since(self.start).as_millis())
    }

    /// The server closes its output; the session concludes.
    fn end(mut self) -> Report {
        self.session.handle(Incoming::Closed(None), self.now);
        assert!(self.session.is_done() || !self.sent().is_empty());
        self.session.conclude(Ending::default())
    }
}

/// The engine's settings: the protocol check off, so that a table can hold the smallest
/// messages that show a decision (a task without its timestamps); the check has its own
/// tests below.
fn settings<'r>(fixture: &Fixture, rules: &'r Rules) -> Settings<'r> {
    Options::new()
        .timeout(TIMEOUT)
        .trace(false)
        .protocol_check(ProtocolCheck::Off)
        .resolve(fixture, rules)
}

fn kinds(report: &Report) -> Vec<MismatchKind> {
    report.mismatches().iter().map(|m| m.kind()).collect()
}

fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn init_result() -> Value {
    json!({"capabilities": {}, "protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"}})
}

fn progress(token: &Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1, "progressToken": token}})
}

/// Plays LIST's handshake; the call goes out. The call's live id and progress token.
fn handshake(s: &mut Script<'_>) -> (Value, Value) {
    let first = s.sent();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["method"], "initialize");
    let id = first[0]["id"].clone();
    let then = s.at(5).arrive(result(id, init_result())).sent();
    assert_eq!(then[0]["method"], "notifications/initialized");
    assert_eq!(then[1]["method"], "tools/call");
    (
        then[1]["id"].clone(),
        then[1]["params"]["_meta"]["progressToken"].clone(),
    )
}

#[test]
fn a_session_sends_each_message_once_what_it_needs_came_and_passes() {
    let fixture = Fixture::parse(LIST).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    // Nothing goes out before `initialize` is answered.
    assert_eq!(s.deadline_ms(), None);
    let (call, token) = handshake(&mut s);
    // The call is awaited for the timeout from when it was sent.
    assert_eq!(s.deadline_ms(), Some(5 + 500));
    s.at(6).arrive(progress(&token));
    assert!(s.sent().is_empty());
    s.at(7).arrive(result(call, json!({"content": []})));
    // The last wait is over: the session settles (a deadline already due) and then
    // closes the input.
    assert!(s.sent().is_empty());
    assert_eq!(s.deadline_ms(), Some(7));
    s.wake();
    assert_eq!(s.sent(), [json!("<close>")]);
    assert_eq!(s.deadline_ms(), Some(7 + 500));
    let report = s.end();
    assert!(report.is_ok(), "{report}");
    assert!(report.recorded().is_some());
}

#[test]
fn a_response_is_timed_out_at_its_deadline_exactly_and_not_before() {
    let fixture = Fixture::parse(LIST).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let (_, token) = handshake(&mut s);
    assert_eq!(s.deadline_ms(), Some(505));
    // Progress on the awaited call starts the clock again (the specification's "MAY reset
    // the timeout clock").
    s.at(6).arrive(progress(&token));
    assert_eq!(s.deadline_ms(), Some(506));
    // A wake before the deadline changes nothing.
    s.at(505).wake();
    assert!(s.sent().is_empty());
    assert_eq!(s.deadline_ms(), Some(506));
    s.at(506).wake();
    assert!(s.sent().is_empty(), "the last wait: it settles first");
    s.wake();
    assert_eq!(s.sent(), [json!("<close>")]);
    let report = s.end();
    assert_eq!(kinds(&report), [MismatchKind::Timeout], "{report}");
    assert!(report.mismatches()[0]
        .summary()
        .contains("no response to `tools/call work` (line 4, sent as id 2) within 500 ms"));
    assert!(report.recorded().is_none(), "a timeout is never recorded");
}

#[test]
fn progress_keeps_a_response_awaited_for_ten_timeouts_at_most() {
    let fixture = Fixture::parse(LIST).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let (_, token) = handshake(&mut s);
    // Sent at 5: awaited until 505, and at most until 5 + 10 x 500.
    for at in (400..6000).step_by(400) {
        s.at(at).arrive(progress(&token));
        assert!(s.sent().is_empty());
        let moved = u128::from((at + 500).min(5 + 10 * 500));
        assert_eq!(s.deadline_ms(), Some(moved), "after progress at {at}");
    }
    s.at(5005).wake();
    s.wake();
    let report = s.end();
    assert!(kinds(&report).contains(&MismatchKind::Timeout), "{report}");
}

#[test]
fn a_second_answer_is_an_id_finding_and_a_late_notification_an_order_finding() {
    let fixture = Fixture::parse(LIST).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let (call, token) = handshake(&mut s);
    s.at(6).arrive(result(call.clone(), json!({"content": []})));
    s.at(7).arrive(result(call, json!({"content": []})));
    s.at(8).arrive(progress(&token));
    s.sent();
    s.wake();
    assert_eq!(s.sent(), [json!("<close>")]);
    let report = s.end();
    assert_eq!(
        kinds(&report),
        [MismatchKind::NotificationOrder, MismatchKind::Id],
        "{report}"
    );
    assert!(report.mismatches()[1]
        .summary()
        .contains("already answered"));
}

#[test]
fn a_fixture_without_a_handshake_gets_the_harness_s_own_first() {
    let fixture = Fixture::parse(BARE).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let setup = s.sent();
    assert_eq!(setup[0]["method"], "initialize");
    assert_eq!(setup[0]["id"], 0);
    assert_eq!(setup[0]["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(s.deadline_ms(), Some(500));
    let next = s.at(3).arrive(result(json!(0), init_result())).sent();
    assert_eq!(next[0]["method"], "notifications/initialized");
    assert_eq!(next[1]["method"], "tools/list");
    s.at(4)
        .arrive(result(next[1]["id"].clone(), json!({"tools": []})));
    s.sent();
    s.wake();
    assert_eq!(s.sent(), [json!("<close>")]);
    assert!(s.end().is_ok());
}

/// A server of protocol 2026-07-28 only knows no `initialize`: the refusal says which era
/// to replay in.
#[test]
fn a_setup_refused_as_an_unknown_method_suggests_the_stateless_era() {
    let fixture = Fixture::parse(BARE).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    s.sent();
    s.at(1).arrive(json!({"jsonrpc": "2.0", "id": 0,
        "error": {"code": -32601, "message": "Method not found: initialize"}}));
    assert_eq!(s.sent(), [json!("<close>")]);
    let report = s.end();
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure]);
    let summary = report.mismatches()[0].summary();
    assert!(
        summary.contains("the server refused the harness's `initialize`"),
        "{summary}"
    );
    assert!(summary.contains("`--protocol 2026-07-28`"), "{summary}");
}

#[test]
fn an_unanswered_setup_times_out_naming_it_and_nothing_more_is_sent() {
    let fixture = Fixture::parse(BARE).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    s.sent();
    s.at(500).wake();
    assert_eq!(s.sent(), [json!("<close>")]);
    let report = s.end();
    assert_eq!(kinds(&report), [MismatchKind::Timeout]);
    assert!(report.mismatches()[0]
        .summary()
        .contains("the harness's `initialize`"));
}

#[test]
fn a_server_request_is_answered_from_the_recording_under_its_live_id() {
    let fixture = Fixture::parse(ROOTS).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let init = s.sent();
    let call = s
        .at(1)
        .arrive(result(init[0]["id"].clone(), init_result()))
        .sent();
    assert_eq!(call[0]["method"], "tools/call");
    let answer = s
        .at(2)
        .arrive(json!({"jsonrpc": "2.0", "id": "srv-7", "method": "roots/list"}))
        .sent();
    assert_eq!(answer, [result(json!("srv-7"), json!({"roots": []}))]);
    // An unexpected one is refused, so that the server does not hang.
    let refusal = s
        .at(3)
        .arrive(json!({"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage"}))
        .sent();
    assert_eq!(refusal[0]["error"]["code"], -32601);
    s.at(4)
        .arrive(result(call[0]["id"].clone(), json!({"content": []})));
    let report = settle_and_end(s);
    assert_eq!(kinds(&report), [MismatchKind::Unexpected], "{report}");
}

#[test]
fn a_failed_write_aborts_naming_the_line_and_a_closed_output_names_what_was_awaited() {
    let fixture = Fixture::parse(LIST).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);

    let mut s = Script::new(&fixture, &settings);
    s.sent();
    s.session
        .handle_write_error(WriteError::Closed("broken pipe".into()), s.now);
    assert_eq!(s.sent(), [json!("<close>")]);
    let report = s.end();
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure]);
    let summary = report.mismatches()[0].summary();
    assert!(
        summary.contains("could not send request `initialize` (fixture line 1)")
            && summary.contains("broken pipe"),
        "{summary}"
    );

    let mut s = Script::new(&fixture, &settings);
    handshake(&mut s);
    s.session.server_ended(Err(super::outcome::ServerError::new(
        "the server panicked: boom",
    )));
    s.session.handle(Incoming::Closed(None), s.now);
    assert_eq!(s.sent(), [json!("<close>")]);
    assert!(s.session.is_done());
    let report = s.session.conclude(Ending::default());
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure], "{report}");
    let summary = report.mismatches()[0].summary();
    assert!(
        summary.contains("while the replay waited for: the response to `tools/call work`")
            && summary.ends_with("; the server panicked: boom"),
        "{summary}"
    );
}

#[test]
fn how_the_server_ended_is_judged_from_the_shell_s_facts() {
    let fixture = Fixture::parse(BARE).unwrap();
    let rules = Rules::default();
    let strict = Options::new()
        .timeout(TIMEOUT)
        .trace(false)
        .protocol_check(ProtocolCheck::Off)
        .strict_exit(true)
        .resolve(&fixture, &rules);
    for (settings, kinds_wanted, notes) in [
        (
            settings(&fixture, &rules),
            vec![MismatchKind::ServerFailure],
            1,
        ),
        (strict, vec![MismatchKind::ServerFailure; 2], 0),
    ] {
        let mut s = Script::new(&fixture, &settings);
        let setup = s.sent();
        let next = s
            .arrive(result(setup[0]["id"].clone(), init_result()))
            .sent();
        s.arrive(result(next[1]["id"].clone(), json!({"tools": []})));
        s.sent();
        s.wake();
        s.sent();
        s.session.handle(Incoming::Closed(None), s.now);
        let report = s.session.conclude(Ending {
            stuck: Some(Duration::from_secs(3)),
            forced: Some("the server needed SIGTERM to stop".into()),
            stderr: Vec::new(),
        });
        assert_eq!(kinds(&report), kinds_wanted, "{report}");
        assert_eq!(report.notes().len(), notes, "{report}");
    }
}

/// Pagination with a cursor the server mints: bound where the server first sends it.
const PAGES: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"resources/list"}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"resources":[{"name":"a","uri":"demo://a"}],"nextCursor":"<CURSOR:1>"}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"resources/list","params":{"cursor":"<CURSOR:1>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"resources":[{"name":"b","uri":"demo://b"}]}}}"#,
    "\n",
);

/// PAGES against a server whose cursor is `cursor` (`None`: it sends none): what the
/// session sent as the second page's cursor, and the report.
fn paginate(cursor: Option<&str>) -> (Value, Report) {
    let fixture = Fixture::parse(PAGES).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let init = s.sent();
    let first = s
        .arrive(result(init[0]["id"].clone(), init_result()))
        .sent();
    let mut page = json!({"resources": [{"name": "a", "uri": "demo://a"}]});
    if let Some(cursor) = cursor {
        page["nextCursor"] = json!(cursor);
    }
    let second = s.arrive(result(first[0]["id"].clone(), page)).sent();
    let sent = second[0]["params"]["cursor"].clone();
    s.arrive(result(
        second[0]["id"].clone(),
        json!({"resources": [{"name": "b", "uri": "demo://b"}]}),
    ));
    s.sent();
    s.wake();
    s.sent();
    (sent, s.end())
}

#[test]
fn a_cursor_the_server_mints_is_bound_and_sent_back_live() {
    for cursor in ["page-2-9f3c", "x"] {
        let (sent, report) = paginate(Some(cursor));
        assert_eq!(sent, cursor);
        assert!(report.is_ok(), "{report}");
        // A re-recording keeps the placeholder, not this run's value.
        let recorded = report.recorded().unwrap().to_jsonl();
        assert!(recorded.contains("\"cursor\":\"<CURSOR:1>\""), "{recorded}");
        assert!(!recorded.contains(cursor) || cursor == "x", "{recorded}");
    }
}

#[test]
fn a_cursor_the_server_never_sent_is_a_finding_naming_the_line_and_the_placeholder() {
    let (sent, report) = paginate(None);
    assert_eq!(sent, "<CURSOR:1>", "sent as written");
    let kinds = kinds(&report);
    assert!(kinds.contains(&MismatchKind::Missing), "{report}");
    assert!(kinds.contains(&MismatchKind::Result), "{report}");
    assert!(report
        .mismatches()
        .iter()
        .any(|m| m.summary().contains("line 5 sends <CURSOR:1>")));
}

/// A task (protocol 2025-11-25): created by `tools/call`, polled twice in the recording
/// (working, then completed), its result fetched.
const TASK: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"research","arguments":{},"task":{"ttl":60000}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"task":{"taskId":"<TASK_ID:1>","status":"working","pollInterval":100}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tasks/get","params":{"taskId":"<TASK_ID:1>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"taskId":"<TASK_ID:1>","status":"working","statusMessage":"stage 1","pollInterval":100}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tasks/get","params":{"taskId":"<TASK_ID:1>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"taskId":"<TASK_ID:1>","status":"completed","statusMessage":"done","pollInterval":100}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tasks/result","params":{"taskId":"<TASK_ID:1>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"report of <TASK_ID:1>"}]}}}"#,
    "\n",
);

/// What is left after the last expected message: the settle, the close, the end.
fn settle_and_end(mut s: Script<'_>) -> Report {
    s.sent();
    s.wake();
    s.sent();
    s.end()
}

/// Plays TASK's handshake and the task's creation (its live id `t-live`); the first poll
/// goes out. Its live id.
fn create_task(s: &mut Script<'_>) -> Value {
    create_task_after(s, &[])
}

/// [`create_task`], with `early` arriving after the `tools/call` went out and before its
/// `CreateTaskResult`.
fn create_task_after(s: &mut Script<'_>, early: &[Value]) -> Value {
    let first = s.sent();
    let then = s
        .at(5)
        .arrive(result(first[0]["id"].clone(), init_result()))
        .sent();
    assert_eq!(then[1]["method"], "tools/call");
    for message in early {
        s.at(8).arrive(message.clone());
    }
    let created = json!({"task": {"taskId": "t-live", "status": "working", "pollInterval": 100}});
    let poll = s
        .at(10)
        .arrive(result(then[1]["id"].clone(), created))
        .sent();
    assert_eq!(poll.len(), 1);
    assert_eq!(poll[0]["method"], "tasks/get");
    assert_eq!(poll[0]["params"]["taskId"], "t-live", "the live id, bound");
    poll[0]["id"].clone()
}

fn task_status(status: &str, message: &str) -> Value {
    json!({"taskId": "t-live", "status": status, "statusMessage": message, "pollInterval": 100})
}

#[test]
fn a_task_polled_more_often_than_recorded_passes_polling_as_its_interval_says() {
    let fixture = Fixture::parse(TASK).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let mut poll = create_task(&mut s);
    // Four stages where the recording saw one: each live `working` has its own message.
    for (n, at) in [(0, 20), (1, 120), (2, 220), (3, 320)] {
        s.at(at)
            .arrive(result(poll, task_status("working", &format!("stage {n}"))));
        assert!(s.sent().is_empty(), "not before the interval");
        assert_eq!(s.deadline_ms(), Some(u128::from(at) + 100));
        let again = s.at(at + 100).wake().sent();
        assert_eq!(again.len(), 1, "poll {n}");
        assert_eq!(again[0]["method"], "tasks/get");
        poll = again[0]["id"].clone();
    }
    let next = s
        .at(430)
        .arrive(result(poll, task_status("completed", "done")))
        .sent();
    assert_eq!(next[0]["method"], "tasks/result");
    assert_eq!(next[0]["params"]["taskId"], "t-live");
    s.at(440).arrive(result(
        next[0]["id"].clone(),
        json!({"content": [{"type": "text", "text": "report of t-live"}]}),
    ));
    let report = settle_and_end(s);
    assert!(report.is_ok(), "{report}");
}

#[test]
fn a_task_done_at_its_first_poll_passes_and_skips_the_recorded_polls() {
    let fixture = Fixture::parse(TASK).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let poll = create_task(&mut s);
    let next = s
        .at(20)
        .arrive(result(poll, task_status("completed", "done")))
        .sent();
    assert_eq!(next.len(), 1);
    assert_eq!(next[0]["method"], "tasks/result");
    s.at(30).arrive(result(
        next[0]["id"].clone(),
        json!({"content": [{"type": "text", "text": "report of t-live"}]}),
    ));
    let report = settle_and_end(s);
    assert!(report.is_ok(), "{report}");
}

/// server-everything sends a task's first status before the `CreateTaskResult` that
/// binds its id: that notification claims its line once the id is bound, so the session
/// does not wait out its timeout for it after the last client message (it did: every
/// such replay took the whole timeout longer).
#[test]
fn a_status_that_came_before_its_task_id_was_bound_is_not_waited_for() {
    let status_line = r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"<TASK_ID:1>","status":"working"}}}"#;
    let create = r#""task":{"ttl":60000}}}}"#;
    let text = TASK.replacen(create, &format!("{create}\n{status_line}"), 1);
    assert_ne!(text, TASK);
    let fixture = Fixture::parse(&text).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let status = json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
        "params": {"taskId": "t-live", "status": "working"}});
    let poll = create_task_after(&mut s, &[status]);
    let next = s
        .at(20)
        .arrive(result(poll, task_status("completed", "done")))
        .sent();
    assert_eq!(next[0]["method"], "tasks/result");
    s.at(30).arrive(result(
        next[0]["id"].clone(),
        json!({"content": [{"type": "text", "text": "report of t-live"}]}),
    ));
    s.sent();
    assert!(
        s.deadline_ms().is_some_and(|at| at <= 30),
        "nothing is left to wait for: {:?} ms",
        s.deadline_ms()
    );
    let report = settle_and_end(s);
    assert!(report.is_ok(), "{report}");
}

#[test]
fn a_task_that_never_finishes_is_a_timeout_naming_the_walk_never_a_hang() {
    let fixture = Fixture::parse(TASK).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let mut poll = Some(create_task(&mut s));
    let mut at = 20;
    let mut sent_result = None;
    // The same answer every time: no progress, so the wait is not renewed.
    while at < 2_000 {
        if let Some(p) = poll.take() {
            s.at(at).arrive(result(p, task_status("working", "stuck")));
        }
        at += 100;
        for line in s.at(at).wake().sent() {
            match line["method"].as_str() {
                Some("tasks/get") => poll = Some(line["id"].clone()),
                Some("tasks/result") => sent_result = Some(at),
                _ => {}
            }
        }
        if sent_result.is_some() {
            break;
        }
    }
    assert!(sent_result.is_some_and(|t| t <= 700), "{sent_result:?}");
    let report = s.end();
    let timeout = report
        .mismatches()
        .iter()
        .find(|m| m.kind() == MismatchKind::Timeout)
        .unwrap_or_else(|| panic!("{report}"));
    assert!(timeout.summary().contains("saw working"), "{report}");
    assert!(
        timeout.summary().contains("working -> completed"),
        "{report}"
    );
}

#[test]
fn a_poll_answered_with_an_unknown_task_is_a_result_finding_at_the_recorded_end() {
    let fixture = Fixture::parse(TASK).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let poll = create_task(&mut s);
    let error = json!({"jsonrpc": "2.0", "id": poll, "error": {"code": -32602, "message": "unknown task t-live"}});
    let next = s.at(20).arrive(error).sent();
    assert_eq!(next[0]["method"], "tasks/result", "the polls are over");
    s.sent();
    s.at(600).wake();
    let report = settle_and_end(s);
    let lines: Vec<_> = report
        .mismatches()
        .iter()
        .map(|m| (m.kind(), m.line()))
        .collect();
    assert_eq!(lines[0], (MismatchKind::Result, Some(9)), "{report}");
}

/// A task the server asks the client to run: the client's id for it is its own, and the
/// server polls the client.
const CLIENT_TASK: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"async","arguments":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:1>","method":"sampling/createMessage","params":{"messages":[],"task":{}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:1>","result":{"task":{"taskId":"<TASK_ID:1>","status":"working"}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:2>","method":"tasks/get","params":{"taskId":"<TASK_ID:1>"}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:2>","result":{"taskId":"<TASK_ID:1>","status":"completed"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"done <TASK_ID:1>"}]}}}"#,
    "\n",
);

#[test]
fn a_task_the_client_runs_has_the_replays_id_and_a_poll_more_is_answered_again() {
    let fixture = Fixture::parse(CLIENT_TASK).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let first = s.sent();
    let then = s
        .at(5)
        .arrive(result(first[0]["id"].clone(), init_result()))
        .sent();
    let call = then[1]["id"].clone();
    let request = |id: u64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let answer = s
        .at(10)
        .arrive(request(
            0,
            "sampling/createMessage",
            json!({"messages": [], "task": {}}),
        ))
        .sent();
    let mine = answer[0]["result"]["task"]["taskId"].clone();
    assert_eq!(
        mine, "mcp-replay-task-id-1",
        "the replay mints the client's value"
    );
    for (id, at) in [(1, 20), (2, 30)] {
        let polled = s
            .at(at)
            .arrive(request(id, "tasks/get", json!({"taskId": mine})))
            .sent();
        assert_eq!(polled.len(), 1, "poll {id}");
        assert_eq!(polled[0]["id"], id);
        assert_eq!(polled[0]["result"]["status"], "completed");
    }
    s.at(40).arrive(result(
        call,
        json!({"content": [{"type": "text", "text": "done mcp-replay-task-id-1"}]}),
    ));
    let report = settle_and_end(s);
    assert!(report.is_ok(), "{report}");
}

/// A re-recording labels what the server mints that the fixture did not have yet: a
/// handle's value, and a value the header's `"bind"` names.
#[test]
fn a_re_recording_labels_new_handles_and_what_the_headers_bind_names() {
    let text = concat!(
        r#"{"mcp_replay":1,"bind":[".result.structuredContent.orderId"]}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[],"structuredContent":{"orderId":"o-1"},"nextCursor":"c-1"}}}"#,
        "\n",
    );
    let fixture = Fixture::parse(text).unwrap();
    assert_eq!(fixture.header().bind, [".result.structuredContent.orderId"]);
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let first = s.sent();
    let init = s
        .at(1)
        .arrive(result(first[0]["id"].clone(), init_result()))
        .sent();
    let list = init.iter().find(|m| m["method"] == "tools/list").unwrap()["id"].clone();
    s.at(2).arrive(result(
        list,
        json!({"tools": [], "structuredContent": {"orderId": "o-77"}, "nextCursor": "c-2"}),
    ));
    let report = settle_and_end(s);
    assert_eq!(kinds(&report), [MismatchKind::Result], "{report}");
    let recorded = report.recorded().expect("recorded").to_jsonl();
    assert!(
        recorded.contains(r#""nextCursor":"<CURSOR:1>""#),
        "{recorded}"
    );
    assert!(recorded.contains(r#""orderId":"<MINTED:1>""#), "{recorded}");
}

#[test]
fn a_headers_bind_selector_is_checked_when_the_fixture_is_read() {
    let bad = "{\"mcp_replay\":1,\"bind\":[\".result[\"]}\n";
    let error = Fixture::parse(bad).unwrap_err().to_string();
    assert!(error.contains("\"bind\"[0]"), "{error}");
    let not_a_list = "{\"mcp_replay\":1,\"pin\":\".result.id\"}\n";
    let error = Fixture::parse(not_a_list).unwrap_err().to_string();
    assert!(
        error.contains("\"pin\" must be a list of selectors"),
        "{error}"
    );
}

/// What the server sends is checked against the protocol's types as it arrives: a tool
/// without its input schema's type is a `protocol` finding at the response, named by path,
/// apart from the result drift it also is; with `warn`, a warning and the replay passes.
#[cfg(feature = "validate")]
#[test]
fn a_server_message_that_is_not_valid_mcp_is_a_protocol_finding_or_a_warning() {
    const TOOLS: &str = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"inputSchema":{},"name":"read_file"}]}}}"#,
        "\n",
    );
    let fixture = Fixture::parse(TOOLS).unwrap();
    let rules = Rules::default();
    let invalid = json!({"tools": [{"name": "read_file", "inputSchema": {}}]});
    let run = |check: ProtocolCheck, message: Incoming| {
        let settings = Options::new()
            .timeout(TIMEOUT)
            .trace(false)
            .protocol_check(check)
            .resolve(&fixture, &rules);
        let mut s = Script::new(&fixture, &settings);
        let sent = s.sent();
        assert_eq!(sent[0]["method"], "initialize");
        s.at(1).arrive(result(json!(0), init_result()));
        let sent = s.sent();
        let call = sent[1]["id"].clone();
        let message = match message {
            Incoming::Message(mut m) => {
                m["id"] = call;
                Incoming::Message(m)
            }
            other => other,
        };
        let now = s.at(2).now;
        s.session.handle(message, now);
        s.sent();
        s.wake();
        assert_eq!(s.sent(), [json!("<close>")]);
        s.end()
    };
    let tree = || Incoming::Message(json!({"jsonrpc": "2.0", "id": 0, "result": invalid}));
    let report = run(ProtocolCheck::Deny, tree());
    assert_eq!(kinds(&report), [MismatchKind::Protocol], "{report}");
    let finding = &report.mismatches()[0];
    assert_eq!(finding.line(), Some(2));
    assert_eq!(
        finding.summary(),
        "the response to `tools/list` (line 1) is not valid MCP: \
         `.result.tools[0].inputSchema.type` is required"
    );
    let warned = run(ProtocolCheck::Warn, tree());
    assert!(warned.is_ok(), "{warned}");
    assert_eq!(warned.warnings().len(), 1);
    assert!(
        warned
            .to_string()
            .contains("warning: protocol: the response to"),
        "{warned}"
    );
    assert!(run(ProtocolCheck::Off, tree()).is_ok());
    // The fast path's text is checked the same (the live id of the call is 1).
    let line = json!({"jsonrpc": "2.0", "id": 1, "result": invalid}).to_string();
    let fast = crate::normalize::fast::response(&line, None).expect("a plain response");
    let report = run(ProtocolCheck::Deny, Incoming::Response(fast));
    assert_eq!(kinds(&report), [MismatchKind::Protocol], "{report}");
}

/// The harness's own `initialize` is checked too, and a notification by its method.
#[cfg(feature = "validate")]
#[test]
fn the_setup_answer_and_notifications_are_checked_too() {
    let fixture = Fixture::parse(BARE).unwrap();
    let rules = Rules::default();
    let settings = Options::new()
        .timeout(TIMEOUT)
        .trace(false)
        .resolve(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    s.sent();
    // No `serverInfo`: 2025-11-25 requires it.
    let bare_init = json!({"capabilities": {}, "protocolVersion": "2025-11-25"});
    s.at(1).arrive(result(json!(0), bare_init));
    let sent = s.sent();
    let call = sent[1]["id"].clone();
    s.at(2).arrive(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud", "data": "x"}}));
    s.at(3).arrive(result(call, json!({"tools": []})));
    s.sent();
    s.wake();
    assert_eq!(s.sent(), [json!("<close>")]);
    let report = s.end();
    let protocol: Vec<&str> = report
        .mismatches()
        .iter()
        .filter(|m| m.kind() == MismatchKind::Protocol)
        .map(|m| m.summary())
        .collect();
    assert_eq!(protocol.len(), 2, "{report}");
    assert!(
        protocol[0].contains("`.result.serverInfo` is required"),
        "{report}"
    );
    assert!(
        protocol[1].starts_with(
            "`notifications/message` from the server is not valid MCP: `.params.level`"
        ),
        "{report}"
    );
}

/// The answer to the harness's `initialize` as the framer hands it over (the line as it
/// came, `Incoming::Setup`): checked as the server wrote it, and an error answer is still
/// the setup's refusal.
#[cfg(feature = "validate")]
#[test]
fn the_setup_answer_as_it_came_is_checked_and_its_refusal_named() {
    let fixture = Fixture::parse(BARE).unwrap();
    let rules = Rules::default();
    let settings = Options::new()
        .timeout(TIMEOUT)
        .trace(false)
        .resolve(&fixture, &rules);
    let answer = |line: serde_json::Value| Incoming::Setup {
        is_error: line.get("error").is_some(),
        text: line.to_string(),
    };
    let mut s = Script::new(&fixture, &settings);
    s.sent();
    let bare_init = json!({"capabilities": {}, "protocolVersion": "2025-11-25"});
    let now = s.at(1).now;
    s.session.handle(
        answer(json!({"jsonrpc": "2.0", "id": 0, "result": bare_init})),
        now,
    );
    let sent = s.sent();
    assert_eq!(sent[0]["method"], "notifications/initialized");
    let call = sent[1]["id"].clone();
    s.at(2).arrive(result(call, json!({"tools": []})));
    s.sent();
    s.wake();
    let report = s.end();
    assert_eq!(kinds(&report), [MismatchKind::Protocol], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("`.result.serverInfo` is required"),
        "{report}"
    );

    let mut s = Script::new(&fixture, &settings);
    s.sent();
    let now = s.at(1).now;
    let refusal = json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32602, "message": "no"}});
    s.session.handle(answer(refusal), now);
    s.sent();
    let report = s.end();
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .starts_with("the server refused the harness's `initialize`"),
        "{report}"
    );
}
