//! Streamable HTTP on a socket: the client the bridge drives for `replay --url`, the wait
//! for a server to listen, and the listener `record --listen` and `serve --http` bind.

use crate::args::ServerArg;
use crate::error::Error;
use bytes::Bytes;
use http::{Request, Response, Uri};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::future::Future;
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tower_service::Service;

/// How long `-- SERVER` is given to listen on the URL.
pub(crate) const LISTEN_WAIT: Duration = Duration::from_secs(30);

/// How long a connection may take to send a request's head. `serve --http` counts it from
/// when it waits for one (so also how long a kept-alive connection may sit idle: Node's HTTP
/// servers close one after 5 s); `record --listen` only for a connection's first byte
/// ([`speaks`]), since its `--idle` counts a client's kept-alive connections as the client
/// still being there. Either way a client that connects and sends nothing holds its socket
/// no longer.
pub(crate) const HEAD_WAIT: Duration = Duration::from_secs(10);

/// Does `stream` send its first byte within [`HEAD_WAIT`]? (`false`: it sent nothing, or
/// closed; the caller drops it.)
pub(crate) async fn speaks(stream: &TcpStream) -> bool {
    let mut first = [0u8; 1];
    matches!(
        tokio::time::timeout(HEAD_WAIT, stream.peek(&mut first)).await,
        Ok(Ok(n)) if n > 0
    )
}

/// `--url`/`--upstream`: an `http://HOST[:PORT]/PATH` URL (a bare `HOST:PORT` gets
/// `http://` and `/mcp`).
pub(crate) fn parse_url(text: &str) -> Result<Uri, String> {
    let full = if text.contains("://") {
        text.to_owned()
    } else {
        format!("http://{text}/mcp")
    };
    let uri: Uri = full
        .parse()
        .map_err(|e| format!("`{text}` is not a URL ({e}); e.g. http://127.0.0.1:3001/mcp"))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") => {
            return Err(format!(
                "`{text}`: https is not supported yet; reach the server over http (a local \
                 port, or a TLS-terminating tunnel in front of it)"
            ))
        }
        _ => return Err(format!("`{text}`: give an http:// URL")),
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(format!("`{text}`: the URL has no host"));
    }
    Ok(uri)
}

/// The host and port a URL's connection goes to (port 80 unless it says).
pub(crate) fn authority(uri: &Uri) -> String {
    let host = uri.host().unwrap_or("localhost");
    let port = uri.port_u16().unwrap_or(80);
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A pooled HTTP/1.1 client as a tower service, for the bridge; its errors name the URL
/// and the cause (`connection refused`), not just "client error".
#[derive(Clone)]
pub(crate) struct HttpClient {
    client: Client<HttpConnector, Full<Bytes>>,
}

impl HttpClient {
    pub(crate) fn new() -> Self {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_secs(10)));
        connector.set_nodelay(true);
        HttpClient {
            client: Client::builder(TokioExecutor::new()).build(connector),
        }
    }
}

/// An error of [`HttpClient`]: the request's URL and the whole chain of causes.
#[derive(Debug)]
pub(crate) struct ClientError(String);

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClientError {}

/// `error` and its sources, as one line: `client error (Connect): tcp connect error:
/// Connection refused (os error 111)`.
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl Service<Request<Full<Bytes>>> for HttpClient {
    type Response = Response<Incoming>;
    type Error = ClientError;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Incoming>, ClientError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ClientError>> {
        Service::<Request<Full<Bytes>>>::poll_ready(&mut self.client, cx)
            .map_err(|e| ClientError(chain(&e)))
    }

    fn call(&mut self, request: Request<Full<Bytes>>) -> Self::Future {
        let url = request.uri().to_string();
        let call = self.client.request(request);
        Box::pin(async move {
            call.await
                .map_err(|e| ClientError(format!("{url}: {}", chain(&e))))
        })
    }
}

/// Whether something accepts connections at the URL's host and port: `Err` says why not
/// (`connection refused`).
pub(crate) async fn probe(uri: &Uri) -> Result<(), String> {
    let address = authority(uri);
    match tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(&address)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!("cannot connect to {uri}: {e}")),
        Err(_) => Err(format!("cannot connect to {uri}: no answer within 5 s")),
    }
}

