//! The mock server's core: every decision of playing a fixture's server side to a client,
//! and no I/O. It takes each client line with its instant ([`Mock::handle`]), says which
//! recorded line is due when ([`Mock::poll_transmit`], [`Mock::poll_timeout`]: the pace,
//! the recorded timing and the bound on an answer the client owes are its decisions), and
//! concludes into a [`Report`]. `run` in `mock/mod.rs` is its shell. Here: the core;
//! `shape.rs` the shape of the messages it compares and writes, `turns.rs` the turns a
//! client may take out of the recorded order, `tests.rs` its tests.

use crate::data::fixture::{Direction, Entry, Fixture, MessageKind};
use crate::data::json::At;
use crate::data::json::{compact, json_eq};
use crate::data::protocol::{meta, Era, DEFAULT_PROTOCOL, LEGACY_VERSIONS, STATELESS_PROTOCOL};
use crate::engine::polls::Polls;
use crate::engine::transport::Incoming;
use crate::findings::found::Findings;
use crate::findings::report::{Mismatch, MismatchKind, Report};
use crate::findings::stray::StrayLines;
use crate::normalize::bind::Bindings;
use crate::normalize::bound::has_bound;
use crate::options::Settings;
use crate::rules::Rules;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use super::MISMATCH_CODE;
use shape::{
    capabilities_of, describe_incoming, put_back_cache_hints, put_back_result_type, server_info,
};

mod faults;

use faults::FaultState;
mod shape;
#[cfg(test)]
mod tests;
mod turns;

/// A line to write: the recorded pause after the client message it answers (with recorded
/// timing), and the gap after the line before it.
struct Queued {
    message: Value,
    pause: Option<Duration>,
    gap: Duration,
    action: Action,
}

/// What the shell does with a queued message: send it, or (a fault on cue) send a line cut
/// short in its place, or close the connection in its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Send,
    Malformed,
    Close,
    /// A fault only HTTP has, for the front to carry out: the message goes in a line the
    /// front reads as an order (`engine/http/front.rs`, [`FAULT_KEY`]).
    Http,
}

/// The key of the line the mock writes for the HTTP front instead of a message a fault
/// only HTTP has hits: `{"mcp_replay_fault": FAULT, "message": MESSAGE}` (a fault as the
/// header's `"faults"` spells it). No JSON-RPC message has it.
pub(crate) const FAULT_KEY: &str = "mcp_replay_fault";

/// What the mock's core waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wake {
    /// The next queued line is due then: the shell waits for it, reading nothing.
    Write(Instant),
    /// The client owes an answer to a server request until then.
    Answer(Instant),
    /// Nothing: the client's next message, whenever it comes.
    Client,
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

pub(super) struct Mock<'f> {
    fixture: &'f Fixture,
    settings: &'f Settings<'f>,
    rules: &'f Rules,
    /// The session's pseudonyms (`normalize/personal/`): fed what is served, applied to
    /// what the client sends, so a client that sends its own real data again meets the
    /// recording's pseudonyms.
    pseudonyms: std::cell::RefCell<crate::normalize::personal::Table>,
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
    /// What the session found (the same owner as the replay's).
    findings: Findings,
    /// The lines the client wrote that are not JSON-RPC messages.
    stray: StrayLines,
    /// What to write next, each with its recorded pause since the client message it
    /// answers (with [`Options::timing`]).
    outgoing: Vec<(Value, Option<Duration>, Action)>,
    /// The lines to write, in order.
    queue: VecDeque<Queued>,
    /// When the client message that the queued lines answer came.
    began: Instant,
    /// When the latest queued line was written (`None`: none yet of this batch).
    written: Option<Instant>,
    /// The latest arrival or write: an owed answer is awaited for the timeout from then.
    last: Instant,
    /// The client did not answer a server request in time: the session is over.
    done: bool,
    /// The values the client minted (a task it runs for the server), bound where the
    /// client first sent them; the values the server minted are served fixed values.
    bindings: Bindings,
    /// The fixture's runs of task polls (`replay/polls.rs`): a client may poll more or
    /// fewer times than the recording's client did.
    polls: Polls,
    /// Poll entries of a run the client stopped polling before its end, and client
    /// answers that came before their turn: passed over.
    skipped: HashSet<usize>,
    /// Client answers the client's own requests went ahead of: taken when they come.
    owed: HashSet<usize>,
    /// The faults on cue and what became of them ([`FaultState`]).
    faults: FaultState,
}

