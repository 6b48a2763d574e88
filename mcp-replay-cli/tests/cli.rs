//! The `mcp-replay` command end to end, against the demo server as a child process.

mod common;

use common::{demo_dir, demo_server, mcp_replay, text, workspace};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `command` with `input` on stdin (written line by line with small pauses, as a
/// client would), and returns its output.
fn run_with_input(mut command: Command, input: &[&str]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in input {
        writeln!(stdin, "{line}").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150));
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn replay_passes_the_bundled_fixtures_and_prints_the_summary() {
    let ws = demo_dir();
    let output = mcp_replay()
        .current_dir(&ws)
        .args([
            "replay",
            "fixtures/lookup_issue.jsonl",
            "fixtures/count_up_progress.jsonl",
            "fixtures/job_status.jsonl",
            "--",
        ])
        .arg(demo_server())
        .output()
        .unwrap();
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    for fixture in ["lookup_issue", "count_up_progress", "job_status"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("mcp-replay: fixtures/{fixture}.jsonl: ok (")))
            .unwrap_or_else(|| panic!("{fixture}: {out}"));
        assert!(line.ends_with(" ms)"), "{line}");
    }
    assert!(out.contains("\nslowest: fixtures/"), "{out}");
    let last = out.trim_end().lines().last().unwrap();
    assert!(last.starts_with("3 passed, 0 failed ("), "{out}");
    assert!(!out.contains('\x1b'), "plain when piped: {out}");
    // Color when asked, even piped.
    let forced = mcp_replay()
        .current_dir(&ws)
        .env("CLICOLOR_FORCE", "1")
        .args(["replay", "fixtures/lookup_issue.jsonl", "--"])
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(
        text(&forced).0.contains("\x1b[32mok\x1b[0m"),
        "{:?}",
        text(&forced)
    );
}

#[test]
fn replay_of_a_drifted_fixture_fails_with_the_report_and_a_non_zero_status() {
    let output = mcp_replay()
        .current_dir(workspace())
        .args([
            "replay",
            "--timeout",
            "300",
            "docs/examples/drifted.jsonl",
            "--",
        ])
        .arg(demo_server())
        .output()
        .unwrap();
    let (out, _) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.contains("4 mismatches (2 result, 1 notification order, 1 missing)"),
        "{out}"
    );
    assert!(
        out.contains("mcp-replay replay --update docs/examples/drifted.jsonl -- "),
        "{out}"
    );
    assert!(
        out.starts_with("mcp-replay: docs/examples/drifted.jsonl: FAILED ("),
        "{out}"
    );
    let last = out.trim_end().lines().last().unwrap();
    assert!(last.starts_with("0 passed, 1 failed ("), "{out}");
    // In color when asked, and NO_COLOR wins.
    let run = |env: &[(&str, &str)]| {
        let mut command = mcp_replay();
        command.current_dir(workspace()).args([
            "replay",
            "--timeout",
            "300",
            "docs/examples/drifted.jsonl",
            "--",
        ]);
        command.arg(demo_server()).envs(env.iter().copied());
        text(&command.output().unwrap()).0
    };
    let colored = run(&[("CLICOLOR_FORCE", "1")]);
    assert!(
        colored.contains("\x1b[31m-         \"text\": \"counted to two\""),
        "{colored}"
    );
    assert!(!run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).contains('\x1b'));
}

