//! The replay's fast path for the commonest server message, a response to one of the
//! harness's requests: its canonical text, as [`crate::data::json::write_message`] would write
//! the normalized message, computed without building a `serde_json::Value` tree. The text
//! is written by the same canonical writer as the general path's (`json::write_members`
//! over this module's borrowed tree, a `json::Tree`); what is particular here is only the
//! parse and the decision to answer.
//!
//! It applies the default rules in force that drop a `result` member (`"isError": false`,
//! `"resultType": "complete"`, the caching hints `cacheScope` and `ttlMs`) and the one that
//! rewrites an error's code (`resource-not-found-code`), and otherwise only takes messages
//! the rules leave unchanged: it says `None` for anything else (a request or notification,
//! a string id, a string or key the rules would rewrite, a `result` member a rule replaces
//! such as `requestState`, a session id, a duplicate key, invalid JSON), and the replay then
//! takes the general path. The rules themselves are not coded here: the `result` rules are
//! `defaults::RESULT_RULES`, the error code's `defaults::rewritten_code`, the string rules
//! `general::normalize_str`, the session-id rule `defaults::is_session_id_key`, which
//! rules are in force `defaults::Defaults::in_force`, each consulted by the general path
//! too.
//! The property tests below check that whenever it answers, it answers exactly what the
//! general path (`parse`, `normalize_server`, `write_message`) gives; the `fast_path` fuzz
//! target checks the same on arbitrary lines.

use super::defaults::{
    is_session_id_key, rewritten_code, Defaults, RESULT_RULES, SERVER_INFO_META, TASK_KEY,
    TRACE_META,
};
use super::general::normalize_str;
use super::paths::Paths;
use crate::data::json::{write_members, Shape, Tree, MESSAGE_KEY_ORDER};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A response's canonical normalized text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FastResponse {
    /// Its id (always an integer here).
    pub id: i64,
    /// The canonical text, id included.
    pub text: String,
    /// Where the id's text ends in `text` (it starts right after `{"jsonrpc":"2.0","id":`).
    pub id_end: usize,
    /// It has `error`, not `result`.
    pub is_error: bool,
    /// Its result is a tool result of text blocks alone ([`text_blocks_only`]): a shape the
    /// protocol check knows is a valid `CallToolResult` without reading it again.
    pub text_blocks: bool,
}

/// How the canonical text of every request and response starts (`jsonrpc` is validated,
/// the id comes next).
pub(crate) const HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;

/// The canonical text of `line`, normalized by `defaults` (`None` when no rule applies at
/// all), when it is a response with an integer id that the rules leave unchanged but for
/// dropped `result` members and a rewritten error code.
pub(crate) fn response(line: &str, defaults: Option<&Defaults>) -> Option<FastResponse> {
    let mut members = settled(line, defaults)?;
    if let Some(defaults) = defaults {
        apply_result_and_error_rules(&mut members, defaults);
    }
    let envelope = envelope_of(&members);
    let [jsonrpc, id, method, _params, result, error] = envelope;
    match jsonrpc {
        Some(Node::String(v)) if v == "2.0" => {}
        _ => return None,
    }
    let id = match id {
        Some(Node::Number(n)) => n.as_i64()?,
        _ => return None,
    };
    if method.is_some() || result.is_some() == error.is_some() {
        return None;
    }
    if let Some(Node::Object(result)) = result {
        // A member a rule replaces (`requestState`) is the general path's: the replay
        // keeps the server's value.
        if result
            .iter()
            .any(|(k, _)| RESULT_RULES.iter().any(|rule| rule.pins(k)))
        {
            return None;
        }
        // So is a server's identity in a result's `_meta` (`server-identity`).
        if defaults.is_some_and(|d| d.in_force("server-identity")) && names_the_server(result) {
            return None;
        }
        // And a trace context in its `_meta` (`trace-context`).
        if defaults.is_some_and(|d| d.in_force("trace-context")) && has_trace_context(result) {
            return None;
        }
    }
    let text_blocks = matches!(result, Some(Node::Object(result)) if text_blocks_only(result));
    let (text, id_end) = canonical(&members, envelope, line.len());
    Some(FastResponse {
        id,
        text,
        id_end,
        is_error: error.is_some(),
        text_blocks,
    })
}

