//! `replay -j N`, `--fail-fast` and `--partition`: fixtures replayed at once, each against
//! its own server process, reported in the order given; a failure stops what has not
//! started; a shard replays its part of the suite.

mod common;

use common::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A server (python3, no packages) whose tool `meet` answers once `n` servers are running
/// (each leaves a file in the folder `dir` names): a barrier that only concurrent replays
/// pass. `visit` stays 1.5 s in the folder `dir` names; `alone` looks there for 3 s and
/// answers whether it met anyone. `wait` answers after `ms` milliseconds, `hang` never,
/// `die` kills its server (SIGKILL); any other tool answers what no fixture expects.
const SERVER: &str = r#"
import json, os, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method, p = m["method"], m.get("params", {})
    if method == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "jobs", "version": "1"}}
    elif p.get("name") == "meet":
        a = p["arguments"]
        open(os.path.join(a["dir"], str(os.getpid())), "w").close()
        while len(os.listdir(a["dir"])) < a["n"]:
            time.sleep(0.01)
        r = {"content": [{"type": "text", "text": "met"}]}
    elif p.get("name") == "visit":
        mine = os.path.join(p["arguments"]["dir"], str(os.getpid()))
        open(mine, "w").close()
        time.sleep(1.5)
        os.remove(mine)
        r = {"content": [{"type": "text", "text": "visited"}]}
    elif p.get("name") == "alone":
        # Looks for 3 s: anyone else in the room makes it crowded.
        room = p["arguments"]["dir"]
        text, until = "alone", time.time() + 3
        while time.time() < until:
            if os.listdir(room):
                text = "crowded"
                break
            time.sleep(0.01)
        r = {"content": [{"type": "text", "text": text}]}
    elif p.get("name") == "hang":
        time.sleep(3600)
    elif p.get("name") == "die":
        os.kill(os.getpid(), 9)
    elif p.get("name") == "wait":
        time.sleep(p["arguments"]["ms"] / 1000)
        r = {"content": [{"type": "text", "text": "waited"}]}
    else:
        r = {"content": [{"type": "text", "text": "surprise"}]}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#;

fn fixture(
    dir: &Path,
    name: &str,
    tool: &str,
    arguments: serde_json::Value,
    answer: &str,
) -> PathBuf {
    let call = serde_json::json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": tool, "arguments": arguments}}});
    let result = serde_json::json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"content": [{"type": "text", "text": answer}]}}});
    let path = dir.join(format!("{name}.jsonl"));
    std::fs::write(&path, format!("{call}\n{result}\n")).unwrap();
    path
}

/// `n` fixtures `f0`, `f1`, ... of a `wait` of 0 ms: each passes at once.
fn instant_fixtures(dir: &Path, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            fixture(
                dir,
                &format!("f{i}"),
                "wait",
                serde_json::json!({"ms": 0}),
                "waited",
            )
        })
        .collect()
}

fn replay(dir: &Path, flags: &[&str], fixtures: &[PathBuf]) -> Output {
    std::fs::write(dir.join("server.py"), SERVER).unwrap();
    Command::new(env!("CARGO_BIN_EXE_mcp-replay"))
        .arg("replay")
        .args(flags)
        .args(fixtures)
        .args(["--", "python3"])
        .arg(dir.join("server.py"))
        .output()
        .unwrap()
}

/// The report lines of the fixtures, in the order printed: `(file name, ms)`.
fn lines(out: &str) -> Vec<(String, u64)> {
    out.lines()
        .filter_map(|l| l.strip_prefix("mcp-replay: "))
        .filter_map(|l| {
            let (path, rest) = l.split_once(": ")?;
            let ms = rest.split_once('(')?.1.strip_suffix(" ms)")?.parse().ok()?;
            let name = Path::new(path).file_name()?.to_string_lossy().into_owned();
            Some((name, ms))
        })
        .collect()
}

