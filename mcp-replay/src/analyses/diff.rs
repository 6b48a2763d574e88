//! What changed between two fixtures: the contract one exchange pins against the contract
//! another pins (a fixture before and after a re-recording, on two branches, at two
//! revisions), reported with the same [`MismatchKind`]s as a replay.
//!
//! ```
//! use mcp_replay::_support::diff;
//! use mcp_replay::{Fixture, MismatchKind, Rules};
//!
//! use serde_json::json;
//!
//! let fixture = |answer: &str| {
//!     let call = json!({"direction": "client->server", "message": {"jsonrpc": "2.0",
//!         "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "echo"}}});
//!     let reply = json!({"direction": "server->client", "message": {"jsonrpc": "2.0",
//!         "id": "<REQUEST_ID>", "result": {"content": [{"type": "text", "text": answer}]}}});
//!     Fixture::parse(&format!("{call}\n{reply}\n")).unwrap()
//! };
//! let (old, new) = (fixture("hi"), fixture("echo: hi"));
//!
//! let diff = diff::diff(&old, &new, &Rules::default());
//! assert_eq!(diff.mismatches().len(), 1);
//! assert_eq!(diff.mismatches()[0].kind(), MismatchKind::Result);
//! assert_eq!(diff.mismatches()[0].differences()[0].path(), ".result.content[0].text");
//! // No contract class (a tool's output is not a listing): it fails at every threshold.
//! assert!(diff.fails_at(mcp_replay::contract::Class::Breaking));
//! ```
//!
//! **How messages are paired.** Both fixtures are normalized with the same rules first
//! (the placeholders of timestamps, UUIDs, paths, ids make no difference). Then:
//!
//! - the client's requests by method, in order, the *n*-th `tools/call` of a tool (its
//!   `name`; a `prompts/get` by `name`, a `resources/read` by `uri`) with the *n*-th call of
//!   the same tool: a request only one side has is `missing` (only OLD) or `unexpected`
//!   (only NEW), a pair whose params differ is `params`;
//! - the responses by the request they answer: a pair that differs is `result`, and for a
//!   request of [`CONTRACT_METHODS`] its
//!   [`changes`](Mismatch::changes) are filled with their contract classes;
//! - notifications and server requests (either side's) by method, in order; the server's
//!   messages that both sides have but in another order are one `notification order`
//!   finding; the client's answers to server requests by the request they answer.
//!
//! In a finding, *expected* is OLD's message and *actual* NEW's, and
//! [`line`](Mismatch::line) is the line in NEW, or in OLD for a `missing` finding; its
//! summary names both lines.

use crate::analyses::contract::{self, Class, CONTRACT_METHODS};
use crate::data::fixture::{item_of, Direction, Entry, Fixture, MessageKind};
use crate::data::json::json_eq;
use crate::findings::report::{Mismatch, MismatchKind};
use crate::rules::Rules;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// The findings of comparing an OLD fixture with a NEW one ([`diff`]).
#[derive(Debug, Clone)]
pub struct Diff {
    pub(crate) old: String,
    pub(crate) new: String,
    pub(crate) mismatches: Vec<Mismatch>,
}

