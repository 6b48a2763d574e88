//! Protocol fidelity with exactly scripted servers: pipelining, response order,
//! cancellation by label, caller-supplied answers to server requests.

mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};

use common::{fixture, kinds, notification, result, scripted, scripted_all};
use mcp_replay::{Fixture, MismatchKind};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn call(label: &str, name: &str) -> (&'static str, Value) {
    (
        "client->server",
        json!({"jsonrpc": "2.0", "id": label, "method": "tools/call", "params": {"name": name}}),
    )
}

fn answer(label: &str, text: &str) -> (&'static str, Value) {
    (
        "server->client",
        json!({"jsonrpc": "2.0", "id": label, "result": {"content": [{"type": "text", "text": text}]}}),
    )
}

/// Answers `a` and `b` in the order b, a (ids are live: 1 and 2).
fn answers_in_reverse(m: &Value) -> Vec<String> {
    if m["params"]["name"] == "b" {
        let a = json!({"id": 1});
        vec![
            result(m, json!({"content": [{"type": "text", "text": "B"}]})),
            result(&a, json!({"content": [{"type": "text", "text": "A"}]})),
        ]
    } else {
        vec![]
    }
}

fn pipelined() -> Run {
    fixture(&[
        call("<REQUEST_ID:1>", "a"),
        call("<REQUEST_ID:2>", "b"),
        answer("<REQUEST_ID:1>", "A"),
        answer("<REQUEST_ID:2>", "B"),
    ])
    .with_timeout(Duration::from_millis(300))
}

#[tokio::test]
async fn responses_to_pipelined_requests_match_by_id_whatever_their_order() {
    let report = pipelined()
        .replay()
        .run(|t| scripted(t, answers_in_reverse))
        .await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn a_fixture_can_ask_for_strict_response_order() {
    let text = format!(
        "{{\"mcp_replay\":1,\"strict_response_order\":true}}\n{}",
        pipelined().fixture.to_jsonl()
    );
    let report = Fixture::parse(&text)
        .unwrap()
        .replay()
        .run(|t| scripted(t, answers_in_reverse))
        .await;
    assert_eq!(
        kinds(&report),
        [MismatchKind::NotificationOrder],
        "{report}"
    );
    assert!(report.mismatches()[0]
        .summary()
        .contains("strict response order"));
}

/// The server reports whether the cancellation named the live id of the long call.
fn cancellable(m: &Value) -> Vec<String> {
    match m["method"].as_str() {
        Some("tools/call") if m["params"]["name"] == "long" => {
            vec![notification(
                "notifications/progress",
                json!({"progressToken": "<PROGRESS_TOKEN>", "progress": 1}),
            )]
        }
        Some("notifications/cancelled") => {
            let ok = m["params"]["requestId"] == 1;
            vec![notification(
                "notifications/message",
                json!({"level": "info", "data": if ok { "stopped" } else { "cancelled an unknown id" }}),
            )]
        }
        Some("tools/call") => vec![result(
            m,
            json!({"content": [{"type": "text", "text": "quick"}]}),
        )],
        _ => vec![],
    }
}

fn cancel_fixture(quick_text: &str) -> Run {
    fixture(&[
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID:1>", "method": "tools/call", "params": {"name": "long", "_meta": {"progressToken": "<PROGRESS_TOKEN>"}}}),
        ),
        ("server->client", json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "<PROGRESS_TOKEN>", "progress": 1}})),
        ("client->server", json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "<REQUEST_ID:1>", "reason": "user"}})),
        ("server->client", json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "stopped"}})),
        call("<REQUEST_ID:2>", "quick"),
        answer("<REQUEST_ID:2>", quick_text),
    ])
    .with_timeout(Duration::from_millis(400))
}

