//! For every mismatch kind, a deliberately changed server produces exactly that kind.

// The runtime's scripted test servers (mcp-replay/tests/common), shared with its own tests.
#[path = "../mcp-replay/tests/common/mod.rs"]
mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};

use common::{fixture, kinds, notification, result, scripted};
use mcp_replay::{Fixture, MismatchKind, Report};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// One `tools/call` answered by a progress notification, a log notification and a result.
fn work_fixture() -> Run {
    fixture(&[
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "work"}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": 1}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "half"}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"content": [{"type": "text", "text": "done"}]}}),
        ),
    ])
    .with_timeout(Duration::from_millis(300))
}

fn progress() -> String {
    notification(
        "notifications/progress",
        json!({"progressToken": "t", "progress": 1.0}),
    )
}
fn log(data: &str) -> String {
    notification(
        "notifications/message",
        json!({"level": "info", "data": data}),
    )
}
fn done(request: &Value) -> String {
    result(
        request,
        json!({"content": [{"type": "text", "text": "done"}]}),
    )
}

async fn replay_work(script: fn(&Value) -> Vec<String>) -> Report {
    work_fixture()
        .replay()
        .run(move |transport| scripted(transport, script))
        .await
}

#[tokio::test]
async fn a_faithful_server_passes() {
    let report = replay_work(|r| vec![progress(), log("half"), done(r)]).await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn another_method_is_a_method_finding() {
    let report = replay_work(|r| {
        vec![
            progress(),
            notification(
                "notifications/resources/updated",
                json!({"uri": "file:///x"}),
            ),
            done(r),
        ]
    })
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Method]);
    let m = &report.mismatches()[0];
    assert_eq!(m.line(), Some(3));
    assert!(m.summary().contains("notifications/message"), "{m}");
    assert!(
        m.summary().contains("notifications/resources/updated"),
        "{m}"
    );
}

#[tokio::test]
async fn other_params_are_a_params_finding_with_the_path() {
    let report = replay_work(|r| vec![progress(), log("three quarters"), done(r)]).await;
    assert_eq!(kinds(&report), [MismatchKind::Params]);
    let d = &report.mismatches()[0].differences()[0];
    assert_eq!(d.path(), ".params.data");
    assert_eq!(d.expected(), Some(&json!("half")));
    assert_eq!(d.actual(), Some(&json!("three quarters")));
}

#[tokio::test]
async fn another_result_is_a_result_finding() {
    let report = replay_work(|r| {
        vec![
            progress(),
            log("half"),
            result(
                r,
                json!({"content": [{"type": "text", "text": "not done"}]}),
            ),
        ]
    })
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Result]);
    assert_eq!(
        report.mismatches()[0].differences()[0].path(),
        ".result.content[0].text"
    );
}

#[tokio::test]
async fn an_error_instead_of_a_result_is_a_result_finding() {
    let report = replay_work(|r| {
        vec![
            progress(),
            log("half"),
            json!({"jsonrpc": "2.0", "id": r["id"], "error": {"code": -32603, "message": "boom"}})
                .to_string(),
        ]
    })
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Result]);
    let paths: Vec<_> = report.mismatches()[0]
        .differences()
        .iter()
        .map(|d| d.path().to_owned())
        .collect();
    assert_eq!(paths, [".error", ".result"]);
}

#[tokio::test]
async fn an_id_of_the_wrong_type_is_an_id_finding() {
    let report = replay_work(|r| {
        let mut wrong = r.clone();
        wrong["id"] = json!(r["id"].to_string());
        vec![progress(), log("half"), done(&wrong)]
    })
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Id]);
    assert!(
        report.mismatches()[0].summary().contains("wrong type"),
        "{report}"
    );
    assert!(
        report.recorded().is_none(),
        "an id finding must block re-recording"
    );
}

#[tokio::test]
async fn answering_twice_is_an_id_finding() {
    let report = replay_work(|r| vec![progress(), log("half"), done(r), done(r)]).await;
    assert_eq!(kinds(&report), [MismatchKind::Id]);
    assert!(
        report.mismatches()[0].summary().contains("answered twice"),
        "{report}"
    );
}

#[tokio::test]
async fn an_id_that_names_no_request_is_an_id_finding() {
    let report = replay_work(|r| {
        let mut other = r.clone();
        other["id"] = json!(9999);
        vec![progress(), log("half"), done(&other)]
    })
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Id]);
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("matches no request"),
        "{report}"
    );
}

