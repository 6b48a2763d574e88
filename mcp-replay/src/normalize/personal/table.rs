//! The pass that writes personal data as pseudonyms: [`Table`], one per fixture written or
//! session replayed, over the categories in force and the user's own values, patterns and
//! selectors ([`Own`]).

use super::values::Values;
use super::{find, Category, DenyList};
use crate::normalize::placeholder::is_placeholder;
use crate::normalize::selector::Selector;
use regex::Regex;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;

/// Keys whose values are the protocol's vocabulary, never personal data, at any depth:
/// media types and versions (a key holding `version` in any case counts:
/// `protocolVersion`, `supportedVersions`). The envelope's keys (`jsonrpc`, `id`,
/// `method`) are the protocol's only in the message itself: an `id` inside a result is
/// the server's data (a customer's id may be their e-mail address). Handles (cursors,
/// task ids, progress tokens) are values a peer made up, read like any other: one the
/// harness binds is its placeholder by the time the pass runs, and one it leaves as it
/// came may hold a customer's name (value_model's find, `fuzz/README.md`).
const PROTOCOL_KEYS: [&str; 1] = ["mimeType"];

/// The keys of a JSON-RPC message's envelope, the protocol's own at the top level only.
pub(crate) const ENVELOPE_KEYS: [&str; 3] = ["jsonrpc", "id", "method"];

/// Is `key` of a message's member at `top` level (else deeper) the protocol's: an
/// envelope key at the top, or one of [`PROTOCOL_KEYS`] or a version's at any depth?
pub(crate) fn is_protocol_member(key: &str, top: bool) -> bool {
    (top && ENVELOPE_KEYS.contains(&key)) || is_protocol_key(key)
}

/// Is `key` one of [`PROTOCOL_KEYS`], or a version's? (No allocation: it runs on every
/// key the pass walks.)
fn is_protocol_key(key: &str) -> bool {
    PROTOCOL_KEYS.contains(&key)
        || (key.len() >= 7
            && key
                .as_bytes()
                .windows(7)
                .any(|w| w.eq_ignore_ascii_case(b"version")))
}

/// What the user adds to the categories: literal values (a values file), patterns and
/// selectors, each with the kind its placeholders are named by (`<CUSTOMER:1>`), and the
/// deny lists a fixture is checked against.
#[derive(Debug, Clone, Default)]
pub(crate) struct Own {
    pub values: Values,
    pub patterns: Vec<(Regex, String)>,
    pub selectors: Vec<(Selector, String)>,
    pub deny: Vec<DenyList>,
}

impl Own {
    /// Does it rewrite nothing (deny lists only check)?
    pub(crate) fn rewrites_nothing(&self) -> bool {
        self.values.is_empty() && self.patterns.is_empty() && self.selectors.is_empty()
    }

    /// Adds `other`'s to these.
    pub(crate) fn extend(&mut self, other: &Own) {
        self.values.extend(&other.values);
        self.patterns.extend(other.patterns.iter().cloned());
        self.selectors.extend(other.selectors.iter().cloned());
        self.deny.extend(other.deny.iter().cloned());
    }

    /// Is `name` the kind of one of the user's values, patterns or selectors?
    fn has_kind(&self, name: &str) -> bool {
        self.values.has_kind(name)
            || self.patterns.iter().any(|(_, k)| k == name)
            || self.selectors.iter().any(|(_, k)| k == name)
    }
}

/// What one pass rewrites: the categories in force (indexed as [`Category::ALL`]) and the
/// user's own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub on: [bool; 6],
    pub own: &'a Own,
}

impl Scope<'_> {
    /// Does the pass change nothing at all?
    pub(crate) fn is_empty(&self) -> bool {
        !self.on.contains(&true) && self.own.rewrites_nothing()
    }

    /// Could the pass change (or count anything in) the message written as `text`? `false`
    /// only when it surely cannot: no category finds anything in it and the user has no
    /// values, patterns or selectors of their own.
    pub(crate) fn may_touch(&self, text: &str) -> bool {
        !self.own.rewrites_nothing() || (self.on.contains(&true) && super::may_hold_line(text))
    }
}

/// The pseudonyms of one fixture or session: the number each value got, by kind, and the
/// highest number of each kind met so far. A value gets the next number of its kind at its
/// first occurrence and keeps it; a pseudonym already in a message (`user3@example.invalid`,
/// `<CUSTOMER:2>`) is left alone, and one met on the wire counts, so the next value gets a
/// higher number: a replay that sends the fixture's client messages numbers what the
/// server sends as the recording did.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Table {
    last: HashMap<String, u64>,
    numbers: HashMap<(String, String), u64>,
}

impl Table {
    /// The number of the value `canonical` of `kind`, the next one at its first occurrence.
    fn number(&mut self, kind: &str, canonical: &str) -> u64 {
        if let Some(n) = self.numbers.get(&(kind.to_owned(), canonical.to_owned())) {
            return *n;
        }
        let last = self.last.entry(kind.to_owned()).or_insert(0);
        *last += 1;
        let n = *last;
        self.numbers
            .insert((kind.to_owned(), canonical.to_owned()), n);
        n
    }

    /// Gives back the number `value`, a personal value of one of the categories in
    /// force, got at its first occurrence, when no value got a number of its kind after it:
    /// a value the session bound afterwards (a placeholder of the fixture's, written where
    /// the server minted it) is not personal data in the fixture, so the next value of its
    /// kind gets the number the recording gave it. Whether it was given back.
    pub(crate) fn release(&mut self, value: &str, scope: Scope<'_>) -> bool {
        let hits = find(value, &scope.on);
        let [hit] = hits.as_slice() else {
            return false;
        };
        if hit.start != 0 || hit.end != value.len() {
            return false;
        }
        let key = (hit.category.name().to_owned(), hit.canonical.clone());
        let last = self.last.get(&key.0).copied();
        match self.numbers.get(&key).copied() {
            Some(n) if Some(n) == last => {
                self.numbers.remove(&key);
                self.last.insert(key.0, n - 1);
                true
            }
            _ => false,
        }
    }

