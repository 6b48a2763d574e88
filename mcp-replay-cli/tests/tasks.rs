//! MCP Tasks (protocol 2025-11-25, SEP-1686) against server-everything, recorded from the
//! TypeScript SDK's task client (`peers/node/task_client.mjs`): `simulate-research-query` as
//! a task (polled until `completed`, and with `ambiguous: true` its elicitation queued to
//! `tasks/result`), the tasks the server asks the client to run
//! (`trigger-sampling-request-async`, `trigger-elicitation-request-async`), and
//! `tasks/list`/`tasks/cancel`. Every run mints new task ids, the number of polls depends
//! on time, and status notifications come as the task's stages advance: the committed
//! fixtures under `tests/fixtures/tasks/` replay 20 times each, twenty sessions at once
//! throughout (under load), over stdio and over Streamable HTTP; a changed result is
//! exactly one *result* finding; a fresh recording through the proxy replays and is served
//! back to the same client.

mod common;

use common::http::{free_port, url, wait_for};
use common::{mcp_replay, peer, temp_dir, text, MCP_REPLAY};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The tours of `task_client.mjs`, recorded over stdio and over Streamable HTTP.
const STDIO: [&str; 4] = [
    "everything_stdio_research",
    "everything_stdio_ambiguous",
    "everything_stdio_client",
    "everything_stdio_manage",
];
const HTTP: [&str; 4] = [
    "everything_http_research",
    "everything_http_ambiguous",
    "everything_http_client",
    "everything_http_manage",
];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/tasks/{name}.jsonl"))
}

/// How often each fixture replays, and how many replays run at any moment.
const RUNS: usize = 20;
const AT_ONCE: usize = 20;

/// Replays each of `fixtures` [`RUNS`] times against `target` (`-- SERVER...` or `--url
/// URL`), [`AT_ONCE`] replays running at every moment: a new one starts as soon as one
/// ends, the fixtures mixed, so the load stays at twenty sessions throughout (not twenty
/// of one fixture, then a wave that waits for its slowest session). The outputs of the runs
/// that failed, by fixture.
fn replay_under_load(fixtures: &[&str], target: &[String]) -> Vec<(String, Vec<String>)> {
    let jobs: Vec<&str> = (0..RUNS).flat_map(|_| fixtures.iter().copied()).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(name) = jobs.get(i) else { break };
                let output = mcp_replay()
                    .arg("replay")
                    .arg(fixture(name))
                    // Twenty servers start at once: on 2 cores a Node server can take more
                    // than the default 5 s to answer `initialize`. What is pinned here is
                    // the replay under concurrency, not how fast the servers start.
                    .args(["--timeout", "30s"])
                    .args(target)
                    .stdin(Stdio::null())
                    .output()
                    .expect("mcp-replay runs");
                if !output.status.success() {
                    let (out, err) = text(&output);
                    failed
                        .lock()
                        .unwrap()
                        .push((name.to_string(), format!("{out}{err}")));
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap();
    fixtures
        .iter()
        .map(|name| {
            let outputs = failed
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, o)| o.clone())
                .collect();
            (name.to_string(), outputs)
        })
        .collect()
}

/// Every fixture replayed green [`RUNS`] times; else the first failing output of each.
fn assert_all_green(how: &str, failed: &[(String, Vec<String>)]) {
    let failing: Vec<String> = failed
        .iter()
        .filter(|(_, outputs)| !outputs.is_empty())
        .map(|(name, outputs)| {
            format!(
                "{name} {how}: {} of {RUNS} failed; the first:\n{}",
                outputs.len(),
                outputs[0]
            )
        })
        .collect();
    assert!(failing.is_empty(), "{}", failing.join("\n"));
}

fn over_stdio() -> Vec<String> {
    let mut target = vec!["--".to_owned()];
    target.extend(peer("everything"));
    target
}

#[test]
fn each_task_session_replays_20_times_twenty_at_once_over_stdio() {
    let failed = replay_under_load(&STDIO, &over_stdio());
    assert_all_green("over stdio", &failed);
}

