//! `tower-notes-server [--next]`: the notes server over stdio; `--next` serves the next
//! release, whose `add_note` requires `priority`. Nothing but JSON-RPC on stdout
//! (tower-mcp logs through `tracing`, and no subscriber is installed).

use tower_mcp::StdioTransport;

#[tokio::main]
async fn main() {
    let next = std::env::args().any(|a| a == "--next");
    let router = mcp_replay_tower_notes_peer::notes_router(next);
    if let Err(e) = StdioTransport::new(router).run().await {
        eprintln!("tower-notes-server: {e}");
        std::process::exit(1);
    }
}