#[test]
fn replay_update_records_a_fixture_from_its_client_lines() {
    let dir = temp_dir("update");
    let path = dir.join("call.jsonl");
    std::fs::write(
        &path,
        "{\"direction\":\"client->server\",\"message\":{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}}\n",
    )
    .unwrap();
    let output = mcp_replay()
        .arg("replay")
        .arg("--update")
        .arg(&path)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(output.status.success(), "{:?}", text(&output));
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written.contains(r#""result":{"content":[{"text":"hi","type":"text"}]}"#),
        "{written}"
    );
    let again = mcp_replay()
        .arg("replay")
        .arg(&path)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(again.status.success(), "{:?}", text(&again));
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const JOB: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job_status","arguments":{}}}"#;

#[test]
fn record_proxies_a_session_unchanged_and_writes_a_normalized_fixture_that_replays() {
    let dir = temp_dir("record");
    let fixture = dir.join("fixtures/job.jsonl");
    let raw = dir.join("raw.jsonl");
    let mut command = mcp_replay();
    command
        .arg("record")
        .arg("-o")
        .arg(&fixture)
        .arg("--raw")
        .arg(&raw)
        .arg("--")
        .arg(demo_server());
    let output = run_with_input(command, &[INITIALIZE, INITIALIZED, JOB]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    // The client saw the server's own bytes: live ids, the real time.
    assert!(
        out.lines()
            .any(|l| l.starts_with(r#"{"jsonrpc":"2.0","id":2,"result""#)
                && l.contains("started at 20")),
        "{out}"
    );
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written
            .contains("job <UUID> started at <TIMESTAMP>, log at <TMP>/mcp-replay-demo/<UUID>.log"),
        "{written}"
    );
    assert!(
        err.contains("UNREDACTED") && err.contains("never commit it"),
        "{err}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&raw).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let replay = mcp_replay()
        .arg("replay")
        .arg(&fixture)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(replay.status.success(), "{:?}", text(&replay));
}

#[test]
fn record_refuses_to_write_a_session_that_leaked_a_token() {
    let dir = temp_dir("leak");
    let fixture = dir.join("job.jsonl");
    let mut command = mcp_replay();
    command
        .arg("record")
        .arg("-o")
        .arg(&fixture)
        .arg("--")
        .arg(demo_server())
        .arg("leaky");
    let output = run_with_input(command, &[INITIALIZE, INITIALIZED, JOB]);
    let (out, err) = text(&output);
    // A recording refused for a secret is an output that could not be written, as in `call`.
    assert_eq!(output.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("refusing to write") && err.contains("rule github-pat"),
        "{err}"
    );
    assert!(!err.contains("ghp_"), "{err}");
    assert!(!fixture.exists());
}

#[test]
fn record_passes_the_servers_exit_status_through() {
    let dir = temp_dir("status");
    let output = mcp_replay()
        .arg("record")
        .arg("-o")
        .arg(dir.join("x.jsonl"))
        .args([
            "--",
            "sh",
            "-c",
            "read line; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'; exit 7",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            writeln!(
                child.stdin.take().unwrap(),
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping"}}"#
            )?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(output.status.code(), Some(7), "{:?}", text(&output));
    assert!(
        dir.join("x.jsonl").exists(),
        "what was recorded before the exit is kept"
    );
}

#[test]
fn import_writes_one_fixture_per_server() {
    let dir = temp_dir("import");
    let recordings = workspace().join("mcp-replay/tests/fixtures/mcporter");
    let output = mcp_replay()
        .arg("import")
        .arg(recordings.join("multi-server.ndjson"))
        .arg("-o")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{:?}", text(&output));
    assert!(dir.join("everything.jsonl").exists() && dir.join("everything2.jsonl").exists());
    let refused = mcp_replay()
        .arg("import")
        .arg(recordings.join("multi-server.ndjson"))
        .arg("-o")
        .arg(dir.join("one.jsonl"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused).1.contains(
        "holds 2 servers (everything2, everything): give -o a folder, or pick one with --server"
    ));
}

#[test]
fn serve_plays_a_fixture_to_a_client_on_stdio_and_fails_on_a_divergence() {
    let fixture = demo_dir().join("fixtures/lookup_issue.jsonl");
    let call = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}"#;
    let mut ok = mcp_replay();
    ok.arg("serve").arg(&fixture);
    let output = run_with_input(ok, &[call]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert_eq!(
        out.trim(),
        r#"{"id":9,"jsonrpc":"2.0","result":{"content":[{"text":"Issue 42: example","type":"text"}]}}"#
    );

    let other = call.replace("42", "43");
    let mut bad = mcp_replay();
    bad.arg("serve").arg(&fixture);
    let output = run_with_input(bad, &[&other]);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains(r#""code":-32600"#) && out.contains("did not match next expected tools/call"),
        "{out}"
    );
    assert!(
        err.contains("params at fixture line 1: request tools/call"),
        "{err}"
    );
    assert!(err.contains("1 recorded request still unused"), "{err}");
}

#[test]
fn check_names_every_problem_and_accept_reject_handle_pending_files() {
    let dir = temp_dir("check");
    common::cargo_project(&dir, &[]);
    let good = std::fs::read_to_string(demo_dir().join("fixtures/lookup_issue.jsonl")).unwrap();
    std::fs::write(dir.join("good.jsonl"), &good).unwrap();
    std::fs::write(dir.join("good.jsonl.new"), &good).unwrap();
    std::fs::write(dir.join("broken.jsonl"), "{\"direction\":\n").unwrap();
    std::fs::write(
        dir.join("leak.jsonl"),
        good.replace(
            "Issue 42: example",
            &format!("key AKIA{}", "Q7WZ3PLMX4NB2RTY"),
        ),
    )
    .unwrap();
    let output = mcp_replay()
        .current_dir(&dir)
        .arg("check")
        .arg(".")
        .output()
        .unwrap();
    let (out, _) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(out.contains("broken.jsonl:1:13: not valid JSON"), "{out}");
    assert!(out.contains("leak.jsonl:2: .result.content[0].text holds what looks like a secret (rule aws-access-key-id"), "{out}");
    assert!(
        out.contains("good.jsonl.new: pending re-recording"),
        "{out}"
    );
    assert!(out.contains("good.jsonl: unreferenced"), "{out}");
    assert!(
        out.contains("3 fixtures checked: 3 problems, 1 warnings"),
        "{out}"
    );

    let accept = mcp_replay()
        .current_dir(&dir)
        .args(["accept", "."])
        .output()
        .unwrap();
    assert!(accept.status.success());
    assert!(!dir.join("good.jsonl.new").exists());
    std::fs::write(dir.join("good.jsonl.new"), &good).unwrap();
    let reject = mcp_replay()
        .current_dir(&dir)
        .args(["reject", "good.jsonl"])
        .output()
        .unwrap();
    assert!(reject.status.success());
    assert!(!dir.join("good.jsonl.new").exists() && dir.join("good.jsonl").exists());
}

#[test]
fn every_command_has_help_with_an_example_and_mistakes_exit_2_with_a_reason() {
    for command in [
        "record",
        "replay",
        "call",
        "import",
        "serve",
        "check",
        "diff",
        "accept",
        "reject",
        "completions",
    ] {
        let output = mcp_replay().args([command, "--help"]).output().unwrap();
        let (out, _) = text(&output);
        assert!(
            output.status.success()
                && out.contains(&format!("Usage: mcp-replay {command}"))
                && out.contains("Example"),
            "{command}: {out}"
        );
    }
    let top = mcp_replay().arg("--help").output().unwrap();
    assert!(text(&top).0.contains("Commands:"));
    assert!(text(&top).0.contains("2  usage or input error"));
    let version = mcp_replay().arg("--version").output().unwrap();
    assert_eq!(
        text(&version).0.trim(),
        concat!("mcp-replay ", env!("CARGO_PKG_VERSION"))
    );
    let usage = |args: &[&str]| {
        let output = mcp_replay().args(args).output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {:?}",
            text(&output)
        );
        text(&output).1
    };
    assert!(usage(&["replya"]).contains("unrecognized subcommand 'replya'"));
    assert!(usage(&[]).contains("Usage: mcp-replay <COMMAND>"));
    let no_server = usage(&["replay", "x.jsonl"]);
    assert!(
        no_server.contains("-- SERVER COMMAND") && no_server.contains("--url URL"),
        "{no_server}"
    );
    let no_server = usage(&["record", "-o", "x.jsonl"]);
    assert!(
        no_server.contains("-- SERVER COMMAND")
            && no_server.contains("--listen ADDR --upstream URL"),
        "{no_server}"
    );
    assert!(usage(&["record", "-o", "x.jsonl", "--listen", "127.0.0.1:0"]).contains("--upstream"));
    assert!(
        usage(&["replay", "--timeout", "soon", "x.jsonl", "--", "true"])
            .contains("give e.g. 700ms, 2s")
    );
    assert!(usage(&["replay", "--timeout", "0", "x.jsonl", "--", "true"]).contains("above zero"));
    // An option of another subcommand names the ones this one takes.
    let e = usage(&["import", "--timeout", "5", "rec.ndjson", "-o", "out"]);
    assert!(
        e.contains("`mcp-replay import` does not take --timeout; its options are: --server, --output, --rules"),
        "{e}"
    );
    let e = usage(&["check", "--output", "x", "f.jsonl"]);
    assert!(
        e.contains("`mcp-replay check` does not take --output; its options are: --strict, --format, --junit"),
        "{e}"
    );
    assert!(usage(&["serve", "--timing", "fast", "f.jsonl"]).contains("scaled:F"));
}

#[test]
fn completions_are_generated_for_four_shells() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef mcp-replay"),
        ("fish", "complete -c mcp-replay"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let output = mcp_replay().args(["completions", shell]).output().unwrap();
        let (out, err) = text(&output);
        assert!(output.status.success(), "{shell}: {err}");
        assert!(out.contains(marker), "{shell}: {out}");
        assert!(out.contains("replay") && out.contains("timeout"), "{shell}");
    }
    let bash = mcp_replay().args(["completions", "bash"]).output().unwrap();
    let script = temp_dir("completions").join("mcp-replay.bash");
    std::fs::write(&script, &bash.stdout).unwrap();
    // The bash script is valid bash.
    if let Ok(status) = Command::new("bash").arg("-n").arg(&script).status() {
        assert!(status.success(), "bash -n {}", script.display());
    }
}

#[test]
fn times_are_taken_as_people_type_them() {
    let dir = temp_dir("times");
    let path = client_lines_fixture(&dir);
    let update = mcp_replay()
        .args(["replay", "--update", "--timeout", "700ms"])
        .arg(&path)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(update.status.success(), "{:?}", text(&update));
    for timeout in ["2s", "1500", "0.5s"] {
        let output = mcp_replay()
            .args(["replay", "--timeout", timeout])
            .arg(&path)
            .arg("--")
            .arg(demo_server())
            .output()
            .unwrap();
        assert!(output.status.success(), "{timeout}: {:?}", text(&output));
    }
}

fn client_lines_fixture(dir: &Path) -> PathBuf {
    let path = dir.join("call.jsonl");
    std::fs::write(
        &path,
        "{\"direction\":\"client->server\",\"message\":{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}}\n",
    )
    .unwrap();
    path
}

#[test]
fn a_failure_between_write_and_rename_leaves_the_old_fixture_and_no_temp_file() {
    let dir = temp_dir("failpoint-error");
    let path = client_lines_fixture(&dir);
    let before = std::fs::read_to_string(&path).unwrap();
    let output = mcp_replay()
        .env("MCP_REPLAY_FAILPOINT", "error-before-rename")
        .arg("replay")
        .arg("--update")
        .arg(&path)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    let (out, _) = text(&output);
    // A re-recording that could not be written is an I/O error.
    assert_eq!(output.status.code(), Some(2), "{out}");
    assert!(out.contains("failpoint error-before-rename"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "no temp file left"
    );
}

#[test]
fn a_process_killed_while_re_recording_leaves_the_old_fixture_whole() {
    let dir = temp_dir("failpoint-abort");
    let path = client_lines_fixture(&dir);
    let before = std::fs::read_to_string(&path).unwrap();
    let output = mcp_replay()
        .env("MCP_REPLAY_FAILPOINT", "abort-before-rename")
        .arg("replay")
        .arg("--update")
        .arg(&path)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(!output.status.success());
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            output.status.signal(),
            Some(6),
            "the process died mid-write (SIGABRT)"
        );
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        before,
        "old fixture intact"
    );
    // The complete temp file of the dead process is left; check names it.
    let check = mcp_replay()
        .current_dir(&dir)
        .args(["check", "."])
        .output()
        .unwrap();
    let (out, _) = text(&check);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        out.contains("a temporary file left by an interrupted write"),
        "{out}"
    );
}

#[test]
fn record_keeps_what_was_recorded_when_the_client_disconnects_mid_message() {
    let dir = temp_dir("cut");
    let fixture = dir.join("cut.jsonl");
    let mut child = mcp_replay()
        .arg("record")
        .arg("-o")
        .arg(&fixture)
        .arg("--")
        .arg(demo_server())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{INITIALIZE}").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    write!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/ca"#).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let (_, err) = text(&output);
    assert!(
        err.contains("left out line") && err.contains("not a JSON-RPC message"),
        "{err}"
    );
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert_eq!(
        written.lines().count(),
        2,
        "initialize and its result are kept: {written}"
    );
}

#[test]
fn record_keeps_what_was_recorded_when_the_server_dies_mid_session() {
    let dir = temp_dir("dies");
    let fixture = dir.join("dies.jsonl");
    let script = r#"read line; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"0"}}}'; read line; kill -9 $$"#;
    let mut command = mcp_replay();
    command
        .arg("record")
        .arg("-o")
        .arg(&fixture)
        .args(["--", "sh", "-c", script]);
    let output = run_with_input(command, &[INITIALIZE, JOB]);
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            output.status.signal(),
            Some(9),
            "the server's signal is ours: {:?}",
            output.status
        );
    }
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert_eq!(written.lines().count(), 3, "{written}");
}

