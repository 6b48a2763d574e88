//! The timeline of a session, for its picture (`html.rs`), kept only when the settings ask
//! for it ([`Settings::timeline`](crate::options::Settings)): every line written and every
//! arrival, at the instant the session was given, as the session takes it ([`Picture`]).
//! When the session concludes, each is resolved into what the page shows
//! ([`Session::timeline`]): the fixture line it is or was paired with, the client request
//! whose span it belongs to, and the findings about it. A session that keeps no timeline
//! has no [`Picture`], and each place that would record one only tests that it is absent.

use super::describe::describe_request;
use super::session::Session;
use super::IntMap;
use crate::fixture::{Direction, MessageKind};
use crate::json::json_eq;
use crate::report::MismatchKind;
use crate::timeline::{Event, Expected, Missing, Side, Span, Timeline, What};
use crate::transport::Incoming;
use serde_json::Value;
use std::time::Instant;

/// What a session recorded for its timeline, not yet resolved.
pub(super) struct Picture {
    start: Instant,
    events: Vec<Event>,
    /// Per event: the session's count of sends and arrivals it had (a fixture line sent,
    /// a server message taken), to find it in the ledger and among the arrivals.
    seqs: Vec<Option<u64>>,
    /// Per event: a server message as normalized, to find the findings about it.
    values: Vec<Option<Value>>,
    dropped: usize,
}

impl Picture {
    pub(super) fn new(start: Instant) -> Picture {
        Picture {
            start,
            events: Vec::new(),
            seqs: Vec::new(),
            values: Vec::new(),
            dropped: 0,
        }
    }

    fn push(&mut self, at: Instant, side: Side, what: What, text: String) -> Option<&mut Event> {
        if self.events.len() >= Timeline::MAX_EVENTS {
            self.dropped += 1;
            return None;
        }
        self.events.push(Event {
            at: at.saturating_duration_since(self.start),
            side,
            what,
            text,
            entry: None,
            own: None,
            span: None,
            findings: Vec::new(),
        });
        self.seqs.push(None);
        self.values.push(None);
        self.events.last_mut()
    }

    /// A line written to the server: fixture entry `entry` (at `seq`), or the harness's
    /// own line `own`.
    pub(super) fn sent(
        &mut self,
        at: Instant,
        bytes: &[u8],
        entry: Option<usize>,
        own: Option<&str>,
        seq: u64,
    ) {
        let text = String::from_utf8_lossy(bytes).into_owned();
        if let Some(event) = self.push(at, Side::Client, What::Message, text) {
            event.entry = entry;
            event.own = own.map(str::to_owned);
            if entry.is_some() {
                *self.seqs.last_mut().expect("pushed") = Some(seq);
            }
        }
    }

    /// A server message taken at `seq` (`None`: one the session did not judge), as it
    /// came (`text`) and as normalized.
    pub(super) fn received(
        &mut self,
        at: Instant,
        seq: Option<u64>,
        text: String,
        normalized: Value,
    ) {
        if self.push(at, Side::Server, What::Message, text).is_some() {
            *self.seqs.last_mut().expect("pushed") = seq;
            *self.values.last_mut().expect("pushed") = Some(normalized);
        }
    }

    /// What the server sent that the session takes without judging it (`note` says why:
    /// the answer to the harness's own session setup, what came after the replay stopped).
    pub(super) fn unjudged(&mut self, at: Instant, event: &Incoming, note: &str) {
        let text = match event {
            Incoming::Message(message) => message.to_string(),
            Incoming::Response(fast) => fast.text.clone(),
            Incoming::Invalid { excerpt, .. } => return self.stray(at, excerpt.clone()),
            Incoming::Closed(_) => return self.closed(at, Side::Server),
        };
        if let Some(event) = self.push(at, Side::Server, What::Message, text) {
            event.own = Some(note.to_owned());
        }
    }

    /// A line of the server's that is not a JSON-RPC message.
    pub(super) fn stray(&mut self, at: Instant, text: String) {
        self.push(at, Side::Server, What::Stray, text);
    }

    /// The harness closed the server's input, or the server its output.
    pub(super) fn closed(&mut self, at: Instant, side: Side) {
        let what = match side {
            Side::Client => What::InputClosed,
            Side::Server => What::OutputClosed,
        };
        self.push(at, side, what, String::new());
    }
}