#[test]
fn each_task_session_replays_20_times_twenty_at_once_over_streamable_http() {
    let everything = peer("everything");
    let port = free_port();
    let mut server = Command::new("env")
        .arg(format!("PORT={port}"))
        // `node INDEX`, without the `stdio` mode `peer` adds.
        .args(&everything[..2])
        .arg("streamableHttp")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("server-everything starts");
    wait_for(port, &mut server);
    let target = ["--url".to_owned(), url(port)];
    let failed = replay_under_load(&HTTP, &target);
    let _ = server.kill();
    let _ = server.wait();
    assert_all_green("over Streamable HTTP", &failed);
}

/// The research report changed: one *result* finding, at the response to `tasks/result`;
/// nothing about the task id, the polls or the status notifications.
#[test]
fn a_changed_report_is_exactly_one_result_finding() {
    let dir = temp_dir("tasks", "changed");
    let changed = dir.join("changed.jsonl");
    let text_of = std::fs::read_to_string(fixture("everything_stdio_research")).unwrap();
    let edited = text_of.replace("# Research Report: tides", "# Research Report: waves");
    assert_ne!(edited, text_of);
    std::fs::write(&changed, edited).unwrap();
    let output = mcp_replay()
        .arg("replay")
        .arg(&changed)
        .args(over_stdio())
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("1 mismatch (1 result)"), "{out}");
    assert!(out.contains("the response to `tasks/result`"), "{out}");
}

/// A session recorded now through the proxy from the TypeScript SDK's client: its task
/// ids are bound placeholders; it replays green, and `serve` plays it back to the same
/// client, which polls the served task to its end.
#[test]
fn a_fresh_recording_from_the_typescript_sdk_replays_and_serves_back() {
    let dir = temp_dir("tasks", "fresh");
    let recorded = dir.join("ambiguous.jsonl");
    let client = mcp_replay_peers::node("task_client.mjs");
    let record = Command::new(&client[0])
        .args(&client[1..])
        .args(["--tour", "ambiguous", "--"])
        .arg(MCP_REPLAY)
        .arg("record")
        .arg("-o")
        .arg(&recorded)
        .args(over_stdio())
        .output()
        .expect("the client runs");
    let (out, err) = text(&record);
    assert!(record.status.success(), "{out}{err}");
    assert!(out.contains("python (snake)"), "{out}");
    let written = std::fs::read_to_string(&recorded).unwrap();
    assert!(written.contains("\"taskId\":\"<TASK_ID:1>\""), "{written}");

    let replay = mcp_replay()
        .arg("replay")
        .args([&recorded, &recorded])
        .args(over_stdio())
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&replay);
    assert!(replay.status.success(), "{out}{err}");
    assert!(out.contains("2 passed, 0 failed"), "{out}");

    let served = Command::new(&client[0])
        .args(&client[1..])
        .args(["--tour", "ambiguous", "--"])
        .arg(MCP_REPLAY)
        .arg("serve")
        .arg(&recorded)
        .output()
        .expect("the client runs");
    let (out, err) = text(&served);
    assert!(served.status.success(), "{out}{err}");
    assert!(
        out.contains(r#""statuses":["working","input_required"]"#),
        "{out}"
    );
    assert!(err.contains(": ok"), "{err}");
}

/// `call --task` against server-everything (protocol 2025-11-25): `tools/call` with `task`,
/// `tasks/get` until `input_required`, then `tasks/result`, which delivers the elicitation
/// queued to the task (accepted with `--accept-elicitation`) and the report; the fixture
/// replays green.
#[test]
fn call_task_records_a_research_task_with_its_queued_elicitation() {
    let dir = temp_dir("tasks", "call");
    let fixture = dir.join("call.jsonl");
    let output = mcp_replay()
        .args(["call", "-o"])
        .arg(&fixture)
        .args([
            "--task",
            "--accept-elicitation",
            r#"{"interpretation":"snake"}"#,
            "--tool",
            "simulate-research-query",
            "topic=python",
            "ambiguous:=true",
        ])
        .args(over_stdio())
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(out.contains("Research Report: python (snake)"), "{out}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    for method in [
        "\"tasks/get\"",
        "\"tasks/result\"",
        "\"elicitation/create\"",
    ] {
        assert!(written.contains(method), "{method} in {written}");
    }
    let replay = mcp_replay()
        .arg("replay")
        .arg(&fixture)
        .args(over_stdio())
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&replay);
    assert!(replay.status.success(), "{out}{err}");
}
