//! The notes server replayed in process against `fixtures/smoke.jsonl`.

use mcp_replay::{mcp_fixture, Transport};

#[mcp_fixture("smoke")]
#[tokio::test]
async fn smoke(transport: Transport) -> tower_mcp::Result<()> {
    mcp_replay_tower_notes_peer::serve_on(transport, false).await
}