#[test]
fn record_timing_writes_when_each_message_crossed_and_serve_plays_it_back() {
    let dir = temp_dir("timing");
    let fixture = dir.join("job.jsonl");
    let timing = dir.join("job.timing.jsonl");
    let mut command = mcp_replay();
    command
        .arg("record")
        .arg("-o")
        .arg(&fixture)
        .arg("--timing")
        .arg(&timing)
        .arg("--")
        .arg(demo_server());
    let output = run_with_input(command, &[INITIALIZE, INITIALIZED, JOB]);
    assert!(output.status.success(), "{:?}", text(&output));
    let lines = std::fs::read_to_string(&fixture).unwrap().lines().count();
    let times: Vec<serde_json::Value> = std::fs::read_to_string(&timing)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(times.len(), lines, "one time per fixture line: {times:?}");
    let ms: Vec<f64> = times.iter().map(|t| t["ms"].as_f64().unwrap()).collect();
    assert!(ms.windows(2).all(|w| w[0] <= w[1]), "{ms:?}");
    // The fixture holds no time: it stays the same bytes from one recording to the next.
    assert!(!std::fs::read_to_string(&fixture)
        .unwrap()
        .contains("\"ms\""));

    // Played back: found beside the fixture by name, and the session is served whole.
    for mode in ["recorded", "scaled:0.5", "none"] {
        let mut serve = mcp_replay();
        serve.arg("serve").arg("--timing").arg(mode).arg(&fixture);
        let output = run_with_input(serve, &[INITIALIZE, INITIALIZED, JOB]);
        assert!(output.status.success(), "{mode}: {:?}", text(&output));
    }
    let mut bad = mcp_replay();
    bad.arg("serve").arg("--timing").arg("slow").arg(&fixture);
    let output = bad.output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output).1.contains("give `recorded`, `scaled:F`"),
        "{:?}",
        text(&output)
    );
}

