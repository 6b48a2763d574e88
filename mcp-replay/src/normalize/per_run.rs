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
    /// The paths of `pairs` whose token stands inside a longer string (`stamped
    /// at-5caaf2fb`): a `bind` rule of the path would bind the whole string.
    pub(crate) inside: Vec<String>,
}

impl PerRun {
    /// Adds what another run found.
    pub(crate) fn merge(&mut self, other: PerRun) {
        for value in other.values {
            if !self.values.contains(&value) {
                self.values.push(value);
            }
        }
        for pair in other.pairs {
            if !self.pairs.iter().any(|p| p.1 == pair.1) {
                self.pairs.push(pair);
            }
        }
        for (mine, theirs) in [
            (&mut self.sorts, other.sorts),
            (&mut self.left, other.left),
            (&mut self.inside, other.inside),
        ] {
            for item in theirs {
                if !mine.contains(&item) {
                    mine.push(item);
                }
            }
        }
        self.sorts.sort();
    }

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
            // A JSON text whose lists came in another order: sorted, as a list is.
            (Value::String(es), Value::String(s)) if same_json_but_order(es, s) => {
                let selector = if selector.is_empty() { "." } else { selector };
                self.sorts.push(selector.to_owned());
            }
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
                for (key, x) in crate::data::json::members(eo) {
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
                    if x != e {
                        self.inside.push(rendered(path).to_owned());
                    }
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
    pub(crate) fn describe(&self, runs: usize) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut out = match runs {
            1 => String::from("a second run of the unchanged server differed:"),
            n => format!("{n} more runs of the unchanged server differed:"),
        };
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

/// The chance, at most, that a list of three items in a per-run order escapes the runs
/// that look for it ([`runs_needed`]; docs/normalization.md, "Values that change between
/// runs"). One in 10,000 per fixture: a suite re-records many fixtures at once, and 1 in
/// 1,000 let one of fifteen fresh recordings of a shuffled list of three escape in about
/// one suite run of eighty.
pub(crate) const ESCAPE: u64 = 10_000;

/// The most runs a recording makes: enough for a list of three items ([`runs_for`] of 3).
/// A list of two escapes them with a chance of 1/64; a plain run that then shows it in
/// another order names the `sort` that pins it.
pub(crate) const MOST_RUNS: usize = 6;

/// How many runs of an unchanged server (besides the recording) show, with a chance of
/// missing it below 1 in [`ESCAPE`], that a list of `items` distinct elements comes in a
/// per-run order: each run gives the recorded order again with a chance of `1/items!`
/// when every order is as likely, so `n` runs miss it with `(1/items!)^n`. Two items: 14
/// runs (1/16,384); three: 6 (1/46,656); four: 3; five to seven: 2; eight or more: 1.
pub(crate) fn runs_for(items: usize) -> usize {
    let orders: u64 = (2..=items as u64).fold(1, |p, k| p.saturating_mul(k));
    if orders < 2 {
        return 1;
    }
    let mut runs = 1;
    let mut chance = orders;
    while chance <= ESCAPE {
        runs += 1;
        chance = chance.saturating_mul(orders);
    }
    runs
}

/// The lists of `messages` (a recording's server messages) whose order a run could show
/// to change: the selector (every index as `[]`) and the number of distinct elements of
/// each array with two or more.
pub(crate) fn lists_of<'a>(messages: impl IntoIterator<Item = &'a Value>) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for message in messages {
        lists(message, &mut String::new(), &mut |selector, items| {
            out.push((selector.to_owned(), items));
        });
    }
    out
}

/// How many runs a recording with `lists` ([`lists_of`]) needs in all, given what the
/// runs so far found (`found`): as many as its shortest list not seen in another order yet
/// asks ([`runs_for`]; a list seen in another order is sorted from now on), at most
/// [`MOST_RUNS`]; one when it has no such list (a value minted per run differs in the first
/// run but by a chance too small to count).
pub(crate) fn runs_needed(lists: &[(String, usize)], found: &PerRun) -> usize {
    lists
        .iter()
        .filter(|(selector, _)| !found.sorts.contains(selector))
        .map(|(_, items)| runs_for(*items).min(MOST_RUNS))
        .max()
        .unwrap_or(1)
}

/// Calls `each` with the selector (every index as `[]`) and the number of distinct
/// elements of every array in `value` that has two or more.
fn lists(value: &Value, selector: &mut String, each: &mut dyn FnMut(&str, usize)) {
    match value {
        Value::Array(items) => {
            let mut distinct: Vec<String> = items.iter().map(Value::to_string).collect();
            distinct.sort();
            distinct.dedup();
            if distinct.len() >= 2 {
                each(
                    if selector.is_empty() { "." } else { selector },
                    distinct.len(),
                );
            }
            let len = selector.len();
            selector.push_str("[]");
            for item in items {
                lists(item, selector, each);
            }
            selector.truncate(len);
        }
        Value::Object(map) => {
            for (key, item) in map {
                let len = selector.len();
                push_step(selector, PathSegment::Key(key));
                lists(item, selector, each);
                selector.truncate(len);
            }
        }
        _ => {}
    }
}

/// Are `a` and `b` texts of one JSON document but for the order of its lists?
fn same_json_but_order(a: &str, b: &str) -> bool {
    use crate::normalize::rules::sorted_json_text;
    matches!((sorted_json_text(a), sorted_json_text(b)), (Some(x), Some(y)) if x == y)
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
