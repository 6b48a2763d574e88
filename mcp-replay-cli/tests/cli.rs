//! The `mcp-replay` command end to end: what needs no server of ours (`check`, `import`,
//! `serve`, help and completions, servers that fail). The replays and recordings against the
//! demo server are in the root's tests/cli.rs.

mod common;

use common::cli::{check_in, run_with_input, INITIALIZE, JOB};
use common::{mcp_replay, text, workspace};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

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
    let fixture = workspace().join("fixtures/lookup_issue.jsonl");
    let call = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}"#;
    let mut ok = mcp_replay();
    ok.arg("serve").arg(&fixture);
    let output = run_with_input(ok, &[call]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert_eq!(
        out.trim(),
        r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"text":"Issue 42: example","type":"text"}]}}"#
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

/// The create-then-read fixture re-recorded before client-first binding (issue 48's first
/// case): the read sends `<MINTED:1>`, which no server line holds, so a replay sends it as
/// written; and a read before any request. `check` reports both, by line, and passes the
/// client lines alone, which a recording binds.
#[test]
fn check_reports_a_client_placeholder_nothing_before_it_binds() {
    let dir = temp_dir("check-unbindable");
    let create = r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"create_item","arguments":{"name":"bolt"}}}}"#;
    let created = r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"created <MINTED:2>"}]}}}"#;
    let read = r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"get_item","arguments":{"id":"<MINTED:1>"}}}}"#;
    let refused = r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"no item <MINTED:1>"}],"isError":true}}}"#;
    std::fs::write(
        dir.join("sent_as_written.jsonl"),
        [create, created, read, refused].join("\n"),
    )
    .unwrap();
    std::fs::write(dir.join("read_first.jsonl"), [read, create].join("\n")).unwrap();
    std::fs::write(dir.join("client_lines.jsonl"), [create, read].join("\n")).unwrap();
    let output = mcp_replay().arg("check").arg(&dir).output().unwrap();
    let (out, _) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.contains("sent_as_written.jsonl:3: unbindable: line 3 sends <MINTED:1>, but no server line before it holds it"),
        "{out}"
    );
    assert!(
        out.contains("read_first.jsonl:1: unbindable: line 1 sends <MINTED:1>, but no server line and no request come before it"),
        "{out}"
    );
    assert!(!out.contains("client_lines.jsonl:"), "{out}");
    assert!(out.contains("3 fixtures checked: 2 problems"), "{out}");
}

/// What the server sends is checked against the protocol's types: server-filesystem
/// 2025.8.21 advertised `inputSchema: {}` (no `"type": "object"`), which the specification's
/// schema rejects. A problem by default, naming file, line, path and rule; a warning with
/// `--protocol-warnings`.
#[test]
fn check_finds_a_server_message_that_is_not_valid_mcp() {
    let dir = temp_dir("check-protocol");
    let fixture = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"name":"read_file","inputSchema":{"type":"object"}},{"name":"list_allowed_directories","inputSchema":{}}]}}}"#,
        "\n",
    );
    std::fs::write(dir.join("filesystem.jsonl"), fixture).unwrap();
    let run = |flags: &[&str]| {
        mcp_replay()
            .arg("check")
            .args(flags)
            .arg(dir.join("filesystem.jsonl"))
            .output()
            .unwrap()
    };
    let output = run(&[]);
    let (out, _) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.contains(
            "filesystem.jsonl:2: protocol: `.result.tools[1].inputSchema.type` is required"
        ),
        "{out}"
    );
    assert!(
        out.contains("1 fixtures checked: 1 problems, 0 warnings"),
        "{out}"
    );
    let lenient = run(&["--protocol-warnings"]);
    let (out, _) = text(&lenient);
    assert_eq!(lenient.status.code(), Some(0), "{out}");
    assert!(
        out.contains("1 fixtures checked: 0 problems, 1 warnings"),
        "{out}"
    );
}

#[test]
fn check_names_every_problem_and_accept_reject_handle_pending_files() {
    let dir = temp_dir("check");
    common::cargo_project(&dir, &[]);
    let good = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
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
        e.contains("`mcp-replay check` does not take --output; its options are: --unreferenced, --strict, --protocol-warnings, --deny-values, --format, --junit"),
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
fn replay_says_why_a_server_never_ran_or_ended_at_once_in_words() {
    let fixture = workspace().join("fixtures/lookup_issue.jsonl");
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

#[test]
fn check_counts_each_finding_once_as_a_problem_or_a_warning() {
    let dir = temp_dir("check-counts");
    common::cargo_project(&dir, &[]);
    let good = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
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
fn check_unreferenced_warns_rejects_or_deletes_and_deletes_nothing_a_test_names() {
    let dir = temp_dir("check-unreferenced");
    common::cargo_project(&dir, &["named"]);
    let good = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
    for name in ["named.jsonl", "gone.jsonl", "gone.jsonl.new", "also.jsonl"] {
        std::fs::write(dir.join(name), &good).unwrap();
    }
    let (code, out) = check_in(&dir, &["--unreferenced=warn", "."]);
    assert_eq!(code, Some(1), "the pending file is a problem: {out}");
    assert!(
        out.ends_with("3 fixtures checked: 1 problems, 2 warnings\n"),
        "{out}"
    );
    let (code, out) = check_in(&dir, &["--unreferenced", "reject", "."]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.ends_with("3 fixtures checked: 3 problems, 0 warnings\n"),
        "{out}"
    );
    let (code, _) = check_in(&dir, &["--strict", "--unreferenced=warn", "."]);
    assert_eq!(code, Some(2), "the two ways of saying it conflict");

    let (code, out) = check_in(&dir, &["--unreferenced=delete", "."]);
    assert_eq!(code, Some(0), "what was deleted is no problem: {out}");
    assert!(
        out.contains("./also.jsonl: deleted: no .rs file of its Cargo project names it"),
        "{out}"
    );
    assert!(out.contains("./gone.jsonl: deleted:"), "{out}");
    assert!(
        !out.contains("pending re-recording"),
        "its pending file went with it: {out}"
    );
    assert!(
        out.ends_with("3 fixtures checked: 0 problems, 0 warnings, 2 deleted\n"),
        "{out}"
    );
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".jsonl"))
        .collect();
    assert_eq!(left, ["named.jsonl"]);
}

#[test]
fn check_reports_a_file_named_twice_once() {
    let dir = temp_dir("check-twice");
    common::cargo_project(&dir, &["one"]);
    let good = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
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
    let good = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
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
