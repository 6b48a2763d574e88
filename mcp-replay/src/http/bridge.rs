//! The bridge between the replay's pipe and an HTTP service speaking MCP's Streamable
//! HTTP transport.
//!
//! The replay engine writes the fixture's client messages as lines and reads the server's
//! messages as lines ([`Transport`](crate::Transport)'s framing). [`Bridge::run`] sits on
//! the server's end of that pipe: it POSTs each client line to the service as
//! `application/json`, with `Accept: application/json, text/event-stream`, the
//! `Mcp-Session-Id` the `initialize` response issued and the `MCP-Protocol-Version` the
//! server negotiated on every later request; it reads each answer (a JSON body, or an SSE
//! stream whose events each carry one JSON-RPC message) and writes every server message
//! back as a line. When the engine closes the pipe it ends the session with a DELETE.
//!
//! What is wrong at the HTTP level (an unexpected status, a wrong content type, malformed
//! SSE, a missing session id, a stream ending without its response) does not stop the
//! bridge: each problem is pushed as a descriptive sentence into a shared list
//! ([`Problems`]), for the replay to turn into findings.

use super::headers::ToolSchemas;
use super::sse::{SseError, SseEvent, SseParser};
use super::HttpService;
use crate::fixture::ResumePoint;
use crate::transport::LineReader;
use bytes::{Buf, Bytes};
use http::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use http::{Method, Request, Response, StatusCode, Uri};
use http_body::Body;
use http_body_util::{BodyExt, Full};
use serde_json::Value;
use std::collections::HashSet;
use std::fmt::Display;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};

/// The HTTP-level problems a bridge met, in order, each a sentence.
pub type Problems = Arc<Mutex<Vec<String>>>;

pub use crate::protocol::header::{PROTOCOL_VERSION, SESSION_ID};
/// The header a GET resuming a dropped SSE stream carries: the last event id received on it
/// ([`protocol::header::LAST_EVENT_ID`](crate::protocol::header::LAST_EVENT_ID)).
pub const LAST_EVENT_ID: HeaderName =
    HeaderName::from_static(crate::protocol::header::LAST_EVENT_ID);
/// The `Accept` header of every POST: a server may answer JSON or an SSE stream.
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// The endpoint used unless [`Bridge::endpoint`] says otherwise.
const DEFAULT_ENDPOINT: &str = "http://localhost/mcp";
/// How much of an error body a problem quotes.
const EXCERPT: usize = 200;
/// How long a request waits for its response's headers unless [`Bridge::timeout`] says
/// otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a dropped stream waits to resume when the server names no `retry:` time.
pub const RECONNECT: Duration = Duration::from_secs(1);
/// The most of an error body read (a JSON-RPC error in it is forwarded).
const ERROR_BODY_LIMIT: usize = 64 * 1024;
/// How long an error body is waited for.
const ERROR_BODY_WAIT: Duration = Duration::from_secs(1);

/// A bridge from the replay's pipe to a Streamable HTTP service `S`.
///
/// `S` is any tower service taking `http::Request<Full<Bytes>>`, like rmcp's
/// `StreamableHttpService`; its responses' bodies may be any [`Body`] (the bounds are
/// those of [`HttpService`]).
#[derive(Debug)]
pub struct Bridge<S> {
    service: S,
    endpoint: Uri,
    body_limit: usize,
    timeout: Duration,
    reconnect: Option<Duration>,
    problems: Problems,
    /// Whether the GET stream opens before notifications/initialized goes.
    listen_early: bool,
    resume: Vec<ResumePoint>,
    tools: ToolSchemas,
}

/// The service and how to reach it, shared by the bridge and the readers that resume
/// dropped streams.
struct Client<S> {
    service: tokio::sync::Mutex<S>,
    endpoint: Uri,
    timeout: Duration,
    /// How long to wait before resuming a dropped stream (`None`: the server's `retry:`,
    /// else [`RECONNECT`]).
    reconnect: Option<Duration>,
}

/// What a client line is, for the answer it should get.
#[derive(Debug, Clone, PartialEq)]
enum Outgoing {
    /// A request: answered 200 with its response (JSON or SSE).
    Request { id: Value, method: String },
    /// A notification: answered 202.
    Notification { method: String },
    /// A response to a server request: answered 202.
    Response { id: Value },
    /// Anything else (a batch, not JSON): sent as it is, any 2xx accepted.
    Other,
}

impl Outgoing {
    fn classify(message: Option<&Value>) -> Outgoing {
        let Some(Value::Object(message)) = message else {
            return Outgoing::Other;
        };
        let method = message.get("method").and_then(Value::as_str);
        match (method, message.get("id")) {
            (Some(method), Some(id)) => Outgoing::Request {
                id: id.clone(),
                method: method.into(),
            },
            (Some(method), None) => Outgoing::Notification {
                method: method.into(),
            },
            (None, Some(id)) => Outgoing::Response { id: id.clone() },
            (None, None) => Outgoing::Other,
        }
    }

    fn is_initialize(&self) -> bool {
        matches!(self, Outgoing::Request { method, .. } if method == "initialize")
    }

    /// `notifications/initialized`: the session is ready, the GET stream may open.
    fn is_initialized(&self) -> bool {
        matches!(self, Outgoing::Notification { method } if method == "notifications/initialized")
    }

    /// How a problem names the POST.
    fn describe(&self, n: usize) -> String {
        match self {
            Outgoing::Request { id, method } => format!("POST #{n} (request {id}, {method})"),
            Outgoing::Notification { method } => format!("POST #{n} (notification {method})"),
            Outgoing::Response { id } => format!("POST #{n} (response to server request {id})"),
            Outgoing::Other => format!("POST #{n}"),
        }
    }
}

/// What the body readers share with the bridge.
struct Shared {
    problems: Problems,
    /// The protocol version the `initialize` result negotiated.
    protocol_version: Mutex<Option<String>>,
    /// The tools' input schemas, for the `Mcp-Param-*` headers: the recording's, replaced
    /// by the server's own as it lists them.
    tools: Mutex<ToolSchemas>,
    /// Server messages for the pipe, one line each (without its newline).
    lines: mpsc::UnboundedSender<Vec<u8>>,
    body_limit: usize,
}

impl Shared {
    fn problem(&self, problem: String) {
        self.problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(problem);
    }
}

impl<S: HttpService> Bridge<S> {
    /// A bridge to `service` at `http://localhost/mcp`, with a 16 MiB body limit.
    pub fn new(service: S) -> Self {
        Bridge {
            service,
            endpoint: Uri::from_static(DEFAULT_ENDPOINT),
            body_limit: super::sse::DEFAULT_LIMIT,
            timeout: DEFAULT_TIMEOUT,
            reconnect: None,
            problems: Problems::default(),
            listen_early: false,
            resume: Vec::new(),
            tools: ToolSchemas::default(),
        }
    }

