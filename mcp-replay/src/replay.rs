//! The replay driver: feeds a fixture's client messages to a server, collects what the
//! server sends back window by window, aligns it with the fixture and classifies every
//! difference (the algorithm in `docs/fixture-format.md`).

use crate::fast::{FastResponse, HEAD};
use crate::fixture::{Direction, Entry, Fixture, MessageKind};
use crate::json::{compact, json_eq};
use crate::report::{Mismatch, MismatchKind, Report};
use crate::rules::Rules;
use crate::transport::{read_lines, write_line, Incoming};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The protocol version of the session setup the harness performs for fixtures that start
/// without a handshake, unless the header names another.
pub const DEFAULT_PROTOCOL: &str = "2025-11-25";

/// The first protocol version of the stateless era: no handshake, identity in `_meta`.
pub const MODERN_PROTOCOL: &str = "2026-07-28";

/// The live id of the harness's own `initialize`; fixture requests are numbered from 1.
const SETUP_ID: i64 = 0;

/// How a server task ended: `Ok` or a description of the failure.
pub(crate) type ServerTask = JoinHandle<Result<(), String>>;

/// A server message received and not yet assigned to a window.
#[derive(Debug)]
struct Actual {
    seq: usize,
    kind: MessageKind,
    /// Its id when that is an integer (the form of every live id the harness sends).
    int_id: Option<i64>,
    /// `Null` while `fast` holds the message.
    message: Value,
    /// A response the reader wrote canonically, without a tree (see `fast.rs`).
    fast: Option<FastResponse>,
}

impl Actual {
    /// Makes `message` the tree of a fast-path response. Its canonical text is already
    /// normalized (the fast path only takes messages the rules leave unchanged).
    fn tree(&mut self) {
        if let Some(fast) = self.fast.take() {
            self.message = serde_json::from_str(&fast.text).expect("the fast path writes JSON");
        }
    }
}

/// Runs one replay over a reader/writer pair connected to the server.
pub(crate) async fn run<R, W>(
    fixture: &Fixture,
    rules: &Rules,
    reader: R,
    writer: W,
    server: Option<ServerTask>,
) -> Report
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let (tx, events) = mpsc::unbounded_channel();
    let reader_task = tokio::spawn(read_lines(reader, tx, rules.defaults_only()));
    let mut driver = Driver::new(fixture, rules, events, writer, server);
    driver.drive().await;
    reader_task.abort();
    driver.into_report()
}

struct Driver<'f, W> {
    fixture: &'f Fixture,
    rules: &'f Rules,
    timeout: Duration,
    events: mpsc::UnboundedReceiver<Incoming>,
    writer: W,
    server: Option<ServerTask>,
    /// Why the server ended, once known.
    server_outcome: Option<Result<(), String>>,
    /// Set once the server's output closed (with the read error, if any).
    closed: Option<Option<String>>,
    /// Set when the replay cannot go on (nothing more is sent).
    aborted: bool,
    inbox: Vec<Actual>,
    seq: usize,
    next_live: i64,
    /// Live id of each sent client request, by fixture entry index.
    live_of_entry: IntMap<usize, i64>,
    /// Fixture entry of each live client request id, and whether it was answered.
    request_of_live: IntMap<i64, (usize, bool)>,
    /// The live ids not answered yet (kept beside `request_of_live` so that the checks
    /// made per message look at what is in flight, not at every request ever sent).
    open: std::collections::BTreeSet<i64>,
    /// The fixture entry of the expected response of each client request entry.
    response_of_request: IntMap<usize, usize>,
    /// The server's live id of each expected server request entry it was matched with.
    server_live: IntMap<usize, Value>,
    /// Index of the last fixture entry processed so far.
    position: usize,
    mismatches: Vec<Mismatch>,
    /// What the server really did, as a fixture being built, unless the fixture was
    /// replayed [`without_recording`](Fixture::without_recording).
    recording: Option<crate::fixture::Recorder>,
    recordable: bool,
    /// Reused for the bytes of each message written to the server.
    out: Vec<u8>,
    /// Reused for the canonical text of the messages received.
    scratch: String,
    /// Reused for the entries of each window.
    window_buf: Vec<usize>,
    /// The timer of every wait for the server (see `receive`).
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    new_server_labels: usize,
    /// Arrival numbers of the server requests already refused.
    refused: IntSet<usize>,
    /// The stateless era (2026-07-28 and later): no handshake, identity in `_meta`.
    modern: bool,
    /// The `requestState` of the latest `input_required` result, as the server wrote it.
    last_request_state: Option<Value>,
    /// Live ids of requests the client cancelled with no response expected.
    cancelled: IntSet<i64>,
    /// The actual server request each matched expected server request entry was.
    server_request_seen: IntMap<usize, Value>,
    /// Client request entries that a later client `notifications/cancelled` cancels.
    cancelled_later: IntSet<usize>,
    /// Does the current window also wait for the answers the fixture has no line for?
    await_in_flight: bool,
}