#[tokio::test]
async fn swapped_notifications_are_a_notification_order_finding() {
    let report = replay_work(|r| vec![log("half"), progress(), done(r)]).await;
    assert_eq!(kinds(&report), [MismatchKind::NotificationOrder]);
    let summary = report.mismatches()[0].summary();
    assert!(
        summary.contains(
            "expected order: `notifications/progress` (line 2), `notifications/message` (line 3)"
        ),
        "{summary}"
    );
    assert!(
        summary.contains(
            "actual order:   `notifications/message` (line 3), `notifications/progress` (line 2)"
        ),
        "{summary}"
    );
}

#[tokio::test]
async fn a_notification_never_sent_is_missing() {
    let report = replay_work(|r| vec![progress(), done(r)]).await;
    assert_eq!(kinds(&report), [MismatchKind::Missing]);
    assert_eq!(report.mismatches()[0].line(), Some(3));
}

#[tokio::test]
async fn an_extra_notification_is_unexpected() {
    let report = replay_work(|r| {
        vec![
            progress(),
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_owned(),
            log("half"),
            done(r),
        ]
    })
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Unexpected]);
    let m = &report.mismatches()[0];
    assert_eq!(
        m.summary(),
        "the server sent `notifications/tools/list_changed` that the fixture does not expect, \
         while `tools/call work` (line 1) ran"
    );
    assert_eq!(m.request_line(), Some(1));
}

#[tokio::test]
async fn an_unexpected_notification_is_placed_in_time() {
    // After the response to the fixture's only request: after the last message.
    let report = replay_work(|r| {
        vec![
            progress(),
            log("half"),
            done(r),
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_owned(),
        ]
    })
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Unexpected], "{report}");
    let m = &report.mismatches()[0];
    assert!(
        m.summary().ends_with(", after the last message"),
        "{}",
        m.summary()
    );
    assert_eq!(m.request_line(), None);
    // Before the fixture's first request: a server that speaks first.
    let report = work_fixture()
        .replay()
        .run(|mut transport| async move {
            use tokio::io::AsyncWriteExt;
            let hello = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
            transport
                .write_all(format!("{hello}\n").as_bytes())
                .await
                .unwrap();
            scripted(transport, |r| vec![progress(), log("half"), done(r)]).await
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::Unexpected], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .ends_with(", before the first request"),
        "{report}"
    );
}

#[tokio::test]
async fn findings_name_the_tool_prompt_or_resource_of_their_request() {
    let report = replay_work(|r| {
        vec![
            progress(),
            log("half"),
            result(
                r,
                json!({"content": [{"type": "text", "text": "not done"}]}),
            ),
        ]
    })
    .await;
    let m = &report.mismatches()[0];
    assert_eq!(
        m.summary(),
        "the response to `tools/call work` (line 1) differs"
    );
    assert_eq!(m.request_line(), Some(1));
    for (method, params, named) in [
        (
            "prompts/get",
            json!({"name": "greet"}),
            "`prompts/get greet` (line 1)",
        ),
        (
            "resources/read",
            json!({"uri": "file:///README"}),
            "`resources/read file:///README` (line 1)",
        ),
        ("tools/list", json!({}), "`tools/list` (line 1)"),
    ] {
        let report = fixture(&[
            (
                "client->server",
                json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": method, "params": params}),
            ),
            (
                "server->client",
                json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"x": 1}}),
            ),
        ])
        .replay()
        .run(|transport| scripted(transport, |r| vec![result(r, json!({"x": 2}))]))
        .await;
        // `{"x": 2}` is no valid result of these methods either: a protocol finding of
        // its own besides the drift.
        let drift = report
            .mismatches()
            .iter()
            .find(|m| m.kind() == MismatchKind::Result)
            .expect("a result finding");
        assert_eq!(drift.summary(), format!("the response to {named} differs"));
    }
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_naming_the_request() {
    let seed = Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap()
    .with_timeout(Duration::from_millis(150));
    let started = Instant::now();
    let report = seed
        .replay()
        .run(|transport| scripted(transport, |_| vec![]))
        .await;
    let elapsed = started.elapsed();
    assert_eq!(kinds(&report), [MismatchKind::Timeout]);
    let m = &report.mismatches()[0];
    assert_eq!(m.line(), Some(2));
    assert_eq!(
        m.summary(),
        "no response to `tools/call lookup_issue` (line 1, sent as id 1) within 150 ms"
    );
    assert!(elapsed < Duration::from_millis(900), "took {elapsed:?}");
}

