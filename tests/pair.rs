//! Tests written as code: `#[mcp_fixture]` on a test that takes two transports, the
//! server's and the client's. The body serves an rmcp 3.11 server on one and drives rmcp's
//! typed client on the other, with its own assertions; the harness passes every message
//! through (the client sees the live minted id), and the exchange is the fixture: written
//! on the first run (`1`), compared afterwards. A changed server is a `result` finding, a
//! changed body a `params` finding at its client line, a panic in the body keeps the report.

use mcp_replay::_support::update::UpdateMode;
use mcp_replay::harness::Test;
use mcp_replay::{mcp_fixture, Transport};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ContentBlock, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;
use std::hash::{BuildHasher, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Notes: `create_note(text)` mints `note-<8 hex>` (new in every run) and answers it in
/// `structuredContent.id`; `get_note(id)` answers its text. `changed`: the next release,
/// whose `get_note` says `note: TEXT`.
#[derive(Clone, Default)]
struct Notes {
    notes: Arc<Mutex<Vec<(String, String)>>>,
    changed: bool,
}

impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("notes", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = Arc::new(serde_json::Map::from_iter([(
            "type".to_owned(),
            json!("object"),
        )]));
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("create_note", "Create a note.", schema.clone()),
            Tool::new("get_note", "Read a note.", schema),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arg = |key: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|a| a.get(key))
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        let mut notes = self.notes.lock().unwrap();
        let result = match request.name.as_ref() {
            "create_note" => {
                let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
                hasher.write_u8(0);
                let id = format!("note-{:08x}", hasher.finish() as u32);
                notes.push((id.clone(), arg("text")));
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(format!("created {id}"))]);
                result.structured_content = Some(json!({ "id": id }));
                result
            }
            _ => match notes.iter().find(|(id, _)| *id == arg("id")) {
                Some((_, text)) if self.changed => {
                    CallToolResult::success(vec![ContentBlock::text(format!("note: {text}"))])
                }
                Some((_, text)) => CallToolResult::success(vec![ContentBlock::text(text.clone())]),
                None => CallToolResult::error(vec![ContentBlock::text("no such note")]),
            },
        };
        Ok(result.into())
    }
}

fn call(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(serde_json::from_value(arguments).unwrap())
}

/// The body: serve `server` on the server's transport, create a note with `text` through
/// rmcp's typed client, read it back by the live id, and assert on what came back.
async fn create_then_read(server: Notes, text: &str, s: Transport, c: Transport) {
    tokio::spawn(async move {
        let running = server.serve(s).await.expect("serves");
        let _ = running.waiting().await;
    });
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("notes-test", "1.0.0"),
    )
    .serve(c)
    .await
    .expect("connects");
    let created = client
        .call_tool(call("create_note", json!({"text": text})))
        .await
        .expect("created");
    let id = created.structured_content.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(id.starts_with("note-"), "the client sees the live id: {id}");
    let read = client
        .call_tool(call("get_note", json!({"id": id})))
        .await
        .expect("read");
    assert_ne!(
        read.is_error,
        Some(true),
        "the note is found by its live id"
    );
    client.cancel().await.expect("closes");
}

/// `true`: a condition the compiler does not see through (a body that only panics has no
/// return type a test can take).
fn run_once() -> bool {
    std::hint::black_box(true)
}

fn dir(name: &str) -> &'static str {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("mcp-replay-pair-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Box::leak(dir.display().to_string().into_boxed_str())
}

fn test(dir: &'static str, mode: UpdateMode) -> Test {
    Test::new(env!("CARGO_MANIFEST_DIR"), "notes", "pair::notes")
        .dir(dir)
        .mode(mode)
}