impl Session<'_> {
    /// The timeline of the session, once its findings are final (sorted, after the
    /// pairing) and before the recording takes the labels of the pairing.
    pub(super) fn timeline(&self, picture: Picture, end: Instant) -> Timeline {
        let Picture {
            start,
            mut events,
            seqs,
            values,
            dropped,
        } = picture;
        let entries = self.fixture.entries();
        let model = &self.model;
        // Per expected server message: the client request it is tied to.
        let tie_of_entry = |e: usize| -> Option<usize> {
            model
                .want_of_entry
                .get(&e)
                .and_then(|&w| model.wants[w].tie)
        };
        let expected: Vec<Expected> = entries
            .iter()
            .enumerate()
            .map(|(e, entry)| Expected {
                line: entry.line(),
                side: match entry.direction() {
                    Direction::ClientToServer => Side::Client,
                    Direction::ServerToClient => Side::Server,
                },
                text: entry.text().to_owned(),
                when: self.when(e),
            })
            .collect();
        let event_of_seq: IntMap<u64, usize> = seqs
            .iter()
            .enumerate()
            .filter_map(|(i, seq)| Some(((*seq)?, i)))
            .collect();
        // Responses: the request each answered, and the fixture's response to it.
        let mut spans = Vec::new();
        let mut span_of_seq: IntMap<u64, usize> = IntMap::default();
        let mut spans_of_request: IntMap<usize, Vec<(u64, usize)>> = IntMap::default();
        for sent in self.ledger.requests() {
            let Some(&from) = event_of_seq.get(&sent.sent) else {
                continue;
            };
            let to = sent.answered.and_then(|a| event_of_seq.get(&a).copied());
            let span = spans.len();
            spans.push(Span {
                name: describe_request(&entries[sent.entry]),
                from,
                to,
                tied: model.wants.iter().any(|w| w.tie == Some(sent.entry)),
            });
            span_of_seq.insert(sent.sent, span);
            spans_of_request
                .entry(sent.entry)
                .or_default()
                .push((sent.sent, span));
            events[from].span = Some(span);
            if let (Some(to), Some(answered)) = (to, sent.answered) {
                events[to].span = Some(span);
                events[to].entry = self.response_of_request.get(&sent.entry).copied();
                span_of_seq.insert(answered, span);
            }
        }
        // Notifications and server requests: the entry each was paired with, and the
        // request whose span it belongs to (its pair's, else its group's).
        let tie_of_group: IntMap<usize, usize> = model
            .wants
            .iter()
            .filter_map(|w| Some((w.group, w.tie?)))
            .collect();
        let mut arrival_of_event: IntMap<usize, usize> = IntMap::default();
        for (i, arrival) in self.arrivals.iter().enumerate() {
            let Some(&event) = event_of_seq.get(&arrival.seq) else {
                continue;
            };
            arrival_of_event.insert(event, i);
            let entry = self.labels.get(&i).copied();
            events[event].entry = entry;
            let request = entry
                .and_then(tie_of_entry)
                .or_else(|| arrival.group.and_then(|g| tie_of_group.get(&g).copied()));
            // The latest send of that request before the arrival.
            events[event].span = request.and_then(|q| {
                spans_of_request.get(&q).and_then(|sends| {
                    sends
                        .iter()
                        .filter(|(sent, _)| *sent < arrival.seq)
                        .max_by_key(|(sent, _)| *sent)
                        .map(|(_, span)| *span)
                })
            });
        }
        // The findings, at the events they concern.
        let mut missing: Vec<Missing> = Vec::new();
        let mut claimed = vec![false; events.len()];
        let index_of_line: IntMap<usize, usize> = entries
            .iter()
            .enumerate()
            .map(|(e, entry)| (entry.line(), e))
            .collect();
        for (k, m) in self.mismatches.iter().enumerate() {
            if let Some(&e) = m.line.as_ref().and_then(|l| index_of_line.get(l)) {
                let mut found = false;
                for event in events.iter_mut().filter(|ev| ev.entry == Some(e)) {
                    event.findings.push(k);
                    found = true;
                }
                if !found {
                    match missing.iter_mut().find(|m| m.entry == e) {
                        Some(row) => row.findings.push(k),
                        None => missing.push(Missing {
                            entry: e,
                            findings: vec![k],
                        }),
                    }
                }
                continue;
            }
            if m.kind == MismatchKind::StrayOutput {
                for event in events.iter_mut().filter(|ev| ev.what == What::Stray) {
                    event.findings.push(k);
                }
                continue;
            }
            if let Some(actual) = &m.actual {
                // The server message it shows, ids aside (a finding relabels a response).
                let found = (0..events.len()).find(|&i| {
                    !claimed[i] && events[i].side == Side::Server && {
                        let value = match arrival_of_event.get(&i) {
                            Some(&a) => Some(&self.arrivals[a].message),
                            None => values[i].as_ref(),
                        };
                        value.is_some_and(|v| same_but_id(v, actual))
                    }
                });
                if let Some(i) = found {
                    claimed[i] = true;
                    events[i].findings.push(k);
                }
                continue;
            }
            if m.kind == MismatchKind::ServerFailure {
                if let Some(event) = events.iter_mut().find(|e| e.what == What::OutputClosed) {
                    event.findings.push(k);
                }
            }
        }
        missing.sort_by_key(|m| m.entry);
        Timeline {
            events,
            expected,
            missing,
            spans,
            elapsed: end.saturating_duration_since(start),
            dropped,
        }
    }

    /// When fixture entry `e` may come, in words, as the causal model says.
    fn when(&self, e: usize) -> String {
        let entries = self.fixture.entries();
        let entry = &entries[e];
        if entry.direction() == Direction::ClientToServer {
            return String::new();
        }
        if entry.kind() == MessageKind::Response {
            return match entry.answers() {
                Some(q) => format!("answers {}", describe_request(&entries[q])),
                None => String::new(),
            };
        }
        let want = self
            .model
            .want_of_entry
            .get(&e)
            .map(|&w| self.model.wants[w]);
        match want.and_then(|w| w.tie.map(|q| (q, w.hard))) {
            Some((q, true)) => format!(
                "tied to {}: may come only while it runs (its shaded span)",
                describe_request(&entries[q])
            ),
            Some((q, false)) => format!(
                "recorded while {} ran alone: keeps its order while it runs (its shaded \
                 span), and may come after it too",
                describe_request(&entries[q])
            ),
            None => "the server's own: may come any time in the session".to_owned(),
        }
    }
}

