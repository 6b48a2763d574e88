//! The server side of MCP's Streamable HTTP transport, in front of a server that speaks
//! newline-delimited JSON-RPC on a pipe (the mock server of [`Mock::http`](crate::engine::mock::Mock::http)).
//!
//! [`Front`] is a tower `Service<http::Request<B>>` (and [`Front::handle`] the same as an
//! `async fn`), so it mounts on any HTTP server, or is called in process. It serves one
//! session at one endpoint, `/mcp`:
//!
//! - `POST` a request: `200` with an SSE stream (`text/event-stream`) when the client
//!   accepts one, carrying every message the server writes while the request is the most
//!   recent open one (progress, logs, its own requests) and ending after the response; with
//!   the response alone as `application/json` when the client accepts only JSON.
//!   A notification or a response to a server request: `202 Accepted`, no body. A body
//!   that is not JSON: `400` with a JSON-RPC error; over the body limit: `413`.
//! - From protocol 2026-07-28 on (the POST's `MCP-Protocol-Version`), the standard headers
//!   must mirror the body: `Mcp-Method`, `Mcp-Name` (for a tool, prompt, resource or task)
//!   and a `tools/call`'s `Mcp-Param-*` headers as the listed tool's schema asks
//!   (`x-mcp-header`); else `400` with the JSON-RPC error `-32020` (HeaderMismatch).
//! - `initialize` issues an `Mcp-Session-Id`; every later request must carry it (`400`
//!   without it, `404` with another one). A session that starts without `initialize`
//!   (protocol 2026-07-28, `server/discover`) is stateless: no id is issued or checked.
//! - `GET` (accepting `text/event-stream`): the stream for the server's messages that
//!   belong to no open POST stream, such as a `list_changed` after the responses. What the
//!   server writes while none is open is held until one opens.
//! - `DELETE`: ends the session: the pipe to the server is closed (a mock then reports).
//!
//! Each SSE event has an `id:` (unique in the session) and `event: message`.
//! Resumption (`Last-Event-ID`) is offered only for a stream a fault on cue cut
//! (`data/faults.rs`, `reset`): the `GET` with its last event id gets the answer it lost;
//! otherwise a reconnecting GET gets what was held. The faults only HTTP has are carried
//! out here on the mock's order (a line with `FAULT_KEY`): a status instead of the
//! answer (so a POST's head waits for its first event), the stream cut, the answer
//! trickled.

use super::bridge::{write_lines, ACCEPT_BOTH, SESSION_ID};
use super::headers::{check_standard, ToolSchemas, HEADER_MISMATCH};
use crate::data::fixture::MessageKind;
use crate::data::json::json_eq;
use crate::engine::mock::MockServer;
use crate::engine::mock::FAULT_KEY;
use crate::engine::transport::LineReader;
use crate::findings::report::{Mismatch, MismatchKind, Report};
pub use body::FrontBody;
use body::{error_answering, error_response, event_stream, json_answer, refuse, status_instead};

use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_TYPE, HOST, ORIGIN};
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri};
use http_body::{Body, Frame, SizeHint};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};
use tower_service::Service;

/// The path the front serves; any other path is `404`.
pub const ENDPOINT: &str = "/mcp";

/// The JSON-RPC error code of a body that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// The JSON-RPC error code of a body that is JSON but no JSON-RPC message.
const INVALID_REQUEST: i64 = -32600;
/// The JSON-RPC error code of an HTTP-level refusal (session, method, headers).
const SERVER_ERROR: i64 = -32000;

/// A Streamable HTTP endpoint for one session with a line-speaking server. Cheap to
/// clone: every clone serves the same session.
#[derive(Clone)]
pub struct Front {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Front {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Front")
            .field("body_limit", &self.shared.body_limit)
            .finish_non_exhaustive()
    }
}

struct Shared {
    state: Mutex<State>,
    /// The largest request body, in bytes.
    body_limit: usize,
    /// Set once the session has ended (DELETE, or the server closed its side).
    ended: watch::Sender<bool>,
    /// Set once the server has closed its side of the pipe.
    closed: watch::Sender<bool>,
    /// What the client did wrong at the HTTP level, in order: each refusal, a sentence.
    refusals: Mutex<Vec<String>>,
    /// What the client did at the HTTP level after a fault on cue (a resumption), for the
    /// report's notes.
    notes: Mutex<Vec<String>>,
    /// How many requests came, for the refusals to name them.
    requests: std::sync::atomic::AtomicUsize,
}