/// The attribute's runtime and `mcp-replay replay --update`, started from another folder,
/// record the same client lines into byte-identical fixtures: the same header pins, the
/// same rules file beside the fixture, the same workspace root for `<WORKSPACE>`.
#[tokio::test]
async fn the_attribute_and_the_command_record_a_fixture_alike() {
    use mcp_replay::harness::{run_in, Spec};
    use mcp_replay::update::UpdateMode;
    let root = temp_dir("same-bytes");
    let krate = root.join("member");
    let fixtures = krate.join("tests/fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"member\"]\n",
    )
    .unwrap();
    std::fs::write(krate.join("Cargo.toml"), "[package]\nname = \"member\"\n").unwrap();
    std::fs::write(
        fixtures.join("mcp-replay.rules.json"),
        r#"{"regex":[{"selector":".result.content[].text","pattern":"^hi","with":"HELLO"}]}"#,
    )
    .unwrap();
    // A path the server echoes that only the workspace root normalizes.
    let data = krate.join("data.txt");
    let client = format!(
        "{{\"mcp_replay\":1,\"rules\":1,\"timeout\":\"5s\"}}\n\
         {{\"direction\":\"client->server\",\"message\":{{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"method\":\"tools/call\",\
         \"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"hi {}\"}}}}}}}}\n",
        data.display()
    );
    for name in ["by_attribute", "by_command"] {
        std::fs::write(fixtures.join(format!("{name}.jsonl")), &client).unwrap();
    }
    let manifest_dir: &'static str = Box::leak(krate.display().to_string().into_boxed_str());
    let spec = Spec {
        manifest_dir,
        dir: "tests/fixtures",
        name: "by_attribute",
        test_path: "member::by_attribute",
        timeout_ms: None,
        rules: None,
        protocol: None,
        mock_server: false,
        allow_stray_output: false,
    };
    let server = demo_server();
    run_in(spec, UpdateMode::Always, move |transport| async move {
        let mut command = tokio::process::Command::new(server);
        mcp_replay::process::serve_command(transport, &mut command).await
    })
    .await
    .unwrap();
    let elsewhere = temp_dir("same-bytes-cwd");
    let output = mcp_replay()
        .current_dir(&elsewhere)
        .args(["replay", "--update"])
        .arg(fixtures.join("by_command.jsonl"))
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(output.status.success(), "{:?}", text(&output));
    let by_attribute = std::fs::read_to_string(fixtures.join("by_attribute.jsonl")).unwrap();
    let by_command = std::fs::read_to_string(fixtures.join("by_command.jsonl")).unwrap();
    assert!(
        by_attribute.contains(r#""text":"HELLO <WORKSPACE>/member/data.txt""#),
        "{by_attribute}"
    );
    assert_eq!(by_attribute, by_command);
}

/// The command a report suggests on the line after `intro`, with its leading
/// `mcp-replay` replaced by the binary under test, as `sh -c` would run it pasted.
fn suggested(out: &str, intro: &str) -> String {
    let line = out
        .lines()
        .skip_while(|l| !l.contains(intro))
        .nth(1)
        .unwrap_or_else(|| panic!("no line after {intro:?}: {out}"))
        .trim();
    let rest = line
        .strip_prefix("mcp-replay ")
        .unwrap_or_else(|| panic!("not an mcp-replay command: {line}"));
    format!("'{}' {rest}", env!("CARGO_BIN_EXE_mcp-replay"))
}

fn sh(line: &str) -> Output {
    Command::new("sh").args(["-c", line]).output().unwrap()
}

#[test]
fn the_commands_a_failed_replay_suggests_run_as_shown_in_a_shell() {
    // A folder and a server command a shell would expand or split, unquoted.
    let dir = temp_dir("quote").join("my $HOME 'fixtures'");
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = dir.join("lookup.jsonl");
    let drifted = std::fs::read_to_string(demo_dir().join("fixtures/lookup_issue.jsonl"))
        .unwrap()
        .replace("Issue 42: example", "Issue 42: old text");
    std::fs::write(&fixture, &drifted).unwrap();
    let replay = |env: &[(&str, &str)]| {
        mcp_replay()
            .arg("replay")
            .arg(&fixture)
            .args(["--", "sh", "-c", "exec \"$0\""])
            .arg(demo_server())
            .envs(env.iter().copied())
            .output()
            .unwrap()
    };
    let failed = replay(&[]);
    let (out, err) = text(&failed);
    assert_eq!(failed.status.code(), Some(1), "{out}{err}");
    let rerecord = suggested(&out, "re-record the fixture:");
    assert!(rerecord.contains(" replay --update '"), "{rerecord}");
    assert!(rerecord.contains(" -- sh -c 'exec \"$0\"' /"), "{rerecord}");
    let ran = sh(&rerecord);
    assert!(ran.status.success(), "{rerecord}: {:?}", text(&ran));
    let recorded = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        recorded.contains("Issue 42: example") && !recorded.contains("old text"),
        "re-recorded: {recorded}"
    );

    // MCP_FIXTURE_UPDATE=new: the pending file, and the accept command that takes it.
    std::fs::write(&fixture, &drifted).unwrap();
    let pending = replay(&[("MCP_FIXTURE_UPDATE", "new")]);
    let (out, err) = text(&pending);
    assert_eq!(pending.status.code(), Some(1), "{out}{err}");
    let accept = suggested(&out, "then accept it with");
    assert!(accept.contains(" accept '"), "{accept}");
    assert!(accept.ends_with("lookup.jsonl.new'"), "{accept}");
    let ran = sh(&accept);
    assert!(ran.status.success(), "{accept}: {:?}", text(&ran));
    assert_eq!(
        std::fs::read_to_string(&fixture).unwrap(),
        recorded,
        "accepted"
    );
    assert!(!dir.join("lookup.jsonl.new").exists());
}