/// A server started for `--url`/`--upstream` with `-- SERVER`: killed when dropped.
pub(crate) struct Started {
    child: tokio::process::Child,
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// Starts `server` (its stdout and stderr go to our stderr, its stdin is closed) and waits
/// until `uri` accepts connections; fails if the server exits first or does not listen
/// within `wait`.
pub(crate) async fn start_and_wait(
    server: &ServerArg,
    uri: &Uri,
    wait: Duration,
) -> Result<Started, Error> {
    let program = server.line();
    let mut command = server.command();
    command
        .stdin(Stdio::null())
        .stdout(stderr_for_child())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let child = command
        .spawn()
        .map_err(|e| Error::server(format!("could not start the server `{program}`: {e}")))?;
    let mut started = Started { child };
    let began = Instant::now();
    loop {
        if probe(uri).await.is_ok() {
            return Ok(started);
        }
        if let Ok(Some(status)) = started.child.try_wait() {
            return Err(Error::server(format!(
                "the server `{program}` exited ({status}) before listening on {uri}"
            )));
        }
        if began.elapsed() > wait {
            return Err(Error::server(format!(
                "the server `{program}` did not listen on {uri} within {} s",
                wait.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Our stderr, for a child's stdout: what a server prints must not mix with our report.
fn stderr_for_child() -> Stdio {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stderr().as_fd().try_clone_to_owned() {
            return Stdio::from(fd);
        }
    }
    Stdio::null()
}

/// Ctrl-C, or (on Unix) SIGTERM: what ends `record --listen` and `serve --http`, which
/// then write what they have (the fixture, the report).
pub(crate) struct Stop {
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Stop {
    pub(crate) fn new() -> Stop {
        Stop {
            #[cfg(unix)]
            terminate: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .ok(),
        }
    }

    /// Waits for the signal.
    pub(crate) async fn wait(&mut self) {
        #[cfg(unix)]
        if let Some(terminate) = &mut self.terminate {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The client connections a listener has open, and a signal on each close: how
/// `serve --http` and `record --listen` tell that the client has gone without a DELETE.
#[derive(Default)]
pub(crate) struct Connections {
    open: std::sync::atomic::AtomicUsize,
    closed: tokio::sync::Notify,
}

impl Connections {
    /// Counts a connection open until the returned guard drops.
    pub(crate) fn open(self: &std::sync::Arc<Self>) -> Open {
        self.open.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Open(self.clone())
    }

    fn count(&self) -> usize {
        self.open.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Resolves once no connection has been open for `period`.
    pub(crate) async fn idle_for(&self, period: Duration) {
        loop {
            let closed = self.closed.notified();
            if self.count() == 0 {
                tokio::select! {
                    () = tokio::time::sleep(period) => {
                        if self.count() == 0 {
                            return;
                        }
                    }
                    () = closed => {}
                }
            } else {
                closed.await;
            }
        }
    }
}

/// One open connection of [`Connections`]; dropping it closes it there.
pub(crate) struct Open(std::sync::Arc<Connections>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0
            .open
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        self.0.closed.notify_waiters();
    }
}

/// A time as the options take it: `2s`, `1.5s`, `700ms`.
pub(crate) fn show_time(time: Duration) -> String {
    if time.subsec_millis() == 0 {
        format!("{}s", time.as_secs())
    } else if time < Duration::from_secs(1) {
        format!("{}ms", time.as_millis())
    } else {
        format!("{}s", time.as_secs_f64())
    }
}

/// A `Host` header's name, lower case and without an IPv6 address's brackets, and its port:
/// `None` for a value that is no authority.
pub(crate) fn host_of(host: &http::HeaderValue) -> Option<(String, Option<u16>)> {
    let authority = host.to_str().ok()?.parse::<http::uri::Authority>().ok()?;
    let name = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    Some((name, authority.port_u16()))
}

/// What an HTTP request says about the client session it belongs to, as the routers of
/// `serve --http` (`cmd/serve/sessions.rs`) and `record --listen` (`proxy/recordings.rs`)
/// read it: its `Mcp-Session-Id`, if it has one, whether it is a POST, and whether it is
/// a POST of `initialize`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asked<'a> {
    pub session: Option<&'a [u8]>,
    pub post: bool,
    pub initialize: bool,
}