/// A client request's canonical normalized text, in a [`FastResponse`] (`is_error` and
/// `text_blocks` false), when the client's default rules leave it unchanged: an integer
/// id, not `initialize` (the client's identity is rewritten), no `_meta` or
/// `requestState` in its params (identities, progress tokens and state the recording
/// labels), no string or key a rule rewrites. `None` otherwise: the general path decides.
/// What a test whose body is the client compares its client's lines with
/// (`engine::replay::same_exchange`).
pub(crate) fn request(line: &str, defaults: Option<&Defaults>) -> Option<FastResponse> {
    let members = settled(line, defaults)?;
    let envelope = envelope_of(&members);
    let [jsonrpc, id, method, params, result, error] = envelope;
    let (Some(Node::String(v)), Some(Node::Number(n)), Some(Node::String(method))) =
        (jsonrpc, id, method)
    else {
        return None;
    };
    let id = n.as_i64()?;
    if v != "2.0" || method == "initialize" || result.is_some() || error.is_some() {
        return None;
    }
    match params {
        None => {}
        Some(Node::Object(params))
            if !params
                .iter()
                .any(|(k, _)| k == "_meta" || k == "requestState") => {}
        Some(_) => return None,
    }
    let (text, id_end) = canonical(&members, envelope, line.len());
    Some(FastResponse {
        id,
        text,
        id_end,
        is_error: false,
        text_blocks: false,
    })
}

/// A JSON-RPC line's members, sorted and settled by the default rules' check (`None`:
/// not an object, a key that repeats, a string or key a rule rewrites).
fn settled<'a>(line: &'a str, defaults: Option<&Defaults>) -> Option<Object<'a>> {
    let Node::Object(mut members) = serde_json::from_str::<Node<'_>>(line).ok()? else {
        return None;
    };
    // Personal data is the session's to number (`normalize/personal/`): a string that
    // holds some (or a pseudonym) is the general path's.
    let check = Check {
        paths: defaults.map(|d| &d.paths),
        personal: defaults.is_some_and(Defaults::personal),
    };
    sort_unique(&mut members)?;
    settle_members(&mut members, check)?;
    Some(members)
}

/// The members of an object, in the parsed tree.
type Object<'a> = Vec<(Cow<'a, str>, Node<'a>)>;

/// The envelope members of sorted `members`, in [`MESSAGE_KEY_ORDER`], in one pass.
fn envelope_of<'m, 'a>(members: &'m [(Cow<'a, str>, Node<'a>)]) -> Envelope<'m, 'a> {
    let mut envelope: Envelope<'m, 'a> = Default::default();
    for (key, value) in members {
        if let Some(i) = MESSAGE_KEY_ORDER.iter().position(|k| k == key) {
            envelope[i] = Some(value);
        }
    }
    envelope
}

/// A message's envelope members, in [`MESSAGE_KEY_ORDER`].
type Envelope<'m, 'a> = [Option<&'m Node<'a>>; MESSAGE_KEY_ORDER.len()];

/// The canonical text of `members` (their envelope first) and where its id ends.
fn canonical(
    members: &[(Cow<'_, str>, Node<'_>)],
    envelope: Envelope<'_, '_>,
    len: usize,
) -> (String, usize) {
    let mut text = String::with_capacity(len);
    // Most messages have only envelope members: then none is looked up again.
    let others = envelope.iter().flatten().count() < members.len();
    let rest = members
        .iter()
        .filter(|(key, _)| others && !MESSAGE_KEY_ORDER.contains(&key.as_ref()))
        .map(|(key, value)| (key.as_ref(), value));
    let id_end = write_members(&mut text, envelope, rest);
    (text, id_end)
}

/// Settles each top-level member of a response by `check` (a string of a protocol key is
/// not personal data); `None` when a rule would change one, which leaves the line to the
/// general path.
fn settle_members(members: &mut [(Cow<'_, str>, Node<'_>)], check: Check<'_>) -> Option<()> {
    for (key, value) in members {
        let below = Check {
            personal: check.personal && !crate::normalize::personal::is_protocol_member(key, true),
            ..check
        };
        if !unchanged(
            key,
            Check {
                personal: false,
                ..check
            },
        ) || !value.settle(below)
        {
            return None;
        }
    }
    Some(())
}

