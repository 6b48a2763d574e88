//! Every MCP message kind of both eras, pinned by committed fixtures recorded from the
//! rmcp `ProtocolServer` (elicitation, sampling, roots and ping through rmcp's peer API in
//! the legacy era; `input_required` and retries in the stateless era; progress;
//! cancellation; list_changed), and for each feature a changed fixture that yields the
//! expected finding kind.

#[path = "../mcp-replay/tests/common/mod.rs"]
mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};
use mcp_replay::{mcp_fixture, Fixture, MismatchKind, Report, Transport};
use mcp_replay_demo::ProtocolServer;
use rmcp::ServiceExt;
use serde_json::json;

async fn serve(transport: Transport) {
    let server = ProtocolServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

#[mcp_fixture("protocol/legacy", dir = "tests/fixtures")]
#[tokio::test]
async fn legacy_era_server_requests_progress_and_list_changed(transport: Transport) {
    serve(transport).await;
}

#[mcp_fixture("protocol/cancel", dir = "tests/fixtures")]
#[tokio::test]
async fn legacy_era_cancellation(transport: Transport) {
    serve(transport).await;
}

#[mcp_fixture("protocol/modern", dir = "tests/fixtures")]
#[tokio::test]
async fn modern_era_input_required_and_retries(transport: Transport) {
    serve(transport).await;
}

#[mcp_fixture("protocol/cancel", dir = "tests/fixtures", protocol = "2026-07-28")]
#[tokio::test]
async fn modern_era_cancellation(transport: Transport) {
    serve(transport).await;
}

fn load(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/protocol/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

async fn replay_changed(name: &str, from: &str, to: &str) -> Report {
    let text = load(name);
    assert!(text.contains(from), "{from} is not in {name}");
    Fixture::parse(&text.replacen(from, to, 1))
        .unwrap()
        .replay()
        .run(serve)
        .await
}

fn kinds(report: &Report) -> Vec<MismatchKind> {
    report.mismatches().iter().map(|m| m.kind()).collect()
}

#[tokio::test]
async fn a_changed_elicitation_request_is_a_params_finding() {
    let report = replay_changed("legacy", "What is your name?", "Who are you?").await;
    assert_eq!(kinds(&report), [MismatchKind::Params], "{report}");
    assert_eq!(
        report.mismatches()[0].differences()[0].path(),
        ".params.message"
    );
}

#[tokio::test]
async fn a_different_elicitation_decision_by_a_handler_is_a_finding() {
    let report = Fixture::parse(&load("legacy"))
        .unwrap()
        .on_server_request(|request| {
            (request["method"] == "elicitation/create").then(|| json!({"action": "decline"}))
        })
        .replay()
        .run(serve)
        .await;
    assert_eq!(
        kinds(&report),
        [MismatchKind::Result, MismatchKind::Result],
        "{report}"
    );
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("handler answered"),
        "{report}"
    );
}

#[tokio::test]
async fn a_changed_sampling_answer_changes_the_result() {
    let report = replay_changed("legacy", r#""text":"short""#, r#""text":"long""#).await;
    assert_eq!(kinds(&report), [MismatchKind::Result], "{report}");
}

#[tokio::test]
async fn a_missing_roots_request_is_a_method_finding_when_another_request_comes() {
    let report = replay_changed(
        "legacy",
        r#""method":"roots/list""#,
        r#""method":"elicitation/create""#,
    )
    .await;
    assert!(kinds(&report).contains(&MismatchKind::Method), "{report}");
}

#[tokio::test]
async fn a_changed_progress_notification_is_a_params_finding() {
    let report = replay_changed("legacy", "step 2 of 3", "step two of 3").await;
    assert_eq!(kinds(&report), [MismatchKind::Params], "{report}");
}

#[tokio::test]
async fn a_changed_list_changed_notification_is_a_method_finding() {
    let report = replay_changed(
        "legacy",
        "notifications/tools/list_changed",
        "notifications/resources/list_changed",
    )
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Method], "{report}");
}

#[tokio::test]
async fn a_changed_input_request_is_a_result_finding() {
    let report = replay_changed(
        "modern",
        r#""inputRequests":{"name""#,
        r#""inputRequests":{"full_name""#,
    )
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Result], "{report}");
}

#[tokio::test]
async fn a_changed_discovery_is_a_result_finding() {
    let report = replay_changed(
        "modern",
        r#""name":"mcp-replay-protocol""#,
        r#""name":"another-server""#,
    )
    .await;
    assert_eq!(kinds(&report), [MismatchKind::Result], "{report}");
}

#[tokio::test]
async fn a_cancellation_that_no_longer_stops_the_task_is_reported() {
    // Without the cancellation the task runs its 50 steps and answers: all unexpected.
    let text: String = load("cancel")
        .lines()
        .filter(|l| !l.contains("notifications/cancelled"))
        .map(|l| format!("{l}\n"))
        .collect();
    let report = Fixture::parse(&text)
        .unwrap()
        .with_timeout(std::time::Duration::from_secs(3))
        .replay()
        .run(serve)
        .await;
    assert!(!report.is_ok());
    assert!(
        kinds(&report)
            .iter()
            .all(|k| *k == MismatchKind::Unexpected),
        "{report}"
    );
}