impl Diff {
    /// `true` when NEW pins exactly what OLD pins.
    pub fn is_ok(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// Every finding, in the order of the exchange.
    pub fn mismatches(&self) -> &[Mismatch] {
        &self.mismatches
    }

    /// The OLD fixture's name (its [`source`](Fixture::source)).
    pub fn old_source(&self) -> &str {
        &self.old
    }

    /// The NEW fixture's name.
    pub fn new_source(&self) -> &str {
        &self.new
    }

    /// Names the two sides as given on a command line (`HEAD:fixtures/a.jsonl`), in place
    /// of the fixtures' sources.
    pub fn with_names(mut self, old: impl Into<String>, new: impl Into<String>) -> Diff {
        self.old = old.into();
        self.new = new.into();
        self
    }

    /// The same findings, the most severe first ([`severity`], in [`Class`]'s order), in
    /// the order of the exchange within a class: what `mcp-replay review` shows.
    pub fn most_severe_first(mut self) -> Diff {
        self.mismatches
            .sort_by_key(|m| std::cmp::Reverse(severity(m)));
        self
    }

    /// The most severe [`severity`] among the findings (in [`Class`]'s order: `breaking`
    /// above `unknown`), `None` when there are none.
    pub fn class(&self) -> Option<Class> {
        self.mismatches.iter().map(severity).max()
    }

    /// Does some finding reach `threshold` (see [`reaches`])? `mcp-replay diff --fail-on`
    /// exits 1 exactly then.
    pub fn fails_at(&self, threshold: Class) -> bool {
        self.mismatches
            .iter()
            .any(|m| reaches(severity(m), threshold))
    }

    /// This diff as one entry of an [`output::document`](crate::findings::output::document)'s
    /// `fixtures`, gated at `threshold`: `fixture` (NEW), `old`, `ok` (no finding reaches
    /// `threshold`), `changed` (any finding at all), `fail_on`, `class` (the most severe
    /// [`severity`], or `null`), and the `findings`
    /// ([`Mismatch::to_json`](crate::Mismatch::to_json), each with its `severity`).
    pub fn to_json(&self, threshold: Class) -> Value {
        let findings: Vec<Value> = self
            .mismatches
            .iter()
            .map(|m| {
                let mut f = m.to_json();
                f["severity"] = Value::String(severity(m).name().into());
                f
            })
            .collect();
        serde_json::json!({
            "fixture": self.new,
            "old": self.old,
            "ok": !self.fails_at(threshold),
            "changed": !self.is_ok(),
            "fail_on": threshold.name(),
            "class": self.class().map(Class::name),
            "findings": findings,
        })
    }
}

/// What a finding means for a gate: its contract [`class`](Mismatch::class) when it has
/// [`changes`](Mismatch::changes), else [`Class::Unknown`]: a finding the classifier does
/// not judge (a changed `tools/call` result, a message gone or added, other params, a
/// listing answered with an error) is never taken for compatible.
pub fn severity(m: &Mismatch) -> Class {
    m.class().unwrap_or(Class::Unknown)
}

/// Does a finding of class `class` reach the gate `threshold`? [`Class::reaches`]: a class
/// at or above it does, and [`Class::Unknown`] reaches every gate.
pub fn reaches(class: Class, threshold: Class) -> bool {
    class.reaches(threshold)
}

/// Compares `old` with `new`, both normalized with `rules` first (see the
/// [module](self) for how messages are paired).
pub fn diff(old: &Fixture, new: &Fixture, rules: &Rules) -> Diff {
    let sides = [Side::new(old, rules), Side::new(new, rules)];
    let pairing = Pairing::of(&sides);
    let mut pass = Pass::new(&sides, &pairing.pairs);
    for &(o, n) in &pairing.pairs {
        pass.compare_params(o, n);
        pass.compare_answers(o, n);
    }
    for &o in &pairing.only_old {
        pass.gone(o);
    }
    for &n in &pairing.only_new {
        pass.added(n);
    }
    if let Some((place, m)) = order(&sides, &pairing.pairs) {
        pass.findings.push(place, m);
    }
    Diff {
        old: old.source().to_owned(),
        new: new.source().to_owned(),
        mismatches: pass.findings.sorted(),
    }
}

/// Which requests and notifications of OLD and NEW go together: the pairs (OLD's entry,
/// NEW's entry) in OLD's order, and the entries only one side has.
#[derive(Default)]
struct Pairing {
    pairs: Vec<(usize, usize)>,
    only_old: Vec<usize>,
    only_new: Vec<usize>,
}

impl Pairing {
    /// Pairs the *n*-th message of a key in OLD with the *n*-th of the same key in NEW,
    /// OLD's keys first, then the keys only NEW has; what is left over is one side's only.
    fn of(sides: &[Side; 2]) -> Pairing {
        let (old_keys, mut old_groups) = groups(&sides[0]);
        let (new_keys, mut new_groups) = groups(&sides[1]);
        let new_only_keys: Vec<Key> = new_keys
            .into_iter()
            .filter(|k| !old_groups.contains_key(k))
            .collect();
        let mut pairing = Pairing::default();
        for key in old_keys.iter().chain(&new_only_keys) {
            let o = old_groups.remove(key).unwrap_or_default();
            let n = new_groups.remove(key).unwrap_or_default();
            pairing
                .pairs
                .extend(o.iter().copied().zip(n.iter().copied()));
            pairing.only_old.extend(o.iter().skip(n.len()).copied());
            pairing.only_new.extend(n.iter().skip(o.len()).copied());
        }
        pairing.pairs.sort();
        pairing
    }
}

/// A side's requests and notifications grouped by key, each group in order, with the keys
/// in the order they first come.
fn groups(side: &Side) -> (Vec<Key>, HashMap<Key, Vec<usize>>) {
    let mut keys: Vec<Key> = Vec::new();
    let mut by_key: HashMap<Key, Vec<usize>> = HashMap::new();
    for (i, entry) in side.entries.iter().enumerate() {
        if entry.kind() == MessageKind::Response {
            continue;
        }
        let key = key_of(entry, &side.messages[i]);
        by_key
            .entry(key.clone())
            .or_insert_with(|| {
                keys.push(key);
                Vec::new()
            })
            .push(i);
    }
    (keys, by_key)
}

/// One comparison under way: the two sides, which OLD entry each paired NEW entry matches,
/// and the findings so far.
struct Pass<'a> {
    sides: &'a [Side<'a>; 2],
    new_to_old: HashMap<usize, usize>,
    findings: Findings,
}