/// The reason a response refuses the request, kept in its extensions for the report.
#[derive(Clone)]
struct Refusal(String);

#[derive(Default)]
struct State {
    /// Lines for the server; `None` once the session ended.
    to_server: Option<mpsc::UnboundedSender<Vec<u8>>>,
    /// The id `initialize` issued; `None` while stateless.
    session: Option<String>,
    /// The requests waiting for their response, oldest first.
    posts: Vec<Waiting>,
    /// The GET stream, while one is open.
    get: Option<mpsc::UnboundedSender<Event>>,
    /// Server messages for no stream yet, in order.
    held: Vec<Bytes>,
    /// The id of the next SSE event.
    next_event: u64,
    /// Answers on streams a fault cut, each with the id of the last event its stream
    /// carried: a `GET` with that `Last-Event-ID` gets it.
    resumable: Vec<(u64, Bytes)>,
    ended: bool,
    /// The tools the server listed (and those the recording lists), for the check of the
    /// `Mcp-Param-*` headers.
    tools: ToolSchemas,
}

/// A request whose answer is being sent (an SSE stream) or awaited (JSON).
struct Waiting {
    id: Value,
    to: mpsc::UnboundedSender<Event>,
    /// An SSE stream, which also carries the server's other messages.
    stream: bool,
}

/// What goes to a response: one server message (a line of JSON) and its event id, or
/// what a fault on cue makes of one (`data/faults.rs`).
enum Event {
    Message {
        id: u64,
        line: Bytes,
    },
    /// Bytes as they are: a piece of a trickled answer, or an event with an id and no
    /// data (what a client resumes from).
    Raw(Bytes),
    /// This status instead of the answer (before the response's head).
    Status(StatusCode),
    /// The stream breaks here, as a connection reset does.
    Reset,
}

impl Event {
    /// The SSE event of a message.
    fn sse(id: u64, line: &[u8]) -> Bytes {
        let mut frame = Vec::with_capacity(line.len() + 40);
        frame.extend_from_slice(format!("id: {id}\nevent: message\ndata: ").as_bytes());
        frame.extend_from_slice(line);
        frame.extend_from_slice(b"\n\n");
        frame.into()
    }
}

impl State {
    /// Sends `line` on `to` as the next event; gives it back when the stream is gone.
    fn send(&mut self, to: &mpsc::UnboundedSender<Event>, line: Bytes) -> Result<(), Bytes> {
        let id = self.next_event;
        match to.send(Event::Message { id, line }) {
            Ok(()) => {
                self.next_event += 1;
                Ok(())
            }
            Err(mpsc::error::SendError(Event::Message { line, .. })) => Err(line),
            Err(_) => unreachable!("a message was sent"),
        }
    }

    /// Routes one line the server wrote: a response to the stream (or the wait) of its
    /// request, which then ends (to nothing when that request is gone); anything else to the most recent open POST stream, else
    /// the GET stream, else held for the next GET stream.
    fn route(&mut self, line: Bytes) {
        let Ok(mut message) = serde_json::from_slice::<Value>(&line) else {
            return self.broadcast(line);
        };
        if let Some(order) = message.get(FAULT_KEY).cloned() {
            return self.fault(&order, message["message"].take());
        }
        if MessageKind::of(&message) == Ok(MessageKind::Response) {
            self.tools.learn(&message);
            let id = message.get("id").unwrap_or(&Value::Null);
            if let Some(at) = self.posts.iter().position(|w| json_eq(&w.id, id)) {
                let waiting = self.posts.remove(at);
                // A client that is gone misses its response.
                let _ = self.send(&waiting.to, line);
            }
            // A response no POST waits for goes nowhere: on another request's stream, a
            // client would take it for that request's answer.
            return;
        }
        self.broadcast(line);
    }