#[test]
fn replay_says_why_a_server_never_ran_or_ended_at_once_in_words() {
    let fixture = demo_dir().join("fixtures/lookup_issue.jsonl");
    // Never started: the command's error, as call and record say it; no report, no
    // re-record advice.
    let output = mcp_replay()
        .arg("replay")
        .arg(&fixture)
        .args(["--", "no-such-server-mcp-replay"])
        .output()
        .unwrap();
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{out}{err}");
    assert_eq!(out, "", "no report for a replay that never ran");
    assert_eq!(
        err.trim_end(),
        "mcp-replay: could not start the server `no-such-server-mcp-replay`: No such file or \
         directory (os error 2)"
    );
    // Started and exited at once: a server failure finding in the report's own words, not
    // a Debug dump of an io::Error.
    let output = mcp_replay()
        .arg("replay")
        .arg(&fixture)
        .args(["--", "sh", "-c", "exit 3"])
        .output()
        .unwrap();
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("; the server \"sh\" exited with status 3\n"),
        "{out}"
    );
    assert!(
        !out.contains("Custom {") && !out.contains("serve closure"),
        "{out}"
    );
}

/// `check ARGS` in `dir`: exit code and stdout.
fn check_in(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = mcp_replay()
        .current_dir(dir)
        .arg("check")
        .args(args)
        .output()
        .unwrap();
    (output.status.code(), text(&output).0)
}

