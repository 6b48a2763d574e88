//! Whether the exchange a test whose body is the client let through is, line for line,
//! the fixture's: the pass-through's comparison of the commonest case, as the replay
//! compares (`harness/pair.rs`). Pure: no I/O.

use super::expected::Expected;
use crate::data::fixture::{Direction, Entry, MessageKind};
use crate::data::json::json_eq;
use crate::rules::Rules;
use serde_json::Value;

/// Is `lines`, the exchange a test whose body is the client let through
/// (`harness/pair.rs`), line for line the fixture's `entries`, with nothing a comparison
/// would report? Each line is normalized and compared with its entry as the replay
/// compares a server message (on the fast path when it can, the client's lines too), the
/// live ids standing for the entries' labels (each response answers the request its entry
/// answers) and the live progress tokens for the entries' (one for one). `true` is
/// certain; `false` only says this shortcut does not decide (a value bound or
/// pseudonymized, messages in another order, a difference), and the recording and its
/// diff then tell what differs, if anything.
pub(crate) fn same_exchange(
    rules: &Rules,
    entries: &[Entry],
    lines: &[(Direction, String)],
) -> bool {
    if entries.len() != lines.len() {
        return false;
    }
    let expected = Expected::new(entries, rules);
    let fast = rules.defaults_only();
    let mut live = Live {
        ids: vec![None; entries.len()],
        tokens: Vec::new(),
    };
    for (e, ((direction, line), entry)) in lines.iter().zip(entries).enumerate() {
        if entry.direction() != *direction {
            return false;
        }
        if let Some(defaults) = &fast {
            let shortcut = match (entry.kind(), direction) {
                (MessageKind::Response, Direction::ServerToClient) => {
                    crate::normalize::fast::response(line, defaults.as_ref())
                }
                (MessageKind::Request, Direction::ClientToServer) => {
                    crate::normalize::fast::request(line, defaults.as_ref())
                }
                _ => None,
            };
            if let Some(fast) = shortcut {
                let id = Value::from(fast.id);
                if !live.id(e, entry, &id) || !expected.matches_text(e, &fast) {
                    return false;
                }
                if *direction == Direction::ClientToServer {
                    expected.sent(entry);
                }
                continue;
            }
        }
        if !same_line(rules, &expected, &mut live, e, line) {
            return false;
        }
    }
    true
}

/// What [`same_exchange`] has seen of the live session.
struct Live {
    /// The live id each request entry was sent with.
    ids: Vec<Option<Value>>,
    /// Each live progress token with the fixture's, in the order first seen.
    tokens: Vec<(Value, Value)>,
}

impl Live {
    /// Takes `id`, the live id of entry `e`: a request's is kept; a response's must be
    /// its request's.
    fn id(&mut self, e: usize, entry: &Entry, id: &Value) -> bool {
        match entry.kind() {
            MessageKind::Request => {
                self.ids[e] = Some(id.clone());
                true
            }
            MessageKind::Response => entry
                .answers()
                .and_then(|r| self.ids[r].as_ref())
                .is_some_and(|sent| json_eq(sent, id)),
            MessageKind::Notification => false,
        }
    }

    /// Writes the live progress token at `at` in `message` as the fixture's `recorded`
    /// one, when the two stand for each other one for one; `false` when they do not.
    fn token(&mut self, message: &mut Value, at: &[&str], recorded: Option<&Value>) -> bool {
        let Some(token) = message.pointer_mut(&at.concat()) else {
            return recorded.is_none();
        };
        let Some(recorded) = recorded else {
            return false;
        };
        let pair = self
            .tokens
            .iter()
            .find(|(l, r)| json_eq(l, token) || json_eq(r, recorded));
        match pair {
            Some((l, r)) if json_eq(l, token) && json_eq(r, recorded) => {}
            Some(_) => return false,
            None => self.tokens.push((token.clone(), recorded.clone())),
        }
        *token = recorded.clone();
        true
    }
}

