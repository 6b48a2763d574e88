//! Faults on cue in the mock, against rmcp's client (3.11) in process: the recorded
//! `fixtures/lookup_issue.jsonl` served with a delay, an error, a tool error, no answer or
//! the answer twice; each test pins what rmcp's client did (which error surfaced) and what
//! the mock's report says it injected and what the client did next. The same seed gives the
//! same report, 20 runs in a row.

use mcp_replay::mock::{Fault, Faults};
use mcp_replay::{Fixture, Options, Report};
use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use serde_json::json;
use std::time::{Duration, Instant};

fn lookup_issue() -> Fixture {
    Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap()
}

fn call() -> CallToolRequestParams {
    CallToolRequestParams::new("lookup_issue").with_arguments(
        serde_json::from_value(json!({"owner": "demo", "repo": "sample", "number": 42})).unwrap(),
    )
}

/// rmcp's client calls `lookup_issue` once against the mock with `faults` (giving up after
/// `patience`); what the call gave, how long it took, and the mock's report.
async fn run(faults: Faults, patience: Duration) -> (Result<String, String>, Duration, Report) {
    let fixture = lookup_issue();
    let options = Options::new().faults(faults);
    let (transport, mock) = fixture.mock().options(&options).server();
    let client = ().serve(transport).await.expect("the handshake");
    let began = Instant::now();
    let answer = match tokio::time::timeout(patience, client.call_tool(call())).await {
        Ok(Ok(result)) => Ok(serde_json::to_value(&result).unwrap().to_string()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("gave up".to_owned()),
    };
    let took = began.elapsed();
    drop(client);
    (answer, took, mock.finish().await)
}

fn notes(report: &Report) -> String {
    report.notes().join("\n")
}

#[tokio::test]
async fn a_delay_comes_late_and_is_noted() {
    let faults = Faults::new().on("tools/call", Fault::delay(Duration::from_millis(300)));
    let (answer, took, report) = run(faults, Duration::from_secs(5)).await;
    assert!(answer.unwrap().contains("Issue 42: example"));
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(
        notes(&report)
            .contains("fault injected at line 2 (`tools/call lookup_issue`): delayed 300 ms"),
        "{report}"
    );
}

#[tokio::test]
async fn an_error_surfaces_as_rmcp_s_error_and_the_client_sends_nothing_more() {
    let faults = Faults::new().on("tools/call", Fault::error(-32603, "upstream down"));
    let (answer, _, report) = run(faults, Duration::from_secs(5)).await;
    let error = answer.unwrap_err();
    assert!(error.contains("upstream down"), "{error}");
    assert!(
        notes(&report).contains(
            "error -32603 \"upstream down\" instead of the result; then the client sent nothing more"
        ),
        "{report}"
    );
}

#[tokio::test]
async fn a_tool_error_is_a_result_with_is_error() {
    let faults = Faults::new()
        .on("tools/call", Fault::tool_error("quota exceeded"))
        .tool("lookup_issue");
    let (answer, _, report) = run(faults, Duration::from_secs(5)).await;
    let result = answer.unwrap();
    assert!(
        result.contains("quota exceeded") && result.contains(r#""isError":true"#),
        "{result}"
    );
    assert!(
        notes(&report).contains("a tool error \"quota exceeded\""),
        "{report}"
    );
}

#[tokio::test]
async fn no_answer_leaves_rmcp_waiting_until_its_caller_gives_up() {
    let faults = Faults::new().on_line(2, Fault::Drop);
    let (answer, took, report) = run(faults, Duration::from_millis(400)).await;
    assert_eq!(answer.unwrap_err(), "gave up");
    assert!(took >= Duration::from_millis(400));
    assert!(notes(&report).contains("no answer; then"), "{report}");
}

#[tokio::test]
async fn an_answer_twice_is_taken_once_by_rmcp() {
    let faults = Faults::new().on("tools/call", Fault::Twice);
    let (answer, _, report) = run(faults, Duration::from_secs(5)).await;
    assert!(answer.unwrap().contains("Issue 42: example"));
    assert!(notes(&report).contains("answered twice"), "{report}");
}

#[tokio::test]
async fn the_same_seed_gives_the_same_report_20_times() {
    let faults = || {
        Faults::new()
            .on("tools/call", Fault::error(-32000, "flaky"))
            .probability(0.5)
            .seed(42)
    };
    let (first, _, report) = run(faults(), Duration::from_secs(5)).await;
    let expected = (first.is_ok(), notes(&report));
    for run_no in 1..=20 {
        let (answer, _, report) = run(faults(), Duration::from_secs(5)).await;
        assert_eq!((answer.is_ok(), notes(&report)), expected, "run {run_no}");
    }
}

#[tokio::test]
async fn a_line_cut_off_half_way_leaves_rmcp_waiting_and_is_noted() {
    let faults = Faults::new().on("tools/call", Fault::Malformed);
    let (answer, _, report) = run(faults, Duration::from_millis(400)).await;
    // rmcp skips a line that is not JSON and keeps waiting for the answer.
    assert_eq!(answer.unwrap_err(), "gave up");
    assert!(
        notes(&report).contains("the answer's line cut off half-way"),
        "{report}"
    );
}

#[tokio::test]
async fn a_closed_connection_ends_rmcp_s_call_with_an_error() {
    let faults = Faults::new().on("tools/call", Fault::Close);
    let (answer, took, report) = run(faults, Duration::from_secs(5)).await;
    let error = answer.unwrap_err();
    assert_ne!(error, "gave up", "the call ends with the connection");
    assert!(took < Duration::from_secs(5));
    assert!(
        notes(&report).contains("the connection closed instead of the answer"),
        "{report}"
    );
}

/// Faults in a small file beside the fixture (`NAME.faults.json`): loaded with it, applied
/// by its mock with no option set; a file that does not parse names itself.
#[tokio::test]
async fn faults_in_a_file_beside_the_fixture_are_the_mocks() {
    let dir = std::env::temp_dir().join(format!("mcp-replay-faults-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lookup.jsonl");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/lookup_issue.jsonl"),
        &path,
    )
    .unwrap();
    std::fs::write(
        dir.join("lookup.faults.json"),
        r#"{"seed": 3, "faults": [{"method": "tools/call", "error": {"code": -32000, "message": "from the file"}}]}"#,
    )
    .unwrap();
    let fixture = Fixture::load(&path).unwrap();
    let (transport, mock) = fixture.mock().server();
    let client = ().serve(transport).await.unwrap();
    let error = client.call_tool(call()).await.unwrap_err().to_string();
    assert!(error.contains("from the file"), "{error}");
    drop(client);
    let report = mock.finish().await;
    assert!(
        notes(&report).contains("error -32000 \"from the file\""),
        "{report}"
    );

    std::fs::write(
        dir.join("lookup.faults.json"),
        r#"{"faults": [{"line": 2}]}"#,
    )
    .unwrap();
    let refused = Fixture::load(&path).unwrap_err().to_string();
    assert!(
        refused.contains("lookup.faults.json") && refused.contains("say what happens"),
        "{refused}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// After an answer the client got (here late), the same call again is its next one, not a
/// retry; after an error it is a retry.
#[tokio::test]
async fn the_same_call_after_an_answer_is_the_next_one_and_after_an_error_a_retry() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap();
    let fixture = Fixture::parse(&text.repeat(2)).unwrap();
    for (fault, says) in [
        (
            Fault::delay(Duration::from_millis(20)),
            "then the client went on with `tools/call lookup_issue`",
        ),
        (
            Fault::error(-32000, "flaky"),
            "then the client sent `tools/call lookup_issue` again under a new id (a retry)",
        ),
    ] {
        let options = Options::new().faults(Faults::new().on("tools/call", fault).nth(1));
        let (transport, mock) = fixture.mock().options(&options).server();
        let client = ().serve(transport).await.expect("the handshake");
        let _ = client.call_tool(call()).await;
        let _ = client.call_tool(call()).await;
        drop(client);
        let report = mock.finish().await;
        assert!(notes(&report).contains(says), "{report}");
    }
}
