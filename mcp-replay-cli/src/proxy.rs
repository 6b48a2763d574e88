//! `mcp-replay record --listen ADDR --upstream URL`: a reverse proxy for Streamable HTTP
//! that writes the session as a fixture.
//!
//! Requests and responses pass through unchanged (status, headers, bytes, SSE streams as
//! they come), except for the hop-by-hop headers, and a `Host` that names the proxy, which
//! is made the upstream's (any other `Host` passes as sent, so that a server's DNS
//! rebinding check still sees a foreign one). The
//! JSON-RPC messages are teed on the way: each client message when its POST arrives,
//! each server message as its JSON body ends or its SSE event passes. Headers are never
//! captured, so `Authorization` and cookies never reach the fixture (or the `--raw`
//! capture). Each client session is recorded on its own (`--sessions`, `recordings.rs`) and
//! written when it ends (a DELETE the upstream accepts); the recording ends when every
//! session it records has ended, on Ctrl-C or SIGTERM, or with `--idle TIME` once no client
//! has had a connection open for that long.

use crate::args::{Limit, ServerArg};
use crate::capture::{write_capture, Capture, Outputs, Unsaved};
use crate::error::{Error, Outcome};
use crate::net::{authority, chain, probe, start_and_wait, Connections, Started, LISTEN_WAIT};
use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, HOST};
use http::{Method, Request, Response, StatusCode, Uri};
use http_body::{Body, Frame, SizeHint};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use mcp_replay::_support::bridge::SESSION_ID;
use mcp_replay::_support::sse::{SseEvent, SseParser};
use mcp_replay::fixture::Direction;
use recordings::{Asked, Into, Recordings};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

mod recordings;

/// How long the client has had no connection open before the proxy says how to end the
/// recording (without `--idle`, it goes on: a client may come back).
const IDLE_HINT: Duration = Duration::from_secs(2);
/// The largest request body the proxy takes (a client message); larger is 413.
const REQUEST_LIMIT: usize = 16 * 1024 * 1024;
/// The largest JSON body or SSE event it tees; the bytes still pass beyond it.
const TEE_LIMIT: usize = 16 * 1024 * 1024;

/// Headers of one connection, not to be forwarded (RFC 9110, 7.6.1), and `Host`.
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

type ProxyBody = BoxBody<Bytes, hyper::Error>;

/// What every connection's service shares.
struct Proxy {
    upstream: Uri,
    /// The address the proxy listens on (a `Host` naming it is rewritten to the upstream's).
    local: SocketAddr,
    client: Client<HttpConnector, Full<Bytes>>,
    /// Each client session's recording.
    recordings: Mutex<Recordings>,
    /// The number of each session whose DELETE the upstream accepted: it is written.
    ended: mpsc::UnboundedSender<usize>,
    /// Set at the first request: the client's absence counts from then on (a connection
    /// alone, such as a probe that the port listens, does not start the session).
    asked: tokio::sync::watch::Sender<bool>,
    /// `--header`: added to every forwarded request (the client's own headers pass too).
    headers: Vec<(HeaderName, HeaderValue)>,
}