#[test]
fn check_counts_each_finding_once_as_a_problem_or_a_warning() {
    let dir = temp_dir("check-counts");
    common::cargo_project(&dir, &[]);
    let good = std::fs::read_to_string(demo_dir().join("fixtures/lookup_issue.jsonl")).unwrap();
    std::fs::write(dir.join("one.jsonl"), &good).unwrap();
    std::fs::write(dir.join("two.jsonl"), &good).unwrap();
    std::fs::write(dir.join("one.jsonl.new"), &good).unwrap();
    std::fs::write(dir.join("broken.jsonl"), "{\"direction\":\n").unwrap();
    // Two problems (pending, invalid) and two unreferenced fixtures.
    let (code, out) = check_in(&dir, &["."]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.ends_with("3 fixtures checked: 2 problems, 2 warnings\n"),
        "{out}"
    );
    // --strict makes the unreferenced ones problems: no longer warnings as well.
    let (code, out) = check_in(&dir, &["--strict", "."]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.ends_with("3 fixtures checked: 4 problems, 0 warnings\n"),
        "{out}"
    );
    let json = mcp_replay()
        .current_dir(&dir)
        .args(["check", "--strict", "--format", "json", "."])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        (doc["problems"].as_u64(), doc["warnings"].as_u64()),
        (Some(4), Some(0))
    );
}