/// Are `a` and `b` the same message, their ids aside?
fn same_but_id(a: &Value, b: &Value) -> bool {
    match (a.as_object(), b.as_object()) {
        (Some(a), Some(b)) => {
            let keys = |o: &serde_json::Map<String, Value>| o.keys().filter(|k| *k != "id").count();
            keys(a) == keys(b)
                && a.iter()
                    .filter(|(k, _)| *k != "id")
                    .all(|(k, v)| b.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => json_eq(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::super::session::{Ending, Session, Transmit};
    use crate::fixture::Fixture;
    use crate::options::Options;
    use crate::report::{MismatchKind, Report};
    use crate::rules::Rules;
    use crate::timeline::{Side, What};
    use crate::transport::Incoming;
    use crate::validate::ProtocolCheck;
    use serde_json::{json, Value};
    use std::time::{Duration, Instant};

    /// A call with its progress, a log recorded while it ran, and its result.
    const CALL: &str = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"work","arguments":{}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>"}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#,
        "\n",
    );

    /// Replays [`CALL`] (stateless, so without a handshake) with `timeline`, the server
    /// sending `server` at 1, 2, 3 ... ms after the call; then the close of its output.
    fn replay(timeline: bool, server: &[Value]) -> Report {
        let fixture = Fixture::parse(CALL).unwrap();
        let rules = Rules::default();
        let options = Options::new()
            .protocol("2026-07-28")
            .protocol_check(ProtocolCheck::Off)
            .timeout(Duration::from_millis(50))
            .timeline(timeline);
        let settings = options.resolve(&fixture, &rules);
        let start = Instant::now();
        let mut session = Session::new(&fixture, &settings, start);
        let mut buf = Vec::new();
        let mut drain = |session: &mut Session, now| {
            while let Some(t) = session.poll_transmit(now, &mut buf) {
                if t == Transmit::CloseInput {
                    session.input_closed(now, None);
                }
            }
        };
        drain(&mut session, start);
        for (i, message) in server.iter().enumerate() {
            let now = start + Duration::from_millis(i as u64 + 1);
            session.handle(Incoming::Message(message.clone()), now);
            drain(&mut session, now);
        }
        // The waits end, the input closes, then the output.
        for k in 1..=4 {
            let later = start + Duration::from_millis(100 * k);
            if !session.is_done() {
                session.handle_timeout(later);
                drain(&mut session, later);
            }
        }
        if !session.is_done() {
            session.handle(Incoming::Closed(None), start + Duration::from_millis(500));
        }
        session.conclude(Ending::default())
    }

    fn progress() -> Value {
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
               "params": {"progress": 1, "progressToken": "<PROGRESS_TOKEN>"}})
    }

    #[test]
    fn keep_nothing_unless_asked() {
        let report = replay(false, &[progress()]);
        assert!(report.timeline.is_none());
        assert!(report.to_html().is_none());
    }

    #[test]
    fn pair_each_line_with_its_fixture_line_and_its_request_span() {
        let result = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "new"}]}});
        let other = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
        let report = replay(true, &[progress(), other, result]);
        let t = report.timeline.as_deref().unwrap();
        let what: Vec<(Side, What, Option<usize>)> =
            t.events.iter().map(|e| (e.side, e.what, e.entry)).collect();
        assert_eq!(
            what,
            [
                (Side::Client, What::Message, Some(0)),
                (Side::Server, What::Message, Some(1)),
                // Paired with the log the fixture has in its place (a method finding).
                (Side::Server, What::Message, Some(2)),
                (Side::Server, What::Message, Some(3)),
                // The server never closes its output: the drain's bound ends the session.
                (Side::Client, What::InputClosed, None),
            ],
            "{t:#?}"
        );
        // The line as it went over the pipe: the live id, not the fixture's label.
        assert!(
            t.events[0].text.contains("\"id\":1"),
            "{}",
            t.events[0].text
        );
        assert_eq!(t.events[1].at, Duration::from_millis(1));
        // One span, the call's, from its send to its response; its messages in it.
        assert_eq!(t.spans.len(), 1);
        assert_eq!(
            (t.spans[0].from, t.spans[0].to, t.spans[0].tied),
            (0, Some(3), true)
        );
        assert_eq!(t.spans[0].name, "`tools/call work` (line 1)");
        let spans: Vec<Option<usize>> = t.events.iter().map(|e| e.span).collect();
        assert_eq!(spans, [Some(0), Some(0), Some(0), Some(0), None]);
        // Each finding at the message it is about.
        let kinds: Vec<MismatchKind> = report.mismatches().iter().map(|m| m.kind()).collect();
        let at = |kind| kinds.iter().position(|k| *k == kind).unwrap();
        assert_eq!(t.events[2].findings, [at(MismatchKind::Method)]);
        assert_eq!(t.events[3].findings, [at(MismatchKind::Result)]);
        assert!(t.missing.is_empty());
        assert!(t.expected[1]
            .when
            .starts_with("tied to `tools/call work` (line 1)"));
        assert!(t.expected[2]
            .when
            .starts_with("recorded while `tools/call work` (line 1) ran alone"));
        assert!(t.expected[3].when.starts_with("answers `tools/call work`"));
    }

    #[test]
    fn give_an_expected_message_that_never_came_a_row_and_a_stray_answer_its_finding() {
        let result = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}});
        let again = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": ["twice"]}});
        let report = replay(true, &[progress(), result, again]);
        let t = report.timeline.as_deref().unwrap();
        let kinds: Vec<MismatchKind> = report.mismatches().iter().map(|m| m.kind()).collect();
        let at = |kind| kinds.iter().position(|k| *k == kind).unwrap();
        assert_eq!(t.missing.len(), 1, "{kinds:?}");
        assert_eq!(t.missing[0].entry, 2);
        assert_eq!(t.missing[0].findings, [at(MismatchKind::Missing)]);
        // The second answer: no fixture line, its id finding found by the message.
        assert_eq!(t.events[3].entry, None);
        assert_eq!(t.events[3].findings, [at(MismatchKind::Id)]);
        assert!(
            t.events[2].findings.is_empty(),
            "the answer equals its line"
        );
        let page = report.to_html().unwrap();
        assert!(page.contains("never came"));
    }
}