impl<'f, W: AsyncWrite + Unpin> Driver<'f, W> {
    fn new(
        fixture: &'f Fixture,
        rules: &'f Rules,
        events: mpsc::UnboundedReceiver<Incoming>,
        writer: W,
        server: Option<ServerTask>,
    ) -> Self {
        let response_of_request = fixture
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.direction() == Direction::ServerToClient)
            .filter_map(|(i, e)| Some((e.answers()?, i)))
            .collect();
        let requests = fixture
            .entries()
            .iter()
            .filter(|e| {
                e.direction() == Direction::ClientToServer && e.kind() == MessageKind::Request
            })
            .count();
        Driver {
            fixture,
            rules,
            timeout: fixture.timeout(),
            events,
            writer,
            server,
            server_outcome: None,
            closed: None,
            aborted: false,
            inbox: Vec::new(),
            seq: 0,
            next_live: SETUP_ID + 1,
            live_of_entry: IntMap::with_capacity_and_hasher(requests, Default::default()),
            request_of_live: IntMap::with_capacity_and_hasher(requests, Default::default()),
            open: Default::default(),
            response_of_request,
            server_live: IntMap::default(),
            position: 0,
            mismatches: Vec::new(),
            recording: fixture
                .records()
                .then(|| crate::fixture::Recorder::new(fixture)),
            recordable: true,
            out: Vec::new(),
            scratch: String::new(),
            window_buf: Vec::new(),
            timer: Box::pin(tokio::time::sleep(fixture.timeout())),
            new_server_labels: 0,
            refused: Default::default(),
            modern: is_modern(fixture),
            last_request_state: None,
            cancelled: Default::default(),
            server_request_seen: IntMap::default(),
            cancelled_later: cancelled_requests(fixture),
            await_in_flight: true,
        }
    }

    fn into_report(self) -> Report {
        let recorded = self
            .recording
            .filter(|_| self.recordable)
            .and_then(|recorder| recorder.finish().ok());
        Report {
            source: self.fixture.source().to_owned(),
            test: None,
            rerecord: None,
            mismatches: self.mismatches,
            recorded,
        }
    }

    fn fail(&mut self, mismatch: Mismatch) {
        if matches!(
            mismatch.kind,
            MismatchKind::Timeout | MismatchKind::ServerFailure | MismatchKind::Id
        ) {
            self.recordable = false;
        }
        self.mismatches.push(mismatch);
    }

    async fn drive(&mut self) {
        let entries = self.fixture.entries();
        let needs_setup = !self.modern
            && entries
                .iter()
                .find(|e| e.direction() == Direction::ClientToServer)
                .is_some_and(|e| !matches!(e.method(), Some("initialize" | "server/discover")));
        if needs_setup {
            self.session_setup().await;
        }
        let mut i = 0;
        while i < entries.len() && !self.aborted {
            let entry = &entries[i];
            if entry.direction() == Direction::ClientToServer {
                // Before a new request, every earlier one the fixture has no answer for must
                // be answered (a server waiting for a client response cannot, so not then).
                self.await_in_flight =
                    entry.kind() == MessageKind::Request || self.initialize_in_flight();
                if self.await_in_flight && self.has_unexpected_in_flight() {
                    self.window(&[], false).await;
                }
                if let Some(recording) = &mut self.recording {
                    let mut recorded = entry.message();
                    self.rules.normalize_client(&mut recorded);
                    recording.push(Direction::ClientToServer, &recorded);
                }
                self.position = i;
                self.send(i).await;
                i += 1;
            } else {
                let end = entries[i..]
                    .iter()
                    .position(|e| e.direction() == Direction::ClientToServer)
                    .map_or(entries.len(), |n| i + n);
                // The window's entries, in a buffer reused from window to window.
                let mut window = std::mem::take(&mut self.window_buf);
                window.clear();
                window.extend(i..end);
                self.await_in_flight = entries
                    .get(end)
                    .is_none_or(|next| next.kind() == MessageKind::Request)
                    || self.initialize_in_flight();
                self.position = end - 1;
                self.window(&window, false).await;
                self.window_buf = window;
                i = end;
            }
        }
        if !self.aborted {
            self.await_in_flight = true;
            self.position = entries.len();
            self.window(&[], true).await;
        }
        self.shutdown().await;
    }

    /// Does the fixture account for request entry `entry`'s answer: a response line, or a
    /// later client cancellation (then no answer is awaited)?
    fn answer_expected(&self, entry: usize) -> bool {
        self.response_of_request.contains_key(&entry) || self.cancelled_later.contains(&entry)
    }

    /// A client sends nothing after `initialize` until its result came (the spec's rule).
    fn initialize_in_flight(&self) -> bool {
        let entries = self.fixture.entries();
        self.in_flight()
            .any(|(_, entry)| entries[entry].method() == Some("initialize"))
    }

    /// Requests in flight whose response the fixture does not expect anywhere later:
    /// the replay waits for them before sending more, so recordings stay in order.
    fn has_unexpected_in_flight(&self) -> bool {
        self.in_flight()
            .any(|(_, entry)| !self.answer_expected(entry))
    }

    /// The legacy handshake for fixtures that start without one; not compared.
    async fn session_setup(&mut self) {
        let protocol = self.protocol().to_owned();
        let initialize = json!({
            "jsonrpc": "2.0",
            "id": SETUP_ID,
            "method": "initialize",
            "params": {
                "protocolVersion": protocol,
                                "capabilities": self.client_capabilities(),
                "clientInfo": self.client_info(),
            }
        });
        let what = "the harness's `initialize` (session setup for a fixture without a handshake)";
        if !self.write(&initialize, None, || what.into()).await {
            return;
        }
        let deadline = Instant::now() + self.timeout;
        let mut response = loop {
            if let Some(pos) = self
                .inbox
                .iter()
                .position(|a| a.kind == MessageKind::Response && a.int_id == Some(SETUP_ID))
            {
                break self.inbox.remove(pos);
            }
            if self.closed.is_some() {
                let why = self.close_reason().await;
                self.abort(Mismatch::new(
                    MismatchKind::ServerFailure,
                    None,
                    format!("the server closed the connection before answering {what}{why}"),
                ));
                return;
            }
            if !self.receive(deadline).await {
                self.abort(Mismatch::new(
                    MismatchKind::Timeout,
                    None,
                    format!("no response to {what} within {}", ms(self.timeout)),
                ));
                return;
            }
        };
        let refused = match &response.fast {
            Some(fast) => fast.is_error,
            None => response.message.get("error").is_some(),
        };
        if refused {
            response.tree();
            let response = response.message;
            self.abort(
                Mismatch::new(
                    MismatchKind::ServerFailure,
                    None,
                    format!(
                        "the server refused {what}: {}",
                        compact(&response["error"], 200)
                    ),
                )
                .actual(&response),
            );
            return;
        }
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.write(&initialized, None, || {
            "the harness's `notifications/initialized`".into()
        })
        .await;
    }

    fn abort(&mut self, mismatch: Mismatch) {
        self.fail(mismatch);
        self.aborted = true;
    }

    /// Sends fixture entry `index`, ids substituted with live ones.
    async fn send(&mut self, index: usize) {
        let fixture: &'f Fixture = self.fixture;
        let entry = &fixture.entries()[index];
        let live = (entry.kind() == MessageKind::Request).then(|| {
            let live = self.next_live;
            self.next_live += 1;
            self.live_of_entry.insert(index, live);
            self.request_of_live.insert(live, (index, false));
            self.open.insert(live);
            live
        });
        let what = || format!("{} (fixture line {})", describe(entry), entry.line());
        let mut bytes = std::mem::take(&mut self.out);
        if self.verbatim(entry, live, &mut bytes) {
            self.write_bytes(bytes, Some(entry.line()), what).await;
            return;
        }
        self.out = bytes;
        let mut message = entry.message();
        match entry.kind() {
            MessageKind::Request => {
                if let Some(live) = live {
                    message["id"] = json!(live);
                }
            }
            MessageKind::Response => {
                let request = entry
                    .answers()
                    .expect("responses are correlated at parse time");
                match self.server_live.get(&request) {
                    Some(live) => message["id"] = live.clone(),
                    // The server request never came: that is already a finding.
                    None => return,
                }
                self.answer_with_handler(index, request, &mut message);
            }
            MessageKind::Notification => {
                if entry.method() == Some("notifications/cancelled") {
                    self.cancel(index, &mut message);
                }
            }
        }
        if let Some(state) = message
            .get_mut("params")
            .and_then(|p| p.get_mut("requestState"))
        {
            if state
                .as_str()
                .is_some_and(|s| s.starts_with("<REQUEST_STATE"))
            {
                if let Some(live) = &self.last_request_state {
                    *state = live.clone();
                }
            }
        }
        if self.modern && entry.kind() == MessageKind::Request {
            add_identity_meta(&mut message);
        }
        self.fill_identity(&mut message);
        self.write(&message, Some(entry.line()), what).await;
    }

    /// Puts the line to send for `entry` into `out` straight from the fixture's text, with
    /// the live id spliced in for a request, when nothing else in it is to be replaced:
    /// `false` (and `out` unusable) when the message must be parsed and edited instead.
    fn verbatim(&self, entry: &Entry, live: Option<i64>, out: &mut Vec<u8>) -> bool {
        /// What `send` fills in place of a placeholder.
        const FILLED: [&str; 4] = [
            "<REQUEST_STATE",
            "<CLIENT_INFO>",
            "<CLIENT_CAPABILITIES>",
            "<PROTOCOL_VERSION>",
        ];
        let text = entry.text();
        let plain = match entry.kind() {
            MessageKind::Request => !self.modern,
            MessageKind::Notification => entry.method() != Some("notifications/cancelled"),
            MessageKind::Response => false,
        };
        if !plain
            || text
                .match_indices('<')
                .any(|(i, _)| FILLED.iter().any(|p| text[i..].starts_with(p)))
        {
            return false;
        }
        out.clear();
        let Some(live) = live else {
            out.extend_from_slice(text.as_bytes());
            return true;
        };
        let Some(rest) = text
            .strip_prefix(HEAD)
            .and_then(|rest| strip_json(rest, entry.id().unwrap_or(&Value::Null)))
        else {
            return false;
        };
        use std::io::Write as _;
        out.extend_from_slice(HEAD.as_bytes());
        let _ = write!(out, "{live}");
        out.extend_from_slice(rest.as_bytes());
        true
    }

    /// A client `notifications/cancelled` names the request by its fixture label: send the
    /// live id, and stop waiting for that request's answer (a server may still answer a
    /// cancelled request; such an answer is ignored unless the fixture expects one).
    fn cancel(&mut self, index: usize, message: &mut Value) {
        let Some(label) = message.pointer("/params/requestId").cloned() else {
            return;
        };
        let entries = self.fixture.entries();
        let target = (0..index).rev().find(|&i| {
            entries[i].direction() == Direction::ClientToServer
                && entries[i].kind() == MessageKind::Request
                && entries[i].id().is_some_and(|id| json_eq(id, &label))
        });
        let Some(live) = target.and_then(|t| self.live_of_entry.get(&t).copied()) else {
            return;
        };
        message["params"]["requestId"] = json!(live);
        if let Some(t) = target {
            if !self.response_of_request.contains_key(&t) {
                self.cancelled.insert(live);
                self.answered(live);
            }
        }
    }

    /// With a caller-supplied handler, the handler answers a server request instead of
    /// the recording; a different answer is a finding.
    fn answer_with_handler(&mut self, index: usize, request: usize, message: &mut Value) {
        let Some(handler) = self.fixture.server_request_handler() else {
            return;
        };
        let Some(actual_request) = self.server_request_seen.get(&request).cloned() else {
            return;
        };
        let Some(answer) = handler.call(&actual_request) else {
            return;
        };
        let entry = &self.fixture.entries()[index];
        let mut recorded = entry.message();
        self.rules.normalize_client(&mut recorded);
        let mut ours = json!({"jsonrpc": "2.0", "id": entry.id().cloned().unwrap_or(Value::Null), "result": answer});
        self.rules.normalize_client(&mut ours);
        if !json_eq(&recorded, &ours) {
            self.fail(
                Mismatch::new(
                    MismatchKind::Result,
                    Some(entry.line()),
                    format!(
                        "the handler answered {} differently from the recording",
                        describe_request(&self.fixture.entries()[request])
                    ),
                )
                .compare(&recorded, &ours),
            );
        }
        message["result"] = ours["result"].take();
        message.as_object_mut().map(|m| m.remove("error"));
    }

    /// The harness's own identity where a recorded client message has the
    /// `client-identity` placeholders (`<CLIENT_INFO>`, `<PROTOCOL_VERSION>`,
    /// `<CLIENT_CAPABILITIES>`).
    fn fill_identity(&self, message: &mut Value) {
        let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else {
            return;
        };
        let fill = |v: &mut Value, this: &Self| {
            *v = match v.as_str() {
                Some("<CLIENT_INFO>") => this.client_info(),
                Some("<PROTOCOL_VERSION>") => {
                    json!(this.protocol())
                }
                Some("<CLIENT_CAPABILITIES>") => this.client_capabilities(),
                _ => return,
            }
        };
        for key in ["clientInfo", "protocolVersion", "capabilities"] {
            if let Some(v) = params.get_mut(key) {
                fill(v, self);
            }
        }
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
            for (key, _) in crate::normalize::IDENTITY_META {
                if let Some(v) = meta.get_mut(key) {
                    fill(v, self);
                }
            }
        }
    }

    /// The protocol version the harness speaks: the header's, else the era's default.
    fn protocol(&self) -> &str {
        self.fixture.protocol().unwrap_or(if self.modern {
            MODERN_PROTOCOL
        } else {
            DEFAULT_PROTOCOL
        })
    }

    fn client_info(&self) -> Value {
        json!({"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")})
    }

    /// Declares what the fixture's server requests need (`sampling`, `elicitation`, `roots`).
    fn client_capabilities(&self) -> Value {
        let mut capabilities = serde_json::Map::new();
        for entry in self.fixture.entries() {
            if entry.direction() == Direction::ServerToClient
                && entry.kind() == MessageKind::Request
            {
                let capability = match entry.method() {
                    Some("sampling/createMessage") => "sampling",
                    Some("elicitation/create") => "elicitation",
                    Some("roots/list") => "roots",
                    _ => continue,
                };
                capabilities.insert(capability.into(), json!({}));
            }
        }
        Value::Object(capabilities)
    }

    /// Writes one message as its own flushed line, bounded by the timeout. `what` names
    /// the message in a finding (built only on failure).
    async fn write(
        &mut self,
        message: &Value,
        line: Option<usize>,
        what: impl FnOnce() -> String,
    ) -> bool {
        let mut bytes = std::mem::take(&mut self.out);
        bytes.clear();
        serde_json::to_writer(&mut bytes, message).expect("a JSON value always serializes");
        self.write_bytes(bytes, line, what).await
    }

    /// Writes one line (`bytes`, without its newline) and flushes it; `bytes` is kept for
    /// reuse.
    async fn write_bytes(
        &mut self,
        mut bytes: Vec<u8>,
        line: Option<usize>,
        what: impl FnOnce() -> String,
    ) -> bool {
        let written =
            tokio::time::timeout(self.timeout, write_line(&mut self.writer, &mut bytes)).await;
        self.out = bytes;
        let error = match written {
            Ok(Ok(())) => return true,
            Ok(Err(e)) => Some(e),
            Err(_elapsed) => None,
        };
        let what = what();
        match error {
            Some(e) => {
                let why = self.close_reason().await;
                self.abort(Mismatch::new(
                    MismatchKind::ServerFailure,
                    line,
                    format!("could not send {what}: the server closed its input ({e}){why}"),
                ));
                false
            }
            None => {
                self.abort(Mismatch::new(
                    MismatchKind::Timeout,
                    line,
                    format!("the server did not read {what} within {}", ms(self.timeout)),
                ));
                false
            }
        }
    }

    /// Waits for one event until `deadline`; `false` when the deadline passed.
    async fn receive(&mut self, deadline: Instant) -> bool {
        // What already arrived needs no timer.
        let event = match self.events.try_recv() {
            Ok(event) => Some(event),
            Err(mpsc::error::TryRecvError::Disconnected) => None,
            Err(mpsc::error::TryRecvError::Empty) => {
                // One timer for the whole replay, moved to each deadline: moving it later
                // does not touch the runtime's timer wheel, a new timer per wait would.
                self.timer.as_mut().reset(deadline);
                tokio::select! {
                    biased;
                    event = self.events.recv() => event,
                    () = self.timer.as_mut() => return false,
                }
            }
        };
        self.accept(event.unwrap_or(Incoming::Closed(None)));
        true
    }

    fn accept(&mut self, event: Incoming) {
        match event {
            Incoming::Message(mut message) => match MessageKind::of(&message) {
                Ok(kind) => {
                    if let Some(state) = message.get("result").and_then(|r| r.get("requestState")) {
                        self.last_request_state = Some(state.clone());
                    }
                    self.label_server_cancellation(&mut message);
                    self.rules.normalize_server(&mut message);
                    self.seq += 1;
                    self.inbox.push(Actual {
                        seq: self.seq,
                        kind,
                        int_id: message.get("id").and_then(Value::as_i64),
                        message,
                        fast: None,
                    });
                }
                Err(reason) => self.fail(
                    Mismatch::new(
                        MismatchKind::ServerFailure,
                        None,
                        format!(
                            "the server wrote a JSON line that is not a JSON-RPC message: {reason}"
                        ),
                    )
                    .actual(&message),
                ),
            },
            Incoming::Response(response) => {
                self.seq += 1;
                self.inbox.push(Actual {
                    seq: self.seq,
                    kind: MessageKind::Response,
                    int_id: Some(response.id),
                    message: Value::Null,
                    fast: Some(response),
                });
            }
            Incoming::Invalid {
                line,
                reason,
                excerpt,
            } => self.fail(Mismatch::new(
                MismatchKind::ServerFailure,
                None,
                format!("line {line} of the server's output is {reason}: {excerpt:?}"),
            )),
            Incoming::Closed(error) => {
                if self.closed.is_none() {
                    self.closed = Some(error);
                }
            }
        }
    }

    /// A server `notifications/cancelled` names one of its own requests by live id: write
    /// the fixture's label instead.
    fn label_server_cancellation(&self, message: &mut Value) {
        if message.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
            return;
        }
        let Some(id) = message.pointer("/params/requestId").cloned() else {
            return;
        };
        let entries = self.fixture.entries();
        if let Some((entry, _)) = self.server_live.iter().find(|(_, live)| json_eq(live, &id)) {
            if let Some(label) = entries[*entry].id() {
                message["params"]["requestId"] = label.clone();
            }
        }
    }

    /// Why the server ended, for messages about an early close: waits briefly for the
    /// server task and names its panic or error.
    async fn close_reason(&mut self) -> String {
        if self.server_outcome.is_none() {
            if let Some(task) = self.server.as_mut() {
                if let Ok(joined) = tokio::time::timeout(Duration::from_millis(200), task).await {
                    self.server = None;
                    self.server_outcome = Some(joined.map_err(join_error).and_then(|r| r));
                }
            }
        }
        match &self.server_outcome {
            Some(Err(why)) => format!("; {why}"),
            _ => String::new(),
        }
    }

    /// Is the window satisfied: every expected response has its candidate, every expected
    /// notification or server request a same-method candidate, every request the fixture
    /// does not expect an answer to elsewhere is answered.
    fn satisfied(&self, expected: &[usize]) -> bool {
        let entries = self.fixture.entries();
        let mut anomalous = self
            .inbox
            .iter()
            .filter(|a| a.kind == MessageKind::Response && self.live_request(a).is_none())
            .count();
        for &e in expected {
            let entry = &entries[e];
            if entry.kind() == MessageKind::Response {
                let live = entry.answers().and_then(|r| self.live_of_entry.get(&r));
                let arrived = live.is_some_and(|live| {
                    self.inbox
                        .iter()
                        .any(|a| a.kind == MessageKind::Response && a.int_id == Some(*live))
                });
                if !arrived {
                    if anomalous == 0 {
                        return false;
                    }
                    anomalous -= 1;
                }
            }
        }
        // Each expected method, with how many more messages of it the window waits for
        // (windows are small: a list beats a map).
        let mut methods: Vec<(&str, isize)> = Vec::new();
        for &e in expected {
            if let Some(m) = entries[e].method() {
                match methods.iter_mut().find(|(known, _)| *known == m) {
                    Some((_, n)) => *n += 1,
                    None => methods.push((m, 1)),
                }
            }
        }
        if !methods.is_empty() {
            for a in &self.inbox {
                if let Some(m) = a.message.get("method").and_then(Value::as_str) {
                    if let Some((_, n)) = methods.iter_mut().find(|(known, _)| *known == m) {
                        *n -= 1;
                    }
                }
            }
            if methods.iter().any(|(_, n)| *n > 0) {
                return false;
            }
        }
        !self.await_in_flight
            || self.in_flight().all(|(live, entry)| {
                self.answer_expected(entry)
                    || self
                        .inbox
                        .iter()
                        .any(|a| a.kind == MessageKind::Response && a.int_id == Some(live))
            })
    }

    /// The live request a response's id names exactly (an integer we sent).
    fn live_request(&self, actual: &Actual) -> Option<i64> {
        let live = actual.int_id?;
        self.request_of_live.contains_key(&live).then_some(live)
    }

    /// Collects server messages for the `expected` entries, then aligns and classifies.
    async fn window(&mut self, expected: &[usize], last: bool) {
        let deadline = Instant::now() + self.timeout;
        let mut timed_out = false;
        while !self.satisfied(expected) && self.closed.is_none() {
            if !self.receive(deadline).await {
                timed_out = true;
                break;
            }
            self.refuse_unexpected_requests(expected).await;
        }
        if last {
            // Let the reader hand over what the server already wrote, then take it all.
            for _ in 0..4 {
                let_others_run().await;
            }
            while let Ok(event) = self.events.try_recv() {
                self.accept(event);
            }
        }
        let actual = std::mem::take(&mut self.inbox);
        let fixture: &'f Fixture = self.fixture;
        let scratch = std::mem::take(&mut self.scratch);
        let wanted = Wanted::new(fixture.entries(), self.rules, expected, scratch);
        self.align(expected, &wanted, actual, timed_out).await;
        self.scratch = wanted.text.into_inner();
    }

    /// A server request beyond what this window expects of its method is refused at once
    /// (JSON-RPC error -32601): a server waiting for its answer would otherwise hang.
    async fn refuse_unexpected_requests(&mut self, expected: &[usize]) {
        let entries = self.fixture.entries();
        let mut budget: HashMap<&str, usize> = HashMap::new();
        for &e in expected {
            if entries[e].kind() == MessageKind::Request {
                *budget
                    .entry(entries[e].method().unwrap_or_default())
                    .or_default() += 1;
            }
        }
        let mut refuse = Vec::new();
        for a in self.inbox.iter().filter(|a| a.kind == MessageKind::Request) {
            let method = a.message["method"].as_str().unwrap_or_default();
            match budget.get_mut(method) {
                Some(n) if *n > 0 => *n -= 1,
                _ if !self.refused.contains(&a.seq) => refuse.push((a.seq, a.message.clone())),
                _ => {}
            }
        }
        for (seq, message) in refuse {
            self.refused.insert(seq);
            self.refuse(&message).await;
        }
    }

    async fn refuse(&mut self, request: &Value) {
        let refusal = json!({
            "jsonrpc": "2.0",
            "id": request["id"],
            "error": {"code": -32601, "message": "mcp-replay: the fixture does not expect this request"}
        });
        self.write(&refusal, None, || {
            format!("the refusal of {}", describe_message(request))
        })
        .await;
    }

    async fn align(
        &mut self,
        expected: &[usize],
        wanted: &Wanted<'_>,
        actual: Vec<Actual>,
        timed_out: bool,
    ) {
        let first_finding = self.mismatches.len();
        self.align_window(expected, wanted, actual, timed_out).await;
        // Report a window's findings in fixture order; unexpected messages (no line) last.
        self.mismatches[first_finding..].sort_by_key(|m| m.line.unwrap_or(usize::MAX));
    }

    /// `wanted` has the normalized message of each entry of `expected`.
    async fn align_window(
        &mut self,
        expected: &[usize],
        wanted: &Wanted<'_>,
        actual: Vec<Actual>,
        timed_out: bool,
    ) {
        let entries = self.fixture.entries();
        // What the window adds to the recording, by arrival; a response equal to its fixture
        // line is recorded as that line.
        let mut recorded: Vec<(usize, Seen<'_>)> = Vec::new();
        let recording = self.recording.is_some();
        let strict_order = self.fixture.strict_response_order();
        let mut others: Vec<Actual> = Vec::new();
        let responses = actual.into_iter().filter_map(|a| {
            if a.kind == MessageKind::Response {
                return Some(a);
            }
            others.push(a);
            None
        });

        // Responses: by live id; ids that name no request are paired in order with the
        // expected responses still unanswered.
        let mut unanswered: Vec<usize> = expected
            .iter()
            .copied()
            .filter(|&e| entries[e].kind() == MessageKind::Response)
            .collect();
        let mut anomalies = Vec::new();
        let mut matched_responses: Vec<(usize, usize)> = Vec::new(); // (expected entry, arrival)
        for mut a in responses {
            let Some(live) = self.live_request(&a) else {
                a.tree();
                anomalies.push(a);
                continue;
            };
            if self.cancelled.contains(&live) {
                continue; // a cancelled request's late answer is ignored
            }
            let (request, answered) = self.request_of_live[&live];
            let expected_response = self.response_of_request.get(&request).copied();
            if answered {
                a.tree();
                anomalies.push(a);
                continue;
            }
            match expected_response {
                Some(r) if unanswered.contains(&r) => {
                    unanswered.retain(|&u| u != r);
                    self.answered(live);
                    if strict_order {
                        matched_responses.push((r, a.seq));
                    }
                    if a.fast
                        .as_ref()
                        .is_some_and(|fast| wanted.matches_text(r, fast))
                    {
                        if recording {
                            recorded.push((a.seq, Seen::Entry(&entries[r])));
                        }
                        continue;
                    }
                    a.tree();
                    let actual = relabel(a.message, entries[r].id());
                    self.compare_response(r, wanted, &actual);
                    if recording {
                        recorded.push((a.seq, Seen::Tree(actual)));
                    }
                }
                // Expected in a later window: keep it for then.
                Some(r) if r > self.position => self.inbox.push(a),
                _ => {
                    self.answered(live);
                    a.tree();
                    let actual = relabel(a.message, entries[request].id());
                    self.fail(
                        Mismatch::new(
                            MismatchKind::Unexpected,
                            None,
                            format!(
                                "a response to {} that the fixture does not expect here",
                                describe_request(&entries[request])
                            ),
                        )
                        .actual(&actual),
                    );
                    recorded.push((a.seq, Seen::Tree(actual)));
                }
            }
        }
        if strict_order {
            matched_responses.sort();
            if matched_responses.windows(2).any(|w| w[0].1 > w[1].1) {
                let order = |pairs: &[(usize, usize)]| -> String {
                    pairs
                        .iter()
                        .map(|&(r, _)| {
                            format!(
                                "response {} (line {})",
                                compact(entries[r].id().unwrap_or(&Value::Null), 40),
                                entries[r].line()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let mut by_arrival = matched_responses.clone();
                by_arrival.sort_by_key(|&(_, seq)| seq);
                self.fail(Mismatch::new(
                    MismatchKind::NotificationOrder,
                    Some(entries[matched_responses[0].0].line()),
                    format!(
                        "the responses arrived in another order (the fixture asks for strict response order)\n    expected order: {}\n    actual order:   {}",
                        order(&matched_responses),
                        order(&by_arrival)
                    ),
                ));
            }
        }
        for a in anomalies {
            let why = self.id_anomaly(&a.message);
            match (!unanswered.is_empty()).then(|| unanswered.remove(0)) {
                Some(r) => {
                    let request = entries[r].answers().expect("correlated");
                    let id_fixed = with_id(&a.message, entries[r].id());
                    self.fail(
                        Mismatch::new(
                            MismatchKind::Id,
                            Some(entries[r].line()),
                            format!(
                                "the response expected for {} came with id {} ({why})",
                                describe_request(&entries[request]),
                                a.message["id"]
                            ),
                        )
                        .expected(&json!({"id": self.live_of_entry[&request]}))
                        .actual(&json!({"id": a.message["id"]})),
                    );
                    self.compare_response(r, wanted, &id_fixed);
                }
                None => self.fail(
                    Mismatch::new(
                        MismatchKind::Id,
                        None,
                        format!("a response with id {} ({why})", a.message["id"]),
                    )
                    .actual(&a.message),
                ),
            }
            recorded.push((a.seq, Seen::Tree(a.message)));
        }

        // Notifications and server requests: equal ones first, then same method (params),
        // then what is left in order (method); the rest is missing or unexpected.
        let expected_others: Vec<usize> = expected
            .iter()
            .copied()
            .filter(|&e| entries[e].kind() != MessageKind::Response)
            .collect();
        let mut pairs: Vec<(usize, usize)> = Vec::new(); // (expected entry, index in others)
        let mut used = vec![false; others.len()];
        let mut left: Vec<usize> = Vec::new();
        for &e in &expected_others {
            let found = (0..others.len()).find(|&j| {
                !used[j]
                    && others[j].kind == entries[e].kind()
                    && wanted.matches(e, &others[j].message, entries[e].id())
            });
            match found {
                Some(j) => {
                    used[j] = true;
                    pairs.push((e, j));
                }
                None => left.push(e),
            }
        }
        let mut still_left = Vec::new();
        for e in left {
            let found = (0..others.len()).find(|&j| {
                !used[j]
                    && others[j].message.get("method").and_then(Value::as_str)
                        == entries[e].method()
            });
            match found {
                Some(j) => {
                    used[j] = true;
                    pairs.push((e, j));
                    let actual = with_id(&others[j].message, entries[e].id());
                    self.fail(
                        Mismatch::new(
                            MismatchKind::Params,
                            Some(entries[e].line()),
                            format!("{} has other params", describe(&entries[e])),
                        )
                        .compare(wanted.message(e), &actual),
                    );
                }
                None => still_left.push(e),
            }
        }
        let mut missing = Vec::new();
        for e in still_left {
            match (0..others.len()).find(|&j| !used[j]) {
                Some(j) => {
                    used[j] = true;
                    pairs.push((e, j));
                    let actual = with_id(&others[j].message, entries[e].id());
                    self.fail(
                        Mismatch::new(
                            MismatchKind::Method,
                            Some(entries[e].line()),
                            format!(
                                "expected {}, the server sent {}",
                                describe(&entries[e]),
                                describe_message(&others[j].message)
                            ),
                        )
                        .compare(wanted.message(e), &actual),
                    );
                }
                None => missing.push(e),
            }
        }

        // Order of what was paired, leaving out the methods that may come in any order.
        pairs.sort_by_key(|&(e, _)| e);
        let ordered: Vec<(usize, usize)> = pairs
            .iter()
            .copied()
            .filter(|&(e, _)| {
                let method = entries[e].method().unwrap_or_default();
                !self.rules.is_unordered(method) && !self.fixture.unordered().any(|m| m == method)
            })
            .collect();
        if ordered
            .windows(2)
            .any(|w| others[w[0].1].seq > others[w[1].1].seq)
        {
            let expected_order: Vec<String> = ordered
                .iter()
                .map(|&(e, _)| format!("{} (line {})", describe(&entries[e]), entries[e].line()))
                .collect();
            let mut by_arrival = ordered.clone();
            by_arrival.sort_by_key(|&(_, j)| others[j].seq);
            let actual_order: Vec<String> = by_arrival
                .iter()
                .map(|&(e, _)| format!("{} (line {})", describe(&entries[e]), entries[e].line()))
                .collect();
            self.fail(
                Mismatch::new(
                    MismatchKind::NotificationOrder,
                    Some(entries[ordered[0].0].line()),
                    format!(
                        "the expected messages arrived in another order\n    expected order: {}\n    actual order:   {}",
                        expected_order.join(", "),
                        actual_order.join(", ")
                    ),
                ),
            );
        }

        // Server requests that were matched get their live id remembered (for the client's
        // recorded answer); unexpected ones are refused so the server does not hang.
        let mut label_of: HashMap<usize, Value> = HashMap::new();
        for &(e, j) in &pairs {
            if others[j].kind == MessageKind::Request {
                self.server_live.insert(e, others[j].message["id"].clone());
                self.server_request_seen
                    .insert(e, others[j].message.clone());
                label_of.insert(j, entries[e].id().cloned().unwrap_or(Value::Null));
            }
        }
        for (j, a) in others.iter().enumerate() {
            if !used[j] {
                self.fail(
                    Mismatch::new(
                        MismatchKind::Unexpected,
                        None,
                        format!(
                            "the server sent {} that the fixture does not expect",
                            describe_message(&a.message)
                        ),
                    )
                    .actual(&a.message),
                );
                if a.kind == MessageKind::Request {
                    if !self.refused.remove(&a.seq) {
                        self.refuse(&a.message).await;
                    }
                    label_of.insert(j, self.new_server_label());
                }
            }
        }
        for (j, a) in others.into_iter().enumerate() {
            let message = match label_of.remove(&j) {
                Some(label) => with_id(&a.message, Some(&label)),
                None => a.message,
            };
            recorded.push((a.seq, Seen::Tree(message)));
        }

        // What never came. Requests the fixture has no response for were waited for too
        // (every request deserves an answer); the replay gives up on them now.
        let mut silent: Vec<(i64, usize)> = self
            .in_flight()
            .filter(|&(_, entry)| self.await_in_flight && !self.answer_expected(entry))
            .collect();
        silent.sort();
        for &(live, _) in &silent {
            self.answered(live);
        }
        let missing_all: Vec<usize> = unanswered
            .iter()
            .chain(&missing)
            .chain(silent.iter().map(|(_, entry)| entry))
            .copied()
            .collect();
        if !missing_all.is_empty() {
            if let Some(error) = self.closed.clone() {
                let why = self.close_reason().await;
                let read_error = error
                    .map(|e| format!(" (read error: {e})"))
                    .unwrap_or_default();
                let awaited: Vec<String> = missing_all
                    .iter()
                    .map(|&e| format!("{} (line {})", self.awaited(e), entries[e].line()))
                    .collect();
                self.abort(Mismatch::new(
                    MismatchKind::ServerFailure,
                    Some(entries[missing_all[0]].line()),
                    format!(
                        "the server closed the connection{read_error} while the replay waited for: {}{why}",
                        awaited.join(", ")
                    ),
                ));
            } else {
                for &e in &unanswered {
                    let what = self.awaited(e);
                    let timeout = if timed_out {
                        ms(self.timeout)
                    } else {
                        "the window".into()
                    };
                    self.fail(
                        Mismatch::new(
                            MismatchKind::Timeout,
                            Some(entries[e].line()),
                            format!("no {what} within {timeout}"),
                        )
                        .expected(wanted.message(e)),
                    );
                }
                for &(live, e) in &silent {
                    let request = describe_request(&entries[e]);
                    self.fail(Mismatch::new(
                        MismatchKind::Timeout,
                        Some(entries[e].line()),
                        format!(
                            "no response to {request} (sent as id {live}) within {}",
                            ms(self.timeout)
                        ),
                    ));
                }
                for &e in &missing {
                    self.fail(
                        Mismatch::new(
                            MismatchKind::Missing,
                            Some(entries[e].line()),
                            format!(
                                "{} never came (waited {})",
                                describe(&entries[e]),
                                ms(self.timeout)
                            ),
                        )
                        .expected(wanted.message(e)),
                    );
                }
            }
        }

        if let Some(recording) = &mut self.recording {
            recorded.sort_by_key(|(seq, _)| *seq);
            for (_, seen) in &recorded {
                match seen {
                    Seen::Tree(message) => recording.push(Direction::ServerToClient, message),
                    Seen::Entry(entry) => recording.push_entry(entry),
                }
            }
        }
    }

    /// A *result* finding when the response that answers expected response entry `r`
    /// (its id already the fixture's label) differs from it.
    fn compare_response(&mut self, r: usize, wanted: &Wanted<'_>, actual: &Value) {
        let entries = self.fixture.entries();
        if wanted.matches(r, actual, None) {
            return;
        }
        let request = entries[r]
            .answers()
            .expect("responses are correlated at parse time");
        self.fail(
            Mismatch::new(
                MismatchKind::Result,
                Some(entries[r].line()),
                format!(
                    "the response to {} differs",
                    describe_request(&entries[request])
                ),
            )
            .compare(wanted.message(r), actual),
        );
    }

    fn answered(&mut self, live: i64) {
        if let Some(r) = self.request_of_live.get_mut(&live) {
            r.1 = true;
        }
        self.open.remove(&live);
    }

    /// The fixture entries of the requests in flight, with their live ids.
    fn in_flight(&self) -> impl Iterator<Item = (i64, usize)> + '_ {
        self.open
            .iter()
            .map(|live| (*live, self.request_of_live[live].0))
    }

    /// What a missing expected message is, in words (`the response to tools/call (sent as id 3)`).
    fn awaited(&self, entry: usize) -> String {
        let e = &self.fixture.entries()[entry];
        match (e.kind(), e.answers()) {
            (MessageKind::Request, _) => format!(
                "response to {} (sent as id {})",
                describe_request(e),
                self.live_of_entry.get(&entry).copied().unwrap_or_default()
            ),
            (MessageKind::Response, Some(request)) => format!(
                "response to {} (sent as id {})",
                describe_request(&self.fixture.entries()[request]),
                self.live_of_entry
                    .get(&request)
                    .copied()
                    .unwrap_or_default()
            ),
            _ => describe(e),
        }
    }

    fn id_anomaly(&self, message: &Value) -> String {
        let id = &message["id"];
        if id.is_null() {
            return "a null id answers a message the server could not parse".into();
        }
        let loose = match id {
            Value::String(s) => s.trim().parse::<f64>().ok(),
            Value::Number(n) => n.as_f64(),
            _ => None,
        };
        if let Some(n) = loose.filter(|n| n.fract() == 0.0).map(|n| n as i64) {
            if let Some((_, answered)) = self.request_of_live.get(&n) {
                if id.is_i64() || id.is_u64() {
                    if *answered {
                        return format!(
                            "request {n} was already answered: the server answered twice"
                        );
                    }
                } else {
                    return format!("wrong type: the request was sent with the integer id {n}");
                }
            }
        }
        "it matches no request in flight".into()
    }

    fn new_server_label(&mut self) -> Value {
        loop {
            self.new_server_labels += 1;
            let label = json!(format!("<SERVER_REQUEST_ID:{}>", self.new_server_labels));
            let taken = self.fixture.entries().iter().any(|e| {
                e.direction() == Direction::ServerToClient
                    && e.id().is_some_and(|id| json_eq(id, &label))
            });
            if !taken {
                return label;
            }
        }
    }

    /// Closes the server's input and waits for it to end.
    async fn shutdown(&mut self) {
        let _ = self.writer.shutdown().await;
        if let Some(task) = self.server.take() {
            match tokio::time::timeout(self.timeout, task).await {
                Ok(joined) => {
                    self.server_outcome = Some(joined.map_err(join_error).and_then(|r| r))
                }
                Err(_) => self.fail(Mismatch::new(
                    MismatchKind::ServerFailure,
                    None,
                    format!(
                        "the server did not stop within {} after its input was closed \
                         (an MCP server ends when its input closes)",
                        ms(self.timeout)
                    ),
                )),
            }
        }
        let already = self.mismatches.iter().any(|m| {
            m.kind == MismatchKind::ServerFailure && m.summary.contains("closed the connection")
        });
        if let Some(Err(why)) = self.server_outcome.clone() {
            if !already {
                self.fail(Mismatch::new(MismatchKind::ServerFailure, None, why));
            }
        }
    }
}

/// `text` without the canonical JSON of `value` at its start, if it starts with that.
fn strip_json<'t>(text: &'t str, value: &Value) -> Option<&'t str> {
    match value {
        Value::String(s) if !crate::json::needs_escape(s) => text
            .strip_prefix('"')?
            .strip_prefix(s.as_str())?
            .strip_prefix('"'),
        other => {
            let mut token = String::new();
            crate::json::write_canonical(&mut token, other);
            text.strip_prefix(token.as_str())
        }
    }
}

/// Does the server message `line` (a response with any integer id, or a notification)
/// match fixture entry `entry`? The driver's comparison of one message outside a session:
/// the fast path for a response, else parse, normalize and compare. For the benchmarks.
pub(crate) fn line_matches(rules: &Rules, entry: &Entry, line: &str) -> bool {
    let wanted = Wanted::new(std::slice::from_ref(entry), rules, &[0], String::new());
    if entry.kind() == MessageKind::Response {
        if let Some(paths) = rules.defaults_only() {
            if let Some(fast) = crate::fast::response(line, paths.as_ref()) {
                if wanted.matches_text(0, &fast) {
                    return true;
                }
            }
        }
    }
    let Ok(mut actual) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    rules.normalize_server(&mut actual);
    wanted.matches(0, &actual, entry.id())
}

/// A server message of a window, for the recording.
enum Seen<'f> {
    Tree(Value),
    /// Exactly the fixture's entry (once its id is the entry's label).
    Entry(&'f Entry),
}

/// A map keyed by entry indexes or live ids: small integers need no SipHash.
type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
type IntSet<K> = HashSet<K, BuildHasherDefault<IntHasher>>;

/// The multiply-rotate hash of rustc's `FxHasher`, for integer keys.
#[derive(Default)]
struct IntHasher(u64);

impl std::hash::Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
}