impl<'a> Pass<'a> {
    /// A pass over `sides` with no finding yet, `pairs` being what [`Pairing`] paired.
    fn new(sides: &'a [Side<'a>; 2], pairs: &[(usize, usize)]) -> Pass<'a> {
        Pass {
            sides,
            new_to_old: pairs.iter().map(|&(o, n)| (n, o)).collect(),
            findings: Findings::default(),
        }
    }

    /// Where what only NEW has (its entry `j`) goes: after the OLD message that NEW's
    /// previous paired message matches.
    fn anchor(&self, j: usize) -> Option<usize> {
        (0..j).rev().find_map(|k| self.new_to_old.get(&k).copied())
    }

    /// A `params` finding when the paired request or notification (OLD's `o`, NEW's `n`)
    /// has other params.
    fn compare_params(&mut self, o: usize, n: usize) {
        let [old, new] = self.sides;
        let (oe, ne) = (&old.entries[o], &new.entries[n]);
        let expected = &old.messages[o];
        let actual = relabel(&new.messages[n], expected);
        if !json_eq(expected, &actual) {
            self.findings.push(
                Place::At(o),
                Mismatch::new(
                    MismatchKind::Params,
                    Some(ne.line()),
                    format!("{} has other params", describe(oe, Some(o_n(oe, ne)))),
                )
                .compare(expected, &actual),
            );
        }
    }

    /// The findings about the answers to a paired request (OLD's `o`, NEW's `n`): they
    /// differ, or only one side has one.
    fn compare_answers(&mut self, o: usize, n: usize) {
        match (self.sides[0].answer(o), self.sides[1].answer(n)) {
            (Some(ro), Some(rn)) => self.answers_differ(o, ro, rn),
            (Some(ro), None) => self.answer_gone(o, n, ro),
            (None, Some(rn)) => self.answer_added(o, rn),
            (None, None) => {}
        }
    }

    /// A `result` finding when OLD's answer `ro` to request `o` and NEW's answer `rn`
    /// differ, with the contract changes for a request of [`CONTRACT_METHODS`].
    fn answers_differ(&mut self, o: usize, ro: usize, rn: usize) {
        let [old, new] = self.sides;
        let oe = &old.entries[o];
        let expected = &old.messages[ro];
        let actual = relabel(&new.messages[rn], expected);
        if json_eq(expected, &actual) {
            return;
        }
        let method = oe.method().unwrap_or("?");
        let name = oe.request_name();
        let whose = match oe.direction() {
            Direction::ClientToServer => "the response to",
            Direction::ServerToClient => "the client's answer to",
        };
        let lines = o_n(&old.entries[ro], &new.entries[rn]);
        let mut m = Mismatch::new(
            MismatchKind::Result,
            Some(new.entries[rn].line()),
            format!("{whose} `{name}` ({lines}) differs"),
        );
        m = match oe.direction() {
            Direction::ClientToServer => m.compare_response(method, expected, &actual).request(oe),
            Direction::ServerToClient => m.compare(expected, &actual),
        };
        if oe.direction() == Direction::ClientToServer && CONTRACT_METHODS.contains(&method) {
            if let (Some(e), Some(a)) = (expected.get("result"), actual.get("result")) {
                m.changes = contract::changes(method, e, a);
            }
        }
        self.findings.push(Place::At(ro), m);
    }

    /// A `missing` finding: OLD answers request `o` (with `ro`), NEW's request `n` has no
    /// answer.
    fn answer_gone(&mut self, o: usize, n: usize, ro: usize) {
        let [old, new] = self.sides;
        let method = old.entries[o].method().unwrap_or("?");
        self.findings.push(
            Place::At(ro),
            Mismatch::new(
                MismatchKind::Missing,
                Some(old.entries[ro].line()),
                format!(
                    "the answer to `{method}` (old line {}) is gone: the new request (line {}) has none",
                    old.entries[ro].line(),
                    new.entries[n].line()
                ),
            )
            .expected(&old.messages[ro]),
        );
    }

    /// An `unexpected` finding: NEW answers the request (with `rn`) that OLD's `o` leaves
    /// unanswered.
    fn answer_added(&mut self, o: usize, rn: usize) {
        let [old, new] = self.sides;
        let oe = &old.entries[o];
        let method = oe.method().unwrap_or("?");
        let place = Place::After(self.anchor(rn), rn);
        self.findings.push(
            place,
            Mismatch::new(
                MismatchKind::Unexpected,
                Some(new.entries[rn].line()),
                format!(
                    "the new fixture answers `{method}` (new line {}), which the old one leaves unanswered (line {})",
                    new.entries[rn].line(),
                    oe.line()
                ),
            )
            .actual(&new.messages[rn]),
        );
    }

    /// A `missing` finding for OLD's entry `o`, which NEW does not have.
    fn gone(&mut self, o: usize) {
        let old = &self.sides[0];
        let e = &old.entries[o];
        let and_answer = if old.answer(o).is_some() {
            " and its answer are"
        } else {
            " is"
        };
        self.findings.push(
            Place::At(o),
            Mismatch::new(
                MismatchKind::Missing,
                Some(e.line()),
                format!(
                    "{}{and_answer} gone: the new fixture has no {}",
                    describe(e, Some(format!("old line {}", e.line()))),
                    describe(e, None)
                ),
            )
            .expected(&old.messages[o]),
        );
    }

    /// An `unexpected` finding for NEW's entry `n`, which OLD does not have.
    fn added(&mut self, n: usize) {
        let new = &self.sides[1];
        let e = &new.entries[n];
        let with_answer = if new.answer(n).is_some() {
            " (and its answer)"
        } else {
            ""
        };
        let place = Place::After(self.anchor(n), n);
        self.findings.push(
            place,
            Mismatch::new(
                MismatchKind::Unexpected,
                Some(e.line()),
                format!(
                    "the new fixture has {}{with_answer}, which the old one does not",
                    describe(e, Some(format!("new line {}", e.line())))
                ),
            )
            .actual(&new.messages[n]),
        );
    }
}

