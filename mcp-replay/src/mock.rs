//! Replay for clients: the fixture plays the server. Requests must arrive in recorded
//! order with the same method and (normalized) params; each is answered with the recorded
//! messages that follow it, under the client's live id, each as its own flushed write.

use crate::fixture::{Direction, Entry, Fixture, MessageKind};
use crate::json::{compact, json_eq};
use crate::options::{Options, Settings};
use crate::protocol::{meta, Era, DEFAULT_PROTOCOL, LEGACY_VERSIONS, STATELESS_PROTOCOL};
use crate::record::StrayLines;
use crate::report::{Mismatch, MismatchKind, Report};
use crate::rules::Rules;
pub use crate::timing::Timing;
use crate::transport::{read_lines, write_line, Incoming, Transport};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

/// The JSON-RPC error code of a request the recording does not have next.
pub const MISMATCH_CODE: i64 = -32600;

/// A running mock server; [`finish`](MockServer::finish) stops it and returns the report.
#[derive(Debug)]
pub struct MockServer {
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Report>,
    played: watch::Receiver<bool>,
}

impl MockServer {
    /// Resolves once the client has sent every message the recording holds (what is left
    /// are the server's last messages, if any): a client that goes away after that has
    /// played the whole session.
    pub async fn played(&self) {
        let mut played = self.played.clone();
        let _ = played.wait_for(|played| *played).await;
    }

    /// Whether the client has sent every message the recording holds.
    pub fn is_played(&self) -> bool {
        *self.played.borrow()
    }