/// `record --listen`: where the proxy listens, what it forwards to, and when it ends.
pub(crate) struct Proxying<'a> {
    /// The address the client connects to.
    pub listen: SocketAddr,
    /// The server's Streamable HTTP URL.
    pub upstream: Uri,
    /// `--idle TIME`: also end once the client has had no connection open that long.
    pub idle: Option<Duration>,
    /// `--sessions`: how many client sessions to record, each to its own fixture.
    pub sessions: Limit,
    /// The server to start first and wait for (`-- SERVER`), when given.
    pub server: &'a ServerArg,
    /// `--header`: headers every forwarded request carries (a credential the client does
    /// not send itself); never written.
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl Proxying<'_> {
    /// Runs the proxy until every session it records has ended, writing each one's
    /// fixture like the stdio `record` as it ends (the first to `-o`, the Kth beside it as
    /// NAME-K.jsonl).
    pub(crate) async fn record(
        &self,
        outputs: &Outputs<'_>,
        rules: &mcp_replay::Rules,
    ) -> Result<Outcome, Error> {
        let _server = self.start_upstream().await?;
        let listener = TcpListener::bind(self.listen)
            .await
            .map_err(|e| Error::network(format!("cannot listen on {}: {e}", self.listen)))?;
        let local = listener.local_addr().map_err(Error::network)?;
        let idle = match self.idle {
            Some(idle) => format!(
                ", or after {} without a client connection",
                crate::net::show_time(idle)
            ),
            None => String::new(),
        };
        eprintln!(
            "mcp-replay record: listening on http://{local}{} (forwarding to {}); it stops \
             when the client ends its session{idle}, or on Ctrl-C or SIGTERM",
            self.upstream.path(),
            self.upstream
        );
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let (ended, mut written) = mpsc::unbounded_channel();
        let proxy = Arc::new(Proxy {
            upstream: self.upstream.clone(),
            local,
            client: Client::builder(TokioExecutor::new()).build(connector),
            recordings: Mutex::new(Recordings::new(self.sessions)),
            ended,
            asked: tokio::sync::watch::Sender::new(false),
            headers: self.headers.clone(),
        });
        let mut writes = Writes::new(outputs, rules);
        serve_until_end(&listener, &proxy, self.idle, &mut written, &mut writes).await;
        let started = proxy.recordings().len();
        for k in 0..started {
            writes.write(&proxy, k);
        }
        writes.outcome()
    }

    /// The upstream, listening: started first with `-- SERVER` (and stopped when the
    /// returned value goes), else probed, so that a URL nothing listens on is an error
    /// before the client comes.
    async fn start_upstream(&self) -> Result<Option<Started>, Error> {
        if !self.server.is_empty() {
            return Ok(Some(
                start_and_wait(self.server, &self.upstream, LISTEN_WAIT).await?,
            ));
        }
        probe(&self.upstream).await.map_err(|e| {
            Error::network(format!(
                "{e}; start the server first, or give its command after `--` and the \
                 recording starts it"
            ))
        })?;
        Ok(None)
    }
}

/// Accepts the clients' connections and proxies them, writing each session as it ends,
/// until every session it records has ended (the upstream accepted their DELETEs), Ctrl-C
/// or SIGTERM, or (with `idle`) no client has had a connection open that long. Without
/// `idle`, the clients' absence only gets a hint.
async fn serve_until_end(
    listener: &TcpListener,
    proxy: &Arc<Proxy>,
    end_idle: Option<Duration>,
    ended: &mut mpsc::UnboundedReceiver<usize>,
    writes: &mut Writes<'_>,
) {
    let mut connections = JoinSet::new();
    let open = Arc::new(Connections::default());
    // Whether the client was told how to end since it left.
    let mut hinted = false;
    let mut stop = crate::net::Stop::new();
    loop {
        let idle = end_idle.unwrap_or(IDLE_HINT);
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            Some(k) = ended.recv() => {
                writes.write(proxy, k);
                if proxy.recordings().done() {
                    break;
                }
                continue;
            }
            () = stop.wait() => break,
            () = client_gone(proxy, &open, idle), if !hinted => {
                if end_idle.is_some() {
                    break;
                }
                eprintln!(
                    "mcp-replay record: the client has had no connection open for {}; if it \
                     has gone without a DELETE, Ctrl-C or SIGTERM writes the fixture (--idle \
                     TIME ends the recording by itself)",
                    crate::net::show_time(idle)
                );
                hinted = true;
                continue;
            }
        };
        let Ok((stream, _)) = accepted else { continue };
        // Without it a response's second write waits for the client's delayed ACK (~40 ms
        // per request; demo/benches/http.rs).
        let _ = stream.set_nodelay(true);
        hinted = false;
        let proxy = proxy.clone();
        let open = open.open();
        connections.spawn(async move {
            // A connection that sends nothing is closed (1,000 of them would hold as many
            // sockets, and keep --idle from ever seeing the client gone).
            if !crate::net::speaks(&stream).await {
                return;
            }
            let service = service_fn(move |request| forward(proxy.clone(), request));
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(open);
        });
    }
    connections.shutdown().await;
}

