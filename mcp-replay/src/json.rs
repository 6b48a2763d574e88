//! JSON helpers: numeric-aware equality, structural differences with paths, and the
//! canonical (deterministic) serialization fixtures are written in.

use crate::normalize::selector::{push_step, rendered_path, PathSegment};
use serde_json::{Map, Number, Value};

/// Deep equality of two JSON values where key order never matters and numbers compare
/// by numeric value (`1` equals `1.0`: rmcp writes `1.0` where TypeScript writes `1`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn num_eq(x: &Number, y: &Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b || ulps_apart(a, b) <= FLOAT_ULPS,
        _ => false,
    }
}

/// How many units in the last place two floats may be apart and still compare equal.
/// serde_json parses floats best-effort unless its `float_roundtrip` feature is on (which
/// mcp-replay does not force on a user's build): the same text always parses to the same
/// value, but the text written for a value may read back one unit off for an extreme value
/// (about 1 in 600 random bit patterns, at exponents beyond ±100; never a value like 0.1,
/// 2.5 or 1e-3). Two units of slack make such a fixture compare equal to its server.
const FLOAT_ULPS: u64 = 2;

/// The distance between two finite floats of the same sign in units in the last place
/// (`u64::MAX` otherwise).
fn ulps_apart(a: f64, b: f64) -> u64 {
    if !a.is_finite() || !b.is_finite() || a.is_sign_negative() != b.is_sign_negative() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

/// Writes a float as the shortest text that this build's serde_json reads back as the same
/// value, so that a fixture rewritten from what it parsed keeps its bytes (re-recording an
/// unchanged server writes nothing): the shortest round-trip form when it reads back
/// (always, with serde_json's `float_roundtrip`; almost always without), else the first of
/// 16 to 19 significant digits, or a neighbour in the last digit, that does. A value no
/// text reads back as (a few extreme ones) is written as the text of the value its shortest
/// form reads back as, which does: one unit in the last place away, so it compares equal
/// ([`FLOAT_ULPS`]) and is written the same from then on.
fn write_float(out: &mut String, mut f: f64) {
    for _ in 0..4 {
        let Some(shortest) = serde_json::Number::from_f64(f).map(|n| n.to_string()) else {
            out.push_str("null");
            return;
        };
        if let Some(text) = std::iter::once(shortest.clone())
            .chain((15..=18).flat_map(move |digits| {
                let text = format!("{f:.digits$e}");
                std::iter::once(text.clone()).chain(last_digit_neighbours(text))
            }))
            .find(|text| read_float(text) == Some(f.to_bits()))
        {
            out.push_str(&text);
            return;
        }
        match read_float(&shortest) {
            Some(bits) => f = f64::from_bits(bits),
            None => break,
        }
    }
    let shortest = serde_json::Number::from_f64(f).map(|n| n.to_string());
    out.push_str(shortest.as_deref().unwrap_or("null"));
}

/// The bits of the float `text` reads as, read as a fixture line is: a value, not an
/// `f64` (serde_json parses the two with different code, which can differ in the last
/// place).
fn read_float(text: &str) -> Option<u64> {
    serde_json::from_str::<Value>(text)
        .ok()?
        .as_f64()
        .map(f64::to_bits)
}

/// `1.2345e7` with its last mantissa digit moved by 1 to 3 either way, where that stays a
/// number of the same length (`1.2346e7`, `1.2344e7`, ...).
fn last_digit_neighbours(text: String) -> impl Iterator<Item = String> {
    let end = text.find(['e', 'E']).unwrap_or(text.len());
    let last = text[..end].bytes().last().filter(u8::is_ascii_digit);
    [1i8, -1, 2, -2, 3, -3]
        .into_iter()
        .filter_map(move |delta| {
            let digit = i8::try_from(last? - b'0').ok()? + delta;
            (0..=9).contains(&digit).then(|| {
                let mut moved = text[..end - 1].to_owned();
                moved.push(char::from(b'0' + digit as u8));
                moved.push_str(&text[end..]);
                moved
            })
        })
}

/// One place where two JSON values differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Where, in selector form: `.result.content[0].text`, `.params["a b"]`, `.[1]`; `.`
    /// is the whole value. It parses as a selector (the syntax of [`Rules`](crate::Rules)
    /// and `docs/normalization.md`) that matches exactly this place, so it can be pasted
    /// into a normalization rule. In the response to a listing request (`tools/list`,
    /// `prompts/list`, `resources/list`, `resources/templates/list`) the items are paired
    /// by their name (`uri`, `uriTemplate`) first: a path into an item that moved is its
    /// place in the actual message, and a removed item's path its place in the expected one.
    pub(crate) path: String,
    /// The expected value there, `None` where the key or element is absent.
    pub(crate) expected: Option<Value>,
    /// The actual value there, `None` where the key or element is absent.
    pub(crate) actual: Option<Value>,
}

