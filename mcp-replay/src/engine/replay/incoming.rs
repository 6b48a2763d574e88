//! What the session does with each message the server sends: a response is matched by
//! its live id and compared at once; a notification is taken into its group; a server
//! request is matched with an expected one and answered from the recording, or refused.

use super::describe::{describe_request, relabel};
use super::requests::Pending;
use super::session::{Arrival, Rec, Session};
use super::wants::Wants;
use crate::analyses::contract::{self, Change, Class, CONTRACT_METHODS};
use crate::data::fixture::MessageKind;
use crate::data::json::json_eq;
use crate::data::json::At;
use crate::engine::transport::Incoming;
use crate::findings::report::{Mismatch, MismatchKind};
use crate::normalize::fast::FastResponse;
use serde_json::Value;

/// Why a session whose own `initialize` the server refused is not recorded.
const HANDSHAKE_REFUSED: &str = "the server refused the fixture's `initialize`, so the \
     session never started and every answer after it would be recorded as the contract. A \
     server that answers `initialize` with -32601 may speak protocol 2026-07-28 only, which \
     has no handshake: write the client lines in that era (a header \"protocol\": \
     \"2026-07-28\", `server/discover` first; `mcp-replay call --protocol 2026-07-28`).";

/// Where a request carries its progress token.
const TOKEN: &str = "/params/_meta/progressToken";
/// [`TOKEN`] as keys ([`At`]).
const TOKEN_KEYS: [&str; 3] = ["params", "_meta", "progressToken"];

impl<'f> Session<'f> {
    pub(super) fn accept(&mut self, event: Incoming) {
        let bound = self.bindings.len();
        self.take(event);
        if self.bindings.len() > bound {
            // A personal value bound now may have come before, in a message the session
            // wrote with its pseudonym: that spelling is the placeholder's too.
            let aliases: Vec<(String, String, String)> = self
                .bindings
                .since(bound)
                .filter_map(|(p, live)| {
                    Some((
                        p.to_owned(),
                        live.to_owned(),
                        self.expected.pseudonym_of(live)?,
                    ))
                })
                .collect();
            for (placeholder, _, alias) in &aliases {
                self.bindings.alias(placeholder, alias.clone());
            }
            self.reclaim_arrivals();
            // The messages that held the pseudonym hold the placeholder now: its number
            // goes back, as the recording, which binds before it numbers, never gave it.
            for (_, live, alias) in aliases {
                if self.expected.release(&live) {
                    self.bindings.forget_alias(&alias);
                }
            }
        }
    }

    fn take(&mut self, event: Incoming) {
        match event {
            Incoming::Message(mut message) => match MessageKind::of(&message) {
                Ok(kind) => {
                    // As it came, for the timeline (only when one is kept).
                    let came = self.picture.as_ref().map(|_| message.to_string());
                    self.check_message(kind, &message, false);
                    if let Some(state) = message.get("result").and_then(|r| r.get("requestState")) {
                        self.last_request_state = Some(state.clone());
                    }
                    self.label_server_cancellation(&mut message);
                    self.label_subscription(&mut message);
                    self.bind_raw(kind, &mut message);
                    self.settings.rules.normalize_server(&mut message);
                    self.expected.pseudonymize(&mut message);
                    let seq = self.clock.arrived();
                    if let (Some(picture), Some(came)) = (&mut self.picture, came) {
                        picture.received(self.clock.now(), Some(seq), came, message.clone());
                    }
                    match kind {
                        MessageKind::Response => self.take_response(Response::Tree(message)),
                        _ => self.take_other(kind, message),
                    }
                }
                Err(reason) => {
                    self.trace
                        .received(&message, format_args!("not a JSON-RPC message: {reason}"));
                    let line = message.to_string();
                    if let Some(picture) = &mut self.picture {
                        picture.stray(self.clock.now(), line.clone());
                    }
                    self.stray.push(line.as_bytes());
                }
            },
            Incoming::Response(response) => {
                self.check_fast(&response, false);
                let seq = self.clock.arrived();
                if let Some(picture) = &mut self.picture {
                    let tree = serde_json::from_str(&response.text).unwrap_or(Value::Null);
                    picture.received(self.clock.now(), Some(seq), response.text.clone(), tree);
                }
                self.take_response(Response::Fast(response));
            }
            // The setup's answer after the setup (it was aborted): a message as any other.
            Incoming::Setup { text, .. } => {
                self.take(crate::engine::transport::parse_line(text.as_bytes(), 0));
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
                if let Some(picture) = &mut self.picture {
                    picture.stray(self.clock.now(), excerpt.clone());
                }
                self.stray.push(excerpt.as_bytes());
            }
            Incoming::Closed(error) => {
                self.trace.line("<- the server closed its output");
                if let Some(picture) = &mut self.picture {
                    picture.closed(self.clock.now(), crate::findings::timeline::Side::Server);
                }
                if self.closed.is_none() {
                    self.closed = Some(error);
                }
            }
        }
    }