/// The default rules the fast path applies itself: those that drop a `result` member
/// (`is-error-default`, `result-type-default`, `cache-hints`) and the rewritten error
/// code (`resource-not-found-code`), as far as `defaults` has them in force.
fn apply_result_and_error_rules(members: &mut [(Cow<'_, str>, Node<'_>)], defaults: &Defaults) {
    if let Some((_, Node::Object(result))) = members.iter_mut().find(|(k, _)| k == "result") {
        let task = result.iter().any(|(k, _)| k == TASK_KEY);
        result.retain(|(k, v)| {
            !RESULT_RULES
                .iter()
                .any(|rule| rule.drops(k, v, task) && defaults.in_force(rule.name))
        });
    }
    if defaults.in_force("resource-not-found-code") {
        if let Some((_, Node::Object(error))) = members.iter_mut().find(|(k, _)| k == "error") {
            if let Some((_, Node::Number(code))) = error.iter_mut().find(|(k, _)| k == "code") {
                if let Some(modern) = rewritten_code(code) {
                    *code = modern.into();
                }
            }
        }
    }
}

/// Does this `result` name its server in `_meta` (and is it not `server/discover`'s)?
fn names_the_server(result: &[(Cow<'_, str>, Node<'_>)]) -> bool {
    !result.iter().any(|(k, _)| k == "supportedVersions") && result.iter().any(|(k, v)| {
        k == "_meta"
            && matches!(v, Node::Object(meta) if meta.iter().any(|(m, _)| m == SERVER_INFO_META))
    })
}

/// Does this `result`'s `_meta` hold a W3C trace context key (`TRACE_META`)?
fn has_trace_context(result: &[(Cow<'_, str>, Node<'_>)]) -> bool {
    result.iter().any(|(k, v)| {
        k == "_meta"
            && matches!(v, Node::Object(meta)
                if meta.iter().any(|(m, _)| TRACE_META.iter().any(|(key, _)| m == key)))
    })
}

/// Is this (sorted) `result` a tool result of text blocks alone: `content` an array of
/// `{"text": STRING, "type": "text"}` objects, and besides it at most `isError` (a bool),
/// `structuredContent` and `_meta` (objects)? The commonest `tools/call` result. The
/// protocol check takes it as a valid `CallToolResult` of both eras' legacy schema
/// without deserializing it (`validate.rs` tests that the full check agrees).
fn text_blocks_only(result: &[(Cow<'_, str>, Node<'_>)]) -> bool {
    let mut content = false;
    result
        .iter()
        .all(|(key, value)| match (key.as_ref(), value) {
            ("content", Node::Array(blocks)) => {
                content = true;
                blocks.iter().all(|block| match block {
                    Node::Object(m) => matches!(
                        m.as_slice(),
                        [(k1, Node::String(_)), (k2, Node::String(kind))]
                            if k1 == "text" && k2 == "type" && kind == "text"
                    ),
                    _ => false,
                })
            }
            ("isError", Node::Bool(_)) => true,
            ("structuredContent" | "_meta", Node::Object(_)) => true,
            _ => false,
        })
        && content
}

/// Checks the fast path against the general path on `line`, with the default rules of
/// every version (over the example machine's folders), with each switchable rule turned
/// off, and without any rule: where the fast path answers, the general path (serde_json's
/// parse, `normalize_server`, `write_message`) must accept the line and write the same
/// text. `Err` says how they disagree. For the property tests and the fuzzer.
#[cfg(any(test, feature = "internals"))]
pub(crate) fn agrees_with_general(line: &str) -> Result<(), crate::error::Invalid> {
    let mut all: Vec<Option<Defaults>> = (1..=super::defaults::RULES_VERSION)
        .map(|version| Some(Defaults::example(version)))
        .collect();
    for name in super::defaults::SWITCHABLE_RULES {
        let mut defaults = Defaults::example(super::defaults::RULES_VERSION);
        defaults.turn_off(name);
        all.push(Some(defaults));
    }
    all.push(None);
    for defaults in &all {
        let Some(fast) = response(line, defaults.as_ref()) else {
            continue;
        };
        let mut value: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            crate::error::Invalid::new(format!(
                "the fast path took a line serde_json refuses ({e}): {line}"
            ))
        })?;
        if let Some(defaults) = defaults {
            super::general::normalize_server(&mut value, defaults);
        }
        let mut general = String::new();
        crate::data::json::write_message(&mut general, &value);
        if fast.text != general {
            return Err(crate::error::Invalid::new(format!(
                "fast path {:?}, general path {general:?} for {line}",
                fast.text
            )));
        }
        if value.get("id").and_then(serde_json::Value::as_i64) != Some(fast.id)
            || !fast.text[..fast.id_end].starts_with(HEAD)
            || fast.text[HEAD.len()..fast.id_end] != fast.id.to_string()
        {
            return Err(crate::error::Invalid::new(format!(
                "id {} / id_end {} wrong for {line}",
                fast.id, fast.id_end
            )));
        }
    }
    Ok(())
}

