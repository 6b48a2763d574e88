//! The client matrix: `mcp-replay serve` must give each real client what the live server
//! gave it. `scripts/record-client-matrix.sh` recorded one live tour of server-everything per
//! client through `mcp-replay record` (`tests/fixtures/matrix/<client>.jsonl`) together with
//! the client's observations, its stdout (`<client>.observed`). Here each client runs
//! [`RUNS`] times in a row against its recording served by `mcp-replay serve`
//! (`<client> -- mcp-replay serve tests/fixtures/matrix/<client>.jsonl`), and every run's
//! stdout must equal `<client>.observed` line for line.
//!
//! Clients: `python` (the Python SDK, `peers/python/tour_client.py --tour everything`), `ts`
//! (the TypeScript SDK, `peers/node/tour_client.mjs --tour everything`) and `rmcp` (this
//! package's `tour-client`). A failing run is printed with its number, the progress lines
//! it and the live run saw, a diff of its output against the live one and its stderr (the
//! client's, the server's and `mcp-replay serve`'s report).
//!
//! The TypeScript SDK drops a progress notification from `onprogress` when it reads it in
//! the same chunk as its response (it settles the response first); the tour client still
//! prints it, from `onerror`, and notes it on stderr as "late progress" (see its header), so
//! its stdout does not depend on how the writes were chunked. Live, only a progress the
//! server wrote right before its response can be read with it (server-everything writes
//! its last one so, and `onprogress` sees 2 or 3 of its 3). So for the TypeScript client
//! each run must also have at most as many late progress notifications as the recording
//! has progress notifications directly followed by their response: a served session that
//! writes earlier ones together with the response makes the SDK miss what it saw live.
//!
//! The Python and TypeScript clients' peers are installed on first use
//! (`mcp_replay_peers`); the rmcp client needs nothing but this repository. The command and
//! the rmcp client are this package's binaries (`mcp-replay-for-tests`, `tour-client`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

const RUNS: usize = 10;

/// A run that takes longer has hung (a live tour takes about 2 s).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `mcp-replay` command, as this package builds it for its tests
/// (`mcp-replay-for-tests`, demo/src/bin/).
fn mcp_replay() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_mcp-replay-for-tests"))
}

/// The command line of a tour client, installing the Node and Python peers first if this
/// checkout has not ([`mcp_replay_peers`]); a peer that cannot be installed fails the test.
fn client(which: &str) -> Vec<PathBuf> {
    let argv = match which {
        "python" => mcp_replay_peers::python("tour_client.py"),
        "ts" => mcp_replay_peers::node("tour_client.mjs"),
        "rmcp" => return vec![PathBuf::from(env!("CARGO_BIN_EXE_tour-client"))],
        other => panic!("unknown client {other}"),
    };
    let mut argv: Vec<PathBuf> = argv.into_iter().map(PathBuf::from).collect();
    argv.extend(["--tour".into(), "everything".into()]);
    argv
}

/// What one run printed.
struct Run {
    stdout: String,
    stderr: String,
    /// `None` when it was killed after [`RUN_TIMEOUT`].
    status: Option<std::process::ExitStatus>,
}

async fn run_once(argv: &[PathBuf], fixture: &Path) -> Run {
    let mut command = tokio::process::Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .arg("--")
        .arg(mcp_replay())
        .arg("serve")
        .arg(fixture)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().unwrap();
    match tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output()).await {
        Ok(output) => {
            let output = output.unwrap();
            Run {
                stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
                status: Some(output.status),
            }
        }
        // Dropping the future killed the client; its `mcp-replay serve` then reads EOF.
        Err(_) => Run {
            stdout: String::new(),
            stderr: format!("(killed after {RUN_TIMEOUT:?}: the run hung)"),
            status: None,
        },
    }
}

/// How many progress notifications the fixture has directly followed by a response: those
/// the live server may have written together with it.
fn progress_right_before_a_response(fixture: &str) -> usize {
    let messages: Vec<serde_json::Value> = fixture
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|entry| entry["direction"] == "server->client")
        .map(|entry| entry["message"].clone())
        .collect();
    messages
        .windows(2)
        .filter(|pair| {
            pair[0]["method"] == "notifications/progress"
                && pair[1].get("id").is_some()
                && (pair[1].get("result").is_some() || pair[1].get("error").is_some())
        })
        .count()
}

fn progress_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains(r#""event":"progress""#))
        .collect()
}

/// A line diff (longest common subsequence): `-` the live observation, `+` this run's.
fn diff(expected: &[&str], actual: &[&str]) -> String {
    let (n, m) = (expected.len(), actual.len());
    // lcs[i][j]: the longest common subsequence of expected[i..] and actual[j..]
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i] == actual[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < n || j < m {
        if i < n && j < m && expected[i] == actual[j] {
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push_str(&format!("  + line {:>2}: {}\n", j + 1, actual[j]));
            j += 1;
        } else {
            out.push_str(&format!("  - line {:>2}: {}\n", i + 1, expected[i]));
            i += 1;
        }
    }
    out
}