impl Difference {
    /// Where, in selector form: `.result.content[0].text`, `.params["a b"]`, `.[1]`; `.`
    /// is the whole value. It parses as a selector that matches exactly this place, so it
    /// can be pasted into a normalization rule.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The expected value there, `None` where the key or element is absent.
    pub fn expected(&self) -> Option<&Value> {
        self.expected.as_ref()
    }

    /// The actual value there, `None` where the key or element is absent.
    pub fn actual(&self) -> Option<&Value> {
        self.actual.as_ref()
    }
}

/// Every difference between `expected` and `actual`, each with its path, in a stable order
/// (expected's keys sorted, then keys only `actual` has).
pub fn differences(expected: &Value, actual: &Value) -> Vec<Difference> {
    differences_in(expected, actual, None)
}

/// The listing of a result whose items are named: the array at `path` (keys from the
/// message's root), each item named by its `key` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Listing {
    pub path: &'static [&'static str],
    pub key: &'static str,
}

/// The listing a response to `method` holds: `tools/list` its `tools` by `name`, and
/// `prompts/list`, `resources/list` (by `uri`), `resources/templates/list` (by
/// `uriTemplate`), as the contract classes pair them (`contract/items.rs`).
pub(crate) fn listing_of(method: &str) -> Option<Listing> {
    let (path, key): (&'static [&'static str], _) = match method {
        "tools/list" => (&["result", "tools"], "name"),
        "prompts/list" => (&["result", "prompts"], "name"),
        "resources/list" => (&["result", "resources"], "uri"),
        "resources/templates/list" => (&["result", "resourceTemplates"], "uriTemplate"),
        _ => return None,
    };
    Some(Listing { path, key })
}

/// [`differences`], the items of `listing` paired by their key first: a renamed item is
/// one removed and one added, a moved one is compared with itself. The path into a paired
/// item is the actual item's place, into a removed one the expected item's.
pub(crate) fn differences_in(
    expected: &Value,
    actual: &Value,
    listing: Option<Listing>,
) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut path = String::new();
    let at = listing.map(|l| (l.path, l.key));
    diff_into(expected, actual, &mut path, &mut out, at);
    out
}

/// One row of two listings paired by key: an item of both, of the expected one only
/// (removed), or of the actual one only (added).
pub(crate) type Row = (Option<usize>, Option<usize>);

/// Pairs the items of two listings by their `key` field, in the expected order, each
/// added item after the paired item that precedes it in the actual order (first when none
/// does) and after the removed items that follow that one; `None` when an item is not an
/// object with a string key, or a key repeats.
pub(crate) fn pair_items(expected: &[Value], actual: &[Value], key: &str) -> Option<Vec<Row>> {
    let keys = |items: &[Value]| -> Option<Vec<String>> {
        let keys: Vec<String> = items
            .iter()
            .map(|i| i.get(key)?.as_str().map(str::to_owned))
            .collect::<Option<_>>()?;
        let mut sorted: Vec<&String> = keys.iter().collect();
        sorted.sort_unstable();
        sorted.dedup();
        (sorted.len() == keys.len()).then_some(keys)
    };
    let (ek, ak) = (keys(expected)?, keys(actual)?);
    let partner_of_actual: Vec<Option<usize>> =
        ak.iter().map(|k| ek.iter().position(|e| e == k)).collect();
    // The added items, by the paired actual item they follow (None: before every one).
    let mut anchored: Vec<(Option<usize>, usize)> = Vec::new();
    let mut anchor = None;
    for (j, partner) in partner_of_actual.iter().enumerate() {
        match partner {
            Some(_) => anchor = Some(j),
            None => anchored.push((anchor, j)),
        }
    }
    let added_after = |anchor: Option<usize>| -> Vec<Row> {
        anchored
            .iter()
            .filter(|(a, _)| *a == anchor)
            .map(|&(_, j)| (None, Some(j)))
            .collect()
    };
    // Added items wait for the removed ones that follow their anchor, as a diff writes a
    // replaced line: a rename is the old item removed, then the new one added.
    let mut rows: Vec<Row> = Vec::new();
    let mut pending = added_after(None);
    for (i, k) in ek.iter().enumerate() {
        match ak.iter().position(|a| a == k) {
            Some(j) => {
                rows.append(&mut pending);
                rows.push((Some(i), Some(j)));
                pending = added_after(Some(j));
            }
            None => rows.push((Some(i), None)),
        }
    }
    rows.append(&mut pending);
    Some(rows)
}

