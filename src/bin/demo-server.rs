//! The demo servers over stdio, for the command line and child-process tests:
//! `demo-server` serves `DemoServer`, `demo-server protocol` serves `ProtocolServer`,
//! `demo-server leaky` a `DemoServer` whose `job_status` leaks a (fake) token.

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
        Some("leaky") => DemoServer::leaky().serve(stdio).await?.waiting().await?,
        Some(other) => {
            return Err(
                format!("unknown server {other:?}: use `demo`, `protocol` or `leaky`").into(),
            )
        }
    };
    Ok(())
}