    /// The tools listed in `messages` (the `tools/list` results among them, such as a
    /// recording's server messages): from 2026-07-28 on, a `tools/call` carries the
    /// `Mcp-Param-*` headers its tool's input schema asks for with `x-mcp-header`, and the
    /// bridge knows the schema from the server's own `tools/list` results in the session,
    /// else from these. [`Fixture::replay_bridge`] passes the fixture's, so that a
    /// fixture recorded over stdio, where no header was sent, replays over HTTP as well.
    ///
    /// [`Fixture::replay_bridge`]: crate::Fixture::replay_bridge
    pub fn listed_tools<'a>(mut self, messages: impl IntoIterator<Item = &'a Value>) -> Self {
        self.tools = ToolSchemas::of(messages);
        self
    }

    /// Opens the GET stream just before `notifications/initialized` goes, not after it is
    /// answered (what the TypeScript and Python SDK clients do). A server that sends a
    /// message on its own while handling `notifications/initialized` (server-everything
    /// announces a `tools/list_changed`) can only deliver it on a stream already open:
    /// a client that opens it later never sees the message. [`Fixture::replay_bridge`]
    /// listens early exactly when the fixture holds such a message.
    ///
    /// [`Fixture::replay_bridge`]: crate::Fixture::replay_bridge
    pub fn listen_early(mut self, early: bool) -> Self {
        self.listen_early = early;
        self
    }

    /// Where to drop an SSE stream and resume it with `Last-Event-ID` (the fixture's
    /// `"http_resume"`, from [`Fixture::resume_points`](crate::Fixture::resume_points)).
    pub fn resume_at(mut self, points: impl IntoIterator<Item = ResumePoint>) -> Self {
        self.resume = points.into_iter().collect();
        self.resume.sort_by_key(|p| (p.request, p.progress));
        self
    }

    /// The URI every request goes to (its authority is also sent as `Host`).
    pub fn endpoint(mut self, endpoint: Uri) -> Self {
        self.endpoint = endpoint;
        self
    }

    /// How long a request waits for its response's headers (the body of an SSE stream
    /// may take longer): past it, the request is given up and the problem noted.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long to wait before resuming a dropped stream with `Last-Event-ID`. Unless
    /// set, the bridge waits as a client does: the reconnection time the server asked for
    /// in an SSE `retry:` field, else one second (the SDK clients' first delay). A server
    /// needs that moment to notice the disconnect: the Python SDK's, asked at once, does
    /// not hand the rest of the stream to the resumed one.
    pub fn reconnect_delay(mut self, delay: Duration) -> Self {
        self.reconnect = Some(delay);
        self
    }

    /// The largest JSON body, SSE line or SSE event read from the service, in bytes.
    pub fn body_limit(mut self, limit: usize) -> Self {
        self.body_limit = limit;
        self
    }

    /// The list the bridge pushes its problems into (shared: read it after [`run`](Self::run)).
    pub fn problems(&self) -> Problems {
        self.problems.clone()
    }

    /// Serves the pipe `io` (the server's end, e.g. a [`Transport`](crate::Transport))
    /// until the engine closes it: POSTs each client line and writes back what the
    /// service answers, then DELETEs the session and closes the pipe.
    pub async fn run<T>(self, io: T)
    where
        T: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (read, write) = tokio::io::split(io);
        let mut session = Session::start(self, write);
        let mut lines = LineReader::new(read);
        while let Ok(Some((_, line))) = lines.next().await {
            session.post(line).await;
        }
        // The engine has closed its end: it reads nothing more.
        session.end().await;
    }
}

/// One run of a [`Bridge`]: the session it holds with the service, from the first POST to
/// the DELETE.
struct Session<S> {
    client: Arc<Client<S>>,
    shared: Arc<Shared>,
    /// Writes the server's lines to the pipe (until `shared` and the readers are gone).
    writer: JoinHandle<()>,
    /// The `Mcp-Session-Id` the `initialize` response issued.
    id: Option<HeaderValue>,
    /// Whether the GET stream opens before notifications/initialized goes.
    listen_early: bool,
    /// Whether the GET stream for the server's own messages was asked for, and the
    /// answer is final (open, none offered, or a problem noted).
    listening: bool,
    /// Where to drop SSE streams and resume them (by request, then progress count).
    resume: Vec<ResumePoint>,
    /// The readers of the answers and of the GET stream.
    readers: JoinSet<()>,
    /// The POSTs sent so far (problems number them from 1).
    posts: usize,
    /// The requests among them (drop points count them from 0).
    requests: usize,
}

impl<S: HttpService> Session<S> {
    /// The session of `bridge`, writing the server's lines to `write`.
    fn start<W>(bridge: Bridge<S>, write: W) -> Self
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (lines, to_write) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_lines(write, to_write));
        let shared = Arc::new(Shared {
            problems: bridge.problems,
            protocol_version: Mutex::new(None),
            tools: Mutex::new(bridge.tools),
            lines,
            body_limit: bridge.body_limit,
        });
        let client = Arc::new(Client {
            service: tokio::sync::Mutex::new(bridge.service),
            endpoint: bridge.endpoint,
            timeout: bridge.timeout,
            reconnect: bridge.reconnect,
        });
        Session {
            client,
            shared,
            writer,
            id: None,
            listen_early: bridge.listen_early,
            listening: false,
            resume: bridge.resume,
            readers: JoinSet::new(),
            posts: 0,
            requests: 0,
        }
    }

    /// POSTs one client line and handles the answer by what the line is.
    async fn post(&mut self, line: &[u8]) {
        self.posts += 1;
        // Parsed once: what the line is, and the headers it calls for.
        let message = serde_json::from_slice::<Value>(line).ok();
        let outgoing = Outgoing::classify(message.as_ref());
        let what = outgoing.describe(self.posts);
        if outgoing.is_initialized() && !self.listening && self.listen_early {
            // See `listen_early`: what the server sends on its own while handling
            // notifications/initialized has no other way to the client.
            self.listen(true).await;
        }
        let request = self.post_request(line, message.as_ref());
        let resume = self.resume_points(&outgoing);
        let Some(response) = self.send(request, &what).await else {
            return;
        };
        self.check_session_id(&outgoing, &what, &response);
        match &outgoing {
            Outgoing::Request { id, .. } => {
                let answer = Answer {
                    what,
                    id: Some(id.clone()),
                    initialize: outgoing.is_initialize(),
                    resume,
                    session: self.id.clone(),
                };
                self.on_request(answer, response).await;
            }
            Outgoing::Notification { .. } | Outgoing::Response { .. } => {
                self.on_accepted(&outgoing, &what, response).await;
            }
            Outgoing::Other => self.on_other(&what, response).await,
        }
    }

    /// The POST carrying `line`, with the session's headers and the standard ones.
    fn post_request(&self, line: &[u8], message: Option<&Value>) -> Request<Full<Bytes>> {
        let mut request = self
            .client
            .request(Method::POST, self.id.as_ref(), &self.shared);
        let headers = request.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_BOTH));
        let tools = self.shared.tools.lock().unwrap_or_else(|e| e.into_inner());
        super::headers::add_standard(message, headers, &tools);
        *request.body_mut() = Full::new(Bytes::copy_from_slice(line));
        request
    }

    /// Where to drop and resume the answer to this line: the drop points of the request
    /// it is (counting it), none for any other line.
    fn resume_points(&mut self, outgoing: &Outgoing) -> Vec<ResumePoint> {
        let Outgoing::Request { .. } = outgoing else {
            return Vec::new();
        };
        let ordinal = self.requests;
        self.requests += 1;
        self.resume
            .iter()
            .filter(|p| p.request == ordinal)
            .copied()
            .collect()
    }

    /// Sends a POST: the response, or `None` with the problem noted.
    async fn send(
        &self,
        request: Request<Full<Bytes>>,
        what: &str,
    ) -> Option<Response<S::ResBody>> {
        match self.client.call(request).await {
            Ok(Ok(response)) => Some(response),
            Ok(Err(error)) => {
                self.shared
                    .problem(format!("{what}: the service failed: {error}"));
                None
            }
            Err(elapsed) => {
                self.shared.problem(format!("{what}: {elapsed}"));
                None
            }
        }
    }

    /// Keeps the session id the `initialize` response issued; a later response naming
    /// another one is a problem.
    fn check_session_id(
        &mut self,
        outgoing: &Outgoing,
        what: &str,
        response: &Response<S::ResBody>,
    ) {
        let issued = response.headers().get(SESSION_ID).cloned();
        if outgoing.is_initialize() {
            self.id = issued;
        } else if let (Some(issued), Some(ours)) = (&issued, &self.id) {
            if issued != ours {
                self.shared.problem(format!(
                    "{what}: the response carries another Mcp-Session-Id ({}) than \
                     the one initialize issued ({})",
                    show(issued),
                    show(ours)
                ));
            }
        }
    }

    /// The answer to a request: 200, read (beside the next POSTs) by a reader of its own.
    async fn on_request(&mut self, answer: Answer, response: Response<S::ResBody>) {
        let status = response.status();
        if status != StatusCode::OK {
            let body = error_body(response.into_body()).await;
            self.shared.problem(format!(
                "{}: answered HTTP {status} instead of 200{}",
                answer.what,
                excerpt_of(&body)
            ));
            // A JSON-RPC error for this request in the body (rmcp and the SDKs refuse so)
            // is the server's answer: the engine gets it now rather than timing out.
            if let Ok(message) = serde_json::from_slice::<Value>(&body) {
                if message.get("error").is_some() && answer.is_answered_by(&message) {
                    forward(&self.shared, &answer, message, Some(&body));
                }
            }
            return;
        }
        self.readers.spawn(read_answer(
            self.shared.clone(),
            self.client.clone(),
            response,
            answer,
        ));
    }

    /// The answer to a notification or to a response: 202. Once notifications/initialized
    /// is answered, the GET stream is asked for (unless that is settled already).
    async fn on_accepted(
        &mut self,
        outgoing: &Outgoing,
        what: &str,
        response: Response<S::ResBody>,
    ) {
        let status = response.status();
        if status != StatusCode::ACCEPTED {
            let excerpt = error_excerpt(response.into_body()).await;
            self.shared.problem(format!(
                "{what}: answered HTTP {status} instead of 202 Accepted{excerpt}"
            ));
        }
        if outgoing.is_initialized() && !self.listening {
            self.listen(false).await;
        }
    }

    /// The answer to anything else (a batch, not JSON): any 2xx.
    async fn on_other(&self, what: &str, response: Response<S::ResBody>) {
        let status = response.status();
        if !status.is_success() {
            let excerpt = error_excerpt(response.into_body()).await;
            self.shared
                .problem(format!("{what}: answered HTTP {status}{excerpt}"));
        }
    }

    /// Asks for the GET stream ([`Client::listen`]), noting whether that is settled.
    async fn listen(&mut self, early: bool) {
        self.listening = self
            .client
            .listen(self.id.as_ref(), &self.shared, early, &mut self.readers)
            .await;
    }

    /// Ends the run once the engine has closed its end: stops the readers, DELETEs the
    /// session (when there is one), and lets the writer close the pipe.
    async fn end(self) {
        let Session {
            client,
            shared,
            writer,
            id,
            mut readers,
            ..
        } = self;
        readers.shutdown().await;
        if let Some(id) = &id {
            client.delete(id, &shared).await;
        }
        drop(shared);
        let _ = writer.await;
    }
}