/// `at`: where a listing is below this node (the keys still to descend), and its key.
fn diff_into(
    expected: &Value,
    actual: &Value,
    path: &mut String,
    out: &mut Vec<Difference>,
    at: Option<(&[&str], &str)>,
) {
    if let (Some(([], key)), Value::Array(e), Value::Array(a)) = (at, expected, actual) {
        if let Some(rows) = pair_items(e, a, key) {
            for row in rows {
                let len = path.len();
                match row {
                    (Some(i), Some(j)) => {
                        push_step(path, PathSegment::Index(j));
                        diff_into(&e[i], &a[j], path, out, None);
                    }
                    (Some(i), None) => {
                        push_step(path, PathSegment::Index(i));
                        out.push(Difference {
                            path: rendered_path(path).to_owned(),
                            expected: Some(e[i].clone()),
                            actual: None,
                        });
                    }
                    (None, Some(j)) => {
                        push_step(path, PathSegment::Index(j));
                        out.push(Difference {
                            path: rendered_path(path).to_owned(),
                            expected: None,
                            actual: Some(a[j].clone()),
                        });
                    }
                    (None, None) => {}
                }
                path.truncate(len);
            }
            return;
        }
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let mut keys: Vec<&String> = e
                .keys()
                .chain(a.keys().filter(|k| !e.contains_key(*k)))
                .collect();
            keys.sort();
            for key in keys {
                let len = path.len();
                push_step(path, PathSegment::Key(key));
                let below = match at {
                    Some(([first, rest @ ..], k)) if *first == key.as_str() => Some((rest, k)),
                    _ => None,
                };
                match (e.get(key), a.get(key)) {
                    (Some(x), Some(y)) => diff_into(x, y, path, out, below),
                    (x, y) => out.push(Difference {
                        path: rendered_path(path).to_owned(),
                        expected: x.cloned(),
                        actual: y.cloned(),
                    }),
                }
                path.truncate(len);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            for i in 0..e.len().max(a.len()) {
                let len = path.len();
                push_step(path, PathSegment::Index(i));
                match (e.get(i), a.get(i)) {
                    (Some(x), Some(y)) => diff_into(x, y, path, out, None),
                    (x, y) => out.push(Difference {
                        path: rendered_path(path).to_owned(),
                        expected: x.cloned(),
                        actual: y.cloned(),
                    }),
                }
                path.truncate(len);
            }
        }
        _ if json_eq(expected, actual) => {}
        _ => out.push(Difference {
            path: rendered_path(path).to_owned(),
            expected: Some(expected.clone()),
            actual: Some(actual.clone()),
        }),
    }
}

/// The keys of a JSON-RPC message in the order fixtures write them; other keys follow
/// sorted, and nested objects are written with sorted keys.
pub(crate) const MESSAGE_KEY_ORDER: [&str; 6] =
    ["jsonrpc", "id", "method", "params", "result", "error"];

/// A JSON tree the canonical writer walks, one node at a time: serde_json's [`Value`],
/// and the fast path's tree borrowed from the line (`fast.rs`). The writer below is the
/// one definition of the canonical form for both.
pub(crate) trait Tree: Sized {
    /// An object's members, in sorted (byte) order of their keys.
    type Members<'a>: Iterator<Item = (&'a str, &'a Self)>
    where
        Self: 'a;

    /// What this node is.
    fn shape(&self) -> Shape<'_, Self>;
}

