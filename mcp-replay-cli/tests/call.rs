//! `mcp-replay call` end to end: the command acts as the client of a server started as a
//! child process (the demo servers, and the Node and Python peers when installed), writes
//! the fixture, and `mcp-replay replay` runs it green against the same server and red
//! against a changed one.

mod common;

use common::{demo_server, mcp_replay, peer, text};

use std::path::{Path, PathBuf};
use std::process::Output;

/// The demo server's command line, with its mode (`protocol`, ...) if any.
fn demo(mode: &[&str]) -> Vec<String> {
    let mut argv = vec![demo_server().display().to_string()];
    argv.extend(mode.iter().map(|s| s.to_string()));
    argv
}

/// `mcp-replay call -o FIXTURE ARGS... -- SERVER...`.
fn call(fixture: &Path, args: &[&str], server: &[String]) -> Output {
    mcp_replay()
        .arg("call")
        .arg("-o")
        .arg(fixture)
        .args(args)
        .arg("--")
        .args(server)
        .output()
        .unwrap()
}

/// `mcp-replay replay ARGS... FIXTURE -- SERVER...`.
fn replay(fixture: &Path, args: &[&str], server: &[String]) -> Output {
    mcp_replay()
        .arg("replay")
        .args(args)
        .arg(fixture)
        .arg("--")
        .args(server)
        .output()
        .unwrap()
}

/// Asserts that `output` exited 0, with its output in the message.
fn assert_ok(output: &Output) {
    let (out, err) = text(output);
    assert!(output.status.success(), "{out}{err}");
}

/// The (direction, method or "response") of each line of the fixture, header left out.
fn lines(fixture: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(fixture)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("direction").is_some())
        .collect()
}

