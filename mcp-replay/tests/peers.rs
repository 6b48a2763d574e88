//! Real servers in other languages, pinned from `cargo test` through `serve_command`:
//! `@modelcontextprotocol/server-everything` (Node) and a Python server on the `mcp` SDK.
//! The peers are installed on first use (`mcp_replay_peers`).

mod common;

use common::peer_server;
use mcp_replay::process::serve_command;
use mcp_replay::{Fixture, MismatchKind, Report};

fn fixture(name: &str) -> Fixture {
    Fixture::load(format!(
        "{}/tests/fixtures/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

async fn replay(name: &str, peer: &str) -> Report {
    let mut command = peer_server(peer);
    fixture(name)
        .replay()
        .run(move |t| async move { serve_command(t, &mut command).await })
        .await
}

#[tokio::test]
async fn server_everything_replays_an_imported_mcporter_recording() {
    let report = replay("everything/echo", "everything").await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn server_everything_replays_the_elicitation_it_asked_for() {
    let report = replay("everything/elicit_decline", "everything").await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn the_python_server_replays_its_session() {
    let report = replay("python/session", "python").await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn a_changed_python_server_is_reported_as_a_result_finding() {
    let report = replay("python/session", "python-changed").await;
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::Result], "{report}");
    assert_eq!(
        report.mismatches()[0].differences()[0].path(),
        ".result.content[0].text"
    );
}