/// One node of a [`Tree`], its children left to the tree.
pub(crate) enum Shape<'a, T: Tree + 'a> {
    Null,
    Bool(bool),
    Number(&'a Number),
    String(&'a str),
    Array(&'a [T]),
    /// The members, sorted by key.
    Object(T::Members<'a>),
}

impl Tree for Value {
    type Members<'a> = SortedMembers<'a>;

    #[inline]
    fn shape(&self) -> Shape<'_, Value> {
        match self {
            Value::Null => Shape::Null,
            Value::Bool(b) => Shape::Bool(*b),
            Value::Number(n) => Shape::Number(n),
            Value::String(s) => Shape::String(s),
            Value::Array(items) => Shape::Array(items),
            Value::Object(map) => Shape::Object(SortedMembers::of(map)),
        }
    }
}

/// A serde_json map's members in sorted key order.
pub(crate) enum SortedMembers<'a> {
    /// The map's own order, already sorted (always, unless some crate in the build turns
    /// on serde_json's `preserve_order`).
    InOrder(serde_json::map::Iter<'a>),
    /// Sorted here.
    Sorted(std::vec::IntoIter<(&'a String, &'a Value)>),
}

impl<'a> SortedMembers<'a> {
    #[inline]
    fn of(map: &'a Map<String, Value>) -> Self {
        if map.keys().is_sorted() {
            SortedMembers::InOrder(map.iter())
        } else {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            SortedMembers::Sorted(members.into_iter())
        }
    }
}

impl<'a> Iterator for SortedMembers<'a> {
    type Item = (&'a str, &'a Value);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let (key, value) = match self {
            SortedMembers::InOrder(members) => members.next()?,
            SortedMembers::Sorted(members) => members.next()?,
        };
        Some((key.as_str(), value))
    }
}

/// Writes a JSON-RPC message canonically: the envelope keys in JSON-RPC order, every
/// nested object with sorted keys, no whitespace. Independent of serde_json's map order.
pub fn write_message(out: &mut String, message: &Value) {
    write_message_with_id(out, message, None);
}

/// [`write_message`] of `message` with its `id` (when it has one) written as `id`.
pub(crate) fn write_message_with_id(out: &mut String, message: &Value, id: Option<&Value>) {
    match message {
        Value::Object(map) => {
            let envelope = MESSAGE_KEY_ORDER.map(|key| match map.get(key) {
                Some(own) if key == "id" => Some(id.unwrap_or(own)),
                own => own,
            });
            // Most messages have only envelope keys: no need to order the others then.
            let others = envelope.iter().flatten().count() < map.len();
            let rest = others
                .then(|| SortedMembers::of(map))
                .into_iter()
                .flatten()
                .filter(|(key, _)| !MESSAGE_KEY_ORDER.contains(key));
            write_members(out, envelope, rest);
        }
        other => write_canonical(out, other),
    }
}

/// Writes a message object canonically: first `envelope`, the values of the keys of
/// [`MESSAGE_KEY_ORDER`] in that order (`None` where absent), then `rest`, its other
/// members, which must come sorted. Returns where the id's text ends in `out` (0 when it
/// has no id).
pub(crate) fn write_members<'a, T: Tree + 'a>(
    out: &mut String,
    envelope: [Option<&'a T>; MESSAGE_KEY_ORDER.len()],
    rest: impl Iterator<Item = (&'a str, &'a T)>,
) -> usize {
    out.push('{');
    let mut first = true;
    let mut id_end = 0;
    for (key, value) in MESSAGE_KEY_ORDER.into_iter().zip(envelope) {
        if let Some(value) = value {
            write_entry(out, &mut first, key, value);
            if key == "id" {
                id_end = out.len();
            }
        }
    }
    for (key, value) in rest {
        write_entry(out, &mut first, key, value);
    }
    out.push('}');
    id_end
}

fn write_entry<T: Tree>(out: &mut String, first: &mut bool, key: &str, value: &T) {
    if !*first {
        out.push(',');
    }
    *first = false;
    write_string(out, key);
    out.push(':');
    write_tree(out, value);
}

/// Writes any JSON value with sorted object keys and no whitespace.
pub fn write_canonical(out: &mut String, value: &Value) {
    write_tree(out, value);
}

/// Writes any [`Tree`] with sorted object keys and no whitespace: the canonical form.
pub(crate) fn write_tree<T: Tree>(out: &mut String, node: &T) {
    match node.shape() {
        Shape::Null => out.push_str("null"),
        Shape::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Shape::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
            Some(f) => write_float(out, f),
            None => serde_json::to_writer(Append(out), n).expect("serde_json writes numbers"),
        },
        Shape::String(s) => write_string(out, s),
        Shape::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_tree(out, item);
            }
            out.push(']');
        }
        Shape::Object(members) => {
            out.push('{');
            let mut first = true;
            for (key, value) in members {
                write_entry(out, &mut first, key, value);
            }
            out.push('}');
        }
    }
}

