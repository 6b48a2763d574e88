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
//! back as a line. When the engine closes the pipe it ends the session with a DELETE. The
//! replay itself runs it as `Bridge::run_lines`: the server's lines come back over a
//! channel the replay's shell reads as its pipe (`ChannelLines`).
//!
//! What is wrong at the HTTP level (an unexpected status, a wrong content type, malformed
//! SSE, a missing session id, a stream ending without its response) does not stop the
//! bridge: each problem is pushed as a descriptive sentence into a shared list
//! ([`Problems`]), for the replay to turn into findings.
//!
//! Here: the [`Bridge`] and its settings, and what its readers share. One run's session
//! (each line POSTed, the answer handled by what the line is) is `session.rs`; the requests
//! themselves (headers, time limit, the GETs, DELETE) `client.rs`; reading a 200 answer
//! `read.rs`, an SSE one, dropped and resumed at the drop points, `stream.rs`; what a
//! reader knows of its request and how a message goes to the pipe `answer.rs`; what a
//! client line is (a peek, not a parse) and how a problem names its POST `outgoing.rs`;
//! error bodies and excerpts `body.rs`.

mod answer;
mod body;
mod client;
mod outgoing;
mod read;
mod session;
mod stream;
#[cfg(test)]
mod tests;

use super::headers::ToolSchemas;
use super::HttpService;
use crate::data::fixture::ResumePoint;
use crate::engine::transport::LineReader;
use http::header::HeaderName;
use http::Uri;
use serde_json::Value;
use session::Session;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// The HTTP-level problems a bridge met, in order, each a sentence.
pub type Problems = Arc<Mutex<Vec<String>>>;

pub use crate::data::protocol::header::{PROTOCOL_VERSION, SESSION_ID};
/// The header a GET resuming a dropped SSE stream carries: the last event id received on it
/// ([`protocol::header::LAST_EVENT_ID`](crate::data::protocol::header::LAST_EVENT_ID)).
pub const LAST_EVENT_ID: HeaderName =
    HeaderName::from_static(crate::data::protocol::header::LAST_EVENT_ID);
/// The `Accept` header of every POST: a server may answer JSON or an SSE stream.
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";
/// The endpoint used unless [`Bridge::endpoint`] says otherwise.
const DEFAULT_ENDPOINT: &str = "http://localhost/mcp";
/// How long a request waits for its response's headers unless [`Bridge::timeout`] says
/// otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// What the finding of a server that answered 401 or 403 says: the replay keeps it alone.
pub(crate) const WANTS_CREDENTIALS: &str = "the server wants credentials";
/// How long a dropped stream waits to resume when the server names no `retry:` time.
pub const RECONNECT: Duration = Duration::from_secs(1);

/// A bridge from the replay's pipe to a Streamable HTTP service `S`.
///
/// `S` is any tower service taking `http::Request<Full<Bytes>>`, like rmcp's
/// `StreamableHttpService`; its responses' bodies may be any [`Body`](http_body::Body) (the bounds are
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
    /// Headers every request carries (a credential: `Authorization`).
    headers: http::HeaderMap,
}