/// Serves `tests/fixtures/matrix/{name}.jsonl` to the client [`RUNS`] times; every run's
/// stdout must equal `{name}.observed`.
async fn serve_repeatedly(name: &str) {
    let argv = client(name);
    let dir = repo().join("tests/fixtures/matrix");
    let fixture = dir.join(format!("{name}.jsonl"));
    let observed = std::fs::read_to_string(dir.join(format!("{name}.observed"))).unwrap();
    let expected: Vec<&str> = observed.lines().collect();
    let live_progress = progress_lines(&observed);
    // (a served session that sends server messages between two client messages the live one
    // did not is caught by the comparison: the fixture keeps them where they were)
    let late_allowed =
        progress_right_before_a_response(&std::fs::read_to_string(&fixture).unwrap());
    let mut failed = Vec::new();
    for number in 1..=RUNS {
        let run = run_once(&argv, &fixture).await;
        let actual: Vec<&str> = run.stdout.lines().collect();
        let progress = progress_lines(&run.stdout);
        let late = run.stderr.matches("late progress").count();
        eprintln!(
            "{name}: run {number} of {RUNS}: {} of {} observations, {} progress line(s) (live: {}){}",
            actual.len(),
            expected.len(),
            progress.len(),
            live_progress.len(),
            if name == "ts" {
                format!(
                    ", {} of them seen by onprogress, {late} late (at most {late_allowed})",
                    progress.len().saturating_sub(late)
                )
            } else {
                String::new()
            }
        );
        let exited_ok = run.status.is_some_and(|s| s.success());
        let too_late = name == "ts" && late > late_allowed;
        if actual == expected && exited_ok && !too_late {
            continue;
        }
        failed.push(number);
        let status = run
            .status
            .map_or("killed (hung)".to_owned(), |s| s.to_string());
        let late_note = if too_late {
            format!(
                "\nthe TypeScript SDK read {late} progress notification(s) together with their response \
                 (onprogress did not see them); the recording has {late_allowed} written right before it"
            )
        } else {
            String::new()
        };
        eprintln!(
            "{name}: run {number} of {RUNS} FAILED (client {status}){late_note}\n\
             progress lines, live ({}):\n{}\n\
             progress lines, this run ({}):\n{}\n\
             diff against {name}.observed (- live, + this run):\n{}\
             stderr:\n{}\n",
            live_progress.len(),
            indent(&live_progress),
            progress.len(),
            indent(&progress),
            if actual == expected {
                "    (none: the same observations)\n".to_owned()
            } else {
                diff(&expected, &actual)
            },
            run.stderr.trim_end(),
        );
    }
    assert!(
        failed.is_empty(),
        "{name}: {} of {RUNS} runs failed (runs {failed:?}): each observed something else than the live \
         session, or (TypeScript) onprogress missed more progress than it could live; details above",
        failed.len()
    );
}

fn indent(lines: &[&str]) -> String {
    if lines.is_empty() {
        return "    (none)".into();
    }
    lines
        .iter()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn the_python_sdk_client_observes_the_served_session_as_it_did_the_live_one() {
    serve_repeatedly("python").await;
}

#[tokio::test]
async fn the_typescript_sdk_client_observes_the_served_session_as_it_did_the_live_one() {
    serve_repeatedly("ts").await;
}

#[tokio::test]
async fn the_rmcp_client_observes_the_served_session_as_it_did_the_live_one() {
    serve_repeatedly("rmcp").await;
}

/// `fixture`'s lines with the server's own `roots/list` moved right before the first
/// progress notification, and the client's answer (with the log the answer caused) right
/// after it: a recording in which the server wrote a message between its request and the
/// client's answer, as when server-everything's roots timer fires inside a tool's work.
fn roots_answered_after_a_progress(fixture: &str) -> String {
    let lines: Vec<&str> = fixture.lines().collect();
    let find = |needle: &str| *lines.iter().find(|l| l.contains(needle)).unwrap();
    let (request, answer, log) = (
        find("\"method\":\"roots/list\""),
        find("\"roots\":[{"),
        find("Roots updated"),
    );
    let mut out: Vec<&str> = Vec::new();
    for line in lines {
        if [request, answer, log].contains(&line) {
            continue;
        }
        if line.contains("notifications/progress") && line.contains("\"progress\":1,") {
            out.extend([request, line, answer, log]);
        } else {
            out.push(line);
        }
    }
    out.join("\n") + "\n"
}

/// Served from such a recording, each client gets to the end of its tour with the answers
/// it got live (the mock once stopped at the server's request and hung).
#[tokio::test]
async fn messages_between_a_server_request_and_its_answer_are_served_to_every_client() {
    for name in ["python", "ts", "rmcp"] {
        let argv = client(name);
        let dir = repo().join("tests/fixtures/matrix");
        let text = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).unwrap();
        let moved = std::env::temp_dir().join(format!(
            "mcp-replay-matrix-{name}-{}.jsonl",
            std::process::id()
        ));
        std::fs::write(&moved, roots_answered_after_a_progress(&text)).unwrap();
        let observed = std::fs::read_to_string(dir.join(format!("{name}.observed"))).unwrap();
        for number in 1..=3 {
            let run = run_once(&argv, &moved).await;
            assert!(
                run.status.is_some_and(|s| s.success()),
                "{name}: run {number} did not end well:\n{}",
                run.stderr
            );
            // The same observations, except where the client printed the moved lines.
            let without = |text: &str| -> Vec<String> {
                text.lines()
                    .filter(|l| !l.contains("roots/list") && !l.contains("Roots updated"))
                    .map(str::to_owned)
                    .collect()
            };
            assert_eq!(
                without(&run.stdout),
                without(&observed),
                "{name}: run {number}:\n{}",
                run.stderr
            );
        }
        let _ = std::fs::remove_file(&moved);
    }
}
