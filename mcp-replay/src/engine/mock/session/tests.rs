//! The mock core's tests, driven at exact instants without a runtime: the pace, and a
//! client that polls a task more or fewer times than the recording.

use super::*;
use crate::options::Options;

const CALL: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"work","arguments":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#,
    "\n",
);

/// The core alone, at chosen instants: each line is due its pace after the write of
/// the one before, a response [`PROGRESS_SETTLE`] after a progress notification.
#[test]
fn lines_are_due_their_pace_after_the_write_before_them() {
    let fixture = Fixture::parse(CALL).unwrap();
    let rules = Rules::default();
    let settings = Options::new()
        .pace(Duration::from_millis(2))
        .resolve(&fixture, &rules);
    let start = Instant::now();
    let ms = |n: u64| start + Duration::from_millis(n);
    let mut mock = Mock::new(&fixture, &settings, start);
    let mut buf = Vec::new();
    assert_eq!(mock.poll_timeout(), Wake::Client);
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"work","arguments":{}}}"#;
    mock.handle(
        Incoming::Message(serde_json::from_str(call).unwrap()),
        ms(1),
    );
    let mut written = Vec::new();
    // Written 1 ms late each time: the gaps count from the writes.
    let mut at = 1;
    while let Wake::Write(due) = mock.poll_timeout() {
        at = at.max((due - start).as_millis() as u64);
        assert!(!mock.poll_transmit(ms(at) - Duration::from_micros(1), &mut buf));
        assert!(mock.poll_transmit(ms(at), &mut buf));
        let line: Value = serde_json::from_slice(&buf).unwrap();
        at += 1;
        mock.line_written(ms(at));
        written.push((at - 1, line));
    }
    let times: Vec<u64> = written.iter().map(|(t, _)| *t).collect();
    assert_eq!(times, [1, 4, 15], "{written:?}");
    assert_eq!(written[1].1["params"]["progressToken"], "p");
    assert_eq!(written[2].1["id"], 7);
    let report = mock.conclude();
    assert!(report.is_ok(), "{report}");
}

/// A task recorded with two polls (working, completed), then its result.
const TASK: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"research","arguments":{},"task":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"task":{"taskId":"<TASK_ID:1>","status":"working"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tasks/get","params":{"taskId":"<TASK_ID:1>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"taskId":"<TASK_ID:1>","status":"working"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"<TASK_ID:1>","status":"completed"}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tasks/get","params":{"taskId":"<TASK_ID:1>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"taskId":"<TASK_ID:1>","status":"completed"}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tasks/result","params":{"taskId":"<TASK_ID:1>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#,
    "\n",
);

/// Plays `TASK` to a client that sends `methods` in turn (each after what came before
/// was written); what it was sent.
fn serve_task(methods: &[&str]) -> (Vec<Value>, Report) {
    let fixture = Fixture::parse(TASK).unwrap();
    let rules = Rules::default();
    let settings = Options::new()
        .pace(Duration::ZERO)
        .resolve(&fixture, &rules);
    let start = Instant::now();
    let mut mock = Mock::new(&fixture, &settings, start);
    let mut buf = Vec::new();
    let mut got = Vec::new();
    let mut task = String::new();
    for (n, method) in methods.iter().enumerate() {
        let params = match *method {
            "tools/call" => json!({"name": "research", "arguments": {}, "task": {}}),
            _ => json!({"taskId": task}),
        };
        let line = json!({"jsonrpc": "2.0", "id": n + 1, "method": method, "params": params});
        mock.handle(Incoming::Message(line), start);
        while let Wake::Write(_) = mock.poll_timeout() {
            if !mock.poll_transmit(start + Duration::from_secs(1), &mut buf) {
                break;
            }
            mock.line_written(start);
            let message: Value = serde_json::from_slice(&buf).unwrap();
            if let Some(t) = message
                .pointer("/result/task/taskId")
                .and_then(Value::as_str)
            {
                task = t.to_owned();
            }
            got.push(message);
        }
    }
    (got, mock.conclude())
}

#[test]
fn a_client_that_polls_more_often_gets_the_status_reached_again() {
    let (got, report) = serve_task(&[
        "tools/call",
        "tasks/get",
        "tasks/get",
        "tasks/get",
        "tasks/get",
        "tasks/result",
    ]);
    assert!(report.is_ok(), "{report}");
    let statuses: Vec<&str> = got
        .iter()
        .filter_map(|m| m.pointer("/result/status").and_then(Value::as_str))
        .collect();
    assert_eq!(statuses, ["working", "completed", "completed", "completed"]);
    assert_eq!(got[0]["result"]["task"]["taskId"], "mcp-replay-task-id-1");
    assert_eq!(got.last().unwrap()["result"], json!({"content": []}));
}

#[test]
fn a_client_that_polls_fewer_times_gets_the_rest_of_the_task_and_its_result() {
    let (got, report) = serve_task(&["tools/call", "tasks/get", "tasks/result"]);
    assert!(report.is_ok(), "{report}");
    let methods: Vec<&str> = got.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        ["notifications/tasks/status"],
        "the status it missed"
    );
    assert_eq!(got.last().unwrap()["id"], 3);
    assert_eq!(got.last().unwrap()["result"], json!({"content": []}));
}

/// A call during which the server asked for roots twice (its timer asked again, the
/// client's first answer being late), answered once before and once after the client's
/// next call, as recorded against server-everything.
const ROOTS: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"get-roots-list","arguments":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:1>","method":"roots/list"}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:2>","method":"roots/list"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:1>","result":{"roots":[]}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:2>","result":{"roots":[]}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"roots again"}}}"#,
    "\n",
);

