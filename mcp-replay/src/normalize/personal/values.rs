//! The values a user names: a values file ([`Values`]) whose values become `<KIND:n>`
//! wherever they occur, and a deny list ([`DenyList`]) that a fixture must not hold, in
//! any case and escaped or not.
//!
//! Both read the same format, one literal value a line:
//!
//! ```text
//! # customers of the tenant the recordings were made in
//! [customer]
//! Acme Corporation
//! Globex
//! [host]
//! build-07.corp.acme.internal
//! ```
//!
//! A `[kind]` line names the kind of the values below it (`<CUSTOMER:1>`; `<VALUE:n>`
//! before any); `#` starts a comment line; blank lines are skipped; a value is trimmed.

use crate::data::json::path::{push_step, rendered_path, PathSegment};
use crate::error::Error;
use regex::{Regex, RegexBuilder};
use serde_json::Value;
use std::fmt;
use std::path::Path;

/// A value shorter than this would match almost anywhere.
const MIN_VALUE: usize = 3;

/// Literal values to write as `<KIND:n>` wherever they occur (also inside strings, in any
/// case), numbered by first occurrence per kind.
///
/// ```
/// use mcp_replay::personal::Values;
///
/// let values = Values::parse("[customer]\nAcme Corporation\n# a comment\n", "values.txt").unwrap();
/// assert_eq!(values.len(), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Values {
    /// `(kind, value in lower case)`, in the file's order.
    entries: Vec<(String, String)>,
    /// All of them, longest first, in any case.
    matcher: Option<Regex>,
}

impl Values {
    /// Reads a values file's text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Values, Error> {
        let mut values = Values::default();
        for (line, kind, value) in entries(text, source)? {
            if value.chars().count() < MIN_VALUE {
                return Err(values_error(
                    source,
                    format!("line {line}: a value of fewer than {MIN_VALUE} characters would match almost anywhere"),
                ));
            }
            values.push(kind, &value);
        }
        values.compile();
        Ok(values)
    }

    /// Reads the values file at `path`.
    pub fn load(path: &Path) -> Result<Values, Error> {
        let text = read(path)?;
        Values::parse(&text, &path.display().to_string())
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Are there none?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds a value of `kind` (a placeholder name: `CUSTOMER`).
    pub(crate) fn add(&mut self, kind: &str, value: &str) {
        self.push(kind.to_owned(), value);
        self.compile();
    }

    /// Adds `other`'s values.
    pub(crate) fn extend(&mut self, other: &Values) {
        for (kind, value) in &other.entries {
            self.push(kind.clone(), value);
        }
        self.compile();
    }

    fn push(&mut self, kind: String, value: &str) {
        let value = value.to_lowercase();
        if !self.entries.iter().any(|(_, v)| *v == value) {
            self.entries.push((kind, value));
        }
    }

    fn compile(&mut self) {
        if self.entries.is_empty() {
            self.matcher = None;
            return;
        }
        let mut all: Vec<&str> = self.entries.iter().map(|(_, v)| v.as_str()).collect();
        all.sort_by_key(|v| std::cmp::Reverse(v.len()));
        let pattern = all
            .iter()
            .map(|v| regex::escape(v))
            .collect::<Vec<_>>()
            .join("|");
        self.matcher = Some(
            RegexBuilder::new(&pattern)
                .case_insensitive(true)
                .build()
                .expect("escaped literals are a valid pattern"),
        );
    }

    /// The pattern of every value, when there are values.
    pub(crate) fn matcher(&self) -> Option<&Regex> {
        self.matcher.as_ref()
    }

    /// The kind of the value `text` matched.
    pub(crate) fn kind_of(&self, text: &str) -> &str {
        let text = text.to_lowercase();
        self.entries
            .iter()
            .find(|(_, v)| *v == text)
            .map_or("VALUE", |(k, _)| k.as_str())
    }

    /// Is `name` the kind of one of the values?
    pub(crate) fn has_kind(&self, name: &str) -> bool {
        self.entries.iter().any(|(k, _)| k == name)
    }
}

/// A list of values no fixture may hold, in any case, percent-encoded (`alice%40corp.com`)
/// or JSON-escaped (`alice\u0040corp.com`) or not: the proof that a committed fixture holds
/// none of the original sensitive values. A finding ([`Denied`]) names the fixture's line,
/// the JSON path and the list's line, never the value.
///
/// ```
/// use mcp_replay::personal::DenyList;
///
/// let deny = DenyList::parse("Alice Liddell\n", "deny.txt").unwrap();
/// let found = deny.check(r#"{"direction":"server->client","message":{"result":{"text":"alice%20liddell"}}}"#);
/// assert_eq!(found[0].to_string(), "line 1: .message.result.text holds a denied value (deny.txt line 1)");
/// ```
#[derive(Debug, Clone)]
pub struct DenyList {
    source: String,
    /// `(line in the list, value in lower case)`.
    entries: Vec<(usize, String)>,
}

