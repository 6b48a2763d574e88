//! `turbomcp-notes-server [--next]`: the notes server over stdio; `--next` serves the
//! next release, whose `add_note` requires `priority`. Nothing but JSON-RPC on stdout
//! (turbomcp logs through `tracing`, and no subscriber is installed).

use mcp_replay_turbomcp_peer::NotesServer;
use turbomcp::prelude::*;

#[tokio::main]
async fn main() {
    let served = if std::env::args().any(|a| a == "--next") {
        NotesServer::next().run_stdio().await
    } else {
        NotesServer::new().run_stdio().await
    };
    if let Err(e) = served {
        eprintln!("turbomcp-notes-server: {e}");
        std::process::exit(1);
    }
}