impl Proxy {
    fn recordings(&self) -> std::sync::MutexGuard<'_, Recordings> {
        self.recordings.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Each session's fixture, written once, and how the writes went.
struct Writes<'a> {
    outputs: &'a Outputs<'a>,
    rules: &'a mcp_replay::Rules,
    written: Vec<bool>,
    /// The worst a write came to: nothing to record or stray lines, or an error.
    unsaved: Option<Unsaved>,
}

impl<'a> Writes<'a> {
    fn new(outputs: &'a Outputs<'a>, rules: &'a mcp_replay::Rules) -> Self {
        Writes {
            outputs,
            rules,
            written: Vec::new(),
            unsaved: None,
        }
    }

    /// Writes recording `k` (the first session to `-o`, the Nth as NAME-N.jsonl, its
    /// `--raw` and `--timing` files alike), unless it is written already or is no session.
    fn write(&mut self, proxy: &Proxy, k: usize) {
        if self.written.len() <= k {
            self.written.resize(k + 1, false);
        }
        if std::mem::replace(&mut self.written[k], true) {
            return;
        }
        // A refused initialize, or one the proxy stopped before it was answered: no session.
        let Some(n) = proxy.recordings().numbered(k) else {
            return;
        };
        let (capture, _) = proxy.recordings().capture(k);
        let fixture = numbered(self.outputs.fixture, n);
        let raw = self.outputs.raw.map(|p| numbered(p, n));
        let timing = self.outputs.timing.map(|p| numbered(p, n));
        let outputs = Outputs {
            fixture: &fixture,
            raw: raw.as_deref(),
            timing: timing.as_deref(),
            allow_stray: self.outputs.allow_stray,
        };
        if let Err(unsaved) = write_capture(&capture, &outputs, self.rules) {
            if !matches!(self.unsaved, Some(Unsaved::Error(_))) {
                self.unsaved = Some(unsaved);
            }
        }
    }

    /// The command's outcome: success when every session was written whole.
    fn outcome(self) -> Result<Outcome, Error> {
        match self.unsaved {
            None => Ok(Outcome::Success),
            Some(unsaved) => unsaved.ended(),
        }
    }
}

/// `path` for session `n` (0 first): itself for the first, NAME-N.EXT (N from 2) for the
/// others.
fn numbered(path: &Path, n: usize) -> PathBuf {
    if n == 0 {
        return path.to_owned();
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("fixture.jsonl");
    let (stem, ext) = match name.split_once('.') {
        Some((stem, ext)) => (stem, format!(".{ext}")),
        None => (name, String::new()),
    };
    path.with_file_name(format!("{stem}-{}{ext}", n + 1))
}

/// Resolves once the client, after its first request, has had no connection open for `idle`.
async fn client_gone(proxy: &Proxy, open: &Connections, idle: Duration) {
    let _ = proxy.asked.subscribe().wait_for(|asked| *asked).await;
    open.idle_for(idle).await;
}

/// The request to forward upstream: the client's method, its path on the upstream, its
/// end-to-end headers with `--header`'s added, and a `Host` that names the upstream unless
/// the client named another host.
fn upstream_request(
    proxy: &Proxy,
    parts: &http::request::Parts,
    body: Bytes,
) -> Request<Full<Bytes>> {
    let mut upstream = Request::new(Full::new(body));
    *upstream.method_mut() = parts.method.clone();
    *upstream.uri_mut() = upstream_uri(&proxy.upstream, &parts.uri);
    *upstream.headers_mut() = end_to_end(&parts.headers);
    for (name, value) in &proxy.headers {
        upstream.headers_mut().insert(name.clone(), value.clone());
    }
    match parts.headers.get(HOST) {
        Some(host) if !names_proxy(host, proxy.local) => {
            upstream.headers_mut().insert(HOST, host.clone());
        }
        _ => {
            if let Ok(host) = HeaderValue::from_str(&authority(&proxy.upstream)) {
                upstream.headers_mut().insert(HOST, host);
            }
        }
    }
    upstream
}

/// Forwards one request upstream and its response back, teeing the messages.
async fn forward(
    proxy: Arc<Proxy>,
    request: Request<Incoming>,
) -> Result<Response<ProxyBody>, Infallible> {
    proxy.asked.send_replace(true);
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, REQUEST_LIMIT).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            return Ok(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("mcp-replay record: the request body could not be read: {e}"),
            ))
        }
    };
    let Some(routed) = Routed::of(&proxy, &parts, &body) else {
        return Ok(plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "mcp-replay record: every session this recording takes (--sessions) has started"
                .to_owned(),
        ));
    };
    let tap = routed.recording.as_ref().map(|(_, tap)| tap.clone());
    let teed = match (&tap, parts.method == Method::POST) {
        (Some(tap), true) => tee_client(tap, &body),
        _ => Vec::new(),
    };
    let upstream = upstream_request(&proxy, &parts, body);
    let response = match proxy.client.request(upstream).await {
        Ok(response) => response,
        Err(e) => {
            let message = format!(
                "mcp-replay record: the upstream {} failed: {}",
                proxy.upstream,
                chain(&e)
            );
            eprintln!("{message}");
            // The server never got them: they are no part of the session.
            untee(tap.as_ref(), &teed);
            return Ok(plain(StatusCode::BAD_GATEWAY, message));
        }
    };
    routed.answered(&proxy, &parts.method, &response);
    let (mut parts, body) = response.into_parts();
    let content_type = parts
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase());
    let kind = match content_type.as_deref() {
        Some("application/json") => Kind::Json(Vec::new()),
        Some("text/event-stream") => Kind::Sse(SseParser::with_limit(TEE_LIMIT), Vec::new()),
        _ => Kind::Other,
    };
    if matches!(kind, Kind::Other)
        && (parts.status.is_client_error() || parts.status.is_server_error())
    {
        // Refused before it became a JSON-RPC message (a foreign Host, a bad session id
        // answered in plain text): no answer the fixture could hold, and the headers that
        // made the difference are never recorded, so a replay could not be refused alike.
        untee(tap.as_ref(), &teed);
    }
    parts.headers = end_to_end(&parts.headers);
    let tee = Tee {
        inner: body,
        kind,
        tap,
        ended: false,
        request: request_id(&teed),
    };
    Ok(Response::from_parts(parts, tee.boxed()))
}