#[test]
fn fixtures_run_at_once_and_report_in_the_order_given() {
    let dir = common::temp_dir("jobs", "order");
    let barrier = dir.join("barrier");
    std::fs::create_dir_all(&barrier).unwrap();
    let meet = serde_json::json!({"dir": barrier.display().to_string(), "n": 3});
    // The first waits longest: with three at once it ends last, and is still reported first.
    let fixtures = vec![
        fixture(
            &dir,
            "a_slow",
            "wait",
            serde_json::json!({"ms": 600}),
            "waited",
        ),
        fixture(&dir, "b_meet", "meet", meet.clone(), "met"),
        fixture(&dir, "c_meet", "meet", meet.clone(), "met"),
        fixture(&dir, "d_meet", "meet", meet, "met"),
    ];
    let output = replay(&dir, &["-j", "4", "--timeout", "10s"], &fixtures);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    let got = lines(&out);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "a_slow.jsonl",
            "b_meet.jsonl",
            "c_meet.jsonl",
            "d_meet.jsonl"
        ],
        "{out}"
    );
    // The three at the barrier met: they ran at once (one at a time, the first would wait
    // for the others until its timeout).
    assert!(out.contains("4 passed, 0 failed"), "{out}");
    assert!(got[0].1 >= 600, "{out}");

    // One at a time, the barrier is never met: each times out, in order.
    std::fs::remove_dir_all(&barrier).unwrap();
    std::fs::create_dir_all(&barrier).unwrap();
    let alone = replay(&dir, &["-j", "1", "--timeout", "300ms"], &fixtures[1..3]);
    let (out, _) = text(&alone);
    assert_eq!(alone.status.code(), Some(1), "{out}");
    assert!(out.contains("0 passed, 2 failed"), "{out}");
    assert!(out.contains("1 mismatch (1 timeout)"), "{out}");
}

#[test]
fn fail_fast_starts_nothing_after_the_first_failure() {
    let dir = common::temp_dir("jobs", "fail-fast");
    let fixtures = vec![
        fixture(&dir, "a_wrong", "other", serde_json::json!({}), "expected"),
        fixture(&dir, "b_ok", "wait", serde_json::json!({"ms": 0}), "waited"),
        fixture(&dir, "c_ok", "wait", serde_json::json!({"ms": 0}), "waited"),
    ];
    let fast = replay(&dir, &["-j", "1", "--fail-fast"], &fixtures);
    let (out, _) = text(&fast);
    assert_eq!(fast.status.code(), Some(1), "{out}");
    assert_eq!(lines(&out).len(), 1, "{out}");
    assert!(
        out.contains("0 passed, 1 failed, 2 not run (--fail-fast)"),
        "{out}"
    );
    let all = replay(&dir, &["-j", "1"], &fixtures);
    assert!(
        text(&all).0.contains("2 passed, 1 failed"),
        "{:?}",
        text(&all)
    );
}

#[test]
fn each_fixture_is_in_exactly_one_shard_and_each_junit_file_names_its_shard() {
    let dir = common::temp_dir("jobs", "partition");
    let fixtures = instant_fixtures(&dir, 7);
    for by in ["count", "hash"] {
        let mut seen = Vec::new();
        for k in 1..=3 {
            let shard = format!("{by}:{k}/3");
            let junit = dir.join(format!("{by}-{k}.xml"));
            let flags = [
                "--partition",
                shard.as_str(),
                "--junit",
                junit.to_str().unwrap(),
            ];
            let output = replay(&dir, &flags, &fixtures);
            let (out, err) = text(&output);
            assert!(output.status.success(), "{out}{err}");
            let mine: Vec<String> = lines(&out).into_iter().map(|(n, _)| n).collect();
            // The same shard, run again, is the same fixtures.
            let again = replay(&dir, &flags, &fixtures);
            let theirs: Vec<String> = lines(&text(&again).0).into_iter().map(|(n, _)| n).collect();
            assert_eq!(mine, theirs, "{shard}");
            assert!(
                out.contains(&format!("shard {shard}: {} of 7 fixtures", mine.len())),
                "{out}"
            );
            let xml = std::fs::read_to_string(&junit).unwrap();
            assert!(
                xml.contains(&format!("name=\"mcp-replay (shard {shard})\"")),
                "{xml}"
            );
            seen.extend(mine);
        }
        seen.sort();
        let all: Vec<String> = (0..7).map(|i| format!("f{i}.jsonl")).collect();
        assert_eq!(seen, all, "{by}: every fixture in exactly one shard");
    }
    let bad = replay(&dir, &["--partition", "count:0/3"], &fixtures);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad).1.contains("count:K/N or hash:K/N"));
}

