//! Finding secrets: the keyword prefilter, the token rules run over every string and key,
//! and the key-name rule over the values of credential-named keys, each finding by path
//! and rule, never by content.

use super::patterns::{
    Rule, END_OF_KEY, FAKE_MARKERS, MIN_VALUE_ENTROPY, MIN_VALUE_LEN, REFERENCE, RULES, SCHEMES,
    SENSITIVE_KEY, SENSITIVE_KEY_DESCRIPTION, SENSITIVE_NAMES, SENSITIVE_SUFFIXES,
};
use crate::data::json::path::{push_step, rendered_path, PathSegment};
use crate::normalize::placeholder::{contains_placeholder, is_placeholder};
use once_cell::sync::Lazy;
use regex::Regex;
use serde_json::Value;

/// One secret found in a JSON value. Never holds the secret itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFinding {
    /// Where: selector-form path relative to the scanned value: `.result.content[0].text`,
    /// `.params.headers["x-api-key"]` (keys that are not `[A-Za-z0-9_/-]+` are written as
    /// `["..."]` with JSON string escaping); `.` for the root, `.[1]` for its element 1.
    pub path: String,
    /// The rule's stable id, e.g. `"github-pat"`, `"aws-access-key-id"`, `"sensitive-key"`.
    pub rule: &'static str,
    /// A short human description of the rule (`"GitHub personal access token"`).
    pub description: &'static str,
}

/// Every secret in `value` (strings anywhere, object keys included, and the values of
/// credential-named keys for the `sensitive-key` rule), in a stable order: document order
/// with object keys sorted; within one string, by position, each rule once.
pub fn scan(value: &Value) -> Vec<SecretFinding> {
    let mut out = Vec::new();
    let mut path = String::new();
    walk(value, &mut path, &mut out);
    out
}

/// The rule a single string trips, if any (token rules only, not the key-name rule): the
/// one whose match starts first. Returns `(rule id, description)`.
pub fn scan_str(text: &str) -> Option<(&'static str, &'static str)> {
    token_hits(text)
        .first()
        .map(|&i| (RULES[i].id, RULES[i].description))
}

