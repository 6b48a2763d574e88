//! A small "notes" MCP server on turbomcp 3.6, a test peer of mcp-replay.
//!
//! Tools: `add_note(text, tag)` (a fresh random id per call), `get_note(id)`,
//! `find_customer(name)` (structured content and text), `email_customer(email, subject)`
//! and `list_tags()` (in a fresh `HashSet`'s order). [`NotesServerNext`], the next
//! release, also requires `priority` in `add_note`.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use turbomcp::prelude::*;
use turbomcp_server::transport::LineTransportRunner;

/// The notes of one server instance: id to (text, tag).
#[derive(Clone, Default)]
pub struct Notes(Arc<Mutex<HashMap<String, (String, String)>>>);

impl Notes {
    fn add(&self, text: String, tag: String) -> String {
        let id = mint_id();
        self.0.lock().unwrap().insert(id.clone(), (text, tag));
        id
    }

    fn get(&self, id: &str) -> McpResult<String> {
        match self.0.lock().unwrap().get(id) {
            Some((text, tag)) => Ok(format!("{text} [{tag}]")),
            None => Err(McpError::invalid_params(format!("no note {id}"))),
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

/// The customer `find_customer` always finds.
#[derive(Serialize)]
struct Customer {
    name: &'static str,
    email: &'static str,
    phone: &'static str,
}

const ALICE: Customer = Customer {
    name: "Alice Martin",
    email: "alice.martin@example.com",
    phone: "+49 30 1234567",
};

/// The tags in use.
// `list_tags` answers `Json<Tags>`, so this is its output schema (and this doc comment
// the schema's description).
#[derive(Serialize, schemars::JsonSchema)]
struct Tags {
    tags: Vec<String>,
}

fn customer() -> ToolResult {
    ToolResult::text(format!("contact {} ({})", ALICE.email, ALICE.phone)).with_structured(&ALICE)
}

fn tags() -> Json<Tags> {
    let set: HashSet<String> = ["home", "work", "errand"].map(String::from).into();
    Json(Tags {
        tags: set.into_iter().collect(),
    })
}

/// The notes server, first release.
#[derive(Clone, Default)]
pub struct NotesServer {
    notes: Notes,
}

#[server(name = "turbomcp-notes", version = "1.0.0")]
impl NotesServer {
    /// Create a note; answers its new id.
    #[tool]
    async fn add_note(&self, text: String, tag: String) -> String {
        format!("created {}", self.notes.add(text, tag))
    }

    /// A note's text and tag.
    #[tool]
    async fn get_note(&self, id: String) -> McpResult<String> {
        self.notes.get(&id)
    }

    /// Look a customer up by name.
    #[tool]
    async fn find_customer(&self, name: String) -> ToolResult {
        let _ = name;
        customer()
    }

    /// Queue an email to a customer.
    #[tool]
    async fn email_customer(&self, email: String, subject: String) -> String {
        let _ = (email, subject);
        "queued 1 message".to_string()
    }

    /// The tags in use.
    #[tool]
    async fn list_tags(&self) -> Json<Tags> {
        tags()
    }
}

impl NotesServer {
    /// A server with no notes.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next release: `add_note` also requires `priority`.
    pub fn next() -> NotesServerNext {
        NotesServerNext::default()
    }
}

/// The notes server, next release: `add_note` requires `priority` too. turbomcp names
/// a tool after its method and fixes its arguments at compile time, so the variant is
/// a second `#[server]` type whose other tools delegate to the same code.
#[derive(Clone, Default)]
pub struct NotesServerNext {
    notes: Notes,
}

#[server(name = "turbomcp-notes", version = "1.1.0")]
impl NotesServerNext {
    /// Create a note; answers its new id.
    #[tool]
    async fn add_note(&self, text: String, tag: String, priority: i64) -> String {
        let _ = priority;
        format!("created {}", self.notes.add(text, tag))
    }

    /// A note's text and tag.
    #[tool]
    async fn get_note(&self, id: String) -> McpResult<String> {
        self.notes.get(&id)
    }

    /// Look a customer up by name.
    #[tool]
    async fn find_customer(&self, name: String) -> ToolResult {
        let _ = name;
        customer()
    }

    /// Queue an email to a customer.
    #[tool]
    async fn email_customer(&self, email: String, subject: String) -> String {
        let _ = (email, subject);
        "queued 1 message".to_string()
    }

    /// The tags in use.
    #[tool]
    async fn list_tags(&self) -> Json<Tags> {
        tags()
    }
}

/// Serves the notes server (`next`: the next release) on a caller's byte stream of
/// newline-delimited JSON-RPC, such as `mcp_replay::Transport`, until it closes.
///
/// turbomcp's own transports own their I/O (stdin/stdout, sockets); the line runner
/// that its stdio, TCP and Unix transports share takes any reader and writer, so this
/// is all it takes.
pub async fn serve_on<T>(io: T, next: bool) -> McpResult<()>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (read, write) = tokio::io::split(io);
    let read = BufReader::new(read);
    if next {
        LineTransportRunner::new(NotesServer::next())
            .run(read, write, RequestContext::stdio)
            .await
    } else {
        LineTransportRunner::new(NotesServer::new())
            .run(read, write, RequestContext::stdio)
            .await
    }
}