/// [`same_exchange`] for one line the fast path did not take: parsed, its id and progress
/// token taken, normalized as its side's, compared with entry `e`.
fn same_line(
    rules: &Rules,
    expected: &Expected<'_>,
    live: &mut Live,
    e: usize,
    line: &str,
) -> bool {
    let entry = &expected.entries()[e];
    let Ok(mut message) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    match (MessageKind::of(&message), message.get("id").cloned()) {
        (Ok(kind), _) if kind != entry.kind() => return false,
        (Ok(MessageKind::Notification), None) => {}
        (Ok(_), Some(id)) if live.id(e, entry, &id) => {}
        _ => return false,
    }
    // A progress token is the client's to choose: the fixture numbers them.
    let at: &[&str] = match entry.method() {
        Some("notifications/progress") => &["/params", "/progressToken"],
        Some(_) => &["/params", "/_meta", "/progressToken"],
        None => &[],
    };
    if !at.is_empty() {
        let recorded = entry.message().pointer(&at.concat()).cloned();
        if !live.token(&mut message, at, recorded.as_ref()) {
            return false;
        }
    }
    match entry.direction() {
        Direction::ClientToServer => {
            rules.normalize_client(&mut message);
            expected.sent(entry);
        }
        Direction::ServerToClient => {
            rules.normalize_server(&mut message);
            expected.pseudonymize(&mut message);
        }
    }
    expected.matches(e, &message, entry.id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::diff::diff;
    use crate::data::fixture::Fixture;
    use crate::lifecycle::record::fixture_from_exchange;

    const C: Direction = Direction::ClientToServer;
    const S: Direction = Direction::ServerToClient;

    /// A session of a client that sends a progress token, a call, a progress notification,
    /// and a listing, with live ids and tokens.
    fn session(first_id: i64, token: &str) -> Vec<(Direction, String)> {
        let a = first_id;
        let b = first_id + 1;
        vec![
            (
                C,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{a},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
                ),
            ),
            (
                S,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{a},"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
                ),
            ),
            (
                C,
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
            ),
            (
                C,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{b},"method":"tools/call","params":{{"_meta":{{"progressToken":"{token}"}},"name":"echo","arguments":{{"text":"hi"}}}}}}"#
                ),
            ),
            (
                S,
                format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"{token}","progress":1}}}}"#
                ),
            ),
            (
                S,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{b},"result":{{"content":[{{"type":"text","text":"hi"}}]}}}}"#
                ),
            ),
            (
                C,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":"tools/list"}}"#,
                    b + 1
                ),
            ),
            (
                S,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{{"tools":[]}}}}"#,
                    b + 1
                ),
            ),
        ]
    }

    fn recording(lines: &[(Direction, String)], rules: &Rules) -> Option<Fixture> {
        let messages = lines
            .iter()
            .map(|(d, l)| (*d, serde_json::from_str(l).unwrap()));
        fixture_from_exchange(messages, rules, "t.jsonl").ok()
    }

    fn recorded(lines: &[(Direction, String)], rules: &Rules) -> Fixture {
        recording(lines, rules).expect("a recording")
    }

    /// `true` only where the recording of the same exchange differs in nothing.
    fn agrees(fixture: &Fixture, lines: &[(Direction, String)], rules: &Rules) -> bool {
        let same = same_exchange(rules, fixture.entries(), lines);
        // An exchange that cannot be recorded (an answer to no request) is not clean.
        let clean = recording(lines, rules)
            .is_some_and(|new| diff(fixture, &new, rules).mismatches().is_empty());
        assert!(
            !same || clean,
            "said the same, but the diff finds differences"
        );
        same
    }

    #[test]
    fn another_run_with_other_ids_and_tokens_is_the_fixture_s() {
        let rules = Rules::default();
        let fixture = recorded(&session(0, "tok-1"), &rules);
        assert!(agrees(&fixture, &session(7, "p-99"), &rules));
        assert!(agrees(&fixture, &session(0, "tok-1"), &rules));
    }

    #[test]
    fn a_difference_or_a_pairing_not_the_fixture_s_is_left_to_the_diff() {
        let rules = Rules::default();
        let fixture = recorded(&session(0, "t"), &rules);
        let changed = |i: usize, from: &str, to: &str| {
            let mut lines = session(0, "t");
            lines[i].1 = lines[i].1.replace(from, to);
            lines
        };
        for lines in [
            changed(5, r#""text":"hi""#, r#""text":"ho""#),
            changed(3, r#""text":"hi""#, r#""text":"ho""#),
            // The answer to the call under the listing's id.
            changed(5, r#""id":1"#, r#""id":2"#),
            // A progress notification for a token nobody sent.
            changed(4, r#""progressToken":"t""#, r#""progressToken":"u""#),
            changed(6, "tools/list", "prompts/list"),
        ] {
            assert!(!agrees(&fixture, &lines, &rules), "{lines:?}");
        }
        let mut shorter = session(0, "t");
        shorter.pop();
        assert!(!agrees(&fixture, &shorter, &rules));
        let mut swapped = session(0, "t");
        swapped.swap(4, 5);
        assert!(!same_exchange(&rules, fixture.entries(), &swapped));
    }

    #[test]
    fn one_token_for_two_of_the_fixture_s_is_not_the_same() {
        let rules = Rules::default();
        let mut lines = session(0, "a");
        lines.push((C, r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"_meta":{"progressToken":"b"},"name":"echo","arguments":{"text":"hi"}}}"#.into()));
        lines.push((
            S,
            r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"hi"}]}}"#.into(),
        ));
        let fixture = recorded(&lines, &rules);
        let reused = lines
            .iter()
            .map(|(d, l)| {
                (
                    *d,
                    l.replace(r#""progressToken":"b""#, r#""progressToken":"a""#),
                )
            })
            .collect::<Vec<_>>();
        assert!(!agrees(&fixture, &reused, &rules));
        assert!(agrees(&fixture, &lines, &rules));
    }

    #[test]
    fn a_minted_value_the_client_sends_back_is_left_to_the_recording() {
        let rules = Rules::default();
        let lines = |id: &str| {
            vec![
                (C, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create","arguments":{}}}"#.to_owned()),
                (S, format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[],"structuredContent":{{"id":"{id}"}}}}}}"#)),
                (C, format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"get","arguments":{{"id":"{id}"}}}}}}"#)),
                (S, r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#.to_owned()),
            ]
        };
        let fixture = recorded(&lines("note-00000001"), &rules);
        assert!(fixture.to_jsonl().contains("<MINTED:1>"));
        assert!(!same_exchange(
            &rules,
            fixture.entries(),
            &lines("note-00000002")
        ));
        // A UUID is a placeholder of the default rules, not bound: any run's is the same.
        let fixture = recorded(&lines("7f3a9c2e-41b2-4c8e-9d1f-0a6b5e4c3d21"), &rules);
        assert!(agrees(
            &fixture,
            &lines("0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"),
            &rules
        ));
    }
}
