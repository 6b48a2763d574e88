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

/// The string argument `key` of a call ("" when absent).
fn argument(request: &CallToolRequestParams, key: &str) -> String {
    request
        .arguments
        .as_ref()
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

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
        let text = argument(&request, "text");
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

/// One tool, `query`, whose `region` argument travels as the `Mcp-Param-Region` header
/// too from protocol 2026-07-28 on (SEP-2243): rmcp's server refuses a call without it.
#[derive(Clone)]
struct Regional;

impl Regional {
    fn tool() -> Tool {
        let Value::Object(schema) = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "sql": {"type": "string"}
        }}) else {
            unreachable!("an object")
        };
        Tool::new("query", "Runs a query in a region.", schema)
    }
}

impl ServerHandler for Regional {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![Regional::tool()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == "query").then(Regional::tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let region = argument(&request, "region");
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("ran in {region}"))]).into())
    }
}

fn regional_service() -> StreamableHttpService<Regional, LocalSessionManager> {
    let mut config = StreamableHttpServerConfig::default().with_sse_keep_alive(None);
    config.legacy_session_mode = false;
    config.json_response = true;
    StreamableHttpService::new(
        || Ok(Regional),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

/// The bridge sends `Mcp-Param-Region` as the listed schema asks: green.
#[mcp_fixture("http_param_headers", dir = "tests/fixtures", http)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn param_headers_over_http() -> StreamableHttpService<Regional, LocalSessionManager> {
    regional_service()
}

#[mcp_fixture("http_param_headers", dir = "tests/fixtures")]
#[tokio::test]
async fn param_headers_fixture_over_the_pipe(transport: Transport) {
    let server = Regional.serve(transport).await.expect("the session starts");
    let _ = server.waiting().await;
}

/// A fixture that calls the tool without listing it: the bridge knows no schema, sends no
/// `Mcp-Param-Region`, and the server's refusal is the finding (as a client that never
/// listed the tools would meet it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unlisted_tool_gets_no_param_header_and_the_refusal_is_reported() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/http_param_headers.jsonl"
    );
    let text = std::fs::read_to_string(path).expect("the fixture");
    let unlisted: String = text
        .lines()
        .filter(|line| !line.contains("tools/list") && !line.contains("\"tools\":["))
        .map(|line| format!("{line}\n"))
        .collect();
    let fixture = mcp_replay::Fixture::parse(&unlisted).expect("a fixture");
    let report = fixture.replay().http(regional_service()).await;
    let text = report.to_string();
    // The refusal's JSON-RPC error, under the 400 the specification prescribes for it,
    // is the call's answer: a result finding at once (not a timeout), and no fault of
    // the transport's.
    assert!(text.contains("1 mismatch (1 result)"), "{text}");
    assert!(!text.contains("answered HTTP 400"), "{text}");
    assert!(text.contains("missing Mcp-Param-Region header"), "{text}");
}