/// One side of a diff: its entries, their normalized messages, who answers what.
struct Side<'a> {
    entries: &'a [Entry],
    messages: Vec<Value>,
    answers: HashMap<usize, usize>,
}

impl<'a> Side<'a> {
    fn new(fixture: &'a Fixture, rules: &Rules) -> Side<'a> {
        let entries = fixture.entries();
        let messages = entries
            .iter()
            .map(|e| {
                let mut message = e.message();
                match e.direction() {
                    Direction::ClientToServer => rules.normalize_client(&mut message),
                    Direction::ServerToClient => rules.normalize_server(&mut message),
                }
                message
            })
            .collect();
        let answers = entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((e.answers()?, i)))
            .collect();
        Side {
            entries,
            messages,
            answers,
        }
    }

    /// The response to request entry `i`, if the fixture has one.
    fn answer(&self, i: usize) -> Option<usize> {
        self.answers.get(&i).copied()
    }
}

/// What pairs a request or notification with its counterpart: who sends it, its shape, its
/// method, and for a call of a named item the item.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    direction: Direction,
    request: bool,
    method: String,
    item: Option<String>,
}

fn key_of(entry: &Entry, message: &Value) -> Key {
    let method = entry.method().unwrap_or_default().to_owned();
    let item = (entry.direction() == Direction::ClientToServer)
        .then(|| item_of(&method, message))
        .flatten();
    Key {
        direction: entry.direction(),
        request: entry.kind() == MessageKind::Request,
        method,
        item,
    }
}