#[tokio::test]
async fn a_cancellation_names_the_live_id_and_the_cancelled_request_is_not_awaited() {
    let started = Instant::now();
    let report = cancel_fixture("quick")
        .replay()
        .run(|t| scripted_all(t, cancellable))
        .await;
    assert!(report.is_ok(), "{report}");
    assert!(
        started.elapsed() < Duration::from_millis(350),
        "waited for the cancelled request"
    );
}

#[tokio::test]
async fn a_changed_reaction_to_a_cancellation_is_reported() {
    let report = cancel_fixture("slow")
        .replay()
        .run(|t| scripted_all(t, cancellable))
        .await;
    assert_eq!(kinds(&report), [MismatchKind::Result], "{report}");
}

/// A long call the server still works on when the cancellation comes: one more progress
/// and log (`late`), as a server that notices the cancellation late sends them.
fn works_on(late: &'static str) -> impl Fn(&Value) -> Vec<String> {
    move |m: &Value| {
        let step = |n: u32| {
            vec![
                notification(
                    "notifications/progress",
                    json!({"progressToken": "<PROGRESS_TOKEN>", "progress": n}),
                ),
                notification(
                    if n == 1 {
                        "notifications/message"
                    } else {
                        late
                    },
                    json!({"level": "info", "data": format!("step {n}")}),
                ),
            ]
        };
        match m["method"].as_str() {
            Some("tools/call") if m["params"]["name"] == "long" => step(1),
            Some("notifications/cancelled") => step(2),
            Some("tools/call") => vec![result(
                m,
                json!({"content": [{"type": "text", "text": "quick"}]}),
            )],
            _ => vec![],
        }
    }
}

#[tokio::test]
async fn what_a_cancelled_request_still_sends_after_the_cancellation_is_late_not_unexpected() {
    let run = || {
        fixture(&[
            (
                "client->server",
                json!({"jsonrpc": "2.0", "id": "<REQUEST_ID:1>", "method": "tools/call", "params": {"name": "long", "_meta": {"progressToken": "<PROGRESS_TOKEN>"}}}),
            ),
            ("server->client", json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "<PROGRESS_TOKEN>", "progress": 1}})),
            ("server->client", json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "step 1"}})),
            ("client->server", json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "<REQUEST_ID:1>"}})),
            call("<REQUEST_ID:2>", "quick"),
            answer("<REQUEST_ID:2>", "quick"),
        ])
        .with_timeout(Duration::from_millis(400))
    };
    // Progress and a log, of the kinds the long call sent before it was cancelled.
    let report = run()
        .replay()
        .run(|t| scripted_all(t, works_on("notifications/message")))
        .await;
    assert!(report.is_ok(), "{report}");
    // A kind it never sent while it ran is not its late work: unexpected.
    let report = run()
        .replay()
        .run(|t| scripted_all(t, works_on("notifications/other")))
        .await;
    assert_eq!(kinds(&report), [MismatchKind::Unexpected], "{report}");
}

#[tokio::test]
async fn a_late_log_is_known_by_what_the_same_tool_sent_while_it_worked_before() {
    // The cancelled call's recording holds its progress alone (the client left before the
    // log came); an earlier call of the same tool, answered, sent logs as it worked.
    let run = fixture(&[
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID:1>", "method": "tools/call", "params": {"name": "long", "_meta": {"progressToken": "<PROGRESS_TOKEN:1>"}}}),
        ),
        ("server->client", json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "step 1"}})),
        answer("<REQUEST_ID:1>", "done"),
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID:2>", "method": "tools/call", "params": {"name": "long", "_meta": {"progressToken": "<PROGRESS_TOKEN>"}}}),
        ),
        ("server->client", json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "<PROGRESS_TOKEN>", "progress": 1}})),
        ("client->server", json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "<REQUEST_ID:2>"}})),
        call("<REQUEST_ID:3>", "quick"),
        answer("<REQUEST_ID:3>", "quick"),
    ])
    .with_timeout(Duration::from_millis(400));
    let report = run
        .replay()
        .run(|t| {
            scripted_all(t, |m: &Value| match m["method"].as_str() {
                Some("tools/call") if m["params"]["name"] == "long" && m["id"] == 1 => vec![
                    notification(
                        "notifications/message",
                        json!({"level": "info", "data": "step 1"}),
                    ),
                    result(m, json!({"content": [{"type": "text", "text": "done"}]})),
                ],
                Some("tools/call") if m["params"]["name"] == "long" => vec![
                    notification(
                        "notifications/progress",
                        json!({"progressToken": "<PROGRESS_TOKEN>", "progress": 1}),
                    ),
                    notification(
                        "notifications/message",
                        json!({"level": "info", "data": "step 1"}),
                    ),
                ],
                Some("notifications/cancelled") => vec![notification(
                    "notifications/message",
                    json!({"level": "info", "data": "step 2"}),
                )],
                Some("tools/call") => vec![result(
                    m,
                    json!({"content": [{"type": "text", "text": "quick"}]}),
                )],
                _ => vec![],
            })
        })
        .await;
    assert!(report.is_ok(), "{report}");
}