/// What [`unchanged`] asks of a string.
#[derive(Clone, Copy)]
struct Check<'a> {
    /// The folders of the `paths` rule; `None`: no default rule is in force.
    paths: Option<&'a Paths>,
    /// Is a category of personal data in force, and may the line hold some?
    personal: bool,
}

/// Would the default rules leave this string (or key) as it is, and is it free of
/// anything the personal data pass finds (a pseudonym included: the session counts it)?
fn unchanged(s: &str, check: Check<'_>) -> bool {
    match check.paths {
        None => true,
        Some(paths) => {
            !is_session_id_key(s)
                && normalize_str(s, paths).is_none()
                && (!check.personal || crate::normalize::personal::find(s, &[true; 6]).is_empty())
        }
    }
}

/// Sorts an object's members by key; `None` when a key repeats (a parsed `Value` keeps
/// the last one: the general path decides).
fn sort_unique(members: &mut [(Cow<'_, str>, Node<'_>)]) -> Option<()> {
    if members.len() <= 8 {
        // By insertion, in place (stable, as `sort_by`): most objects of a response have
        // two or three members, for which the library sort's setup is most of its cost.
        for i in 1..members.len() {
            let mut j = i;
            while j > 0 && members[j - 1].0 > members[j].0 {
                members.swap(j - 1, j);
                j -= 1;
            }
        }
    } else {
        members.sort_by(|a, b| a.0.cmp(&b.0));
    }
    members.windows(2).all(|w| w[0].0 != w[1].0).then_some(())
}

/// `text` (a canonical line: its objects' keys sorted) as a tree borrowing its strings, for
/// a reader that walks a [`Tree`] (the protocol check): no map is built, and a string
/// without escapes is not copied. `None` when it is not JSON.
pub(crate) fn tree(text: &str) -> Option<impl Tree + '_> {
    serde_json::from_str::<Node<'_>>(text).ok()
}

/// A JSON value borrowing its strings from the line where it can.
enum Node<'a> {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl Node<'_> {
    /// Sorts nested objects and checks that the rules leave every string and key as it
    /// is and no key repeats; `false` when not.
    fn settle(&mut self, check: Check<'_>) -> bool {
        match self {
            Node::String(s) => unchanged(s, check),
            Node::Array(items) => items.iter_mut().all(|v| v.settle(check)),
            Node::Object(members) => {
                sort_unique(members).is_some()
                    && members.iter_mut().all(|(k, v)| {
                        // The personal data pass never looks below a protocol key.
                        let below = Check {
                            personal: check.personal
                                && !crate::normalize::personal::is_protocol_member(k, false),
                            ..check
                        };
                        unchanged(
                            k,
                            Check {
                                personal: false,
                                ..check
                            },
                        ) && v.settle(below)
                    })
            }
            Node::Null | Node::Bool(_) | Node::Number(_) => true,
        }
    }
}

impl<'n> Tree for Node<'n> {
    type Members<'a>
        = Members<'a, 'n>
    where
        Self: 'a;

    fn shape(&self) -> Shape<'_, Self> {
        match self {
            Node::Null => Shape::Null,
            Node::Bool(b) => Shape::Bool(*b),
            Node::Number(n) => Shape::Number(n),
            Node::String(s) => Shape::String(s),
            Node::Array(items) => Shape::Array(items),
            // Sorted by `settle` before anything is written.
            Node::Object(members) => Shape::Object(Members(members.iter())),
        }
    }

    /// A string borrowed from the line: serde_json borrows one only when it holds no
    /// escape, and a JSON string without escapes holds no quote, backslash or control
    /// character, nothing the writer escapes.
    fn is_plain_string(&self) -> bool {
        matches!(self, Node::String(Cow::Borrowed(_)))
    }

    /// [`Key`] takes only keys borrowed from the line, which hold no escape.
    const PLAIN_KEYS: bool = true;
}

