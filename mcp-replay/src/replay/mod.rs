//! The replay driver: feeds a fixture's client messages to a server, takes what the server
//! sends as it comes, and owns the pipe, the timer and the server task (the algorithm is in
//! `docs/fixture-format.md`). The rest is by file:
//!
//! - `causal.rs`: when each expected server message may arrive, and whose order it shares;
//! - `align.rs`: the pairing of what arrived with what was expected (pure, no I/O);
//! - `ledger.rs`: the live ids of the client requests sent;
//! - `outgoing.rs`: what is sent, ids and identity filled in;
//! - `expected.rs`: the fixture's messages, normalized on demand, and their comparison;
//! - `trace.rs`: the `MCP_REPLAY_TRACE` output.
//!
//! A client message is sent once what it causally needs has arrived: every response and
//! server request the fixture has before it. A client's answer to a server request is sent
//! as soon as that request arrives. Notifications are never waited for while the session
//! runs: each is paired at the end, within its span, so a missing one costs no time; only
//! unsolicited ones are waited for after the last client message. Then the server's input
//! is closed and its output read to the end, so that what it writes late (a second answer,
//! a message as it shuts down) is judged in every run, not only when it happened to be read
//! in time.

mod align;
mod causal;
mod expected;
#[cfg(test)]
mod interleavings;
mod ledger;
mod outgoing;
mod serve;
pub(crate) mod trace;

pub use serve::ServeOutput;

use crate::contract::{self, Change, Class, CONTRACT_METHODS};
use crate::fixture::{Direction, Entry, Fixture, MessageKind};
use crate::json::{compact, json_eq};
use crate::normalize::fast::FastResponse;
use crate::record::StrayLines;
use crate::report::{Mismatch, MismatchKind, Report};
use crate::rules::Rules;
use crate::transport::{read_lines, Incoming, Stopping};
use align::{How, Span};
use causal::Model;
use expected::Expected;
use ledger::{Ledger, Moment, SETUP_ID};
pub(crate) use outgoing::{is_modern, strip_json};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use trace::Trace;

/// Where a request carries its progress token.
const TOKEN: &str = "/params/_meta/progressToken";

/// The protocol version of the session setup the harness performs for fixtures that start
/// without a handshake, unless the header names another.
pub const DEFAULT_PROTOCOL: &str = "2025-11-25";

/// The first protocol version of the stateless era: no handshake, identity in `_meta`.
pub const MODERN_PROTOCOL: &str = "2026-07-28";

/// The `_meta` key of a request's protocol version in the stateless era.
pub(crate) const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// How a server task ended: `Ok` or a description of the failure.
pub(crate) type ServerTask = JoinHandle<Result<(), String>>;

/// A server notification or server request that arrived.
#[derive(Debug)]
struct Arrival {
    seq: u64,
    kind: MessageKind,
    /// Normalized.
    message: Value,
    /// The group it was taken into (`causal::Model::assign`).
    group: Option<usize>,
    /// For a server request: the want it was matched with when it came.
    fixed: Option<usize>,
}

/// What the recording of a replay holds, by its place in the session.
enum Rec<'f> {
    Client(Value),
    Server(Value),
    /// A response exactly the fixture's entry (once its id is the entry's label).
    Entry(&'f Entry),
    /// A notification or server request: `arrivals[i]`, labelled at the end.
    Arrival(usize),
}

/// What the driver waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Awaited {
    /// The expected response entry (its request was sent).
    Response(usize),
    /// The answer to a request the fixture has no response line for: `(live, entry)`.
    Answer(i64, usize),
    /// An expected server request or unsolicited notification (a want); or one tied to a
    /// request, which stops being awaited when that request is answered.
    Want(usize),
    /// A want tied to a request only because that request alone ran when it was recorded:
    /// after the last client message, it is awaited until it or a stand-in came.
    Loose(usize),
}

/// Runs one replay over a reader/writer pair connected to the server; `stopping` is what
/// the server's end of the pipe says about how the server stopped.
pub(crate) async fn run<R, W>(
    fixture: &Fixture,
    rules: &Rules,
    (reader, writer): (R, W),
    server: Option<ServerTask>,
    stopping: Stopping,
) -> Report
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let rules = &*rules.for_fixture(fixture);
    let (tx, events) = mpsc::unbounded_channel();
    let reader_task = tokio::spawn(read_lines(reader, tx, rules.defaults_only()));
    let mut driver = Driver::new(fixture, rules, events, writer, server);
    driver.stopping = Some(stopping);
    driver.drive().await;
    reader_task.abort();
    driver.into_report()
}

