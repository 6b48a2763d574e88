//! The `mcp-replay` command end to end, against the demo server as a child process. The
//! tests that need no server of ours are in mcp-replay-cli/tests/cli.rs.

mod command;

use command::cli::{check_in, run_with_input, INITIALIZE, JOB};
use command::{demo_server, mcp_replay, text, workspace};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[test]
fn replay_passes_the_bundled_fixtures_and_prints_the_summary() {
    let ws = workspace();
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

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

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
    use mcp_replay::_support::update::UpdateMode;
    use mcp_replay::harness::Test;
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
    let spec = Test::new(manifest_dir, "by_attribute", "member::by_attribute")
        .dir("tests/fixtures")
        .mode(UpdateMode::Always);
    let server = demo_server();
    spec.serve(move |transport| async move {
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
    format!("'{}' {rest}", command::MCP_REPLAY)
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
    let drifted = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl"))
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
    // The review command, pasted, finds the pending file (no terminal here: it lists it).
    let review = suggested(&out, "review it with");
    assert!(review.contains(" review '"), "{review}");
    let ran = sh(&review);
    assert_eq!(ran.status.code(), Some(1), "{review}: {:?}", text(&ran));
    assert!(
        text(&ran).0.contains("lookup.jsonl.new (fixture "),
        "{:?}",
        text(&ran)
    );
    let accept = suggested(&out, "or accept it with");
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
fn check_and_replay_refuse_a_fixture_with_no_message() {
    let dir = temp_dir("empty");
    command::cargo_project(&dir, &["empty", "header"]);
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

fn temp_dir(name: &str) -> PathBuf {
    command::temp_dir("cli", name)
}

/// `coverage` against the demo server: asked live over stdio and over Streamable HTTP,
/// or read from the fixtures alone; text, JSON, and `--fail-under`.
#[test]
fn coverage_shows_what_the_bundled_fixtures_exercise_of_the_demo_server() {
    let ws = workspace();
    let fixtures: Vec<String> = [
        "lookup_issue",
        "count_up_progress",
        "divide_by_zero",
        "job_status",
        "list_and_read",
        "handshake_and_tools_list",
    ]
    .iter()
    .map(|f| format!("fixtures/{f}.jsonl"))
    .collect();
    let coverage = |extra: &[&str], server: bool| {
        let mut command = mcp_replay();
        command
            .current_dir(&ws)
            .arg("coverage")
            .args(extra)
            .args(&fixtures);
        if server {
            command.arg("--").arg(demo_server());
        }
        command.output().unwrap()
    };
    let live = coverage(&[], true);
    let (out, err) = text(&live);
    assert!(live.status.success(), "{out}{err}");
    assert!(out.contains("tools: 4 of 5 called"), "{out}");
    let has = |out: &str, line: &str| {
        out.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == line)
    };
    assert!(has(&out, "echo never called"), "{out}");
    assert!(has(&out, "divide called once (1 with an error)"), "{out}");
    assert!(has(&out, "demo://tools never read"), "{out}");
    assert!(
        out.trim_end().ends_with("coverage: 71.4% (5 of 7 tools, prompts, resources and resource templates, in 6 fixtures)"),
        "{out}"
    );

    let json = coverage(&["--format", "json"], true);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["mcp_replay_coverage"], 1);
    assert_eq!(doc["percent"], 71.4);
    assert_eq!(doc["tools"][1]["name"], "divide");
    assert_eq!(doc["tools"][1]["errors"], 1);

    let strict = coverage(&["--fail-under", "80"], true);
    assert_eq!(strict.status.code(), Some(1), "{:?}", text(&strict));
    assert!(text(&strict).0.contains("below --fail-under 80%"));
    // The gate in SARIF: one mcp-replay/coverage error; none above the gate.
    let gate = coverage(&["--format", "sarif", "--fail-under", "80"], true);
    assert_eq!(gate.status.code(), Some(1));
    let log: serde_json::Value = serde_json::from_slice(&gate.stdout).unwrap();
    assert_eq!(
        log["runs"][0]["results"][0]["ruleId"], "mcp-replay/coverage",
        "{log}"
    );
    let passing = coverage(&["--format", "sarif", "--fail-under", "70"], true);
    let log: serde_json::Value = serde_json::from_slice(&passing.stdout).unwrap();
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]), "{log}");
    assert_eq!(
        coverage(&["--fail-under", "70"], true).status.code(),
        Some(0)
    );
    assert_eq!(
        coverage(&["--fail-under", "170"], true).status.code(),
        Some(2)
    );

    // Without a server: the surface the fixtures' own listings show (handshake_and_tools_list
    // lists the tools, list_and_read the resources).
    let offline = coverage(&[], false);
    let (out, _) = text(&offline);
    assert!(offline.status.success(), "{out}");
    assert!(out.contains("tools: 4 of 5 called"), "{out}");

    // Over Streamable HTTP, the same surface.
    let port = command::http::free_port();
    let mut server = Command::new(demo_server())
        .args(["http", &format!("127.0.0.1:{port}")])
        .stderr(Stdio::null())
        .spawn()
        .expect("demo-server runs");
    command::http::wait_for(port, &mut server);
    let over_http = coverage(&["--url", &command::http::url(port)], false);
    let _ = server.kill();
    let _ = server.wait();
    let (out, err) = text(&over_http);
    assert!(over_http.status.success(), "{out}{err}");
    assert!(out.contains("coverage: 71.4% (5 of 7"), "{out}");

    // A folder counts the fixtures below it, as `check` reads them: the bundled folder's
    // seven and the three of fixtures/tasks.
    let mut folder = mcp_replay();
    folder
        .current_dir(&ws)
        .args(["coverage", "fixtures", "--"])
        .arg(demo_server());
    let folder = folder.output().unwrap();
    let (out, err) = text(&folder);
    assert!(folder.status.success(), "{out}{err}");
    assert!(out.contains("in 10 fixtures)"), "{out}");
}
