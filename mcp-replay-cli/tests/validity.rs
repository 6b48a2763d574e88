//! Protocol validity against a real server that is not valid MCP: server-filesystem
//! 2025.8.21 advertises its tools with an `inputSchema` that has no `"type"` (the
//! specification's schema requires `"type": "object"`). `call` warns when it records that,
//! `check` names it, a replay fails on it as a `protocol` finding and not as drift, and
//! `--protocol-warnings` (or the header's `"protocol_check": "warn"`) lets it pass with a
//! warning.

mod common;

use common::text;
use std::path::Path;
use std::process::{Command, Output};

fn mcp_replay(args: &[&str], fixture: &Path, server: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-replay"))
        .args(args)
        .arg(fixture)
        .arg("--")
        .args(server)
        .output()
        .unwrap()
}

const VIOLATION: &str = "`.result.tools[0].inputSchema.type` is required";

#[test]
fn a_real_server_that_is_not_valid_mcp_is_warned_of_checked_and_failed_as_protocol() {
    let dir = common::temp_dir("validity", "filesystem");
    let served = dir.join("served");
    std::fs::create_dir_all(&served).unwrap();
    std::fs::write(served.join("notes.txt"), "hello\n").unwrap();
    let server = mcp_replay_peers::filesystem(&served);
    let fixture = dir.join("tools.jsonl");

    let called = mcp_replay(&["call", "--list-tools", "-o"], &fixture, &server);
    let (_, err) = text(&called);
    assert!(called.status.success(), "{err}");
    assert!(
        err.contains(&format!("tools.jsonl:5: protocol: {VIOLATION}")),
        "{err}"
    );
    assert!(err.contains("1 server message is not valid MCP"), "{err}");

    let checked = Command::new(env!("CARGO_BIN_EXE_mcp-replay"))
        .arg("check")
        .arg(&fixture)
        .output()
        .unwrap();
    let (out, _) = text(&checked);
    assert_eq!(checked.status.code(), Some(1), "{out}");
    assert!(
        out.contains(&format!("tools.jsonl:5: protocol: {VIOLATION}")),
        "{out}"
    );

    // The mock says so before it serves the recording.
    let served = Command::new(env!("CARGO_BIN_EXE_mcp-replay"))
        .arg("serve")
        .arg(&fixture)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let (_, err) = text(&served);
    assert!(
        err.contains(&format!(
            "mcp-replay serve: warning: {}:5: protocol: {VIOLATION}",
            fixture.display()
        )),
        "{err}"
    );

    // The server answers as recorded: the one finding is the protocol's, not drift.
    let replayed = mcp_replay(&["replay"], &fixture, &server);
    let (out, err) = text(&replayed);
    assert_eq!(replayed.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("1 mismatch (1 protocol)"), "{out}");
    assert!(
        out.contains(&format!(
            "the response to `tools/list` (line 4) is not valid MCP: {VIOLATION}"
        )),
        "{out}"
    );

    let lenient = mcp_replay(&["replay", "--protocol-warnings"], &fixture, &server);
    let (out, err) = text(&lenient);
    assert_eq!(lenient.status.code(), Some(0), "{out}{err}");
    assert!(out.contains(&format!("warning: protocol: the response to `tools/list` (line 4) is not valid MCP: {VIOLATION}")), "{out}");

    // The header key says the same for every run of the fixture.
    let original = std::fs::read_to_string(&fixture).unwrap();
    let body = match original.split_once('\n') {
        Some((first, rest)) if first.contains("\"mcp_replay\"") => rest.to_owned(),
        _ => original.clone(),
    };
    std::fs::write(
        &fixture,
        format!("{{\"mcp_replay\":1,\"protocol_check\":\"warn\"}}\n{body}"),
    )
    .unwrap();
    let by_header = mcp_replay(&["replay"], &fixture, &server);
    let (out, err) = text(&by_header);
    assert_eq!(by_header.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("warning: protocol:"), "{out}");
}