#[tokio::test]
async fn a_server_that_panics_is_a_server_failure_naming_the_panic() {
    let report = work_fixture()
        .replay()
        .run(|transport| async move {
            scripted(transport, |request| {
                panic!("cannot handle {}", request["method"])
            })
            .await
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure]);
    let summary = report.mismatches()[0].summary();
    assert!(summary.contains("closed the connection"), "{summary}");
    assert!(
        summary.contains("the server panicked: cannot handle \"tools/call\""),
        "{summary}"
    );
    // One phrase per awaited response: the request's line and live id, the response's line.
    assert!(
        summary.contains(
            "the response to `tools/call work` (line 1, sent as id 1) expected at line 4; \
             the server panicked"
        ),
        "{summary}"
    );
}

#[tokio::test]
async fn a_server_that_closes_early_is_a_server_failure() {
    let report = work_fixture()
        .replay()
        .run(|transport| async move {
            let _ = transport; // dropped at once: the server closes before answering anything
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure]);
}

#[tokio::test]
async fn a_line_that_is_not_json_is_stray_output() {
    let report =
        replay_work(|r| vec!["this is not json".into(), progress(), log("half"), done(r)]).await;
    assert_eq!(kinds(&report), [MismatchKind::StrayOutput]);
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("\"this is not json\""),
        "{report}"
    );
}

#[tokio::test]
async fn a_serve_closure_error_is_a_server_failure() {
    let report = Fixture::parse("")
        .unwrap()
        .replay()
        .run(|_transport| async { Err::<(), _>("listener failed") })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure]);
    assert!(report.mismatches()[0].summary().contains("listener failed"));
}

#[tokio::test]
async fn all_findings_are_collected_before_failing_once() {
    let report = replay_work(|r| {
        vec![
            log("half"),
            progress(),
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_owned(),
            result(r, json!({"content": []})),
        ]
    })
    .await;
    assert_eq!(
        kinds(&report),
        [
            MismatchKind::NotificationOrder,
            MismatchKind::Result,
            MismatchKind::Unexpected
        ]
    );
    let text = report.to_string();
    assert!(
        text.starts_with(
            "mcp-replay: <string>: 3 mismatches (1 result, 1 notification order, 1 unexpected)"
        ),
        "{text}"
    );
    // A bare replay reads no update mode: its advice says what re-records instead.
    assert!(
        text.ends_with("which `MCP_FIXTURE_UPDATE=1` re-records"),
        "{text}"
    );
    assert!(!text.contains("cargo test <test name>"), "{text}");
}

#[tokio::test]
async fn two_equal_logs_where_progress_then_log_was_expected_are_one_method_finding() {
    // Paired as a diff pairs them: the second log is the expected one, the first stands
    // where the progress notification was expected. No order finding the server never made.
    let report = replay_work(|r| vec![log("half"), log("half"), done(r)]).await;
    assert_eq!(kinds(&report), [MismatchKind::Method], "{report}");
    assert_eq!(report.mismatches()[0].line(), Some(2));
}

#[tokio::test]
async fn a_missing_progress_notification_is_reported_without_waiting_for_the_timeout() {
    // The progress notification can only come before its request's response: once the
    // response is there, it is missing. A replay that waited for it would take the timeout.
    let timeout = Duration::from_secs(30);
    let started = Instant::now();
    let report = work_fixture()
        .with_timeout(timeout)
        .replay()
        .run(move |transport| scripted(transport, |r| vec![log("half"), done(r)]))
        .await;
    assert_eq!(kinds(&report), [MismatchKind::Missing], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("while `tools/call work` (line 1) ran"),
        "{report}"
    );
    assert!(
        started.elapsed() < timeout / 2,
        "waited {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_progress_notification_after_the_response_is_late() {
    let fixture = fixture(&[
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "work", "_meta": {"progressToken": "t"}}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": 1}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"content": [{"type": "text", "text": "done"}]}}),
        ),
    ]);
    let report = fixture
        .replay()
        .run(|transport| scripted(transport, |r| vec![done(r), progress()]))
        .await;
    assert_eq!(
        kinds(&report),
        [MismatchKind::NotificationOrder],
        "{report}"
    );
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("arrived after the response to `tools/call work` (line 1)"),
        "{report}"
    );
}

