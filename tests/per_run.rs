//! Values that change every run, found when recording, with an rmcp 3.11 server in process
//! (as `#[mcp_fixture]` runs it): a tool whose answer names an id minted per run that the
//! client never sends back, and a tool list in hash-map order (as rmcp 0.8 listed its
//! tools). A re-recording of client lines replays what it recorded against a second server,
//! binds the id and sorts the list, so the first plain run after it is green, and the
//! next 19 too.

use mcp_replay::_support::update::UpdateMode;
use mcp_replay::harness::Test;
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

/// A server whose list of three comes in one order in its first instance and in another
/// from then on, answering with raw lines: `started` counts its instances.
/// `fixed`: the same tags in every instance (`["a"]` when `one`).
async fn serve_ordered(
    transport: Transport,
    started: Arc<std::sync::atomic::AtomicUsize>,
    fixed: bool,
    one: bool,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let instance = started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let tags = match (one, fixed || instance == 0) {
        (true, _) => vec!["a"],
        (false, true) => vec!["a", "b", "c"],
        (false, false) => vec!["c", "b", "a"],
    };
    let (read, mut write) = tokio::io::split(transport);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let request: serde_json::Value = serde_json::from_str(&line).unwrap();
        let Some(id) = request.get("id") else {
            continue;
        };
        let result = match request["method"].as_str() {
            Some("initialize") => serde_json::json!({"protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}}, "serverInfo": {"name": "tags", "version": "1"}}),
            _ => serde_json::json!({"content": [{"type": "text", "text": "3 tags"}],
                "structuredContent": {"tags": tags}}),
        };
        let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
        let _ = write.write_all(format!("{answer}\n").as_bytes()).await;
    }
}

const TAGS: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"tags","arguments":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"text":"3 tags","type":"text"}],"structuredContent":{"tags":["a","b","c"]}}}}"#,
    "\n",
);

/// A re-recording whose first run matched the fixture by chance, and whose later runs
/// showed the list in another order: the fixture is written with the `sort`, as its note
/// says (before, the note said so and nothing was written).
#[tokio::test]
async fn a_rerecording_whose_runs_pin_an_order_writes_it_even_when_its_first_run_matched() {
    let dir = std::env::temp_dir().join(format!("mcp-replay-per-run-note-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("clock.jsonl"), TAGS).unwrap();
    let dir_text: &'static str = Box::leak(dir.display().to_string().into_boxed_str());
    let started = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = started.clone();
    let verdict = test_in(dir_text, UpdateMode::Always)
        .serve_each(move |t| serve_ordered(t, counter.clone(), false, false))
        .await;
    assert!(verdict.is_ok(), "{verdict:?}");
    let written = std::fs::read_to_string(dir.join("clock.jsonl")).unwrap();
    assert!(
        written.contains(r#""sort":[".result.structuredContent.tags"]"#),
        "{written}"
    );
    // The recording and one run that showed the other order: nothing more to look for.
    assert_eq!(started.load(std::sync::atomic::Ordering::SeqCst), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// How many runs a recording makes, observed: a list of three that never changes asks for
/// six (its per-run order would have escaped them one time in 46,656), a recording without
/// a list for one.
#[tokio::test]
async fn a_recording_runs_as_often_as_its_shortest_list_asks() {
    for (fixture, one, runs) in [
        (TAGS.to_owned(), false, 6),
        (TAGS.replace(r#","b","c""#, ""), true, 1),
    ] {
        let dir = std::env::temp_dir().join(format!(
            "mcp-replay-per-run-runs-{runs}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("clock.jsonl"), &fixture).unwrap();
        let dir_text: &'static str = Box::leak(dir.display().to_string().into_boxed_str());
        let started = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = started.clone();
        let _ = test_in(dir_text, UpdateMode::Force)
            .serve_each(move |t| serve_ordered(t, counter.clone(), true, one))
            .await;
        assert_eq!(
            started.load(std::sync::atomic::Ordering::SeqCst),
            1 + runs,
            "{fixture}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