#[test]
fn check_and_replay_refuse_a_fixture_with_no_message() {
    let dir = temp_dir("empty");
    common::cargo_project(&dir, &["empty", "header"]);
    std::fs::write(dir.join("empty.jsonl"), "").unwrap();
    std::fs::write(dir.join("header.jsonl"), "{\"mcp_replay\":1}\n").unwrap();
    let (code, out) = check_in(&dir, &["."]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("./empty.jsonl: the fixture holds no message, so it pins nothing."),
        "{out}"
    );
    assert!(
        out.contains("./header.jsonl: the fixture holds no message"),
        "{out}"
    );
    assert!(
        out.ends_with("2 fixtures checked: 2 problems, 0 warnings\n"),
        "{out}"
    );
    for name in ["empty.jsonl", "header.jsonl"] {
        let output = mcp_replay()
            .current_dir(&dir)
            .args(["replay", name, "--"])
            .arg(demo_server())
            .output()
            .unwrap();
        let (out, err) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{out}{err}");
        assert!(
            out.contains(&format!(
                "{name}: the fixture holds no message, so it pins nothing."
            )),
            "{out}"
        );
        assert!(!out.contains(": ok ("), "{out}");
    }
}

#[test]
fn check_reports_a_file_named_twice_once() {
    let dir = temp_dir("check-twice");
    common::cargo_project(&dir, &["one"]);
    let good = std::fs::read_to_string(demo_dir().join("fixtures/lookup_issue.jsonl")).unwrap();
    std::fs::write(dir.join("one.jsonl"), &good).unwrap();
    std::fs::write(dir.join("one.jsonl.new"), &good).unwrap();
    for args in [
        &["one.jsonl.new", "."][..],
        &[".", "./one.jsonl.new", "one.jsonl.new"],
        &["one.jsonl", "./one.jsonl", "one.jsonl.new"],
    ] {
        let (code, out) = check_in(&dir, args);
        assert_eq!(code, Some(1), "{args:?}: {out}");
        assert_eq!(
            out.matches("pending re-recording").count(),
            1,
            "{args:?}: {out}"
        );
        assert!(
            out.ends_with("1 fixtures checked: 1 problems, 0 warnings\n"),
            "{args:?}: {out}"
        );
    }
}

