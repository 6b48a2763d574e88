//! One run of a [`Bridge`]: each client line POSTed and its answer handled by what the
//! line is, the GET stream asked for, the session ended with a DELETE.

use super::answer::{forward, Answer};
use super::body::{error_body, error_excerpt, excerpt_of, show};
use super::client::{Client, Listen, PROTOCOL_VERSION, SESSION_ID};
use super::outgoing::{Outgoing, Peeked, What};
use super::read::read_answer;
use super::{Bridge, Shared, ACCEPT_BOTH};
use crate::data::fixture::ResumePoint;
use crate::engine::http::{headers, HttpService};
use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// One run of a [`Bridge`]: the session it holds with the service, from the first POST to
/// the DELETE.
pub(super) struct Session<S> {
    client: Arc<Client<S>>,
    shared: Arc<Shared>,
    /// The `Mcp-Session-Id` the `initialize` response issued.
    id: Option<HeaderValue>,
    /// Whether the GET stream opens before notifications/initialized goes.
    listen_early: bool,
    /// Whether the GET stream for the server's own messages was asked for, and the
    /// answer is final (open, none offered, or a problem noted).
    listening: bool,
    /// Where to drop SSE streams and resume them (by request, then progress count).
    resume: Vec<ResumePoint>,
    /// The readers of the answers (with their request's id) and of the GET stream not yet
    /// seen finished. Plain tasks, not a `JoinSet`: one keeps every finished task until it
    /// is joined, a cost per POST (and memory per POST over a long session) paid only to be
    /// dropped at the end.
    readers: Vec<(Option<Value>, JoinHandle<()>)>,
    /// The POSTs sent so far (problems number them from 1).
    posts: usize,
    /// The requests among them (drop points count them from 0).
    requests: usize,
    /// The server answered 401 or 403: it wants credentials.
    refused: bool,
}

impl<S: HttpService> Session<S> {
    /// The session of `bridge`, sending the server's lines (without their line ends) to
    /// `lines`; the channel closes when the session has ended (and its readers with it).
    pub(super) fn start(bridge: Bridge<S>, lines: mpsc::UnboundedSender<Vec<u8>>) -> Self {
        let shared = Arc::new(Shared {
            problems: bridge.problems,
            protocol_version: Mutex::new(None),
            tools: Mutex::new(bridge.tools),
            lines,
            body_limit: bridge.body_limit,
        });
        let client = Arc::new(Client {
            service: std::sync::Mutex::new(bridge.service),
            host: bridge
                .endpoint
                .authority()
                .and_then(|a| HeaderValue::from_str(a.as_str()).ok()),
            endpoint: bridge.endpoint,
            timeout: bridge.timeout,
            reconnect: bridge.reconnect,
            headers: bridge.headers,
        });
        Session {
            client,
            shared,
            id: None,
            listen_early: bridge.listen_early,
            listening: false,
            resume: bridge.resume,
            readers: Vec::new(),
            posts: 0,
            requests: 0,
            refused: false,
        }
    }

    /// Whether the server refused the session for want of credentials (HTTP 401 or 403).
    pub(super) fn refused(&self) -> bool {
        self.refused
    }

    /// POSTs one client line and handles the answer by what the line is.
    pub(super) async fn post(&mut self, line: &[u8]) {
        if self.closes_stream(line) {
            return;
        }
        self.posts += 1;
        let (request, outgoing) = self.post_request(line);
        let what = What::Post(self.posts, outgoing);
        let outgoing = what.outgoing();
        if outgoing.is_initialized() && !self.listening && self.listen_early {
            // See `listen_early`: what the server sends on its own while handling
            // notifications/initialized has no other way to the client.
            self.listen(true).await;
        }
        let resume = self.resume_points(outgoing);
        let Some(response) = self.send(request, &what).await else {
            return;
        };
        self.check_session_id(&what, &response);
        match what.outgoing() {
            Outgoing::Request { .. } => {
                let answer = Answer {
                    what,
                    resume,
                    session: self.id.clone(),
                };
                self.on_request(answer, response).await;
            }
            Outgoing::Notification { .. } | Outgoing::Response { .. } => {
                self.on_accepted(&what, response).await;
            }
            Outgoing::Other => self.on_other(&what, response).await,
        }
    }