    /// Values the server mints, bound and written as their placeholders *before* the
    /// message is normalized: a live task id may look like what the normalizer blanks (an
    /// rmcp task id is a UUID), and then it could no longer be told apart or sent back.
    fn bind_raw(&mut self, kind: MessageKind, message: &mut Value) {
        let (bound, named) = (self.script.any_bound, self.script.any_named);
        if !bound && !named {
            return;
        }
        if bound {
            self.bindings.unbind(message);
        }
        if named {
            self.pseudonyms.unbind(message);
        }
        if kind != MessageKind::Response {
            return;
        }
        let sent = message
            .get("id")
            .and_then(Value::as_i64)
            .and_then(|live| self.ledger.get(live))
            .copied();
        let r = sent.and_then(|sent| match self.polls.run_of(sent.entry) {
            // A poll's answer: bound against the run's recorded answer of the same status
            // (its last, for the result a completed task carries), as it came: a value it
            // holds first (the owner's e-mail in the task's result) must not be bound to
            // its pseudonym.
            Some(run) => self.polls.runs[run]
                .responses
                .iter()
                .rev()
                .flatten()
                .copied()
                .find(|&r| {
                    self.script.bound[r]
                        && self.expected.message(r).at(&["result", "status"])
                            == message.at(&["result", "status"])
                }),
            None => self.script.response_of_request.get(&sent.entry).copied(),
        });
        let Some(r) = r else {
            return;
        };
        // A value bound here stands for its placeholder wherever else the message holds it
        // (an e-mail bound in `structuredContent` and repeated inside a text), as the
        // recording wrote it: before the message is normalized and its personal data
        // pseudonymized, so that the copy in the text is not read as a pseudonym.
        if self.script.bound[r] {
            let before = self.bindings.len();
            self.bindings.bind_from(self.expected.message(r), message);
            if self.bindings.len() > before {
                self.bindings.unbind(message);
            }
        }
        if self.script.named[r] {
            let before = self.pseudonyms.len();
            self.pseudonyms.bind_from(self.expected.message(r), message);
            if self.pseudonyms.len() > before {
                self.pseudonyms.unbind(message);
            }
        }
    }

