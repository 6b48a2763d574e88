//! Faults on cue over Streamable HTTP, in process (`mock().http()`, what `serve --http`
//! runs) against rmcp's HTTP client: a fault of stdio's reaches it too, and each fault only
//! HTTP has (a 503, the SSE stream cut, the answer trickling) is pinned with what the call
//! gave and what the report says. The same seed gives the same report, 20 runs in a row.

mod mock_client;

use mcp_replay::mock::{Fault, Faults};
use mcp_replay::{Fixture, Report};
use mock_client::{
    reordered_progress_reaches_the_handler, rmcp_http_client, serve_on_unix_socket, socket_path,
    Progress,
};
use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use serde_json::json;
use std::time::Duration;

fn tool(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn lookup_issue() -> Fixture {
    Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap()
}

/// rmcp's HTTP client calls `lookup_issue` `calls` times against `fixture`'s mock with
/// `faults` (each call given 5 s): what each call gave, and the report.
async fn session(
    fixture: &Fixture,
    faults: Faults,
    calls: usize,
    name: &str,
) -> (Vec<String>, Report) {
    let options = mcp_replay::Options::new().faults(faults);
    let (front, mock) = fixture.mock().options(&options).http();
    let path = socket_path(name);
    serve_on_unix_socket(front, &path);
    let client = ().serve(rmcp_http_client(&path)).await.unwrap();
    let mut gave = Vec::new();
    for _ in 0..calls {
        let call = client.call_tool(tool(
            "lookup_issue",
            json!({"owner": "demo", "repo": "sample", "number": 42}),
        ));
        gave.push(
            match tokio::time::timeout(Duration::from_secs(5), call).await {
                Ok(Ok(result)) => format!("result {}", serde_json::to_string(&result).unwrap()),
                Ok(Err(e)) => format!("error {e}"),
                Err(_) => "still waiting after 5 s".to_owned(),
            },
        );
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), client.cancel()).await;
    let report = mock.finish().await;
    let _ = std::fs::remove_file(&path);
    (gave, report)
}

/// Faults on cue over Streamable HTTP too (`mock().http()`, what `serve --http` runs): the
/// same core injects them, so rmcp's HTTP client gets the error in place of the result and
/// the report lists it with what the client did next.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_on_cue_reaches_an_rmcp_client_over_streamable_http() {
    let fixture = lookup_issue();
    let options = mcp_replay::Options::new()
        .faults(Faults::new().on("tools/call", Fault::error(-32603, "over http")));
    let (front, mock) = fixture.mock().options(&options).http();
    let path = socket_path("faults");
    serve_on_unix_socket(front, &path);
    let client = ().serve(rmcp_http_client(&path)).await.unwrap();
    let error = client
        .call_tool(tool(
            "lookup_issue",
            json!({"owner": "demo", "repo": "sample", "number": 42}),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("over http"), "{error}");
    client.cancel().await.unwrap();
    let report = mock.finish().await;
    let _ = std::fs::remove_file(&path);
    assert!(
        report
            .notes()
            .iter()
            .any(|n| n.contains("error -32603 \"over http\" instead of the result")),
        "{report}"
    );
}

/// Facts for client authors, over Streamable HTTP: rmcp's client against the faults only
/// HTTP has (a 503, the SSE stream cut after an event to resume from, the answer
/// trickling): what the call gave and what the report says, pinned (docs/mock.md's
/// table). rmcp resumes a cut stream with `Last-Event-ID` and gets the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_s_http_client_meets_each_fault_only_http_has() {
    let cases = [
        (
            Fault::Status(503),
            "error ",
            "HTTP 503 Service Unavailable",
            "HTTP 503 instead of the answer; then the client sent nothing more",
        ),
        (
            Fault::Reset,
            "result ",
            "Issue 42: example",
            "GET Last-Event-ID: 1, and got the answer on it",
        ),
        (
            Fault::Trickle(Duration::from_millis(2)),
            "result ",
            "Issue 42: example",
            "the answer trickled, 16 bytes every 2 ms",
        ),
    ];
    for (i, (fault, outcome, gave_says, report_says)) in cases.into_iter().enumerate() {
        let faults = Faults::new().on("tools/call", fault);
        let (gave, report) = session(&lookup_issue(), faults, 1, &format!("http-fault-{i}")).await;
        assert!(
            gave[0].starts_with(outcome) && gave[0].contains(gave_says),
            "{}",
            gave[0]
        );
        assert!(
            report.notes().iter().any(|n| n.contains(report_says)),
            "{report}"
        );
    }
}

/// Three calls, each hit by a reset or a trickle or a 503 as the seed draws: the same
/// seed gives the same report (and the same answers), 20 runs in a row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seed_gives_the_same_http_faults_20_times() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap();
    let fixture = Fixture::parse(&text.repeat(3)).unwrap();
    let faults = || {
        Faults::new()
            .on("tools/call", Fault::Reset)
            .probability(0.4)
            .on("tools/call", Fault::Trickle(Duration::from_millis(1)))
            .probability(0.4)
            .on("tools/call", Fault::Status(503))
            .probability(0.4)
            .seed(11)
    };
    let (gave, report) = session(&fixture, faults(), 3, "seeded-0").await;
    let notes = report.notes().to_vec();
    assert!(!notes.is_empty(), "the seed draws some fault: {report}");
    eprintln!("{gave:?}\n{notes:#?}");
    for run in 1..=20 {
        let (again, report) = session(&fixture, faults(), 3, &format!("seeded-{run}")).await;
        assert_eq!(again, gave, "run {run}");
        assert_eq!(report.notes(), notes.as_slice(), "run {run}: {report}");
    }
}

/// A notification out of its recorded order over HTTP: `count_up`'s progress, recorded
/// before its result, comes after it; the POST's stream has ended with the answer, so the
/// front sends the progress on the GET stream. rmcp's HTTP client gets the result first
/// and still hands the late progress to its handler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_s_http_client_gets_reordered_progress_on_the_get_stream() {
    let fixture = Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/count_up_progress.jsonl"
    ))
    .unwrap();
    // The progress 100 ms after the answer and apart (not the default 2 ms): "no progress
    // before the result" is read when the call returns, which a loaded machine can delay
    // past a 2 ms pause (1 failure seen in a workspace run beside a fuzzer).
    let options = mcp_replay::Options::new()
        .pace(std::time::Duration::from_millis(100))
        .faults(Faults::new().on("tools/call", Fault::Reorder));
    let (front, mock) = fixture.mock().options(&options).http();
    let path = socket_path("http-reorder");
    serve_on_unix_socket(front, &path);
    let seen = Progress::default();
    let client = seen.clone().serve(rmcp_http_client(&path)).await.unwrap();
    let wait = Duration::from_millis(1000);
    reordered_progress_reaches_the_handler(client, &seen, wait, mock.finish()).await;
    let _ = std::fs::remove_file(&path);
}
