//! Real servers in other languages, pinned from `cargo test` through `serve_command`:
//! `@modelcontextprotocol/server-everything` (Node) and a Python server on the `mcp` SDK.
//! Install them with `bash peers/install.sh` (CI does).

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

async fn replay(name: &str, peer: &str) -> Option<Report> {
    let mut command = peer_server(peer)?;
    Some(
        fixture(name)
            .replay(move |t| async move { serve_command(t, &mut command).await })
            .await,
    )
}

#[tokio::test]
async fn server_everything_replays_an_imported_mcporter_recording() {
    let Some(report) = replay("everything/echo", "everything").await else {
        return;
    };
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn server_everything_replays_the_elicitation_it_asked_for() {
    let Some(report) = replay("everything/elicit_decline", "everything").await else {
        return;
    };
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn the_python_server_replays_its_session() {
    let Some(report) = replay("python/session", "python").await else {
        return;
    };
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn a_changed_python_server_is_reported_as_a_result_finding() {
    let Some(report) = replay("python/session", "python-changed").await else {
        return;
    };
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::Result], "{report}");
    assert_eq!(
        report.mismatches()[0].differences()[0].path,
        ".result.content[0].text"
    );
}