impl<S: HttpService> Client<S> {
    /// Asks for the GET stream and, when the server opens it, reads it into the pipe
    /// beside the answers. Returns whether that is settled: `false` only for an `early`
    /// ask (before notifications/initialized) that the server refused with a 4xx, to be
    /// asked again after it.
    async fn listen(
        self: &Arc<Self>,
        session: Option<&HeaderValue>,
        shared: &Arc<Shared>,
        early: bool,
        readers: &mut JoinSet<()>,
    ) -> bool {
        match self.open_stream(session, shared, early).await {
            Listen::Open(stream) => {
                readers.spawn(read_answer(
                    shared.clone(),
                    self.clone(),
                    stream,
                    Answer::stream(),
                ));
                true
            }
            Listen::Later => false,
            Listen::Settled => true,
        }
    }

    /// Opens the GET stream for the messages the server starts on its own (list_changed,
    /// its own requests). A 405 means the server offers none; any other failure is a
    /// problem, except a 4xx to an `early` ask, which is [`Listen::Later`].
    async fn open_stream(
        &self,
        session: Option<&HeaderValue>,
        shared: &Shared,
        early: bool,
    ) -> Listen<S::ResBody> {
        let what = "GET (the stream for the server's own messages)";
        match self.get(session, None, what, shared).await {
            Ok(response) => Listen::Open(response),
            Err(Some(response)) if response.status() == StatusCode::METHOD_NOT_ALLOWED => {
                Listen::Settled
            }
            Err(Some(response)) if early && response.status().is_client_error() => Listen::Later,
            Err(Some(response)) => {
                let status = response.status();
                let excerpt = error_excerpt(response.into_body()).await;
                shared.problem(format!(
                    "{what}: answered HTTP {status} instead of 200 or 405{excerpt}"
                ));
                Listen::Settled
            }
            Err(None) => Listen::Settled,
        }
    }

    /// A GET for an SSE stream (resuming one when `last_event_id` is given): the response
    /// when it is 200 with `text/event-stream`; `Err(Some(_))` with any other status;
    /// `Err(None)` when the problem is already noted (the service failed, no answer in
    /// time, 200 without SSE).
    async fn get(
        &self,
        session: Option<&HeaderValue>,
        last_event_id: Option<HeaderValue>,
        what: &str,
        shared: &Shared,
    ) -> Result<Response<S::ResBody>, Option<Response<S::ResBody>>> {
        let mut request = self.request(Method::GET, session, shared);
        let headers = request.headers_mut();
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(last_event_id) = last_event_id {
            headers.insert(LAST_EVENT_ID, last_event_id);
        }
        let response = match self.call(request).await {
            Ok(Ok(response)) => response,
            Ok(Err(error)) => {
                shared.problem(format!("{what}: the service failed: {error}"));
                return Err(None);
            }
            Err(elapsed) => {
                shared.problem(format!("{what}: {elapsed}"));
                return Err(None);
            }
        };
        if response.status() != StatusCode::OK {
            return Err(Some(response));
        }
        if content_type(&response).as_deref() != Some("text/event-stream") {
            shared.problem(format!(
                "{what}: answered 200 without Content-Type text/event-stream"
            ));
            return Err(None);
        }
        Ok(response)
    }

    /// Resumes the stream of `answer` after event `last_event_id` (a GET with
    /// `Last-Event-ID`): the new stream, or `None` with the problem noted.
    async fn resume(
        &self,
        answer: &Answer,
        last_event_id: &str,
        line: usize,
        shared: &Shared,
    ) -> Option<Response<S::ResBody>> {
        let what = format!(
            "{}: resuming after event `{last_event_id}` (http_resume, fixture line {line})",
            answer.what
        );
        let Ok(header) = HeaderValue::from_str(last_event_id) else {
            shared.problem(format!("{what}: the event id cannot be sent as a header"));
            return None;
        };
        match self
            .get(answer.session.as_ref(), Some(header), &what, shared)
            .await
        {
            Ok(response) => Some(response),
            Err(Some(response)) if response.status().is_client_error() => {
                shared.problem(format!(
                    "{}: the server keeps no event store: the GET with Last-Event-ID \
                     `{last_event_id}` was answered HTTP {}, so the stream cannot be resumed \
                     (http_resume, fixture line {line})",
                    answer.what,
                    response.status()
                ));
                None
            }
            Err(Some(response)) => {
                let status = response.status();
                let excerpt = error_excerpt(response.into_body()).await;
                shared.problem(format!(
                    "{what}: answered HTTP {status} instead of 200{excerpt}"
                ));
                None
            }
            Err(None) => None,
        }
    }