    /// Carries out a fault only HTTP has on `answer`, the response to a waiting request
    /// (`order` as the header's `"faults"` spells it): a status instead of the answer; the
    /// stream cut after an event to resume from, the answer kept for the `GET` that resumes
    /// with `Last-Event-ID`; or the answer written a few bytes at a time.
    fn fault(&mut self, order: &Value, answer: Value) {
        let id = answer.get("id").unwrap_or(&Value::Null);
        let Some(at) = self.posts.iter().position(|w| json_eq(&w.id, id)) else {
            return;
        };
        let waiting = self.posts.remove(at);
        let line = Bytes::from(answer.to_string());
        if let Some(status) = order.get("status").and_then(Value::as_u64) {
            let status = u16::try_from(status)
                .ok()
                .and_then(|s| StatusCode::from_u16(s).ok())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let _ = waiting.to.send(Event::Status(status));
        } else if order.get("reset") == Some(&Value::Bool(true)) && !waiting.stream {
            // A JSON answer has nothing to resume from: the connection breaks.
            let _ = waiting.to.send(Event::Reset);
        } else if order.get("reset") == Some(&Value::Bool(true)) {
            let prime = self.next_event;
            self.next_event += 1;
            let event = format!("id: {prime}\nretry: 100\ndata: \n\n");
            let _ = waiting.to.send(Event::Raw(event.into()));
            self.resumable.push((prime, line));
            // The break a moment later: the event must reach the client first.
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                let _ = waiting.to.send(Event::Reset);
            });
        } else if let Some(ms) = order.get("trickle_ms").and_then(Value::as_u64) {
            let frame = if waiting.stream {
                self.next_event += 1;
                Event::sse(self.next_event - 1, &line)
            } else {
                line
            };
            tokio::spawn(async move {
                for piece in frame.chunks(16) {
                    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                    let piece = Bytes::copy_from_slice(piece);
                    if waiting.to.send(Event::Raw(piece)).is_err() {
                        return;
                    }
                }
            });
        }
    }

    fn broadcast(&mut self, mut line: Bytes) {
        self.posts.retain(|w| !w.to.is_closed());
        let streams: Vec<_> = self
            .posts
            .iter()
            .rev()
            .filter(|w| w.stream)
            .map(|w| w.to.clone())
            .collect();
        for to in streams.iter().chain(self.get.clone().as_ref()) {
            match self.send(to, line) {
                Ok(()) => return,
                Err(back) => line = back,
            }
        }
        self.get = None;
        self.held.push(line);
    }

    /// Ends the session: the pipe to the server and every stream close.
    fn end(&mut self) {
        self.ended = true;
        self.to_server = None;
        self.posts.clear();
        self.get = None;
        self.held.clear();
    }
}

impl Front {
    /// A front for the server on the other end of `io` (it reads the server's lines and
    /// writes the client's), with a 16 MiB limit on request bodies. Spawns its tasks on
    /// the current tokio runtime.
    pub fn new<T>(io: T) -> Front
    where
        T: AsyncRead + AsyncWrite + Send + 'static,
    {
        Front::with_body_limit(io, super::sse::DEFAULT_LIMIT)
    }