impl<'f> Mock<'f> {
    /// The mock of `fixture` with `settings`, starting at `now` (what the recording has
    /// before the client's first message is queued at once).
    pub(super) fn new(fixture: &'f Fixture, settings: &'f Settings<'f>, now: Instant) -> Mock<'f> {
        let mut mock = Mock {
            fixture,
            settings,
            rules: &settings.rules,
            pseudonyms: Default::default(),
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
            findings: Findings::default(),
            stray: StrayLines::default(),
            outgoing: Vec::new(),
            queue: VecDeque::new(),
            began: now,
            written: None,
            last: now,
            done: false,
            // The server's values are the mock's to mint: each bound at once to its shape
            // (or the plain served form), so the client gets the same value everywhere,
            // inside strings and URIs too, and its echo reads back as the placeholder.
            bindings: Bindings::minted_by(
                fixture
                    .entries()
                    .iter()
                    .filter(|e| crate::normalize::bound::has_bound(e.text()))
                    .map(|e| (e.text(), e.direction(), e.kind())),
                Direction::ServerToClient,
                &settings.shapes,
            ),
            polls: Polls::of(fixture.entries()),
            skipped: HashSet::new(),
            owed: HashSet::new(),
            faults: FaultState {
                plan: settings.faults.clone().filter(|f| !f.is_empty()),
                injected: Vec::new(),
                over_http: settings.over_http,
                http_orders: std::collections::VecDeque::new(),
            },
        };
        mock.deliver();
        mock.schedule(now);
        mock
    }

    /// Takes one line of the client at `now`.
    pub(super) fn handle(&mut self, event: Incoming, now: Instant) {
        self.take(event);
        self.last = now;
        self.schedule(now);
    }

    /// Puts the next due line into `buf` (without its newline): `false` when none is due at
    /// `now`.
    pub(super) fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> bool {
        match self.due() {
            Some(due) if due <= now => {}
            _ => return false,
        }
        let queued = self.queue.pop_front().expect("a line is due");
        buf.clear();
        match queued.action {
            Action::Send => {}
            Action::Malformed => {
                // The message cut off mid-way, as a server that crashed while writing.
                serde_json::to_writer(&mut *buf, &queued.message)
                    .expect("a JSON value always serializes");
                buf.truncate(buf.len() / 2);
                self.written = Some(now);
                self.last = now;
                return true;
            }
            Action::Close => {
                // The connection ends here: nothing more is written or read.
                self.queue.clear();
                self.done = true;
                return false;
            }
            Action::Http => {
                let order = self
                    .faults
                    .http_orders
                    .pop_front()
                    .expect("an order for each message of Action::Http");
                let line = serde_json::json!({FAULT_KEY: order, "message": queued.message});
                serde_json::to_writer(&mut *buf, &line).expect("a JSON value always serializes");
                self.written = Some(now);
                self.last = now;
                return true;
            }
        }
        // In the fixture's canonical form: the same bytes whatever serde_json's features
        // in the build (`preserve_order` keeps the order keys were inserted in).
        let mut line = String::with_capacity(256);
        crate::data::json::write_message(&mut line, &queued.message);
        buf.extend_from_slice(line.as_bytes());
        self.written = Some(now);
        self.last = now;
        true
    }

    /// The line handed out last was written (and flushed) at `now`: the next one's gap
    /// counts from here.
    pub(super) fn line_written(&mut self, now: Instant) {
        self.written = Some(now);
        self.last = now;
    }

    /// When the next queued line is due: its recorded pause after the client message it
    /// answers, and its gap after the line before it was written (a gap counts from the
    /// write, so that a slow write or a busy machine never shortens it).
    fn due(&self) -> Option<Instant> {
        let next = self.queue.front()?;
        let paused = self.began + next.pause.unwrap_or_default();
        Some(match self.written {
            Some(written) => paused.max(written + next.gap),
            None => paused,
        })
    }

    /// What the mock waits for next.
    pub(super) fn poll_timeout(&self) -> Wake {
        if let Some(due) = self.due() {
            return Wake::Write(due);
        }
        // The client owes an answer to a server request: that wait is bounded (a client
        // that is waiting for its user is not: requests come when they come).
        match self.awaited_answer() {
            Some(_) if !self.done => Wake::Answer(self.last + self.settings.timeout),
            _ => Wake::Client,
        }
    }

    /// The instant [`poll_timeout`](Self::poll_timeout) named came.
    pub(super) fn handle_timeout(&mut self, now: Instant) {
        if let Wake::Answer(at) = self.poll_timeout() {
            if now >= at {
                self.no_answer();
                self.done = true;
            }
        }
    }

    /// Is the session over (apart from the client closing it)?
    pub(super) fn is_done(&self) -> bool {
        self.done && self.queue.is_empty()
    }

    /// Gives each message the last event queued its instant: one after the other, `pace`
    /// apart (and [`PROGRESS_SETTLE`] between a progress notification and a response), so
    /// that a client reads and handles each before the next arrives (the TypeScript SDK
    /// runs notification handlers in microtasks but settles a response at once: a progress
    /// notification that arrives in one read with its response is lost). A message with a
    /// recorded pause ([`Options::timing`]) is due that long after the client message it
    /// answers came (`now`), and paces nothing.
    fn schedule(&mut self, now: Instant) {
        let pace = self.settings.pace;
        if self.queue.is_empty() {
            self.began = now;
            self.written = None;
        }
        let mut previous: Option<(Value, Option<Duration>)> = None;
        for (message, pause, action) in std::mem::take(&mut self.outgoing) {
            let gap = match &previous {
                Some((before, None)) if !pace.is_zero() && pause.is_none() => {
                    gap(before, &message, pace)
                }
                _ => Duration::ZERO,
            };
            self.queue.push_back(Queued {
                message: message.clone(),
                pause,
                gap,
                action,
            });
            previous = Some((message, pause));
        }
    }

    /// The report, once the session is over: recorded messages the client never asked
    /// for, and the lines it wrote that are not JSON-RPC messages.
    pub(super) fn conclude(mut self) -> Report {
        self.unused();
        let mut notes: Vec<String> = self.fault_notes();
        notes.extend(self.stray_output());
        notes.append(&mut self.findings.notes);
        Report {
            source: self.fixture.source().to_owned(),
            test: None,
            // The client drives this exchange: a new recording comes from the real server.
            rerecord: Some(format!(
                "mcp-replay record -o {} -- <the real server command>   (with the client pointed at it)",
                self.fixture.source()
            )),
            mismatches: self.findings.mismatches,
            accepted: self.findings.accepted,
            warnings: self.findings.warnings,
            notes,
            recorded: None,
            rerecording: false,
            pinned: false,
            timeline: None,
        }
    }

    fn fail(&mut self, mismatch: Mismatch) {
        self.findings.push(mismatch);
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
                        None, Action::Send));
                }
            }
            Incoming::Message(message) => self.receive(message),
            // The mock frames lines without the fast path (`transport::parse_line`).
            Incoming::Response(response) => self
                .receive(serde_json::from_str(&response.text).expect("the fast path writes JSON")),
            Incoming::Setup { text, .. } => {
                self.receive(serde_json::from_str(&text).expect("the framer peeked at JSON"))
            }
            Incoming::Closed(_) => {}
        }
    }

    /// Whether no client message is left in the recording.
    pub(super) fn played(&self) -> bool {
        self.last_client.is_none_or(|last| self.position > last)
    }

    /// The protocol version a client message asks for or speaks in: an `initialize`'s (the
    /// legacy era) or the one its `_meta` names (2026-07-28 on: stateless).
    fn note_version(&mut self, message: &Value) {
        if message.get("method").and_then(Value::as_str) == Some("initialize") {
            self.asked_version = message.at(&["params", "protocolVersion"]).cloned();
            self.stateless = false;
        }
        if let Some(version) = crate::data::protocol::request_version(message) {
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
            // An older fixture may hold the values themselves: the same pseudonyms.
            let scope = self.rules.personal_scope();
            if scope.may_touch(entry.text()) {
                self.pseudonyms
                    .borrow_mut()
                    .apply(&mut message, scope, false);
            }
        }
        message
    }

    /// A client message after the recording's last: a finding, and refused.
    fn past_the_end(&mut self, message: &Value, live_id: Option<&Value>, kind: MessageKind) {
        self.fail(
            Mismatch::new(
                MismatchKind::Unexpected,
                None,
                format!(
                    "{} came after the end of the recording",
                    describe_incoming(message)
                ),
            )
            .actual(message),
        );
        self.refuse(live_id, kind, "the recording has no more requests".into());
    }

    /// A client message that is not the recording's next (`params`: only its params
    /// differ): a finding, and refused.
    fn not_next(
        &mut self,
        entry: &Entry,
        wanted: &Value,
        message: &Value,
        params: bool,
        live_id: Option<&Value>,
        kind: MessageKind,
    ) {
        let kind_of_finding = if params {
            MismatchKind::Params
        } else {
            MismatchKind::Method
        };
        let summary = format!(
            "{} did not match next expected {} {}{}",
            describe_incoming(message),
            entry.method().unwrap_or("response"),
            compact(wanted.get("params").unwrap_or(&Value::Null), 200),
            self.reaction_to(self.position)
        );
        self.fail(
            Mismatch::new(kind_of_finding, Some(entry.line()), summary.clone())
                .compare(wanted, message),
        );
        self.refuse(live_id, kind, summary);
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
        if !self.faults.injected.is_empty() {
            self.after_fault(&message);
        }
        if self.synthesizes_handshake && self.handshake(&message) {
            return;
        }
        self.note_version(&message);
        // What the mock served for a value the server mints (its bindings hold it), sent
        // back, and the client's own values, bound before normalization (a UUID task id
        // must stay one).
        self.bindings.unbind(&mut message);
        if let Some(entry) = self.next_expected().filter(|e| has_bound(e.text())) {
            let wanted = self.recorded(entry);
            self.bindings.bind_from(&wanted, &mut message);
        }
        self.rules.normalize_client(&mut message);
        let scope = self.rules.personal_scope();
        if !scope.is_empty() {
            self.pseudonyms.get_mut().apply(&mut message, scope, true);
        }
        if self.other_poll_count(&message, live_id.as_ref()) {
            return;
        }
        if self.out_of_turn(kind, live_id.as_ref(), &mut message) {
            return;
        }
        let Some(entry) = self.next_expected().cloned() else {
            self.past_the_end(&message, live_id.as_ref(), kind);
            return;
        };
        let wanted = self.as_recorded(&entry, kind, &mut message);
        let same_method = entry.method() == message.get("method").and_then(Value::as_str);
        let matches = kind == entry.kind()
            && same_method
            && (entry.method() == Some("server/discover") || json_eq(&wanted, &message));
        if kind == MessageKind::Response && entry.kind() == MessageKind::Response {
            self.compare_answer(&entry, &wanted, &message);
            self.position += 1;
            self.deliver();
            return;
        }
        if !matches {
            let params = same_method && kind == entry.kind();
            self.not_next(&entry, &wanted, &message, params, live_id.as_ref(), kind);
            return;
        }
        if kind == MessageKind::Request {
            self.client_live
                .insert(self.position, live_id.unwrap_or(Value::Null));
        }
        self.position += 1;
        self.deliver();
    }

    /// A client that polls a task more or fewer times than the recording's did (`message`
    /// normalized): a poll after the run's last is answered as the last was (the task
    /// has not moved on), and a message other than the poll the run expects next ends
    /// the run there (the client saw enough), the rest of it passed over. `true` when
    /// `message` was answered here.
    fn other_poll_count(&mut self, message: &Value, live_id: Option<&Value>) -> bool {
        let entries = self.fixture.entries();
        let is_poll = message.get("method").and_then(Value::as_str) == Some("tasks/get");
        let next_run = self
            .polls
            .run_of(self.position)
            .filter(|_| self.polls.stood_for(self.position));
        if let Some(run) = next_run.filter(|_| !is_poll) {
            let rest = &self.polls.runs[run];
            let from = rest
                .requests
                .iter()
                .position(|&q| q >= self.position)
                .unwrap_or(0);
            for k in from..rest.requests.len() {
                self.skipped.insert(rest.requests[k]);
                if let Some(r) = rest.responses[k] {
                    self.skipped.insert(r);
                }
            }
            self.deliver();
            return false;
        }
        if !is_poll || next_run.is_some() {
            return false;
        }
        let params = message.get("params");
        let done = self.polls.runs.iter().rev().find(|run| {
            run.requests.last().is_some_and(|&q| q < self.position)
                && json_eq(
                    &self.recorded(&entries[run.requests[0]])["params"],
                    params.unwrap_or(&Value::Null),
                )
        });
        let Some(answer) =
            done.and_then(|run| run.responses.iter().rev().flatten().next().copied())
        else {
            return false;
        };
        let Some(id) = live_id.cloned() else {
            return false;
        };
        let mut again = entries[answer].message();
        again["id"] = id;
        self.bindings.substitute(&mut again);
        self.rules.concretize(&mut again);
        self.outgoing.push((again, None, Action::Send));
        true
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
        self.outgoing.push((response, None, Action::Send));
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
            entry.message().at(&["params", "_meta", "progressToken"]),
            message.at(&["params", "_meta", "progressToken"]).cloned(),
        ) {
            self.tokens.push((label.clone(), live));
            message["params"]["_meta"]["progressToken"] = label.clone();
        }
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            if let Some(live) = message.at(&["params", "requestId"]).cloned() {
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
                Action::Send,
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
            if self.skipped.contains(&self.position) {
                self.position += 1;
                continue;
            }
            if self.closes_instead(entry) {
                self.owed.insert(self.position);
                self.position += 1;
                continue;
            }
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
            // The client's own values it sent before; the server's are served by concretize.
            self.bindings.substitute(&mut message);
            let scope = self.rules.personal_scope();
            if scope.may_touch(entry.text()) {
                // Counted, not changed: the client gets the recording as it is.
                self.pseudonyms
                    .get_mut()
                    .apply(&mut message.clone(), scope, true);
            }
            self.rules.concretize(&mut message);
            let pause = timing.and_then(|(t, scale)| {
                let ms = (t.ms(entry.line())? - since).max(0.0) * scale;
                Some(Duration::from_secs_f64(ms / 1000.0))
            });
            self.position += 1;
            self.push_served(entry, message, pause);
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
        // A subscription's id is the client's own id of its `subscriptions/listen`.
        if let Some(id) = crate::data::protocol::subscription_id(message) {
            let entries = self.fixture.entries();
            if let Some((_, live)) = self
                .client_live
                .iter()
                .filter(|(e, _)| entries[**e].id() == Some(&*id))
                .max_by_key(|(e, _)| **e)
            {
                *id = live.clone();
            }
        }
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
            self.findings.push(
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