    /// Waits before resuming a dropped stream, as a client does: the reconnection time
    /// the server asked for (`retry`, an SSE `retry:` field, in ms) unless the bridge names
    /// its own, else [`RECONNECT`]; which gives the server the time to notice the
    /// disconnect (bounded by the bridge's time limit).
    async fn wait_to_resume(&self, retry: Option<u64>) {
        let asked = retry.map(Duration::from_millis);
        let wait = self.reconnect.or(asked).unwrap_or(RECONNECT);
        if !wait.is_zero() {
            tokio::time::sleep(wait.min(self.timeout)).await;
        }
    }

    /// A request to the endpoint with `Host`, the session and the protocol version (once
    /// negotiated) set.
    fn request(
        &self,
        method: Method,
        session: Option<&HeaderValue>,
        shared: &Shared,
    ) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = method;
        *request.uri_mut() = self.endpoint.clone();
        if let Some(host) = self
            .endpoint
            .authority()
            .and_then(|a| HeaderValue::from_str(a.as_str()).ok())
        {
            request.headers_mut().insert(HOST, host);
        }
        if let Some(session) = session {
            request.headers_mut().insert(SESSION_ID, session.clone());
        }
        let version = shared
            .protocol_version
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(version) = version.and_then(|v| HeaderValue::from_str(&v).ok()) {
            request.headers_mut().insert(PROTOCOL_VERSION, version);
        }
        request
    }

    /// Sends `request`, giving up after the time limit (the outer error).
    async fn call(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Result<Result<Response<S::ResBody>, S::Error>, String> {
        let timeout = self.timeout;
        let call = async {
            let answer = {
                let mut service = self.service.lock().await;
                std::future::poll_fn(|cx| service.poll_ready(cx)).await?;
                service.call(request)
            };
            answer.await
        };
        tokio::time::timeout(timeout, call).await.map_err(|_| {
            format!(
                "no response within {} ms; the request is given up",
                timeout.as_millis()
            )
        })
    }

    /// Ends the session: 200, 202 or 204, or 405 from a server that lets no client end it.
    async fn delete(&self, session: &HeaderValue, shared: &Shared) {
        let request = self.request(Method::DELETE, Some(session), shared);
        match self.call(request).await {
            Ok(Ok(response)) => {
                let status = response.status();
                if !(status.is_success() || status == StatusCode::METHOD_NOT_ALLOWED) {
                    let excerpt = error_excerpt(response.into_body()).await;
                    shared.problem(format!(
                        "DELETE of the session answered HTTP {status}{excerpt}"
                    ));
                }
            }
            Ok(Err(error)) => shared.problem(format!(
                "DELETE of the session: the service failed: {error}"
            )),
            Err(elapsed) => shared.problem(format!("DELETE of the session: {elapsed}")),
        }
    }
}

/// How an ask for the GET stream went.
enum Listen<B> {
    /// The stream is open.
    Open(Response<B>),
    /// Refused before notifications/initialized: ask again after it.
    Later,
    /// No stream, and no use asking again (none offered, or a problem noted).
    Settled,
}

/// What an answer's reader knows of its request.
struct Answer {
    /// How problems name the POST.
    what: String,
    /// The request's id: the answer must hold its response. `None` for the GET stream,
    /// which answers no request and stays open.
    id: Option<Value>,
    /// Whether it answers `initialize` (whose result names the protocol version).
    initialize: bool,
    /// Where to drop the stream and resume it (by progress count, ascending).
    resume: Vec<ResumePoint>,
    /// The session a resuming GET names.
    session: Option<HeaderValue>,
}

impl Answer {
    /// Whether `message` is the response to this answer's request.
    fn is_answered_by(&self, message: &Value) -> bool {
        message.get("method").is_none()
            && message
                .get("id")
                .zip(self.id.as_ref())
                .is_some_and(|(id, asked)| crate::json::json_eq(id, asked))
    }

    /// The GET stream: no request to answer, open until the session ends.
    fn stream() -> Answer {
        Answer {
            what: "GET (the stream for the server's own messages)".into(),
            id: None,
            initialize: false,
            resume: Vec::new(),
            session: None,
        }
    }
}

/// The lowercase media type of a response, without parameters.
fn content_type<B>(response: &Response<B>) -> Option<String> {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
}

/// Reads a 200 answer to a request (a JSON body or an SSE stream), or the GET stream,
/// writing each server message to the pipe; an SSE stream is dropped and resumed at the
/// answer's drop points.
async fn read_answer<S: HttpService>(
    shared: Arc<Shared>,
    client: Arc<Client<S>>,
    response: Response<S::ResBody>,
    answer: Answer,
) {
    let content_type = content_type(&response);
    let what = &answer.what;
    let body = response.into_body();
    let read = match content_type.as_deref() {
        Some("application/json") => read_json(&shared, &answer, body).await,
        Some("text/event-stream") => read_stream(&shared, &client, &answer, body).await,
        Some(other) => {
            shared.problem(format!(
                "{what}: answered with Content-Type `{other}` instead of application/json \
                 or text/event-stream"
            ));
            return;
        }
        None => {
            shared.problem(format!("{what}: answered 200 without a Content-Type"));
            return;
        }
    };
    if let Some(read) = read {
        note_unanswered(&shared, &answer, read);
    }
}

/// How an answer that could be read to its end went.
struct Read {
    /// Whether it held the response to the request.
    answered: bool,
    /// The event id the stream was last resumed after, if it was.
    resumed: Option<String>,
}

/// Reads a JSON answer (one message or a batch), forwarding its messages: `None` when
/// the body cannot be read or is not JSON (the problem noted).
async fn read_json<B>(shared: &Shared, answer: &Answer, body: B) -> Option<Read>
where
    B: Body,
    B::Error: Display,
{
    let what = &answer.what;
    if let Some(point) = answer.resume.first() {
        shared.problem(format!(
            "{what}: answered with JSON, not an SSE stream: there is no stream to drop \
             and resume (http_resume, fixture line {})",
            point.line
        ));
    }
    let bytes = read_json_body(shared, what, body).await?;
    let mut answered = false;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Array(messages)) => {
            for message in messages {
                answered |= forward(shared, answer, message, None);
            }
        }
        Ok(message) => answered |= forward(shared, answer, message, Some(&bytes)),
        Err(error) => {
            shared.problem(format!("{what}: the JSON body is not JSON ({error})"));
            return None;
        }
    }
    Some(Read {
        answered,
        resumed: None,
    })
}

/// The bytes of a JSON body, or `None` when reading it failed or it is larger than the
/// body limit (the problem noted).
async fn read_json_body<B>(shared: &Shared, what: &str, body: B) -> Option<Vec<u8>>
where
    B: Body,
    B::Error: Display,
{
    let mut body = Box::pin(body);
    let mut bytes = Vec::new();
    loop {
        match body.as_mut().frame().await {
            None => return Some(bytes),
            Some(Err(error)) => {
                shared.problem(format!("{what}: reading the JSON body failed: {error}"));
                return None;
            }
            Some(Ok(frame)) => {
                if let Ok(mut data) = frame.into_data() {
                    if bytes.len() + data.remaining() > shared.body_limit {
                        shared.problem(format!(
                            "{what}: the JSON body is larger than {} bytes",
                            shared.body_limit
                        ));
                        return None;
                    }
                    while data.has_remaining() {
                        let chunk = data.chunk();
                        bytes.extend_from_slice(chunk);
                        let len = chunk.len();
                        data.advance(len);
                    }
                }
            }
        }
    }
}

