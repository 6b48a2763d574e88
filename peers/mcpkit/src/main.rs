//! `mcpkit-notes-server [--next]`: the notes server over stdio; `--next` serves the next
//! release, whose `add_note` requires `priority`. Nothing but JSON-RPC on stdout (mcpkit
//! logs through `tracing`, and no subscriber is installed).

use mcpkit::transport::stdio::StdioTransport;

#[tokio::main]
async fn main() {
    let next = std::env::args().any(|a| a == "--next");
    if let Err(e) = mcp_replay_mcpkit_peer::serve(StdioTransport::new(), next).await {
        eprintln!("mcpkit-notes-server: {e}");
        std::process::exit(1);
    }
}
