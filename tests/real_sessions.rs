//! Real sessions: fixtures recorded by `scripts/record-real-sessions.sh` through
//! `mcp-replay record`, between real clients (the Python and TypeScript SDKs, declaring
//! roots, sampling and elicitation) and real servers (server-everything, the Python tour
//! server). They hold what such sessions hold: server requests answered by the client,
//! progress, logs, `list_changed` bursts and a `roots/list` the server sends on its own
//! timer, racing the client's requests.
//!
//! Each fixture is replayed against its live server 20 times in a row (a fresh server
//! process each time): a replay that passes only when the race goes one way fails here.
//! Skipped, with a notice, when the peers are not installed (`bash peers/install.sh`).

mod common;

use common::peer_server;
use mcp_replay::{serve_command, Fixture};

const RUNS: usize = 20;

/// Replays `tests/fixtures/real/{name}.jsonl` against `peer` [`RUNS`] times; prints the
/// report of every failing run with its number, then fails if any run did.
async fn replay_repeatedly(name: &str, peer: &str) {
    let path = format!(
        "{}/tests/fixtures/real/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut failed = Vec::new();
    for run in 1..=RUNS {
        let Some(mut command) = peer_server(peer) else {
            return;
        };
        let report = Fixture::load(&path)
            .unwrap()
            .replay(move |t| async move { serve_command(t, &mut command).await })
            .await;
        if !report.is_ok() {
            eprintln!("{name}: run {run} of {RUNS} failed:\n{report}\n");
            failed.push(run);
        }
    }
    assert!(
        failed.is_empty(),
        "{name}: {} of {RUNS} runs failed (runs {failed:?}); their reports are above",
        failed.len()
    );
}

#[tokio::test]
async fn server_everything_with_the_python_sdk_client() {
    replay_repeatedly("everything_python_client", "everything").await;
}

#[tokio::test]
async fn server_everything_with_the_typescript_sdk_client() {
    replay_repeatedly("everything_ts_client", "everything").await;
}

#[tokio::test]
async fn the_python_tour_server_with_the_python_sdk_client() {
    replay_repeatedly("python_server_python_client", "tour").await;
}