#[test]
fn a_solo_fixture_runs_with_no_other_beside_it() {
    let dir = common::temp_dir("jobs", "solo");
    let room = dir.join("room");
    std::fs::create_dir_all(&room).unwrap();
    let at = serde_json::json!({"dir": room.display().to_string()});
    let visit = |name: &str| fixture(&dir, name, "visit", at.clone(), "visited");
    let alone = fixture(&dir, "c_alone", "alone", at.clone(), "alone");
    let fixtures = vec![
        visit("a"),
        visit("b"),
        alone.clone(),
        visit("d"),
        visit("e"),
    ];
    // Without the header key, four at once: the one that wants to be alone is not.
    let crowded = replay(&dir, &["-j", "4"], &fixtures);
    let (out, _) = text(&crowded);
    assert!(out.contains("4 passed, 1 failed"), "{out}");
    assert!(out.contains("\"crowded\""), "{out}");
    // `"solo": true`: the two before it end first, the two after it start after it.
    let body = std::fs::read_to_string(&alone).unwrap();
    std::fs::write(
        &alone,
        format!("{{\"mcp_replay\":1,\"solo\":true}}\n{body}"),
    )
    .unwrap();
    let solo = replay(&dir, &["-j", "4"], &fixtures);
    let (out, err) = text(&solo);
    assert!(solo.status.success(), "{out}{err}");
    let names: Vec<String> = lines(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["a.jsonl", "b.jsonl", "c_alone.jsonl", "d.jsonl", "e.jsonl"]
    );

    // The folder's rules file says it for every fixture there (`"jobs": 1`), the header
    // nothing: the same.
    let folder = dir.join("alone");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("mcp-replay.rules.json"), r#"{"jobs": 1}"#).unwrap();
    let moved = folder.join("c_alone.jsonl");
    std::fs::write(&moved, body).unwrap();
    let mut by_folder = fixtures.clone();
    by_folder[2] = moved;
    let solo = replay(&dir, &["-j", "4"], &by_folder);
    let (out, err) = text(&solo);
    assert!(solo.status.success(), "{out}{err}");
    assert!(out.contains("5 passed, 0 failed"), "{out}");
}