    /// The POST carrying `line`, with the session's headers and the standard ones, and
    /// what the line is. The line is peeked at ([`Peeked`]); it is read whole only when the
    /// peek does not take it or its era's headers need its params.
    fn post_request(&self, line: &[u8]) -> (Request<Full<Bytes>>, Outgoing) {
        let mut request = self
            .client
            .request(Method::POST, self.id.as_ref(), &self.shared);
        let headers = request.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static(ACCEPT_BOTH));
        let outgoing = match Peeked::of(line) {
            Some(peeked) if !headers::is_stateless(peeked.version.as_deref(), headers) => {
                if !matches!(peeked.outgoing, Outgoing::Response { .. } | Outgoing::Other) {
                    headers::add_named_version(peeked.version.as_deref(), headers);
                }
                peeked.outgoing
            }
            _ => {
                let message = serde_json::from_slice::<Value>(line).ok();
                let tools = self.shared.tools.lock().unwrap_or_else(|e| e.into_inner());
                headers::add_standard(message.as_ref(), headers, &tools);
                Outgoing::classify(message.as_ref())
            }
        };
        // The version a line names is the one the lines after it speak: a notification or
        // an answer to the server names none, and a server of 2026-07-28 (which negotiates
        // nothing) reads a POST without the header as the older era's.
        if let Some(version) = headers.get(PROTOCOL_VERSION) {
            *self
                .shared
                .protocol_version
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(version.clone());
        }
        *request.body_mut() = Full::new(Bytes::copy_from_slice(line));
        (request, outgoing)
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
        what: &What,
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
    fn check_session_id(&mut self, what: &What, response: &Response<S::ResBody>) {
        let issued = response.headers().get(SESSION_ID).cloned();
        if what.outgoing().is_initialize() {
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
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            let problem = auth_problem(&answer.what.to_string(), status, response.headers());
            self.shared.problem(problem);
            self.refused = true;
            return;
        }
        if status != StatusCode::OK {
            let body = error_body(response.into_body()).await;
            // A JSON-RPC error for this request in the body is the server's answer: the
            // engine gets it now rather than timing out, and compares it with the
            // recording. Under a 4xx it is how the transport carries a refusal (the
            // specification's 400 for `-32020` and an unsupported version, the SDKs' for
            // invalid params), not a fault of its own; under any other status it is.
            let error = serde_json::from_slice::<Value>(&body)
                .ok()
                .filter(|m| m.get("error").is_some() && answer.is_answered_by(m));
            if error.is_none() || !status.is_client_error() {
                self.shared.problem(format!(
                    "{}: answered HTTP {status} instead of 200{}",
                    answer.what,
                    excerpt_of(&body)
                ));
            }
            if let Some(message) = error {
                forward(&self.shared, &answer, message, Some(&body));
            }
            return;
        }
        // Boxed: the reader's future is large, and spawning it unboxed copies it several
        // times (a tenth of the bridge's cost per POST).
        let id = answer.id().cloned();
        self.spawn_reader(
            id,
            Box::pin(read_answer(
                self.shared.clone(),
                self.client.clone(),
                response,
                answer,
            )),
        );
    }

    /// The answer to a notification or to a response: 202. Once notifications/initialized
    /// is answered, the GET stream is asked for (unless that is settled already).
    async fn on_accepted(&mut self, what: &What, response: Response<S::ResBody>) {
        let status = response.status();
        if status != StatusCode::ACCEPTED {
            let excerpt = error_excerpt(response.into_body()).await;
            self.shared.problem(format!(
                "{what}: answered HTTP {status} instead of 202 Accepted{excerpt}"
            ));
        }
        if what.outgoing().is_initialized() && !self.listening {
            self.listen(false).await;
        }
    }

    /// The answer to anything else (a batch, not JSON): any 2xx.
    async fn on_other(&self, what: &What, response: Response<S::ResBody>) {
        let status = response.status();
        if !status.is_success() {
            let excerpt = error_excerpt(response.into_body()).await;
            self.shared
                .problem(format!("{what}: answered HTTP {status}{excerpt}"));
        }
    }