/// Where the token rules find secrets in `text`: the byte ranges of the tokens (for a
/// private key, from its `-----BEGIN` line to its `-----END` line, or the end of the text),
/// each with its rule id, in order and without overlaps.
pub(super) fn token_spans(text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
    let Some(present) = rules_with_keywords(text) else {
        return Vec::new();
    };
    if is_placeholder(text) {
        return Vec::new();
    }
    let mut spans: Vec<(std::ops::Range<usize>, &'static str)> = Vec::new();
    for (i, rule) in RULES.iter().enumerate().filter(|&(i, _)| present[i]) {
        let regex = RULE_REGEXES[i]
            .get_or_init(|| compile(rule).expect("the secret rules are valid patterns"));
        for caps in regex.captures_iter(text) {
            let Some(whole) = caps.get(0) else { continue };
            let token = caps.get(1).unwrap_or(whole);
            let accepted = entropy(token.as_str()) >= rule.min_entropy
                && !rule.examples.iter().any(|e| token.as_str().contains(e));
            if !accepted {
                continue;
            }
            let range = if rule.id == "private-key" {
                let end = END_OF_KEY
                    .find(&text[whole.end()..])
                    .map_or(text.len(), |m| whole.end() + m.end());
                whole.start()..end
            } else {
                token.range()
            };
            spans.push((range, rule.id));
        }
    }
    spans.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
    let mut merged: Vec<(std::ops::Range<usize>, &'static str)> = Vec::new();
    for (range, rule) in spans {
        match merged.last_mut() {
            Some((last, _)) if range.start < last.end => last.end = last.end.max(range.end),
            _ => merged.push((range, rule)),
        }
    }
    merged
}

/// Each token rule's regex, compiled the first time a string holds one of the rule's
/// keywords: most runs never need most rules, and compiling them all would cost every test
/// process milliseconds.
static RULE_REGEXES: Lazy<Vec<once_cell::sync::OnceCell<Regex>>> = Lazy::new(|| {
    RULES
        .iter()
        .map(|_| once_cell::sync::OnceCell::new())
        .collect()
});

/// The keyword prefilter: one bit for each pair of bytes (ASCII-lowercased) that starts a
/// keyword of some rule. Built at compile time: a `RegexSet` of the keywords took 9.6M
/// instructions to build and an Aho-Corasick automaton 0.55M, in every test process (see
/// `docs/PERFORMANCE.md`), for fixtures that are mostly a few kilobytes.
static KEYWORD_STARTS: [u64; 1024] = keyword_starts();

const fn keyword_starts() -> [u64; 1024] {
    let mut table = [0u64; 1024];
    let mut r = 0;
    while r < RULES.len() {
        let keywords = RULES[r].keywords;
        let mut k = 0;
        while k < keywords.len() {
            let bytes = keywords[k].as_bytes();
            assert!(
                bytes.len() >= 2,
                "a secret rule keyword has at least two bytes"
            );
            let pair = pair_index(bytes[0], bytes[1]);
            table[pair / 64] |= 1 << (pair % 64);
            k += 1;
        }
        r += 1;
    }
    table
}

const fn pair_index(a: u8, b: u8) -> usize {
    ((a.to_ascii_lowercase() as usize) << 8) | b.to_ascii_lowercase() as usize
}

/// For each rule (index into [`RULES`]), does one of its keywords occur in `text`,
/// ASCII case-insensitively? `None` when no keyword does (the common case, no allocation).
pub(super) fn rules_with_keywords(text: &str) -> Option<Vec<bool>> {
    let bytes = text.as_bytes();
    let mut present: Option<Vec<bool>> = None;
    for i in 0..bytes.len().saturating_sub(1) {
        let pair = pair_index(bytes[i], bytes[i + 1]);
        if KEYWORD_STARTS[pair / 64] & (1 << (pair % 64)) == 0 {
            continue;
        }
        let rest = &bytes[i..];
        for (r, rule) in RULES.iter().enumerate() {
            let hit = rule.keywords.iter().any(|k| {
                rest.get(..k.len())
                    .is_some_and(|start| start.eq_ignore_ascii_case(k.as_bytes()))
            });
            if hit {
                present.get_or_insert_with(|| vec![false; RULES.len()])[r] = true;
            }
        }
    }
    present
}

pub(super) fn compile(rule: &Rule) -> Result<Regex, regex::Error> {
    Regex::new(&format!("(?-u){}", rule.pattern))
}

/// Indices into [`RULES`] of the rules `text` trips, ordered by where their first
/// accepted match starts (then by table order).
fn token_hits(text: &str) -> Vec<usize> {
    // Most strings hold none of the keywords: one pass of the prefilter and done.
    let Some(present) = rules_with_keywords(text) else {
        return Vec::new();
    };
    if is_placeholder(text) {
        return Vec::new();
    }
    let mut hits: Vec<(usize, usize)> = (0..RULES.len())
        .filter(|&i| present[i])
        .filter_map(|i| {
            let regex = RULE_REGEXES[i]
                .get_or_init(|| compile(&RULES[i]).expect("the secret rules are valid patterns"));
            first_accepted(i, regex, text).map(|start| (start, i))
        })
        .collect();
    hits.sort_unstable();
    hits.into_iter().map(|(_, i)| i).collect()
}

/// Where the first match of `regex` (rule `i`) that passes the rule's entropy and example
/// checks starts.
fn first_accepted(i: usize, regex: &Regex, text: &str) -> Option<usize> {
    let rule = &RULES[i];
    regex.captures_iter(text).find_map(|caps| {
        let whole = caps.get(0)?;
        let token = caps.get(1).unwrap_or(whole).as_str();
        let accepted =
            entropy(token) >= rule.min_entropy && !rule.examples.iter().any(|e| token.contains(e));
        accepted.then_some(whole.start())
    })
}

/// Shannon entropy of `text` in bits per character.
pub(super) fn entropy(text: &str) -> f64 {
    let mut chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return 0.0;
    }
    chars.sort_unstable();
    let n = chars.len() as f64;
    chars
        .chunk_by(|a, b| a == b)
        .map(|run| {
            let p = run.len() as f64 / n;
            -p * p.log2()
        })
        .sum()
}

fn walk(value: &Value, path: &mut String, out: &mut Vec<SecretFinding>) {
    match value {
        Value::String(text) => {
            for i in token_hits(text) {
                out.push(finding(path, RULES[i].id, RULES[i].description));
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let len = path.len();
                push_step(path, PathSegment::Index(index));
                walk(item, path, out);
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in crate::data::json::members(map) {
                let len = path.len();
                match scan_str(key) {
                    Some((rule, description)) => {
                        push_step(path, PathSegment::Key("<REDACTED>"));
                        out.push(finding(path, rule, description));
                    }
                    None => push_step(path, PathSegment::Key(key)),
                }
                let before = out.len();
                walk(item, path, out);
                if let Value::String(text) = item {
                    if out.len() == before && is_sensitive_key(key) && credential_like(key, text) {
                        out.push(finding(path, SENSITIVE_KEY, SENSITIVE_KEY_DESCRIPTION));
                    }
                }
                path.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn finding(path: &str, rule: &'static str, description: &'static str) -> SecretFinding {
    SecretFinding {
        path: rendered_path(path).to_owned(),
        rule,
        description,
    }
}

/// The key lowercased, without `-`, `_`, `.` and spaces.
fn normalize_key(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.' | ' '))
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

pub(super) fn is_sensitive_key(key: &str) -> bool {
    let key = normalize_key(key);
    SENSITIVE_NAMES.contains(&key.as_str()) || SENSITIVE_SUFFIXES.iter().any(|s| key.ends_with(s))
}

/// Whether the string value of a credential-named key looks like a real credential.
pub(super) fn credential_like(key: &str, value: &str) -> bool {
    if contains_placeholder(value) {
        return false;
    }
    match normalize_key(key).as_str() {
        "cookie" => value.split(';').any(|c| looks_random(cookie_value(c))),
        "setcookie" => value
            .split(';')
            .next()
            .is_some_and(|c| looks_random(cookie_value(c))),
        _ => looks_random(strip_scheme(value.trim())),
    }
}

/// The value of one `name=value` cookie.
fn cookie_value(cookie: &str) -> &str {
    let value = cookie.split_once('=').map_or(cookie, |(_, v)| v);
    value.trim().trim_matches('"')
}

/// `value` without a leading authorization scheme (`Bearer abc` is `abc`).
pub(super) fn strip_scheme(value: &str) -> &str {
    if let Some((scheme, rest)) = value.split_once(char::is_whitespace) {
        if SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s)) {
            return rest.trim();
        }
    }
    value
}

fn looks_random(value: &str) -> bool {
    if value.chars().count() < MIN_VALUE_LEN || REFERENCE.is_match(value) {
        return false;
    }
    let lower = value.to_lowercase();
    !FAKE_MARKERS.iter().any(|m| lower.contains(m)) && entropy(value) >= MIN_VALUE_ENTROPY
}
