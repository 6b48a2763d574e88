//! `pmcp-notes-server [--next]`: the notes server over stdio; `--next` serves the next
//! release, whose `add_note` requires `priority`. Nothing but JSON-RPC on stdout (pmcp's
//! `logging` feature, its tracing subscriber, is off).

#[tokio::main]
async fn main() {
    let next = std::env::args().any(|a| a == "--next");
    let served = match mcp_replay_pmcp_peer::notes_server(next) {
        Ok(server) => server.run_stdio().await,
        Err(e) => Err(e),
    };
    if let Err(e) = served {
        eprintln!("pmcp-notes-server: {e}");
        std::process::exit(1);
    }
}
