//! The timeline a session concludes into ([`Session::timeline`]), from what it recorded
//! (`picture.rs`): each line resolved into the fixture line it is or was paired with, the
//! client request whose span it belongs to, and the findings about it.

use super::describe::describe_request;
use super::picture::Picture;
use super::session::Session;
use super::IntMap;
use crate::data::fixture::{Direction, MessageKind};
use crate::data::json::json_eq;
use crate::findings::report::MismatchKind;
use crate::findings::timeline::{Event, Expected, Missing, Side, Span, Timeline, What};
use serde_json::Value;
use std::time::Instant;

/// The event of each step of the session's count that has one.
type EventOf = IntMap<u64, usize>;
/// The sends of each client request entry: `(step, span)`.
type SendsOf = IntMap<usize, Vec<(u64, usize)>>;

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
        let event_of: EventOf = seqs
            .iter()
            .enumerate()
            .filter_map(|(i, seq)| Some(((*seq)?, i)))
            .collect();
        let (spans, sends) = self.spans(&mut events, &event_of);
        let arrival_of_event = self.place_arrivals(&mut events, &event_of, &sends);
        let missing = self.place_findings(&mut events, &values, &arrival_of_event);
        Timeline {
            events,
            expected: self.expected_lines(),
            missing,
            spans,
            elapsed: end.saturating_duration_since(start),
            dropped,
        }
    }

    /// Every fixture line, as the page shows it on the expected side.
    fn expected_lines(&self) -> Vec<Expected> {
        let entries = self.fixture.entries();
        entries
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
            .collect()
    }

    /// The span of each client request sent, from its send to its response (which gets
    /// its fixture line here); and the sends of each request.
    fn spans(&self, events: &mut [Event], event_of: &EventOf) -> (Vec<Span>, SendsOf) {
        let entries = self.fixture.entries();
        let mut spans = Vec::new();
        let mut sends = SendsOf::default();
        for sent in self.ledger.requests() {
            let Some(&from) = event_of.get(&sent.sent) else {
                continue;
            };
            let to = sent.answered.and_then(|a| event_of.get(&a).copied());
            let span = spans.len();
            spans.push(Span {
                name: describe_request(&entries[sent.entry]),
                from,
                to,
                tied: self.model.wants.iter().any(|w| w.tie == Some(sent.entry)),
            });
            sends.entry(sent.entry).or_default().push((sent.sent, span));
            events[from].span = Some(span);
            if let Some(to) = to {
                events[to].span = Some(span);
                events[to].entry = self.script.response_of_request.get(&sent.entry).copied();
            }
        }
        (spans, sends)
    }

    /// Notifications and server requests: the fixture line each was paired with, and the
    /// span it belongs to (of the request its pair is tied to, else its group's), the
    /// latest send of that request before it. The arrival of each such event.
    fn place_arrivals(
        &self,
        events: &mut [Event],
        event_of: &EventOf,
        sends: &SendsOf,
    ) -> IntMap<usize, usize> {
        let model = &self.model;
        let tie_of_entry = |e: usize| {
            model
                .want_of_entry
                .get(&e)
                .and_then(|&w| model.wants[w].tie)
        };
        let tie_of_group: IntMap<usize, usize> = model
            .wants
            .iter()
            .filter_map(|w| Some((w.group, w.tie?)))
            .collect();
        let mut arrival_of_event = IntMap::default();
        for (i, arrival) in self.arrivals.iter().enumerate() {
            let Some(&event) = event_of.get(&arrival.seq) else {
                continue;
            };
            arrival_of_event.insert(event, i);
            let entry = self.arrivals.label_of(i);
            events[event].entry = entry;
            let request = entry
                .and_then(tie_of_entry)
                .or_else(|| arrival.group.and_then(|g| tie_of_group.get(&g).copied()));
            events[event].span = request.and_then(|q| {
                sends.get(&q).and_then(|sends| {
                    sends
                        .iter()
                        .filter(|(sent, _)| *sent < arrival.seq)
                        .max_by_key(|(sent, _)| *sent)
                        .map(|(_, span)| *span)
                })
            });
        }
        arrival_of_event
    }

    /// Each finding at the events it concerns: by its fixture line (a row of its own
    /// when no event has that line: the message never came), else the stray lines, else
    /// the server message it shows (its id aside: a finding relabels a response), else
    /// the close of the server's output for a server failure. The rows of the messages
    /// that never came, in fixture order.
    fn place_findings(
        &self,
        events: &mut [Event],
        values: &[Option<Value>],
        arrival_of_event: &IntMap<usize, usize>,
    ) -> Vec<Missing> {
        let entries = self.fixture.entries();
        let index_of_line: IntMap<usize, usize> = entries
            .iter()
            .enumerate()
            .map(|(e, entry)| (entry.line(), e))
            .collect();
        let mut missing: Vec<Missing> = Vec::new();
        let mut claimed = vec![false; events.len()];
        for (k, m) in self.findings.mismatches.iter().enumerate() {
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
            } else if m.kind == MismatchKind::StrayOutput {
                for event in events.iter_mut().filter(|ev| ev.what == What::Stray) {
                    event.findings.push(k);
                }
            } else if let Some(actual) = &m.actual {
                let shows = |i: usize| {
                    let value = match arrival_of_event.get(&i) {
                        Some(&a) => Some(&self.arrivals[a].message),
                        None => values[i].as_ref(),
                    };
                    value.is_some_and(|v| same_but_id(v, actual))
                };
                let found = (0..events.len())
                    .find(|&i| !claimed[i] && events[i].side == Side::Server && shows(i));
                if let Some(i) = found {
                    claimed[i] = true;
                    events[i].findings.push(k);
                }
            } else if m.kind == MismatchKind::ServerFailure {
                if let Some(event) = events.iter_mut().find(|e| e.what == What::OutputClosed) {
                    event.findings.push(k);
                }
            }
        }
        missing.sort_by_key(|m| m.entry);
        missing
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
    use crate::analyses::validate::ProtocolCheck;
    use crate::data::fixture::Fixture;
    use crate::engine::transport::Incoming;
    use crate::findings::report::{MismatchKind, Report};
    use crate::findings::timeline::{Side, What};
    use crate::options::Options;
    use crate::rules::Rules;
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