    /// [`new`](Front::new) with the largest request body of your own, in bytes (larger:
    /// `413 Payload Too Large`).
    pub fn with_body_limit<T>(io: T, body_limit: usize) -> Front
    where
        T: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (read, write) = tokio::io::split(io);
        let (to_server, lines) = mpsc::unbounded_channel();
        tokio::spawn(write_lines(write, lines));
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                to_server: Some(to_server),
                ..State::default()
            }),
            body_limit,
            ended: watch::Sender::new(false),
            closed: watch::Sender::new(false),
            refusals: Mutex::default(),
            notes: Mutex::default(),
            requests: Default::default(),
        });
        tokio::spawn(read_server(read, shared.clone()));
        Front { shared }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Resolves once the session has ended: the client sent `DELETE`, the server closed
    /// its side, or [`close`](Front::close) was called.
    pub async fn ended(&self) {
        let mut ended = self.shared.ended.subscribe();
        let _ = ended.wait_for(|ended| *ended).await;
    }

    /// Whether the session has ended.
    pub fn is_ended(&self) -> bool {
        *self.shared.ended.borrow()
    }

    /// Ends the session (every stream closes, later requests get `404`) and closes the
    /// pipe to the server, then waits until the server has closed its side.
    pub async fn close(&self) {
        self.end();
        let mut closed = self.shared.closed.subscribe();
        let _ = closed.wait_for(|closed| *closed).await;
    }

    fn end(&self) {
        self.state().end();
        self.shared.ended.send_replace(true);
    }

    /// Answers one HTTP request of the session.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<FrontBody>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let n = 1 + self
            .shared
            .requests
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let method = request.method().clone();
        let response = self.answer(request).await;
        // A 405 says what this server does not offer (a GET stream, a DELETE in a
        // stateless session): a client may ask. Any other refusal is the client's mistake.
        let refused = response.status() != StatusCode::METHOD_NOT_ALLOWED;
        if let (true, Some(Refusal(reason))) = (refused, response.extensions().get::<Refusal>()) {
            self.shared
                .refusals
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(format!(
                    "{method} #{n}: refused with HTTP {}: {reason}",
                    response.status()
                ));
        }
        response
    }

    async fn answer<B>(&self, request: Request<B>) -> Response<FrontBody>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        if request.uri().path() != ENDPOINT {
            return refuse(
                StatusCode::NOT_FOUND,
                format!("Not Found: the MCP endpoint is {ENDPOINT}"),
            );
        }
        if !origin_allowed(request.headers()) {
            return refuse(
                StatusCode::FORBIDDEN,
                "Forbidden: the Origin is neither this host nor a loopback address",
            );
        }
        match *request.method() {
            Method::POST => self.post(request).await,
            Method::GET => self.get(request.headers()),
            Method::DELETE => self.delete(request.headers()),
            _ => {
                let mut response = refuse(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "Method Not Allowed: use POST, GET or DELETE",
                );
                response
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                response
            }
        }
    }

    async fn post<B>(&self, request: Request<B>) -> Response<FrontBody>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        let (body, message, kind) = match self.read_message(body).await {
            Ok(read) => read,
            Err(refusal) => return refusal,
        };
        let (json, sse) = accepts(&parts.headers);
        if kind == MessageKind::Request && !json && !sse {
            return refuse(
                StatusCode::NOT_ACCEPTABLE,
                format!("Not Acceptable: the Accept header must name {ACCEPT_BOTH}"),
            );
        }
        let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
        let line = crate::engine::transport::one_line(Some(&body), &message);
        let (to, mut answers) = mpsc::unbounded_channel();
        let mut issued = None;
        {
            let mut state = self.state();
            if !initialize || state.ended {
                if let Err(refusal) = check_session(&state, &parts.headers) {
                    return refusal;
                }
            }
            if let Err(reason) = check_standard(&parts.headers, &message, &state.tools) {
                return error_answering(
                    message.get("id").unwrap_or(&Value::Null),
                    StatusCode::BAD_REQUEST,
                    HEADER_MISMATCH,
                    format!("Bad Request: {reason}"),
                );
            }
            if initialize && state.session.is_none() {
                state.session = Some(new_session_id());
            }
            if initialize {
                issued = state.session.clone();
            }
            if kind == MessageKind::Request {
                state.posts.push(Waiting {
                    id: message.get("id").cloned().unwrap_or(Value::Null),
                    to,
                    stream: sse,
                });
            }
            // The session is not ended (checked above): the pipe is open.
            if let Some(to_server) = &state.to_server {
                let _ = to_server.send(line);
            }
        }
        let mut response = if kind != MessageKind::Request {
            let mut accepted = Response::new(FrontBody::empty());
            *accepted.status_mut() = StatusCode::ACCEPTED;
            accepted
        } else if sse {
            // The head waits for the first event: a fault may answer with a status instead.
            match answers.recv().await {
                Some(Event::Status(status)) => status_instead(status),
                first => event_stream(first, answers, "text/event-stream"),
            }
        } else {
            json_answer(answers).await
        };
        if let Some(id) = issued.and_then(|id| HeaderValue::from_str(&id).ok()) {
            response.headers_mut().insert(SESSION_ID, id);
        }
        response
    }

    /// The POST's body, parsed: one JSON-RPC message and its kind, or the refusal (413 over
    /// the limit, 400 for a body that is not JSON or not one message).
    async fn read_message<B>(
        &self,
        body: B,
    ) -> Result<(Bytes, Value, MessageKind), Response<FrontBody>>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let limit = self.shared.body_limit;
        let body = match Limited::new(body, limit).collect().await {
            Ok(body) => body.to_bytes(),
            Err(error) if error.is::<LengthLimitError>() => {
                return Err(refuse(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("Payload Too Large: the body is larger than {limit} bytes"),
                ))
            }
            Err(error) => {
                return Err(refuse(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: reading the body failed: {error}"),
                ))
            }
        };
        let message = serde_json::from_slice::<Value>(&body).map_err(|error| {
            error_response(
                StatusCode::BAD_REQUEST,
                PARSE_ERROR,
                format!("Parse error: the body is not JSON ({error})"),
            )
        })?;
        let kind = MessageKind::of(&message).map_err(|reason| {
            error_response(
                StatusCode::BAD_REQUEST,
                INVALID_REQUEST,
                format!("Invalid Request: not one JSON-RPC message: {reason}"),
            )
        })?;
        Ok((body, message, kind))
    }

    fn get(&self, headers: &HeaderMap) -> Response<FrontBody> {
        if !accepts(headers).1 {
            return refuse(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: the GET stream is text/event-stream",
            );
        }
        let mut state = self.state();
        if let Err(refusal) = check_session(&state, headers) {
            return refusal;
        }
        // A client resuming a stream a fault cut gets what that stream still owed; one
        // resuming after an event this session never sent is told so (an event it did
        // send, with nothing owed, resumes to a plain GET stream).
        let resumed = match headers.get("last-event-id") {
            None => None,
            Some(v) => match v.to_str().ok().and_then(|v| v.trim().parse::<u64>().ok()) {
                Some(last) if last < state.next_event => Some(last),
                _ => {
                    return refuse(
                        StatusCode::BAD_REQUEST,
                        format!(
                            "Bad Request: Last-Event-ID {} names no event of this session",
                            String::from_utf8_lossy(v.as_bytes())
                        ),
                    )
                }
            },
        };
        let (to, events) = mpsc::unbounded_channel();
        if let Some(last) = resumed {
            let (owed, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut state.resumable)
                .into_iter()
                .partition(|(after, _)| *after == last);
            state.resumable = kept;
            for (_, line) in owed {
                let _ = state.send(&to, line);
                self.shared
                    .notes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(format!(
                        "the client resumed the stream cut after event {last} with \
                         GET Last-Event-ID: {last}, and got the answer on it"
                    ));
            }
        }
        for line in std::mem::take(&mut state.held) {
            // The receiver is alive: it is answered below.
            let _ = state.send(&to, line);
        }
        // A new GET stream takes over from an older one, which ends.
        state.get = Some(to);
        event_stream(None, events, "text/event-stream")
    }

    fn delete(&self, headers: &HeaderMap) -> Response<FrontBody> {
        {
            let state = self.state();
            if let Err(refusal) = check_session(&state, headers) {
                return refusal;
            }
            if state.session.is_none() {
                let mut response = refuse(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "Method Not Allowed: this session is stateless (no Mcp-Session-Id to end)",
                );
                response
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("GET, POST"));
                return response;
            }
        }
        self.end();
        Response::new(FrontBody::empty())
    }
}