    /// Stops the mock (if the client has not closed the transport yet) and reports every
    /// finding: requests that did not match, answers that differ from the recording, and
    /// recorded requests the client never made.
    pub async fn finish(mut self) -> Report {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.await {
            Ok(report) => report,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
}

impl Fixture {
    /// Plays the server of this fixture for a client under test: returns the client's
    /// [`Transport`] and the [`MockServer`] whose `finish().await` gives the [`Report`].
    ///
    /// ```
    /// use mcp_replay::Fixture;
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let fixture = Fixture::parse(concat!(
    ///     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#, "\n",
    ///     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#, "\n",
    /// )).unwrap();
    /// let (transport, mock) = fixture.mock_server();
    ///
    /// // The client under test (here by hand) asks with its own id and gets the recording.
    /// let (read, mut write) = tokio::io::split(transport);
    /// write.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/list\"}\n").await.unwrap();
    /// let reply = BufReader::new(read).lines().next_line().await.unwrap().unwrap();
    /// assert_eq!(reply, r#"{"id":41,"jsonrpc":"2.0","result":{"tools":[]}}"#);
    ///
    /// assert!(mock.finish().await.is_ok());
    /// # }
    /// ```
    pub fn mock_server(&self) -> (Transport, MockServer) {
        self.mock_server_with(&Rules::default())
    }

    /// Plays the server on any reader/writer pair (for example a process's stdin and
    /// stdout) until the client closes its side, then reports.
    pub async fn mock_serve<R, W>(&self, rules: &Rules, reader: R, writer: W) -> Report
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin,
    {
        self.mock_serve_with_options(rules, &Options::default(), reader, writer)
            .await
    }

    /// [`mock_serve`](Fixture::mock_serve) with [`Options`] (the pace, recorded timing,
    /// stray lines allowed, the time a client gets to answer a server request).
    pub async fn mock_serve_with_options<R, W>(
        &self,
        rules: &Rules,
        options: &Options,
        reader: R,
        writer: W,
    ) -> Report
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin,
    {
        let (_keep, never) = oneshot::channel::<()>();
        let settings = options.resolve(self, rules);
        let played = watch::Sender::new(false);
        run(self, &settings, reader, writer, never, &played).await
    }

    /// [`mock_server`](Fixture::mock_server) with normalization [`Rules`] of your own.
    pub fn mock_server_with(&self, rules: &Rules) -> (Transport, MockServer) {
        self.mock_server_with_options(rules, &Options::default())
    }

    /// [`mock_server_with`](Fixture::mock_server_with) with [`Options`].
    pub fn mock_server_with_options(
        &self,
        rules: &Rules,
        options: &Options,
    ) -> (Transport, MockServer) {
        let (client, mock_end) = Transport::pair();
        let (reader, writer) = tokio::io::split(mock_end);
        let (stop, stopped) = oneshot::channel();
        let fixture = self.clone();
        let (rules, options) = (rules.clone(), options.clone());
        let played = watch::Sender::new(false);
        let watching = played.subscribe();
        let task = tokio::spawn(async move {
            let settings = options.resolve(&fixture, &rules);
            run(&fixture, &settings, reader, writer, stopped, &played).await
        });
        (
            client,
            MockServer {
                stop: Some(stop),
                task,
                played: watching,
            },
        )
    }
}

/// Who a synthesized handshake says the server is.
fn server_info() -> Value {
    json!({"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")})
}

/// The capabilities a synthesized handshake announces: those the recording's messages
/// use (`tools/*` gives `tools`, `resources/subscribe` gives `resources.subscribe`, a log
/// message or `logging/setLevel` gives `logging`, ...), so that a client which checks a
/// capability before it calls finds it.
fn capabilities_of(fixture: &Fixture) -> Value {
    let mut capabilities = serde_json::Map::new();
    for entry in fixture.entries() {
        let Some(method) = entry.method() else {
            continue;
        };
        let (name, detail) = match method.split('/').next().unwrap_or_default() {
            "tools" => ("tools", None),
            "prompts" => ("prompts", None),
            "resources" if method == "resources/subscribe" => ("resources", Some("subscribe")),
            "resources" => ("resources", None),
            "logging" => ("logging", None),
            "completion" => ("completions", None),
            "notifications" if method == "notifications/message" => ("logging", None),
            _ => continue,
        };
        let capability = capabilities
            .entry(name)
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let (Some(detail), Value::Object(map)) = (detail, capability) {
            map.insert(detail.into(), Value::Bool(true));
        }
    }
    Value::Object(capabilities)
}

/// A result without `resultType` gets `"complete"`, the default the recording dropped
/// (`result-type-default`): from 2026-07-28 on every result carries it, and the Python SDK
/// client refuses one without it.
fn put_back_result_type(message: &mut Value) {
    if let Some(Value::Object(result)) = message.get_mut("result") {
        result
            .entry("resultType")
            .or_insert_with(|| Value::String("complete".into()));
    }
}

/// The results that carry caching hints from 2026-07-28 on (`ttlMs` and `cacheScope` are
/// required there), which the `cache-hints` rule drops from a recording.
const CACHEABLE_METHODS: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// A complete result of a [`CACHEABLE_METHODS`] request without its caching hints gets
/// `ttlMs: 0` and `cacheScope: "private"` (stale at once, for this client alone: what the
/// recording cannot promise, it does not), the values rmcp's and the Python SDK's servers
/// fill in. From 2026-07-28 on they are required, and the Python SDK client refuses a
/// result without them. Hints the recording kept (version 1 of the rules) stay.
fn put_back_cache_hints(message: &mut Value, method: Option<&str>) {
    if !method.is_some_and(|m| CACHEABLE_METHODS.contains(&m)) {
        return;
    }
    if let Some(Value::Object(result)) = message.get_mut("result") {
        if result
            .get("resultType")
            .is_some_and(|t| t.as_str() != Some("complete"))
        {
            return;
        }
        result.entry("ttlMs").or_insert_with(|| json!(0));
        result
            .entry("cacheScope")
            .or_insert_with(|| Value::String("private".into()));
    }
}

/// Serves the fixture's server side on a reader/writer pair until the client closes it
/// or `stop` fires; `played` turns true once the client has sent every recorded message.
pub(crate) async fn run<R, W>(
    fixture: &Fixture,
    settings: &Settings<'_>,
    reader: R,
    mut writer: W,
    mut stop: oneshot::Receiver<()>,
    played: &watch::Sender<bool>,
) -> Report
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let rules = &*settings.rules;
    let (tx, mut events) = mpsc::unbounded_channel();
    let reader_task = tokio::spawn(read_lines(reader, tx, None));
    let mut mock = Mock {
        fixture,
        settings,
        rules,
        position: 0,
        client_live: HashMap::new(),
        server_live: HashMap::new(),
        next_server_id: 0,
        tokens: Vec::new(),
        asked_version: None,
        last_client: fixture
            .entries()
            .iter()
            .rposition(|e| e.direction() == Direction::ClientToServer),
        synthesizes_handshake: fixture
            .entries()
            .iter()
            .find(|e| e.direction() == Direction::ClientToServer)
            .is_some_and(|e| !matches!(e.method(), Some("initialize" | "server/discover"))),
        stateless: false,
        mismatches: Vec::new(),
        stray: StrayLines::default(),
        outgoing: Vec::new(),
    };
    mock.deliver();
    let pace = settings.pace;
    flush(&mut writer, &mut mock.outgoing, pace).await;
    let timer = tokio::time::sleep(settings.timeout);
    tokio::pin!(timer);
    loop {
        // The client owes an answer to a server request: that wait is bounded (a client
        // that is waiting for its user is not: requests come when they come).
        let owed = mock.awaited_answer().is_some();
        if owed {
            timer
                .as_mut()
                .reset(tokio::time::Instant::now() + settings.timeout);
        }
        let event = tokio::select! {
            event = events.recv() => event,
            _ = &mut stop => None,
            () = &mut timer, if owed => {
                mock.no_answer();
                break;
            }
        };
        match event {
            None | Some(Incoming::Closed(_)) => break,
            Some(event) => mock.take(event),
        }
        played.send_replace(mock.played());
        if !flush(&mut writer, &mut mock.outgoing, pace).await {
            break;
        }
    }
    reader_task.abort();
    let _ = writer.shutdown().await;
    mock.unused();
    let notes = mock.stray_output().into_iter().collect();
    Report {
        source: fixture.source().to_owned(),
        test: None,
        // The client drives this exchange: a new recording comes from the real server.
        rerecord: Some(format!(
            "mcp-replay record -o {} -- <the real server command>   (with the client pointed at it)",
            fixture.source()
        )),
        mismatches: mock.mismatches,
        accepted: Vec::new(),
        notes,
        recorded: None,
    }
}

/// Writes each queued message as its own flushed line, and waits `pace` after each one
/// that another follows, so that a client reads and handles it before the next arrives
/// (the TypeScript SDK runs notification handlers in microtasks but settles a response at
/// once: a progress notification that arrives in one read with its response is lost).
/// `false` once the client is gone.
///
/// A message with a recorded pause ([`Options::timing`]) is written that long after the
/// client message it answers came (about when this flush began), and paces nothing.
async fn flush<W: AsyncWrite + Unpin>(
    writer: &mut W,
    outgoing: &mut Vec<(Value, Option<Duration>)>,
    pace: Duration,
) -> bool {
    let began = tokio::time::Instant::now();
    let mut queue = outgoing.drain(..).peekable();
    while let Some((message, pause)) = queue.next() {
        if let Some(pause) = pause {
            tokio::time::sleep_until(began + pause).await;
        }
        let mut line = serde_json::to_vec(&message).expect("a JSON value always serializes");
        if write_line(writer, &mut line).await.is_err() {
            return false;
        }
        match queue.peek() {
            Some((next, None)) if !pace.is_zero() && pause.is_none() => {
                tokio::time::sleep(gap(&message, next, pace)).await;
            }
            _ => tokio::task::yield_now().await,
        }
    }
    true
}

/// How long a progress notification is given before a response is written after it, at
/// least: the client must have handled the notification before the response ends the
/// request (the TypeScript SDK drops progress it reads together with its response). 2 ms
/// is enough on an idle machine; on 2 cores with four busy processes, the Node client
/// was not scheduled within it in about 1 session of 40.
const PROGRESS_SETTLE: Duration = Duration::from_millis(10);

/// The pause after `message` when `next` follows at once: the pace, and
/// [`PROGRESS_SETTLE`] between a progress notification and a response.
fn gap(message: &Value, next: &Value, pace: Duration) -> Duration {
    let progress = message.get("method").and_then(Value::as_str) == Some("notifications/progress");
    let response = next.get("method").is_none() && next.get("id").is_some();
    if progress && response {
        pace.max(PROGRESS_SETTLE)
    } else {
        pace
    }
}

struct Mock<'f> {
    fixture: &'f Fixture,
    settings: &'f Settings<'f>,
    rules: &'f Rules,
    /// The next fixture entry.
    position: usize,
    /// The client's live id of each matched client request entry.
    client_live: HashMap<usize, Value>,
    /// The mock's id of each server request entry it sent.
    server_live: HashMap<usize, Value>,
    next_server_id: i64,
    /// (fixture progress token, the client's live token)
    tokens: Vec<(Value, Value)>,
    /// The `protocolVersion` the client's `initialize` asked for.
    asked_version: Option<Value>,
    /// The index of the recording's last client message.
    last_client: Option<usize>,
    /// Whether the recording starts without a handshake (its first client message is
    /// neither `initialize` nor `server/discover`): the mock then answers the client's own
    /// handshake itself, as a replay performs one for such a fixture.
    synthesizes_handshake: bool,
    /// Whether the client speaks 2026-07-28 or later (the version in its requests' `_meta`):
    /// its results then carry `resultType`, which the recording dropped as the default, and
    /// its list and read results the caching hints.
    stateless: bool,
    mismatches: Vec<Mismatch>,
    /// The lines the client wrote that are not JSON-RPC messages.
    stray: StrayLines,
    /// What to write next, each with its recorded pause since the client message it
    /// answers (with [`Options::timing`]).
    outgoing: Vec<(Value, Option<Duration>)>,
}

impl Mock<'_> {
    fn fail(&mut self, mismatch: Mismatch) {
        self.mismatches.push(mismatch);
    }