/// Which recording a request's messages go into (`recordings.rs` decides).
struct Routed {
    /// The recording and its tap (none: a request of no recorded session).
    recording: Option<(usize, Tap)>,
    /// The request is the `initialize` that began the recording.
    began: bool,
}

impl Routed {
    /// Routes a request by its session; `None` past `--sessions` (a new session refused).
    fn of(proxy: &Proxy, parts: &http::request::Parts, body: &[u8]) -> Option<Routed> {
        let post = parts.method == Method::POST;
        let initialize = post
            && serde_json::from_slice::<serde_json::Value>(body)
                .is_ok_and(|m| m["method"] == "initialize");
        let asked = Asked {
            session: parts.headers.get(SESSION_ID).map(HeaderValue::as_bytes),
            post,
            initialize,
        };
        let into = proxy.recordings().route(asked, Instant::now());
        match into {
            Into::Session { k, started } => Some(Routed {
                recording: Some((k, proxy.recordings().capture(k))),
                began: started && initialize,
            }),
            Into::Unrecorded => Some(Routed {
                recording: None,
                began: false,
            }),
            Into::Refused => None,
        }
    }

    /// What the upstream's answer to the request (`method`) says of its recording: the
    /// session id its `initialize` was given (or the refusal of it), or the session's end
    /// (a DELETE it accepted: the recording is written).
    fn answered<B>(&self, proxy: &Proxy, method: &Method, response: &Response<B>) {
        let Some((k, _)) = self.recording else { return };
        let accepted = response.status().is_success();
        if self.began && !accepted {
            proxy.recordings().refuse(k);
        } else if self.began {
            let id = response.headers().get(SESSION_ID);
            proxy.recordings().name(k, id.map(HeaderValue::as_bytes));
        }
        if *method == Method::DELETE && accepted {
            proxy.recordings().end(k);
            let _ = proxy.ended.send(k);
        }
    }
}

/// Where a session's messages are teed: its capture, and when it began.
type Tap = (Capture, Instant);

