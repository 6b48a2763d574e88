//! The demo servers over stdio, for the command line and child-process tests:
//! `demo-server` serves `DemoServer`, `demo-server protocol` serves `ProtocolServer`,
//! `demo-server leaky` a `DemoServer` whose `job_status` leaks a (fake) token, and
//! `demo-server jitter [SEED]` a `JitterServer` (deterministic messages at random times;
//! a decimal `SEED` reproduces the timing of a run, without it every run draws a new one).
//! `demo-server http ADDR [json|stateless]` serves `DemoServer` over Streamable HTTP at
//! `http://ADDR/mcp` (rmcp's `StreamableHttpService` on hyper; port 0 picks one, and the
//! address is printed on stderr): with sessions and SSE answers, JSON answers (`json`),
//! or without sessions (`stateless`). `demo-server tasks` serves `TaskServer` (a task tool,
//! the Tasks extension of 2026-07-28), and `demo-server http ADDR MODE tasks` serves it over
//! Streamable HTTP (`MODE`: `sse`, `json` or `stateless`). `demo-server watch` serves
//! `WatchServer` (2026-07-28 subscriptions), `demo-server http ADDR modern watch` over
//! Streamable HTTP without sessions, its answers as SSE streams (a subscription is one).

use mcp_replay_demo::{jitter::JitterServer, DemoServer, ProtocolServer, TaskServer, WatchServer};
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
        Some("tasks") => TaskServer::default().serve(stdio).await?.waiting().await?,
        Some("watch") => WatchServer::default().serve(stdio).await?.waiting().await?,
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
        Some("http") => {
            let address = args.next().ok_or("demo-server http ADDR [json|stateless]")?;
            let mode = args.next();
            match args.next().as_deref() {
                None => http(&address, mode.as_deref(), DemoServer::default).await?,
                // One task manager for every session (and, without sessions, every
                // request): a task outlives the request that created it.
                Some("tasks") => {
                    let shared = TaskServer::default();
                    http(&address, mode.as_deref(), move || shared.clone()).await?
                }
                // One set of subscriptions for every request.
                Some("watch") => {
                    let shared = WatchServer::default();
                    http(&address, mode.as_deref(), move || shared.clone()).await?
                }
                Some(other) => {
                    return Err(format!("unknown http server {other:?}: tasks or watch").into())
                }
            }
            return Ok(());
        }
        Some(other) => {
            return Err(format!(
                "unknown server {other:?}: use `demo`, `protocol`, `leaky`, `jitter [SEED]` or `http ADDR`"
            )
            .into())
        }
    };
    Ok(())
}

/// Serves the servers `make` makes over Streamable HTTP on `address` until killed.
async fn http<S: rmcp::ServerHandler + Clone + Send + Sync + 'static>(
    address: &str,
    mode: Option<&str>,
    make: impl Fn() -> S + Send + Sync + 'static,
) -> Result<(), Box<dyn std::error::Error>> {
    use hyper::service::service_fn;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let mut config = StreamableHttpServerConfig::default();
    match mode {
        None | Some("sse") => {}
        Some("json") => config.json_response = true,
        Some("stateless") => {
            config.legacy_session_mode = false;
            config.json_response = true;
        }
        Some("modern") => config.legacy_session_mode = false,
        Some(other) => {
            return Err(format!("unknown http mode {other:?}: json, stateless or modern").into())
        }
    }
    let service: StreamableHttpService<S, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(make()), Default::default(), config);
    let listener = tokio::net::TcpListener::bind(address).await?;
    eprintln!(
        "demo-server: listening on http://{}/mcp",
        listener.local_addr()?
    );
    loop {
        let (stream, _) = listener.accept().await?;
        // Without it a response's second write waits for the client's delayed ACK (~40 ms).
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let serve = service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, std::convert::Infallible>(service.handle(request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), serve)
                .await;
        });
    }
}
