//! A server on tower-mcp 0.25 (another serde-based Rust SDK than rmcp), in process: when a
//! change of the server makes a recorded call invalid (a new required argument), tower-mcp
//! refuses it in its own words (`Invalid input: missing field `volume``). A plain replay
//! says the client line may be stale, a routine re-recording refuses to pin the refusal
//! over the recorded success, and `force` writes it, saying so.

use mcp_replay::harness::Test;
use mcp_replay::update::UpdateMode;
use mcp_replay::Transport;
use std::path::Path;
use tower_mcp::schemars::JsonSchema;
use tower_mcp::{CallToolResult, McpRouter, StdioTransport, ToolBuilder};

/// The first release: `add_part(name)`.
#[derive(serde::Deserialize, JsonSchema)]
#[schemars(crate = "tower_mcp::schemars")]
struct AddPart {
    name: String,
}

/// The next release: `add_part(name, volume)`, `volume` required.
#[derive(serde::Deserialize, JsonSchema)]
#[schemars(crate = "tower_mcp::schemars")]
struct AddPartWithVolume {
    name: String,
    volume: u32,
}

fn router(next_release: bool) -> McpRouter {
    let tool = if next_release {
        ToolBuilder::new("add_part")
            .description("Add a part to the inventory.")
            .handler(|input: AddPartWithVolume| async move {
                Ok(CallToolResult::text(format!(
                    "added {} ({} l)",
                    input.name, input.volume
                )))
            })
            .build()
    } else {
        ToolBuilder::new("add_part")
            .description("Add a part to the inventory.")
            .handler(|input: AddPart| async move {
                Ok(CallToolResult::text(format!("added {}", input.name)))
            })
            .build()
    };
    McpRouter::new().server_info("parts", "1.0.0").tool(tool)
}

async fn serve(transport: Transport, next_release: bool) {
    let (read, write) = tokio::io::split(transport);
    let _ = StdioTransport::new(router(next_release))
        .run_with_streams(read, write)
        .await;
}

const CLIENT_LINES: &str = r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"add_part","arguments":{"name":"bolt"}}}}"#;

fn test_in(dir: &'static str, mode: UpdateMode) -> Test {
    Test::new(env!("CARGO_MANIFEST_DIR"), "parts", "tower_mcp::parts")
        .dir(dir)
        .mode(mode)
}

#[tokio::test]
async fn a_refusal_in_tower_mcps_words_is_advice_to_edit_the_line_and_never_pinned_silently() {
    let dir = std::env::temp_dir().join(format!("mcp-replay-tower-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = dir.join("parts.jsonl");
    std::fs::write(&fixture, format!("{CLIENT_LINES}\n")).unwrap();
    let dir: &'static str = Box::leak(dir.display().to_string().into_boxed_str());
    let first = |t| serve(t, false);
    let next = |t| serve(t, true);

    test_in(dir, UpdateMode::Always)
        .serve_each(first)
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    let recorded = std::fs::read_to_string(&fixture).unwrap();
    assert!(recorded.contains(r#""text":"added bolt""#), "{recorded}");

    // The plain run against the next release: the client line may be stale.
    let failure = test_in(dir, UpdateMode::No)
        .serve_each(next)
        .await
        .expect_err("refused")
        .to_string();
    assert!(failure.contains("missing field `volume`"), "{failure}");
    assert!(
        failure.contains("The server refused a request it answered when the fixture was recorded"),
        "{failure}"
    );
    assert!(failure.contains("edit line 1"), "{failure}");
    assert!(!failure.contains("re-record the fixture"), "{failure}");

    // A routine re-recording does not pin the refusal over the success.
    let refused = test_in(dir, UpdateMode::Always)
        .serve_each(next)
        .await
        .expect_err("not re-recorded")
        .to_string();
    assert!(refused.contains("NOT re-recorded"), "{refused}");
    assert_eq!(std::fs::read_to_string(&fixture).unwrap(), recorded);

    // `force` writes it.
    test_in(dir, UpdateMode::Force)
        .serve_each(next)
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    let forced = std::fs::read_to_string(&fixture).unwrap();
    assert!(forced.contains("missing field `volume`"), "{forced}");
    std::fs::remove_dir_all(Path::new(dir)).unwrap();
}
