//! The canonical (deterministic) text fixtures are written in: a message's envelope keys in
//! JSON-RPC order, every other object's keys sorted, no whitespace, and floats written so
//! that they read back as the same value. One writer for two trees: serde_json's `Value`
//! and the fast path's tree borrowed from the line (`normalize/fast.rs`), both a [`Tree`].

use serde_json::{Map, Number, Value};

/// Writes a float as the shortest text that this build's serde_json reads back as the same
/// value, so that a fixture rewritten from what it parsed keeps its bytes (re-recording an
/// unchanged server writes nothing): the shortest round-trip form when it reads back
/// (always, with serde_json's `float_roundtrip`; almost always without), else the first of
/// 16 to 19 significant digits, or a neighbour in the last digit, that does. A value no
/// text reads back as (a few extreme ones) is written as the text of the value its shortest
/// form reads back as, which does: one unit in the last place away, so it compares equal
/// ([`FLOAT_ULPS`](super::eq::FLOAT_ULPS)) and is written the same from then on.
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

/// The keys of a JSON-RPC message in the order fixtures write them; other keys follow
/// sorted, and nested objects are written with sorted keys.
pub(crate) const MESSAGE_KEY_ORDER: [&str; 6] =
    ["jsonrpc", "id", "method", "params", "result", "error"];

/// A JSON tree the canonical writer walks, one node at a time: serde_json's [`Value`],
/// and the fast path's tree borrowed from the line (`normalize/fast.rs`). The writer below
/// is the one definition of the canonical form for both.
pub(crate) trait Tree: Sized {
    /// An object's members, in sorted (byte) order of their keys.
    type Members<'a>: Iterator<Item = (&'a str, &'a Self)>
    where
        Self: 'a;

    /// What this node is.
    fn shape(&self) -> Shape<'_, Self>;

    /// Whether this node, a string, is known to need no escaping (written as it is,
    /// between quotes). `false` unless the tree knows: the writer then checks.
    fn is_plain_string(&self) -> bool {
        false
    }

    /// Whether every object key of this kind of tree is known to need no escaping.
    const PLAIN_KEYS: bool = false;
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
    pub(super) fn of(map: &'a Map<String, Value>) -> Self {
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
    if T::PLAIN_KEYS {
        out.push('"');
        out.push_str(key);
        out.push('"');
    } else {
        write_string(out, key);
    }
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
        // An integer as serde_json writes it (with itoa), without the `io::Write` detour:
        // every response's id is one.
        Shape::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => out.push_str(itoa::Buffer::new().format(u)),
            (None, Some(i)) => out.push_str(itoa::Buffer::new().format(i)),
            _ => match n.as_f64() {
                Some(f) => write_float(out, f),
                None => serde_json::to_writer(Append(out), n).expect("serde_json writes numbers"),
            },
        },
        Shape::String(s) if node.is_plain_string() => {
            out.reserve(s.len() + 2);
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
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