/// One place a fixture holds a value of a [`DenyList`]. Never holds the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied {
    /// The fixture's 1-based line.
    pub line: usize,
    /// The JSON path in that line (`.message.result.content[0].text`); a key that holds
    /// the value is written `["<REDACTED>"]`.
    pub path: String,
    /// The deny list's name and the line of the value in it.
    pub entry: String,
}

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: {} holds a denied value ({})",
            self.line, self.path, self.entry
        )
    }
}

impl DenyList {
    /// Reads a deny list's text (the values file format; kinds are ignored); `source`
    /// names it in findings and errors.
    pub fn parse(text: &str, source: &str) -> Result<DenyList, Error> {
        let entries: Vec<(usize, String)> = entries(text, source)?
            .into_iter()
            .map(|(line, _, value)| (line, value.to_lowercase()))
            .collect();
        if entries.is_empty() {
            return Err(values_error(
                source,
                "the deny list holds no value: one value a line".into(),
            ));
        }
        Ok(DenyList {
            source: source.to_owned(),
            entries,
        })
    }

    /// Reads the deny list at `path`.
    pub fn load(path: &Path) -> Result<DenyList, Error> {
        let text = read(path)?;
        DenyList::parse(&text, &path.display().to_string())
    }

    /// Every place the fixture text `text` holds a denied value, line by line: in any
    /// string, object key or number of a line, as it is, in another case, percent-encoded
    /// or `\u`-escaped.
    pub fn check(&self, text: &str) -> Vec<Denied> {
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            match serde_json::from_str::<Value>(line) {
                Ok(value) => {
                    let mut path = String::new();
                    self.walk(&value, i + 1, &mut path, &mut out);
                }
                Err(_) => {
                    if let Some(entry) = self.held(line) {
                        out.push(self.denied(i + 1, ".", entry));
                    }
                }
            }
        }
        out
    }

    fn walk(&self, value: &Value, line: usize, path: &mut String, out: &mut Vec<Denied>) {
        match value {
            Value::String(s) => {
                if let Some(entry) = self.held(s) {
                    out.push(self.denied(line, rendered_path(path), entry));
                }
            }
            Value::Number(n) => {
                if let Some(entry) = self.held(&n.to_string()) {
                    out.push(self.denied(line, rendered_path(path), entry));
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    let len = path.len();
                    push_step(path, PathSegment::Index(index));
                    self.walk(item, line, path, out);
                    path.truncate(len);
                }
            }
            Value::Object(map) => {
                for (key, item) in crate::data::json::members(map) {
                    let len = path.len();
                    match self.held(key) {
                        Some(entry) => {
                            push_step(path, PathSegment::Key("<REDACTED>"));
                            out.push(self.denied(line, rendered_path(path), entry));
                        }
                        None => push_step(path, PathSegment::Key(key)),
                    }
                    self.walk(item, line, path, out);
                    path.truncate(len);
                }
            }
            Value::Null | Value::Bool(_) => {}
        }
    }

    /// The line (in the list) of the first value `s` holds in any of its forms.
    fn held(&self, s: &str) -> Option<usize> {
        let forms = [
            s.to_lowercase(),
            percent_decoded(s).to_lowercase(),
            unescaped(s).to_lowercase(),
        ];
        self.entries
            .iter()
            .find(|(_, value)| forms.iter().any(|form| form.contains(value.as_str())))
            .map(|(line, _)| *line)
    }

    fn denied(&self, line: usize, path: &str, entry: usize) -> Denied {
        Denied {
            line,
            path: path.to_owned(),
            entry: format!("{} line {entry}", self.source),
        }
    }
}

/// `s` with `%XX` escapes decoded and `+` read as a space (a URL's query).
fn percent_decoded(s: &str) -> String {
    if !s.contains(['%', '+']) {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (hex(b[i + 1]), hex(b[i + 2])) {
                    (Some(high), Some(low)) => {
                        out.push((high * 16 + low) as u8);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `s` with JSON's escapes decoded (`\u0040`, `\"`, `\n`, ...): text that holds JSON as a
/// string, written again.
fn unescaped(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => out.push(decoded),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The `(line, kind, value)` of each value in a values file's text.
fn entries(text: &str, source: &str) -> Result<Vec<(usize, String, String)>, Error> {
    let mut kind = "VALUE".to_owned();
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            kind = kind_name(name).ok_or_else(|| {
                values_error(
                    source,
                    format!("line {}: a kind is a name of letters, digits and _ that starts with a letter, as in [customer]", i + 1),
                )
            })?;
            continue;
        }
        out.push((i + 1, kind.clone(), line.to_owned()));
    }
    Ok(out)
}

/// `customer` as the placeholder name `CUSTOMER`; `None` when it cannot be one.
pub(crate) fn kind_name(name: &str) -> Option<String> {
    let name = name.trim().to_ascii_uppercase().replace([' ', '-'], "_");
    let mut chars = name.chars();
    (chars.next()?.is_ascii_uppercase()
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
    .then_some(name)
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))
}

fn values_error(source: &str, message: String) -> Error {
    Error::Rules {
        file: source.to_owned(),
        message,
    }
}