impl<B> Service<Request<B>> for Front
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<FrontBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<FrontBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let front = self.clone();
        Box::pin(async move { Ok(front.handle(request).await) })
    }
}

/// Reads the server's lines and routes each; when the server closes its side, the
/// session ends.
async fn read_server<R: AsyncRead + Unpin>(read: R, shared: Arc<Shared>) {
    let mut lines = LineReader::new(read);
    while let Ok(Some((_, line))) = lines.next().await {
        let line = Bytes::copy_from_slice(line);
        shared
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .route(line);
    }
    shared.state.lock().unwrap_or_else(|e| e.into_inner()).end();
    shared.ended.send_replace(true);
    shared.closed.send_replace(true);
}

/// The session check of every request but `initialize`: `404` once the session ended;
/// with a session, `400` without its id and `404` with another one.
#[allow(clippy::result_large_err)]
fn check_session(state: &State, headers: &HeaderMap) -> Result<(), Response<FrontBody>> {
    if state.ended {
        return Err(refuse(
            StatusCode::NOT_FOUND,
            "Not Found: the session has ended",
        ));
    }
    let Some(ours) = &state.session else {
        return Ok(());
    };
    match headers.get(SESSION_ID) {
        None => Err(refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required after initialize",
        )),
        Some(theirs) if theirs.as_bytes() == ours.as_bytes() => Ok(()),
        Some(_) => Err(refuse(
            StatusCode::NOT_FOUND,
            "Not Found: no session has this Mcp-Session-Id",
        )),
    }
}