/// Plays `ROOTS` to a client that sends `lines` in turn (`answer N`: its answer to the
/// mock's Nth request, by the id the mock sent it under); the methods, ids and data of
/// what it was sent, and the report.
fn serve_roots(lines: &[&str]) -> (Vec<String>, Report) {
    let fixture = Fixture::parse(ROOTS).unwrap();
    let rules = Rules::default();
    let settings = Options::new()
        .pace(Duration::ZERO)
        .resolve(&fixture, &rules);
    let start = Instant::now();
    let mut mock = Mock::new(&fixture, &settings, start);
    let (mut buf, mut got, mut asked) = (Vec::new(), Vec::new(), Vec::new());
    for (n, line) in lines.iter().enumerate() {
        let message = match line.strip_prefix("answer ") {
            Some(k) => {
                let id: &Value = &asked[k.parse::<usize>().unwrap() - 1];
                json!({"jsonrpc": "2.0", "id": id, "result": {"roots": []}})
            }
            None if *line == "tools/list" => json!({"jsonrpc": "2.0", "id": n + 1, "method": line}),
            None => json!({"jsonrpc": "2.0", "id": n + 1, "method": "tools/call",
                "params": {"name": "get-roots-list", "arguments": {}}}),
        };
        mock.handle(Incoming::Message(message), start);
        while let Wake::Write(_) = mock.poll_timeout() {
            if !mock.poll_transmit(start + Duration::from_secs(1), &mut buf) {
                break;
            }
            mock.line_written(start);
            let message: Value = serde_json::from_slice(&buf).unwrap();
            if message["method"] == "roots/list" {
                asked.push(message["id"].clone());
            }
            got.push(match message["method"].as_str() {
                Some(method) => format!("{method} {}", message["params"]["data"]),
                None if message["result"].get("tools").is_some() => "tools".to_owned(),
                None => "called".to_owned(),
            });
        }
    }
    (got, mock.conclude())
}

#[test]
fn a_clients_answers_and_its_own_requests_may_come_in_either_order() {
    let whole = [
        "roots/list null",
        "roots/list null",
        "called",
        "tools",
        "notifications/message \"roots again\"",
    ];
    // As recorded: the second answer after the client's next call.
    let (got, report) = serve_roots(&["tools/call", "answer 1", "tools/list", "answer 2"]);
    assert!(report.is_ok(), "{report}");
    assert_eq!(got, whole);
    // The second answer before it (its handler was quicker this time).
    let (got, report) = serve_roots(&["tools/call", "answer 1", "answer 2", "tools/list"]);
    assert!(report.is_ok(), "{report}");
    assert_eq!(got, whole);
    // The client's next call before its first answer: the call goes ahead only where no
    // server line waits on the answer (here the call's own result does), so it is a finding.
    let (_, report) = serve_roots(&["tools/call", "tools/list", "answer 1", "answer 2"]);
    assert!(!report.is_ok(), "{report}");
}

/// A 2026-07-28 subscription the client left (its cancellation, in the stdio form the
/// recorder writes, noticed only after the client's next request), then that request.
const LEFT: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID:1>","method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"<PROTOCOL_VERSION>"},"notifications":{"toolsListChanged":true}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"<REQUEST_ID:1>"},"notifications":{"toolsListChanged":true}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID:2>","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"<PROTOCOL_VERSION>"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"<REQUEST_ID:1>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID:2>","result":{"tools":[]}}}"#,
    "\n",
);

/// Plays `LEFT` over HTTP (`http`) or stdio to a client that sends `lines` (`listen`,
/// `list`, `cancel`) in turn: what it was sent, and the report.
fn serve_left(http: bool, lines: &[&str]) -> (Vec<String>, Report) {
    let fixture = Fixture::parse(LEFT).unwrap();
    let rules = Rules::default();
    let options = Options::new().pace(Duration::ZERO);
    let options = if http { options.over_http() } else { options };
    let settings = options.resolve(&fixture, &rules);
    let start = Instant::now();
    let mut mock = Mock::new(&fixture, &settings, start);
    let (mut buf, mut got) = (Vec::new(), Vec::new());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    for line in lines {
        let message = match *line {
            "listen" => json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}}),
            "list" => json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                "params": {"_meta": meta}}),
            _ => json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 1}}),
        };
        mock.handle(Incoming::Message(message), start);
        while let Wake::Write(_) = mock.poll_timeout() {
            if !mock.poll_transmit(start + Duration::from_secs(1), &mut buf) {
                break;
            }
            mock.line_written(start);
            let message: Value = serde_json::from_slice(&buf).unwrap();
            got.push(match message["method"].as_str() {
                Some(method) => method.to_owned(),
                None => format!("answer {}", message["id"]),
            });
        }
    }
    (got, mock.conclude())
}

#[test]
fn over_http_a_cancellation_the_client_makes_by_closing_its_stream_is_not_waited_for() {
    let whole = ["notifications/subscriptions/acknowledged", "answer 2"];
    // Over HTTP the client closes the listen stream: no cancellation comes, and the
    // answer recorded after where the recorder noticed the close is served at once.
    let (got, report) = serve_left(true, &["listen", "list"]);
    assert!(report.is_ok(), "{report}");
    assert_eq!(got, whole);
    // A client that sends it all the same, late: taken.
    let (got, report) = serve_left(true, &["listen", "list", "cancel"]);
    assert!(report.is_ok(), "{report}");
    assert_eq!(got, whole);
    // Over stdio the cancellation is a message the client sends: the answer waits for it.
    let (got, report) = serve_left(false, &["listen", "list", "cancel"]);
    assert!(report.is_ok(), "{report}");
    assert_eq!(got, whole);
    let (got, _) = serve_left(false, &["listen", "list"]);
    assert_eq!(got, whole[..1]);
}