    /// Asks for the GET stream ([`Client::open_stream`]) and, when the server opens it,
    /// reads it into the pipe beside the answers. Notes whether that is settled: it is not
    /// only when an `early` ask (before notifications/initialized) was refused with a 4xx,
    /// to be asked again after it.
    async fn listen(&mut self, early: bool) {
        let asked = self
            .client
            .open_stream(self.id.as_ref(), &self.shared, early)
            .await;
        self.listening = match asked {
            Listen::Open(stream) => {
                self.spawn_reader(
                    None,
                    Box::pin(read_answer(
                        self.shared.clone(),
                        self.client.clone(),
                        stream,
                        Answer::stream(),
                    )),
                );
                true
            }
            Listen::Later => false,
            Listen::Settled => true,
        };
    }

    /// From 2026-07-28 on, a client cancels a request over Streamable HTTP by closing the
    /// SSE stream of its answer, with no message (the specification's cancellation): a
    /// `notifications/cancelled` line (a fixture holds the act so, the form stdio sends)
    /// naming a request whose stream is still read closes that stream, and nothing is
    /// POSTed. Whether `line` was taken so.
    fn closes_stream(&mut self, line: &[u8]) -> bool {
        static CANCELLED: crate::data::needle::Needle =
            crate::data::needle::Needle::new("notifications/cancelled");
        if !CANCELLED.is_in_bytes(line) {
            return false;
        }
        let stateless = self
            .shared
            .protocol_version
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| crate::data::protocol::Era::of_version(v).is_stateless());
        let Some(message) = serde_json::from_slice::<Value>(line)
            .ok()
            .filter(|_| stateless)
        else {
            return false;
        };
        if message.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
            return false;
        }
        let id = message.pointer("/params/requestId");
        let Some(at) = self
            .readers
            .iter()
            .position(|(request, reader)| request.as_ref() == id && !reader.is_finished())
        else {
            return false;
        };
        let (_, reader) = self.readers.swap_remove(at);
        reader.abort();
        true
    }

    /// Runs a reader beside the session (of the answer to request `id`), forgetting the
    /// ones that finished. (Boxed by the caller: see `on_request`.)
    fn spawn_reader<F>(&mut self, id: Option<Value>, reader: std::pin::Pin<Box<F>>)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        self.readers.retain(|(_, r)| !r.is_finished());
        self.readers.push((id, tokio::spawn(reader)));
    }

    /// Ends the run once the engine has closed its end: stops the readers, DELETEs the
    /// session (when there is one), and lets the writer close the pipe.
    pub(super) async fn end(self) {
        let Session {
            client,
            shared,
            id,
            readers,
            ..
        } = self;
        // As `JoinSet::shutdown`: each reader stopped, and gone (its guards dropped) before
        // the DELETE.
        for (_, reader) in &readers {
            reader.abort();
        }
        for (_, reader) in readers {
            let _ = reader.await;
        }
        if let Some(id) = &id {
            client.delete(id, &shared).await;
        }
        drop(shared);
    }
}

/// What a 401 or 403 says: the status, the `WWW-Authenticate` challenge and the
/// protected-resource metadata URL it names, and the flag that sends a credential.
pub(super) fn auth_problem(what: &str, status: StatusCode, headers: &http::HeaderMap) -> String {
    let challenge = headers
        .get(http::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok());
    let metadata = challenge.and_then(|c| {
        let at = c.find("resource_metadata=\"")? + "resource_metadata=\"".len();
        c[at..].split('"').next()
    });
    let mut text = format!("{what}: {}: HTTP {status}", super::WANTS_CREDENTIALS);
    if let Some(challenge) = challenge {
        text.push_str(&format!("; WWW-Authenticate: {challenge}"));
    }
    if let Some(metadata) = metadata {
        text.push_str(&format!("; its protected-resource metadata: {metadata}"));
    }
    text.push_str(
        ". Send a credential with --header 'Authorization: Bearer ${TOKEN}' (replay, \
         coverage, call; ${VAR} is read from the environment) or Bridge::header; nothing \
         more was sent",
    );
    text
}
