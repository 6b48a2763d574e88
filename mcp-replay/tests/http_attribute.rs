//! `#[mcp_fixture("name", http)]`: the test returns a Streamable HTTP service and the
//! fixture replays against it in process; the same fixture passes over the pipe.
#![cfg(feature = "http")]

use mcp_replay::{mcp_fixture, Transport};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::sync::Arc;

/// One tool, `echo`.
#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let Value::Object(schema) =
            json!({"type": "object", "properties": {"text": {"type": "string"}}})
        else {
            unreachable!("an object")
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "echo",
            "Echoes its text.",
            schema,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

#[mcp_fixture("http_echo", dir = "tests/fixtures", http)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_over_http() -> StreamableHttpService<Echo, LocalSessionManager> {
    StreamableHttpService::new(
        || Ok(Echo),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_sse_keep_alive(None),
    )
}

#[mcp_fixture("http_echo", dir = "tests/fixtures")]
#[tokio::test]
async fn the_same_fixture_over_the_pipe(transport: Transport) {
    let server = Echo.serve(transport).await.expect("the session starts");
    let _ = server.waiting().await;
}