/// Captures the JSON-RPC message(s) of a POST body (a batch: each element), and returns
/// the lines captured.
fn tee_client(tap: &Tap, body: &[u8]) -> Vec<Vec<u8>> {
    let lines = match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Array(messages)) => messages
            .iter()
            .map(|message| message.to_string().into_bytes())
            .collect(),
        Ok(_) => vec![one_line(body)],
        Err(_) => {
            eprintln!("mcp-replay record: left out a POST body that is not JSON");
            Vec::new()
        }
    };
    for line in &lines {
        capture(tap, Direction::ClientToServer, line.clone());
    }
    lines
}

/// Takes back client lines [`tee_client`] captured (the last capture of each).
fn untee(tap: Option<&Tap>, lines: &[Vec<u8>]) {
    let Some((capture, _)) = tap else { return };
    let mut capture = capture.lock().unwrap_or_else(|e| e.into_inner());
    for line in lines {
        let last = capture
            .iter()
            .rposition(|(d, l, _)| *d == Direction::ClientToServer && l == line);
        if let Some(at) = last {
            capture.remove(at);
        }
    }
}

fn capture((capture, start): &Tap, direction: Direction, line: Vec<u8>) {
    capture
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((direction, line, start.elapsed()));
}

/// A message's bytes as one line (re-serialized only when it spans lines).
fn one_line(bytes: &[u8]) -> Vec<u8> {
    if bytes.contains(&b'\n') || bytes.contains(&b'\r') {
        match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(value) => value.to_string().into_bytes(),
            Err(_) => bytes.to_vec(),
        }
    } else {
        bytes.to_vec()
    }
}

/// The client's path and query on the upstream's scheme and authority.
fn upstream_uri(upstream: &Uri, asked: &Uri) -> Uri {
    let mut parts = upstream.clone().into_parts();
    parts.path_and_query = asked.path_and_query().cloned();
    Uri::from_parts(parts).unwrap_or_else(|_| upstream.clone())
}

/// Whether a request's `Host` names the proxy at `local`: its port, and its address, a
/// loopback one or `localhost` (a client that connected to the proxy by its address).
/// Such a `Host` is rewritten to the upstream's; any other passes unchanged, since it is
/// what the client meant: a DNS rebinding attack (the conformance suite's
/// `dns-rebinding-protection` sends `Host: evil.example.com`) must reach the server as sent,
/// or the proxy would turn the server's refusal into a success.
fn names_proxy(host: &HeaderValue, local: SocketAddr) -> bool {
    let Some((name, port)) = crate::net::host_of(host) else {
        return false;
    };
    if port != Some(local.port()) {
        return false;
    }
    match name.parse::<std::net::IpAddr>() {
        Ok(ip) => ip == local.ip() || ip.is_loopback() || local.ip().is_unspecified(),
        Err(_) => name == "localhost",
    }
}

/// The headers without the hop-by-hop ones (and those `Connection` names) and `Host`.
fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let named: Vec<String> = headers
        .get_all(http::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| v.trim().to_ascii_lowercase())
        .collect();
    let mut out = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let lower = name.as_str();
        if lower == "host" || HOP_BY_HOP.contains(&lower) || named.iter().any(|n| n == lower) {
            continue;
        }
        out.append(HeaderName::clone(name), value.clone());
    }
    out
}

