//! `rust-mcp-sdk-notes-server [--next]`: the notes server over stdio; `--next` serves the
//! next release, whose `add_note` requires `priority`. Nothing but JSON-RPC on stdout
//! (rust-mcp-sdk logs through `tracing`, and no subscriber is installed).

use rust_mcp_sdk::{McpServer, StdioTransport, TransportOptions};

#[tokio::main]
async fn main() {
    let next = std::env::args().any(|a| a == "--next");
    let served = match StdioTransport::new(TransportOptions::default()) {
        Ok(transport) => {
            mcp_replay_rust_mcp_sdk_peer::notes_server(transport, next)
                .start()
                .await
        }
        Err(e) => Err(e.into()),
    };
    if let Err(e) = served {
        eprintln!("rust-mcp-sdk-notes-server: {e}");
        std::process::exit(1);
    }
}