#[tokio::test]
async fn a_servers_own_message_may_come_before_or_after_where_it_was_recorded() {
    // A list_changed recorded in the middle of a request's work, sent by the server at
    // another moment: no finding, wherever it lands.
    let fixture = fixture(&[
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "work"}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": 1}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"content": [{"type": "text", "text": "done"}]}}),
        ),
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "ping"}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {}}),
        ),
    ]);
    let early: fn(&Value) -> Vec<String> = |r| {
        if r["method"] == "tools/call" {
            vec![
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_owned(),
                progress(),
                done(r),
            ]
        } else {
            vec![result(r, json!({}))]
        }
    };
    let late: fn(&Value) -> Vec<String> = |r| {
        if r["method"] == "tools/call" {
            vec![progress(), done(r)]
        } else {
            vec![
                result(r, json!({})),
                r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_owned(),
            ]
        }
    };
    for script in [early, late] {
        let report = fixture
            .clone()
            .replay()
            .run(move |transport| scripted(transport, script))
            .await;
        assert!(report.is_ok(), "{report}");
    }
}

#[tokio::test]
async fn a_progress_stream_sent_in_reverse_is_one_notification_order_finding() {
    // The bundled count_up fixture: three progress steps, a log, the result. A server
    // that sends the same steps last first has reordered them, not changed two of them.
    let fixture = Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/count_up_progress.jsonl"
    ))
    .unwrap()
    .with_timeout(Duration::from_millis(300));
    let report = fixture
        .replay().run(|transport| {
            scripted(transport, |r| {
                let token = r["params"]["_meta"]["progressToken"].clone();
                let step = |i: u32| {
                    notification(
                        "notifications/progress",
                        json!({"progressToken": token, "progress": i, "total": 3, "message": format!("step {i} of 3")}),
                    )
                };
                vec![
                    step(3),
                    step(2),
                    step(1),
                    notification(
                        "notifications/message",
                        json!({"level": "info", "logger": "demo", "data": {"event": "count_up", "to": 3}}),
                    ),
                    result(r, json!({"content": [{"type": "text", "text": "counted to 3"}]})),
                ]
            })
        })
        .await;
    assert_eq!(
        kinds(&report),
        [MismatchKind::NotificationOrder],
        "{report}"
    );
    let summary = report.mismatches()[0].summary();
    assert!(
        summary.contains("actual order:   `notifications/progress` (line 4), `notifications/progress` (line 3), `notifications/progress` (line 2)"),
        "{summary}"
    );
}

/// The bundled rmcp demo server under `fixture` with `edit` applied to its text.
async fn demo_with(fixture: &str, edit: impl Fn(String) -> String) -> Report {
    use rmcp::ServiceExt;
    let path = format!("{}/fixtures/{fixture}.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = edit(std::fs::read_to_string(path).unwrap());
    Fixture::parse(&text)
        .unwrap()
        .with_timeout(Duration::from_secs(5))
        .replay()
        .run(|transport| async move {
            let server = mcp_replay_demo::DemoServer::default()
                .serve(transport)
                .await
                .unwrap();
            let _ = server.waiting().await;
        })
        .await
}

/// The advice block at the end of a report: what follows its last finding.
fn advice_of(report: &Report) -> String {
    let text = report.to_string();
    let last = text.rfind("\n\n").expect("a report with findings");
    text[last + 2..].to_owned()
}

#[tokio::test]
async fn a_request_the_server_now_refuses_points_at_its_line_not_at_re_recording() {
    // rmcp: an unknown tool is -32602 "tool not found".
    let report = demo_with("lookup_issue", |t| {
        t.replace("\"name\":\"lookup_issue\"", "\"name\":\"lookup_issues\"")
    })
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Result], "{report}");
    assert_eq!(report.mismatches()[0].request_line(), Some(1));
    assert_eq!(
        advice_of(&report),
        "The server refused a request it answered when the fixture was recorded: the client \
         lines may be stale.\n    edit line 1 (`tools/call lookup_issues`: error -32602 \
         \"tool not found\"), or check the server"
    );
    assert!(!report.to_string().contains("re-record"), "{report}");

    // rmcp 3.11: a missing required argument is a tool error, "failed to deserialize
    // parameters".
    let report = demo_with("lookup_issue", |t| t.replace("\"owner\":\"demo\",", "")).await;
    let advice = advice_of(&report);
    assert!(
        advice.contains(
            "edit line 1 (`tools/call lookup_issue`: a tool error \"failed to deserialize \
             parameters: missing field `owner`\"), or check the server"
        ),
        "{report}"
    );
    assert!(!report.to_string().contains("re-record"), "{report}");

    // An unknown method: -32601.
    let report = demo_with("lookup_issue", |t| {
        t.replace("\"method\":\"tools/call\"", "\"method\":\"tools/calls\"")
    })
    .await;
    let advice = advice_of(&report);
    assert!(
        advice.contains("edit line 1 (`tools/calls`: error -32601 "),
        "{report}"
    );
    assert!(!report.to_string().contains("re-record"), "{report}");
}

