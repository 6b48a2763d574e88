//! A real session with the jitter server, replayed against fresh jitter servers.
//!
//! `tests/fixtures/jitter/session.jsonl` is one session between the Python `mcp` SDK
//! client (`peers/python/jitter_client.py`) and `demo-server jitter`, recorded through
//! the `mcp-replay record` proxy (`scripts/record-jitter.sh`). The jitter server sends
//! the same messages on every run but at random times: its startup `roots/list` request,
//! the log line after it and its `list_changed` notifications land anywhere in the first
//! 300 ms, and `slow_count` spaces its steps by random gaps. Each replay below runs a new
//! server with new timing, so the server's own traffic interleaves with the fixture's
//! exchanges differently from the recording, and differently from run to run; a replay
//! must tolerate that. A failing run prints its seed: `JitterServer::with_seed(SEED)`
//! (in process) or `demo-server jitter SEED` (stdio) draws the same delays again.

#[path = "../mcp-replay/tests/common/mod.rs"]
mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};
use std::time::Duration;

use mcp_replay::process::serve_command;
use mcp_replay::{Fixture, Report};
use mcp_replay_demo::jitter::JitterServer;
use rmcp::ServiceExt;

/// Replays against in-process servers, one after the other.
const IN_PROCESS_RUNS: usize = 30;

/// Replays against `demo-server jitter` child processes.
const STDIO_RUNS: usize = 5;

/// How long each window of server messages may take: the server's own traffic comes at
/// most 300 ms after `notifications/initialized`, and `slow_count {n: 5}` within 160 ms.
const WINDOW_TIMEOUT: Duration = Duration::from_secs(1);

fn fixture() -> Run {
    Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/jitter/session.jsonl"
    ))
    .expect("the jitter fixture loads")
    .with_timeout(WINDOW_TIMEOUT)
}

/// Collects the failing runs' reports (each also printed at once, with its run number and
/// seed) and fails with all of them.
#[derive(Default)]
struct Runs {
    total: usize,
    failures: Vec<String>,
}

impl Runs {
    fn check(&mut self, runs: usize, seed: u64, how_to_reproduce: &str, report: &Report) {
        self.total += 1;
        if report.is_ok() {
            return;
        }
        let failure = format!(
            "run {} of {runs} failed, seed {seed} (reproduce the timing: {how_to_reproduce}):\n{report}",
            self.total
        );
        eprintln!("{failure}\n");
        self.failures.push(failure);
    }

    fn assert_all_ok(self) {
        assert!(
            self.failures.is_empty(),
            "{} of {} replays of the jitter session failed:\n\n{}",
            self.failures.len(),
            self.total,
            self.failures.join("\n\n")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_replays_against_fresh_in_process_servers() {
    let fixture = fixture();
    let mut runs = Runs::default();
    for _ in 0..IN_PROCESS_RUNS {
        let server = JitterServer::new();
        let seed = server.seed();
        let report = fixture
            .replay()
            .run(move |transport| async move {
                let running = server.serve(transport).await?;
                running.waiting().await?;
                Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
            })
            .await;
        let reproduce = format!("JitterServer::with_seed({seed})");
        runs.check(IN_PROCESS_RUNS, seed, &reproduce, &report);
    }
    runs.assert_all_ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_replays_against_fresh_stdio_servers() {
    let fixture = fixture();
    let mut runs = Runs::default();
    for _ in 0..STDIO_RUNS {
        // The seed is drawn here and handed to the child, so a failure can name it.
        let seed = JitterServer::new().seed();
        let report = fixture
            .replay()
            .run(move |transport| async move {
                let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_demo-server"));
                command.arg("jitter").arg(seed.to_string());
                serve_command(transport, &mut command).await
            })
            .await;
        let reproduce = format!("demo-server jitter {seed}");
        runs.check(STDIO_RUNS, seed, &reproduce, &report);
    }
    runs.assert_all_ok();
}
