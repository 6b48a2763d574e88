//! The server replayed against a fixture with mcp-replay (copy B only), as in the README.

use mcp_replay::{mcp_fixture, Transport};
use rmcp::ServiceExt;

#[mcp_fixture("forecast")] // fixtures/forecast.jsonl
#[tokio::test]
async fn forecast(transport: Transport) {
    let server = weather::Weather::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}