/// `new` with `expected`'s id: labels are numbered per fixture, so they are not compared.
fn relabel(new: &Value, expected: &Value) -> Value {
    let mut new = new.clone();
    if let (Some(id), Some(map)) = (expected.get("id"), new.as_object_mut()) {
        if map.contains_key("id") {
            map.insert("id".into(), id.clone());
        }
    }
    new
}

/// `old line 3, new line 4`, or `line 3` when they are the same.
fn o_n(old: &Entry, new: &Entry) -> String {
    if old.line() == new.line() {
        format!("line {}", old.line())
    } else {
        format!("old line {}, new line {}", old.line(), new.line())
    }
}

/// `request `tools/call` `divide`` or ``notifications/progress``, with `where` in brackets.
fn describe(entry: &Entry, place: Option<String>) -> String {
    let method = entry.method().unwrap_or("?");
    let what = match (entry.kind(), entry.direction()) {
        (MessageKind::Request, Direction::ClientToServer) => format!("request `{method}`"),
        (MessageKind::Request, Direction::ServerToClient) => {
            format!("the server's request `{method}`")
        }
        (_, Direction::ClientToServer) => format!("the client's `{method}`"),
        _ => format!("`{method}`"),
    };
    let item = match entry.direction() {
        Direction::ClientToServer => item_of(method, &entry.message()),
        Direction::ServerToClient => None,
    };
    match (item, place) {
        (Some(item), Some(place)) => format!("{what} ({item:?}, {place})"),
        (Some(item), None) => format!("{what} ({item:?})"),
        (None, Some(place)) => format!("{what} ({place})"),
        (None, None) => what,
    }
}

