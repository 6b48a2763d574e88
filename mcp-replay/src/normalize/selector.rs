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
//! [insta]: https://insta.rs/docs/redactions/

use crate::json::path::{is_key_char, push_step, rendered_path, PathSegment};
use serde_json::Value;
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
    /// Parses a selector such as `.result.content[].text`, `.params.**.timestamp` or
    /// `.id, .result["io.modelcontextprotocol/x"]`.
    ///
    /// # Errors
    ///
    /// A [`SelectorError`] pointing at the first character that does not fit the syntax.
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        Parser {
            text,
            chars: text.chars().collect(),
            pos: 0,
        }
        .selectors()
    }

    /// The selector as written, with its alternatives trimmed and joined by `, `.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Does this selector match the node at this concrete path? The empty path is the
    /// root.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn matches(&self, path: &[PathSegment<'_>]) -> bool {
        self.alternatives
            .iter()
            .any(|segments| matches_from(segments, path))
    }

    /// Calls `f` on every node of `value` that this selector matches, with the node's
    /// path rendered in selector syntax (`.result.content[0].text`; keys that are not a
    /// bare key are written `["..."]` with JSON string escaping; the root is `.`). A node
    /// that several alternatives match is visited once.
    ///
    /// Order: document order, parents before children, object keys in sorted (byte)
    /// order, array elements by ascending index. `f` runs on a node *before* its children
    /// are looked at, and the children walked are those of the value `f` leaves there:
    /// if `f` replaces an object with a string, nothing below it is visited; if it
    /// replaces a node with another object or array, that replacement's children are
    /// matched and visited like any others. (So a callback that always replaces a node
    /// with a container holding a new match would never finish: don't write one.)
    ///
    /// Subtrees no alternative can match are not entered, and an object key named by
    /// the selector is looked up rather than searched for; the path is built in one
    /// reusable buffer, so walking allocates nothing per node.
    pub fn apply(&self, value: &mut Value, f: &mut dyn FnMut(&mut Value, &str)) {
        self.walk(value, f, true);
    }

    /// [`apply`](Selector::apply), except that nothing below a matched node is visited:
    /// what `f` leaves there is final. For replacing nodes with a fixed value, which may
    /// itself hold nodes the selector matches (`.**` replaced with `{"a": 1}`).
    pub fn apply_outermost(&self, value: &mut Value, f: &mut dyn FnMut(&mut Value, &str)) {
        self.walk(value, f, false);
    }

    /// Deletes every object member and array element of `value` that this selector
    /// matches, in one walk over the value as it was: indexes are those before anything
    /// was deleted, and nothing below a deleted node is looked at. The root is not a
    /// member of anything and is never deleted (`.**` deletes every member of the root).
    ///
    /// Applied twice it deletes nothing more, as long as
    /// [`why_not_removable`](Selector::why_not_removable) has nothing against it.
    pub(crate) fn remove(&self, value: &mut Value) {
        let mut keep = |_: &mut Value, _: &str| {};
        let mut walk = Walk {
            alternatives: &self.alternatives,
            states: Vec::with_capacity(16),
            path: String::with_capacity(64),
            below_matches: false,
            remove: true,
            f: &mut keep,
        };
        for alternative in 0..self.alternatives.len() {
            walk.add(0, alternative, 0);
        }
        walk.visit(value, 0);
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

    fn walk(&self, value: &mut Value, f: &mut dyn FnMut(&mut Value, &str), below_matches: bool) {
        let mut walk = Walk {
            alternatives: &self.alternatives,
            states: Vec::with_capacity(16),
            path: String::with_capacity(64),
            below_matches,
            remove: false,
            f,
        };
        for alternative in 0..self.alternatives.len() {
            walk.add(0, alternative, 0);
        }
        walk.visit(value, 0);
    }
}