/// The methods of the client's requests and notifications, in fixture order.
fn client_methods(fixture: &Path) -> Vec<String> {
    lines(fixture)
        .iter()
        .filter(|v| v["direction"] == "client->server")
        .filter_map(|v| v["message"]["method"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_fixture_from_a_few_words_replays_green_and_red_against_a_changed_echo() {
    let dir = temp_dir("demo");
    let fixture = dir.join("f.jsonl");
    let server = demo(&[]);
    let output = call(
        &fixture,
        &["--list-tools", "--tool", "echo", "text=hi"],
        &server,
    );
    assert_ok(&output);
    let (out, err) = text(&output);
    // One pretty JSON block per step, in order: the tool list, then the echo.
    let (list, echo) = out.split_once("\n\n").unwrap();
    assert!(list.contains("\"lookup_issue\""), "{out}");
    assert!(echo.contains("\"text\": \"hi\""), "{out}");
    assert!(err.contains("wrote"), "{err}");
    assert_eq!(
        client_methods(&fixture),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written.contains("\"clientInfo\":\"<CLIENT_INFO>\""),
        "{written}"
    );

    for _ in 0..2 {
        let green = replay(&fixture, &[], &server);
        assert_ok(&green);
        assert!(text(&green).0.contains("1 passed, 0 failed"));
    }

    // The same server, but its echo answers in capitals: exactly one result finding.
    #[cfg(unix)]
    {
        let changed: Vec<String> = [
            "sh",
            "-c",
            r#"exec "$0" | sed -u 's/"text":"hi"/"text":"HI"/'"#,
            &server[0],
        ]
        .map(String::from)
        .to_vec();
        let red = replay(&fixture, &["--timeout", "2s"], &changed);
        let (out, _) = text(&red);
        assert_eq!(red.status.code(), Some(1), "{out}");
        assert!(out.contains("1 mismatch (1 result)"), "{out}");
        assert!(out.contains("the response to `tools/call echo`"), "{out}");
    }
}

#[test]
fn typed_pairs_json_args_and_the_order_of_the_command_line_are_kept() {
    let dir = temp_dir("order");
    let fixture = dir.join("order.jsonl");
    let server = demo(&[]);
    let output = call(
        &fixture,
        &[
            "--tool",
            "divide",
            "a:=6",
            "b:=3",
            "--list-tools",
            "--tool",
            "echo",
            "--args",
            r#"{"text": "from --args"}"#,
            "--tool",
            "lookup_issue",
            "owner=demo",
            "repo=sample",
            "number:=7",
        ],
        &server,
    );
    assert_ok(&output);
    let requests: Vec<serde_json::Value> = lines(&fixture)
        .into_iter()
        .filter(|v| v["direction"] == "client->server" && v["message"]["id"].is_string())
        .map(|v| v["message"].clone())
        .collect();
    let methods: Vec<&str> = requests
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "tools/call",
            "tools/list",
            "tools/call",
            "tools/call"
        ]
    );
    assert_eq!(
        requests[1]["params"],
        serde_json::json!({"name": "divide", "arguments": {"a": 6, "b": 3}})
    );
    assert_eq!(
        requests[3]["params"]["arguments"],
        serde_json::json!({"text": "from --args"})
    );
    assert_eq!(
        requests[4]["params"]["arguments"],
        serde_json::json!({"owner": "demo", "repo": "sample", "number": 7})
    );
    let (out, _) = text(&output);
    let blocks: Vec<&str> = out.trim_end().split("\n\n").collect();
    assert_eq!(blocks.len(), 4, "{out}");
    assert!(blocks[0].contains("\"text\": \"2\""), "{out}");
    assert!(blocks[2].contains("from --args"), "{out}");
    assert_ok(&replay(&fixture, &[], &server));
}

#[test]
fn an_argument_before_any_tool_is_a_usage_error_and_nothing_is_written() {
    let dir = temp_dir("usage");
    let fixture = dir.join("never.jsonl");
    let server = demo(&[]);
    for (args, says) in [
        (
            &["text=hi", "--tool", "echo"][..],
            "before any --tool or --prompt",
        ),
        (&["--list-tools", "text=hi"][..], "takes no arguments"),
        (&["--tool", "echo", "n:=nope"][..], "is not JSON"),
        (&["--tool", "echo", "--args", "[1]"][..], "a JSON object"),
        (&[][..], "no step to run"),
    ] {
        let output = call(&fixture, args, &server);
        let (_, err) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A server that cannot start is exit 2 as well.
    let output = call(&fixture, &["--list-tools"], &["/no/such/server".into()]);
    let (_, err) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("could not start the server"), "{err}");
    assert!(!fixture.exists());
}

#[test]
fn a_json_rpc_error_is_written_and_pinned_but_exits_1() {
    let dir = temp_dir("error");
    let fixture = dir.join("unknown.jsonl");
    let server = demo(&[]);
    let output = call(
        &fixture,
        &["--tool", "no_such_tool", "--tool", "echo", "text=still"],
        &server,
    );
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains("step 1 (`tools/call no_such_tool`) got a JSON-RPC error"),
        "{err}"
    );
    assert!(err.contains("is written"), "{err}");
    // The later step still ran.
    assert!(out.contains("\"error\""), "{out}");
    assert!(out.contains("still"), "{out}");
    assert_ok(&replay(&fixture, &[], &server));
}

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
fn server_requests_get_a_cautious_clients_answers_and_the_flags_change_them() {
    let dir = temp_dir("asks");
    let server = demo(&["protocol"]);
    let cautious = dir.join("cautious.jsonl");
    let steps = [
        "--tool",
        "ask_name",
        "--tool",
        "summarize",
        "text=abc",
        "--tool",
        "list_roots",
        "--tool",
        "ping_client",
    ];
    let output = call(&cautious, &steps, &server);
    assert_ok(&output);
    let (out, _) = text(&output);
    assert!(out.contains("Hello, stranger"), "{out}");
    assert!(out.contains("refused the sampling request"), "{out}");
    assert!(out.contains("no roots"), "{out}");
    assert!(out.contains("pong received"), "{out}");
    let written = std::fs::read_to_string(&cautious).unwrap();
    assert!(written.contains(r#""capabilities":{}"#), "{written}");
    assert_ok(&replay(&cautious, &[], &server));

    let willing = dir.join("willing.jsonl");
    let mut flags = steps.to_vec();
    flags.extend([
        "--accept-elicitation",
        r#"{"name": "Ada"}"#,
        "--sampling-reply",
        "short",
        "--root",
        "file:///work",
    ]);
    let output = call(&willing, &flags, &server);
    assert_ok(&output);
    let (out, _) = text(&output);
    assert!(out.contains("Hello, Ada"), "{out}");
    assert!(out.contains("summary: short"), "{out}");
    assert!(out.contains("file:///work"), "{out}");
    assert_ok(&replay(&willing, &[], &server));
}

#[test]
fn a_client_only_fixture_rerecords_with_replay_update_then_passes() {
    let dir = temp_dir("client-only");
    for (name, server, args) in [
        (
            "demo",
            demo(&[]),
            &["--list-tools", "--tool", "echo", "text=hi"][..],
        ),
        (
            "asks",
            demo(&["protocol"]),
            &[
                "--tool",
                "list_roots",
                "--root",
                "file:///r",
                "--tool",
                "ask_name",
            ][..],
        ),
        (
            "modern",
            demo(&[]),
            &["--protocol", "2026-07-28", "--tool", "echo", "text=hi"][..],
        ),
    ] {
        let fixture = dir.join(format!("{name}.jsonl"));
        let mut args = args.to_vec();
        args.push("--client-only");
        let output = call(&fixture, &args, &server);
        assert_ok(&output);
        let before = lines(&fixture);
        // Only client lines, and the server requests they answer, by method alone.
        assert!(
            before.iter().all(|v| v["direction"] == "client->server"
                || (v["message"]["method"].is_string() && v["message"].get("params").is_none())),
            "{name}: {before:?}"
        );
        // No handshake: the harness does its own, so the fixture replays in either era.
        assert!(!client_methods(&fixture).contains(&"initialize".to_owned()));

        let update = replay(&fixture, &["--update"], &server);
        assert_ok(&update);
        assert!(text(&update).0.contains("re-recorded"), "{name}");
        let after = lines(&fixture);
        assert!(
            after.iter().any(|v| v["direction"] == "server->client"
                && v["message"].get("result").is_some()),
            "{name}: the server's answers were recorded: {after:?}"
        );
        let green = replay(&fixture, &[], &server);
        assert_ok(&green);
        assert!(text(&green).0.contains(": ok ("), "{name}");
    }
}

#[test]
fn client_only_without_a_server_writes_the_steps_and_they_rerecord_green() {
    let dir = temp_dir("no-server");
    for (name, extra) in [
        ("legacy", &[][..]),
        ("modern", &["--protocol", "2026-07-28"][..]),
    ] {
        let fixture = dir.join(format!("{name}.jsonl"));
        let output = mcp_replay()
            .args(["call", "-o"])
            .arg(&fixture)
            .args(["--client-only", "--list-tools", "--tool", "echo", "text=hi"])
            .args(extra)
            .output()
            .unwrap();
        assert_ok(&output);
        assert!(
            text(&output).1.contains("no server run"),
            "{:?}",
            text(&output)
        );
        let methods = client_methods(&fixture);
        let mut expected = vec!["tools/list".to_owned(), "tools/call".to_owned()];
        if name == "modern" {
            expected.insert(0, "server/discover".to_owned());
        }
        assert_eq!(methods, expected, "{name}");
        assert_ok(&replay(&fixture, &["--update"], &demo(&[])));
        let green = replay(&fixture, &[], &demo(&[]));
        assert_ok(&green);
        assert!(text(&green).0.contains(": ok ("), "{name}");
    }
    // Without --client-only the server is required.
    let no_server = mcp_replay()
        .args(["call", "-o"])
        .arg(dir.join("x.jsonl"))
        .args(["--tool", "echo"])
        .output()
        .unwrap();
    assert_eq!(no_server.status.code(), Some(2));
    assert!(
        text(&no_server).1.contains("<SERVER COMMAND>"),
        "{:?}",
        text(&no_server)
    );
    assert!(!dir.join("x.jsonl").exists());
}

#[test]
fn the_stateless_era_writes_a_fixture_that_replays_in_that_era() {
    let dir = temp_dir("modern");
    let fixture = dir.join("modern.jsonl");
    let server = demo(&[]);
    let output = call(
        &fixture,
        &["--protocol", "2026-07-28", "--tool", "echo", "text=hi"],
        &server,
    );
    assert_ok(&output);
    let written = std::fs::read_to_string(&fixture).unwrap();
    let header = written.lines().next().unwrap();
    assert_eq!(header, r#"{"mcp_replay":1,"protocol":"2026-07-28"}"#);
    assert_eq!(client_methods(&fixture), ["server/discover", "tools/call"]);
    // The identity the harness adds back is not in the file.
    assert!(
        !written.contains("io.modelcontextprotocol/clientInfo"),
        "{written}"
    );
    assert_ok(&replay(&fixture, &[], &server));
    assert_ok(&replay(&fixture, &["--protocol", "2026-07-28"], &server));

    // input_required: answered from the flags and retried with inputResponses.
    let asks = dir.join("asks.jsonl");
    let server = demo(&["protocol"]);
    let output = call(
        &asks,
        &[
            "--protocol",
            "2026-07-28",
            "--tool",
            "ask_name",
            "--accept-elicitation",
            r#"{"name": "Ada"}"#,
            "--tool",
            "list_roots",
        ],
        &server,
    );
    assert_ok(&output);
    let (out, _) = text(&output);
    assert!(out.contains("Hello, Ada"), "{out}");
    assert!(out.contains("no roots"), "{out}");
    let written = std::fs::read_to_string(&asks).unwrap();
    assert!(
        written.contains(r#""requestState":"<REQUEST_STATE>""#),
        "{written}"
    );
    assert_ok(&replay(&asks, &[], &server));
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

/// `--client-only` writes what an in-process fixture needs without hand-editing: a log
/// level, the resource templates, and a tool call that asks for progress; re-recorded
/// against the demo server, the progress stream is pinned and replays green.
#[test]
fn client_only_asks_for_progress_a_log_level_and_resource_templates() {
    let dir = temp_dir("client-only-progress");
    let fixture = dir.join("progress.jsonl");
    let output = mcp_replay()
        .args(["call", "-o"])
        .arg(&fixture)
        .args([
            "--client-only",
            "--log-level",
            "debug",
            "--list-resource-templates",
            "--tool",
            "count_up",
            "to:=3",
            "--progress",
        ])
        .output()
        .unwrap();
    assert_ok(&output);
    assert!(
        text(&output).1.contains("(3 client messages,"),
        "{:?}",
        text(&output)
    );
    assert_eq!(
        client_methods(&fixture),
        ["logging/setLevel", "resources/templates/list", "tools/call"]
    );
    assert_ok(&replay(&fixture, &["--update"], &demo(&[])));
    let progress = lines(&fixture)
        .iter()
        .filter(|v| v["message"]["method"] == "notifications/progress")
        .count();
    assert_eq!(
        progress,
        3,
        "{}",
        std::fs::read_to_string(&fixture).unwrap()
    );
    assert_ok(&replay(&fixture, &[], &demo(&[])));
}
