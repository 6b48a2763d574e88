//! How a session ends: the notifications and server requests that arrived are paired with
//! the expected ones (`align.rs`), every difference becomes a finding, the way the server
//! ended is judged, and the recording becomes the fixture the server really played.

use super::align::{self, How, Span};
use super::describe::{describe, describe_message, describe_request, ms, relabel};
use super::ledger::Moment;
use super::session::{Awaited, Ending, Rec, Session};
use crate::data::fixture::{Direction, Fixture, MessageKind};
use crate::data::json::compact;
use crate::findings::report::{Mismatch, MismatchKind, Report};
use serde_json::{json, Value};

impl<'f> Session<'f> {
    /// The report of the session, once it [`is_done`](Session::is_done) (or given up): the
    /// pairing, the findings of how the server ended (`ending`, from the shell) and the
    /// recording.
    pub(crate) fn conclude(mut self, ending: Ending) -> Report {
        // What came after the client closed its input: a response that never did.
        let after_close = std::mem::take(&mut self.after_close);
        let unanswered: Vec<_> = after_close
            .into_iter()
            .filter(|a| matches!(a, Awaited::Response(_)) && !self.arrived(*a))
            .collect();
        if !self.aborted && !unanswered.is_empty() {
            self.timed_out(&unanswered, true);
        }
        self.pair_arrivals();
        self.judge_the_end(&ending);
        let timeline = match self.picture.take() {
            Some(picture) => Some(Box::new(self.timeline(*picture, self.clock.now()))),
            None => None,
        };
        let changed = self.findings.changed();
        let recorded = match self.recording.take() {
            Some(_) if self.settings.record_on_change && !changed => None,
            Some(events) if self.findings.recordable() || self.settings.record_spoiled => {
                self.recorded(events)
            }
            _ => None,
        };
        self.trace.end(self.findings.mismatches.len());
        if !self.findings.mismatches.is_empty() {
            for (placeholder, folder) in &self.folders {
                self.findings.notes.push(format!(
                    "{placeholder} in the client messages was sent as {folder} (the folder \
                     placeholders: docs/normalization.md)"
                ));
            }
        }
        Report {
            source: self.fixture.source().to_owned(),
            test: None,
            rerecord: None,
            mismatches: self.findings.mismatches,
            accepted: self.findings.accepted,
            warnings: self.findings.warnings,
            notes: self.findings.notes,
            recorded,
            rerecording: false,
            pinned: false,
            timeline,
        }
    }

