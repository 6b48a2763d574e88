//! rmcp-openapi's petstore server replayed against a fixture with mcp-replay (copy B of
//! `CRATE=rmcp-openapi@0.32.1 scripts/build-cost.sh`), the way its own tests build it
//! (tests/common/openapi_server.rs). No call reaches the petstore: the fixture lists the
//! tools and calls one whose required argument is missing, which the server refuses itself.

use mcp_replay::{mcp_fixture, Transport};
use rmcp::ServiceExt;

#[mcp_fixture("petstore")] // fixtures/petstore.jsonl
#[tokio::test]
async fn petstore(transport: Transport) {
    let spec = include_str!("assets/petstore-openapi-norefs.json");
    let mut server = rmcp_openapi::Server::builder()
        .openapi_spec(serde_json::from_str(spec).unwrap())
        .base_url(url::Url::parse("http://127.0.0.1:9/api/v3").unwrap())
        .build();
    server.load_openapi_spec().unwrap();
    let running = server.serve(transport).await.unwrap();
    let _ = running.waiting().await;
}