/// Does `path` match `segments` exactly (to its end)?
#[cfg_attr(not(test), allow(dead_code))]
fn matches_from(segments: &[Segment], path: &[PathSegment<'_>]) -> bool {
    match segments.split_first() {
        None => path.is_empty(),
        Some((Segment::Deep, [])) => true,
        Some((Segment::Deep, rest)) => {
            (0..=path.len()).any(|skip| matches_from(rest, &path[skip..]))
        }
        Some((segment, rest)) => path
            .split_first()
            .is_some_and(|(step, tail)| segment.matches(*step) && matches_from(rest, tail)),
    }
}

/// The state of one [`Selector::apply`]: a depth-first walk that carries, for the node
/// being visited, the set of (alternative, next segment) positions still alive — an NFA
/// over the segments, with `.**` as a self-loop that may also be skipped. The sets of
/// all the nodes on the current branch are stacked in `states`.
struct Walk<'s, 'f> {
    alternatives: &'s [Vec<Segment>],
    /// `(alternative, position)` pairs; each visited node owns a suffix of this stack.
    states: Vec<(usize, usize)>,
    /// The rendered path of the node being visited; empty for the root.
    path: String,
    /// Are the children of a matched node walked?
    below_matches: bool,
    /// Is a matched node deleted from its parent (instead of given to `f`)?
    remove: bool,
    f: &'f mut dyn FnMut(&mut Value, &str),
}

impl<'s> Walk<'s, '_> {
    /// Adds a state to the set starting at `from`, and the states reached from it by
    /// letting `.**` match zero steps.
    fn add(&mut self, from: usize, alternative: usize, mut position: usize) {
        let segments = &self.alternatives[alternative];
        loop {
            if self.states[from..].contains(&(alternative, position)) {
                return;
            }
            self.states.push((alternative, position));
            match segments.get(position) {
                Some(Segment::Deep) => position += 1,
                _ => return,
            }
        }
    }

    /// Visits `value`, whose states are `states[from..]`.
    fn visit(&mut self, value: &mut Value, from: usize) {
        let to = self.states.len();
        let (mut matched, mut alive) = (false, false);
        for &(alternative, position) in &self.states[from..to] {
            if position == self.alternatives[alternative].len() {
                matched = true;
            } else {
                alive = true;
            }
        }
        // Deleting, only the root gets here matched: it is never deleted, and its
        // members are still looked at.
        if matched && !self.remove {
            (self.f)(value, rendered_path(&self.path));
            if !self.below_matches {
                return;
            }
        }
        if !alive {
            return;
        }
        match value {
            Value::Object(map) => {
                if let Some(key) = self.only_key(from, to) {
                    if let Some(child) = map.get_mut(key) {
                        if self.descend(child, PathSegment::Key(key), from, to) {
                            map.remove(key);
                        }
                    }
                } else if map.keys().is_sorted() {
                    // Always so unless serde_json's `preserve_order` feature is on.
                    let mut doomed = Vec::new();
                    for (key, child) in map.iter_mut() {
                        if self.descend(child, PathSegment::Key(key), from, to) {
                            doomed.push(key.clone());
                        }
                    }
                    for key in doomed {
                        map.remove(&key);
                    }
                } else {
                    let mut keys: Vec<String> = map.keys().cloned().collect();
                    keys.sort_unstable();
                    for key in &keys {
                        if let Some(child) = map.get_mut(key) {
                            if self.descend(child, PathSegment::Key(key), from, to) {
                                map.remove(key);
                            }
                        }
                    }
                }
            }
            Value::Array(items) => {
                let mut doomed = Vec::new();
                for (index, child) in items.iter_mut().enumerate() {
                    if self.descend(child, PathSegment::Index(index), from, to) {
                        doomed.push(index);
                    }
                }
                if !doomed.is_empty() {
                    let mut index = 0;
                    items.retain(|_| {
                        index += 1;
                        doomed.binary_search(&(index - 1)).is_err()
                    });
                }
            }
            _ => {}
        }
    }

    /// The one key every live state of `states[from..to]` needs next, if there is one.
    fn only_key(&self, from: usize, to: usize) -> Option<&'s str> {
        let alternatives = self.alternatives;
        let mut only = None;
        for &(alternative, position) in &self.states[from..to] {
            match alternatives[alternative].get(position) {
                None => {}
                Some(Segment::Key(key)) if only.is_none_or(|only| only == key.as_str()) => {
                    only = Some(key.as_str());
                }
                Some(_) => return None,
            }
        }
        only
    }

    /// Steps from a node with states `states[from..to]` to its child at `step`, and
    /// visits the child if any state survives. `true` when deleting and the child matches:
    /// the caller deletes it (unvisited).
    fn descend(
        &mut self,
        child: &mut Value,
        step: PathSegment<'_>,
        from: usize,
        to: usize,
    ) -> bool {
        for i in from..to {
            let (alternative, position) = self.states[i];
            match self.alternatives[alternative].get(position) {
                Some(Segment::Deep) => self.add(to, alternative, position),
                Some(segment) if segment.matches(step) => self.add(to, alternative, position + 1),
                _ => {}
            }
        }
        if self.states.len() == to {
            return false;
        }
        let alternatives = self.alternatives;
        if self.remove
            && self.states[to..]
                .iter()
                .any(|&(alternative, position)| position == alternatives[alternative].len())
        {
            self.states.truncate(to);
            return true;
        }
        let len = self.path.len();
        push_step(&mut self.path, step);
        self.visit(child, to);
        self.path.truncate(len);
        self.states.truncate(to);
        false
    }
}

/// Hint appended where a bare key ends or cannot start.
const QUOTE_HINT: &str = "keys with other characters are written `[\"...\"]`";