fn plain(status: StatusCode, text: String) -> Response<ProxyBody> {
    let mut response = Response::new(
        Full::new(Bytes::from(text))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// How a response body is teed.
enum Kind {
    /// A JSON body: its message(s) once it ended.
    Json(Vec<u8>),
    /// An SSE stream: each event's message as it passes.
    Sse(SseParser, Vec<SseEvent>),
    /// Anything else (an error page, an empty 202): not teed.
    Other,
}

/// A response body passed through frame by frame, its messages captured on the way
/// (before the frame goes on: the capture's order is the order the client could react).
struct Tee {
    inner: Incoming,
    kind: Kind,
    /// The session's recording (none: a request of no recorded session).
    tap: Option<Tap>,
    /// The server ended the body (else the client dropped it first).
    ended: bool,
    /// The id of the request this body answers (a POST of one request).
    request: Option<Vec<u8>>,
}

/// The id of the one request a POST carried, as JSON (`None` for a batch, a notification
/// or an answer).
fn request_id(teed: &[Vec<u8>]) -> Option<Vec<u8>> {
    let [line] = teed else { return None };
    let message: serde_json::Value = serde_json::from_slice(line).ok()?;
    message.get("method")?;
    Some(message.get("id")?.to_string().into_bytes())
}

impl Drop for Tee {
    /// An SSE stream the client closed before the server ended it (it leaves a
    /// `subscriptions/listen` stream that way, and from 2026-07-28 on cancels any request
    /// so): a client line of a NUL and the request's id marks where (`capture::save`).
    fn drop(&mut self) {
        if let (false, Kind::Sse(..), Some(tap)) = (self.ended, &self.kind, &self.tap) {
            let mut marker = vec![crate::capture::DROPPED];
            marker.extend(self.request.take().unwrap_or_default());
            capture(tap, Direction::ClientToServer, marker);
        }
    }
}

impl Tee {
    fn see(&mut self, data: &Bytes) {
        match &mut self.kind {
            Kind::Json(bytes) => {
                if bytes.len() + data.len() > TEE_LIMIT {
                    eprintln!(
                        "mcp-replay record: left out a JSON body over {TEE_LIMIT} bytes (passed on)"
                    );
                    self.kind = Kind::Other;
                } else {
                    bytes.extend_from_slice(data);
                }
            }
            Kind::Sse(parser, events) => {
                if let Err(e) = parser.feed(data, events) {
                    eprintln!(
                        "mcp-replay record: stopped reading an SSE stream ({e}); its bytes still pass"
                    );
                    self.kind = Kind::Other;
                    return;
                }
                for event in std::mem::take(events) {
                    if let (false, Some(tap)) = (event.data.is_empty(), &self.tap) {
                        capture(
                            tap,
                            Direction::ServerToClient,
                            one_line(event.data.as_bytes()),
                        );
                    }
                }
            }
            Kind::Other => {}
        }
    }

    fn end(&mut self) {
        self.ended = true;
        let Some(tap) = &self.tap else { return };
        if let Kind::Json(bytes) = std::mem::replace(&mut self.kind, Kind::Other) {
            match serde_json::from_slice::<serde_json::Value>(&bytes) {
                Ok(serde_json::Value::Array(messages)) => {
                    for message in messages {
                        capture(tap, Direction::ServerToClient, message.to_string().into());
                    }
                }
                Ok(_) => capture(tap, Direction::ServerToClient, one_line(&bytes)),
                Err(_) if bytes.is_empty() => {}
                Err(_) => eprintln!("mcp-replay record: left out a JSON body that is not JSON"),
            }
        }
    }
}

impl Body for Tee {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.see(data);
                }
                if this.inner.is_end_stream() {
                    // The last frame: the server may not be polled again for the end.
                    this.end();
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => {
                this.end();
                Poll::Ready(None)
            }
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_each_session_after_the_first_beside_it() {
        let p = Path::new("fixtures/session.jsonl");
        assert_eq!(numbered(p, 0), p);
        assert_eq!(numbered(p, 1), Path::new("fixtures/session-2.jsonl"));
        let timing = Path::new("t/session.timing.jsonl");
        assert_eq!(numbered(timing, 2), Path::new("t/session-3.timing.jsonl"));
    }

    #[test]
    fn a_host_naming_the_proxy_is_rewritten_and_any_other_passes() {
        let local: SocketAddr = "127.0.0.1:4100".parse().unwrap();
        let host = |h: &'static str| HeaderValue::from_static(h);
        for ours in [
            "127.0.0.1:4100",
            "localhost:4100",
            "LOCALHOST:4100",
            "[::1]:4100",
        ] {
            assert!(names_proxy(&host(ours), local), "{ours}");
        }
        for theirs in [
            "evil.example.com",
            "evil.example.com:4100",
            "127.0.0.1:4101",
            "localhost",
            "10.1.2.3:4100",
            "not a host",
        ] {
            assert!(!names_proxy(&host(theirs), local), "{theirs}");
        }
        let any: SocketAddr = "0.0.0.0:4100".parse().unwrap();
        assert!(names_proxy(&host("10.1.2.3:4100"), any));
    }
}