/// Reads an SSE answer, forwarding its messages, and at each drop point drops the
/// stream and resumes it: `None` when a connection could not be read or resumed (the
/// problem noted).
async fn read_stream<S: HttpService>(
    shared: &Arc<Shared>,
    client: &Client<S>,
    answer: &Answer,
    body: S::ResBody,
) -> Option<Read> {
    let mut body = Box::pin(body);
    let mut stream = Stream::default();
    let mut resumed: Option<String> = None;
    // While a resumed stream is read: what the replay is told if it ends first.
    let mut waiting: Option<Unanswered> = None;
    let answered = loop {
        match read_sse(shared, answer, &mut stream, body.as_mut()).await {
            SseEnd::Answered => break true,
            SseEnd::Ended => break false,
            SseEnd::Failed => {
                // The failure is noted; the stream owes nothing more.
                Unanswered::settle(&mut waiting);
                return None;
            }
            SseEnd::Drop { after, line } => {
                // A resumed stream that reached the next drop point did its part; what
                // the next resumption owes is the next guard's (or the resume's problem).
                Unanswered::settle(&mut waiting);
                // Dropping the body is the disconnect the server sees.
                drop(body);
                client.wait_to_resume(stream.retry).await;
                let response = client.resume(answer, &after, line, shared).await?;
                body = Box::pin(response.into_body());
                stream.resumed();
                if let Some(id) = &answer.id {
                    waiting = Some(Unanswered::resumed(shared, answer, id, &after, line));
                }
                resumed = Some(after);
            }
        }
    };
    Unanswered::settle(&mut waiting);
    Some(Read { answered, resumed })
}

/// The problem of an answer to a request that ended without the response.
fn note_unanswered(shared: &Shared, answer: &Answer, read: Read) {
    let what = &answer.what;
    match (read.answered, &answer.id, read.resumed) {
        (false, Some(id), None) => shared.problem(format!(
            "{what}: the answer ended without the response to request {id}"
        )),
        (false, Some(id), Some(after)) => shared.problem(format!(
            "{what}: the stream resumed after event `{after}` ended without the response to \
             request {id}: the server did not redeliver it"
        )),
        _ => {}
    }
}

/// A resumed stream still owing its response: when the replay ends first (the reader is
/// dropped unfinished), its problem is noted.
struct Unanswered {
    shared: Arc<Shared>,
    problem: Option<String>,
}

impl Unanswered {
    /// Takes the guard off: the reader reports for itself from here.
    fn settle(waiting: &mut Option<Unanswered>) {
        if let Some(mut guard) = waiting.take() {
            guard.problem = None;
        }
    }

    /// The stream of `answer` (to request `id`), resumed after event `after` at the drop
    /// point of fixture line `line`.
    fn resumed(
        shared: &Arc<Shared>,
        answer: &Answer,
        id: &Value,
        after: &str,
        line: usize,
    ) -> Unanswered {
        Unanswered {
            shared: shared.clone(),
            problem: Some(format!(
                "{}: the stream resumed after event `{after}` had not delivered the response \
                 to request {id} when the replay ended: the server did not redeliver it \
                 (http_resume, fixture line {line})",
                answer.what
            )),
        }
    }
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some(problem) = self.problem.take() {
            self.shared.problem(problem);
        }
    }
}

/// What the reader of one SSE answer keeps across the stream and its resumptions.
#[derive(Default)]
struct Stream {
    /// Progress notifications forwarded so far.
    progress: usize,
    /// How many of the answer's drop points are behind.
    passed: usize,
    /// The event ids received, on this stream and its resumptions.
    ids: HashSet<String>,
    /// The messages (event data) received.
    received: HashSet<String>,
    /// The messages received before the latest drop: one of them again is a redelivery.
    before: HashSet<String>,
    /// The id the current connection's previous event carried (an event without an `id:`
    /// field inherits it).
    own_id: Option<String>,
    /// The reconnection time the server last asked for (an SSE `retry:` field), in ms.
    retry: Option<u64>,
    /// Whether a resumed event without an id was reported.
    idless_noted: bool,
}

/// How reading one SSE connection ended.
enum SseEnd {
    /// The response came.
    Answered,
    /// The stream ended without it.
    Ended,
    /// Unreadable; the problem is noted.
    Failed,
    /// A drop point: the stream is to be resumed after event `after`.
    Drop {
        /// The last event id received.
        after: String,
        /// The marked fixture line.
        line: usize,
    },
}

impl Stream {
    /// Notes an event's `retry:` time and id: returns the event's own id, not the one it
    /// inherits from the event before it.
    fn own_id_of(&mut self, event: &SseEvent) -> Option<String> {
        if event.retry.is_some() {
            self.retry = event.retry;
        }
        let own = event
            .id
            .clone()
            .filter(|id| self.own_id.as_ref() != Some(id));
        self.own_id.clone_from(&event.id);
        own
    }

    /// After a drop and its resumption: what was received so far is what a redelivery
    /// would repeat, and the new connection's first event inherits no id.
    fn resumed(&mut self) {
        self.before = self.received.clone();
        self.own_id = None;
    }
}