struct Driver<'f, W> {
    fixture: &'f Fixture,
    rules: &'f Rules,
    model: Model<'f>,
    expected: Expected<'f>,
    timeout: Duration,
    events: mpsc::UnboundedReceiver<Incoming>,
    writer: W,
    server: Option<ServerTask>,
    /// What the server's end of the pipe says about how the server stopped.
    stopping: Option<Stopping>,
    /// The server task did not end in time after its input was closed.
    server_stuck: Option<Duration>,
    /// Why the server ended, once known.
    server_outcome: Option<Result<(), String>>,
    /// The lines the server wrote that are not JSON-RPC messages.
    stray: StrayLines,
    notes: Vec<String>,
    /// The folder placeholders the client messages sent were written with, and the folder
    /// each stood for: a failing report says what the server was really sent.
    folders: Vec<(&'static str, String)>,
    /// Set once the server's output closed (with the read error, if any).
    closed: Option<Option<String>>,
    /// Set when the replay cannot go on (nothing more is sent).
    aborted: bool,
    /// Sends and arrivals counted together: the session's clock for spans and order.
    seq: u64,
    /// When the latest client message was sent (on the clock of `seq`).
    last_sent: u64,
    ledger: Ledger,
    /// The fixture entry of the expected response of each client request entry.
    response_of_request: IntMap<usize, usize>,
    /// The client's answer entry to each expected server request entry.
    answer_of: IntMap<usize, usize>,
    /// `(expected response entry, arrival)` of each response, for strict response order.
    response_order: Vec<(usize, u64)>,
    /// Responses whose id fits no request, not yet explained: `(arrival, message)`.
    anomalies: Vec<(u64, Value)>,
    arrivals: Vec<Arrival>,
    /// Per want: an equal arrival claimed it (or, for a server request, it was matched).
    claimed: Vec<bool>,
    /// Per want: the replay stopped waiting for it.
    given_up: Vec<bool>,
    /// Answers to server requests and refusals to send once the current event is taken.
    pending: Vec<Pending>,
    /// The server's live id of each expected server request entry it was matched with.
    server_live: IntMap<usize, Value>,
    /// The actual server request each matched expected server request entry was.
    server_request_seen: IntMap<usize, Value>,
    mismatches: Vec<Mismatch>,
    /// Result differences whose contract changes are all in accepted classes.
    accepted: Vec<Mismatch>,
    /// What the server really did, unless the fixture was replayed
    /// [`without_recording`](Fixture::without_recording).
    recording: Option<Vec<(u64, Rec<'f>)>>,
    recordable: bool,
    /// Reused for the bytes of each message written to the server.
    out: Vec<u8>,
    /// The timer of every wait for the server (see `receive`).
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    new_server_labels: usize,
    /// The stateless era (2026-07-28 and later): no handshake, identity in `_meta`.
    modern: bool,
    /// The `requestState` of the latest `input_required` result, as the server wrote it.
    last_request_state: Option<Value>,
    /// Client request entries that a later client `notifications/cancelled` cancels.
    cancelled_later: IntSet<usize>,
    trace: Trace,
    /// The fixture entry each paired arrival was paired with (for the recording's labels).
    labels: IntMap<usize, usize>,
}

/// Something to write to the server once the current event is taken.
enum Pending {
    /// The client's answer line (entry) to a server request that came.
    Answer(usize),
    Refuse(Value),
}

impl<'f, W: AsyncWrite + Unpin> Driver<'f, W> {
    fn new(
        fixture: &'f Fixture,
        rules: &'f Rules,
        events: mpsc::UnboundedReceiver<Incoming>,
        writer: W,
        server: Option<ServerTask>,
    ) -> Self {
        let entries = fixture.entries();
        let mut response_of_request = IntMap::default();
        let mut answer_of = IntMap::default();
        for (i, e) in entries.iter().enumerate() {
            if let Some(request) = e.answers() {
                match e.direction() {
                    Direction::ServerToClient => response_of_request.insert(request, i),
                    Direction::ClientToServer => answer_of.insert(request, i),
                };
            }
        }
        let requests = entries
            .iter()
            .filter(|e| {
                e.direction() == Direction::ClientToServer && e.kind() == MessageKind::Request
            })
            .count();
        let model = Model::new(fixture, rules);
        let wants = model.wants.len();
        Driver {
            fixture,
            rules,
            model,
            expected: Expected::new(entries, rules),
            timeout: fixture.timeout(),
            events,
            writer,
            server,
            stopping: None,
            server_stuck: None,
            server_outcome: None,
            stray: StrayLines::default(),
            notes: Vec::new(),
            folders: Vec::new(),
            closed: None,
            aborted: false,
            seq: 0,
            last_sent: 0,
            ledger: Ledger::with_capacity(requests),
            response_of_request,
            answer_of,
            response_order: Vec::new(),
            anomalies: Vec::new(),
            arrivals: Vec::new(),
            claimed: vec![false; wants],
            given_up: vec![false; wants],
            pending: Vec::new(),
            server_live: IntMap::default(),
            server_request_seen: IntMap::default(),
            mismatches: Vec::new(),
            accepted: Vec::new(),
            recording: fixture.records().then(Vec::new),
            recordable: true,
            out: Vec::new(),
            timer: Box::pin(tokio::time::sleep(fixture.timeout())),
            new_server_labels: 0,
            modern: is_modern(fixture),
            last_request_state: None,
            cancelled_later: cancelled_requests(fixture),
            trace: Trace::new(
                fixture.traces().unwrap_or_else(trace::from_env),
                fixture.source(),
            ),
            labels: IntMap::default(),
        }
    }

    fn into_report(mut self) -> Report {
        let recorded = match self.recording.take() {
            Some(events) if self.recordable => self.recorded(events),
            _ => None,
        };
        self.trace.end(self.mismatches.len());
        if !self.mismatches.is_empty() {
            for (placeholder, folder) in &self.folders {
                self.notes.push(format!(
                    "{placeholder} in the client messages was sent as {folder} (the folder \
                     placeholders: docs/normalization.md)"
                ));
            }
        }
        Report {
            source: self.fixture.source().to_owned(),
            test: None,
            rerecord: None,
            mismatches: self.mismatches,
            accepted: self.accepted,
            notes: self.notes,
            recorded,
        }
    }

    fn fail(&mut self, mismatch: Mismatch) {
        if matches!(
            mismatch.kind,
            MismatchKind::Timeout
                | MismatchKind::ServerFailure
                | MismatchKind::Id
                | MismatchKind::StrayOutput
        ) {
            self.recordable = false;
        }
        if self.trace.on() {
            self.trace.line(format_args!(
                "finding: {} {}",
                mismatch.kind, mismatch.summary
            ));
        }
        self.mismatches.push(mismatch);
    }

    fn abort(&mut self, mismatch: Mismatch) {
        self.fail(mismatch);
        self.aborted = true;
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
        // The responses and server requests the fixture has before the next client message.
        let mut before: Vec<Awaited> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            if self.aborted {
                break;
            }
            match (entry.direction(), entry.kind()) {
                (Direction::ServerToClient, MessageKind::Response) => {
                    before.push(Awaited::Response(i))
                }
                (Direction::ServerToClient, MessageKind::Request) => {
                    before.push(Awaited::Want(self.model.want_of_entry[&i]))
                }
                // A request's own message, while it runs: a client message after it may
                // be its consequence (a cancellation after the first progress).
                (Direction::ServerToClient, MessageKind::Notification) => {
                    let w = self.model.want_of_entry[&i];
                    if self.model.wants[w].tie.is_some() {
                        before.push(Awaited::Want(w));
                    }
                }
                // Sent as soon as its server request comes.
                (Direction::ClientToServer, MessageKind::Response) => {}
                (Direction::ClientToServer, kind) => {
                    // Every request deserves an answer: before a new request, the ones the
                    // fixture has no response line for are awaited (not while `initialize`
                    // runs: a client sends nothing then but `initialize`'s own answers).
                    let unanswered = kind == MessageKind::Request || self.initialize_in_flight();
                    self.wait(&mut before, unanswered, false).await;
                    if !self.aborted {
                        self.send(i).await;
                    }
                }
            }
        }
        if !self.aborted {
            self.await_the_rest().await;
        }
        self.shutdown().await;
        self.conclude();
        self.judge_the_end();
    }

    /// After the last client message: waits for what may still come (responses, server
    /// requests, unsolicited messages, a loosely tied message or its stand-in), then takes
    /// what the server already wrote.
    async fn await_the_rest(&mut self) {
        let wants = &self.model.wants;
        let mut end: Vec<Awaited> = (0..wants.len())
            .filter_map(|w| match wants[w] {
                causal::Wanted { tie: None, .. } => Some(Awaited::Want(w)),
                causal::Wanted { hard: false, .. } => Some(Awaited::Loose(w)),
                _ => None,
            })
            .chain(
                self.response_of_request
                    .values()
                    .map(|&r| Awaited::Response(r)),
            )
            .collect();
        end.sort_unstable_by_key(|a| match *a {
            Awaited::Response(e) | Awaited::Answer(_, e) => e,
            Awaited::Want(w) | Awaited::Loose(w) => self.model.wants[w].entry,
        });
        self.wait(&mut end, true, true).await;
        // Let the reader hand over what the server already wrote, then take it all.
        for _ in 0..4 {
            let_others_run().await;
        }
        while let Ok(event) = self.events.try_recv() {
            self.accept(event);
        }
        self.flush_pending().await;
    }

    /// A client sends nothing after `initialize` until its result came (the spec's rule).
    fn initialize_in_flight(&self) -> bool {
        let entries = self.fixture.entries();
        self.ledger
            .in_flight()
            .any(|(_, entry)| entries[entry].method() == Some("initialize"))
    }

    /// Waits until nothing in `awaited` (nor, with `unanswered`, a request the fixture has
    /// no response for) is still to come; on a timeout, each of them is a finding and the
    /// replay goes on without it. `last`: after the last client message.
    async fn wait(&mut self, awaited: &mut Vec<Awaited>, unanswered: bool, last: bool) {
        let deadline = Instant::now() + self.timeout;
        loop {
            self.stand_in_anomalies(awaited, false);
            awaited.retain(|a| !self.arrived(*a));
            if unanswered {
                let open: Vec<Awaited> = self
                    .ledger
                    .in_flight()
                    .filter(|&(_, entry)| !self.answer_expected(entry))
                    .map(|(live, entry)| Awaited::Answer(live, entry))
                    .collect();
                for a in open {
                    if !awaited.contains(&a) {
                        awaited.push(a);
                    }
                }
            }
            if awaited.is_empty() || self.aborted {
                return;
            }
            if self.closed.is_some() {
                self.closed_while_waiting(awaited).await;
                return;
            }
            if !self.receive(deadline).await {
                self.stand_in_anomalies(awaited, true);
                awaited.retain(|a| !self.arrived(*a));
                self.timed_out(awaited, last);
                awaited.clear();
                return;
            }
            self.flush_pending().await;
        }
    }

    /// Has `awaited` arrived (or been given up on)?
    fn arrived(&self, awaited: Awaited) -> bool {
        match awaited {
            Awaited::Response(r) => {
                self.settled(self.fixture.entries()[r].answers().unwrap_or_default())
            }
            Awaited::Answer(_, entry) => self.settled(entry),
            Awaited::Want(w) => {
                self.claimed[w] || self.given_up[w] || self.span_closed(w) || self.stood_in(w)
            }
            Awaited::Loose(w) => self.claimed[w] || self.given_up[w] || self.stood_in(w),
        }
    }

    /// Was want `w` tied to a request that was answered (so it can no longer come)?
    fn span_closed(&self, w: usize) -> bool {
        self.model.wants[w]
            .tie
            .is_some_and(|request| self.settled(request))
    }

    /// Is client request entry `request` done with: answered, given up on, or never sent?
    fn settled(&self, request: usize) -> bool {
        self.ledger
            .live(request)
            .and_then(|live| self.ledger.get(live))
            .is_none_or(|sent| sent.answered.is_some() || sent.given_up)
    }

    /// Did a message of want `w`'s method, taken into its group, stand in for it (one that
    /// differs: a finding, not a reason to wait)? Only for wants tied to a request.
    fn stood_in(&self, w: usize) -> bool {
        let want = self.model.wants[w];
        if want.tie.is_none() {
            return false;
        }
        let entries = self.fixture.entries();
        let method = entries[want.entry].method();
        let rank = self.model.members[want.group]
            .iter()
            .take_while(|&&m| m != w)
            .filter(|&&m| entries[self.model.wants[m].entry].method() == method)
            .count();
        let came = self
            .arrivals
            .iter()
            .filter(|a| a.group == Some(want.group) && a.message["method"].as_str() == method)
            .count();
        came > rank
    }

    /// Responses with an id that fits no request stand, in order, for the awaited
    /// responses that did not come (an *id* finding each): once they are all that is
    /// still awaited, or (`force`) when the wait is over.
    fn stand_in_anomalies(&mut self, awaited: &[Awaited], force: bool) {
        if self.anomalies.is_empty() {
            return;
        }
        let mut missing: Vec<usize> = Vec::new();
        for &a in awaited {
            match a {
                Awaited::Response(r) if !self.arrived(a) => missing.push(r),
                Awaited::Response(_) => {}
                other if !force && !self.arrived(other) => return,
                _ => {}
            }
        }
        if missing.is_empty() || (!force && self.anomalies.len() < missing.len()) {
            return;
        }
        missing.sort_unstable();
        let entries = self.fixture.entries();
        for r in missing {
            if self.anomalies.is_empty() {
                break;
            }
            let (_, message) = self.anomalies.remove(0);
            let request = entries[r].answers().expect("correlated at parse time");
            let why = self.ledger.id_anomaly(&message);
            self.fail(
                Mismatch::new(
                    MismatchKind::Id,
                    Some(entries[r].line()),
                    format!(
                        "the response expected for {} came with id {} ({why})",
                        describe_request(&entries[request]),
                        message["id"]
                    ),
                )
                .request(&entries[request])
                .expected(&json!({"id": self.ledger.live(request)}))
                .actual(&json!({"id": message["id"]})),
            );
            let relabelled = relabel(message, entries[r].id());
            self.compare_response(r, &relabelled);
            if let Some(live) = self.ledger.live(request) {
                self.ledger.answer(live, self.seq);
            }
        }
    }

    /// The timeout passed while the replay waited for `awaited`.
    fn timed_out(&mut self, awaited: &[Awaited], last: bool) {
        let entries = self.fixture.entries();
        for &a in awaited {
            match a {
                Awaited::Response(r) => {
                    let request = entries[r].answers().expect("correlated at parse time");
                    let live = self.ledger.live(request).unwrap_or_default();
                    self.ledger.give_up(live);
                    let m = Mismatch::new(
                        MismatchKind::Timeout,
                        Some(entries[r].line()),
                        format!(
                            "no response to {} within {}",
                            describe_sent(&entries[request], live),
                            ms(self.timeout)
                        ),
                    )
                    .request(&entries[request])
                    .expected(self.expected.message(r));
                    self.fail(m);
                }
                Awaited::Answer(live, entry) => {
                    self.ledger.give_up(live);
                    self.fail(
                        Mismatch::new(
                            MismatchKind::Timeout,
                            Some(entries[entry].line()),
                            format!(
                                "no response to {} within {}",
                                describe_sent(&entries[entry], live),
                                ms(self.timeout)
                            ),
                        )
                        .request(&entries[entry]),
                    );
                }
                // Reported as missing by the alignment.
                Awaited::Want(w) | Awaited::Loose(w) => self.given_up[w] = true,
            }
        }
        self.trace.line(format_args!(
            "timeout after {}{}",
            ms(self.timeout),
            if last {
                " (after the last client message)"
            } else {
                ""
            }
        ));
    }

    async fn closed_while_waiting(&mut self, awaited: &[Awaited]) {
        let entries = self.fixture.entries();
        let why = self.close_reason().await;
        let read_error = self
            .closed
            .clone()
            .flatten()
            .map(|e| format!(" (read error: {e})"))
            .unwrap_or_default();
        let what: Vec<String> = awaited
            .iter()
            .map(|a| match *a {
                Awaited::Response(r) => {
                    let request = entries[r].answers().unwrap_or_default();
                    let live = self.ledger.live(request).unwrap_or_default();
                    format!(
                        "the response to {} expected at line {}",
                        describe_sent(&entries[request], live),
                        entries[r].line()
                    )
                }
                Awaited::Answer(live, e) => {
                    format!("the response to {}", describe_sent(&entries[e], live))
                }
                Awaited::Want(w) | Awaited::Loose(w) => {
                    let e = self.model.wants[w].entry;
                    format!("{} (line {})", describe(&entries[e]), entries[e].line())
                }
            })
            .collect();
        let line = awaited.first().map(|a| match *a {
            Awaited::Response(r) => entries[r].line(),
            Awaited::Answer(_, e) => entries[e].line(),
            Awaited::Want(w) | Awaited::Loose(w) => entries[self.model.wants[w].entry].line(),
        });
        self.abort(Mismatch::new(
            MismatchKind::ServerFailure,
            line,
            format!(
                "the server closed the connection{read_error} while the replay waited for: {}{why}",
                what.join(", ")
            ),
        ));
    }

    /// Does the fixture account for request entry `entry`'s answer: a response line, or a
    /// later client cancellation (then no answer is awaited)?
    fn answer_expected(&self, entry: usize) -> bool {
        self.response_of_request.contains_key(&entry) || self.cancelled_later.contains(&entry)
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
        self.trace.line("-> `initialize` id 0 (session setup)");
        if !self.write(&initialize, None, || what.into()).await {
            return;
        }
        let deadline = Instant::now() + self.timeout;
        let outcome = loop {
            if self.closed.is_some() {
                let why = self.close_reason().await;
                self.abort(Mismatch::new(
                    MismatchKind::ServerFailure,
                    None,
                    format!("the server closed the connection before answering {what}{why}"),
                ));
                return;
            }
            let Some(event) = self.next_event(deadline).await else {
                self.abort(Mismatch::new(
                    MismatchKind::Timeout,
                    None,
                    format!("no response to {what} within {}", ms(self.timeout)),
                ));
                return;
            };
            if let Some(outcome) = setup_outcome(&event) {
                break outcome;
            }
            // The server's own messages may come first (a request answered at once).
            self.accept(event);
            self.flush_pending().await;
        };
        self.trace.line("<- response 0 (session setup)");
        if let Err(response) = outcome {
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
        self.trace
            .line("-> `notifications/initialized` (session setup)");
        self.write(&initialized, None, || {
            "the harness's `notifications/initialized`".into()
        })
        .await;
    }

    /// The next event, waiting until `deadline`; `None` when the deadline passed.
    async fn next_event(&mut self, deadline: Instant) -> Option<Incoming> {
        // What already arrived needs no timer.
        match self.events.try_recv() {
            Ok(event) => Some(event),
            Err(mpsc::error::TryRecvError::Disconnected) => Some(Incoming::Closed(None)),
            Err(mpsc::error::TryRecvError::Empty) => {
                // One timer for the whole replay, moved to each deadline: moving it later
                // does not touch the runtime's timer wheel, a new timer per wait would.
                self.timer.as_mut().reset(deadline);
                tokio::select! {
                    biased;
                    event = self.events.recv() => Some(event.unwrap_or(Incoming::Closed(None))),
                    () = self.timer.as_mut() => None,
                }
            }
        }
    }

    /// Takes one event, waiting until `deadline`; `false` when the deadline passed.
    async fn receive(&mut self, deadline: Instant) -> bool {
        match self.next_event(deadline).await {
            Some(event) => {
                self.accept(event);
                true
            }
            None => false,
        }
    }

    /// Writes the answers and refusals the last events asked for.
    async fn flush_pending(&mut self) {
        while !self.pending.is_empty() {
            for pending in std::mem::take(&mut self.pending) {
                match pending {
                    Pending::Answer(entry) => self.send(entry).await,
                    Pending::Refuse(request) => self.refuse(&request).await,
                }
            }
        }
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
                    match kind {
                        MessageKind::Response => self.take_response(Response::Tree(message)),
                        _ => self.take_other(kind, message),
                    }
                }
                Err(reason) => {
                    self.trace
                        .received(&message, format_args!("not a JSON-RPC message: {reason}"));
                    self.stray.push(message.to_string().as_bytes());
                }
            },
            Incoming::Response(response) => {
                self.seq += 1;
                self.take_response(Response::Fast(response));
            }
            Incoming::Invalid {
                line,
                reason,
                excerpt,
            } => {
                if self.trace.on() {
                    self.trace
                        .line(format_args!("<- line {line} is {reason}: {excerpt:?}"));
                }
                self.stray.push(excerpt.as_bytes());
            }
            Incoming::Closed(error) => {
                self.trace.line("<- the server closed its output");
                if self.closed.is_none() {
                    self.closed = Some(error);
                }
            }
        }
    }

    /// A response: matched by its live id at once (the replay waits on responses).
    fn take_response(&mut self, response: Response) {
        let seq = self.seq;
        let live = response
            .int_id()
            .filter(|live| self.ledger.get(*live).is_some());
        let Some(live) = live else {
            let message = response.into_tree();
            self.trace.received(&message, "its id fits no request");
            self.anomalies.push((seq, message));
            return;
        };
        let sent = *self.ledger.get(live).expect("checked above");
        let entries = self.fixture.entries();
        if sent.given_up {
            self.trace.received(
                &response.into_tree(),
                "ignored: the replay stopped waiting for it",
            );
            return;
        }
        if sent.answered.is_some() {
            let message = response.into_tree();
            self.trace.received(&message, "a second answer");
            self.anomalies.push((seq, message));
            return;
        }
        self.ledger.answer(live, seq);
        let Some(&r) = self.response_of_request.get(&sent.entry) else {
            let actual = relabel(response.into_tree(), entries[sent.entry].id());
            self.trace.received(&actual, "not expected");
            self.fail(
                Mismatch::new(
                    MismatchKind::Unexpected,
                    None,
                    format!(
                        "a response to {} that the fixture does not expect",
                        describe_request(&entries[sent.entry])
                    ),
                )
                .request(&entries[sent.entry])
                .actual(&actual),
            );
            self.record(seq, Rec::Server(actual));
            return;
        };
        if self.fixture.strict_response_order() {
            self.response_order.push((r, seq));
        }
        if let Response::Fast(fast) = &response {
            if self.expected.matches_text(r, fast) {
                self.trace.line(format_args!(
                    "<- response {live}: line {} (equal)",
                    entries[r].line()
                ));
                self.record(seq, Rec::Entry(&entries[r]));
                return;
            }
        }
        self.trace.line(format_args!(
            "<- response {live}: line {}, compared",
            entries[r].line()
        ));
        let actual = relabel(response.into_tree(), entries[r].id());
        self.compare_response(r, &actual);
        self.record(seq, Rec::Server(actual));
    }

    /// A *result* finding when the response that answers expected response entry `r`
    /// (its id already the fixture's label) differs from it.
    fn compare_response(&mut self, r: usize, actual: &Value) {
        let entries = self.fixture.entries();
        if self.expected.matches(r, actual, None) {
            return;
        }
        let request = entries[r]
            .answers()
            .expect("responses are correlated at parse time");
        let expected = self.expected.message(r);
        let mut m = Mismatch::new(
            MismatchKind::Result,
            Some(entries[r].line()),
            format!(
                "the response to {} differs",
                describe_request(&entries[request])
            ),
        )
        .request(&entries[request]);
        let method = entries[request].method().unwrap_or_default();
        m = m.compare_response(method, expected, actual);
        m.changes = result_changes(method, expected, actual);
        if !m.changes.is_empty() && m.changes.iter().all(|c| self.accepts(c.class)) {
            if self.trace.on() {
                self.trace.line(format_args!(
                    "accepted: {} (every change is in an accepted class)",
                    m.summary
                ));
            }
            self.accepted.push(m);
            return;
        }
        self.fail(m);
    }

    /// Are contract changes of `class` let through, by the rules or the fixture header?
    fn accepts(&self, class: Class) -> bool {
        self.rules.accepts(class) || self.fixture.header().accept.contains(&class)
    }

    /// A notification or server request: taken into its group; a server request is
    /// answered from the recording (or refused) at once.
    fn take_other(&mut self, kind: MessageKind, mut message: Value) {
        let seq = self.seq;
        let index = self.arrivals.len();
        let (group, fixed) = if kind == MessageKind::Request {
            self.take_server_request(&mut message)
        } else {
            (self.take_notification(&message), None)
        };
        self.record(seq, Rec::Arrival(index));
        self.arrivals.push(Arrival {
            seq,
            kind,
            message,
            group,
            fixed,
        });
    }

    /// A server request: matched with an expected one and answered from the recording, or
    /// refused. Its group and want.
    fn take_server_request(&mut self, message: &mut Value) -> (Option<usize>, Option<usize>) {
        let entries = self.fixture.entries();
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let Some(w) = self.match_server_request(&method, message) else {
            self.trace.received(message, "not expected: refused");
            self.pending.push(Pending::Refuse(message.clone()));
            return (None, None);
        };
        let entry = self.model.wants[w].entry;
        self.claimed[w] = true;
        self.server_live.insert(entry, message["id"].clone());
        self.server_request_seen.insert(entry, message.clone());
        let answer = self.answer_of.get(&entry).copied();
        if let Some(answer) = answer {
            self.pending.push(Pending::Answer(answer));
        }
        self.trace.received(
            message,
            format_args!(
                "line {}, answered from line {}",
                entries[entry].line(),
                answer.map_or(0, |a| entries[a].line())
            ),
        );
        (Some(self.model.wants[w].group), Some(w))
    }

    /// A notification: taken into its group (`causal::Model::assign`), claiming the
    /// expected message it equals, if any. Its group.
    fn take_notification(&mut self, message: &Value) -> Option<usize> {
        let method = message["method"].as_str().unwrap_or_default();
        let token = message.pointer("/params/progressToken");
        let in_flight = self.ledger.in_flight().map(|(_, entry)| entry);
        let (model, expected, claimed) = (&self.model, &self.expected, &mut self.claimed);
        let (mut group, mut claim) = model.assign(method, token, in_flight, |group| {
            let w = model.members[group]
                .iter()
                .copied()
                .find(|&w| !claimed[w] && expected.matches(model.wants[w].entry, message, None))?;
            claimed[w] = true;
            Some(w)
        });
        if claim.is_none() {
            // The server's own message, recorded while one request ran: it may come
            // after that request too.
            let ledger = &self.ledger;
            let ended = |q: usize| {
                ledger
                    .live(q)
                    .and_then(|live| ledger.get(live))
                    .is_some_and(|sent| sent.answered.is_some())
            };
            claim = (0..model.wants.len()).find(|&w| {
                let want = model.wants[w];
                !claimed[w]
                    && !want.hard
                    && want.tie.is_some_and(ended)
                    && expected.matches(want.entry, message, None)
            });
            if let Some(w) = claim {
                claimed[w] = true;
                group = None;
            }
        }
        if self.trace.on() {
            let entries = self.fixture.entries();
            let verdict = match (group, claim) {
                (_, Some(w)) => format!("equals line {}", entries[model.wants[w].entry].line()),
                (Some(g), None) => format!("differs from what its group {g} expects"),
                (None, None) => "no expected message has its method".to_owned(),
            };
            self.trace.received(message, verdict);
        }
        group
    }

    /// The expected server request an arriving one is: the first not yet matched of its
    /// method that it equals, else the first of its method.
    ///
    /// A progress token in the request's `_meta` is the server's own choice, like its id:
    /// it is compared as the entry's label, and `message` keeps the label of the entry it
    /// was matched with.
    fn match_server_request(&self, method: &str, message: &mut Value) -> Option<usize> {
        let entries = self.fixture.entries();
        let candidates = || {
            self.model.wants.iter().enumerate().filter(|(w, want)| {
                !self.claimed[*w]
                    && entries[want.entry].kind() == MessageKind::Request
                    && entries[want.entry].method() == Some(method)
            })
        };
        let has_token = message.pointer(TOKEN).is_some();
        let as_labelled = |entry: usize, message: &Value| -> Option<Value> {
            let label = self.expected.message(entry).pointer(TOKEN)?;
            let mut labelled = message.clone();
            *labelled.pointer_mut(TOKEN)? = label.clone();
            Some(labelled)
        };
        let equal = |entry: usize| match has_token.then(|| as_labelled(entry, message)).flatten() {
            Some(labelled) => self.expected.matches(entry, &labelled, entries[entry].id()),
            None => self.expected.matches(entry, message, entries[entry].id()),
        };
        let w = candidates()
            .find(|(_, want)| equal(want.entry))
            .or_else(|| candidates().next())
            .map(|(w, _)| w)?;
        if let Some(labelled) = has_token
            .then(|| as_labelled(self.model.wants[w].entry, message))
            .flatten()
        {
            *message = labelled;
        }
        Some(w)
    }

    fn record(&mut self, seq: u64, rec: Rec<'f>) {
        if let Some(recording) = &mut self.recording {
            recording.push((seq, rec));
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
        if let Some((entry, _)) = self
            .server_live
            .iter()
            .find(|(_, live)| crate::json::json_eq(live, &id))
        {
            if let Some(label) = entries[*entry].id() {
                message["params"]["requestId"] = label.clone();
            }
        }
    }

    /// Pairs the notifications and server requests that arrived with the expected ones and
    /// reports every difference; then the response order and the unexplained ids.
    fn conclude(&mut self) {
        let alignment = self.align();
        let mut findings: Vec<Mismatch> = alignment
            .pairs
            .iter()
            .filter_map(|pair| self.pair_finding(pair))
            .collect();
        if !self.aborted {
            findings.extend(alignment.missing.iter().map(|&w| self.missing(w)));
        }
        findings.extend(alignment.unexpected.iter().map(|&g| {
            let arrival = &self.arrivals[g];
            let (request, when) = self.placement(arrival.seq);
            let request = request.map(|q| &self.fixture.entries()[q]);
            let m = Mismatch::new(
                MismatchKind::Unexpected,
                None,
                format!(
                    "the server sent {} that the fixture does not expect, {when}",
                    describe_message(&arrival.message)
                ),
            )
            .during(when)
            .actual(&arrival.message);
            match request {
                Some(q) => m.request(q),
                None => m,
            }
        }));
        findings.extend(alignment.disorders.iter().map(|d| self.disorder(d)));
        findings.extend(self.response_disorder());
        findings.extend(
            std::mem::take(&mut self.anomalies)
                .into_iter()
                .map(|(_, message)| {
                    let why = self.ledger.id_anomaly(&message);
                    Mismatch::new(
                        MismatchKind::Id,
                        None,
                        format!("a response with id {} ({why})", message["id"]),
                    )
                    .actual(&message)
                }),
        );
        for m in findings {
            self.fail(m);
        }
        // Findings in fixture order; those without a line (unexpected messages) last.
        self.mismatches
            .sort_by_key(|m| m.line.unwrap_or(usize::MAX));
        if let Some(recording) = &mut self.recording {
            recording.sort_by_key(|(seq, _)| *seq);
        }
        self.labels = alignment
            .pairs
            .iter()
            .map(|p| (p.got, self.model.wants[p.want].entry))
            .collect();
    }

    /// The alignment of the notifications and server requests that arrived with the
    /// expected ones, each in the span the session gave it.
    fn align(&self) -> align::Alignment {
        let entries = self.fixture.entries();
        let wants: Vec<align::Want> = self
            .model
            .wants
            .iter()
            .map(|w| align::Want {
                group: w.group,
                method: entries[w.entry].method().unwrap_or_default(),
                kind: entries[w.entry].kind(),
                span: w.tie.map_or(Span::SESSION, |q| self.ledger.span(q)),
                hard: w.hard,
            })
            .collect();
        let gots: Vec<align::Got> = self
            .arrivals
            .iter()
            .map(|a| align::Got {
                seq: a.seq,
                group: a.group,
                method: a.message["method"].as_str().unwrap_or_default(),
                kind: a.kind,
                fixed: a.fixed,
            })
            .collect();
        align::align(&self.model.groups, &wants, &gots, |w, g| {
            let entry = self.model.wants[w].entry;
            let label = (gots[g].kind == MessageKind::Request)
                .then(|| entries[entry].id())
                .flatten();
            self.expected
                .matches(entry, &self.arrivals[g].message, label)
        })
    }

    /// The finding a pair makes, if any.
    fn pair_finding(&self, pair: &align::Pair) -> Option<Mismatch> {
        let entries = self.fixture.entries();
        let entry = self.model.wants[pair.want].entry;
        let e = &entries[entry];
        let arrival = &self.arrivals[pair.got];
        let actual = relabel(arrival.message.clone(), e.id());
        let expected = self.expected.message(entry);
        let tie = self.model.wants[pair.want].tie;
        let finding = match pair.how {
            How::Equal | How::Elsewhere => return None,
            How::Params => Mismatch::new(
                MismatchKind::Params,
                Some(e.line()),
                format!("{} has other params", describe(e)),
            )
            .compare(expected, &actual),
            How::Method => Mismatch::new(
                MismatchKind::Method,
                Some(e.line()),
                format!(
                    "expected {}, the server sent {}",
                    describe(e),
                    describe_message(&arrival.message)
                ),
            )
            .compare(expected, &actual),
            How::Late => {
                let request = self.model.wants[pair.want].tie.unwrap_or_default();
                Mismatch::new(
                    MismatchKind::NotificationOrder,
                    Some(e.line()),
                    format!(
                        "{} arrived after the response to {}, not while it ran",
                        describe(e),
                        describe_request(&entries[request])
                    ),
                )
                .actual(&actual)
            }
        };
        Some(match tie {
            Some(q) => finding
                .request(&entries[q])
                .during(format!("while {} ran", describe_request(&entries[q]))),
            None => finding,
        })
    }

    /// The finding for want `w`, which never came.
    fn missing(&self, w: usize) -> Mismatch {
        let entries = self.fixture.entries();
        let want = self.model.wants[w];
        let e = &entries[want.entry];
        let when = match want.tie {
            Some(q) if !self.given_up[w] => {
                format!("while {} ran", describe_request(&entries[q]))
            }
            _ => format!("(waited {})", ms(self.timeout)),
        };
        let m = Mismatch::new(
            MismatchKind::Missing,
            Some(e.line()),
            format!("{} never came {when}", describe(e)),
        )
        .during(when)
        .expected(self.expected.message(want.entry));
        match want.tie {
            Some(q) => m.request(&entries[q]),
            None => m,
        }
    }

    /// When arrival `seq` came, in words, for a message nobody expected; with the client
    /// request entry that ran then, if one did.
    fn placement(&self, seq: u64) -> (Option<usize>, String) {
        let entries = self.fixture.entries();
        match self.ledger.moment(seq, self.last_sent) {
            Moment::During(q) => (
                Some(q),
                format!("while {} ran", describe_request(&entries[q])),
            ),
            Moment::BeforeFirst => (None, "before the first request".into()),
            Moment::AfterLast => (None, "after the last message".into()),
            Moment::After(q) => (
                None,
                format!("after the response to {}", describe_request(&entries[q])),
            ),
        }
    }

    /// The *notification order* finding of one group whose messages came in another order.
    fn disorder(&self, pairs: &[align::Pair]) -> Mismatch {
        let entries = self.fixture.entries();
        let name = |p: &align::Pair| {
            let e = &entries[self.model.wants[p.want].entry];
            format!("{} (line {})", describe(e), e.line())
        };
        let expected: Vec<String> = pairs.iter().map(name).collect();
        let mut by_arrival = pairs.to_vec();
        by_arrival.sort_by_key(|p| self.arrivals[p.got].seq);
        let actual: Vec<String> = by_arrival.iter().map(name).collect();
        Mismatch::new(
            MismatchKind::NotificationOrder,
            Some(entries[self.model.wants[pairs[0].want].entry].line()),
            format!(
                "the expected messages arrived in another order\n    expected order: {}\n    actual order:   {}",
                expected.join(", "),
                actual.join(", ")
            ),
        )
    }

    /// With `"strict_response_order": true`, responses that came in another order.
    fn response_disorder(&self) -> Option<Mismatch> {
        if !self.fixture.strict_response_order() {
            return None;
        }
        let entries = self.fixture.entries();
        let mut in_fixture = self.response_order.clone();
        in_fixture.sort();
        if !in_fixture.windows(2).any(|w| w[0].1 > w[1].1) {
            return None;
        }
        let order = |pairs: &[(usize, u64)]| -> String {
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
        Some(Mismatch::new(
            MismatchKind::NotificationOrder,
            Some(entries[in_fixture[0].0].line()),
            format!(
                "the responses arrived in another order (the fixture asks for strict response order)\n    expected order: {}\n    actual order:   {}",
                order(&in_fixture),
                order(&self.response_order)
            ),
        ))
    }

    /// The fixture the server really played, from the recording's events.
    fn recorded(&mut self, events: Vec<(u64, Rec<'f>)>) -> Option<Fixture> {
        let mut recorder = crate::fixture::Recorder::new(self.fixture);
        let entries = self.fixture.entries();
        let labels = std::mem::take(&mut self.labels);
        for (_, rec) in events {
            match rec {
                Rec::Client(message) => recorder.push(Direction::ClientToServer, &message),
                Rec::Server(message) => recorder.push(Direction::ServerToClient, &message),
                Rec::Entry(entry) => recorder.push_entry(entry),
                Rec::Arrival(i) => {
                    if self.arrivals[i].kind != MessageKind::Request {
                        recorder.push(Direction::ServerToClient, &self.arrivals[i].message);
                        continue;
                    }
                    let label = match labels.get(&i) {
                        Some(&entry) if entries[entry].kind() == MessageKind::Request => {
                            entries[entry].id().cloned().unwrap_or(Value::Null)
                        }
                        _ => self.new_server_label(),
                    };
                    let message = relabel(self.arrivals[i].message.clone(), Some(&label));
                    recorder.push(Direction::ServerToClient, &message);
                }
            }
        }
        recorder.finish().ok()
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

    fn new_server_label(&mut self) -> Value {
        loop {
            self.new_server_labels += 1;
            let label = json!(format!("<SERVER_REQUEST_ID:{}>", self.new_server_labels));
            let taken = self.fixture.entries().iter().any(|e| {
                e.direction() == Direction::ServerToClient
                    && e.id().is_some_and(|id| crate::json::json_eq(id, &label))
            });
            if !taken {
                return label;
            }
        }
    }

    /// Closes the server's input, takes everything the server still writes until its
    /// output closes (a duplicate or late message is judged like any other), and waits for
    /// the server to end: within the timeout, or for a child process that
    /// [`serve_command`](crate::process::serve_command) runs, within its stop sequence.
    async fn shutdown(&mut self) {
        let _ = self.writer.shutdown().await;
        self.trace.line("-> closed the server's input");
        let child = self.stopping.as_ref().filter(|s| s.is_child());
        let bound = match child {
            // A moment more than serve_command takes: it stops the child by itself.
            Some(s) => crate::process::serve_bound(s.grace()) + Duration::from_secs(1),
            None => self.timeout,
        };
        let deadline = Instant::now() + bound;
        while self.closed.is_none() {
            let Some(event) = self.next_event(deadline).await else {
                break;
            };
            if self.aborted {
                // Nothing more is judged, but the output is read to its end.
                if let Incoming::Closed(error) = event {
                    self.closed = Some(error);
                }
            } else {
                self.accept(event);
            }
        }
        // The input is closed: a server request that came now goes unanswered.
        self.pending.clear();
        if let Some(task) = self.server.take() {
            match tokio::time::timeout_at(deadline, task).await {
                Ok(joined) => {
                    self.server_outcome = Some(joined.map_err(join_error).and_then(|r| r))
                }
                Err(_) => self.server_stuck = Some(bound),
            }
        }
    }

    /// The findings and notes of how the session ended: a server that did not stop, that
    /// needed a signal, that failed, or that wrote lines that are not JSON-RPC messages.
    fn judge_the_end(&mut self) {
        let header = self.fixture.header();
        if let Some(description) = self.stray.describe("the server", "stdout") {
            if header.allow_stray_output {
                self.notes
                    .push(format!("{description} (allowed by \"allow_stray_output\")"));
            } else {
                self.fail(Mismatch::new(
                    MismatchKind::StrayOutput,
                    None,
                    format!(
                        "{description}: MCP's stdio transport carries only JSON-RPC messages \
                         on stdout (logs belong on stderr); fix the server, or allow them with \
                         \"allow_stray_output\": true in the fixture header"
                    ),
                ));
            }
        }
        if let Some(bound) = self.server_stuck {
            self.fail(Mismatch::new(
                MismatchKind::ServerFailure,
                None,
                format!(
                    "the server did not stop within {} after its input was closed \
                     (an MCP server ends when its input closes)",
                    ms(bound)
                ),
            ));
        }
        if let Some(forced) = self.stopping.as_ref().and_then(Stopping::forced) {
            if header.strict_exit {
                self.fail(Mismatch::new(
                    MismatchKind::ServerFailure,
                    None,
                    format!(
                        "{forced} (an MCP server ends when its input closes; the fixture \
                         asks for that with \"strict_exit\")"
                    ),
                ));
            } else {
                self.notes.push(forced);
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

/// Is `event` the answer to the harness's own `initialize`: `Ok`, or the error response?
fn setup_outcome(event: &Incoming) -> Option<Result<(), Value>> {
    match event {
        Incoming::Response(fast) if fast.id == SETUP_ID => Some(if fast.is_error {
            Err(serde_json::from_str(&fast.text).expect("the fast path writes JSON"))
        } else {
            Ok(())
        }),
        Incoming::Message(message)
            if message.get("method").is_none()
                && message.get("id").and_then(Value::as_i64) == Some(SETUP_ID) =>
        {
            Some(match message.get("error") {
                Some(_) => Err(message.clone()),
                None => Ok(()),
            })
        }
        _ => None,
    }
}

/// A response as the reader handed it over: written canonically without a tree (see
/// `fast.rs`), or parsed.
enum Response {
    Fast(FastResponse),
    Tree(Value),
}

impl Response {
    fn int_id(&self) -> Option<i64> {
        match self {
            Response::Fast(fast) => Some(fast.id),
            Response::Tree(message) => message.get("id").and_then(Value::as_i64),
        }
    }

    /// The message as a tree. A fast-path response's canonical text is already normalized
    /// (the fast path only takes messages the rules leave unchanged).
    fn into_tree(self) -> Value {
        match self {
            Response::Fast(fast) => {
                serde_json::from_str(&fast.text).expect("the fast path writes JSON")
            }
            Response::Tree(message) => message,
        }
    }
}

/// Does the server message `line` (a response with any integer id, or a notification)
/// match fixture entry `entry`? The driver's comparison of one message outside a session:
/// the fast path for a response, else parse, normalize and compare. For the benchmarks.
#[cfg(feature = "internals")]
pub(crate) fn line_matches(rules: &Rules, entry: &Entry, line: &str) -> bool {
    let expected = Expected::new(std::slice::from_ref(entry), rules);
    if entry.kind() == MessageKind::Response {
        if let Some(defaults) = rules.defaults_only() {
            if let Some(fast) = crate::normalize::fast::response(line, defaults.as_ref()) {
                if expected.matches_text(0, &fast) {
                    return true;
                }
            }
        }
    }
    let Ok(mut actual) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    rules.normalize_server(&mut actual);
    expected.matches(0, &actual, entry.id())
}

/// A map keyed by entry indexes or live ids: small integers need no SipHash.
pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
type IntSet<K> = HashSet<K, BuildHasherDefault<IntHasher>>;

/// The multiply-rotate hash of rustc's `FxHasher`, for integer keys.
#[derive(Default)]
pub(crate) struct IntHasher(u64);

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

/// `message` with its `id` set to `id` (a fixture label), when it has one.
fn relabel(mut message: Value, id: Option<&Value>) -> Value {
    if let (Some(slot), Some(id)) = (message.get_mut("id"), id) {
        *slot = id.clone();
    }
    message
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

/// The contract changes of a response to a `method` request (one of
/// [`CONTRACT_METHODS`]) whose result changed, when both messages are results and they
/// differ nowhere else (so that every difference belongs to a change).
fn result_changes(method: &str, expected: &Value, actual: &Value) -> Vec<Change> {
    if !CONTRACT_METHODS.contains(&method) {
        return Vec::new();
    }
    let (Some(e), Some(a)) = (expected.get("result"), actual.get("result")) else {
        return Vec::new();
    };
    let outside = |m: &Value| -> Value {
        let mut m = m.clone();
        m.as_object_mut().map(|o| o.remove("result"));
        m
    };
    if !json_eq(&outside(expected), &outside(actual)) {
        return Vec::new();
    }
    contract::changes(method, e, a)
}

/// A client request of the fixture: `` `tools/call add_note` (line 5) ``, with the tool,
/// prompt or resource it is about.
fn describe_request(entry: &Entry) -> String {
    format!("`{}` (line {})", entry.request_name(), entry.line())
}

/// A request the replay sent: `` `tools/call add_note` (line 5, sent as id 3) ``.
fn describe_sent(entry: &Entry, live: i64) -> String {
    format!(
        "`{}` (line {}, sent as id {live})",
        entry.request_name(),
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
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.direction() == Direction::ClientToServer
                && e.method() == Some("notifications/cancelled")
        })
        .filter_map(|(i, _)| causal::cancelled_request(entries, i))
        .collect()
}
