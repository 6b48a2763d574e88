//! A small "notes" MCP server on mcpkit 0.7, a test peer of mcp-replay.
//!
//! Tools: `add_note(text, tag)` (a fresh random id per call), `get_note(id)`,
//! `find_customer(name)` (structured content and text), `email_customer(email, subject)`
//! and `list_tags()` (in a fresh `HashSet`'s order). [`NotesServerNext`], the next
//! release, also requires `priority` in `add_note`.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use mcpkit::prelude::*;
use mcpkit::transport::runtime::{TokioAsyncReadWrapper, TokioAsyncWriteWrapper};
use mcpkit::transport::stdio::StdioTransport;
use mcpkit::types::{CallToolResult, Json};
use serde::Serialize;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite};

/// The notes of one server instance: id to (text, tag).
#[derive(Default)]
struct Notes(Mutex<HashMap<String, (String, String)>>);

impl Notes {
    fn add(&self, text: String, tag: String) -> ToolOutput {
        let id = mint_id();
        self.0.lock().unwrap().insert(id.clone(), (text, tag));
        ToolOutput::text(format!("created {id}"))
    }

    /// The note's text and tag; an unknown id is a tool error (an `isError` result).
    fn get(&self, id: &str) -> ToolOutput {
        match self.0.lock().unwrap().get(id) {
            Some((text, tag)) => ToolOutput::text(format!("{text} [{tag}]")),
            None => ToolOutput::error(format!("no note {id}")),
        }
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

/// The customer `find_customer` always finds, as structured content and as text: a
/// `CallToolResult` of its own, since `Json<T>` would give its JSON as the text.
fn customer() -> ToolOutput {
    let alice = json!({
        "name": "Alice Martin",
        "email": "alice.martin@example.com",
        "phone": "+49 30 1234567",
    });
    let text = CallToolResult::text("contact alice.martin@example.com (+49 30 1234567)");
    ToolOutput::Success(text.with_structured_content(alice.as_object().unwrap().clone()))
}

/// The tags in use.
// `list_tags` answers `Json<Tags>`: structured content, its JSON as text, and this type's
// `ToolInput` schema as the tool's output schema.
#[derive(Serialize, ToolInput)]
pub struct Tags {
    tags: Vec<String>,
}

fn tags() -> Json<Tags> {
    let set: HashSet<String> = ["home", "work", "errand"].map(String::from).into();
    Json(Tags {
        tags: set.into_iter().collect(),
    })
}

/// The notes server, first release.
#[derive(Default)]
pub struct NotesServer {
    notes: Notes,
}

#[mcp_server(name = "mcpkit-notes", version = "1.0.0")]
impl NotesServer {
    #[tool(description = "Create a note; answers its new id.")]
    async fn add_note(&self, text: String, tag: String) -> ToolOutput {
        self.notes.add(text, tag)
    }

    #[tool(description = "A note's text and tag.")]
    async fn get_note(&self, id: String) -> ToolOutput {
        self.notes.get(&id)
    }

    #[tool(description = "Look a customer up by name.")]
    async fn find_customer(&self, name: String) -> ToolOutput {
        let _ = name;
        customer()
    }

    #[tool(description = "Queue an email to a customer.")]
    async fn email_customer(&self, email: String, subject: String) -> ToolOutput {
        let _ = (email, subject);
        ToolOutput::text("queued 1 message")
    }

    #[tool(description = "The tags in use.")]
    async fn list_tags(&self) -> Json<Tags> {
        tags()
    }
}

/// The notes server, next release: `add_note` requires `priority` too. mcpkit fixes a
/// tool's arguments at compile time (its method's parameters), so the variant is a
/// second `#[mcp_server]` type whose other tools are the same code.
#[derive(Default)]
pub struct NotesServerNext {
    notes: Notes,
}

#[mcp_server(name = "mcpkit-notes", version = "1.1.0")]
impl NotesServerNext {
    #[tool(description = "Create a note; answers its new id.")]
    async fn add_note(&self, text: String, tag: String, priority: i64) -> ToolOutput {
        let _ = priority;
        self.notes.add(text, tag)
    }

    #[tool(description = "A note's text and tag.")]
    async fn get_note(&self, id: String) -> ToolOutput {
        self.notes.get(&id)
    }

    #[tool(description = "Look a customer up by name.")]
    async fn find_customer(&self, name: String) -> ToolOutput {
        let _ = name;
        customer()
    }

    #[tool(description = "Queue an email to a customer.")]
    async fn email_customer(&self, email: String, subject: String) -> ToolOutput {
        let _ = (email, subject);
        ToolOutput::text("queued 1 message")
    }

    #[tool(description = "The tags in use.")]
    async fn list_tags(&self) -> Json<Tags> {
        tags()
    }
}

/// Serves the notes server (`next`: the next release) on `transport` until it closes.
pub async fn serve<T>(transport: T, next: bool) -> Result<(), McpError>
where
    T: Transport + 'static,
    T::Error: Into<McpError>,
{
    if next {
        NotesServerNext::default()
            .into_server()
            .serve(transport)
            .await
    } else {
        NotesServer::default().into_server().serve(transport).await
    }
}

/// Serves the notes server (`next`: the next release) on a caller's byte stream of
/// newline-delimited JSON-RPC, such as `mcp_replay::Transport`, until it closes.
///
/// mcpkit's stdio transport takes any reader and writer (`with_streams`), but futures-io
/// ones that are `Sync` too: the stream is copied through an in-memory pipe, whose
/// halves are, and wrapped in mcpkit's own tokio adapters.
pub async fn serve_on<T>(mut io: T, next: bool) -> Result<(), McpError>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (server_end, mut ours) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move { tokio::io::copy_bidirectional(&mut io, &mut ours).await });
    let (read, write) = tokio::io::split(server_end);
    let transport =
        StdioTransport::with_streams(TokioAsyncReadWrapper(read), TokioAsyncWriteWrapper(write));
    serve(transport, next).await
}