/// Reads one SSE connection of an answer, forwarding its messages; after a resumption,
/// an event id or a message received before the drop is a redelivery (noted, not
/// forwarded), and an event without an id is noted once.
async fn read_sse<B>(
    shared: &Shared,
    answer: &Answer,
    stream: &mut Stream,
    mut body: std::pin::Pin<&mut B>,
) -> SseEnd
where
    B: Body,
    B::Error: Display,
{
    let what = &answer.what;
    let resumed = stream.passed > 0;
    let mut parser = SseParser::with_limit(shared.body_limit);
    let mut events: Vec<SseEvent> = Vec::new();
    loop {
        let frame = match body.as_mut().frame().await {
            None => break,
            Some(Err(error)) => {
                shared.problem(format!("{what}: reading the SSE stream failed: {error}"));
                return SseEnd::Failed;
            }
            Some(Ok(frame)) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let failed = feed(&mut parser, data, &mut events);
        for event in events.drain(..) {
            if let Some(end) = on_event(shared, answer, stream, resumed, event) {
                return end;
            }
        }
        if let Some(error) = failed {
            shared.problem(format!("{what}: malformed SSE stream: {error}"));
            return SseEnd::Failed;
        }
    }
    if parser.is_mid_event() {
        shared.problem(format!(
            "{what}: the SSE stream ended inside an event (no blank line after it)"
        ));
    }
    SseEnd::Ended
}

/// Feeds one frame's data to `parser`, collecting the events it completes into
/// `events`; stops at the first malformed chunk, returning its error.
fn feed(
    parser: &mut SseParser,
    mut data: impl Buf,
    events: &mut Vec<SseEvent>,
) -> Option<SseError> {
    let mut failed: Option<SseError> = None;
    while data.has_remaining() && failed.is_none() {
        let chunk = data.chunk();
        failed = parser.feed(chunk, events).err();
        let len = chunk.len();
        data.advance(len);
    }
    failed
}

/// Handles one SSE event of an answer (`resumed`: on a resumed connection): forwards
/// its message unless it is none or a redelivery. `Some` ends the connection: the
/// response came, or a drop point was reached.
fn on_event(
    shared: &Shared,
    answer: &Answer,
    stream: &mut Stream,
    resumed: bool,
    event: SseEvent,
) -> Option<SseEnd> {
    let what = &answer.what;
    let own = stream.own_id_of(&event);
    if !is_fresh(shared, what, stream, resumed, own.as_ref(), &event) {
        return None;
    }
    if event.event != "message" {
        shared.problem(format!(
            "{what}: an SSE event of type `{}` instead of `message`",
            event.event
        ));
    }
    let message = match serde_json::from_str::<Value>(&event.data) {
        Ok(message) => message,
        Err(error) => {
            shared.problem(format!(
                "{what}: an SSE event's data is not JSON ({error}): {}",
                excerpt(event.data.as_bytes())
            ));
            return None;
        }
    };
    let progress = message.get("method").and_then(Value::as_str) == Some("notifications/progress");
    stream.received.insert(event.data.clone());
    if forward(shared, answer, message, Some(event.data.as_bytes())) {
        // The stream has served its purpose; the server closes it now.
        return Some(SseEnd::Answered);
    }
    if !progress {
        return None;
    }
    at_progress(shared, answer, stream, event.id)
}

/// Whether an event (with its own id `own`) carries a message to forward: not a priming
/// event without data, and, on a `resumed` connection, no redelivery of an event id or of
/// a message received before the drop (noted). The first resumed message without an id
/// is noted too (forwarded all the same).
fn is_fresh(
    shared: &Shared,
    what: &str,
    stream: &mut Stream,
    resumed: bool,
    own: Option<&String>,
    event: &SseEvent,
) -> bool {
    if let Some(id) = own {
        if !stream.ids.insert(id.clone()) && resumed && !event.data.is_empty() {
            shared.problem(format!(
                "{what}: the resumed stream redelivered event `{id}`, already received \
                 before the drop"
            ));
            return false;
        }
    }
    if event.data.is_empty() {
        // A priming event (an id and a retry for reconnection), no message.
        return false;
    }
    if resumed && stream.before.contains(&event.data) {
        shared.problem(format!(
            "{what}: the resumed stream redelivered a message already received before \
             the drop: {}",
            excerpt(event.data.as_bytes())
        ));
        return false;
    }
    if resumed && own.is_none() && !stream.idless_noted {
        stream.idless_noted = true;
        shared.problem(format!(
            "{what}: the resumed stream's events carry no id: it could not be resumed \
             again"
        ));
    }
    true
}

/// Counts a progress notification (event id `id`): at the answer's next drop point, the
/// stream is to be dropped after it ([`SseEnd::Drop`]), or, when its events carry no id,
/// the problem is noted and the stream read on.
fn at_progress(
    shared: &Shared,
    answer: &Answer,
    stream: &mut Stream,
    id: Option<String>,
) -> Option<SseEnd> {
    stream.progress += 1;
    let point = answer.resume.get(stream.passed)?;
    if point.progress != stream.progress {
        return None;
    }
    stream.passed += 1;
    match id {
        // The events after this one in the chunk are dropped with the stream: the
        // resumption redelivers them.
        Some(after) => Some(SseEnd::Drop {
            after,
            line: point.line,
        }),
        None => {
            shared.problem(format!(
                "{}: the server keeps no event store: its SSE events carry no id, so the \
                 stream cannot be resumed (http_resume, fixture line {}); it was read on \
                 without a drop",
                answer.what, point.line
            ));
            None
        }
    }
}

/// Writes one server message to the pipe (its own text when that is one line, else
/// re-serialized), noting the protocol version an `initialize` result negotiates. Returns
/// whether it is the response to the request.
fn forward(shared: &Shared, answer: &Answer, message: Value, text: Option<&[u8]>) -> bool {
    let is_response = answer.is_answered_by(&message);
    if is_response && answer.initialize {
        let version = message
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        *shared
            .protocol_version
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = version;
    }
    if is_response {
        // A tools/list result: the schemas of later calls' Mcp-Param-* headers (learnt
        // before the engine reads it, so before it sends the call).
        shared
            .tools
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .learn(&message);
    }
    let line = crate::transport::one_line(text, &message);
    let _ = shared.lines.send(line);
    is_response
}

/// Writes the server's lines to the pipe until every sender is gone, then closes it.
pub(super) async fn write_lines<W: AsyncWrite + Unpin>(
    mut write: W,
    mut lines: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(mut line) = lines.recv().await {
        if crate::transport::write_line(&mut write, &mut line)
            .await
            .is_err()
        {
            break;
        }
    }
    let _ = write.shutdown().await;
}

/// The start of an error body, as `: <excerpt>`, or nothing.
async fn error_excerpt<B>(body: B) -> String
where
    B: Body,
{
    excerpt_of(&error_body(body).await)
}

/// `: ` and the start of an error body, or nothing for an empty one.
fn excerpt_of(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        String::new()
    } else {
        format!(": {}", excerpt(bytes))
    }
}

/// An error response's body: up to [`ERROR_BODY_LIMIT`] bytes, read for at most
/// [`ERROR_BODY_WAIT`].
async fn error_body<B>(body: B) -> Vec<u8>
where
    B: Body,
{
    let mut body = Box::pin(body);
    let mut bytes = Vec::new();
    let read = async {
        while bytes.len() < ERROR_BODY_LIMIT {
            match body.as_mut().frame().await {
                Some(Ok(frame)) => {
                    if let Ok(mut data) = frame.into_data() {
                        while data.has_remaining() {
                            let chunk = data.chunk();
                            bytes.extend_from_slice(chunk);
                            let len = chunk.len();
                            data.advance(len);
                        }
                    }
                }
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(ERROR_BODY_WAIT, read).await;
    bytes
}

fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(EXCERPT)]);
    text.trim().to_owned()
}