/// A recursive-descent parser over the selector's characters; `pos` counts characters.
struct Parser<'t> {
    text: &'t str,
    chars: Vec<char>,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// `` `c` `` or "the end", for messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end".to_owned(),
            Some(' ') => "a space".to_owned(),
            Some(c) if c.is_control() => format!("`{}`", c.escape_debug()),
            Some(c) => format!("`{c}`"),
        }
    }

    fn error(&self, position: usize, message: impl Into<String>) -> SelectorError {
        SelectorError {
            selector: self.text.to_owned(),
            position,
            message: message.into(),
        }
    }

    fn at_separator(&self) -> bool {
        matches!(self.peek(), None | Some(',')) || self.at_space()
    }

    fn at_space(&self) -> bool {
        matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r'))
    }

    fn skip_spaces(&mut self) {
        while self.at_space() {
            self.pos += 1;
        }
    }

    /// `selectors := alternative ("," alternative)*`, with spaces around.
    fn selectors(mut self) -> Result<Selector, SelectorError> {
        self.skip_spaces();
        if self.peek().is_none() {
            return Err(self.error(
                self.pos,
                "empty selector: expected `.` (the whole message) or a path such as `.result.content[].text`",
            ));
        }
        let mut alternatives = Vec::new();
        let mut texts = Vec::new();
        loop {
            let start = self.pos;
            alternatives.push(self.alternative()?);
            texts.push(self.chars[start..self.pos].iter().collect::<String>());
            self.skip_spaces();
            match self.peek() {
                None => break,
                Some(',') => {
                    self.pos += 1;
                    self.skip_spaces();
                    if self.peek().is_none() {
                        return Err(self.error(
                            self.pos,
                            "expected a selector starting with `.` after `,`, found the end (remove the trailing `,`)",
                        ));
                    }
                }
                Some(_) => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected `,` or the end of the selector, found {} (spaces are only allowed around `,`)",
                            self.found()
                        ),
                    ))
                }
            }
        }
        Ok(Selector {
            text: texts.join(", "),
            alternatives,
        })
    }

    /// `alternative := "." (first step)? (step)*`, ending before a space, `,` or the end.
    fn alternative(&mut self) -> Result<Vec<Segment>, SelectorError> {
        if self.peek() != Some('.') {
            return Err(self.error(
                self.pos,
                format!(
                    "a selector starts with `.` (the whole message), as in `.result`; found {}",
                    self.found()
                ),
            ));
        }
        self.pos += 1;
        let mut segments = Vec::new();
        if self.at_separator() {
            return Ok(segments);
        }
        // Where the last segment starts, its `.` included (the root's for the first).
        let mut start = self.pos - 1;
        if self.peek() == Some('[') {
            self.subscript(&mut segments)?;
        } else {
            self.after_dot(&mut segments)?;
        }
        loop {
            if self.at_separator() {
                return Ok(segments);
            }
            match self.peek() {
                Some('.') => {
                    start = self.pos;
                    self.pos += 1;
                    self.after_dot(&mut segments)?;
                }
                Some('[') => {
                    start = self.pos;
                    self.subscript(&mut segments)?;
                }
                _ => {
                    let written: String = self.chars[start..self.pos].iter().collect();
                    let hint = match segments.last() {
                        Some(Segment::Key(_)) => format!(" ({QUOTE_HINT})"),
                        _ => String::new(),
                    };
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected `.`, `[`, `,` or the end after `{written}`, found {}{hint}",
                            self.found()
                        ),
                    ));
                }
            }
        }
    }

    /// After a `.`: a bare key, `*` or `**`.
    fn after_dot(&mut self, segments: &mut Vec<Segment>) -> Result<(), SelectorError> {
        let start = self.pos;
        match self.peek() {
            Some('*') => {
                self.pos += 1;
                if self.peek() == Some('*') {
                    self.pos += 1;
                    // `.**.**` is `.**`.
                    if segments.last() != Some(&Segment::Deep) {
                        segments.push(Segment::Deep);
                    }
                } else {
                    segments.push(Segment::Any);
                }
                Ok(())
            }
            Some(c) if is_key_char(c) => {
                while self.peek().is_some_and(is_key_char) {
                    self.pos += 1;
                }
                segments.push(Segment::Key(self.chars[start..self.pos].iter().collect()));
                Ok(())
            }
            Some('[') => Err(self.error(
                self.pos,
                "expected a key name, `*` or `**` after `.`, found `[`; a subscript follows its parent directly, as in `.content[0]`",
            )),
            _ => {
                let hint = if self.at_separator() {
                    String::new()
                } else {
                    format!(" ({QUOTE_HINT})")
                };
                Err(self.error(
                    self.pos,
                    format!(
                        "expected a key name, `*` or `**` after `.`, found {}{hint}",
                        self.found()
                    ),
                ))
            }
        }
    }

    /// `[...]`: `[]`, `[n]`, `[a:b]` (either side optional) or `["key"]`.
    fn subscript(&mut self, segments: &mut Vec<Segment>) -> Result<(), SelectorError> {
        let open = self.pos;
        self.pos += 1;
        let segment = match self.peek() {
            Some(']') => Segment::EveryIndex,
            Some('"') => Segment::Key(self.string()?),
            Some(c) if c.is_ascii_digit() || c == ':' || c == '-' => self.range()?,
            _ => {
                return Err(self.error(
                    self.pos,
                    format!(
                        "expected an index like `[0]`, a range like `[1:3]`, a quoted key like `[\"key\"]` or `[]` for every element, found {}",
                        self.found()
                    ),
                ))
            }
        };
        if self.peek() != Some(']') {
            return Err(self.error(
                self.pos,
                format!(
                    "expected `]` to close the `[` at character {}, found {}",
                    open + 1,
                    self.found()
                ),
            ));
        }
        self.pos += 1;
        segments.push(segment);
        Ok(())
    }

    /// `n`, `a:b`, `a:`, `:b` or `:` inside brackets.
    fn range(&mut self) -> Result<Segment, SelectorError> {
        let first = self.pos;
        let start = self.number()?;
        if self.peek() != Some(':') {
            return match start {
                Some(index) if self.peek() == Some(']') => Ok(Segment::Index(index)),
                _ => Err(self.error(
                    self.pos,
                    format!(
                        "expected `]` or `:` after the index, found {}",
                        self.found()
                    ),
                )),
            };
        }
        self.pos += 1;
        let end = self.number()?;
        Ok(match (start.unwrap_or(0), end) {
            (0, None) => Segment::EveryIndex,
            (start, Some(end)) if start > end => {
                return Err(self.error(
                    first,
                    format!(
                        "the range `[{start}:{end}]` starts after its end (the end is exclusive)"
                    ),
                ))
            }
            (start, end) => Segment::Range { start, end },
        })
    }

    /// Decimal digits, if any.
    fn number(&mut self) -> Result<Option<usize>, SelectorError> {
        if self.peek() == Some('-') {
            return Err(self.error(
                self.pos,
                "negative indexes are not supported: write a 0-based index like `[0]`, a range like `[1:3]`, or `[]` for every element",
            ));
        }
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Ok(None);
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        digits
            .parse()
            .map(Some)
            .map_err(|_| self.error(start, format!("the index {digits} is too large")))
    }

    /// A JSON string literal, starting at its `"`.
    fn string(&mut self) -> Result<String, SelectorError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(self.error(
                        self.pos,
                        format!(
                        "unterminated quoted key: expected a `\"` to close the one at character {}",
                        open + 1
                    ),
                    ))
                }
                Some('"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.pos += 1;
                    out.push(self.escape(open)?);
                }
                Some(c) => {
                    self.pos += 1;
                    out.push(c);
                }
            }
        }
    }

    /// The character of an escape whose `\` was just consumed.
    fn escape(&mut self, open: usize) -> Result<char, SelectorError> {
        let at = self.pos;
        let c = match self.peek() {
            None => {
                return Err(self.error(
                    self.pos,
                    format!(
                        "unterminated quoted key: expected a `\"` to close the one at character {}",
                        open + 1
                    ),
                ))
            }
            Some('"') => '"',
            Some('\\') => '\\',
            Some('/') => '/',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('u') => {
                self.pos += 1;
                let high = self.hex4()?;
                return match high {
                    0xD800..=0xDBFF => {
                        if self.peek() == Some('\\') && self.chars.get(self.pos + 1) == Some(&'u') {
                            self.pos += 2;
                            let low = self.hex4()?;
                            if (0xDC00..=0xDFFF).contains(&low) {
                                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                                Ok(char::from_u32(code).expect("a surrogate pair is a scalar value"))
                            } else {
                                Err(self.error(
                                    self.pos - 4,
                                    format!("`\\u{low:04X}` cannot end a UTF-16 surrogate pair: expected `\\uDC00` to `\\uDFFF`"),
                                ))
                            }
                        } else {
                            Err(self.error(
                                self.pos,
                                format!("`\\u{high:04X}` starts a UTF-16 surrogate pair: expected a `\\uDC00` to `\\uDFFF` escape after it, found {}", self.found()),
                            ))
                        }
                    }
                    0xDC00..=0xDFFF => Err(self.error(
                        at,
                        format!("`\\u{high:04X}` is the second half of a UTF-16 surrogate pair and cannot stand alone"),
                    )),
                    _ => Ok(char::from_u32(high).expect("not a surrogate")),
                };
            }
            Some(c) => {
                return Err(self.error(
                    at,
                    format!(
                        "invalid escape `\\{}` in a quoted key; allowed: `\\\"` `\\\\` `\\/` `\\b` `\\f` `\\n` `\\r` `\\t` `\\uXXXX`",
                        c.escape_debug()
                    ),
                ))
            }
        };
        self.pos += 1;
        Ok(c)
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u32, SelectorError> {
        let mut code = 0;
        for _ in 0..4 {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(digit) => {
                    code = code * 16 + digit;
                    self.pos += 1;
                }
                None => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected four hex digits after `\\u`, found {}",
                            self.found()
                        ),
                    ))
                }
            }
        }
        Ok(code)
    }
}