/// The one *notification order* finding: the server's notifications and requests that
/// both fixtures have, in another order in NEW.
fn order(sides: &[Side; 2], pairs: &[(usize, usize)]) -> Option<(Place, Mismatch)> {
    let server: Vec<(usize, usize)> = pairs
        .iter()
        .copied()
        .filter(|&(o, _)| sides[0].entries[o].direction() == Direction::ServerToClient)
        .collect();
    let mut by_new = server.clone();
    by_new.sort_by_key(|&(_, n)| n);
    if by_new == server {
        return None;
    }
    let name = |&(o, n): &(usize, usize)| {
        let (oe, ne) = (&sides[0].entries[o], &sides[1].entries[n]);
        format!(
            "`{}` (old line {}, new line {})",
            oe.method().unwrap_or("?"),
            oe.line(),
            ne.line()
        )
    };
    // Only the messages whose place changed, with their neighbours kept out.
    let moved: Vec<usize> = (0..server.len())
        .filter(|&i| server[i] != by_new[i])
        .collect();
    let old_order: Vec<String> = moved.iter().map(|&i| name(&server[i])).collect();
    let new_order: Vec<String> = moved.iter().map(|&i| name(&by_new[i])).collect();
    let first = server[moved[0]];
    Some((
        Place::At(first.0),
        Mismatch::new(
            MismatchKind::NotificationOrder,
            Some(sides[1].entries[first.1].line()),
            format!(
                "the server's messages come in another order\n    old order: {}\n    new order: {}",
                old_order.join(", "),
                new_order.join(", ")
            ),
        ),
    ))
}

/// Where a finding goes in the report: at an OLD entry, or (for what only NEW has) after
/// the OLD entry that NEW's previous paired message matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    At(usize),
    After(Option<usize>, usize),
}

impl Place {
    fn key(self) -> (Option<usize>, u8, usize) {
        match self {
            Place::At(o) => (Some(o), 0, 0),
            Place::After(anchor, n) => (anchor, 1, n),
        }
    }
}

#[derive(Default)]
struct Findings(Vec<(Place, Mismatch)>);

impl Findings {
    fn push(&mut self, place: Place, m: Mismatch) {
        self.0.push((place, m));
    }

    fn sorted(mut self) -> Vec<Mismatch> {
        self.0.sort_by_key(|(p, _)| p.key());
        self.0.into_iter().map(|(_, m)| m).collect()
    }
}

/// `{}` plain text; `{:#}` in color, as [`Report`](crate::Report) writes it.
impl fmt::Display for Diff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_ok() {
            return write!(
                f,
                "mcp-replay diff: {} -> {}: no change",
                self.old, self.new
            );
        }
        writeln!(
            f,
            "mcp-replay diff: {} -> {}: {}",
            self.old,
            self.new,
            crate::findings::output::headline(&self.mismatches)
        )?;
        crate::findings::report::write_findings(f, &self.mismatches, f.alternate())?;
        let class = self.class().unwrap_or(Class::Unknown);
        write!(
            f,
            "\nMost severe class: {class} (a finding without a contract class counts as unknown)"
        )
    }
}

#[cfg(test)]
mod should {
    use super::*;
    use pretty_assertions::assert_eq;

    fn fixture(lines: &[&str]) -> Fixture {
        let text: Vec<String> = lines
            .iter()
            .map(|l| {
                let (dir, msg) = l.split_once(' ').unwrap();
                let dir = if dir == ">" {
                    "client->server"
                } else {
                    "server->client"
                };
                format!("{{\"direction\":\"{dir}\",\"message\":{msg}}}")
            })
            .collect();
        Fixture::parse(&text.join("\n")).unwrap()
    }

    const CALL: &str = r#"> {"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
    const ANSWER: &str = r#"< {"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"hi"}]}}"#;
    const DIVIDE: &str = r#"> {"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"divide","arguments":{"a":1,"b":2}}}"#;
    const HALF: &str = r#"< {"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"0.5"}]}}"#;
    const LOG: &str = r#"< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
    const PROGRESS: &str = r#"< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>"}}"#;

    fn kinds(d: &Diff) -> Vec<MismatchKind> {
        d.mismatches().iter().map(Mismatch::kind).collect()
    }

