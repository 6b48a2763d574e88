//! The notes server replayed in process against `fixtures/smoke.jsonl`, in protocol
//! 2026-07-28, the only one rust-mcp-sdk 2.0 speaks.

use mcp_replay::{mcp_fixture, Transport};

#[mcp_fixture("smoke", protocol = "2026-07-28")]
#[tokio::test]
async fn smoke(transport: Transport) -> rust_mcp_sdk::error::SdkResult<()> {
    mcp_replay_rust_mcp_sdk_peer::serve_on(transport, false).await
}
