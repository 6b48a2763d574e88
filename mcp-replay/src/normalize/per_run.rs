//! What differs between two runs of an unchanged server, from the two messages: a string
//! minted per run (a clock-minted `at-5caaf2fb`, a random token in a sentence), bound as
//! `<MINTED:n>` (its differing token when that is long enough to be found again inside the
//! string, else the whole string); an array whose elements came in another order, sorted;
//! anything else (a number, a key present in one run only) left, named by line and path.
//! A recording's second run pins what it finds (`lifecycle/per_run.rs`); a plain run's
//! advice names the rule for what looks minted per run (`findings/advice.rs`).

use crate::data::json::path::{push_step, PathSegment};
use crate::normalize::bound::{tokens, MIN_MINTED};
use crate::normalize::placeholder::contains_placeholder;
use serde_json::Value;

/// What the second run of a recording gave otherwise than the first.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct PerRun {
    /// Strings of the recording (whole, or a token inside one) that the second run gave
    /// otherwise: bound as `<MINTED:n>`.
    pub(crate) values: Vec<String>,
    /// Selectors of arrays the second run gave in another order: sorted.
    pub(crate) sorts: Vec<String>,
    /// What differed that neither binds nor sorts, for people: `line 4, .result.count`.
    pub(crate) left: Vec<String>,
    /// Each string of `values` as it differed: its path, the recording's token (or whole
    /// string) and the other run's.
    pub(crate) pairs: Vec<(String, String, String)>,
}

impl PerRun {
    /// Nothing differed.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty() && self.sorts.is_empty() && self.left.is_empty()
    }

    /// Adds what differs between `e` (the recording) and `a` (another run), `at` a
    /// fixture line (`line 4, `, or empty).
    pub(crate) fn add(&mut self, e: &Value, a: &Value, at: &str) {
        self.walk(e, a, &mut String::new(), &mut String::new(), at);
    }

    /// Compares `e` with `a` at `path` (`selector`: the same path with every index as
    /// `[]`).
    fn walk(&mut self, e: &Value, a: &Value, path: &mut String, selector: &mut String, at: &str) {
        match (e, a) {
            _ if e == a => {}
            (Value::String(es), Value::String(s)) => self.strings(es, s, path, at),
            (Value::Array(ei), Value::Array(ai)) if ei.len() == ai.len() => {
                if same_items(ei, ai) {
                    let selector = if selector.is_empty() { "." } else { selector };
                    self.sorts.push(selector.to_owned());
                    return;
                }
                for (i, (x, y)) in ei.iter().zip(ai).enumerate() {
                    let (len, slen) = (path.len(), selector.len());
                    push_step(path, PathSegment::Index(i));
                    selector.push_str("[]");
                    self.walk(x, y, path, selector, at);
                    path.truncate(len);
                    selector.truncate(slen);
                }
            }
            (Value::Object(eo), Value::Object(ao))
                if eo.len() == ao.len() && eo.keys().all(|k| ao.contains_key(k)) =>
            {
                for (key, x) in eo {
                    let (len, slen) = (path.len(), selector.len());
                    push_step(path, PathSegment::Key(key));
                    push_step(selector, PathSegment::Key(key));
                    self.walk(x, &ao[key], path, selector, at);
                    path.truncate(len);
                    selector.truncate(slen);
                }
            }
            _ => self.left.push(format!("{at}{}", rendered(path))),
        }
    }

    /// Two strings that differ: the recording's differing tokens, each long enough to be
    /// found again inside the string, else the whole string.
    fn strings(&mut self, e: &str, a: &str, path: &str, at: &str) {
        let (et, at_): (Vec<&str>, Vec<&str>) = (tokens(e).collect(), tokens(a).collect());
        if et.len() == at_.len() {
            let differing: Vec<(&str, &str)> = et
                .iter()
                .zip(&at_)
                .filter(|(x, y)| x != y)
                .map(|(x, y)| (*x, *y))
                .collect();
            if !differing.is_empty()
                && differing
                    .iter()
                    .all(|(t, _)| t.len() >= MIN_MINTED && !contains_placeholder(t))
            {
                for (x, y) in differing {
                    self.values.push(x.to_owned());
                    self.pairs
                        .push((rendered(path).to_owned(), x.to_owned(), y.to_owned()));
                }
                return;
            }
        }
        if contains_placeholder(e) {
            self.left.push(format!("{at}{}", rendered(path)));
        } else {
            self.values.push(e.to_owned());
            self.pairs
                .push((rendered(path).to_owned(), e.to_owned(), a.to_owned()));
        }
    }

    /// Does everything that differed look like what a server mints per run: lists in
    /// another order, and strings whose differing parts are opaque tokens of one shape
    /// (`at-5caaf2fb` and `at-9d1e77a0`: a digit, six characters or more, the same
    /// punctuation and lengths), nothing else? What a plain run's advice asks, having no
    /// second run to tell it (a changed text, `Issue 42: sample`, is not).
    pub(crate) fn looks_per_run(&self) -> bool {
        let opaque = |t: &str| t.len() >= 6 && t.bytes().any(|b| b.is_ascii_digit());
        !self.is_empty()
            && self.left.is_empty()
            && self.pairs.iter().all(|(_, e, a)| {
                opaque(e)
                    && opaque(a)
                    && crate::normalize::shape::synthetic(e, 1)
                        == crate::normalize::shape::synthetic(a, 1)
            })
    }

    /// What was pinned and what was not, for the note a recording prints; `None` when the
    /// two runs agreed.
    pub(crate) fn describe(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut out = String::from("a second run of the unchanged server differed:");
        if !self.values.is_empty() {
            out.push_str(&format!(
                " {} value(s) minted per run, bound as <MINTED:n>;",
                self.values.len()
            ));
        }
        if !self.sorts.is_empty() {
            out.push_str(&format!(
                " list(s) in another order, sorted (header \"sort\": {});",
                self.sorts.join(", ")
            ));
        }
        if !self.left.is_empty() {
            out.push_str(&format!(
                " still differing, pin with a `replace` or `remove` rule, or `bind` a \
                 string, or `accept` a contract class (docs/normalization.md): {}",
                self.left.join("; ")
            ));
        }
        Some(out.trim_end_matches(';').to_owned())
    }
}

/// Are `a` and `b` the same elements in another order?
fn same_items(a: &[Value], b: &[Value]) -> bool {
    let key = |items: &[Value]| {
        let mut keys: Vec<String> = items.iter().map(|v| v.to_string()).collect();
        keys.sort();
        keys
    };
    key(a) == key(b)
}

fn rendered(path: &str) -> &str {
    crate::data::json::path::rendered_path(path)
}
