//! The notes server replayed in process against `fixtures/smoke.jsonl`.

use mcp_replay::{mcp_fixture, Transport};

#[mcp_fixture("smoke")]
#[tokio::test]
async fn smoke(transport: Transport) -> turbomcp::McpResult<()> {
    mcp_replay_turbomcp_peer::serve_on(transport, false).await
}
