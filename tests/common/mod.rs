//! Test servers with exact control over every line they write.
#![allow(dead_code)]

use mcp_replay::{Fixture, MismatchKind, Report, Transport};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Serves `transport` by hand: answers `initialize` like a legacy server, ignores
/// notifications, and writes the lines `script` returns for every other request.
pub async fn scripted(transport: Transport, script: impl Fn(&Value) -> Vec<String>) {
    scripted_inner(transport, script, false).await
}

async fn scripted_inner(transport: Transport, script: impl Fn(&Value) -> Vec<String>, all: bool) {
    let (read, mut write) = tokio::io::split(transport);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("the harness writes JSON");
        let replies = match message["method"].as_str() {
            Some("initialize") => vec![json!({
                "jsonrpc": "2.0",
                "id": message["id"],
                "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "scripted", "version": "0"}}
            })
            .to_string()],
            Some(_) if message.get("id").is_none() && !all => vec![],
            _ => script(&message),
        };
        let mut out = String::new();
        for reply in replies {
            out.push_str(&reply);
            out.push('\n');
        }
        if write.write_all(out.as_bytes()).await.is_err() {
            return;
        }
        let _ = write.flush().await;
    }
}

/// Like [`scripted`], but `script` also sees notifications and responses (everything but
/// `initialize`).
pub async fn scripted_all(transport: Transport, script: impl Fn(&Value) -> Vec<String>) {
    scripted_inner(transport, script, true).await
}

/// A JSON-RPC notification line.
pub fn notification(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// A JSON-RPC result line answering `request`.
pub fn result(request: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string()
}

/// Builds fixture text from (direction, message) pairs.
pub fn fixture(lines: &[(&str, Value)]) -> Fixture {
    let text: String = lines
        .iter()
        .map(|(direction, message)| {
            format!("{}\n", json!({"direction": direction, "message": message}))
        })
        .collect();
    Fixture::parse(&text).expect("test fixture is valid")
}

/// The kinds of a report's findings, in order.
pub fn kinds(report: &Report) -> Vec<MismatchKind> {
    report.mismatches().iter().map(|m| m.kind()).collect()
}

/// The command that starts an external peer server installed by `peers/install.sh`, or
/// `None` (with a notice) when the peers are not installed. Under CI a missing peer is an
/// error, so the suite never passes by skipping.
pub fn peer_server(which: &str) -> Option<tokio::process::Command> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("peers");
    let (program, args): (std::path::PathBuf, Vec<std::path::PathBuf>) = match which {
        "everything" => (
            "node".into(),
            vec![
                root.join(
                    "node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
                ),
                "stdio".into(),
            ],
        ),
        "python" => (
            root.join("python/.venv/bin/python"),
            vec![root.join("python/server.py")],
        ),
        "tour" => (
            root.join("python/.venv/bin/python"),
            vec![root.join("python/tour_server.py")],
        ),
        "python-changed" => (
            root.join("python/.venv/bin/python"),
            vec![
                root.join("python/server.py"),
                "--variant".into(),
                "changed".into(),
            ],
        ),
        other => panic!("unknown peer {other}"),
    };
    let installed = if program.is_absolute() {
        program.exists()
    } else {
        args[0].exists()
    };
    if !installed {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
        assert!(
            !ci,
            "the {which} peer is not installed: CI must run `bash peers/install.sh` first"
        );
        eprintln!("SKIPPED: the {which} peer is not installed; run `bash peers/install.sh`");
        return None;
    }
    let mut command = tokio::process::Command::new(program);
    command.args(args);
    Some(command)
}