/// The expected messages of one window (a run of fixture entries), parsed from their text
/// and normalized only when a comparison needs the tree.
struct Wanted<'a> {
    entries: &'a [Entry],
    rules: &'a Rules,
    /// The first entry of the window.
    first: usize,
    messages: Vec<once_cell::unsync::OnceCell<Value>>,
    /// Reused for the canonical text of actual messages.
    text: std::cell::RefCell<String>,
}

impl<'a> Wanted<'a> {
    fn new(entries: &'a [Entry], rules: &'a Rules, window: &[usize], scratch: String) -> Self {
        let first = window.first().copied().unwrap_or_default();
        debug_assert!(window.iter().enumerate().all(|(i, &e)| e == first + i));
        Wanted {
            entries,
            rules,
            first,
            messages: window.iter().map(|_| Default::default()).collect(),
            text: std::cell::RefCell::new(scratch),
        }
    }

    /// The normalized message of window entry `e`: the expected side meets the actual
    /// side as placeholders, so both are normalized.
    fn message(&self, e: usize) -> &Value {
        self.messages[e - self.first].get_or_init(|| {
            let mut message = self.entries[e].message();
            self.rules.normalize_server(&mut message);
            message
        })
    }

    /// Is `actual` (normalized), with its id written as `label`, what entry `e` expects?
    ///
    /// First as text: when the canonical text of `actual` is the fixture line's, they are
    /// equal once the line is normalized too, because normalization is idempotent (the
    /// default rules are, by property test; a rule that is not would make the fixture fail
    /// on every re-recording). Only otherwise is the line parsed and compared as JSON
    /// (which also equates `1` and `1.0`).
    /// [`matches`](Wanted::matches) for a fast-path response (its id replaced by the
    /// entry's own label): the fixture line after its id is the response's text after
    /// its id.
    fn matches_text(&self, e: usize, actual: &FastResponse) -> bool {
        let entry = &self.entries[e];
        let rest = entry
            .text()
            .strip_prefix(HEAD)
            .and_then(|rest| strip_json(rest, entry.id()?));
        rest == Some(&actual.text[actual.id_end..])
    }