    /// A response: matched by its live id at once (the replay waits on responses).
    fn take_response(&mut self, response: Response) {
        let seq = self.clock.seq();
        let live = response
            .int_id()
            .filter(|live| self.ledger.get(*live).is_some());
        let Some(live) = live else {
            let message = response.into_tree();
            self.trace.received(&message, "its id fits no request");
            self.arrivals.anomaly(seq, message);
            return;
        };
        let sent = *self.ledger.get(live).expect("checked above");
        let entries = self.fixture.entries();
        self.keep_answer(&response);
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
            self.arrivals.anomaly(seq, message);
            return;
        }
        self.ledger.answer(live, seq);
        if let Some(run) = self
            .polls
            .run_of(sent.entry)
            .filter(|&run| self.polls.polling(run))
        {
            self.poll_answered(run, live, response.into_tree());
            return;
        }
        let Some(&r) = self.script.response_of_request.get(&sent.entry) else {
            self.unexpected_response(seq, sent.entry, response.into_tree());
            return;
        };
        if self.settings.strict_response_order {
            self.arrivals.responded(r, seq);
        }
        if self.script.bound[r] || self.script.named[r] {
            self.take_minting_response(r, live, response.into_tree());
            return;
        }
        if let Response::Fast(fast) = &response {
            if self.expected.matches_text(r, fast) && !self.is_explored_answer(r) {
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

    /// A response to the request of entry `request` (arrived as `seq`), which the fixture
    /// has no answer for (client lines not recorded yet): a finding, and recorded.
    fn unexpected_response(&mut self, seq: u64, request: usize, message: Value) {
        let entry = &self.fixture.entries()[request];
        let actual = relabel(message, entry.id());
        self.trace.received(&actual, "not expected");
        let mut finding = Mismatch::new(
            MismatchKind::Unexpected,
            None,
            format!(
                "a response to {} that the fixture does not expect",
                describe_request(entry)
            ),
        )
        .request(entry)
        .actual(&actual);
        // A first recording whose own handshake the server refused records a session
        // that never started: every answer after it a refusal.
        if entry.method() == Some("initialize") && actual.get("error").is_some() {
            finding = finding.unrecordable(HANDSHAKE_REFUSED);
        }
        self.fail(finding);
        self.record(seq, Rec::Server(actual));
    }

    /// Keeps `response` as the latest answer, for a client-first fixture
    /// (`Session::last_answer`): what the next client line's placeholder may be bound from.
    fn keep_answer(&mut self, response: &Response) {
        if self.script.client_first {
            self.last_answer = match response {
                Response::Fast(fast) => serde_json::from_str(&fast.text).ok(),
                Response::Tree(tree) => Some(tree.clone()),
            };
        }
    }

    /// A response the fixture has bound placeholders or a user's pseudonyms in (expected
    /// response entry `r`, sent as `live`): the values the server mints, and the values a
    /// user named, bound where the fixture has their placeholders, then compared.
    fn take_minting_response(&mut self, r: usize, live: i64, message: Value) {
        let entries = self.fixture.entries();
        let mut actual = relabel(message, entries[r].id());
        self.bindings
            .bind_from(self.expected.message(r), &mut actual);
        self.bindings.unbind(&mut actual);
        if self.script.named[r] {
            self.pseudonyms
                .bind_from(self.expected.message(r), &mut actual);
            self.pseudonyms.unbind(&mut actual);
        }
        self.trace.line(format_args!(
            "<- response {live}: line {}, values it minted bound",
            entries[r].line()
        ));
        self.compare_response(r, &actual);
        self.record(self.clock.seq(), Rec::Server(actual));
    }

    /// The answer to a poll of run `run` (sent with id `live`): compared with the recorded
    /// answer of its status, and the next poll scheduled, or the run ended (`polls.rs`).
    fn poll_answered(&mut self, run: usize, live: i64, message: Value) {
        let seq = self.clock.seq();
        let verdict = self.polls.answered(run, message.get("result"));
        let entries = self.fixture.entries();
        let first = self.polls.runs[run].requests[0];
        let label = verdict
            .compare_with
            .and_then(|r| entries[r].id())
            .or_else(|| entries[first].id());
        let mut actual = relabel(message, label);
        if let Some(r) = verdict.compare_with {
            if self.script.bound[r] {
                self.bindings
                    .bind_from(self.expected.message(r), &mut actual);
            }
            self.bindings.unbind(&mut actual);
            let mut compared = actual.clone();
            if verdict.without_message {
                // Progress text while the task works: which poll saw which stage is time.
                let recorded = self
                    .expected
                    .message(r)
                    .at(&["result", "statusMessage"])
                    .cloned();
                if let Some(result) = compared.get_mut("result").and_then(Value::as_object_mut) {
                    match recorded {
                        Some(m) => result.insert("statusMessage".into(), m),
                        None => result.remove("statusMessage"),
                    };
                }
            }
            self.compare_response(r, &compared);
        } else {
            self.bindings.unbind(&mut actual);
        }
        if self.trace.on() {
            let status = crate::engine::polls::status_of(&actual).unwrap_or("no status");
            let then = match verdict.again {
                Some(after) => format!("polls again in {}", super::describe::ms(after)),
                None => "the polls are over".to_owned(),
            };
            let with = verdict
                .compare_with
                .map_or("nothing recorded".to_owned(), |r| {
                    format!("line {}", entries[r].line())
                });
            self.trace.line(format_args!(
                "<- response {live}: the task is {status}, compared with {with}; {then}"
            ));
        }
        self.record(seq, Rec::Server(actual));
        if verdict.progress {
            self.extend_wait();
        }
        self.poll_due = verdict.again.map(|after| (run, self.clock.now() + after));
    }

    /// A *result* finding when the response that answers expected response entry `r`
    /// (its id already the fixture's label) differs from it.
    pub(super) fn compare_response(&mut self, r: usize, actual: &Value) {
        if self.judge_explored(r, actual) {
            return;
        }
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
            self.findings.accepted.push(m);
            return;
        }
        self.fail(m);
    }

    /// Are contract changes of `class` let through (the settings: rules and header)?
    pub(super) fn accepts(&self, class: Class) -> bool {
        self.settings.accepts(class)
    }

    /// A notification or server request: taken into its group; a server request is
    /// answered from the recording (or refused) at once.
    pub(super) fn take_other(&mut self, kind: MessageKind, mut message: Value) {
        self.bindings.unbind(&mut message);
        let seq = self.clock.seq();
        let index = self.arrivals.next_index();
        let (group, fixed, claimed) = if kind == MessageKind::Request {
            let (group, fixed) = self.take_server_request(&mut message);
            (group, fixed, fixed.is_some())
        } else {
            let (group, claim) = self.take_notification(&message);
            if claim.is_none() && self.late_of_cancelled(&message) {
                self.trace
                    .received(&message, "ignored: late, of a request the replay cancelled");
                return;
            }
            (group, None, claim.is_some())
        };
        self.record(seq, Rec::Arrival(index));
        self.arrivals.push(Arrival {
            seq,
            kind,
            message,
            group,
            fixed,
            claimed,
        });
    }

    /// A notification that claims nothing, of a kind the server sent while a request ran
    /// in the recording, which the replay has cancelled since (as the recorded client did):
    /// the server's work on it, still under way when the cancellation came. The
    /// specification expects it ("due to communication latency, notifications may still
    /// arrive after cancellation"), and how many come depends on when the server notices
    /// (over HTTP, when it finds the request's stream closed).
    fn late_of_cancelled(&self, message: &Value) -> bool {
        let method = message["method"].as_str().unwrap_or_default();
        let entries = self.fixture.entries();
        self.ledger
            .requests()
            .filter(|sent| sent.cancelled)
            .any(|sent| super::causal::sent_while_running(entries, sent.entry, method))
    }

    /// A value the server minted was bound after messages that carry it came (a task's
    /// first status before the `CreateTaskResult` that binds its id): each notification
    /// that claimed no expected message when it came is taken again with the value as its
    /// placeholder, in its own group, so that the session does not wait out its timeout for
    /// what already came. The pairing at the end does the same (`conclude.rs`).
    fn reclaim_arrivals(&mut self) {
        for i in 0..self.arrivals.next_index() {
            let arrival = &self.arrivals[i];
            if arrival.claimed || arrival.kind != MessageKind::Notification {
                continue;
            }
            let mut message = arrival.message.clone();
            self.bindings.unbind(&mut message);
            if message == arrival.message {
                continue;
            }
            let (model, expected, wants) = (&self.model, &self.expected, &self.wants);
            let in_group = arrival
                .group
                .and_then(|g| claim_in(model, expected, wants, g, &message));
            // As `take_notification` does: a loose claim takes it out of its group.
            let (claim, group) = match in_group {
                Some(w) => (Some(w), arrival.group),
                None => match self.loose_claim(&message) {
                    Some(w) => (Some(w), None),
                    None => (None, arrival.group),
                },
            };
            if let Some(w) = claim {
                self.wants.claim(w);
                if self.trace.on() {
                    let line = self.fixture.entries()[self.model.wants[w].entry].line();
                    self.trace.received(
                        &message,
                        format_args!("came before a value it holds was bound: equals line {line}"),
                    );
                }
            }
            let arrival = &mut self.arrivals[i];
            arrival.message = message;
            arrival.group = group;
            arrival.claimed = claim.is_some();
        }
    }

    /// The unclaimed want a notification that its group did not take claims: the server's
    /// own message, recorded while one request ran, may come after that request too.
    fn loose_claim(&self, message: &Value) -> Option<usize> {
        let ledger = &self.ledger;
        let ended = |q: usize| {
            ledger
                .live(q)
                .and_then(|live| ledger.get(live))
                .is_some_and(|sent| sent.answered.is_some())
        };
        (0..self.model.wants.len()).find(|&w| {
            let want = self.model.wants[w];
            !self.wants.claimed(w)
                && !want.hard
                && want.tie.is_some_and(ended)
                && self.expected.matches(want.entry, message, None)
        })
    }

    /// A server request: matched with an expected one and answered from the recording, or
    /// refused. Its group and want.
    pub(super) fn take_server_request(
        &mut self,
        message: &mut Value,
    ) -> (Option<usize>, Option<usize>) {
        let entries = self.fixture.entries();
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let Some(w) = self.match_server_request(&method, message) else {
            if let Some(answer) = self.repeat_poll(&method, message) {
                // The server polls a task the client runs more often than it did when
                // recorded: the task has not moved on from the recorded last answer.
                let request = entries[answer].answers().expect("correlated at parse time");
                self.requests.live.insert(request, message["id"].clone());
                self.requests.pending.push(Pending::Answer(answer));
                self.trace.received(
                    message,
                    format_args!(
                        "a poll again: answered from line {}",
                        entries[answer].line()
                    ),
                );
                let w = self.model.want_of_entry[&request];
                return (Some(self.model.wants[w].group), Some(w));
            }
            self.trace.received(message, "not expected: refused");
            self.requests.pending.push(Pending::Refuse(message.clone()));
            return (None, None);
        };
        let entry = self.model.wants[w].entry;
        if self.script.bound[entry] {
            // A value the server mints, first sent in its request (a URL elicitation's id).
            self.bindings
                .bind_from(self.expected.message(entry), message);
        }
        self.wants.claim(w);
        self.requests.live.insert(entry, message["id"].clone());
        self.requests.seen.insert(entry, message.clone());
        let answer = self.script.answer_of.get(&entry).copied();
        if let Some(answer) = answer {
            self.requests.pending.push(Pending::Answer(answer));
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

    /// The answer to give a server `tasks/get` that the recording has no more of: the
    /// client's answer to the latest expected one with the same params that came.
    fn repeat_poll(&self, method: &str, message: &Value) -> Option<usize> {
        if method != "tasks/get" {
            return None;
        }
        let entries = self.fixture.entries();
        self.requests
            .seen
            .iter()
            .filter(|(entry, seen)| {
                entries[**entry].method() == Some(method)
                    && json_eq(&seen["params"], &message["params"])
            })
            .map(|(entry, _)| *entry)
            .max()
            .and_then(|entry| self.script.answer_of.get(&entry).copied())
    }

    /// A notification: taken into its group (`causal::Model::assign`), claiming the
    /// expected message it equals, if any. Its group, and the want it claimed.
    pub(super) fn take_notification(&mut self, message: &Value) -> (Option<usize>, Option<usize>) {
        let method = message["method"].as_str().unwrap_or_default();
        let token = message.at(&["params", "progressToken"]);
        if method == "notifications/progress" && self.ledger.in_flight().next().is_some() {
            self.progress_seen();
        }
        let in_flight = self.ledger.in_flight().map(|(_, entry)| entry);
        let (model, expected, wants) = (&self.model, &self.expected, &self.wants);
        let (mut group, mut claim) = model.assign(method, token, in_flight, |group| {
            claim_in(model, expected, wants, group, message)
        });
        if claim.is_none() {
            claim = self.loose_claim(message);
            if claim.is_some() {
                group = None;
            }
        }
        if let Some(w) = claim {
            self.wants.claim(w);
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
        (group, claim)
    }

    /// The expected server request an arriving one is: the first not yet matched of its
    /// method that it equals, else the first of its method.
    ///
    /// A progress token in the request's `_meta` is the server's own choice, like its id:
    /// it is compared as the entry's label, and `message` keeps the label of the entry it
    /// was matched with.
    pub(super) fn match_server_request(&self, method: &str, message: &mut Value) -> Option<usize> {
        let entries = self.fixture.entries();
        let candidates = || {
            self.model.wants.iter().enumerate().filter(|(w, want)| {
                !self.wants.claimed(*w)
                    && entries[want.entry].kind() == MessageKind::Request
                    && entries[want.entry].method() == Some(method)
            })
        };
        let has_token = message.at(&TOKEN_KEYS).is_some();
        let as_labelled = |entry: usize, message: &Value| -> Option<Value> {
            let label = self.expected.message(entry).at(&TOKEN_KEYS)?;
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

    pub(super) fn record(&mut self, seq: u64, rec: Rec<'f>) {
        if let Some(recording) = &mut self.recording {
            recording.push((seq, rec));
        }
    }

    /// A message of a `subscriptions/listen` stream names its subscription by the live id
    /// of that request (the harness's): write the fixture's label of the request instead.
    pub(super) fn label_subscription(&self, message: &mut Value) {
        let Some(id) = crate::data::protocol::subscription_id(message) else {
            return;
        };
        let Some(sent) = id.as_i64().and_then(|live| self.ledger.get(live)) else {
            return;
        };
        if let Some(label) = self.fixture.entries()[sent.entry].id() {
            *id = label.clone();
        }
    }

    /// A server `notifications/cancelled` names one of its own requests by live id: write
    /// the fixture's label instead.
    pub(super) fn label_server_cancellation(&self, message: &mut Value) {
        if message.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
            return;
        }
        let Some(id) = message.at(&["params", "requestId"]).cloned() else {
            return;
        };
        let entries = self.fixture.entries();
        if let Some((entry, _)) = self
            .requests
            .live
            .iter()
            .find(|(_, live)| crate::data::json::json_eq(live, &id))
        {
            if let Some(label) = entries[*entry].id() {
                message["params"]["requestId"] = label.clone();
            }
        }
    }
}

/// The first want of `group` not yet claimed that `message` equals.
fn claim_in(
    model: &super::causal::Model<'_>,
    expected: &super::expected::Expected<'_>,
    wants: &Wants,
    group: usize,
    message: &Value,
) -> Option<usize> {
    model.members[group]
        .iter()
        .copied()
        .find(|&w| !wants.claimed(w) && expected.matches(model.wants[w].entry, message, None))
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

/// A response as the reader handed it over: written canonically without a tree (see
/// `fast.rs`), or parsed.
enum Response {
    Fast(FastResponse),
    Tree(Value),
}

impl Response {
    pub(super) fn int_id(&self) -> Option<i64> {
        match self {
            Response::Fast(fast) => Some(fast.id),
            Response::Tree(message) => message.get("id").and_then(Value::as_i64),
        }
    }

    /// The message as a tree. A fast-path response's canonical text is already normalized
    /// (the fast path only takes messages the rules leave unchanged).
    pub(super) fn into_tree(self) -> Value {
        match self {
            Response::Fast(fast) => {
                serde_json::from_str(&fast.text).expect("the fast path writes JSON")
            }
            Response::Tree(message) => message,
        }
    }
}
