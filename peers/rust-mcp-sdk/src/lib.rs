//! A small "notes" MCP server on rust-mcp-sdk 2.0, a test peer of mcp-replay.
//!
//! Tools: `add_note(text, tag)` (a fresh random id per call), `get_note(id)`,
//! `find_customer(name)` (structured content and text), `email_customer(email, subject)`
//! and `list_tags()` (in a fresh `HashSet`'s order). The next release
//! (`notes_server(_, true)`) also requires `priority` in `add_note`.
//!
//! rust-mcp-sdk 2.0 speaks protocol 2026-07-28 only: no `initialize`, and every request
//! carries its client's identity and protocol version in `_meta`.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rust_mcp_sdk::error::SdkResult;
use rust_mcp_sdk::macros::{mcp_tool, JsonSchema};
use rust_mcp_sdk::mcp_server::{server_runtime, McpServerOptions, ServerHandler, ServerRuntime};
use rust_mcp_sdk::schema::schema_utils::{
    CallToolError, ClientMessage, ClientMessages, MessageFromServer, ServerMessage, ServerMessages,
};
use rust_mcp_sdk::schema::{
    CallToolRequestParams, CallToolResult, Implementation, ListToolsResult,
    ListToolsResultCacheScope, PaginatedRequestParams, RpcError, ServerCapabilities,
    ServerCapabilitiesTools, ServerResult, TextContent,
};
use rust_mcp_sdk::{
    tool_box, McpServer, RequestContext, ServerDetails, SseTransport, ToMcpServerHandler,
    TransportDispatcher,
};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

/// Create a note; answers its new id.
#[mcp_tool(name = "add_note", description = "Create a note; answers its new id.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct AddNote {
    text: String,
    tag: String,
}

/// The next release's `add_note`: `priority` is required too.
#[mcp_tool(name = "add_note", description = "Create a note; answers its new id.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct AddNoteNext {
    text: String,
    tag: String,
    priority: i64,
}

/// A note's text and tag.
#[mcp_tool(name = "get_note", description = "A note's text and tag.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct GetNote {
    id: String,
}

/// Look a customer up by name.
#[mcp_tool(name = "find_customer", description = "Look a customer up by name.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct FindCustomer {
    name: String,
}

/// Queue an email to a customer.
#[mcp_tool(name = "email_customer", description = "Queue an email to a customer.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct EmailCustomer {
    email: String,
    subject: String,
}

/// The tags in use.
#[mcp_tool(name = "list_tags", description = "The tags in use.")]
#[derive(Debug, serde::Deserialize, serde::Serialize, JsonSchema)]
pub struct ListTags {}

tool_box!(
    NotesTools,
    [AddNote, GetNote, FindCustomer, EmailCustomer, ListTags]
);
tool_box!(
    NotesToolsNext,
    [AddNoteNext, GetNote, FindCustomer, EmailCustomer, ListTags]
);

/// The notes server's handler (`next`: the next release).
#[derive(Default)]
struct Notes {
    notes: Mutex<HashMap<String, (String, String)>>,
    next: bool,
}

impl Notes {
    fn add(&self, note: String, tag: String) -> Result<CallToolResult, CallToolError> {
        let id = mint_id();
        self.notes.lock().unwrap().insert(id.clone(), (note, tag));
        Ok(text(format!("created {id}")))
    }

    /// The note's text and tag; an unknown id is a tool error (an `isError` result).
    fn get(&self, id: &str) -> Result<CallToolResult, CallToolError> {
        match self.notes.lock().unwrap().get(id) {
            Some((note, tag)) => Ok(text(format!("{note} [{tag}]"))),
            None => Err(CallToolError::from_message(format!("no note {id}"))),
        }
    }
}