    fn matches(&self, e: usize, actual: &Value, label: Option<&Value>) -> bool {
        let same_text = {
            let mut text = self.text.borrow_mut();
            text.clear();
            crate::json::write_message_with_id(&mut text, actual, label);
            *text == *self.entries[e].text()
        };
        same_text || eq_relabelled(self.message(e), actual, label)
    }
}

/// Lets the other ready tasks (the reader, the server) run once before this one goes on.
/// Unlike `tokio::task::yield_now`, which waits for the runtime to poll its I/O and timer
/// driver (a system call), it only requeues the task: the pipe is in-process, and the
/// tasks it wakes are ready at once.
async fn let_others_run() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

fn join_error(e: tokio::task::JoinError) -> String {
    match e.try_into_panic() {
        Ok(payload) => {
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string payload".into());
            format!("the server panicked: {text}")
        }
        Err(e) => format!("the server task was cancelled: {e}"),
    }
}

/// A copy of `message` whose `id` is `id` (a fixture label), when it has one.
fn with_id(message: &Value, id: Option<&Value>) -> Value {
    relabel(message.clone(), id)
}

/// `message` with its `id` set to `id` (a fixture label), when it has one.
fn relabel(mut message: Value, id: Option<&Value>) -> Value {
    if let (Some(slot), Some(id)) = (message.get_mut("id"), id) {
        *slot = id.clone();
    }
    message
}