    #[test]
    fn find_nothing_between_a_fixture_and_itself_or_its_placeholders() {
        let old = fixture(&[CALL, ANSWER]);
        assert!(diff(&old, &old, &Rules::default()).is_ok());
        // A timestamp recorded as is on one side and as a placeholder on the other.
        let stamped = fixture(&[
            CALL,
            &ANSWER.replace("\"hi\"}", "\"2026-01-02T03:04:05Z\"}"),
        ]);
        let placeholder = fixture(&[CALL, &ANSWER.replace("\"hi\"}", "\"<TIMESTAMP>\"}")]);
        let d = diff(&stamped, &placeholder, &Rules::default());
        assert!(d.is_ok(), "{d}");
        // Ids are labels: numbering differs, nothing changed.
        let numbered = fixture(&[
            &CALL.replace("<REQUEST_ID>", "<REQUEST_ID:7>"),
            &ANSWER.replace("<REQUEST_ID>", "<REQUEST_ID:7>"),
        ]);
        assert!(diff(&old, &numbered, &Rules::default()).is_ok());
    }

    #[test]
    fn report_a_changed_result_with_its_path_and_no_class() {
        let old = fixture(&[CALL, ANSWER]);
        let new = fixture(&[CALL, &ANSWER.replace("\"hi\"}", "\"echo: hi\"}")]);
        let d = diff(&old, &new, &Rules::default());
        assert_eq!(kinds(&d), [MismatchKind::Result]);
        let m = &d.mismatches()[0];
        assert_eq!(m.line(), Some(2));
        assert_eq!(
            m.summary(),
            "the response to `tools/call echo` (line 2) differs"
        );
        assert_eq!(m.differences()[0].path(), ".result.content[0].text");
        assert_eq!(m.class(), None);
        assert_eq!(severity(m), Class::Unknown);
        assert!(d.fails_at(Class::Breaking));
        assert!(d.to_string().contains("1 mismatch (1 result)"), "{d}");
    }

    #[test]
    fn pair_calls_by_tool_so_a_removed_call_is_one_missing_finding() {
        let old = fixture(&[CALL, ANSWER, DIVIDE, HALF]);
        let new = fixture(&[DIVIDE, HALF]);
        let d = diff(&old, &new, &Rules::default());
        assert_eq!(kinds(&d), [MismatchKind::Missing], "{d}");
        assert_eq!(
            d.mismatches()[0].summary(),
            "request `tools/call` (\"echo\", old line 1) and its answer are gone: the new fixture has no request `tools/call` (\"echo\")"
        );
        let d = diff(&new, &old, &Rules::default());
        assert_eq!(kinds(&d), [MismatchKind::Unexpected], "{d}");
        assert_eq!(d.mismatches()[0].line(), Some(1));
    }

    #[test]
    fn report_other_params_missing_notifications_and_another_order() {
        let old = fixture(&[CALL, LOG, PROGRESS, ANSWER]);
        let new = fixture(&[&CALL.replace("\"hi\"}", "\"ho\"}"), PROGRESS, LOG, ANSWER]);
        let d = diff(&old, &new, &Rules::default());
        assert_eq!(
            kinds(&d),
            [MismatchKind::Params, MismatchKind::NotificationOrder],
            "{d}"
        );
        assert!(d.mismatches()[1]
            .summary()
            .contains("old order: `notifications/message` (old line 2, new line 3), `notifications/progress` (old line 3, new line 2)"), "{d}");
        let d = diff(&old, &fixture(&[CALL, LOG, ANSWER]), &Rules::default());
        assert_eq!(kinds(&d), [MismatchKind::Missing], "{d}");
        assert_eq!(d.mismatches()[0].line(), Some(3));
    }

