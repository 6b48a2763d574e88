//! Real sessions: fixtures recorded by `scripts/record-real-sessions.sh` through
//! `mcp-replay record`, between real clients (the Python and TypeScript SDKs, declaring
//! roots, sampling and elicitation) and real servers (server-everything, the Python tour
//! server). They hold what such sessions hold: server requests answered by the client,
//! progress, logs, `list_changed` bursts and a `roots/list` the server sends on its own
//! timer, racing the client's requests.
//!
//! Each fixture is replayed against its live server 20 times, four rows of five in a row
//! at once (a fresh server process each time): a replay that passes only when the race
//! goes one way fails here.
//! The peers are installed on first use (`mcp_replay_peers`).

mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};

use common::peer_server;
use mcp_replay::process::serve_command;
use mcp_replay::Fixture;

const RUNS: usize = 20;
/// The runs go in this many rows at once (five runs in a row each): the sessions are
/// mostly the servers' own timers (two seconds each), so twenty one after the other took a
/// minute and a quarter for the file; rows at once also put the races under load.
const ROWS: usize = 4;

/// Replays `tests/fixtures/real/{name}.jsonl` against `peer` [`RUNS`] times, in [`ROWS`]
/// rows at once; fails if any run did (their reports are printed).
async fn replay_repeatedly(name: &'static str, peer: &'static str) {
    let path = format!(
        "{}/tests/fixtures/real/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let rows: Vec<_> = (0..ROWS)
        .map(|row| {
            let path = path.clone();
            let runs = (row * RUNS / ROWS + 1)..=((row + 1) * RUNS / ROWS);
            tokio::spawn(runs_in_a_row(name, peer, runs, move || {
                Fixture::load(&path).unwrap()
            }))
        })
        .collect();
    let mut failed = Vec::new();
    for row in rows {
        failed.extend(row.await.expect("a row of runs"));
    }
    failed.sort_unstable();
    assert!(
        failed.is_empty(),
        "{name}: {} of {RUNS} runs failed (runs {failed:?}); their reports are above",
        failed.len()
    );
}

/// `runs` one after another, each a replay of `fixture()` against a fresh `peer` server,
/// its trace in the captured output (shown for a failing test); prints the report of each
/// failing run, and returns their numbers.
async fn runs_in_a_row(
    what: &'static str,
    peer: &'static str,
    runs: std::ops::RangeInclusive<usize>,
    fixture: impl Fn() -> Fixture,
) -> Vec<usize> {
    let mut failed = Vec::new();
    for run in runs {
        let mut command = peer_server(peer);
        let report = fixture()
            .with_trace(true)
            .replay()
            .run(move |t| async move { serve_command(t, &mut command).await })
            .await;
        if !report.is_ok() {
            eprintln!("{what}: run {run} failed:\n{report}\n");
            failed.push(run);
        }
    }
    failed
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

/// The lines of `tests/fixtures/real/{name}.jsonl`.
fn lines_of(name: &str) -> Vec<String> {
    let path = format!(
        "{}/tests/fixtures/real/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `lines` with the lines for which `pick` holds taken out and put back, in their order,
/// before the first remaining line for which `before` holds (at the end if none does).
fn moved(
    lines: &[String],
    pick: impl Fn(&str) -> bool,
    before: impl Fn(&str) -> bool,
) -> Vec<String> {
    let (picked, mut rest): (Vec<String>, Vec<String>) =
        lines.iter().cloned().partition(|l| pick(l));
    assert!(!picked.is_empty(), "nothing to move");
    let at = rest.iter().position(|l| before(l)).unwrap_or(rest.len());
    rest.splice(at..at, picked);
    rest
}

/// server-everything sends its own `roots/list` 350 ms after `notifications/initialized`,
/// and `list_changed` notifications as it registers tools. Wherever a recording happened
/// to catch them (at the start, inside the long-running tool's progress stream, at the
/// end), the replay against the unchanged server is green.
#[tokio::test]
async fn server_everything_replays_wherever_its_own_messages_were_recorded() {
    let lines = lines_of("everything_python_client");
    let roots = |l: &str| {
        l.contains("\"roots/list\"") || l.contains("\"roots\":[{") || l.contains("Roots updated")
    };
    let list_changed = |l: &str| l.contains("notifications/tools/list_changed");
    let progress = |n: u32| {
        move |l: &str| {
            l.contains("notifications/progress") && l.contains(&format!("\"progress\":{n},"))
        }
    };
    let variants = [
        (
            "roots/list at the start",
            moved(&lines, roots, |l| l.contains("\"tools/list\"")),
        ),
        (
            "roots/list between two progress notifications",
            moved(&lines, roots, progress(3)),
        ),
        ("roots/list at the end", moved(&lines, roots, |_| false)),
        (
            "list_changed at the end",
            moved(&lines, list_changed, |_| false),
        ),
        (
            "list_changed before the handshake's end",
            moved(&lines, list_changed, |l| {
                l.contains("notifications/initialized")
            }),
        ),
    ];
    // The variants at once, each four runs in a row.
    let rows: Vec<_> = variants
        .into_iter()
        .map(|(what, variant)| {
            let text = variant.join("\n") + "\n";
            let fixture = move || Fixture::parse_named(&text, what).unwrap();
            let runs = tokio::spawn(runs_in_a_row(what, "everything", 1..=4, fixture));
            (what, runs)
        })
        .collect();
    let mut failed = Vec::new();
    for (what, runs) in rows {
        let runs = runs.await.expect("a row of runs");
        failed.extend(runs.into_iter().map(|run| (what, run)));
    }
    assert!(failed.is_empty(), "failed: {failed:?}; reports above");
}