/// `json_eq(expected, &with_id(actual, label))`, without the copy.
fn eq_relabelled(expected: &Value, actual: &Value, label: Option<&Value>) -> bool {
    match (expected.as_object(), actual.as_object(), label) {
        (Some(e), Some(a), Some(label)) if a.contains_key("id") => {
            e.len() == a.len()
                && e.iter().all(|(k, v)| match a.get(k) {
                    Some(_) if k == "id" => json_eq(v, label),
                    Some(other) => json_eq(v, other),
                    None => false,
                })
        }
        _ => json_eq(expected, actual),
    }
}

fn describe(entry: &Entry) -> String {
    match entry.kind() {
        MessageKind::Response => format!(
            "response {}",
            entry.id().map(|v| v.to_string()).unwrap_or_default()
        ),
        MessageKind::Request => format!("request `{}`", entry.method().unwrap_or("?")),
        MessageKind::Notification => format!("`{}`", entry.method().unwrap_or("?")),
    }
}

fn describe_request(entry: &Entry) -> String {
    format!(
        "`{}` (line {})",
        entry.method().unwrap_or("?"),
        entry.line()
    )
}

fn describe_message(message: &Value) -> String {
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some(method), Some(_)) => format!("request `{method}`"),
        (Some(method), None) => format!("`{method}`"),
        (None, Some(id)) => format!("response {id}"),
        (None, None) => "a message".into(),
    }
}

fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// The client request entries a later client `notifications/cancelled` names by label.
fn cancelled_requests(fixture: &Fixture) -> IntSet<usize> {
    let entries = fixture.entries();
    let mut out = IntSet::default();
    for (i, e) in entries.iter().enumerate() {
        if e.direction() != Direction::ClientToServer
            || e.method() != Some("notifications/cancelled")
        {
            continue;
        }
        let message = e.message();
        let Some(label) = message.pointer("/params/requestId") else {
            continue;
        };
        if let Some(target) = (0..i).rev().find(|&t| {
            entries[t].direction() == Direction::ClientToServer
                && entries[t].kind() == MessageKind::Request
                && entries[t].id().is_some_and(|id| json_eq(id, label))
        }) {
            out.insert(target);
        }
    }
    out
}

/// Is this fixture in the stateless era: its header names 2026-07-28 or later, or its first
/// client message is `server/discover`, or its requests carry the era's `_meta` identity.
pub(crate) fn is_modern(fixture: &Fixture) -> bool {
    if let Some(p) = fixture.protocol() {
        return p >= MODERN_PROTOCOL;
    }
    let mut client = fixture
        .entries()
        .iter()
        .filter(|e| e.direction() == Direction::ClientToServer);
    let falls_back = fixture
        .entries()
        .iter()
        .any(|e| e.direction() == Direction::ClientToServer && e.method() == Some("initialize"));
    match client.next() {
        // A discover probe followed by `initialize` is a legacy session (the server refused it).
        Some(first) if first.method() == Some("server/discover") => !falls_back,
        Some(first) if first.method() == Some("initialize") => false,
        Some(first) => {
            first
                .text()
                .contains("io.modelcontextprotocol/protocolVersion")
                && first
                    .message()
                    .pointer("/params/_meta")
                    .and_then(Value::as_object)
                    .is_some_and(|m| m.contains_key("io.modelcontextprotocol/protocolVersion"))
        }
        None => false,
    }
}

/// Adds the stateless era's identity keys a hand-written request omits, as placeholders
/// that [`Driver::fill_identity`] then fills.
fn add_identity_meta(message: &mut Value) {
    let Some(obj) = message.as_object_mut() else {
        return;
    };
    let params = obj.entry("params").or_insert_with(|| json!({}));
    let Some(params) = params.as_object_mut() else {
        return;
    };
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        for (key, placeholder) in crate::normalize::IDENTITY_META {
            meta.entry(key).or_insert_with(|| json!(placeholder));
        }
    }
}
