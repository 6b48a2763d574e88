//! The demo servers over stdio, for the command line and child-process tests:
//! `demo-server` serves `DemoServer`, `demo-server protocol` serves `ProtocolServer`.

use mcp_replay_demo::{DemoServer, ProtocolServer};
use rmcp::ServiceExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stdio = (tokio::io::stdin(), tokio::io::stdout());
    match std::env::args().nth(1).as_deref() {
        None | Some("demo") => DemoServer::default().serve(stdio).await?.waiting().await?,
        Some("protocol") => {
            ProtocolServer::default()
                .serve(stdio)
                .await?
                .waiting()
                .await?
        }
        Some(other) => {
            return Err(format!("unknown server {other:?}: use `demo` or `protocol`").into())
        }
    };
    Ok(())
}