/// What the body readers share with the bridge.
struct Shared {
    problems: Problems,
    /// The protocol version the `initialize` result negotiated, or else the one the last line
    /// naming one named (2026-07-28 negotiates nothing), as the header every later
    /// request carries.
    protocol_version: Mutex<Option<http::HeaderValue>>,
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
            headers: http::HeaderMap::new(),
        }
    }

    /// This bridge with its service erased ([`DynService`](super::DynService)): the
    /// bridge's code is then compiled once, in this crate, whatever the service.
    pub(crate) fn erase(self) -> Bridge<super::DynService> {
        Bridge {
            service: super::DynService::new(self.service),
            endpoint: self.endpoint,
            body_limit: self.body_limit,
            timeout: self.timeout,
            reconnect: self.reconnect,
            problems: self.problems,
            listen_early: self.listen_early,
            resume: self.resume,
            tools: self.tools,
            headers: self.headers,
        }
    }

    /// The tools listed in `messages` (the `tools/list` results among them, such as a
    /// recording's server messages): from 2026-07-28 on, a `tools/call` carries the
    /// `Mcp-Param-*` headers its tool's input schema asks for with `x-mcp-header`, and the
    /// bridge knows the schema from the server's own `tools/list` results in the session,
    /// else from these. [`Replay::bridge`] passes the fixture's, so that a
    /// fixture recorded over stdio, where no header was sent, replays over HTTP as well.
    ///
    /// [`Replay::bridge`]: crate::Replay::bridge
    pub fn listed_tools<'a>(mut self, messages: impl IntoIterator<Item = &'a Value>) -> Self {
        self.tools = ToolSchemas::of(messages);
        self
    }

    /// Opens the GET stream just before `notifications/initialized` goes, not after it is
    /// answered (what the TypeScript and Python SDK clients do). A server that sends a
    /// message on its own while handling `notifications/initialized` (server-everything
    /// announces a `tools/list_changed`) can only deliver it on a stream already open:
    /// a client that opens it later never sees the message. [`Replay::bridge`]
    /// listens early exactly when the fixture holds such a message.
    ///
    /// [`Replay::bridge`]: crate::Replay::bridge
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

    /// A header every request carries, such as a credential (`Authorization: Bearer
    /// ...`) for a server behind auth; given again, the name is sent with each value. Its
    /// value goes to the server only: never into a fixture, a report or a trace.
    pub fn header(mut self, name: http::HeaderName, value: http::HeaderValue) -> Self {
        self.headers.append(name, value);
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
        let (lines, to_write) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_lines(write, to_write));
        self.run_lines(read, lines).await;
        // The session has ended and dropped its sender: the writer writes what is left and
        // closes the pipe.
        let _ = writer.await;
    }

    /// [`run`](Self::run) with the server's lines sent to `lines` (each without its line
    /// end) rather than written to a pipe: the channel closes when the session has ended.
    /// The replay reads them from the channel itself ([`ChannelLines`]), without a task
    /// between the bridge and the session.
    pub(crate) async fn run_lines<R>(self, read: R, lines: mpsc::UnboundedSender<Vec<u8>>)
    where
        R: AsyncRead + Send + Unpin + 'static,
    {
        let mut session = Session::start(self, lines);
        let mut lines = LineReader::new(read);
        while let Ok(Some((_, line))) = lines.next().await {
            session.post(line).await;
            // A server that wants credentials answers nothing more: the session ends now,
            // and the replay says why at once rather than after its time limit.
            if session.refused() {
                break;
            }
        }
        // The engine has closed its end: it reads nothing more.
        session.end().await;
    }
}

/// The lines of a channel as a pipe's bytes, each with its line end: what
/// [`Bridge::run_lines`] sends, read as the replay reads a server's output. The end of the
/// pipe is the channel's close.
pub(crate) struct ChannelLines {
    lines: mpsc::UnboundedReceiver<Vec<u8>>,
    /// The line being read and how much of it was read; its line end is not in it.
    line: Vec<u8>,
    at: usize,
}

impl ChannelLines {
    pub(crate) fn new(lines: mpsc::UnboundedReceiver<Vec<u8>>) -> Self {
        // `at` past the end: no line is being read.
        ChannelLines {
            lines,
            line: Vec::new(),
            at: 1,
        }
    }
}

impl AsyncRead for ChannelLines {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.at > this.line.len() {
            match std::task::ready!(this.lines.poll_recv(cx)) {
                Some(line) => (this.line, this.at) = (line, 0),
                // Every sender is gone: the end.
                None => return std::task::Poll::Ready(Ok(())),
            }
        }
        let rest = &this.line[this.at..];
        let n = rest.len().min(buf.remaining());
        buf.put_slice(&rest[..n]);
        this.at += n;
        if this.at == this.line.len() && buf.remaining() > 0 {
            buf.put_slice(b"\n");
            this.at += 1;
        }
        std::task::Poll::Ready(Ok(()))
    }
}

/// Writes the server's lines to the pipe until every sender is gone, then closes it.
pub(super) async fn write_lines<W: AsyncWrite + Unpin>(
    mut write: W,
    mut lines: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(mut line) = lines.recv().await {
        if crate::engine::transport::write_line(&mut write, &mut line)
            .await
            .is_err()
        {
            break;
        }
    }
    let _ = write.shutdown().await;
}
