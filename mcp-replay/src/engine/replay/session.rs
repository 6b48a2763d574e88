//! The replay session's core: every decision of a replay, and no I/O. It is given what
//! arrived and the time ([`Session::handle`], [`Session::handle_timeout`]), says what to
//! write next ([`Session::poll_transmit`]) and until when it waits
//! ([`Session::poll_timeout`]), and concludes into a [`Report`] ([`Session::conclude`]).
//! It owns no tokio type, no clock, no pipe and no task: the shell (`shell.rs`) does the
//! I/O, and the tests drive it with scripted arrivals and instants.
//!
//! A session goes through its [`Phase`]s in order: the harness's own handshake when the
//! fixture has none (`Setup`), the fixture's messages (`Feed`, with a [`Wait`] before each
//! client message for what it causally needs), the wait after the last one, a last look at
//! what already arrived (`Settle`), and reading the server's output to its end once its
//! input is closed (`Drain`).

use super::arrivals::Arrivals;
use super::causal::Model;
use super::clock::Clock;
use super::describe::{describe, ms};
use super::events::setup_outcome;
pub(super) use super::events::{
    Arrival, Awaited, Phase, Rec, Wait, What, HOLD, PROGRESS_CAP, SETUP_WHAT,
};
pub(crate) use super::events::{Ending, Transmit, WriteError};
use super::expected::Expected;
use super::ledger::{Ledger, SETUP_ID};
use super::outbox::Outbox;
use super::outcome::ServerError;
use super::picture::Picture;
use super::requests::{Pending, ServerRequests};
use super::script::Script;
use super::trace::Trace;
use super::wants::Wants;
use super::IntSet;
use crate::analyses::validate::{Checker, ProtocolCheck};
use crate::data::fixture::{Direction, Entry, Fixture, MessageKind};
use crate::data::json::compact;
use crate::data::json::At;
use crate::engine::polls::Polls;
use crate::engine::transport::Incoming;
use crate::findings::found::Findings;
use crate::findings::report::{Mismatch, MismatchKind};
use crate::findings::stray::StrayLines;
use crate::normalize::bind::Bindings;
use crate::options::Settings;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// One replay of one fixture: the state of the exchange and every decision about it.
pub(crate) struct Session<'f> {
    pub(super) fixture: &'f Fixture,
    pub(super) settings: &'f Settings<'f>,
    pub(super) model: Model<'f>,
    pub(super) expected: Expected<'f>,
    /// The tables of the fixture alone: who answers whom, which lines hold placeholders.
    pub(super) script: Script,
    phase: Phase,
    /// The next fixture entry `Feed` looks at.
    cursor: usize,
    /// The responses and server requests the fixture has before the next client message.
    before: Vec<Awaited>,
    /// What is to be written to the server ([`Outbox`]).
    pub(super) outbox: Outbox,
    /// Why the server ended, once the shell knows.
    pub(super) server_outcome: Option<Result<(), ServerError>>,
    /// The lines the server wrote that are not JSON-RPC messages.
    pub(super) stray: StrayLines,
    /// The folder placeholders the client messages sent were written with, and the folder
    /// each stood for: a failing report says what the server was really sent.
    pub(super) folders: Vec<(&'static str, String)>,
    /// Whether the answer to the call an `"explore"` header names held its rule: `None`
    /// before it came, or without such a header.
    pub(super) explored_held: Option<bool>,
    /// Set once the server's output closed (with the read error, if any).
    pub(super) closed: Option<Option<String>>,
    /// Set when the replay cannot go on (nothing more is sent).
    pub(super) aborted: bool,
    /// The order of sends and arrivals, and the instant of the event being taken
    /// ([`Clock`]).
    pub(super) clock: Clock,
    pub(super) ledger: Ledger,
    /// What the server sent besides awaited responses, and the responses' order
    /// ([`Arrivals`]).
    pub(super) arrivals: Arrivals,
    /// What became of each want: claimed, or given up ([`Wants`]).
    pub(super) wants: Wants,
    /// What the fixture records after the client closed its input (the header's
    /// `closes_input_after`): not awaited before the replay closes the server's input;
    /// a response among it that never came is a finding when the session ends.
    pub(super) after_close: Vec<Awaited>,
    /// The server's own requests ([`ServerRequests`]: which expected one each was, the
    /// answers to send, the labels of new ones).
    pub(super) requests: ServerRequests,
    /// What the session found ([`Findings`]: findings, warnings, accepted changes, notes,
    /// and whether the recording is spoiled).
    pub(super) findings: Findings,
    /// What the server really did, unless the settings say to compare only.
    pub(super) recording: Option<Vec<(u64, Rec<'f>)>>,
    /// The `requestState` of the latest `input_required` result, as the server wrote it.
    pub(super) last_request_state: Option<Value>,
    pub(super) trace: Trace,
    /// The live values of the bound placeholders (`<TASK_ID:n>`, `<CURSOR:n>`, ...).
    pub(super) bindings: Bindings,
    /// The pseudonyms of a user's values, bound to what the server sent where the fixture
    /// has them (`Bindings::pseudonyms`).
    pub(super) pseudonyms: Bindings,
    /// The fixture's runs of task polls, and where each is.
    pub(super) polls: Polls,
    /// The run whose next poll is due, and when.
    pub(super) poll_due: Option<(usize, Instant)>,
    /// An answer to a server request held back until the client lines recorded before it
    /// may go ([`flush_pending`](Session::flush_pending)), and until when at most.
    held_until: Option<Instant>,
    /// The latest response, as it came, when the fixture is client-first
    /// ([`Script::client_first`](super::script::Script)): what a client line's placeholder
    /// may be bound from.
    pub(super) last_answer: Option<Value>,
    /// Checks what the server sends against the protocol's types, unless the settings
    /// turn that off.
    pub(super) checker: Option<Checker>,
    /// The client `tools/call` entries that ask for a task (when checking).
    pub(super) task_calls: IntSet<usize>,
    /// The timeline of the session, kept only when the settings ask for it.
    pub(super) picture: Option<Box<Picture>>,
}

impl<'f> Session<'f> {
    /// A session of `fixture` with `settings` (resolved for this fixture), starting at
    /// `now`.
    pub(crate) fn new(fixture: &'f Fixture, settings: &'f Settings<'f>, now: Instant) -> Self {
        let entries = fixture.entries();
        let script = Script::of(fixture);
        let rules = &*settings.rules;
        let polls = Polls::of(entries);
        let model = Model::new(fixture, settings, &polls);
        let wants = model.wants.len();
        let checker = (settings.protocol_check != ProtocolCheck::Off)
            .then(|| Checker::for_session(fixture, settings.era));
        let task_calls = match checker {
            Some(_) => task_calls(entries),
            None => IntSet::default(),
        };
        Session {
            fixture,
            settings,
            model,
            expected: Expected::new(entries, rules),
            phase: Phase::Start,
            cursor: 0,
            before: Vec::new(),
            outbox: Outbox::default(),
            server_outcome: None,
            stray: StrayLines::default(),
            folders: Vec::new(),
            explored_held: None,
            closed: None,
            aborted: false,
            clock: Clock::new(now),
            ledger: Ledger::with_capacity(script.requests),
            arrivals: Arrivals::default(),
            wants: Wants::new(wants),
            after_close: Vec::new(),
            requests: ServerRequests::default(),
            findings: Findings::default(),
            recording: settings.record.then(Vec::new),
            last_request_state: None,
            trace: Trace::new(settings.trace, fixture.source(), now),
            bindings: Bindings::minted_by(
                entries
                    .iter()
                    .zip(&script.bound)
                    .filter(|(_, bound)| **bound)
                    .map(|(e, _)| (e.text(), e.direction(), e.kind())),
                Direction::ClientToServer,
                &settings.shapes,
            ),
            pseudonyms: Bindings::pseudonyms(),
            script,
            polls,
            poll_due: None,
            held_until: None,
            last_answer: None,
            checker,
            task_calls,
            picture: settings.timeline.then(|| Box::new(Picture::new(now))),
        }
    }

    /// The next thing to do with the server's input, deciding as far as the session can
    /// go without a new arrival; `None` when it must wait
    /// ([`poll_timeout`](Self::poll_timeout)) or is done. For [`Transmit::Line`], the line
    /// (without its newline) is in `buf`, which is written before the next call; a failed
    /// write is reported with [`handle_write_error`](Self::handle_write_error). (`buf` is
    /// swapped with the session's own buffer, as quinn-proto's `poll_transmit` writes into
    /// the caller's: no line costs an allocation.)
    pub(crate) fn poll_transmit(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Transmit> {
        self.trace.at(now);
        self.clock.at(now);
        if self.outbox.is_empty() {
            self.advance(now);
        }
        self.outbox.pop(buf)
    }

    /// Until when the session waits for an arrival: at that instant, call
    /// [`handle_timeout`](Self::handle_timeout). An instant already past (the settle step)
    /// asks the shell to hand over what already arrived first. `None` once done, or while
    /// the shell has yet to report the input closed.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        let phase = match (self.phase_timeout(), self.held_until) {
            (Some(at), Some(held)) => Some(at.min(held)),
            (at, held) => at.or(held),
        };
        match (phase, self.poll_due) {
            (Some(at), Some((_, due))) => Some(at.min(due)),
            (None, Some((_, due))) if matches!(self.phase, Phase::Waiting(_)) => Some(due),
            (phase, _) => phase,
        }
    }

    /// Until when the phase waits.
    fn phase_timeout(&self) -> Option<Instant> {
        match &self.phase {
            Phase::Setup { deadline } => Some(*deadline),
            Phase::Waiting(wait) => Some(wait.deadline),
            Phase::Settle { at } => Some(*at),
            Phase::Drain { deadline } => *deadline,
            Phase::Start | Phase::Feed | Phase::Close | Phase::Done => None,
        }
    }

    /// Is there nothing left but to [`conclude`](Self::conclude)?
    pub(crate) fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    /// The time the session gives the server for each thing it needs (and each write).
    pub(crate) fn timeout(&self) -> Duration {
        self.settings.timeout
    }

    /// Does the session want to know why the server ended before it takes the close of its
    /// output (it names the cause in a finding)? Not once the input is closed: then the
    /// shell waits for the server anyway.
    pub(crate) fn wants_server_outcome(&self) -> bool {
        self.server_outcome.is_none() && !matches!(self.phase, Phase::Drain { .. } | Phase::Done)
    }

    /// How the server task ended, once the shell knows.
    pub(crate) fn server_ended(&mut self, outcome: Result<(), ServerError>) {
        self.server_outcome = Some(outcome);
    }

    /// The trace lines written since the last call.
    pub(crate) fn take_trace(&self) -> String {
        self.trace.take()
    }

    /// Takes one arrival from the server at `now`.
    pub(crate) fn handle(&mut self, event: Incoming, now: Instant) {
        self.trace.at(now);
        self.clock.at(now);
        match self.phase {
            Phase::Setup { .. } => self.handle_setup(event),
            Phase::Drain { .. } => {
                if self.aborted {
                    // Nothing more is judged, but the output is read to its end.
                    if let Some(picture) = &mut self.picture {
                        picture.unjudged(now, &event, "read after the replay stopped: not judged");
                    }
                    if let Incoming::Closed(error) = event {
                        self.closed.get_or_insert(error);
                    }
                } else {
                    self.accept(event);
                }
                if self.closed.is_some() {
                    self.phase = Phase::Done;
                }
            }
            Phase::Settle { .. } => self.accept(event),
            Phase::Waiting(_) | Phase::Start | Phase::Feed | Phase::Close => {
                self.accept(event);
                self.flush_pending();
            }
            Phase::Done => {}
        }
    }

    /// The instant [`poll_timeout`](Self::poll_timeout) named came (or passed) with nothing
    /// more arriving.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        self.trace.at(now);
        self.clock.at(now);
        if let Some((run, due)) = self.poll_due {
            if now >= due {
                self.poll_due = None;
                if !self.aborted && self.polls.polling(run) {
                    self.send(self.polls.runs[run].requests[0]);
                }
            }
        }
        if self.held_until.is_some_and(|until| now >= until) {
            self.flush_pending();
        }
        match std::mem::replace(&mut self.phase, Phase::Feed) {
            Phase::Setup { deadline } if now >= deadline => {
                let what = SETUP_WHAT;
                self.abort(Mismatch::new(
                    MismatchKind::Timeout,
                    None,
                    format!("no response to {what} within {}", ms(self.settings.timeout)),
                ));
            }
            Phase::Waiting(mut wait) if now >= wait.deadline => {
                self.stand_in_anomalies(&wait.awaited, true);
                wait.awaited.retain(|a| !self.arrived(*a));
                self.timed_out(&wait.awaited, wait.last);
                self.end_wait(wait.then, now);
            }
            Phase::Settle { .. } => {
                self.flush_pending();
                self.phase = Phase::Close;
            }
            Phase::Drain {
                deadline: Some(deadline),
            } if now >= deadline => {
                self.phase = Phase::Done;
            }
            other => self.phase = other,
        }
    }

    /// The shell closed the server's input at `now`; `child_grace` is the stop grace of a
    /// child process the server runs in, if it does.
    pub(crate) fn input_closed(&mut self, now: Instant, child_grace: Option<Duration>) {
        self.trace.at(now);
        self.trace.line("-> closed the server's input");
        if let Some(picture) = &mut self.picture {
            picture.closed(now, crate::findings::timeline::Side::Client);
        }
        let bound = self.drain_bound(child_grace);
        self.phase = if self.closed.is_some() {
            Phase::Done
        } else {
            Phase::Drain {
                deadline: Some(now + bound),
            }
        };
    }

    /// How long the server may take to end once its input is closed: the timeout, or for
    /// a child process that [`serve_command`](crate::engine::process::serve_command) runs, a moment
    /// more than its stop sequence takes (it stops the child by itself).
    pub(crate) fn drain_bound(&self, child_grace: Option<Duration>) -> Duration {
        match child_grace {
            Some(grace) => crate::engine::process::serve_bound(grace) + Duration::from_secs(1),
            None => self.settings.timeout,
        }
    }

    /// The last line handed out could not be written: the replay cannot go on.
    pub(crate) fn handle_write_error(&mut self, error: WriteError, now: Instant) {
        self.trace.at(now);
        let (line, what) = self.outbox.failed();
        let what = self.describe_what(what);
        match error {
            WriteError::Closed(e) => {
                let why = self.close_reason();
                self.abort(Mismatch::new(
                    MismatchKind::ServerFailure,
                    line,
                    format!("could not send {what}: the server closed its input ({e}){why}"),
                ));
            }
            WriteError::Stuck => self.abort(Mismatch::new(
                MismatchKind::Timeout,
                line,
                format!(
                    "the server did not read {what} within {}",
                    ms(self.settings.timeout)
                ),
            )),
        }
    }

    /// Goes as far as the session can without a new arrival: sends what is due, starts
    /// and ends waits, and closes the input at the end.
    fn advance(&mut self, now: Instant) {
        while self.outbox.is_empty() {
            match std::mem::replace(&mut self.phase, Phase::Feed) {
                Phase::Start => {
                    if self.needs_setup() {
                        self.start_setup(now);
                    }
                }
                Phase::Feed if self.aborted => self.phase = Phase::Close,
                Phase::Feed => self.feed(now),
                Phase::Waiting(wait) => match self.still_waiting(wait) {
                    Ok(wait) => {
                        self.phase = Phase::Waiting(wait);
                        return;
                    }
                    Err(then) => self.end_wait(then, now),
                },
                Phase::Close => {
                    self.outbox.push_close();
                    self.phase = Phase::Drain { deadline: None };
                    return;
                }
                Phase::Setup { .. } if self.aborted => self.phase = Phase::Close,
                other => {
                    self.phase = other;
                    return;
                }
            }
        }
    }

    /// Does the fixture start without a handshake ([`needs_setup`])?
    fn needs_setup(&self) -> bool {
        needs_setup(self.fixture, self.settings)
    }

    /// Goes through the fixture until the next client message, which is sent once what it
    /// causally needs has come (a [`Wait`]); after the last one, the last wait.
    fn feed(&mut self, now: Instant) {
        let entries = self.fixture.entries();
        while let Some(entry) = entries.get(self.cursor) {
            let i = self.cursor;
            self.cursor += 1;
            // A run of polls is one loop: its first poll is sent, and the answer to it
            // awaited until the task got where the recording's last poll did.
            if let Some(run) = self.polls.run_of(i) {
                if self.polls.runs[run].responses[0] == Some(i) {
                    self.before.push(Awaited::Poll(run));
                }
                if self.polls.stood_for(i) {
                    continue;
                }
            }
            match (entry.direction(), entry.kind()) {
                (Direction::ServerToClient, MessageKind::Response) => {
                    self.before.push(Awaited::Response(i))
                }
                (Direction::ServerToClient, MessageKind::Request) => self
                    .before
                    .push(Awaited::Want(self.model.want_of_entry[&i])),
                // A request's own message, while it runs: a client message after it may
                // be its consequence (a cancellation after the first progress).
                (Direction::ServerToClient, MessageKind::Notification) => {
                    let w = self.model.want_of_entry[&i];
                    if self.model.wants[w].tie.is_some() {
                        self.before.push(Awaited::Want(w));
                    }
                }
                // Sent as soon as its server request comes.
                (Direction::ClientToServer, MessageKind::Response) => {}
                (Direction::ClientToServer, kind) => {
                    // Every request deserves an answer: before a new request, the ones the
                    // fixture has no response line for are awaited (not while `initialize`
                    // runs: a client sends nothing then but `initialize`'s own answers).
                    // (Not where the client closed its input with requests open: a request
                    // it recorded no answer to is one it left, a subscription's stream.)
                    let unanswered = (kind == MessageKind::Request || self.initialize_in_flight())
                        && self.settings.closes_input_after.is_none();
                    // The first wait is the server's start too (`Options::start_timeout`).
                    let start = self.settings.start.filter(|_| self.arrivals.is_empty());
                    let timeout =
                        start.map_or(self.settings.timeout, |s| s.max(self.settings.timeout));
                    let awaited = std::mem::take(&mut self.before);
                    let wait = Wait::new(awaited, unanswered, now, timeout, Some(i));
                    self.phase = Phase::Waiting(wait);
                    return;
                }
            }
        }
        let mut awaited = self.the_rest();
        if let Some(closed) = self.settings.closes_input_after {
            // Only what came before the client closed its input is awaited now; the rest
            // comes once the replay closes the server's (`Phase::Drain`).
            let entry_of = |a: &Awaited| match *a {
                Awaited::Response(e) | Awaited::Answer(_, e) => Some(e),
                Awaited::Want(w) | Awaited::Loose(w) => Some(self.model.wants[w].entry),
                Awaited::Poll(_) => None,
            };
            let (before, after): (Vec<Awaited>, Vec<Awaited>) = awaited
                .into_iter()
                .partition(|a| entry_of(a).is_none_or(|e| e < closed));
            awaited = before;
            self.after_close = after;
        }
        let unanswered = self.settings.closes_input_after.is_none();
        let wait = Wait::new(awaited, unanswered, now, self.settings.timeout, None);
        self.phase = Phase::Waiting(wait);
    }

    /// A wait is over: send the client message it came before, or after the last one,
    /// settle.
    fn end_wait(&mut self, then: Option<usize>, now: Instant) {
        match then {
            Some(i) => {
                if !self.aborted {
                    self.send(i);
                }
                self.phase = Phase::Feed;
            }
            None if self.aborted => self.phase = Phase::Close,
            None => self.phase = Phase::Settle { at: now },
        }
    }

    /// Sends the harness's own `initialize` (a legacy fixture without a handshake).
    fn start_setup(&mut self, now: Instant) {
        // Written as text, members in the order clients write them (a tree of this
        // constant message, made, written and dropped, was a tenth of a one-call replay).
        let mut line = self.outbox.buffer();
        line.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        line.extend_from_slice(itoa::Buffer::new().format(SETUP_ID).as_bytes());
        line.extend_from_slice(br#","method":"initialize","params":{"capabilities":"#);
        write_json(&mut line, &self.client_capabilities());
        line.extend_from_slice(br#","clientInfo":"#);
        write_json(&mut line, &self.client_info());
        line.extend_from_slice(br#","protocolVersion":"#);
        write_json(&mut line, &self.settings.protocol);
        line.extend_from_slice(b"}}");
        self.trace.line("-> `initialize` id 0 (session setup)");
        self.write_bytes(line, None, What::Text(SETUP_WHAT.into()));
        self.phase = Phase::Setup {
            deadline: now + self.settings.timeout,
        };
    }

    /// An arrival while the harness's own `initialize` runs: its answer ends the setup;
    /// the server's own messages may come first (a request answered at once).
    fn handle_setup(&mut self, event: Incoming) {
        if let Incoming::Closed(error) = &event {
            if let Some(picture) = &mut self.picture {
                picture.closed(self.clock.now(), crate::findings::timeline::Side::Server);
            }
            self.closed.get_or_insert(error.clone());
            let why = self.close_reason();
            self.abort(Mismatch::new(
                MismatchKind::ServerFailure,
                None,
                format!("the server closed the connection before answering {SETUP_WHAT}{why}"),
            ));
            return;
        }
        let Some(outcome) = setup_outcome(&event) else {
            self.accept(event);
            self.flush_pending();
            return;
        };
        self.trace.line("<- response 0 (session setup)");
        if let Some(picture) = &mut self.picture {
            picture.unjudged(
                self.clock.now(),
                &event,
                "the answer to the harness's session setup",
            );
        }
        match &event {
            Incoming::Response(fast) => self.check_fast(fast, true),
            Incoming::Setup { text, is_error } => self.check_setup(text, *is_error),
            Incoming::Message(message) => self.check_message(MessageKind::Response, message, true),
            _ => {}
        }
        if let Err(response) = outcome {
            self.abort(
                Mismatch::new(
                    MismatchKind::ServerFailure,
                    None,
                    format!(
                        "the server refused {SETUP_WHAT}: {}{}",
                        compact(&response["error"], 200),
                        if response.pointer("/error/code") == Some(&json!(-32601)) {
                            crate::findings::report::ONLY_STATELESS
                        } else {
                            ""
                        }
                    ),
                )
                .actual(&response),
            );
            return;
        }
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.trace
            .line("-> `notifications/initialized` (session setup)");
        self.write(
            &initialized,
            None,
            What::Text("the harness's `notifications/initialized`".into()),
        );
        self.phase = Phase::Feed;
    }

    /// The task being polled made progress: the wait for it starts anew.
    pub(super) fn extend_wait(&mut self) {
        if let Phase::Waiting(wait) = &mut self.phase {
            if wait.awaited.iter().any(|a| matches!(a, Awaited::Poll(_))) {
                wait.deadline = wait.deadline.max(self.clock.now() + self.settings.timeout);
            }
        }
    }

    /// Progress came while a request is in flight: a wait for a response starts again.
    pub(super) fn progress_seen(&mut self) {
        if let Phase::Waiting(wait) = &mut self.phase {
            wait.progress(self.clock.now(), self.settings.timeout);
        }
    }

    /// Queues one message as its own line. `what` names the message in a finding, should
    /// the write fail.
    pub(super) fn write(&mut self, message: &Value, line: Option<usize>, what: What) {
        let mut bytes = self.outbox.buffer();
        write_json(&mut bytes, message);
        self.write_bytes(bytes, line, what);
    }

    /// Queues one line (`bytes`, without its newline).
    pub(super) fn write_bytes(&mut self, bytes: Vec<u8>, line: Option<usize>, what: What) {
        if let Some(picture) = &mut self.picture {
            let (entry, own) = match &what {
                What::Entry(i) => (Some(*i), None),
                What::Text(text) => (None, Some(text.as_str())),
            };
            picture.sent(self.clock.now(), &bytes, entry, own, self.clock.seq());
        }
        self.outbox.push_line(bytes, line, what);
    }

    /// A queued line's name, for a finding.
    fn describe_what(&self, what: What) -> String {
        match what {
            What::Entry(i) => {
                let entry = &self.fixture.entries()[i];
                format!("{} (fixture line {})", describe(entry), entry.line())
            }
            What::Text(text) => text,
        }
    }

    /// Why the server ended, for messages about an early close: the panic or error of the
    /// server task, when the shell knows it.
    pub(super) fn close_reason(&self) -> String {
        match &self.server_outcome {
            Some(Err(why)) => format!("; {why}"),
            _ => String::new(),
        }
    }

    /// Writes the answers and refusals the last events asked for. An answer goes in the
    /// client's order: after the client lines recorded before it, which go first once they
    /// may. While one of them still waits, the answer is held back: the recording says the
    /// server sent what it waits for without the answer. Held [`HOLD`] at most (a server
    /// that now waits for the answer would otherwise stop the session): then the answer
    /// goes first, and the trace says so.
    fn flush_pending(&mut self) {
        while !self.requests.pending.is_empty() {
            let mut queue = std::mem::take(&mut self.requests.pending).into_iter();
            while let Some(pending) = queue.next() {
                match pending {
                    Pending::Answer(entry) => {
                        let held = self
                            .line_held_before(entry)
                            .or_else(|| self.server_line_awaited_before(entry));
                        if let Some(held) = held {
                            let until = *self.held_until.get_or_insert(
                                self.clock.now() + HOLD.min(self.settings.timeout / 4),
                            );
                            if self.clock.now() < until && !self.aborted {
                                let later = std::mem::take(&mut self.requests.pending);
                                self.requests.pending =
                                    std::iter::once(pending).chain(queue).chain(later).collect();
                                return;
                            }
                            if self.trace.on() {
                                let entries = self.fixture.entries();
                                self.trace.line(format_args!(
                                    "-> the answer (line {}) goes before line {}, recorded \
                                     before it, which still waits",
                                    entries[entry].line(),
                                    entries[held].line()
                                ));
                            }
                            self.requests.went_early.push((held, entry));
                        }
                        self.held_until = None;
                        self.send(entry)
                    }
                    Pending::Refuse(request) => self.refuse(&request),
                }
            }
        }
    }

    /// The first server line recorded between the request that answer entry `answer`
    /// answers and the answer itself that has not come yet: the answer waits for it (as
    /// long as [`HOLD`]), so that a server that acts on the answer's absence (it asks
    /// again, or answers a call as if it had none) does so as it did when recorded, not
    /// differently because the recorded answer came sooner.
    fn server_line_awaited_before(&self, answer: usize) -> Option<usize> {
        let entries = self.fixture.entries();
        let request = entries[answer].answers()?;
        let between = |entry: usize| entry > request && entry < answer;
        let wanted = (0..self.model.wants.len())
            .filter(|&w| between(self.model.wants[w].entry) && !self.arrived(Awaited::Want(w)))
            .map(|w| self.model.wants[w].entry);
        let answered = self
            .script
            .response_of_request
            .values()
            .copied()
            .filter(|&r| between(r) && !self.arrived(Awaited::Response(r)));
        wanted.chain(answered).min()
    }

    /// Sends the client lines recorded before answer entry `answer` that the feed holds and
    /// whose wait is over now, in order; the first one whose wait is not over, if any.
    fn line_held_before(&mut self, answer: usize) -> Option<usize> {
        let now = self.clock.now();
        loop {
            match std::mem::replace(&mut self.phase, Phase::Feed) {
                Phase::Feed if !self.aborted => self.feed(now),
                Phase::Waiting(wait) if wait.then.is_some_and(|line| line < answer) => {
                    match self.still_waiting(wait) {
                        Err(then) => self.end_wait(then, now),
                        Ok(wait) => {
                            let held = wait.then;
                            self.phase = Phase::Waiting(wait);
                            return held;
                        }
                    }
                }
                other => {
                    self.phase = other;
                    return None;
                }
            }
        }
    }

    pub(super) fn fail(&mut self, mismatch: Mismatch) {
        if self.trace.on() {
            self.trace.line(format_args!(
                "finding: {} {}",
                mismatch.kind, mismatch.summary
            ));
        }
        self.findings.push(mismatch);
    }

    pub(super) fn abort(&mut self, mismatch: Mismatch) {
        self.fail(mismatch);
        self.aborted = true;
    }
}

/// Does `fixture` start without a handshake (in the legacy era, the harness then performs
/// one)?
pub(super) fn needs_setup(fixture: &Fixture, settings: &Settings<'_>) -> bool {
    !settings.era.is_stateless()
        && fixture
            .entries()
            .iter()
            .find(|e| e.direction() == Direction::ClientToServer)
            .is_some_and(|e| !matches!(e.method(), Some("initialize" | "server/discover")))
}

/// The client `tools/call` entries that ask for a task (`params.task`): their result is a
/// `CreateTaskResult`.
fn task_calls(entries: &[Entry]) -> IntSet<usize> {
    static TASK: crate::data::needle::Needle = crate::data::needle::Needle::new("\"task\":");
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.method() == Some("tools/call") && TASK.is_in(e.text()))
        .filter(|(_, e)| e.message().at(&["params", "task"]).is_some())
        .map(|(i, _)| i)
        .collect()
}

/// Appends `value` as JSON text.
fn write_json(out: &mut Vec<u8>, value: &impl serde::Serialize) {
    serde_json::to_writer(out, value).expect("a JSON value and a string always serialize");
}