    /// Pairs the notifications and server requests that arrived with the expected ones and
    /// reports every difference; then the response order and the unexplained ids.
    fn pair_arrivals(&mut self) {
        // A value the server minted may come in a notification before the response that
        // binds it (a task's first status before its `CreateTaskResult`).
        for arrival in self.arrivals.iter_mut() {
            self.bindings.unbind(&mut arrival.message);
        }
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
        findings.extend(self.arrivals.take_anomalies().into_iter().map(|message| {
            let why = self.ledger.id_anomaly(&message);
            Mismatch::new(
                MismatchKind::Id,
                None,
                format!("a response with id {} ({why})", message["id"]),
            )
            .actual(&message)
        }));
        for m in findings {
            self.fail(m);
        }
        // Findings in fixture order; those without a line (unexpected messages) last.
        self.findings
            .mismatches
            .sort_by_key(|m| m.line.unwrap_or(usize::MAX));
        if let Some(recording) = &mut self.recording {
            recording.sort_by_key(|(seq, _)| *seq);
        }
        let labels = alignment
            .pairs
            .iter()
            .map(|p| (p.got, self.model.wants[p.want].entry))
            .collect();
        self.arrivals.label(labels);
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
            Some(q) if !self.wants.given_up(w) => {
                format!("while {} ran", describe_request(&entries[q]))
            }
            _ => format!("(waited {})", ms(self.settings.timeout)),
        };
        let mut summary = format!("{} never came {when}", describe(e));
        if let Some(&(_, answer)) = self
            .requests
            .went_early
            .iter()
            .find(|(held, _)| *held == want.entry)
        {
            // The recorded answer was to come after it: a server that sends this only
            // while it has no answer (it asks again) sends nothing once answered.
            summary.push_str(&format!(
                "; the recorded answer (line {}) came after it when recorded, and was sent \
                 before it once {} of waiting for it were over: the server may send it only \
                 while it has no answer",
                entries[answer].line(),
                ms(super::session::HOLD.min(self.settings.timeout / 4))
            ));
        }
        let m = Mismatch::new(MismatchKind::Missing, Some(e.line()), summary)
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
        match self.ledger.moment(seq, self.clock.last_sent()) {
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
        if !self.settings.strict_response_order {
            return None;
        }
        let entries = self.fixture.entries();
        let mut in_fixture = self.arrivals.response_order().to_vec();
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
                order(self.arrivals.response_order())
            ),
        ))
    }

    /// The fixture the server really played, from the recording's events.
    fn recorded(&mut self, events: Vec<(u64, Rec<'f>)>) -> Option<Fixture> {
        let mut recorder = crate::data::fixture::Recorder::new(self.fixture);
        let entries = self.fixture.entries();
        for (_, rec) in events {
            match rec {
                Rec::Server(mut message) => {
                    // A value a client line's placeholder was bound to after its answer
                    // came (a client-first fixture) is that placeholder in the answer too.
                    if self.script.client_first {
                        self.bindings.unbind(&mut message);
                    }
                    recorder.push(Direction::ServerToClient, &message)
                }
                Rec::Entry(entry) => recorder.push_entry(entry),
                Rec::Sent(entry) => {
                    let mut sent = entry.message();
                    self.settings.rules.normalize_client(&mut sent);
                    // Most client messages normalize to themselves: the entry's own line
                    // is kept as it is.
                    let mut text = String::with_capacity(entry.text().len());
                    crate::data::json::write_message(&mut text, &sent);
                    if text == entry.text() {
                        recorder.push_entry(entry);
                    } else {
                        recorder.push(Direction::ClientToServer, &sent);
                    }
                }
                Rec::Arrival(i) => {
                    if self.arrivals[i].kind != MessageKind::Request {
                        recorder.push(Direction::ServerToClient, &self.arrivals[i].message);
                        continue;
                    }
                    let label = match self.arrivals.label_of(i) {
                        Some(entry) if entries[entry].kind() == MessageKind::Request => {
                            entries[entry].id().cloned().unwrap_or(Value::Null)
                        }
                        _ => self.new_server_label(),
                    };
                    let message = relabel(self.arrivals[i].message.clone(), Some(&label));
                    recorder.push(Direction::ServerToClient, &message);
                }
            }
        }
        let mut fixture = recorder.finish().ok()?;
        if self.explored_held == Some(true) {
            // The call `explore` found holds its rule now: its answer is pinned from here on.
            fixture = fixture.without_header_key("explore");
        }
        Some(self.label_new_minted(fixture))
    }

    /// A re-recording labels what the server mints that the fixture did not have yet: the
    /// values of the protocol's handles, and values the server sent that the fixture's
    /// client messages send back (`normalize/bound.rs`). Unchanged when there are none.
    fn label_new_minted(&self, fixture: Fixture) -> Fixture {
        // A re-recording that wrote the fixture's lines again has nothing new to label.
        let old = self.fixture.entries();
        let new = fixture.entries();
        if old.len() == new.len() && old.iter().zip(new).all(|(a, b)| a.text() == b.text()) {
            return fixture;
        }
        let mut messages: Vec<(Direction, Value)> = fixture
            .entries()
            .iter()
            .map(|e| (e.direction(), e.message()))
            .collect();
        let before: Vec<Value> = messages.iter().map(|(_, m)| m.clone()).collect();
        // The fixture's own `"bind"` and `"pin"` are in the settings' rules.
        let rules = &self.settings.rules;
        let (bound, pinned) = rules.minted_and_pinned(&messages);
        let mut found = crate::normalize::bound::label_handles(&mut messages, &pinned);
        found.extend(crate::normalize::bound::label_minted(
            &mut messages,
            &bound,
            &pinned,
        ));
        rules.pseudonymize_exchange(&mut messages);
        if messages.iter().map(|(_, m)| m).eq(before.iter()) {
            return fixture;
        }
        let shapes = crate::normalize::shape::shapes_of(&found, &self.settings.shapes, rules);
        fixture
            .without_entries()
            .with_messages(messages)
            .and_then(|labelled| labelled.with_shapes(shapes))
            .unwrap_or(fixture)
    }

    fn new_server_label(&mut self) -> Value {
        loop {
            self.requests.new_labels += 1;
            let label = json!(format!("<SERVER_REQUEST_ID:{}>", self.requests.new_labels));
            let taken = self.fixture.entries().iter().any(|e| {
                e.direction() == Direction::ServerToClient
                    && e.id()
                        .is_some_and(|id| crate::data::json::json_eq(id, &label))
            });
            if !taken {
                return label;
            }
        }
    }

    /// The findings and notes of how the session ended: a server that did not stop, that
    /// needed a signal, that failed, or that wrote lines that are not JSON-RPC messages.
    fn judge_the_end(&mut self, ending: &Ending) {
        let settings = self.settings;
        if let Some(description) = self.stray.describe("the server", "stdout") {
            if settings.allow_stray_output {
                self.findings
                    .notes
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
        if let Some(bound) = ending.stuck {
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
        if let Some(forced) = ending.forced.clone() {
            if settings.strict_exit {
                self.fail(Mismatch::new(
                    MismatchKind::ServerFailure,
                    None,
                    format!(
                        "{forced} (an MCP server ends when its input closes; the fixture \
                         asks for that with \"strict_exit\")"
                    ),
                ));
            } else {
                self.findings.notes.push(forced);
            }
        }
        let already = self.findings.mismatches.iter().any(|m| {
            m.kind == MismatchKind::ServerFailure && m.summary.contains("closed the connection")
        });
        if let Some(Err(why)) = self.server_outcome.clone() {
            if !already {
                self.fail(Mismatch::new(
                    MismatchKind::ServerFailure,
                    None,
                    why.to_string(),
                ));
            }
        }
        self.attach_stderr(&ending.stderr);
    }

    /// A child process that hung or failed says why where the report says it failed: its
    /// last lines on stderr go with the first timeout or server failure (unless that
    /// finding holds them already, as an exit's does).
    fn attach_stderr(&mut self, stderr: &[String]) {
        if stderr.is_empty() {
            return;
        }
        let failing =
            |m: &Mismatch| matches!(m.kind, MismatchKind::Timeout | MismatchKind::ServerFailure);
        let findings = &mut self.findings.mismatches;
        if findings
            .iter()
            .any(|m| failing(m) && m.summary.contains("last lines on stderr"))
        {
            return;
        }
        if let Some(first) = findings.iter_mut().find(|m| failing(m)) {
            first.summary.push_str(&format!(
                "; the server's last lines on stderr:\n    {}",
                stderr.join("\n    ")
            ));
        }
    }
}
