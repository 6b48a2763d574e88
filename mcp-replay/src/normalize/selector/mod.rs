//! Selectors: which fields of a JSON-RPC message a normalization rule applies to.
//!
//! The language follows [insta]'s redaction selectors, with a hand-written parser. A
//! selector starts with `.` (the whole message) and adds one segment per step down:
//!
//! | Syntax | Matches |
//! |---|---|
//! | `.` | the root: the whole message (only when nothing follows) |
//! | `.key` | the value of object key `key`; a bare key is one or more of `A-Z a-z 0-9 _ - /` |
//! | `["key"]` | the value of an object key written as a JSON string, escapes included: any key, e.g. `["io.modelcontextprotocol/related-task"]`, `["a\"b"]`, `["caf\u00e9"]` |
//! | `[2]` | array element 2 (0-based; negative indexes are not supported) |
//! | `[1:3]`, `[1:]`, `[:3]` | array elements 1 and 2 (the end is exclusive); elements from 1 on; elements before 3 |
//! | `[]` (or `[:]`) | every array element, never an object key |
//! | `.*` | any one object key or array element |
//! | `.**` | zero or more segments of any kind, at any depth |
//! | `A, B` | whatever `A` or `B` matches (spaces are allowed around `,` only) |
//!
//! Subscripts follow their parent directly (`.content[0]`, `.content[0][1]`); right
//! after the root's `.` they follow it too (`.[0]`, `.["a b"]`). A `.` always separates
//! keys, so `.io.modelcontextprotocol/x` is the key `io` and then `modelcontextprotocol/x`;
//! a key holding a dot must be quoted: `["io.modelcontextprotocol/x"]`.
//!
//! `.**` matches zero segments too, so `.params.**.timestamp` matches
//! `.params.timestamp` as well as `.params.a[2].b.timestamp`, `.params.**` matches
//! `.params` and everything below it, and `.**` alone matches every node, the root
//! included.
//!
//! [`Selector::apply`] visits the nodes that match in document order, parents before
//! their children (see there for what happens when the callback replaces a node), and
//! renders each node's path in the same syntax: `.result.content[0].text`,
//! `.params._meta["io.modelcontextprotocol/related-task"]`, `.` for the root. A rendered
//! path parses back into a selector that matches exactly that node.
//!
//! `parse.rs` reads the syntax into segments, `walk.rs` walks a value with them; the
//! concrete paths and their rendering are `crate::data::json::path`'s.
//!
//! [insta]: https://insta.rs/docs/redactions/

mod parse;
#[cfg(test)]
mod tests;
mod walk;

use crate::data::json::path::PathSegment;
use std::fmt;

/// A parsed selector, e.g. `.result.content[].text` or `.params.**.timestamp`; see the
/// [module documentation](self) for the syntax.
///
/// Parse it once with [`Selector::parse`], then test concrete paths with
/// [`Selector::matches`] or rewrite the matching nodes of a message with
/// [`Selector::apply`].
#[derive(Debug, Clone, PartialEq)]
pub struct Selector {
    /// The alternatives as written, trimmed and joined with `, `.
    text: String,
    /// One segment list per `,`-separated alternative; consecutive `.**` are collapsed.
    alternatives: Vec<Vec<Segment>>,
}

/// One step of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// `.key` or `["key"]`.
    Key(String),
    /// `[n]`.
    Index(usize),
    /// `[start:end]`, end exclusive; `None` is "to the end".
    Range { start: usize, end: Option<usize> },
    /// `[]`: any array element.
    EveryIndex,
    /// `.*`: any one key or element.
    Any,
    /// `.**`: zero or more steps of any kind.
    Deep,
}

impl Segment {
    /// Does this segment match one step of a concrete path? `Deep` matches any single
    /// step here; its "zero steps" meaning is handled by the callers.
    fn matches(&self, step: PathSegment<'_>) -> bool {
        match (self, step) {
            (Segment::Key(k), PathSegment::Key(key)) => k == key,
            (Segment::Index(n), PathSegment::Index(i)) => *n == i,
            (Segment::Range { start, end }, PathSegment::Index(i)) => {
                *start <= i && end.is_none_or(|end| i < end)
            }
            (Segment::EveryIndex, PathSegment::Index(_)) => true,
            (Segment::Any | Segment::Deep, _) => true,
            _ => false,
        }
    }
}

/// Why a selector does not parse. `Display` shows the selector with a caret under the
/// offending character:
///
/// ```text
/// invalid selector `.result..text`: expected a key name, `*` or `**` after `.`, found `.` (keys with other characters are written `["..."]`) at character 9
///   .result..text
///           ^
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    /// The selector as written.
    pub selector: String,
    /// 0-based character (not byte) offset of the offending character; the number of
    /// characters in the selector when it ends too early.
    pub position: usize,
    /// What is wrong and what is allowed there.
    pub message: String,
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One character per character, so the caret lines up (for narrow characters).
        let shown: String = self
            .selector
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        write!(
            f,
            "invalid selector `{shown}`: {} at character {}\n  {shown}\n  {:width$}^",
            self.message,
            self.position + 1,
            "",
            width = self.position
        )
    }
}

impl std::error::Error for SelectorError {}

impl Selector {
    /// The selector as written, with its alternatives trimmed and joined by `, `.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Why deleting what this selector matches ([`remove`](Selector::remove)) would not
    /// be idempotent, or `None`. An alternative that ends (before any trailing `.**`) in one
    /// array element (`[0]`) or a range with an end (`[0:2]`) deletes other elements each
    /// time, once the later ones moved up; the root alone (`.`) is nothing to delete.
    /// Everything else (keys, `[]`, `.*`, `[2:]`, which truncates) deletes what it
    /// matches and leaves nothing it would match again.
    pub(crate) fn why_not_removable(&self) -> Option<String> {
        for segments in &self.alternatives {
            let last = segments.iter().rev().find(|s| **s != Segment::Deep);
            let why = match last {
                None if segments.is_empty() => "`.` is the whole message, which cannot be removed",
                Some(Segment::Index(_)) => {
                    "it ends in one array element: removing it again would remove the next one \
                     (remove every element with `[]`, or the tail with `[n:]`)"
                }
                Some(Segment::Range { end: Some(_), .. }) => {
                    "it ends in a range with an end: removing it again would remove the elements \
                     that moved up (remove every element with `[]`, or the tail with `[n:]`)"
                }
                _ => continue,
            };
            return Some(format!("cannot remove `{}`: {why}", self.text));
        }
        None
    }
}
