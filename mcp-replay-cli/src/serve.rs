//! `mcp-replay serve --http ADDR`: the fixture's mock server over Streamable HTTP on a
//! socket, for one client session (the runtime's [`Front`](mcp_replay::http::front::Front)
//! on hyper).

use crate::net::Connections;
use crate::Fatal;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcp_replay::http::front::HttpMock;
use mcp_replay::{Fixture, Report, Rules};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// How long the session waits for a client that went away before it sent every recorded
/// message (unless `--idle` is longer): it may come back (a client whose pooled connections
/// time out between a person's clicks has no connection open for a while).
const UNPLAYED_IDLE: Duration = Duration::from_secs(10);
/// How long the end waits for the client to close its connections (so that the answer to
/// its DELETE reaches it) before the report.
const DRAIN: Duration = Duration::from_secs(1);

/// Serves `fixture` at `http://ADDR/mcp` until the session ends (the client's DELETE, the
/// client without a connection open for `idle` after it sent every recorded message, or for
/// [`UNPLAYED_IDLE`] before, or Ctrl-C or SIGTERM), and returns the mock's report.
pub(crate) async fn serve_http(
    fixture: &Fixture,
    rules: &Rules,
    options: &mcp_replay::Options,
    addr: &str,
    idle: Duration,
) -> Result<Report, Fatal> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| Fatal(format!("serve --http: cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| Fatal(format!("serve --http: {e}")))?;
    eprintln!("mcp-replay serve: listening on http://{local}/mcp");
    let (front, mock) = fixture.mock_http_with_options(rules, options);
    let connections = Arc::new(Connections::default());
    let mut served = false;
    let mut stop = crate::net::Stop::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        eprintln!("mcp-replay serve: accepting a connection failed: {e}");
                        continue;
                    }
                };
                // Each SSE event as its own small write: not held back waiting for an ACK.
                let _ = stream.set_nodelay(true);
                served = true;
                let open = connections.open();
                let front = front.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let front = front.clone();
                        async move { Ok::<_, Infallible>(front.handle(request).await) }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                    drop(open);
                });
            }
            () = mock.ended() => break,
            () = client_gone(&connections, &mock, idle), if served => break,
            () = stop.wait() => break,
        }
    }
    let drained = tokio::time::timeout(DRAIN, connections.idle_for(Duration::ZERO));
    let (report, _) = tokio::join!(mock.finish(), drained);
    Ok(report)
}

/// Resolves once the client has had no connection open for `idle` after it sent every
/// recorded message, or for [`UNPLAYED_IDLE`] (at least `idle`) before that.
async fn client_gone(connections: &Connections, mock: &HttpMock, idle: Duration) {
    let played = async {
        mock.played().await;
        connections.idle_for(idle).await;
    };
    tokio::select! {
        () = played => {}
        () = connections.idle_for(idle.max(UNPLAYED_IDLE)) => {}
    }
}
