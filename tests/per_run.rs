//! Values that change every run, found when recording, with an rmcp 3.11 server in process
//! (as `#[mcp_fixture]` runs it): a tool whose answer names an id minted per run that the
//! client never sends back, and a tool list in hash-map order (as rmcp 0.8 listed its
//! tools). A re-recording of client lines replays what it recorded against a second server,
//! binds the id and sorts the list, so the first plain run after it is green, and the
//! next 19 too.

use mcp_replay::harness::Test;
use mcp_replay::update::UpdateMode;
use mcp_replay::Transport;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

/// Tools listed in the order of a `HashMap` made anew in every run, and a `stamp` tool
/// answering `stamped at-<8 hex>`, new in every call.
#[derive(Clone)]
struct Clock;

/// 64 bits that differ from one call to the next (std's hasher keys are random).
fn random() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u8(0);
    hasher.finish()
}

impl ServerHandler for Clock {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("clock", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Eight: the same order twice in a row is one chance in 40320.
        let names = [
            "stamp", "tick", "tock", "alarm", "snooze", "lap", "split", "reset",
        ];
        let schema = Arc::new(serde_json::Map::from_iter([(
            "type".to_owned(),
            serde_json::json!("object"),
        )]));
        let tools: HashMap<&str, Tool> = names
            .iter()
            .map(|n| (*n, Tool::new(*n, format!("The {n} tool."), schema.clone())))
            .collect();
        Ok(ListToolsResult::with_all_items(
            tools.into_values().collect(),
        ))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "stamped at-{:08x}",
            random() as u32
        ))])
        .into())
    }
}

async fn serve(transport: Transport) {
    let server = Clock.serve(transport).await.expect("serves");
    let _ = server.waiting().await;
}

const CLIENT_LINES: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"stamp","arguments":{}}}}"#,
    "\n",
);

fn test_in(dir: &'static str, mode: UpdateMode) -> Test {
    Test::new(env!("CARGO_MANIFEST_DIR"), "clock", "per_run::clock")
        .dir(dir)
        .mode(mode)
}

#[tokio::test]
async fn a_rerecording_in_process_binds_a_per_run_id_and_sorts_a_hash_ordered_list() {
    let dir = std::env::temp_dir().join(format!("mcp-replay-per-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = dir.join("clock.jsonl");
    std::fs::write(&fixture, CLIENT_LINES).unwrap();
    let dir: &'static str = Box::leak(dir.display().to_string().into_boxed_str());

    // What `#[mcp_fixture]` expands into: a body it may call twice.
    test_in(dir, UpdateMode::Always)
        .serve_each(serve)
        .await
        .unwrap_or_else(|failure| panic!("{failure}"));
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written.contains(r#""text":"stamped <MINTED:1>""#),
        "{written}"
    );
    assert!(written.contains(r#""sort":[".result.tools"]"#), "{written}");
    assert!(
        written.contains(r#""shapes":{"<MINTED:1>":"at-00000001"}"#),
        "{written}"
    );
    for run in 1..=20 {
        if let Err(failure) = test_in(dir, UpdateMode::No).serve_each(serve).await {
            panic!("plain run {run} after the recording: {failure}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A fixture recorded before values that change every run were found (one run's id
/// written as it was): the plain run's advice names each path, and what pins it: the
/// re-recording whose runs bind a token inside a text alone.
#[tokio::test]
async fn a_plain_run_names_the_rule_that_pins_a_per_run_value() {
    let dir =
        std::env::temp_dir().join(format!("mcp-replay-per-run-advice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stamp = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"stamp","arguments":{}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"stamped at-5caaf2fb"}],"isError":false}}}"#,
        "\n",
    );
    std::fs::write(dir.join("clock.jsonl"), stamp).unwrap();
    let dir_text: &'static str = Box::leak(dir.display().to_string().into_boxed_str());
    let failure = test_in(dir_text, UpdateMode::No)
        .serve_each(serve)
        .await
        .expect_err("one run's id does not pin the next");
    let text = failure.to_string();
    // The id stands inside a text: a `bind` of the path would stop comparing the rest of
    // the text, so the advice is the re-recording, whose runs bind the token alone.
    assert!(
        text.contains(r#"line 2, .result.content[0].text: `at-5caaf2fb` (now `at-"#),
        "{text}"
    );
    assert!(
        text.contains("inside a text: re-record, which binds the token alone"),
        "{text}"
    );
    assert!(!text.contains("re-record the fixture"), "{text}");
    // Followed, the advice makes the test green: checked before it was offered.
    test_in(dir_text, UpdateMode::Always)
        .serve_each(serve)
        .await
        .unwrap();
    let written = std::fs::read_to_string(dir.join("clock.jsonl")).unwrap();
    assert!(written.contains("stamped <MINTED:1>"), "{written}");
    for _ in 0..5 {
        test_in(dir_text, UpdateMode::No)
            .serve_each(serve)
            .await
            .unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
