//! `harness::Files` (feature `files`): the crate's own example fixture folder as one test
//! per file against the tiny in-process server of the crate's tests. Run with
//! `cargo test -p mcp-replay --features files --test files`; `tests/files_runner.rs` in
//! the workspace checks what it lists and runs.

use mcp_replay::harness::Files;
use mcp_replay::Transport;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Answers `initialize`, `tools/call echo` with its `text` argument, anything else with
/// an empty result: a server that needs no SDK.
async fn echo(transport: Transport) {
    let (read, mut write) = tokio::io::split(transport);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let text = message
            .pointer("/params/arguments/text")
            .cloned()
            .unwrap_or_default();
        let result = match message["method"].as_str() {
            Some("initialize") => serde_json::json!({
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "echo", "version": "1.0.0"},
            }),
            Some("tools/call") => {
                serde_json::json!({"content": [{"type": "text", "text": text}]})
            }
            _ => serde_json::json!({}),
        };
        let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
        if write
            .write_all(format!("{answer}\n").as_bytes())
            .await
            .is_err()
        {
            break;
        }
    }
}

fn main() -> std::process::ExitCode {
    Files::new(env!("CARGO_MANIFEST_DIR"), "tests/files")
        .serve(echo)
        .run()
}