/// Ctrl-C during a parallel run: the command stops its servers (killed, reaped) and ends
/// with 130. The servers here ignore SIGINT and SIGTERM and never answer, so only the
/// command can end them: none is left running.
#[cfg(unix)]
#[test]
fn sigint_during_a_parallel_run_leaves_no_server_behind() {
    const STUBBORN: &str = r#"
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
while True:
    time.sleep(1)
"#;
    let dir = common::temp_dir("jobs", "sigint");
    let pids = dir.join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    std::fs::write(dir.join("stubborn.py"), STUBBORN).unwrap();
    let fixtures = instant_fixtures(&dir, 4);
    let child = Command::new(env!("CARGO_BIN_EXE_mcp-replay"))
        .args(["replay", "-j", "2", "--timeout", "60s"])
        .args(&fixtures)
        .args(["--", "python3"])
        .arg(dir.join("stubborn.py"))
        .arg(&pids)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = |n: usize| std::fs::read_dir(&pids).unwrap().count() >= n;
    let began = std::time::Instant::now();
    while !started(2) {
        assert!(
            began.elapsed() < std::time::Duration::from_secs(30),
            "the servers started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let (_, err) = text(&output);
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(
        err.contains("mcp-replay: interrupted: 0 of 4 fixtures replayed"),
        "{err}"
    );
    let servers: Vec<i32> = std::fs::read_dir(&pids)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().parse().unwrap())
        .collect();
    assert_eq!(servers.len(), 2, "two at once, and no third started");
    // Gone: not running, not a zombie (/proc/PID absent once reaped).
    let began = std::time::Instant::now();
    for pid in servers {
        let proc = PathBuf::from(format!("/proc/{pid}"));
        while proc.exists() {
            assert!(
                began.elapsed() < std::time::Duration::from_secs(10),
                "server {pid} still there: {}",
                std::fs::read_to_string(proc.join("stat")).unwrap_or_default()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// A hanging server holds its slot until its timeout, and only that slot: the two behind it
/// meet at the barrier meanwhile (so they ran at once, beside it). A server killed by a
/// signal is its own fixture's finding, and the others still pass.
#[test]
fn a_hanging_or_killed_server_holds_one_slot_and_fails_one_fixture() {
    let dir = common::temp_dir("jobs", "hang");
    let barrier = dir.join("barrier");
    std::fs::create_dir_all(&barrier).unwrap();
    let meet = serde_json::json!({"dir": barrier.display().to_string(), "n": 2});
    let fixtures = vec![
        fixture(&dir, "a_hang", "hang", serde_json::json!({}), "never"),
        fixture(&dir, "b_meet", "meet", meet.clone(), "met"),
        fixture(&dir, "c_meet", "meet", meet, "met"),
        fixture(&dir, "d_die", "die", serde_json::json!({}), "never"),
        fixture(
            &dir,
            "e_wait",
            "wait",
            serde_json::json!({"ms": 1}),
            "waited",
        ),
    ];
    let output = replay(&dir, &["-j", "3", "--timeout", "4s"], &fixtures);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("3 passed, 2 failed"), "{out}");
    for (name, says) in [
        ("a_hang", "1 mismatch (1 timeout)"),
        ("b_meet", "ok"),
        ("c_meet", "ok"),
        ("d_die", "1 mismatch (1 server failure)"),
        ("e_wait", "ok"),
    ] {
        assert!(
            out.contains(&format!("{name}.jsonl: {says}")),
            "{name}: {out}"
        );
    }
    assert!(out.contains("was killed by signal 9"), "{out}");
    let names: Vec<String> = lines(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names.len(), 5, "{out}");
    assert_eq!(names[0], "a_hang.jsonl", "{out}");
}

/// `--update -j 3`: three stale fixtures re-recorded at once (they meet at the barrier,
/// so they ran at the same time), each written whole, with no temporary file left behind.
#[test]
fn fixtures_re_recorded_in_parallel_are_each_written_atomically() {
    let dir = common::temp_dir("jobs", "update");
    let barrier = dir.join("barrier");
    std::fs::create_dir_all(&barrier).unwrap();
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    let meet = |n: usize| serde_json::json!({"dir": barrier.display().to_string(), "n": n});
    let fixtures: Vec<PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|name| fixture(&suite, name, "meet", meet(3), "stale"))
        .collect();
    let output = replay(
        &dir,
        &["-j", "3", "--update", "--timeout", "10s"],
        &fixtures,
    );
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    let mut files: Vec<String> = std::fs::read_dir(&suite)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["a.jsonl", "b.jsonl", "c.jsonl"], "{out}");
    for path in &fixtures {
        let written = std::fs::read_to_string(path).unwrap();
        assert!(written.contains("\"met\""), "{written}");
        assert!(!written.contains("stale"), "{written}");
    }
    // Replayed as written, all at once again: the re-recording holds.
    std::fs::remove_dir_all(&barrier).unwrap();
    std::fs::create_dir_all(&barrier).unwrap();
    let again = replay(&dir, &["-j", "3", "--timeout", "10s"], &fixtures);
    let (out, err) = text(&again);
    assert!(again.status.success(), "{out}{err}");
    assert!(out.contains("3 passed, 0 failed"), "{out}");
}