#[tokio::test]
async fn the_first_run_writes_the_fixture_and_later_runs_compare_both_sides() {
    let dir = dir("notes");
    let fixture = std::path::Path::new(dir).join("notes.jsonl");

    // Under CI: nothing written, the test fails naming the file.
    let ci = test(dir, UpdateMode::No)
        .pair(|s, c| create_then_read(Notes::default(), "milk", s, c))
        .await
        .expect_err("no fixture under CI")
        .to_string();
    assert!(ci.contains("notes.jsonl does not exist"), "{ci}");
    assert!(ci.contains("nothing is written under CI"), "{ci}");
    assert!(!fixture.exists());

    // Locally (`new`): the recording goes to NAME.jsonl.new, and the test says how to accept it.
    let local = test(dir, UpdateMode::New)
        .pair(|s, c| create_then_read(Notes::default(), "milk", s, c))
        .await
        .expect_err("a pending first recording")
        .to_string();
    assert!(local.contains("mcp-replay accept"), "{local}");
    assert!(std::path::Path::new(&format!("{}.new", fixture.display())).exists());
    std::fs::remove_file(format!("{}.new", fixture.display())).unwrap();

    // `1` writes it and passes.
    test(dir, UpdateMode::Always)
        .pair(|s, c| create_then_read(Notes::default(), "milk", s, c))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written.contains(r#""structuredContent":{"id":"<MINTED:1>"}"#),
        "{written}"
    );
    assert!(
        written.contains(r#""arguments":{"id":"<MINTED:1>"}"#),
        "the read sends the bound id: {written}"
    );
    assert!(
        written.lines().skip(1).all(|l| !l.contains("note-")),
        "no live id in the file (only its shape in the header): {written}"
    );

    // The same body and server, twenty times: green, with a new id each run.
    for run in 1..=20 {
        if let Err(f) = test(dir, UpdateMode::No)
            .pair(|s, c| create_then_read(Notes::default(), "milk", s, c))
            .await
        {
            panic!("run {run}: {f}");
        }
    }

    // A changed server: a result finding at the answer's line.
    let server = test(dir, UpdateMode::No)
        .pair(|s, c| {
            let changed = Notes {
                changed: true,
                ..Notes::default()
            };
            create_then_read(changed, "milk", s, c)
        })
        .await
        .expect_err("the server changed")
        .to_string();
    assert!(server.contains("1 mismatch (1 result)"), "{server}");
    assert!(server.contains("\"note: milk\""), "{server}");

    // A changed body: a params finding at the client line.
    let body = test(dir, UpdateMode::No)
        .pair(|s, c| create_then_read(Notes::default(), "eggs", s, c))
        .await
        .expect_err("the body changed")
        .to_string();
    assert!(body.contains("params"), "{body}");
    assert!(body.contains("\"eggs\""), "{body}");

    // The fixture this form wrote replays under the one-transport form too: the harness is
    // the client then, and binds the read's id to the one the server mints.
    for run in 1..=5 {
        if let Err(f) = test(dir, UpdateMode::No)
            .serve_each(|t| async move {
                let running = Notes::default().serve(t).await.expect("serves");
                let _ = running.waiting().await;
            })
            .await
        {
            panic!("replay {run}: {f}");
        }
    }

    // A panic in the body: the test fails with it, and the fixture is not rewritten.
    let panicked = test(dir, UpdateMode::Always)
        .pair(|s, c| async move {
            create_then_read(Notes::default(), "milk", s, c).await;
            if run_once() {
                panic!("an assertion of the body");
            }
        })
        .await
        .expect_err("the body panicked")
        .to_string();
    assert!(panicked.contains("an assertion of the body"), "{panicked}");
    assert_eq!(std::fs::read_to_string(&fixture).unwrap(), written);
}

/// The attribute itself: two transports make the body the client (the fixture is
/// `tests/fixtures/pair/notes.jsonl`, written by its first run with `MCP_FIXTURE_UPDATE=1`;
/// not among the bundled `fixtures/`, which the demo server replays).
#[mcp_fixture("notes", dir = "tests/fixtures/pair")]
#[tokio::test]
async fn pair_notes(server: Transport, client: Transport) {
    create_then_read(Notes::default(), "milk", server, client).await;
}

/// A hand-written server (no SDK: lines in, lines out) with rmcp's typed client: the
/// first run writes the fixture, the next compares, and a changed answer is found.
#[tokio::test]
async fn a_raw_server_and_rmcp_s_client_record_and_compare() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    async fn raw(transport: Transport, answer: &'static str) {
        let (read, mut write) = tokio::io::split(transport);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            let Some(id) = message.get("id").cloned() else {
                continue;
            };
            let result = match message["method"].as_str() {
                Some("initialize") => json!({
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "raw", "version": "0.1.0"},
                }),
                Some("tools/list") => json!({"tools": [
                    {"name": "greet", "inputSchema": {"type": "object"}}
                ]}),
                _ => json!({"content": [{"type": "text", "text": answer}]}),
            };
            let line = json!({"jsonrpc": "2.0", "id": id, "result": result});
            write
                .write_all(format!("{line}\n").as_bytes())
                .await
                .unwrap();
        }
    }
    async fn body(s: Transport, c: Transport, answer: &'static str) {
        tokio::spawn(raw(s, answer));
        let client = ().serve(c).await.expect("connects");
        let tools = client.list_all_tools().await.expect("lists");
        assert_eq!(tools.len(), 1);
        let greeted = client
            .call_tool(call("greet", json!({"name": "Ada"})))
            .await
            .expect("greets");
        assert_eq!(greeted.is_error, None);
        client.cancel().await.expect("closes");
    }
    let dir = dir("raw");
    test(dir, UpdateMode::Always)
        .pair(|s, c| body(s, c, "hello Ada"))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    test(dir, UpdateMode::No)
        .pair(|s, c| body(s, c, "hello Ada"))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    let changed = test(dir, UpdateMode::No)
        .pair(|s, c| body(s, c, "hi Ada"))
        .await
        .expect_err("the answer changed")
        .to_string();
    assert!(changed.contains("1 mismatch (1 result)"), "{changed}");
}