/// An object's members, as the canonical writer takes them.
struct Members<'a, 'n>(std::slice::Iter<'a, (Cow<'n, str>, Node<'n>)>);

impl<'a, 'n> Iterator for Members<'a, 'n> {
    type Item = (&'a str, &'a Node<'n>);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(key, value)| (key.as_ref(), value))
    }
}

impl<'de> Deserialize<'de> for Node<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Node<'de>, E> {
        Ok(Node::Bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Node<'de>, E> {
        Ok(Node::Number(n.into()))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Node<'de>, E> {
        Ok(Node::Number(n.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Node<'de>, E> {
        serde_json::Number::from_f64(n)
            .map(Node::Number)
            .ok_or_else(|| E::custom("not a finite number"))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Node<'de>, E> {
        Ok(Node::String(Cow::Owned(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        // Room for a few from the start: most arrays and objects in a response are small,
        // and growing from empty costs a call per step.
        let mut items = Vec::with_capacity(4);
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let mut members = Vec::with_capacity(4);
        while let Some(key) = map.next_key::<Key<'de>>()? {
            members.push((key.0, map.next_value()?));
        }
        Ok(Node::Object(members))
    }
}

/// An object key, borrowed from the line: one with an escape (rare) is the general path's,
/// so that every key the fast path writes needs no escaping.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key without escapes")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(s)))
    }
    // A key with an escape reaches serde_json's `visit_str` (it was unescaped into a
    // buffer): the default refuses it, and the general path takes the line.
}

#[cfg(test)]
mod should {
    use super::*;
    use crate::data::json::write_message;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    fn defaults() -> Defaults {
        Defaults::example(crate::normalize::defaults::RULES_VERSION)
    }

    /// What the general path writes for `line`.
    fn general(line: &str, defaults: Option<&Defaults>) -> String {
        let mut value: Value = serde_json::from_str(line).unwrap();
        if let Some(defaults) = defaults {
            crate::normalize::general::normalize_server(&mut value, defaults);
        }
        let mut out = String::new();
        write_message(&mut out, &value);
        out
    }

    #[test]
    fn write_a_plain_response_canonically() {
        let line = r#"{"result":{"content":[{"type":"text","text":"hi \"5\"\n"}],"n":1.50},"id":7,"jsonrpc":"2.0"}"#;
        let fast = response(line, Some(&defaults())).unwrap();
        assert_eq!(fast.id, 7);
        assert_eq!(fast.text, general(line, Some(&defaults())));
        assert_eq!(&fast.text[..fast.id_end], r#"{"jsonrpc":"2.0","id":7"#);
    }

    #[test]
    fn leave_a_key_with_an_escape_to_the_general_path() {
        // Every key the fast path writes goes out without an escape check.
        let line = r#"{"jsonrpc":"2.0","id":1,"result":{"a\u0062":1,"q\"":2}}"#;
        assert!(response(line, Some(&defaults())).is_none());
        assert!(general(line, Some(&defaults())).contains(r#""ab":1,"q\"":2"#));
    }

    #[test]
    fn drop_the_defaults_of_is_error_and_result_type() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"isError":false,"resultType":"complete","n":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"isError":true,"resultType":"input_required"}}"#,
        ] {
            let fast = response(line, Some(&defaults())).unwrap();
            assert_eq!(fast.text, general(line, Some(&defaults())));
        }
    }

    #[test]
    fn drop_the_cache_hints_and_rewrite_the_resource_not_found_code_as_the_version_says() {
        let v1 = Defaults::example(1);
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"cacheScope":"private","tools":[],"ttlMs":0,"resultType":"complete"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","ttlMs":60000,"cacheScope":"private"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"resource not found"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32002.0,"message":"resource not found"}}"#,
        ] {
            let fast = response(line, Some(&defaults())).unwrap();
            assert_eq!(fast.text, general(line, Some(&defaults())), "{line}");
            let fast = response(line, Some(&v1)).unwrap();
            assert_eq!(fast.text, general(line, Some(&v1)), "{line}");
        }
        let line =
            r#"{"jsonrpc":"2.0","id":1,"result":{"cacheScope":"private","tools":[],"ttlMs":0}}"#;
        assert_eq!(
            response(line, Some(&defaults())).unwrap().text,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#
        );
        assert_eq!(
            response(line, Some(&v1)).unwrap().text,
            r#"{"jsonrpc":"2.0","id":1,"result":{"cacheScope":"private","tools":[],"ttlMs":0}}"#
        );
        let line = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"m"}}"#;
        assert_eq!(
            response(line, Some(&defaults())).unwrap().text,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"m"}}"#
        );
        let mut off = defaults();
        off.turn_off("resource-not-found-code");
        assert_eq!(
            response(line, Some(&off)).unwrap().text,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"m"}}"#
        );
    }

    #[test]
    fn leave_to_the_general_path_what_the_rules_change_or_a_tree_decides() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"requestState":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"at":"2026-05-16T12:00:00Z"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"/tmp/build/x":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"Mcp-Session-Id":"abc"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}"#,
            r#"{"jsonrpc":"2.0","id":"1","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#,
            r#"[1]"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}"#,
        ] {
            assert_eq!(response(line, Some(&defaults())), None, "{line}");
        }
        // With no rules at all, only the structure matters.
        let line = r#"{"jsonrpc":"2.0","id":1,"result":{"at":"2026-05-16T12:00:00Z"}}"#;
        assert_eq!(response(line, None).unwrap().text, general(line, None));
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            proptest::num::f64::NORMAL.prop_map(Value::from),
            "[a-z/ :T0-9<>_\\-\"\\\\\n\u{1}é]{0,24}".prop_map(Value::from),
            Just(json!("2026-05-16T12:00:00Z")),
            Just(json!("/home/ada/work/proj/src")),
            Just(json!("<REQUEST_ID:2>")),
            Just(json!("complete")),
            Just(json!(-32002)),
            Just(json!(-32002.0)),
        ]
    }

    fn tree() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
                prop::collection::btree_map(
                    prop_oneof![
                        "[a-zA-Z_/:.\\-]{0,12}",
                        Just("isError".to_owned()),
                        Just("resultType".to_owned()),
                        Just("cacheScope".to_owned()),
                        Just("ttlMs".to_owned()),
                        Just("taskId".to_owned()),
                        Just("code".to_owned()),
                        Just("mcp-session-id".to_owned())
                    ],
                    inner,
                    0..5
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn answer_exactly_what_the_general_path_writes(
            id in any::<i64>(),
            result in tree(),
            error in any::<bool>(),
            version in 0..=crate::normalize::defaults::RULES_VERSION,
        ) {
            let body = if error { "error" } else { "result" };
            let line = serde_json::to_string(&json!({"jsonrpc": "2.0", "id": id, body: result})).unwrap();
            let d = Defaults::example(version.max(1));
            // Version 0: no default rule at all.
            let defaults = (version > 0).then_some(&d);
            if let Some(fast) = response(&line, defaults) {
                prop_assert_eq!(fast.id, id);
                prop_assert_eq!(&fast.text, &general(&line, defaults));
                prop_assert_eq!(&fast.text[..fast.id_end], format!("{HEAD}{id}"));
            }
            prop_assert_eq!(agrees_with_general(&line), Ok(()));
        }

        #[test]
        fn answer_a_request_exactly_as_the_general_client_path_writes_it(
            id in any::<i64>(),
            method in prop_oneof![Just("tools/call".to_owned()), Just("initialize".to_owned()), Just("tasks/get".to_owned()), "[a-z/]{1,12}"],
            params in tree(),
            meta in any::<bool>(),
            version in 0..=crate::normalize::defaults::RULES_VERSION,
        ) {
            let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            if meta && message["params"].is_object() {
                message["params"]["_meta"] = json!({"progressToken": 7});
            }
            let line = serde_json::to_string(&message).unwrap();
            let d = Defaults::example(version.max(1));
            let defaults = (version > 0).then_some(&d);
            if let Some(fast) = request(&line, defaults) {
                let mut value: Value = serde_json::from_str(&line).unwrap();
                if let Some(defaults) = defaults {
                    crate::normalize::general::normalize_client(&mut value, defaults);
                }
                let mut general = String::new();
                write_message(&mut general, &value);
                prop_assert_eq!(fast.id, id);
                prop_assert_eq!(&fast.text, &general);
                prop_assert_eq!(&fast.text[..fast.id_end], format!("{HEAD}{id}"));
            }
        }

        #[test]
        fn never_take_a_line_serde_json_refuses(line in "[{}\\[\\]\":,0-9a-z. \\\\-]{0,40}") {
            prop_assert_eq!(agrees_with_general(&line), Ok(()));
        }
    }
}
