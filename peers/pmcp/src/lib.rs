//! A small "notes" MCP server on pmcp 2.23, a test peer of mcp-replay.
//!
//! Tools: `add_note(text, tag)` (a fresh random id per call), `get_note(id)`,
//! `find_customer(name)` (structured content and text), `email_customer(email, subject)`
//! and `list_tags()` (in a fresh `HashSet`'s order). The next release
//! (`notes_server(true)`) also requires `priority` in `add_note`.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::future::ready;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pmcp::error::TransportError;
use pmcp::shared::transport::{parse_message, serialize_message};
use pmcp::shared::{Transport, TransportMessage};
use pmcp::types::{CallToolResult, Content};
use pmcp::{mcp_tool, Error, Server, ServerBuilder, State};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The notes of one server instance: id to (text, tag).
#[derive(Default)]
pub struct Notes(Mutex<HashMap<String, (String, String)>>);

impl Notes {
    fn add(&self, text: String, tag: String) -> String {
        let id = mint_id();
        self.0.lock().unwrap().insert(id.clone(), (text, tag));
        id
    }

    /// The note's text and tag; an unknown id is the caller's to fix (an `isError` result).
    fn get(&self, id: &str) -> pmcp::Result<CallToolResult> {
        match self.0.lock().unwrap().get(id) {
            Some((note, tag)) => Ok(text(format!("{note} [{tag}]"))),
            None => Err(Error::tool_rejected(format!("no note {id}"), None)),
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

// The tools' arguments: their schemas (doc comments included) are the input schemas.

/// A note to create.
#[derive(Deserialize, JsonSchema)]
struct AddNote {
    text: String,
    tag: String,
}

/// A note to create, with its priority (the next release).
#[derive(Deserialize, JsonSchema)]
struct AddNoteNext {
    text: String,
    tag: String,
    #[allow(dead_code)] // required, not used
    priority: i64,
}

/// The note to read.
#[derive(Deserialize, JsonSchema)]
struct GetNote {
    id: String,
}

/// The customer to look up.
#[allow(dead_code)] // the answer does not depend on it
#[derive(Deserialize, JsonSchema)]
struct FindCustomer {
    name: String,
}

/// The email to queue.
#[allow(dead_code)] // nothing is sent
#[derive(Deserialize, JsonSchema)]
struct EmailCustomer {
    email: String,
    subject: String,
}

/// The tags in use.
#[derive(Serialize, JsonSchema)]
struct Tags {
    tags: Vec<String>,
}

#[mcp_tool(description = "Create a note; answers its new id.")]
async fn add_note(args: AddNote, notes: State<Notes>) -> pmcp::Result<Value> {
    Ok(json!({ "id": notes.add(args.text, args.tag) }))
}

#[mcp_tool(name = "add_note", description = "Create a note; answers its new id.")]
async fn add_note_next(args: AddNoteNext, notes: State<Notes>) -> pmcp::Result<Value> {
    Ok(json!({ "id": notes.add(args.text, args.tag) }))
}

#[mcp_tool(description = "The tags in use.")]
async fn list_tags() -> pmcp::Result<Tags> {
    let set: HashSet<String> = ["home", "work", "errand"].map(String::from).into();
    Ok(Tags {
        tags: set.into_iter().collect(),
    })
}

/// The notes server (`next`: the next release, whose `add_note` requires `priority`).
///
/// `add_note` and `list_tags` are `#[mcp_tool]`s, answered as pmcp answers a value:
/// its JSON as text (and, for a typed output, as structured content). The others own
/// their `CallToolResult` (`tool_with_result`) for a plain text answer, which a
/// `#[mcp_tool]` cannot give.
pub fn notes_server(next: bool) -> pmcp::Result<Server> {
    let notes = Arc::new(Notes::default());
    let version = if next { "1.1.0" } else { "1.0.0" };
    let builder = ServerBuilder::new().name("pmcp-notes").version(version);
    let builder = if next {
        builder.tool("add_note", add_note_next().with_state(notes.clone()))
    } else {
        builder.tool("add_note", add_note().with_state(notes.clone()))
    };
    builder
        .tool_with_result_and_description(
            "get_note",
            "A note's text and tag.",
            move |args: GetNote, _| Box::pin(ready(notes.get(&args.id))),
        )
        .tool_with_result_and_description(
            "find_customer",
            "Look a customer up by name.",
            |_: FindCustomer, _| Box::pin(ready(Ok(customer()))),
        )
        .tool_with_result_and_description(
            "email_customer",
            "Queue an email to a customer.",
            |_: EmailCustomer, _| Box::pin(ready(Ok(text("queued 1 message")))),
        )
        .tool("list_tags", list_tags())
        .build()
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::new(vec![Content::text(text)])
}

/// The customer `find_customer` always finds, as structured content and as text.
fn customer() -> CallToolResult {
    let customer = json!({
        "name": "Alice Martin",
        "email": "alice.martin@example.com",
        "phone": "+49 30 1234567",
    });
    CallToolResult::structured_with_text(
        customer,
        "contact alice.martin@example.com (+49 30 1234567)",
    )
}

/// Serves the notes server (`next`: the next release) on a caller's byte stream of
/// newline-delimited JSON-RPC, such as `mcp_replay::Transport`, until it closes.
pub async fn serve_on<T>(io: T, next: bool) -> pmcp::Result<()>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let transport = LineTransport {
        io: Mutex::new(BufReader::new(io)),
        partial: Vec::new(),
    };
    notes_server(next)?.run(transport).await
}

/// pmcp's `Transport` on any byte stream, newline-delimited as its `StdioTransport`
/// (which is fixed to stdin and stdout): pmcp has none of its own for a caller's stream.
struct LineTransport<T> {
    /// In a `Mutex` (only ever `get_mut`) because pmcp wants a `Sync` transport.
    io: Mutex<BufReader<T>>,
    /// The line read so far, kept across calls: the server drops a `receive` when it
    /// has something to send first.
    partial: Vec<u8>,
}

impl<T> std::fmt::Debug for LineTransport<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LineTransport")
    }
}

#[pmcp::async_trait]
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Transport for LineTransport<T> {
    async fn send(&mut self, message: TransportMessage) -> pmcp::Result<()> {
        let mut line = serialize_message(&message)?;
        line.push(b'\n');
        let io = self.io.get_mut().unwrap();
        io.write_all(&line).await?;
        Ok(io.flush().await?)
    }

    async fn receive(&mut self) -> pmcp::Result<TransportMessage> {
        let io = self.io.get_mut().unwrap();
        loop {
            if let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.partial.drain(..=end).collect();
                return parse_message(&line);
            }
            if io.read_until(b'\n', &mut self.partial).await? == 0 {
                if self.partial.is_empty() {
                    return Err(TransportError::ConnectionClosed.into());
                }
                self.partial.push(b'\n'); // a last line without its newline
            }
        }
    }

    async fn close(&mut self) -> pmcp::Result<()> {
        Ok(self.io.get_mut().unwrap().shutdown().await?)
    }
}