fn show(value: &HeaderValue) -> String {
    String::from_utf8_lossy(value.as_bytes()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeResult,
        ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
        Tool,
    };
    use rmcp::service::RequestContext;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    use rmcp::{ErrorData, RoleServer, ServerHandler};
    use serde_json::json;
    use std::convert::Infallible;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
    use tower_service::Service;

    /// Resumption: dropping a stream at a drop point and resuming it with `Last-Event-ID`.
    mod resume;

    /// A tiny server with one tool, `echo`, which reports two steps of progress first when
    /// the call has a progress token (several events in one SSE stream).
    #[derive(Clone)]
    struct Tiny;

    impl ServerHandler for Tiny {
        fn get_info(&self) -> InitializeResult {
            InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
            let Value::Object(schema) = schema else {
                unreachable!()
            };
            Ok(ListToolsResult::with_all_items(vec![Tool::new(
                "echo",
                "Echoes its text.",
                schema,
            )]))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            if let Some(token) = context.meta.get_progress_token() {
                for step in [1.0, 2.0] {
                    let mut progress = ProgressNotificationParam::new(token.clone(), step);
                    progress.total = Some(2.0);
                    let _ = context.peer.notify_progress(progress).await;
                }
            }
            let text = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("text"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
        }
    }

    /// The harness's end of a pipe whose other end a bridge serves.
    struct Harness {
        lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
        write: tokio::io::WriteHalf<DuplexStream>,
    }

    impl Harness {
        async fn send(&mut self, message: Value) {
            let mut line = serde_json::to_vec(&message).unwrap();
            line.push(b'\n');
            self.write.write_all(&line).await.unwrap();
        }

        async fn receive(&mut self) -> Value {
            let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
                .await
                .expect("a line within 10 s")
                .unwrap()
                .expect("a line, not the end");
            serde_json::from_str(&line).unwrap()
        }
    }

    fn start<S: HttpService>(bridge: Bridge<S>) -> (Harness, tokio::task::JoinHandle<()>) {
        let (server_end, harness_end) = tokio::io::duplex(64 * 1024);
        let task = tokio::spawn(bridge.run(server_end));
        let (read, write) = tokio::io::split(harness_end);
        let harness = Harness {
            lines: BufReader::new(read).lines(),
            write,
        };
        (harness, task)
    }

    fn initialize(id: u64) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bridge-test", "version": "0"}
        }})
    }

    async fn round_trip(config: StreamableHttpServerConfig) -> Vec<String> {
        let service = StreamableHttpService::new(
            || Ok(Tiny),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let bridge = Bridge::new(service);
        let problems = bridge.problems();
        let (mut harness, task) = start(bridge);

        harness.send(initialize(0)).await;
        let answer = harness.receive().await;
        assert_eq!(answer["id"], json!(0), "{answer}");
        assert_eq!(
            answer["result"]["protocolVersion"],
            json!("2025-06-18"),
            "{answer}"
        );

        harness
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        harness
            .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
            .await;
        let answer = harness.receive().await;
        assert_eq!(answer["id"], json!(1), "{answer}");
        assert_eq!(
            answer["result"]["tools"][0]["name"],
            json!("echo"),
            "{answer}"
        );

        harness
            .send(
                json!({"jsonrpc": "2.0", "id": "two", "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "over HTTP"}}}),
            )
            .await;
        let answer = harness.receive().await;
        assert_eq!(answer["id"], json!("two"), "{answer}");
        assert_eq!(
            answer["result"]["content"][0]["text"],
            json!("over HTTP"),
            "{answer}"
        );

        // The engine closes its end: the bridge ends the session and closes the pipe.
        harness.write.shutdown().await.unwrap();
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("the bridge ends when the pipe closes")
            .unwrap();
        assert_eq!(harness.lines.next_line().await.unwrap(), None);
        let problems = problems.lock().unwrap().clone();
        problems
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rmcp_round_trip_over_sse() {
        let config = StreamableHttpServerConfig::default().with_sse_keep_alive(None);
        assert_eq!(round_trip(config).await, Vec::<String>::new());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rmcp_round_trip_stateless_json() {
        let config = StreamableHttpServerConfig::default()
            .with_sse_keep_alive(None)
            .with_legacy_session_mode(false)
            .with_json_response(true);
        // No session at all, which every era allows: no problem.
        assert_eq!(round_trip(config).await, Vec::<String>::new());
    }

    /// The replay engine itself, over the bridge: the same kind of fixture as over the pipe.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_replay_engine_over_http() {
        const TEXT: &str = concat!(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":"<CLIENT_CAPABILITIES>","clientInfo":"<CLIENT_INFO>","protocolVersion":"<PROTOCOL_VERSION>"}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"rmcp","version":"3.11.0"}}}}"#,
            "\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
            "\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"description":"Echoes its text.","inputSchema":{"properties":{"text":{"type":"string"}},"type":"object"},"name":"echo"}]}}}"#,
            "\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"hi"}],"isError":false}}}"#,
            "\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"echo","arguments":{"text":"slow"}}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":"<PROGRESS_TOKEN>","total":2.0}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2.0,"progressToken":"<PROGRESS_TOKEN>","total":2.0}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"slow"}],"isError":false}}}"#,
            "\n",
        );
        let fixture = crate::Fixture::parse(TEXT).unwrap();
        let service = StreamableHttpService::new(
            || Ok(Tiny),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default().with_sse_keep_alive(None),
        );
        let bridge = Bridge::new(service);
        let problems = bridge.problems();
        let report = fixture.replay(|transport| bridge.run(transport)).await;
        assert!(report.is_ok(), "{report}");
        assert_eq!(*problems.lock().unwrap(), Vec::<String>::new());

        // A wrong expectation is a finding as over the pipe.
        let wrong = TEXT.replace(
            r#""type":"text","text":"hi""#,
            r#""type":"text","text":"ho""#,
        );
        let wrong = crate::Fixture::parse(&wrong).unwrap();
        let service = StreamableHttpService::new(
            || Ok(Tiny),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default().with_sse_keep_alive(None),
        );
        let report = wrong
            .replay(|transport| Bridge::new(service).run(transport))
            .await;
        assert_eq!(report.mismatches().len(), 1, "{report}");
        assert_eq!(report.mismatches()[0].kind(), crate::MismatchKind::Result);
    }

    /// A service in front of another that answers a notification with 200 instead of 202:
    /// an HTTP-level fault under correct MCP messages.
    #[derive(Clone)]
    struct OkForAccepted<S>(S);

    impl<S, B> Service<Request<Full<Bytes>>> for OkForAccepted<S>
    where
        S: Service<Request<Full<Bytes>>, Response = Response<B>> + Send,
        S::Future: Send + 'static,
    {
        type Response = Response<B>;
        type Error = S::Error;
        type Future = Pin<Box<dyn Future<Output = Result<Response<B>, S::Error>> + Send>>;

        fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
            self.0.poll_ready(cx)
        }

        fn call(&mut self, request: Request<Full<Bytes>>) -> Self::Future {
            let answer = self.0.call(request);
            Box::pin(async move {
                let mut response = answer.await?;
                if response.status() == http::StatusCode::ACCEPTED {
                    *response.status_mut() = http::StatusCode::OK;
                }
                Ok(response)
            })
        }
    }

    /// `Fixture::replay_http`: green against the service, and an `http` finding (beside no
    /// MCP finding) when the transport misbehaves under correct messages.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn replay_http_reports_what_the_transport_did_wrong_as_http_findings() {
        let fixture = crate::Fixture::parse(concat!(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"hi"}]}}}"#,
            "\n",
        ))
        .unwrap();
        let service = || {
            StreamableHttpService::new(
                || Ok(Tiny),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default().with_sse_keep_alive(None),
            )
        };
        let green = fixture.replay_http(service()).await;
        assert!(green.is_ok(), "{green}");

        let faulty = fixture.replay_http(OkForAccepted(service())).await;
        let kinds: Vec<_> = faulty.mismatches().iter().map(|m| m.kind()).collect();
        assert_eq!(kinds, [crate::MismatchKind::Http], "{faulty}");
        let text = faulty.to_string();
        assert!(
            text.contains("1. http: POST #2 (notification notifications/initialized): answered HTTP 200 OK instead of 202 Accepted"),
            "{text}"
        );
    }

    /// How a [`Canned`] service answers a request.
    /// `None` leaves the request without an answer for good.
    type Answerer = dyn Fn(&Request<Full<Bytes>>) -> Option<Response<Full<Bytes>>> + Send + Sync;

    /// A service answering every request from a closure, and recording what it was sent.
    #[derive(Clone)]
    struct Canned {
        answer: Arc<Answerer>,
        seen: Arc<Mutex<Vec<Request<Full<Bytes>>>>>,
    }

    impl Service<Request<Full<Bytes>>> for Canned {
        type Response = Response<Full<Bytes>>;
        type Error = Infallible;
        type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<Full<Bytes>>) -> Self::Future {
            let response = (self.answer)(&request);
            self.seen.lock().unwrap().push(request);
            match response {
                Some(response) => Box::pin(std::future::ready(Ok(response))),
                None => Box::pin(std::future::pending()),
            }
        }
    }

    fn respond(status: u16, content_type: Option<&str>, body: &str) -> Response<Full<Bytes>> {
        let mut builder = Response::builder().status(status);
        if let Some(content_type) = content_type {
            builder = builder.header(CONTENT_TYPE, content_type);
        }
        builder
            .header(SESSION_ID, "s-1")
            .body(Full::new(Bytes::from(body.to_owned())))
            .unwrap()
    }

    fn method_of(request: &Request<Full<Bytes>>) -> Option<String> {
        let body = request.body().clone();
        let bytes = futures_block(body);
        let value: Value = serde_json::from_slice(&bytes).ok()?;
        value["method"].as_str().map(str::to_owned)
    }

    /// The bytes of a `Full` body (ready at once).
    fn futures_block(body: Full<Bytes>) -> Bytes {
        let mut body = std::pin::pin!(body);
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        match body.as_mut().poll_frame(&mut cx) {
            Poll::Ready(Some(Ok(frame))) => frame.into_data().unwrap_or_default(),
            _ => Bytes::new(),
        }
    }

    #[tokio::test]
    async fn http_problems_are_collected() {
        let answer = |request: &Request<Full<Bytes>>| {
            if request.method() == Method::GET {
                // No stream for the server's own messages: not a problem.
                return Some(respond(405, None, ""));
            }
            Some(match method_of(request).as_deref() {
                Some("initialize") => respond(
                    200,
                    Some("text/event-stream"),
                    "id: 0\nretry: 3000\ndata:\n\n: comment\r\ndata: {\"jsonrpc\":\"2.0\",\r\n\
                 data: \"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\r\n\r\n",
                ),
                Some("notifications/initialized") => respond(200, None, ""),
                Some("ping") => respond(200, Some("text/plain"), "pong"),
                Some("tools/list") => respond(500, Some("text/plain"), "boom"),
                Some("tools/call") => respond(
                    200,
                    Some("text/event-stream"),
                    "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n\
                 data: not json\n\n",
                ),
                _ => respond(200, Some("application/json"), ""),
            })
        };
        let seen = Arc::new(Mutex::new(Vec::new()));
        let bridge = Bridge::new(Canned {
            answer: Arc::new(answer),
            seen: seen.clone(),
        });
        let problems = bridge.problems();
        let (mut harness, task) = start(bridge);

        harness.send(initialize(0)).await;
        let answer = harness.receive().await;
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18"}})
        );
        harness
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        harness
            .send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
            .await;
        harness
            .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
            .await;
        harness
            .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call"}))
            .await;
        let progress = harness.receive().await;
        assert_eq!(progress["method"], json!("notifications/progress"));
        harness.write.shutdown().await.unwrap();
        task.await.unwrap();

        let problems = problems.lock().unwrap().clone();
        let expected = [
            "POST #2 (notification notifications/initialized): answered HTTP 200 OK instead of 202 Accepted",
            "POST #3 (request 1, ping): answered with Content-Type `text/plain` instead of application/json or text/event-stream",
            "POST #4 (request 2, tools/list): answered HTTP 500 Internal Server Error instead of 200: boom",
            "POST #5 (request 3, tools/call): an SSE event's data is not JSON",
            "POST #5 (request 3, tools/call): the answer ended without the response to request 3",
        ];
        for want in expected {
            assert!(
                problems.iter().any(|p| p.starts_with(want)),
                "missing {want:?} in {problems:#?}"
            );
        }
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");

        // The headers: the session after initialize, the negotiated version, Accept; the GET
        // stream asked for once notifications/initialized is answered (405 here: none);
        // DELETE last.
        let mut seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 7);
        let get = seen.remove(2);
        assert_eq!(get.headers()[PROTOCOL_VERSION], "2025-06-18");
        assert_eq!(get.method(), Method::GET);
        assert_eq!(get.headers()[ACCEPT], "text/event-stream");
        assert_eq!(get.headers()[SESSION_ID], "s-1");
        assert!(seen[0].headers().get(SESSION_ID).is_none());
        assert!(seen[0].headers().get(PROTOCOL_VERSION).is_none());
        for request in &seen[1..] {
            assert_eq!(request.headers()[SESSION_ID], "s-1");
            assert_eq!(request.headers()[PROTOCOL_VERSION], "2025-06-18");
        }
        for request in &seen[..5] {
            assert_eq!(request.method(), Method::POST);
            assert_eq!(request.headers()[ACCEPT], ACCEPT_BOTH);
            assert_eq!(request.headers()[CONTENT_TYPE], "application/json");
            assert_eq!(request.headers()[HOST], "localhost");
        }
        assert_eq!(seen[5].method(), Method::DELETE);
    }

    /// After `notifications/initialized`, the GET stream carries the server's own messages
    /// to the engine; a GET answered with JSON is a problem.
    #[tokio::test]
    async fn the_get_stream_carries_the_servers_own_messages() {
        for (get, want) in [
            (
                respond(
                    200,
                    Some("text/event-stream"),
                    "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
                ),
                None,
            ),
            (
                respond(200, Some("application/json"), "{}"),
                Some("GET (the stream for the server's own messages): answered 200 without Content-Type text/event-stream"),
            ),
        ] {
            let answer = move |request: &Request<Full<Bytes>>| {
                if request.method() == Method::GET {
                    return Some(get.clone());
                }
                Some(match method_of(request).as_deref() {
                    Some("initialize") => respond(
                        200,
                        Some("application/json"),
                        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}"#,
                    ),
                    _ => respond(202, None, ""),
                })
            };
            let bridge = Bridge::new(Canned {
                answer: Arc::new(answer),
                seen: Arc::default(),
            });
            let problems = bridge.problems();
            let (mut harness, task) = start(bridge);
            harness.send(initialize(0)).await;
            assert_eq!(harness.receive().await["id"], json!(0));
            harness
                .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .await;
            if want.is_none() {
                let own = harness.receive().await;
                assert_eq!(own["method"], json!("notifications/tools/list_changed"));
            }
            harness.write.shutdown().await.unwrap();
            task.await.unwrap();
            let problems = problems.lock().unwrap().clone();
            assert_eq!(problems, want.into_iter().map(str::to_owned).collect::<Vec<_>>());
        }
    }

    #[tokio::test]
    async fn a_request_without_an_answer_is_given_up() {
        let answer = |request: &Request<Full<Bytes>>| match method_of(request).as_deref() {
            Some("tools/list") => None,
            _ => Some(respond(
                200,
                Some("application/json"),
                r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
            )),
        };
        let bridge = Bridge::new(Canned {
            answer: Arc::new(answer),
            seen: Arc::default(),
        })
        .timeout(Duration::from_millis(50));
        let problems = bridge.problems();
        let (mut harness, task) = start(bridge);
        harness
            .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
            .await;
        harness
            .send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
            .await;
        // The bridge went on to the next request.
        assert_eq!(harness.receive().await["id"], json!(2));
        harness.write.shutdown().await.unwrap();
        task.await.unwrap();
        let problems = problems.lock().unwrap().clone();
        assert_eq!(
            problems,
            vec!["POST #1 (request 1, tools/list): no response within 50 ms; the request is given up"]
        );
    }

    #[test]
    fn classify() {
        let classify =
            |line: &[u8]| Outgoing::classify(serde_json::from_slice::<Value>(line).ok().as_ref());
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Outgoing::Request {
                id: json!(1),
                method: "ping".into()
            }
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Outgoing::Notification {
                method: "notifications/initialized".into()
            }
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","id":"s1","result":{}}"#),
            Outgoing::Response { id: json!("s1") }
        );
        assert_eq!(classify(b"[1]"), Outgoing::Other);
        assert_eq!(classify(b"nope"), Outgoing::Other);
    }
}