#[test]
fn check_looks_for_unreferenced_fixtures_only_in_a_cargo_project() {
    let good = std::fs::read_to_string(demo_dir().join("fixtures/lookup_issue.jsonl")).unwrap();
    // Outside any Cargo project (the system's temporary folder): no test to search, so no
    // fixture is called unreferenced.
    let outside =
        std::env::temp_dir().join(format!("mcp-replay-check-outside-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    std::fs::create_dir_all(outside.join("fixtures")).unwrap();
    assert!(
        !outside.ancestors().any(|d| d.join("Cargo.toml").exists()),
        "{} is inside a Cargo project: the test needs a folder outside one",
        outside.display()
    );
    for name in ["a", "b", "c"] {
        std::fs::write(outside.join(format!("fixtures/{name}.jsonl")), &good).unwrap();
    }
    let (code, out) = check_in(&outside, &["--strict"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out, "3 fixtures checked: 0 problems, 0 warnings\n");
    // In a Cargo project, a fixture its sources do not name is.
    common::cargo_project(&outside, &["a", "fixtures/b"]);
    let (code, out) = check_in(&outside, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("fixtures/c.jsonl: unreferenced: no .rs file of the Cargo project"),
        "{out}"
    );
    assert!(
        !out.contains("a.jsonl") && !out.contains("b.jsonl"),
        "{out}"
    );
    assert!(
        out.ends_with("3 fixtures checked: 0 problems, 1 warnings\n"),
        "{out}"
    );
    std::fs::remove_dir_all(&outside).unwrap();
}

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("cli", name)
}