/// Whether the Accept header takes JSON and whether it takes SSE (no header: JSON).
fn accepts(headers: &HeaderMap) -> (bool, bool) {
    let mut any = false;
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(ACCEPT) {
        any = true;
        let Ok(value) = value.to_str() else { continue };
        for range in value.split(',') {
            let range = range.split(';').next().unwrap_or("").trim();
            let range = range.to_ascii_lowercase();
            json |= matches!(range.as_str(), "application/json" | "application/*" | "*/*");
            sse |= range == "text/event-stream";
        }
    }
    (json || !any, sse)
}

/// A request from a browser page is served only when the page is on this host or on a
/// loopback address (DNS rebinding); a request without `Origin` is not from a page.
fn origin_allowed(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(ORIGIN) else {
        return true;
    };
    let host = |value: &HeaderValue| {
        let uri = value.to_str().ok()?.parse::<Uri>().ok()?;
        let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
        Some(host.to_ascii_lowercase())
    };
    let Some(origin) = host(origin) else {
        return false;
    };
    let this = headers.get(HOST).and_then(|h| {
        let authority = h.to_str().ok()?.parse::<http::uri::Authority>().ok()?;
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        Some(host.to_ascii_lowercase())
    });
    matches!(origin.as_str(), "localhost" | "127.0.0.1" | "::1") || this == Some(origin)
}

/// A new session id: 128 bits from std's randomly keyed hasher (keys from the operating
/// system), the time and the process, in hex.
fn new_session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    (0..2u8)
        .map(|round| {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u128(now);
            hasher.write_u32(std::process::id());
            hasher.write_u8(round);
            format!("{:016x}", hasher.finish())
        })
        .collect()
}

/// A fixture's mock server behind a [`Front`]: what [`Mock::http`](crate::engine::mock::Mock::http) returns besides
/// the front.
#[derive(Debug)]
pub struct HttpMock {
    front: Front,
    mock: MockServer,
}

impl HttpMock {
    /// Resolves once the session has ended (see [`Front::ended`]).
    pub async fn ended(&self) {
        self.front.ended().await
    }

    /// Resolves once the client has sent every message the recording holds (see
    /// [`MockServer::played`]).
    pub async fn played(&self) {
        self.mock.played().await
    }

    /// Ends the session if it has not ended (closing the mock's pipe, as a client that
    /// closes its side), waits for the mock, and returns its report: the mock's findings,
    /// then an [`Http`](MismatchKind::Http) finding for each request the front refused
    /// (a missing or unknown session id, a body that is not one JSON-RPC message, an
    /// `Accept` without JSON or SSE, ...), in order.
    pub async fn finish(self) -> Report {
        self.front.close().await;
        let mut report = self.mock.finish().await;
        let refusals = std::mem::take(
            &mut *self
                .front
                .shared
                .refusals
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        );
        report.mismatches.extend(
            refusals
                .into_iter()
                .map(|refusal| Mismatch::new(MismatchKind::Http, None, refusal)),
        );
        report.notes.extend(std::mem::take(
            &mut *self
                .front
                .shared
                .notes
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
        ));
        report
    }
}

impl crate::engine::mock::Mock<'_> {
    /// Plays the server over Streamable HTTP, for a client under test: the mock server of
    /// [`server`](crate::engine::mock::Mock::server) behind a [`Front`]. Mount the front on an
    /// HTTP server (or call it); when the session has ended, [`HttpMock::finish`] gives the
    /// report (cargo feature `http`).
    pub fn http(mut self) -> (Front, HttpMock) {
        let tools = ToolSchemas::of(&super::listed_tools(self.fixture()));
        self.options = self.options.over_http();
        let (transport, mock) = self.server();
        let front = Front::new(transport);
        front.state().tools = tools;
        (front.clone(), HttpMock { front, mock })
    }
}

mod body;
#[cfg(test)]
mod tests;
