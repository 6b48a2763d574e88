//! A small "notes" MCP server on tower-mcp 0.25, a test peer of mcp-replay.
//!
//! Tools: `add_note(text, tag)` (a fresh random id per call), `get_note(id)`,
//! `find_customer(name)` (structured content and text), `email_customer(email, subject)`
//! and `list_tags()` (in a fresh `HashSet`'s order). The next release
//! (`notes_router(true)`) also requires `priority` in `add_note`.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncWrite};
use tower_mcp::extract::{Json, State};
use tower_mcp::{CallToolResult, McpRouter, NoParams, StdioTransport, ToolBuilder};

/// The notes of one server instance: id to (text, tag).
#[derive(Default)]
struct Notes(Mutex<HashMap<String, (String, String)>>);

impl Notes {
    fn add(&self, text: String, tag: String) -> CallToolResult {
        let id = mint_id();
        self.0.lock().unwrap().insert(id.clone(), (text, tag));
        CallToolResult::text(format!("created {id}"))
    }

    /// The note's text and tag; an unknown id is a tool error (an `isError` result).
    fn get(&self, id: &str) -> CallToolResult {
        match self.0.lock().unwrap().get(id) {
            Some((text, tag)) => CallToolResult::text(format!("{text} [{tag}]")),
            None => CallToolResult::error(format!("no note {id}")),
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

// The tools' arguments: their schemas are the input schemas.

#[derive(Deserialize, JsonSchema)]
struct AddNote {
    text: String,
    tag: String,
}

/// The next release's: `priority` required too.
#[derive(Deserialize, JsonSchema)]
struct AddNoteNext {
    text: String,
    tag: String,
    #[allow(dead_code)] // required, not used
    priority: i64,
}

#[derive(Deserialize, JsonSchema)]
struct GetNote {
    id: String,
}

#[allow(dead_code)] // the answer does not depend on it
#[derive(Deserialize, JsonSchema)]
struct FindCustomer {
    name: String,
}

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

/// The customer `find_customer` always finds, as structured content and as text:
/// `CallToolResult::json` would give its JSON as the text.
fn customer() -> CallToolResult {
    let alice = serde_json::json!({
        "name": "Alice Martin",
        "email": "alice.martin@example.com",
        "phone": "+49 30 1234567",
    });
    CallToolResult {
        structured_content: Some(alice),
        ..CallToolResult::text("contact alice.martin@example.com (+49 30 1234567)")
    }
}

/// The notes server (`next`: the next release, whose `add_note` requires `priority`).
pub fn notes_router(next: bool) -> McpRouter {
    let notes = Arc::new(Notes::default());
    let add_note = ToolBuilder::new("add_note").description("Create a note; answers its new id.");
    let add_note = if next {
        add_note
            .extractor_handler(
                notes.clone(),
                |State(notes): State<Arc<Notes>>, Json(add): Json<AddNoteNext>| async move {
                    Ok(notes.add(add.text, add.tag))
                },
            )
            .build()
    } else {
        add_note
            .extractor_handler(
                notes.clone(),
                |State(notes): State<Arc<Notes>>, Json(add): Json<AddNote>| async move {
                    Ok(notes.add(add.text, add.tag))
                },
            )
            .build()
    };
    let get_note = ToolBuilder::new("get_note")
        .description("A note's text and tag.")
        .extractor_handler(
            notes,
            |State(notes): State<Arc<Notes>>, Json(get): Json<GetNote>| async move {
                Ok(notes.get(&get.id))
            },
        )
        .build();
    let find_customer = ToolBuilder::new("find_customer")
        .description("Look a customer up by name.")
        .handler(|_: FindCustomer| async { Ok(customer()) })
        .build();
    let email_customer = ToolBuilder::new("email_customer")
        .description("Queue an email to a customer.")
        .handler(|_: EmailCustomer| async { Ok(CallToolResult::text("queued 1 message")) })
        .build();
    let list_tags = ToolBuilder::new("list_tags")
        .description("The tags in use.")
        .output_schema_for::<Tags>()
        .handler(|_: NoParams| async {
            let set: HashSet<String> = ["home", "work", "errand"].map(String::from).into();
            CallToolResult::from_serialize(&Tags {
                tags: set.into_iter().collect(),
            })
        })
        .build();
    McpRouter::new()
        .server_info("tower-notes", if next { "1.1.0" } else { "1.0.0" })
        .tool(add_note)
        .tool(get_note)
        .tool(find_customer)
        .tool(email_customer)
        .tool(list_tags)
}

/// Serves the notes server (`next`: the next release) on a caller's byte stream of
/// newline-delimited JSON-RPC, such as `mcp_replay::Transport`, until it closes:
/// tower-mcp's stdio transport runs on any reader and writer (`run_with_streams`).
pub async fn serve_on<T>(io: T, next: bool) -> tower_mcp::Result<()>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let (read, write) = tokio::io::split(io);
    StdioTransport::new(notes_router(next))
        .run_with_streams(read, write)
        .await
}
