//! `mcp-replay call` end to end: the command acts as the client of a server started as a
//! child process (servers that fail, and the Node and Python peers), writes the fixture,
//! and `mcp-replay replay` runs it green against the same server. The tests against the
//! demo servers are in the root's tests/call.rs.

mod common;

use common::call::{assert_ok, call, client_methods, replay};
use common::{mcp_replay, peer, text};
use std::path::PathBuf;

#[cfg(unix)]
#[test]
fn a_server_that_exits_or_stays_silent_writes_nothing_and_exits_1() {
    let dir = temp_dir("early");
    let fixture = dir.join("early.jsonl");
    let output = call(&fixture, &["--list-tools"], &["true".into()]);
    let (_, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    // Whether it exited before or after `initialize` was written: the same story.
    assert!(err.contains("before answering `initialize`"), "{err}");
    assert!(err.contains("not written"), "{err}");

    let output = call(
        &fixture,
        &["--timeout", "300ms", "--list-tools"],
        &["sleep".into(), "30".into()],
    );
    let (_, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no answer to `initialize` within 300 ms"),
        "{err}"
    );
    assert!(!fixture.exists());
}

#[test]
fn server_everything_echo_replays_green() {
    let server = peer("everything");
    let dir = temp_dir("everything");
    let fixture = dir.join("echo.jsonl");
    let output = call(&fixture, &["--tool", "echo", "message=hello"], &server);
    assert_ok(&output);
    assert!(text(&output).0.contains("Echo: hello"));
    assert_ok(&replay(&fixture, &[], &server));
}

#[test]
fn the_python_sdk_server_replays_green() {
    let server = peer("python-tour");
    let dir = temp_dir("python");
    let fixture = dir.join("tour.jsonl");
    let output = call(
        &fixture,
        &[
            "--list-tools",
            "--tool",
            "echo",
            "text=hi",
            "--resource",
            "tour://readme",
            "--prompt",
            "greet",
            "name=Ada",
        ],
        &server,
    );
    assert_ok(&output);
    let (out, _) = text(&output);
    assert!(out.contains("Please greet Ada."), "{out}");
    assert_eq!(
        client_methods(&fixture)[2..],
        ["tools/list", "tools/call", "resources/read", "prompts/get"]
    );
    assert_ok(&replay(&fixture, &[], &server));
}

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("call", name)
}

/// A stdio server (python3, no packages) whose one tool reads the file at `path`: the
/// server sees which path the client really sent.
const READ_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "read", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "read", "inputSchema": {"type": "object",
             "properties": {"path": {"type": "string"}}}}]}
    else:
        path = m["params"]["arguments"]["path"]
        try:
            r = {"content": [{"type": "text", "text": open(path).read()}]}
        except OSError:
            r = {"content": [{"type": "text", "text": "cannot read " + path}], "isError": True}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#;

/// Outside a Cargo project, `<WORKSPACE>` is the nearest folder above the fixture holding
/// `.git` (else the fixture's folder), not the current folder: recorded in the project,
/// the fixture replays green from two other folders, and the trace shows the path sent.
#[test]
fn a_path_recorded_outside_a_cargo_project_replays_from_any_folder() {
    let base = std::env::temp_dir().join(format!("mcp-replay-ws-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let project = base.join("project");
    let elsewhere = base.join("elsewhere");
    for dir in [
        project.join(".git"),
        project.join("fixtures"),
        elsewhere.clone(),
    ] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(project.join("notes.txt"), "kept in the project").unwrap();
    let server = ["python3".to_owned(), "-c".into(), READ_SERVER.into()];
    let fixture = project.join("fixtures/read.jsonl");
    let path = format!("path={}", project.join("notes.txt").display());
    let output = mcp_replay()
        .current_dir(&project)
        .args(["call", "-o"])
        .arg(&fixture)
        .args(["--tool", "read", &path, "--"])
        .args(&server)
        .output()
        .unwrap();
    assert_ok(&output);
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written.contains(r#""path":"<WORKSPACE>/notes.txt""#),
        "{written}"
    );
    for cwd in [&elsewhere, &std::path::PathBuf::from("/")] {
        let output = mcp_replay()
            .current_dir(cwd)
            .args(["replay", "--trace"])
            .arg(&fixture)
            .arg("--")
            .args(&server)
            .output()
            .unwrap();
        let (out, err) = text(&output);
        assert!(
            output.status.success(),
            "from {}: {out}{err}",
            cwd.display()
        );
        assert!(
            err.contains(&format!("<WORKSPACE> = {}", project.display())),
            "the trace names the path sent: {err}"
        );
    }
    // A failing report says what the placeholder stood for.
    std::fs::remove_file(project.join("notes.txt")).unwrap();
    let output = mcp_replay()
        .current_dir(&elsewhere)
        .arg("replay")
        .arg(&fixture)
        .arg("--")
        .args(&server)
        .output()
        .unwrap();
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains(&format!(
            "<WORKSPACE> in the client messages was sent as {}",
            project.display()
        )),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&base);
}