/// serde_json's string escaping.
pub(crate) fn write_string(out: &mut String, s: &str) {
    if needs_escape(s) {
        serde_json::to_writer(Append(out), s).expect("serde_json writes strings");
    } else {
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

/// Does serde_json escape anything in `s` (a quote, a backslash, a control character)?
pub(crate) fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

/// Appends what serde_json writes to a `String` (serde_json writes UTF-8 piece by piece).
pub(crate) struct Append<'a>(pub(crate) &'a mut String);

impl std::io::Write for Append<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = std::str::from_utf8(buf)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        self.0.push_str(text);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Pretty-prints a value with sorted keys, as reports used to before [`pretty_lines`]
/// (which the tests hold to the same text).
#[cfg(test)]
pub fn pretty(value: &Value) -> String {
    let mut out = String::new();
    pretty_into(&mut out, value, 0);
    out
}

#[cfg(test)]
fn pretty_into(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let entries = map.len();
            out.push_str("{\n");
            for (i, (k, v)) in SortedMembers::of(map).enumerate() {
                push_indent(out, indent + 1);
                write_string(out, k);
                out.push_str(": ");
                pretty_into(out, v, indent + 1);
                if i + 1 < entries {
                    out.push(',');
                }
                out.push('\n');
            }
            push_indent(out, indent);
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                push_indent(out, indent + 1);
                pretty_into(out, item, indent + 1);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            push_indent(out, indent);
            out.push(']');
        }
        other => write_canonical(out, other),
    }
}

/// One line of [`pretty`]: the key of the listing item it belongs to, if any, and its text.
pub(crate) type Line = (Option<String>, String);

/// The lines of [`pretty`], each with the key of the listing item it belongs to
/// (`listing`); the listing's items in the order of `order` (indices into the array, every
/// one once), else as they are.
pub(crate) fn pretty_lines(
    value: &Value,
    listing: Option<Listing>,
    order: Option<&[usize]>,
) -> Vec<Line> {
    let mut out = Vec::new();
    let at = listing.map(|l| (l.path, l.key, order));
    lines_into(&mut out, value, 0, String::new(), "", None, at);
    out
}

type At<'a> = Option<(&'a [&'a str], &'a str, Option<&'a [usize]>)>;

fn lines_into(
    out: &mut Vec<Line>,
    value: &Value,
    indent: usize,
    prefix: String,
    suffix: &str,
    tag: Option<&str>,
    at: At<'_>,
) {
    let tag_of = |t: Option<&str>| t.map(str::to_owned);
    let pad = |n: usize| "  ".repeat(n);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push((tag_of(tag), format!("{prefix}{{")));
            let n = map.len();
            for (i, (k, v)) in SortedMembers::of(map).enumerate() {
                let mut key = String::new();
                write_string(&mut key, k);
                let below = match at {
                    Some(([first, rest @ ..], key, order)) if *first == k => {
                        Some((rest, key, order))
                    }
                    _ => None,
                };
                let comma = if i + 1 < n { "," } else { "" };
                let prefix = format!("{}{key}: ", pad(indent + 1));
                lines_into(out, v, indent + 1, prefix, comma, tag, below);
            }
            out.push((tag_of(tag), format!("{}}}{suffix}", pad(indent))));
        }
        Value::Array(items) if !items.is_empty() => {
            out.push((tag_of(tag), format!("{prefix}[")));
            let listing = match at {
                Some(([], key, order)) => Some((key, order)),
                _ => None,
            };
            let natural: Vec<usize> = (0..items.len()).collect();
            let order = match listing {
                Some((_, Some(order))) if order.len() == items.len() => order,
                _ => &natural,
            };
            for (place, &i) in order.iter().enumerate() {
                let item = &items[i];
                let own = listing.and_then(|(key, _)| item.get(key)?.as_str());
                let comma = if place + 1 < order.len() { "," } else { "" };
                lines_into(
                    out,
                    item,
                    indent + 1,
                    pad(indent + 1),
                    comma,
                    own.or(tag),
                    None,
                );
            }
            out.push((tag_of(tag), format!("{}]{suffix}", pad(indent))));
        }
        other => {
            let mut text = prefix;
            write_canonical(&mut text, other);
            text.push_str(suffix);
            out.push((tag_of(tag), text));
        }
    }
}