#[async_trait]
impl ServerHandler for Notes {
    async fn handle_list_tools_request(
        &self,
        _params: Option<PaginatedRequestParams>,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ListToolsResult, RpcError> {
        Ok(ListToolsResult {
            tools: if self.next {
                NotesToolsNext::tools()
            } else {
                NotesTools::tools()
            },
            cache_scope: ListToolsResultCacheScope::Private,
            result_type: "complete".into(),
            ttl_ms: 0,
            meta: None,
            next_cursor: None,
        })
    }

    /// A call's arguments are parsed into the tool's struct by `tool_box!`: a missing
    /// one is a tool error (an `isError` result) in serde's words.
    async fn handle_call_tool_request(
        &self,
        params: CallToolRequestParams,
        _context: &RequestContext,
        _runtime: Arc<dyn McpServer>,
    ) -> Result<ServerResult, CallToolError> {
        let result = if self.next {
            match NotesToolsNext::try_from(params)? {
                NotesToolsNext::AddNoteNext(add) => self.add(add.text, add.tag),
                NotesToolsNext::GetNote(get) => self.get(&get.id),
                NotesToolsNext::FindCustomer(_) => Ok(customer()),
                NotesToolsNext::EmailCustomer(_) => Ok(text("queued 1 message")),
                NotesToolsNext::ListTags(_) => Ok(tags()),
            }
        } else {
            match NotesTools::try_from(params)? {
                NotesTools::AddNote(add) => self.add(add.text, add.tag),
                NotesTools::GetNote(get) => self.get(&get.id),
                NotesTools::FindCustomer(_) => Ok(customer()),
                NotesTools::EmailCustomer(_) => Ok(text("queued 1 message")),
                NotesTools::ListTags(_) => Ok(tags()),
            }
        };
        result.map(Into::into)
    }
}

/// A new id, `note-` and 16 hex digits: std's randomly keyed hasher over a counter and
/// the time, so it differs per call, per run and per process.
fn mint_id() -> String {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(CALLS.fetch_add(1, Ordering::Relaxed));
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    hasher.write_u128(now.unwrap_or_default().as_nanos());
    format!("note-{:016x}", hasher.finish())
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::text_content(vec![TextContent::from(text.into())])
}

/// `value` as structured content beside `words`: `#[mcp_tool]` has no typed output.
fn structured(value: Value, words: String) -> CallToolResult {
    let Value::Object(map) = value else {
        unreachable!("an object")
    };
    text(words).with_structured_content(map)
}

/// The customer `find_customer` always finds, as structured content and as text.
fn customer() -> CallToolResult {
    let alice = json!({
        "name": "Alice Martin",
        "email": "alice.martin@example.com",
        "phone": "+49 30 1234567",
    });
    structured(
        alice,
        "contact alice.martin@example.com (+49 30 1234567)".into(),
    )
}

/// The tags, in a fresh `HashSet`'s order, as structured content and as its JSON text
/// (what the spec asks of a tool with structured output).
fn tags() -> CallToolResult {
    let set: HashSet<&str> = ["home", "work", "errand"].into();
    let tags = json!({ "tags": set.into_iter().collect::<Vec<_>>() });
    structured(tags.clone(), tags.to_string())
}

/// The notes server (`next`: the next release) on `transport`.
pub fn notes_server<T>(transport: T, next: bool) -> Arc<ServerRuntime>
where
    T: TransportDispatcher<
        ClientMessages,
        MessageFromServer,
        ClientMessage,
        ServerMessages,
        ServerMessage,
    >,
{
    let server_details = ServerDetails {
        server_info: Implementation {
            name: "rust-mcp-sdk-notes".into(),
            version: if next { "1.1.0" } else { "1.0.0" }.into(),
            ..Default::default()
        },
        capabilities: ServerCapabilities {
            tools: Some(ServerCapabilitiesTools { list_changed: None }),
            ..Default::default()
        },
        instructions: None,
        meta: None,
    };
    let handler = Notes {
        next,
        ..Notes::default()
    };
    server_runtime::create_server(McpServerOptions {
        server_details,
        transport,
        handler: handler.to_mcp_server_handler(),
        message_observer: None,
    })
}

/// Serves the notes server (`next`: the next release) on a caller's byte stream of
/// newline-delimited JSON-RPC, such as `mcp_replay::Transport`, until it closes.
///
/// rust-mcp-sdk's `StdioTransport` is fixed to stdin and stdout; its `SseTransport`
/// runs a session on in-memory pipes (what its HTTP layer does), so the caller's stream
/// is copied into one pipe and out of the other.
pub async fn serve_on<T>(io: T, next: bool) -> SdkResult<()>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (mut read, mut write) = tokio::io::split(io);
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, mut from_server) = tokio::io::duplex(1 << 16);
    let (unused, _) = tokio::io::duplex(1); // HTTP POST bodies: none here
    tokio::spawn(async move {
        let _ = tokio::io::copy(&mut read, &mut to_server).await;
    });
    let out = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut from_server, &mut write).await;
        let _ = write.shutdown().await;
    });
    let transport = SseTransport::new(server_in, server_out, unused, Default::default())?;
    let served = notes_server(transport, next).start().await;
    let _ = out.await;
    served
}
