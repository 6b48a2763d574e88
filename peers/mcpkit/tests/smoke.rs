//! The notes server replayed in process against `fixtures/smoke.jsonl`.

use mcp_replay::{mcp_fixture, Transport};

#[mcp_fixture("smoke")]
#[tokio::test]
async fn smoke(transport: Transport) -> Result<(), mcpkit::error::McpError> {
    mcp_replay_mcpkit_peer::serve_on(transport, false).await
}