    #[test]
    fn pair_server_requests_by_method_and_the_clients_answers_by_request() {
        const ROOTS: &str =
            r#"< {"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:1>","method":"roots/list"}"#;
        const NONE: &str =
            r#"> {"jsonrpc":"2.0","id":"<SERVER_REQUEST_ID:1>","result":{"roots":[]}}"#;
        let old = fixture(&[CALL, ROOTS, NONE, ANSWER]);
        let new = fixture(&[
            CALL,
            &ROOTS.replace(":1>", ":4>"),
            &NONE
                .replace(":1>", ":4>")
                .replace("[]", r#"[{"uri":"file:///x"}]"#),
            ANSWER,
        ]);
        let d = diff(&old, &new, &Rules::default());
        assert_eq!(kinds(&d), [MismatchKind::Result], "{d}");
        assert_eq!(
            d.mismatches()[0].summary(),
            "the client's answer to `roots/list` (line 3) differs"
        );
        assert_eq!(
            d.mismatches()[0].differences()[0].path(),
            ".result.roots[0]"
        );
    }

    #[test]
    fn gate_and_show_the_classes_a_classifier_gives() {
        let m = |class| {
            let mut m = Mismatch::new(MismatchKind::Result, Some(5), "the response differs");
            m.changes = vec![contract::Change {
                class,
                description: "tool `added` added".into(),
                path: ".tools[5]".into(),
            }];
            m
        };
        let compatible = Diff {
            old: "a".into(),
            new: "b".into(),
            mismatches: vec![m(Class::Compatible)],
        };
        assert!(!compatible.fails_at(Class::Breaking));
        assert!(compatible.fails_at(Class::Compatible));
        assert_eq!(compatible.class(), Some(Class::Compatible));
        let json = compatible.to_json(Class::Breaking);
        assert_eq!(json["ok"], true);
        assert_eq!(json["changed"], true);
        assert_eq!(json["findings"][0]["class"], "compatible");
        assert_eq!(json["findings"][0]["severity"], "compatible");
        assert_eq!(json["findings"][0]["changes"][0]["path"], ".tools[5]");
        let text = compatible.to_string();
        // Once, under the finding, as a replay's report shows it.
        assert_eq!(
            text.matches("compatible: tool `added` added").count(),
            1,
            "{text}"
        );
        // Unknown outranks compatible for the gate, breaking too.
        let mixed = Diff {
            mismatches: vec![m(Class::Compatible), m(Class::Unknown)],
            ..compatible.clone()
        };
        assert!(mixed.fails_at(Class::Breaking));
        assert_eq!(mixed.class(), Some(Class::Unknown));
    }

    #[test]
    fn name_breaking_the_most_severe_class_beside_an_unknown_finding_in_either_order() {
        let breaking = {
            let mut m = Mismatch::new(MismatchKind::Result, Some(2), "the response differs");
            m.changes = vec![contract::Change {
                class: Class::Breaking,
                description: "tool `gone` removed".into(),
                path: ".tools[0]".into(),
            }];
            m
        };
        // No contract class: its severity is unknown.
        let unknown = Mismatch::new(MismatchKind::Result, Some(4), "the response differs");
        for mismatches in [
            vec![breaking.clone(), unknown.clone()],
            vec![unknown.clone(), breaking.clone()],
        ] {
            let d = Diff {
                old: "a".into(),
                new: "b".into(),
                mismatches,
            };
            assert_eq!(d.class(), Some(Class::Breaking));
            assert_eq!(d.to_json(Class::Breaking)["class"], "breaking");
            let text = d.to_string();
            assert!(text.contains("\nMost severe class: breaking ("), "{text}");
        }
    }

    #[test]
    fn gate_unknown_at_every_threshold_and_a_class_at_its_own() {
        for t in [Class::Breaking, Class::Compatible, Class::Cosmetic] {
            assert!(reaches(Class::Unknown, t));
            assert!(reaches(Class::Breaking, t));
        }
        assert!(!reaches(Class::Compatible, Class::Breaking));
        assert!(reaches(Class::Compatible, Class::Compatible));
        assert!(!reaches(Class::Cosmetic, Class::Compatible));
        assert!(reaches(Class::Cosmetic, Class::Cosmetic));
    }
}
