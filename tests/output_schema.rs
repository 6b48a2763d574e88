//! A tool's `outputSchema` is a promise ("servers MUST provide structured results that
//! conform to this schema"): an rmcp 3.11 server in process whose `count` tool declares
//! `{count: integer}` and answers `{"count": "3"}`. The harness records no fixture from
//! it; a fixture that holds such an answer is named by `check`'s validation
//! (`validate::fixture`); a replay against the server is a `protocol` finding at the
//! path; against the fixed server (and a fixture recorded from it) it is green.
//! The schema checked is the live `tools/list`'s in a replay, the fixture's in `check`.

use mcp_replay::{Fixture, MismatchKind};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::sync::Arc;

/// `count`: how many items are in stock; `broken`: answered as a string.
#[derive(Clone, Copy)]
struct Stock {
    broken: bool,
}

impl ServerHandler for Stock {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("stock", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let object = |v: Value| Arc::new(v.as_object().unwrap().clone());
        let input = object(json!({"type": "object", "properties": {"item": {"type": "string"}}}));
        let output = object(json!({"type": "object", "additionalProperties": false,
            "properties": {"count": {"type": "integer", "minimum": 0}}, "required": ["count"]}));
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "count",
            "Items in stock.",
            input,
        )
        .with_raw_output_schema(output)]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let count = if self.broken { json!("3") } else { json!(3) };
        let mut result = CallToolResult::success(vec![ContentBlock::text("3 in stock")]);
        result.structured_content = Some(json!({ "count": count }));
        Ok(result.into())
    }
}

/// The session a client has with `server`: list the tools, count the hats.
const SESSION: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"count","arguments":{"item":"hat"}}}}"#,
    "\n",
);

/// `SESSION` recorded against `server`: what the harness would write (`None`: it would
/// write nothing).
async fn recorded(server: Stock) -> Option<Fixture> {
    let fixture = Fixture::parse(SESSION).unwrap();
    let report = fixture.replay().run(move |t| serve(server, t)).await;
    let written = report.recorded()?.to_jsonl();
    Some(Fixture::parse(&written).unwrap())
}

/// `SESSION` as the broken server answered it, its listing shortened to the one tool.
fn broken_fixture() -> Fixture {
    let answers = [
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"name":"count","description":"Items in stock.","inputSchema":{"type":"object","properties":{"item":{"type":"string"}}},"outputSchema":{"type":"object","additionalProperties":false,"properties":{"count":{"type":"integer","minimum":0}},"required":["count"]}}]}}}"#,
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"3 in stock"}],"structuredContent":{"count":"3"}}}}"#,
    ];
    let lines: Vec<&str> = SESSION.lines().collect();
    let text = [lines[0], answers[0], lines[1], answers[1]].join("\n");
    Fixture::parse(&text).unwrap()
}

async fn serve(server: Stock, transport: mcp_replay::Transport) {
    let running = server.serve(transport).await.unwrap();
    let _ = running.waiting().await;
}

#[tokio::test]
async fn structured_content_that_breaks_its_tools_output_schema_is_a_protocol_finding() {
    let broken = Stock { broken: true };
    // A server that breaks its own schema is not recorded into a fixture.
    assert!(recorded(broken).await.is_none());
    let fixture = broken_fixture();

    // `check`: the fixture's own answer against the schema its own listing declares.
    let found = mcp_replay::_support::validate::fixture(&fixture);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].1.to_string(),
        "`.result.structuredContent.count` must be an integer (the tool `count`'s outputSchema)"
    );

    // A replay against the same server: the live answer breaks the live schema.
    let report = fixture.replay().run(move |t| serve(broken, t)).await;
    let kinds: Vec<MismatchKind> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::Protocol], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("`.result.structuredContent.count` must be an integer"),
        "{report}"
    );

    // Fixed: the old fixture differs in the value (a result finding, no protocol one);
    // re-recorded, it is green and clean.
    let fixed = Stock { broken: false };
    let report = fixture.replay().run(move |t| serve(fixed, t)).await;
    let kinds: Vec<MismatchKind> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::Result], "{report}");
    let fixture = recorded(fixed).await.expect("a clean recording");
    assert!(mcp_replay::_support::validate::fixture(&fixture).is_empty());
    let report = fixture.replay().run(move |t| serve(fixed, t)).await;
    assert!(report.is_ok(), "{report}");
}