    /// A pseudonym numbered `n` of `kind` was met on the wire.
    fn met(&mut self, kind: &str, n: u64) {
        let last = self.last.entry(kind.to_owned()).or_insert(0);
        *last = (*last).max(n);
    }

    /// Writes the personal data in `message` as pseudonyms. `wire`: the message crossed
    /// the wire in this order (a fixture being written, a replay's sent and received
    /// messages), so the pseudonyms already in it count; `false` for a fixture's expected
    /// line, which is not an event of the session.
    pub(crate) fn apply(&mut self, message: &mut Value, scope: Scope<'_>, wire: bool) {
        if scope.is_empty() {
            return;
        }
        if !scope.own.selectors.is_empty() {
            self.selectors(message, scope);
        }
        self.walk(message, None, scope, wire);
    }

    /// The user's selectors: each distinct string they match becomes `<KIND:n>`; the
    /// envelope stays as it was.
    fn selectors(&mut self, message: &mut Value, scope: Scope<'_>) {
        let envelope: Vec<(&str, Value)> = ENVELOPE_KEYS
            .into_iter()
            .filter_map(|k| Some((k, message.get(k)?.clone())))
            .collect();
        for (selector, kind) in &scope.own.selectors {
            selector.apply(message, &mut |v: &mut Value, _: &str| {
                if let Value::String(s) = v {
                    if !is_placeholder(s) {
                        let n = self.number(kind, &s.to_lowercase());
                        *s = format!("<{kind}:{n}>");
                    }
                }
            });
        }
        if let Some(obj) = message.as_object_mut() {
            for (k, v) in envelope {
                obj.insert(k.to_owned(), v);
            }
        }
    }

    fn walk(&mut self, value: &mut Value, key: Option<&str>, scope: Scope<'_>, wire: bool) {
        match value {
            Value::String(s) => {
                if let Some(new) = self.string(s, key, scope, wire) {
                    *s = new;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.walk(item, key, scope, wire);
                }
            }
            Value::Object(map) => {
                for (k, v) in crate::data::json::members_mut(map) {
                    if is_protocol_member(k, key.is_none()) {
                        continue;
                    }
                    self.walk(v, Some(k), scope, wire);
                }
            }
            _ => {}
        }
    }

    /// `s` with its personal data written as pseudonyms, or `None` when it has none.
    fn string(
        &mut self,
        s: &str,
        _key: Option<&str>,
        scope: Scope<'_>,
        wire: bool,
    ) -> Option<String> {
        if wire && s.contains('<') {
            self.meet_placeholders(s, scope);
        }
        if is_placeholder(s) {
            return None;
        }
        let mut out = Cow::Borrowed(s);
        let own = scope.own;
        if let Some(matcher) = own.values.matcher() {
            if matcher.is_match(&out) {
                let replaced = matcher
                    .replace_all(&out, |c: &regex::Captures<'_>| {
                        let text = &c[0];
                        let kind = own.values.kind_of(text);
                        let n = self.number(kind, &text.to_lowercase());
                        format!("<{kind}:{n}>")
                    })
                    .into_owned();
                out = Cow::Owned(replaced);
            }
        }
        for (pattern, kind) in &own.patterns {
            if pattern.is_match(&out) {
                let replaced = pattern
                    .replace_all(&out, |c: &regex::Captures<'_>| {
                        let text = &c[0];
                        if is_placeholder(text) {
                            return text.to_owned();
                        }
                        let n = self.number(kind, text);
                        format!("<{kind}:{n}>")
                    })
                    .into_owned();
                out = Cow::Owned(replaced);
            }
        }
        if scope.on.contains(&true) {
            let hits = find(&out, &scope.on);
            if !hits.is_empty() {
                let mut text = String::with_capacity(out.len());
                let mut at = 0;
                for hit in hits {
                    let name = hit.category.name();
                    match hit.number {
                        Some(n) => {
                            if wire {
                                self.met(name, n);
                            }
                        }
                        None => {
                            let n = self.number(name, &hit.canonical);
                            text.push_str(&out[at..hit.start]);
                            text.push_str(&hit.category.pseudonym(n, &out[hit.start..hit.end]));
                            at = hit.end;
                        }
                    }
                }
                if at > 0 {
                    text.push_str(&out[at..]);
                    out = Cow::Owned(text);
                }
            }
        }
        match out {
            Cow::Owned(t) if t != s => Some(t),
            _ => None,
        }
    }

    /// Counts the user's placeholders (`<CUSTOMER:2>`) in `s`.
    fn meet_placeholders(&mut self, s: &str, scope: Scope<'_>) {
        for (i, _) in s.match_indices('<') {
            let rest = &s[i + 1..];
            let Some(end) = rest.find('>') else { continue };
            let Some((name, n)) = rest[..end].split_once(':') else {
                continue;
            };
            if let Ok(n) = n.parse::<u64>() {
                if scope.own.has_kind(name) {
                    self.met(name, n);
                }
            }
        }
    }
}

/// The categories of [`Category::ALL`] that `in_force` says apply.
pub(crate) fn categories_on(in_force: impl Fn(&str) -> bool) -> [bool; 6] {
    Category::ALL.map(|c| in_force(c.name()))
}