#[cfg(test)]
fn push_indent(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push_str("  ");
    }
}

/// A short one-line rendering of a value for reports, cut at `max` characters.
pub fn compact(value: &Value, max: usize) -> String {
    let mut s = String::new();
    if value.get("jsonrpc").is_some() {
        write_message(&mut s, value);
    } else {
        write_canonical(&mut s, value);
    }
    if s.chars().count() > max {
        let cut: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        s
    }
}

#[cfg(test)]
mod should {
    use super::*;
    use serde_json::json;

    #[test]
    fn treat_one_and_one_point_zero_as_equal() {
        assert!(json_eq(&json!({"a": 1}), &json!({"a": 1.0})));
        assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1.5})));
        assert!(!json_eq(&json!(1), &json!("1")));
    }

    #[test]
    fn ignore_key_order() {
        let a: Value = serde_json::from_str(r#"{"a":1,"b":[1,2]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b":[1,2.0],"a":1}"#).unwrap();
        assert!(json_eq(&a, &b));
    }

    #[test]
    fn name_the_path_of_each_difference() {
        let d = differences(
            &json!({"result": {"content": [{"text": "a"}], "x": 1}}),
            &json!({"result": {"content": [{"text": "b"}, 2], "y": 2}}),
        );
        let paths: Vec<&str> = d.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                ".result.content[0].text",
                ".result.content[1]",
                ".result.x",
                ".result.y"
            ]
        );
        assert_eq!(d[1].expected, None);
        assert_eq!(d[1].actual, Some(json!(2)));
    }

    #[test]
    fn quote_keys_that_are_not_plain() {
        let d = differences(&json!({"a b": 1}), &json!({"a b": 2}));
        assert_eq!(d[0].path, r#".["a b"]"#);
        assert_eq!(differences(&json!([1]), &json!([2]))[0].path, ".[0]");
        assert_eq!(differences(&json!(1), &json!(2))[0].path, ".");
    }

    #[test]
    fn write_messages_in_json_rpc_key_order_and_nested_keys_sorted() {
        let mut out = String::new();
        write_message(
            &mut out,
            &json!({"params": {"z": 1, "a": [{"y": 1, "b": "é\n"}]}, "method": "m", "id": 1, "jsonrpc": "2.0"}),
        );
        assert_eq!(
            out,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"b":"é\n","y":1}],"z":1}}"#
        );
    }

    #[test]
    fn write_the_lines_of_pretty_and_tag_each_listing_items_lines_with_its_key() {
        let value = json!({"id": 1, "result": {"tools": [{"name": "b", "x": [1, {}]}, {"name": "a"}], "z": []}});
        let listing = listing_of("tools/list");
        let lines = pretty_lines(&value, listing, None);
        let text: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(text.join("\n"), pretty(&value));
        let tags: Vec<Option<&str>> = lines.iter().map(|(t, _)| t.as_deref()).collect();
        let b = Some("b");
        assert_eq!(
            tags,
            [
                None,
                None,
                None,
                None,
                b,
                b,
                b,
                b,
                b,
                b,
                b,
                Some("a"),
                Some("a"),
                Some("a"),
                None,
                None,
                None,
                None
            ]
        );
        // In another order, the commas follow the places.
        let lines = pretty_lines(&value, listing, Some(&[1, 0]));
        assert_eq!(lines[4], (Some("a".into()), "      {".into()));
        assert_eq!(lines[6], (Some("a".into()), "      },".into()));
        assert_eq!(lines[13], (Some("b".into()), "      }".into()));
    }

    #[test]
    fn pair_listing_items_by_key_before_taking_their_differences() {
        let tool = |name: &str, d: &str| json!({"name": name, "description": d});
        let listing = listing_of("tools/list");
        let expected =
            json!({"result": {"tools": [tool("a", "A"), tool("b", "B"), tool("c", "C")]}});
        // Reordered, one renamed, one changed.
        let actual =
            json!({"result": {"tools": [tool("c", "C2"), tool("a", "A"), tool("bee", "B")]}});
        let d = differences_in(&expected, &actual, listing);
        let got: Vec<(&str, Option<&Value>, Option<&Value>)> = d
            .iter()
            .map(|d| (d.path.as_str(), d.expected.as_ref(), d.actual.as_ref()))
            .collect();
        assert_eq!(
            got,
            [
                (".result.tools[1]", Some(&tool("b", "B")), None),
                (".result.tools[2]", None, Some(&tool("bee", "B"))),
                (
                    ".result.tools[0].description",
                    Some(&json!("C")),
                    Some(&json!("C2"))
                ),
            ]
        );
        // Without the listing, place by place: every item differs.
        assert_eq!(differences(&expected, &actual).len(), 6);
        // Keys missing or repeated: place by place.
        let twice = json!({"result": {"tools": [tool("a", "A"), tool("a", "B")]}});
        assert_eq!(
            differences_in(&twice, &expected, listing),
            differences(&twice, &expected)
        );
        assert_eq!(
            pair_items(
                &[tool("a", ""), tool("b", "")],
                &[tool("x", ""), tool("b", ""), tool("y", "")],
                "name"
            ),
            Some(vec![
                (Some(0), None),
                (None, Some(0)),
                (Some(1), Some(1)),
                (None, Some(2))
            ])
        );
    }

    #[test]
    fn cut_long_compact_renderings() {
        assert_eq!(compact(&json!("abcdef"), 5), "\"abc…");
    }

    /// The nodes `selector` visits in `value`, with their paths.
    fn visit(
        selector: &crate::normalize::selector::Selector,
        value: &Value,
    ) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        selector.apply(&mut value.clone(), &mut |v, path| {
            out.push((path.to_owned(), v.clone()))
        });
        out
    }

    proptest::proptest! {
        #[test]
        fn give_each_difference_a_path_that_selects_exactly_that_place(
            expected in crate::normalize::selector::arbitrary::json(),
            actual in crate::normalize::selector::arbitrary::json(),
        ) {
            for d in differences(&expected, &actual) {
                let selector = crate::normalize::selector::Selector::parse(&d.path)
                    .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                for (side, value) in [(&d.expected, &expected), (&d.actual, &actual)] {
                    let want: Vec<(String, Value)> =
                        side.iter().map(|v| (d.path.clone(), v.clone())).collect();
                    proptest::prop_assert_eq!(visit(&selector, value), want);
                }
            }
        }

        #[test]
        fn write_strings_and_numbers_as_serde_json_does(s in "\\PC*|[\"\\\\\u{0}-\u{1f}\u{7f}é]{0,6}", n in proptest::num::f64::NORMAL, i in proptest::num::i64::ANY) {
            for value in [json!(s), json!(i), json!({"b": [s], "a": i})] {
                let mut out = String::new();
                write_canonical(&mut out, &value);
                proptest::prop_assert_eq!(&out, &serde_json::to_string(&value).unwrap());
            }
            // A float: serde_json's shortest text whenever this build reads that back;
            // always a text that compares equal to it.
            let mut out = String::new();
            write_canonical(&mut out, &json!(n));
            let shortest = serde_json::to_string(&json!(n)).unwrap();
            let back: Value = serde_json::from_str(&out).unwrap();
            let read: Value = serde_json::from_str(&shortest).unwrap();
            if read.as_f64().map(f64::to_bits) == Some(n.to_bits()) {
                proptest::prop_assert_eq!(&out, &shortest);
            }
            proptest::prop_assert!(json_eq(&back, &json!(n)), "{} for {}", out, n);
        }

        /// What this build's serde_json parsed, written and parsed again, is the same
        /// value and then the same text: a fixture rewritten from itself keeps its bytes.
        #[test]
        fn write_a_parsed_float_so_that_it_reads_back_the_same(
            n in proptest::num::f64::POSITIVE
                | proptest::num::f64::NEGATIVE
                | proptest::num::f64::NORMAL
                | proptest::num::f64::SUBNORMAL
                | proptest::num::f64::ZERO
        ) {
            let parsed: Value = serde_json::from_str(&serde_json::to_string(&json!(n)).unwrap()).unwrap();
            let mut once = String::new();
            write_canonical(&mut once, &parsed);
            let again: Value = serde_json::from_str(&once).unwrap();
            proptest::prop_assert!(json_eq(&again, &parsed), "{} for {}", once, n);
            let mut twice = String::new();
            write_canonical(&mut twice, &again);
            proptest::prop_assert_eq!(&twice, &once);
        }
    }
}
