//! Structural differences between two JSON values, each with its path, and the pairing of
//! listing items (`tools/list`, ...) by name before they are compared.

use super::eq::json_eq;
use super::path::{push_step, rendered_path, PathSegment};
use serde_json::{Map, Value};

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
            diff_rows(e, a, &rows, path, out);
            return;
        }
    }
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => diff_objects(e, a, path, out, at),
        (Value::Array(e), Value::Array(a)) => diff_arrays(e, a, path, out),
        _ if json_eq(expected, actual) => {}
        _ => out.push(difference(path, Some(expected), Some(actual))),
    }
}

/// The items of two listings row by row, as [`pair_items`] paired them: a paired item
/// compared with its partner at its actual place, a removed one at its expected place, an
/// added one at its actual place.
fn diff_rows(e: &[Value], a: &[Value], rows: &[Row], path: &mut String, out: &mut Vec<Difference>) {
    for &row in rows {
        let len = path.len();
        match row {
            (Some(i), Some(j)) => {
                push_step(path, PathSegment::Index(j));
                diff_into(&e[i], &a[j], path, out, None);
            }
            (Some(i), None) => {
                push_step(path, PathSegment::Index(i));
                out.push(difference(path, Some(&e[i]), None));
            }
            (None, Some(j)) => {
                push_step(path, PathSegment::Index(j));
                out.push(difference(path, None, Some(&a[j])));
            }
            (None, None) => {}
        }
        path.truncate(len);
    }
}

/// Two objects key by key, in sorted order: a key only one of them has is a difference.
fn diff_objects(
    e: &Map<String, Value>,
    a: &Map<String, Value>,
    path: &mut String,
    out: &mut Vec<Difference>,
    at: Option<(&[&str], &str)>,
) {
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
            (x, y) => out.push(difference(path, x, y)),
        }
        path.truncate(len);
    }
}

/// Two arrays place by place: an element only one of them has is a difference.
fn diff_arrays(e: &[Value], a: &[Value], path: &mut String, out: &mut Vec<Difference>) {
    for i in 0..e.len().max(a.len()) {
        let len = path.len();
        push_step(path, PathSegment::Index(i));
        match (e.get(i), a.get(i)) {
            (Some(x), Some(y)) => diff_into(x, y, path, out, None),
            (x, y) => out.push(difference(path, x, y)),
        }
        path.truncate(len);
    }
}

/// The difference at `path` (as [`push_step`] built it) between what each side holds there.
fn difference(path: &str, expected: Option<&Value>, actual: Option<&Value>) -> Difference {
    Difference {
        path: rendered_path(path).to_owned(),
        expected: expected.cloned(),
        actual: actual.cloned(),
    }
}