/// A server that asks for the user's name (server id 0 next to the client's live id 1)
/// and answers the tool call with what the client said.
fn asks_name(m: &Value) -> Vec<String> {
    if m["method"] == "tools/call" {
        return vec![json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}).to_string()];
    }
    if m["id"] == 0 {
        let text = match m["result"]["action"].as_str() {
            Some("accept") => format!(
                "Hello, {}",
                m["result"]["content"]["name"].as_str().unwrap_or("?")
            ),
            _ => "Hello, stranger".to_owned(),
        };
        return vec![json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}}).to_string()];
    }
    vec![]
}

fn elicitation_fixture() -> Run {
    fixture(&[
        call("<REQUEST_ID>", "ask_name"),
        ("server->client", json!({"jsonrpc": "2.0", "id": "<SERVER_REQUEST_ID:1>", "method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}})),
        ("client->server", json!({"jsonrpc": "2.0", "id": "<SERVER_REQUEST_ID:1>", "result": {"action": "accept", "content": {"name": "Ada"}}})),
        answer("<REQUEST_ID>", "Hello, Ada"),
    ])
    .with_timeout(Duration::from_millis(400))
}

#[tokio::test]
async fn a_handler_that_decides_like_the_recording_passes() {
    let report = elicitation_fixture()
        .on_server_request(|request| {
            assert_eq!(request["method"], "elicitation/create");
            Some(json!({"action": "accept", "content": {"name": "Ada"}}))
        })
        .replay()
        .run(|t| scripted_all(t, asks_name))
        .await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn a_handler_that_decides_differently_is_a_finding() {
    let report = elicitation_fixture()
        .on_server_request(|_| Some(json!({"action": "decline"})))
        .replay()
        .run(|t| scripted_all(t, asks_name))
        .await;
    // The different decision, then the server's different answer that follows from it.
    assert_eq!(
        kinds(&report),
        [MismatchKind::Result, MismatchKind::Result],
        "{report}"
    );
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("the handler answered `tools/call`")
            || report.mismatches()[0]
                .summary()
                .contains("handler answered"),
        "{report}"
    );
    assert_eq!(
        report.mismatches()[0].differences()[0].path(),
        ".result.action"
    );
}

#[tokio::test]
async fn without_a_handler_the_recorded_answer_is_sent_under_the_servers_id() {
    let report = elicitation_fixture()
        .replay()
        .run(|t| scripted_all(t, asks_name))
        .await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
#[should_panic(expected = "the handler's own panic")]
async fn a_panic_in_the_handler_reaches_the_test_as_it_was() {
    // The replay's drive runs as a task of its own; a panic there (the handler runs in it)
    // goes on in the test that awaited the replay, with its own message.
    let _ = elicitation_fixture()
        .on_server_request(|_| panic!("the handler's own panic"))
        .replay()
        .run(|t| scripted_all(t, asks_name))
        .await;
}