#[tokio::test]
async fn a_changed_answer_beside_a_refused_request_says_each_once() {
    // handshake_and_tools_list: line 4 lists the tools; line 1 is initialize. A second call
    // to an unknown tool is appended, and the listing in the fixture is made stale.
    let report = demo_with("handshake_and_tools_list", |t| {
        let call = r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"gone","arguments":{}}}}"#;
        let answer = r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"was here"}]}}}"#;
        format!(
            "{}{call}\n{answer}\n{call}\n{answer}\n",
            t.replace("Return the given text unchanged.", "Return the text.")
        )
    })
    .await;
    assert_eq!(
        kinds(&report),
        [
            MismatchKind::Result,
            MismatchKind::Result,
            MismatchKind::Result
        ],
        "{report}"
    );
    let text = report.to_string();
    let advice = &text[text.find("\nThe server refused").expect("refusals") + 1..];
    assert_eq!(
        advice,
        "The server refused 2 requests it answered when the fixture was recorded: the client \
         lines may be stale.\n    edit line 6 (`tools/call gone`: error -32602 \"tool not \
         found\"), or check the server\n    edit line 8 (`tools/call gone`: error -32602 \
         \"tool not found\"), or check the server\n\nIf the new behaviour is right, \
         re-record the fixture:\n    "
            .to_owned()
            + &report.rerecord_command()
    );
}

#[tokio::test]
async fn a_timeout_or_a_crash_says_nothing_about_re_recording() {
    // The notifications the request would have sent never came either: the timeout's doing.
    let report = replay_work(|_| vec![]).await;
    assert_eq!(
        kinds(&report),
        [
            MismatchKind::Missing,
            MismatchKind::Missing,
            MismatchKind::Timeout
        ],
        "{report}"
    );
    assert!(!report.to_string().contains("re-record"), "{report}");
    let text = report.to_string();
    assert!(
        text.lines().last().unwrap().starts_with("    expected: "),
        "{report}"
    );
    let report = work_fixture()
        .replay()
        .run(|transport| async move { drop(transport) })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure]);
    assert!(!report.to_string().contains("re-record"), "{report}");
    // Beside a changed answer: fix the server first, then re-record.
    let report = replay_work(|r| {
        vec![
            "a banner".into(),
            progress(),
            log("half"),
            result(
                r,
                json!({"content": [{"type": "text", "text": "not done"}]}),
            ),
        ]
    })
    .await;
    assert_eq!(
        kinds(&report),
        [MismatchKind::Result, MismatchKind::StrayOutput],
        "{report}"
    );
    assert_eq!(
        advice_of(&report),
        "Fix the stray output first: a session with one is not re-recorded. Then, if the new \
         behaviour is right, re-record the fixture:\n    "
            .to_owned()
            + &report.rerecord_command()
    );
}

#[tokio::test]
async fn many_unexpected_notifications_alike_are_one_item_of_the_report() {
    let report = replay_work(|r| {
        let mut lines = vec![progress()];
        lines.extend((2..=95).map(|n| {
            notification(
                "notifications/progress",
                json!({"progressToken": "t", "progress": n}),
            )
        }));
        lines.extend([log("half"), done(r)]);
        lines
    })
    .await;
    // Every finding is kept for API users; the text groups them.
    assert_eq!(kinds(&report), [MismatchKind::Unexpected; 94], "{report}");
    let text = report.to_string();
    assert!(
        text.contains(
            "\n1. 94 unexpected `notifications/progress` while `tools/call work` (line 1) ran; \
             the first 3:\n"
        ),
        "{text}"
    );
    assert!(text.contains("\n    ... and 91 more like them"), "{text}");
    assert_eq!(text.matches("actual:").count(), 3, "{text}");
}