#[cfg(test)]
mod should {
    use super::*;
    use crate::json::arbitrary;
    use crate::json::differences;
    use proptest::prelude::{prop_assert, prop_assert_eq, TestCaseError};
    use serde_json::json;
    use PathSegment::{Index as I, Key as K};

    fn parse(text: &str) -> Selector {
        Selector::parse(text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn segments(text: &str) -> Vec<Vec<Segment>> {
        parse(text).alternatives
    }

    fn key(k: &str) -> Segment {
        Segment::Key(k.to_owned())
    }

    fn error(text: &str) -> SelectorError {
        match Selector::parse(text) {
            Ok(s) => panic!("`{text}` parsed as {s:?}"),
            Err(e) => e,
        }
    }

    /// The position of an error, and that its message says something about `hint`.
    fn error_at(text: &str, hint: &str) -> usize {
        let e = error(text);
        assert!(
            e.message.contains(hint),
            "message for `{text}` lacks `{hint}`: {}",
            e.message
        );
        e.position
    }

    /// Paths visited by `apply`, in order, leaving the value alone.
    fn visited(selector: &str, value: &Value) -> Vec<String> {
        let mut value = value.clone();
        let mut out = Vec::new();
        parse(selector).apply(&mut value, &mut |_, path| out.push(path.to_owned()));
        out
    }

    #[test]
    fn parse_keys_indexes_and_wildcards() {
        assert_eq!(
            segments(".result.content[].text"),
            [vec![
                key("result"),
                key("content"),
                Segment::EveryIndex,
                key("text")
            ]]
        );
        assert_eq!(
            segments(".a[0][12].*.b"),
            [vec![
                key("a"),
                Segment::Index(0),
                Segment::Index(12),
                Segment::Any,
                key("b")
            ]]
        );
        assert_eq!(
            segments(".params.**.timestamp"),
            [vec![key("params"), Segment::Deep, key("timestamp")]]
        );
        assert_eq!(segments(".**"), [vec![Segment::Deep]]);
        assert_eq!(segments(".*"), [vec![Segment::Any]]);
    }

    #[test]
    fn parse_the_root_alone_as_no_segments() {
        assert_eq!(segments("."), [Vec::<Segment>::new()]);
        assert_eq!(parse(" . ").as_str(), ".");
    }

    #[test]
    fn parse_bare_keys_with_digits_dashes_underscores_and_slashes() {
        assert_eq!(
            segments("._meta.a-b/c_9.0"),
            [vec![key("_meta"), key("a-b/c_9"), key("0")]]
        );
    }

    #[test]
    fn split_a_dotted_name_into_separate_keys() {
        assert_eq!(
            segments(".io.modelcontextprotocol/clientInfo"),
            [vec![key("io"), key("modelcontextprotocol/clientInfo")]]
        );
    }

    #[test]
    fn parse_quoted_keys_with_dots_slashes_and_escapes() {
        assert_eq!(
            segments(r#".params._meta["io.modelcontextprotocol/clientInfo"]"#),
            [vec![
                key("params"),
                key("_meta"),
                key("io.modelcontextprotocol/clientInfo")
            ]]
        );
        assert_eq!(segments(r#".["a\"b"]"#), [vec![key("a\"b")]]);
        assert_eq!(
            segments(r#".["\\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00"]"#),
            [vec![key("\\ / \u{8}\u{c}\n\r\t é 😀")]]
        );
        assert_eq!(segments(r#".[""]"#), [vec![key("")]]);
        assert_eq!(segments(r#".["*"]["**"]"#), [vec![key("*"), key("**")]]);
    }

    #[test]
    fn parse_subscripts_right_after_the_root() {
        assert_eq!(segments(".[0]"), [vec![Segment::Index(0)]]);
        assert_eq!(segments(".[]"), [vec![Segment::EveryIndex]]);
        assert_eq!(segments(r#".["a b"].c"#), [vec![key("a b"), key("c")]]);
    }

    #[test]
    fn parse_ranges_with_optional_bounds() {
        let range = |start, end| Segment::Range { start, end };
        assert_eq!(
            segments(".a[1:3][2:][:4][:][0:]"),
            [vec![
                key("a"),
                range(1, Some(3)),
                range(2, None),
                range(0, Some(4)),
                Segment::EveryIndex,
                Segment::EveryIndex,
            ]]
        );
        assert_eq!(segments(".a[2:2]"), [vec![key("a"), range(2, Some(2))]]);
    }

    #[test]
    fn parse_alternatives_and_normalize_the_spacing_around_commas() {
        let selector = parse("  .id ,.result.x,\t.** ");
        assert_eq!(
            selector.alternatives,
            [
                vec![key("id")],
                vec![key("result"), key("x")],
                vec![Segment::Deep]
            ]
        );
        assert_eq!(selector.as_str(), ".id, .result.x, .**");
        assert_eq!(parse(".id, .result.x, .**"), selector);
    }

    #[test]
    fn keep_the_selector_as_written() {
        let text = r#".result["content"][0:2].**.x"#;
        assert_eq!(parse(text).as_str(), text);
    }

    #[test]
    fn collapse_repeated_deep_wildcards() {
        assert_eq!(
            segments(".**.**.a.**"),
            [vec![Segment::Deep, key("a"), Segment::Deep]]
        );
    }

    #[test]
    fn reject_an_empty_selector() {
        assert_eq!(error_at("", "empty selector"), 0);
        assert_eq!(error_at("   ", "empty selector"), 3);
    }

    #[test]
    fn reject_a_selector_that_does_not_start_with_a_dot() {
        assert_eq!(error_at("result.content", "starts with `.`"), 0);
        assert_eq!(error_at("  [0]", "starts with `.`"), 2);
        assert_eq!(error_at(".a,,.b", "starts with `.`"), 3);
        assert_eq!(error_at(".a, b", "found `b`"), 4);
    }

    #[test]
    fn reject_two_dots_with_the_caret_under_the_second() {
        let e = error(".result..text");
        assert_eq!(e.position, 8);
        assert_eq!(
            e.to_string(),
            "invalid selector `.result..text`: expected a key name, `*` or `**` after `.`, found `.` \
             (keys with other characters are written `[\"...\"]`) at character 9\n  \
             .result..text\n          ^"
        );
    }

    #[test]
    fn reject_a_dot_with_nothing_after_it() {
        assert_eq!(error_at(".result.", "found the end"), 8);
        assert_eq!(error_at(".a. .b", "found a space"), 3);
        assert_eq!(error_at(".a.,.b", "found `,`"), 3);
        assert_eq!(
            error(".a.").message,
            "expected a key name, `*` or `**` after `.`, found the end"
        );
        assert_eq!(error_at(".a.[0]", "follows its parent directly"), 3);
    }

    #[test]
    fn reject_an_unterminated_quoted_key_at_the_end() {
        let e = error(r#".a["b.c"#);
        assert_eq!(e.position, 7);
        assert_eq!(
            e.to_string(),
            "invalid selector `.a[\"b.c`: unterminated quoted key: expected a `\"` to close the one at \
             character 4 at character 8\n  .a[\"b.c\n         ^"
        );
        assert_eq!(error_at(r#".["a\"#, "unterminated"), 5);
    }

    #[test]
    fn reject_a_bad_escape_at_its_letter() {
        assert_eq!(error_at(r#".["a\qb"]"#, "invalid escape `\\q`"), 5);
        assert_eq!(error_at(r#".["\u12g4"]"#, "four hex digits"), 7);
        assert_eq!(error_at(r#".["\ud83d"]"#, "surrogate pair"), 9);
        assert_eq!(error_at(r#".["\ude00"]"#, "second half"), 4);
        assert_eq!(error_at(r#".["\ud83d\u0041"]"#, "cannot end"), 11);
    }

    #[test]
    fn reject_a_bare_word_in_brackets() {
        assert_eq!(error_at(".a[abc]", "a quoted key like `[\"key\"]`"), 3);
        assert_eq!(error_at(".a[*]", "found `*`"), 3);
        assert_eq!(error_at(".a['b']", "found `'`"), 3);
    }

    #[test]
    fn reject_a_missing_closing_bracket() {
        assert_eq!(error_at(".a[0", "expected `]` or `:`"), 4);
        assert_eq!(error_at(".a[0x]", "found `x`"), 4);
        assert_eq!(error_at(".a[1:2", "close the `[` at character 3"), 6);
        assert_eq!(error_at(r#".a["b""#, "close the `[` at character 3"), 6);
        assert_eq!(error_at(".a[", "found the end"), 3);
    }

    #[test]
    fn reject_a_trailing_comma() {
        assert_eq!(error_at(".a,", "trailing `,`"), 3);
        assert_eq!(error_at(".a, ", "trailing `,`"), 4);
    }

    #[test]
    fn reject_an_unexpected_character_after_a_segment() {
        assert_eq!(error_at(".result!", "after `.result`, found `!`"), 7);
        assert_eq!(error_at(".a[0]x", "after `[0]`, found `x`"), 5);
        assert_eq!(error_at(".*x", "after `.*`, found `x`"), 2);
        assert_eq!(error_at(".***", "after `.**`, found `*`"), 3);
        assert_eq!(error_at(".a .b", "spaces are only allowed around `,`"), 3);
    }

    #[test]
    fn reject_negative_indexes_and_backwards_ranges() {
        assert_eq!(error_at(".a[-1]", "negative indexes"), 3);
        assert_eq!(error_at(".a[1:-1]", "negative indexes"), 5);
        assert_eq!(error_at(".a[3:1]", "starts after its end"), 3);
        assert_eq!(error_at(".a[99999999999999999999999]", "too large"), 3);
    }

    #[test]
    fn count_positions_in_characters_not_bytes() {
        let e = error(r#".["é"]é"#);
        assert_eq!(e.position, 6);
        assert!(e.to_string().ends_with("\n  .[\"é\"]é\n        ^"), "{e}");
    }

    #[test]
    fn be_a_standard_error() {
        let e: Box<dyn std::error::Error> = Box::new(error(".."));
        assert!(e.to_string().starts_with("invalid selector `..`"));
    }

    #[test]
    fn match_the_root_only_with_the_root_selector() {
        assert!(parse(".").matches(&[]));
        assert!(!parse(".").matches(&[K("a")]));
        assert!(!parse(".a").matches(&[]));
        assert!(!parse(".*").matches(&[]));
    }

    #[test]
    fn match_keys_and_indexes_exactly() {
        let s = parse(".result.content[1].text");
        assert!(s.matches(&[K("result"), K("content"), I(1), K("text")]));
        assert!(!s.matches(&[K("result"), K("content"), I(0), K("text")]));
        assert!(!s.matches(&[K("result"), K("content"), I(1)]));
        assert!(!s.matches(&[K("result"), K("content"), I(1), K("text"), K("x")]));
        assert!(!parse(".a.0").matches(&[K("a"), I(0)]));
        assert!(parse(".a.0").matches(&[K("a"), K("0")]));
        assert!(!parse(".a[0]").matches(&[K("a"), K("0")]));
    }

    #[test]
    fn match_a_deep_wildcard_at_the_start() {
        let s = parse(".**.timestamp");
        assert!(s.matches(&[K("timestamp")]));
        assert!(s.matches(&[K("params"), I(3), K("x"), K("timestamp")]));
        assert!(!s.matches(&[K("params"), K("timestamp"), K("x")]));
        assert!(!s.matches(&[]));
    }

    #[test]
    fn match_a_deep_wildcard_in_the_middle() {
        let s = parse(".params.**.timestamp");
        assert!(s.matches(&[K("params"), K("timestamp")]));
        assert!(s.matches(&[K("params"), K("a"), I(2), K("b"), K("timestamp")]));
        assert!(!s.matches(&[K("result"), K("timestamp")]));
        assert!(!s.matches(&[K("timestamp")]));
        let twice = parse(".a.**.b.**.c");
        assert!(twice.matches(&[K("a"), K("b"), K("c")]));
        assert!(twice.matches(&[K("a"), K("x"), K("b"), I(0), K("b"), K("c")]));
        assert!(!twice.matches(&[K("a"), K("c"), K("b")]));
    }

    #[test]
    fn match_a_deep_wildcard_at_the_end_including_its_parent() {
        let s = parse(".params.**");
        assert!(s.matches(&[K("params")]));
        assert!(s.matches(&[K("params"), I(0), K("x")]));
        assert!(!s.matches(&[]));
        assert!(!s.matches(&[K("result")]));
        let all = parse(".**");
        assert!(all.matches(&[]));
        assert!(all.matches(&[I(4), K("x")]));
    }

    #[test]
    fn match_every_index_with_brackets_but_keys_too_with_a_star() {
        let brackets = parse(".a[]");
        let star = parse(".a.*");
        assert!(brackets.matches(&[K("a"), I(7)]));
        assert!(!brackets.matches(&[K("a"), K("b")]));
        assert!(star.matches(&[K("a"), I(7)]));
        assert!(star.matches(&[K("a"), K("b")]));
        assert!(!star.matches(&[K("a")]));
        assert!(!star.matches(&[K("a"), K("b"), K("c")]));
    }

    #[test]
    fn match_ranges_with_an_exclusive_end() {
        let s = parse(".a[1:3]");
        assert!(!s.matches(&[K("a"), I(0)]));
        assert!(s.matches(&[K("a"), I(1)]));
        assert!(s.matches(&[K("a"), I(2)]));
        assert!(!s.matches(&[K("a"), I(3)]));
        assert!(parse(".a[2:]").matches(&[K("a"), I(1000)]));
        assert!(!parse(".a[:2]").matches(&[K("a"), I(2)]));
        assert!(!parse(".a[1:3]").matches(&[K("a"), K("1")]));
    }

    #[test]
    fn match_quoted_keys_with_dots_slashes_and_escapes() {
        let s = parse(r#".params._meta["io.modelcontextprotocol/clientInfo"]"#);
        assert!(s.matches(&[
            K("params"),
            K("_meta"),
            K("io.modelcontextprotocol/clientInfo")
        ]));
        assert!(!s.matches(&[
            K("params"),
            K("_meta"),
            K("io"),
            K("modelcontextprotocol/clientInfo")
        ]));
        assert!(parse(r#".["a\"b\\c\n"]"#).matches(&[K("a\"b\\c\n")]));
        assert!(parse(r#".["caf\u00e9"]"#).matches(&[K("café")]));
        assert!(parse(r#".["*"]"#).matches(&[K("*")]));
        assert!(!parse(r#".["*"]"#).matches(&[K("x")]));
    }

    #[test]
    fn match_any_alternative() {
        let s = parse(".id, .result.**.timestamp, .params[0]");
        assert!(s.matches(&[K("id")]));
        assert!(s.matches(&[K("result"), K("x"), K("timestamp")]));
        assert!(s.matches(&[K("params"), I(0)]));
        assert!(!s.matches(&[K("params"), I(1)]));
        assert!(!s.matches(&[K("method")]));
    }

    fn message() -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": 3,
            "result": {
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "image", "data": "xyz"},
                    {"type": "text", "text": "b", "_meta": {"timestamp": 1}}
                ],
                "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}, "timestamp": 2},
                "timestamp": 3
            }
        })
    }

    #[test]
    fn visit_the_matching_nodes_in_document_order_with_exact_paths() {
        assert_eq!(
            visited(".result.content[].text", &message()),
            [".result.content[0].text", ".result.content[2].text"]
        );
        assert_eq!(
            visited(".**.timestamp", &message()),
            [
                ".result._meta.timestamp",
                ".result.content[2]._meta.timestamp",
                ".result.timestamp"
            ]
        );
        assert_eq!(
            visited(".result.*", &message()),
            [".result._meta", ".result.content", ".result.timestamp"]
        );
        assert_eq!(
            visited(".result.content[1:].type, .id", &message()),
            [".id", ".result.content[1].type", ".result.content[2].type"]
        );
        assert_eq!(visited(".", &message()), ["."]);
        assert_eq!(
            visited(".result.missing, .id.x, .[0]", &message()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn visit_parents_before_children() {
        assert_eq!(
            visited(".result._meta.**", &message()),
            [
                ".result._meta",
                ".result._meta[\"io.modelcontextprotocol/related-task\"]",
                ".result._meta[\"io.modelcontextprotocol/related-task\"].taskId",
                ".result._meta.timestamp"
            ]
        );
    }

    #[test]
    fn visit_a_node_once_when_several_alternatives_match_it() {
        assert_eq!(visited(".id, .**, .*", &json!({"id": 1})), [".", ".id"]);
        assert_eq!(
            visited(".a.**.b, .a.b, .**.b", &json!({"a": {"b": 1}})),
            [".a.b"]
        );
    }

    #[test]
    fn render_keys_that_are_not_bare_as_json_strings() {
        let keys = [
            "a b",
            "a.b",
            "",
            "q\"uote",
            "back\\slash",
            "ctl\u{1}\u{8}\u{c}\n\r\t",
            "é",
            "*",
        ];
        for k in keys {
            let mut value = json!({"x": {k: 1}});
            let mut paths = Vec::new();
            parse(".x.*").apply(&mut value, &mut |_, path| paths.push(path.to_owned()));
            assert_eq!(paths, [format!(".x[{}]", Value::String(k.to_owned()))]);
        }
        assert_eq!(visited(".*", &json!({"a/b-c_1": 0})), [".a/b-c_1"]);
    }

    #[test]
    fn render_subscripts_at_the_root_after_a_dot() {
        assert_eq!(visited(".[]", &json!([1, 2])), [".[0]", ".[1]"]);
        assert_eq!(visited(".*", &json!({"a b": 1})), [".[\"a b\"]"]);
    }

    #[test]
    fn let_the_callback_rewrite_the_matching_nodes() {
        let mut value = message();
        parse(".**.timestamp, .result.content[].data").apply(&mut value, &mut |node, _| {
            *node = json!("<redacted>");
        });
        assert_eq!(value["result"]["timestamp"], "<redacted>");
        assert_eq!(value["result"]["_meta"]["timestamp"], "<redacted>");
        assert_eq!(
            value["result"]["content"][2]["_meta"]["timestamp"],
            "<redacted>"
        );
        assert_eq!(value["result"]["content"][1]["data"], "<redacted>");
        assert_eq!(value["result"]["content"][0]["text"], "a");
    }

    #[test]
    fn not_descend_into_an_object_replaced_by_a_string() {
        let mut value = json!({"a": {"b": {"c": 1}}, "d": 2});
        let mut paths = Vec::new();
        parse(".**").apply(&mut value, &mut |node, path| {
            paths.push(path.to_owned());
            if path == ".a" {
                *node = json!("gone");
            }
        });
        assert_eq!(paths, [".", ".a", ".d"]);
        assert_eq!(value, json!({"a": "gone", "d": 2}));
    }

    #[test]
    fn descend_into_the_value_the_callback_put_in_place() {
        let mut value = json!({"a": {"old": 1}});
        let mut paths = Vec::new();
        parse(".**").apply(&mut value, &mut |node, path| {
            paths.push(path.to_owned());
            if path == ".a" {
                *node = json!({"new": [true]});
            }
        });
        assert_eq!(paths, [".", ".a", ".a.new", ".a.new[0]"]);
    }

    /// A handful of nested values, hand-built to cover empty containers, scalars at the
    /// root, keys that need quoting, and arrays of arrays.
    fn samples() -> Vec<Value> {
        vec![
            json!(null),
            json!("scalar"),
            json!({}),
            json!([]),
            json!([[], [[1, 2], {}], {"": {"a b": [null]}}]),
            json!({"a": {"a": {"a": [1, {"a": 2}]}}, "b": [true, false], "c": "x"}),
            json!({"x.y": {"z/w": [{"\"": 1, "\\": [[0]]}]}, "timestamp": 5, "params": {"timestamp": 6}}),
            message(),
        ]
    }

    /// Every node of `value` with its concrete path, in document order.
    fn nodes(value: &Value) -> Vec<Vec<OwnedStep>> {
        fn walk(value: &Value, path: &mut Vec<OwnedStep>, out: &mut Vec<Vec<OwnedStep>>) {
            out.push(path.clone());
            match value {
                Value::Object(map) => {
                    for (k, v) in map {
                        path.push(OwnedStep::Key(k.clone()));
                        walk(v, path, out);
                        path.pop();
                    }
                }
                Value::Array(items) => {
                    for (i, v) in items.iter().enumerate() {
                        path.push(OwnedStep::Index(i));
                        walk(v, path, out);
                        path.pop();
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(value, &mut Vec::new(), &mut out);
        out
    }

    #[derive(Clone)]
    enum OwnedStep {
        Key(String),
        Index(usize),
    }

    fn borrowed(path: &[OwnedStep]) -> Vec<PathSegment<'_>> {
        path.iter()
            .map(|step| match step {
                OwnedStep::Key(k) => K(k),
                OwnedStep::Index(i) => I(*i),
            })
            .collect()
    }

    fn rendered(path: &[OwnedStep]) -> String {
        let mut out = String::new();
        for step in borrowed(path) {
            push_step(&mut out, step);
        }
        rendered_path(&out).to_owned()
    }

    #[test]
    fn visit_every_node_exactly_once_with_a_deep_wildcard() {
        for value in samples() {
            let expected: Vec<String> = nodes(&value).iter().map(|p| rendered(p)).collect();
            assert_eq!(visited(".**", &value), expected, "in {value}");
            let mut unique = expected.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), expected.len(), "in {value}");
        }
    }

    #[test]
    fn visit_exactly_the_nodes_that_match() {
        let selectors = [
            ".",
            ".**",
            ".*",
            ".[]",
            ".**.a",
            ".a.**",
            ".a.**.a",
            ".**[]",
            ".**.*.**",
            ".*[1:]",
            ".**[0][0]",
            ".result.content[].text, .**.timestamp",
            r#".["x.y"]["z/w"][0].*"#,
            ".a.a.a[1].a, .a.a.a[0:1], .b[5]",
            r#".**[""]["a b"][:1]"#,
        ];
        for value in samples() {
            let all = nodes(&value);
            for selector in selectors {
                let expected: Vec<String> = all
                    .iter()
                    .filter(|p| parse(selector).matches(&borrowed(p)))
                    .map(|p| rendered(p))
                    .collect();
                assert_eq!(
                    visited(selector, &value),
                    expected,
                    "`{selector}` in {value}"
                );
            }
        }
    }

    #[test]
    fn render_paths_that_parse_back_to_a_selector_for_that_node_alone() {
        for value in samples() {
            let all = nodes(&value);
            for path in &all {
                let selector = parse(&rendered(path));
                assert_eq!(selector.as_str(), rendered(path));
                for other in &all {
                    let same = rendered(other) == rendered(path);
                    assert_eq!(
                        selector.matches(&borrowed(other)),
                        same,
                        "{}",
                        rendered(other)
                    );
                }
                assert_eq!(visited(selector.as_str(), &value), [rendered(path)]);
            }
        }
    }

    fn render(path: &[arbitrary::Step]) -> String {
        let mut out = String::new();
        for step in path {
            push_step(&mut out, step.borrowed());
        }
        rendered_path(&out).to_owned()
    }

    fn removed(selector: &str, value: &Value) -> Value {
        let mut value = value.clone();
        parse(selector).remove(&mut value);
        value
    }

    #[test]
    fn remove_matched_members_and_elements_but_never_the_root() {
        let value = json!({"a": {"b": 1, "c": [1, 2, 3]}, "d": [{"e": 1, "f": 2}, {"e": 3}]});
        assert_eq!(
            removed(".a.b", &value),
            json!({"a": {"c": [1, 2, 3]}, "d": [{"e": 1, "f": 2}, {"e": 3}]})
        );
        assert_eq!(
            removed(".d[].e, .a.c[1:]", &value),
            json!({"a": {"b": 1, "c": [1]}, "d": [{"f": 2}, {}]})
        );
        assert_eq!(
            removed(".**.e", &value),
            json!({"a": {"b": 1, "c": [1, 2, 3]}, "d": [{"f": 2}, {}]})
        );
        assert_eq!(removed(".a.c[]", &value)["a"]["c"], json!([]));
        assert_eq!(removed(".a.*", &value)["a"], json!({}));
        // Indexes are those of the value as it was, in one walk.
        assert_eq!(removed(".a.c[0], .a.c[2]", &value)["a"]["c"], json!([2]));
        // The outermost match goes; what was below it is not looked at.
        assert_eq!(
            removed(".a, .a.b", &value),
            json!({"d": [{"e": 1, "f": 2}, {"e": 3}]})
        );
        assert_eq!(removed(".", &value), value);
        assert_eq!(removed(".**", &value), json!({}));
        assert_eq!(removed(".x.y, .a.b.c, .d[7]", &value), value);
    }

    #[test]
    fn refuse_to_remove_one_element_or_a_bounded_range_as_not_idempotent() {
        for text in [".a[0]", ".a[1:3]", ".a[:2]", ".a, .b[2].**", "."] {
            assert!(parse(text).why_not_removable().is_some(), "{text}");
        }
        for text in [
            ".a",
            ".a[0].b",
            ".a[]",
            ".a[2:]",
            ".a.*",
            ".**",
            ".a[0:2].b.**",
        ] {
            assert_eq!(parse(text).why_not_removable(), None, "{text}");
        }
        assert_eq!(
            parse(".x, .a[0]").why_not_removable().unwrap(),
            "cannot remove `.x, .a[0]`: it ends in one array element: removing it again would \
             remove the next one (remove every element with `[]`, or the tail with `[n:]`)"
        );
    }

    /// Selectors over the keys `a`, `b` and small indexes, so that they hit.
    fn small_selector() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let segment = prop_oneof![
            Just(".a"),
            Just(".b"),
            Just("[0]"),
            Just("[1]"),
            Just("[1:]"),
            Just("[:2]"),
            Just("[]"),
            Just(".*"),
            Just(".**"),
        ];
        let alternative = prop::collection::vec(segment, 1..4).prop_map(|s| {
            let text = s.concat();
            if text.starts_with('[') {
                format!(".{text}")
            } else {
                text
            }
        });
        prop::collection::vec(alternative, 1..3).prop_map(|a| a.join(", "))
    }

    fn small_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![Just(Value::Null), (0..3i64).prop_map(Value::from)];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(
                    prop_oneof![Just("a"), Just("b"), Just("c")],
                    inner,
                    0..3
                )
                .prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn remove_idempotently_whatever_why_not_removable_lets_through(
            text in small_selector(),
            value in small_json(),
        ) {
            let selector = parse(&text);
            if selector.why_not_removable().is_none() {
                let once = removed(&text, &value);
                prop_assert_eq!(&removed(&text, &once), &once, "{}", text);
                // Nothing the selector matches is left, but the root.
                let left = visited(&text, &once);
                prop_assert!(left.iter().all(|p| p == "."), "{} left {:?}", text, left);
            }
        }

        #[test]
        fn render_any_path_as_a_selector_that_matches_that_path_alone(path in arbitrary::path()) {
            let text = render(&path);
            let selector = Selector::parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let steps: Vec<PathSegment<'_>> = path.iter().map(arbitrary::Step::borrowed).collect();
            prop_assert!(selector.matches(&steps), "{}", text);
            if let Some((last, parent)) = steps.split_last() {
                prop_assert!(!selector.matches(parent), "{} matches its parent", text);
                let other = match *last {
                    K(key) => K(if key == "x" { "y" } else { "x" }),
                    I(i) => I(i.wrapping_add(1)),
                };
                let sibling: Vec<PathSegment<'_>> = parent.iter().copied().chain([other]).collect();
                prop_assert!(!selector.matches(&sibling), "{} matches a sibling", text);
                let flipped = match *last {
                    K(_) => I(0),
                    I(_) => K("0"),
                };
                let flipped: Vec<PathSegment<'_>> = parent.iter().copied().chain([flipped]).collect();
                prop_assert!(!selector.matches(&flipped), "{} matches a step of the other kind", text);
            }
            let child: Vec<PathSegment<'_>> = steps.iter().copied().chain([I(0)]).collect();
            prop_assert!(!selector.matches(&child), "{} matches its child", text);
        }

        #[test]
        fn render_every_node_of_any_value_as_a_selector_for_that_node_alone(value in arbitrary::json()) {
            for path in nodes(&value) {
                let text = rendered(&path);
                let selector = Selector::parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(selector.as_str(), text.as_str());
                prop_assert_eq!(visited(&text, &value), [text.clone()]);
            }
        }
    }

    /// The nodes `selector` visits in `value`, with their paths.
    fn visit(selector: &Selector, value: &Value) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        selector.apply(&mut value.clone(), &mut |v, path| {
            out.push((path.to_owned(), v.clone()))
        });
        out
    }

    proptest::proptest! {
        #[test]
        fn give_each_difference_a_path_that_selects_exactly_that_place(
            expected in arbitrary::json(),
            actual in arbitrary::json(),
        ) {
            for d in differences(&expected, &actual) {
                let selector = Selector::parse(&d.path)
                    .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                for (side, value) in [(&d.expected, &expected), (&d.actual, &actual)] {
                    let want: Vec<(String, Value)> =
                        side.iter().map(|v| (d.path.clone(), v.clone())).collect();
                    proptest::prop_assert_eq!(visit(&selector, value), want);
                }
            }
        }
    }
}
