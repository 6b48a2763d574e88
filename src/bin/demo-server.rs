//! The demo servers over stdio, for the command line and child-process tests:
//! `demo-server` serves `DemoServer`, `demo-server protocol` serves `ProtocolServer`,
//! `demo-server leaky` a `DemoServer` whose `job_status` leaks a (fake) token, and
//! `demo-server jitter [SEED]` a `JitterServer` (deterministic messages at random times;
//! a decimal `SEED` reproduces the timing of a run, without it every run draws a new one).

use mcp_replay_demo::{jitter::JitterServer, DemoServer, ProtocolServer};
use rmcp::ServiceExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stdio = (tokio::io::stdin(), tokio::io::stdout());
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        None | Some("demo") => DemoServer::default().serve(stdio).await?.waiting().await?,
        Some("protocol") => {
            ProtocolServer::default()
                .serve(stdio)
                .await?
                .waiting()
                .await?
        }
        Some("leaky") => DemoServer::leaky().serve(stdio).await?.waiting().await?,
        Some("jitter") => {
            let server = match args.next() {
                None => JitterServer::new(),
                Some(seed) => JitterServer::with_seed(
                    seed.parse()
                        .map_err(|e| format!("bad jitter seed {seed:?}: {e}"))?,
                ),
            };
            server.serve(stdio).await?.waiting().await?
        }
        Some(other) => {
            return Err(format!(
                "unknown server {other:?}: use `demo`, `protocol`, `leaky` or `jitter [SEED]`"
            )
            .into())
        }
    };
    Ok(())
}
