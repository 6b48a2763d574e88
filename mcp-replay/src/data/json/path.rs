//! Concrete paths into a JSON value, and their one rendering in selector form:
//! `.result.content[0].text`, `.params["io.modelcontextprotocol/related-task"]`, `.[1]`, and
//! `.` for the root. The paths a [`Difference`](crate::Difference) shows, a secret finding
//! names and a selector's walk passes to its callback are all written here; the selector
//! grammar (`normalize/selector/`) reads a bare key with [`is_key_char`] as this module
//! writes one, so every rendered path parses back into a selector for exactly that place.
//! This module knows nothing of selectors.

use super::write::write_string;
use std::fmt::Write as _;

/// One step of a concrete path: an object key or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathSegment<'a> {
    /// The value of this key in an object.
    Key(&'a str),
    /// The element at this 0-based index in an array.
    Index(usize),
}

/// Can `key` be written bare, as `.key`?
fn is_bare_key(key: &str) -> bool {
    !key.is_empty() && key.chars().all(is_key_char)
}

/// Can `c` be part of a bare key (`.key`)?
pub(crate) fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/')
}

/// Appends one step to a rendered path (empty for the root): `.key` for a bare key,
/// `["key"]` (a JSON string, as serde_json escapes it) for any other key, `[n]` for an
/// index; a subscript right at the root comes after the root's `.` (`.[0]`, `.["a b"]`).
///
/// The one rendering of concrete paths: the paths a selector's walk passes, a
/// [`Difference`](crate::Difference)'s path and a secret finding's path. A rendered path
/// (see [`rendered_path`]) parses back into a selector that matches exactly that node.
pub(crate) fn push_step(path: &mut String, step: PathSegment<'_>) {
    if let PathSegment::Key(key) = step {
        if is_bare_key(key) {
            path.push('.');
            path.push_str(key);
            return;
        }
    }
    if path.is_empty() {
        path.push('.');
    }
    path.push('[');
    match step {
        PathSegment::Key(key) => write_string(path, key),
        PathSegment::Index(index) => {
            let _ = write!(path, "{index}");
        }
    }
    path.push(']');
}

/// A path built with [`push_step`] as it is shown: `.` for the root (the empty path).
pub(crate) fn rendered_path(path: &str) -> &str {
    if path.is_empty() {
        "."
    } else {
        path
    }
}
