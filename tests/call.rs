//! `mcp-replay call` end to end against the demo servers: the command acts as the client of
//! a server started as a child process, writes the fixture, and `mcp-replay replay` runs it
//! green against the same server and red against a changed one. The tests that need no
//! server of ours are in mcp-replay-cli/tests/call.rs.

mod command;

use command::call::{assert_ok, call, client_methods, lines, replay};
use command::{demo_server, mcp_replay, text};
use std::path::PathBuf;

/// The demo server's command line, with its mode (`protocol`, ...) if any.
fn demo(mode: &[&str]) -> Vec<String> {
    let mut argv = vec![demo_server().display().to_string()];
    argv.extend(mode.iter().map(|s| s.to_string()));
    argv
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
    // Each round's opaque state is a bound placeholder, the same in the retry.
    assert_eq!(
        written
            .matches(r#""requestState":"<REQUEST_STATE:1>""#)
            .count(),
        2,
        "{written}"
    );
    assert_eq!(
        written
            .matches(r#""requestState":"<REQUEST_STATE:2>""#)
            .count(),
        2,
        "{written}"
    );
    for _ in 0..3 {
        assert_ok(&replay(&asks, &[], &server));
    }
}

fn temp_dir(name: &str) -> PathBuf {
    command::temp_dir("call", name)
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

/// `call --task` makes a task fixture from a few words against rmcp's Tasks extension, in
/// both eras: the tool call, the polls until the task is done (the input it asks for
/// answered with `tasks/update`), the result inline; the fixture replays green 5 times.
#[test]
fn call_task_makes_a_task_fixture_that_replays_in_both_eras() {
    let server = demo(&["tasks"]);
    for protocol in [None, Some("2026-07-28")] {
        let dir = temp_dir(&format!("task-{}", protocol.unwrap_or("legacy")));
        let fixture = dir.join("research.jsonl");
        let mut args = vec![
            "--task",
            "--accept-elicitation",
            r#"{"meaning":"history"}"#,
            "--tool",
            "research",
            "topic=tides",
            "ask:=true",
        ];
        if let Some(p) = protocol {
            args.extend(["--protocol", p]);
        }
        let output = call(&fixture, &args, &server);
        assert_ok(&output);
        let (out, _) = text(&output);
        assert!(
            out.contains("report on tides (history): 3 stages done"),
            "{out}"
        );
        let methods = client_methods(&fixture);
        assert!(methods.contains(&"tasks/get".to_owned()), "{methods:?}");
        assert!(methods.contains(&"tasks/update".to_owned()), "{methods:?}");
        let written = std::fs::read_to_string(&fixture).unwrap();
        assert!(written.contains("\"taskId\":\"<TASK_ID:1>\""), "{written}");
        for _ in 0..5 {
            let green = replay(&fixture, &[], &server);
            assert_ok(&green);
        }
    }
}