    /// One line from the client.
    fn take(&mut self, event: Incoming) {
        match event {
            Incoming::Invalid { excerpt, .. } => {
                self.stray.push(excerpt.as_bytes());
                // JSON-RPC's answer to a line that is not JSON, unless such lines are
                // allowed (then they are left alone, as an SDK server does).
                if !self.settings.allow_stray_output {
                    self.outgoing.push((
                        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}}),
                        None,
                    ));
                }
            }
            Incoming::Message(message) => self.receive(message),
            // The mock reads without the fast path (`read_lines(.., None)`).
            Incoming::Response(response) => self
                .receive(serde_json::from_str(&response.text).expect("the fast path writes JSON")),
            Incoming::Closed(_) => {}
        }
    }

    /// Whether no client message is left in the recording.
    fn played(&self) -> bool {
        self.last_client.is_none_or(|last| self.position > last)
    }

    /// The protocol version a client message asks for or speaks in: an `initialize`'s (the
    /// legacy era) or the one its `_meta` names (2026-07-28 on: stateless).
    fn note_version(&mut self, message: &Value) {
        if message.get("method").and_then(Value::as_str) == Some("initialize") {
            self.asked_version = message.pointer("/params/protocolVersion").cloned();
            self.stateless = false;
        }
        if let Some(version) = crate::protocol::request_version(message) {
            self.stateless = Era::of_version(version).is_stateless();
        }
    }

    fn next_expected(&self) -> Option<&Entry> {
        self.fixture.entries().get(self.position)
    }

    /// The message of `entry` as the client's is compared with it: a client message is
    /// normalized.
    fn recorded(&self, entry: &Entry) -> Value {
        let mut message = entry.message();
        if entry.direction() == Direction::ClientToServer {
            self.rules.normalize_client(&mut message);
        }
        message
    }

    fn receive(&mut self, mut message: Value) {
        let kind = match MessageKind::of(&message) {
            Ok(kind) => kind,
            Err(_) => {
                self.stray.push(message.to_string().as_bytes());
                return;
            }
        };
        let live_id = message.get("id").cloned();
        if self.synthesizes_handshake && self.handshake(&message) {
            return;
        }
        let Some(entry) = self.next_expected().cloned() else {
            self.fail(
                Mismatch::new(
                    MismatchKind::Unexpected,
                    None,
                    format!(
                        "{} came after the end of the recording",
                        describe_incoming(&message)
                    ),
                )
                .actual(&message),
            );
            self.refuse(
                live_id.as_ref(),
                kind,
                "the recording has no more requests".into(),
            );
            return;
        };
        self.note_version(&message);
        self.rules.normalize_client(&mut message);
        if let Some(label) = entry.id() {
            if message.get("id").is_some() && kind == entry.kind() {
                message["id"] = label.clone();
            }
        }
        self.label_client_values(&entry, &mut message);
        strip_sdk_meta(&mut message);
        let mut wanted = self.recorded(&entry);
        strip_sdk_meta(&mut wanted);
        let same_method = entry.method() == message.get("method").and_then(Value::as_str);
        let matches = kind == entry.kind()
            && same_method
            && (entry.method() == Some("server/discover") || json_eq(&wanted, &message));
        if kind == MessageKind::Response && entry.kind() == MessageKind::Response {
            // The client's answer to one of our requests: a different decision is a finding,
            // and the exchange goes on either way.
            if !json_eq(&wanted, &message) {
                self.fail(
                    Mismatch::new(
                        MismatchKind::Result,
                        Some(entry.line()),
                        "the client answered the server's request differently from the recording",
                    )
                    .compare(&wanted, &message),
                );
            }
            self.position += 1;
            self.deliver();
            return;
        }
        if !matches {
            let kind_of_finding = if same_method && kind == entry.kind() {
                MismatchKind::Params
            } else {
                MismatchKind::Method
            };
            let summary = format!(
                "{} did not match next expected {} {}{}",
                describe_incoming(&message),
                entry.method().unwrap_or("response"),
                compact(wanted.get("params").unwrap_or(&Value::Null), 200),
                self.reaction_to(self.position)
            );
            self.fail(
                Mismatch::new(kind_of_finding, Some(entry.line()), summary.clone())
                    .compare(&wanted, &message),
            );
            self.refuse(live_id.as_ref(), kind, summary);
            return;
        }
        if kind == MessageKind::Request {
            self.client_live
                .insert(self.position, live_id.unwrap_or(Value::Null));
        }
        self.position += 1;
        self.deliver();
    }

    /// Answers the client's handshake for a recording that has none (`initialize`,
    /// `server/discover`, and `notifications/initialized`, which needs no answer); `false`
    /// for any other message. Not compared: the recording says nothing about it.
    fn handshake(&mut self, message: &Value) -> bool {
        let method = message.get("method").and_then(Value::as_str);
        let result = match method {
            Some("notifications/initialized") if message.get("id").is_none() => return true,
            Some("initialize") => {
                self.note_version(message);
                json!({
                    "protocolVersion": self.legacy_version(),
                    "capabilities": capabilities_of(self.fixture),
                    "serverInfo": server_info(),
                })
            }
            Some("server/discover") => {
                self.note_version(message);
                let mut versions: Vec<&str> = LEGACY_VERSIONS.to_vec();
                versions.push(STATELESS_PROTOCOL);
                json!({
                    "supportedVersions": versions,
                    "capabilities": capabilities_of(self.fixture),
                    "_meta": {(meta::SERVER_INFO): server_info()},
                })
            }
            _ => return false,
        };
        let Some(id) = message.get("id").cloned() else {
            return false;
        };
        let mut response = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if self.stateless {
            put_back_result_type(&mut response);
            put_back_cache_hints(&mut response, method);
        }
        self.outgoing.push((response, None));
        true
    }

    /// The version a synthesized `initialize` answers: the client's, when it is a legacy
    /// version a server of that era speaks, else the fixture's (or the default).
    fn legacy_version(&self) -> String {
        let asked = self.asked_version.as_ref().and_then(Value::as_str);
        match asked {
            Some(v) if LEGACY_VERSIONS.contains(&v) => v.to_owned(),
            _ => Some(self.settings.protocol.as_str())
                .filter(|v| LEGACY_VERSIONS.contains(v))
                .unwrap_or(DEFAULT_PROTOCOL)
                .to_owned(),
        }
    }

    /// Maps the client's own progress token and cancelled request id onto the fixture's
    /// labels, so they compare; remembers the token to put it back in our notifications.
    fn label_client_values(&mut self, entry: &Entry, message: &mut Value) {
        if let (Some(label), Some(live)) = (
            entry.message().pointer("/params/_meta/progressToken"),
            message.pointer("/params/_meta/progressToken").cloned(),
        ) {
            self.tokens.push((label.clone(), live));
            message["params"]["_meta"]["progressToken"] = label.clone();
        }
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            if let Some(live) = message.pointer("/params/requestId").cloned() {
                let entries = self.fixture.entries();
                if let Some((e, _)) = self.client_live.iter().find(|(_, v)| json_eq(v, &live)) {
                    if let Some(label) = entries[*e].id() {
                        message["params"]["requestId"] = label.clone();
                    }
                }
            }
        }
    }

    /// Answers a request that did not match with a JSON-RPC error naming both sides.
    fn refuse(&mut self, live_id: Option<&Value>, kind: MessageKind, why: String) {
        if kind == MessageKind::Request {
            self.outgoing.push((
                json!({
                    "jsonrpc": "2.0",
                    "id": live_id.cloned().unwrap_or(Value::Null),
                    "error": {"code": MISMATCH_CODE, "message": format!("mcp-replay: {why}")}
                }),
                None,
            ));
        }
    }

    /// Queues the recorded server messages from the current position up to the next
    /// client message (or the first server request, which waits for its answer).
    fn deliver(&mut self) {
        let entries = self.fixture.entries();
        // The recorded time of the client message this delivery answers (or the start).
        let timing = self
            .settings
            .timing
            .as_deref()
            .map(|(t, scale)| (t, *scale));
        let since = self
            .position
            .checked_sub(1)
            .and_then(|p| timing.and_then(|(t, _)| t.ms(entries[p].line())))
            .unwrap_or(0.0);
        while let Some(entry) = entries.get(self.position) {
            if entry.direction() != Direction::ServerToClient {
                break;
            }
            let mut message = entry.message();
            match entry.kind() {
                MessageKind::Response => {
                    if let Some(live) = entry.answers().and_then(|r| self.client_live.get(&r)) {
                        message["id"] = live.clone();
                    }
                    self.follow_negotiation(entry, &mut message);
                    if self.stateless {
                        put_back_result_type(&mut message);
                        let method = entry.answers().and_then(|r| entries[r].method());
                        put_back_cache_hints(&mut message, method);
                    }
                }
                MessageKind::Request => {
                    let id = json!(self.next_server_id);
                    self.next_server_id += 1;
                    self.server_live.insert(self.position, id.clone());
                    message["id"] = id;
                }
                MessageKind::Notification => {}
            }
            self.put_back_tokens(&mut message);
            self.rules.concretize(&mut message);
            let pause = timing.and_then(|(t, scale)| {
                let ms = (t.ms(entry.line())? - since).max(0.0) * scale;
                Some(Duration::from_secs_f64(ms / 1000.0))
            });
            self.outgoing.push((message, pause));
            self.position += 1;
            // A server request does not stop the delivery: what the server recorded
            // before the client's answer, it sent without waiting for it.
        }
    }

    /// The server requests sent whose answer the client still owes, by the recording:
    /// the next expected entry is the client's answer to one of them.
    fn awaited_answer(&self) -> Option<&Entry> {
        let entry = self.next_expected()?;
        if entry.direction() != Direction::ClientToServer || entry.kind() != MessageKind::Response {
            return None;
        }
        entry.answers().map(|r| &self.fixture.entries()[r])
    }

    /// Legacy negotiation as a server does it: the recorded `initialize` result names the
    /// newest version the recorded server spoke. A client that asks for an older one gets
    /// it (the server answers a version it supports with that version); a client that asks
    /// for a newer one gets the recorded version, as the live server would have answered.
    fn follow_negotiation(&self, entry: &Entry, message: &mut Value) {
        let Some(request) = entry.answers() else {
            return;
        };
        let entries = self.fixture.entries();
        if entries[request].method() != Some("initialize") {
            return;
        }
        let asked = self
            .client_live
            .get(&request)
            .and(self.asked_version.as_ref())
            .and_then(Value::as_str);
        if let (Some(asked), Some(v)) = (asked, message.pointer_mut("/result/protocolVersion")) {
            if v.as_str().is_some_and(|recorded| asked < recorded) {
                *v = json!(asked);
            }
        }
    }

    fn put_back_tokens(&self, message: &mut Value) {
        if let Some(token) = message.pointer_mut("/params/progressToken") {
            if let Some((_, live)) = self
                .tokens
                .iter()
                .rev()
                .find(|(label, _)| json_eq(label, token))
            {
                *token = live.clone();
            }
        }
    }

    /// The client did not answer a server request within the timeout: the mock cannot go
    /// on (the recording continues only after that answer).
    fn no_answer(&mut self) {
        let Some(request) = self.awaited_answer() else {
            return;
        };
        let line = self.next_expected().map(Entry::line);
        let summary = format!(
            "the client did not answer the server's request `{}` (line {}) within {} ms; \
             the recording goes on only after that answer (line {})",
            request.method().unwrap_or("?"),
            request.line(),
            self.settings.timeout.as_millis(),
            line.unwrap_or_default()
        );
        self.fail(Mismatch::new(MismatchKind::Timeout, line, summary));
    }

    /// Where the recorded client message at `position` followed a server notification a
    /// client reacts to (`list_changed`, `resources/updated`), the clause that says so: the
    /// served client may not have reacted to it.
    fn reaction_to(&self, position: usize) -> String {
        let entries = self.fixture.entries();
        let trigger = entries[..position.min(entries.len())]
            .iter()
            .rev()
            .take_while(|e| e.direction() == Direction::ServerToClient)
            .find(|e| {
                e.kind() == MessageKind::Notification
                    && e.method().is_some_and(|m| {
                        m.ends_with("/list_changed") || m == "notifications/resources/updated"
                    })
            });
        match trigger {
            Some(t) => format!(
                "; the recorded client sent it after the server's `{}` (line {}): did this \
                 client not react to it?",
                t.method().unwrap_or("?"),
                t.line()
            ),
            None => String::new(),
        }
    }

    /// Recorded client messages never received, reported once at the end.
    /// The one finding about the client's lines that are not JSON-RPC messages, or (where
    /// the fixture allows them) the note about them.
    fn stray_output(&mut self) -> Option<String> {
        let description = self.stray.describe("the client", "the server's stdin")?;
        if self.settings.allow_stray_output {
            return Some(format!("{description} (allowed by \"allow_stray_output\")"));
        }
        self.fail(Mismatch::new(
            MismatchKind::StrayOutput,
            None,
            format!(
                "{description}: MCP's stdio transport carries only JSON-RPC messages; \
                 allow them with \"allow_stray_output\": true in the fixture header"
            ),
        ));
        None
    }

    fn unused(&mut self) {
        let entries = self.fixture.entries();
        let rest: Vec<&Entry> = entries[self.position.min(entries.len())..]
            .iter()
            .filter(|e| {
                e.direction() == Direction::ClientToServer && e.kind() == MessageKind::Request
            })
            .collect();
        if let Some(next) = rest.first() {
            let wanted = self.recorded(next);
            self.mismatches.push(
                Mismatch::new(
                    MismatchKind::Missing,
                    Some(next.line()),
                    format!(
                        "{} recorded request{} still unused; next expected {} {}{}",
                        rest.len(),
                        if rest.len() == 1 { "" } else { "s" },
                        next.method().unwrap_or("?"),
                        compact(wanted.get("params").unwrap_or(&Value::Null), 200),
                        self.reaction_to(self.position)
                    ),
                )
                .expected(&wanted),
            );
        }
    }
}

/// What differs from client to client (the identity and capabilities of `initialize` and
/// `_meta`, the progress token SDKs add to every request, an empty `params`) is not part of
/// the contract a client fixture pins: compared without it.
fn strip_sdk_meta(message: &mut Value) {
    let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
    let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else {
        return;
    };
    if initialize {
        // Client identity: which client, which version, what it supports.
        for key in ["clientInfo", "protocolVersion", "capabilities"] {
            params.remove(key);
        }
    }
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.remove("progressToken");
        for (key, _) in crate::normalize::IDENTITY_META {
            meta.remove(key);
        }
        if meta.is_empty() {
            params.remove("_meta");
        }
    }
    // `"params": {}` and no params say the same (rmcp's client sends `{}` with a
    // `tools/list` that another SDK sends without params).
    if params.is_empty() {
        if let Some(message) = message.as_object_mut() {
            message.remove("params");
        }
    }
}

fn describe_incoming(message: &Value) -> String {
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some(method), Some(_)) => format!(
            "request {method} {}",
            compact(message.get("params").unwrap_or(&Value::Null), 200)
        ),
        (Some(method), None) => format!("notification {method}"),
        _ => "a response".into(),
    }
}
