//! One finding of a replay ([`Mismatch`]): its kind ([`MismatchKind`], `kind.rs`), what
//! differs, where, and the diff that shows it. The report ([`Report`](crate::Report)) collects them;
//! the advice (`advice.rs`) reads them. Neither is imported here.

use crate::data::contract::{Change, Class};
use crate::data::json::{
    compact, differences, differences_in, listing_of, pair_items, pretty_lines, Difference, Line,
    Listing,
};
use crate::findings::excerpt::{excerpts, WIDTH};
pub use crate::findings::kind::MismatchKind;
use crate::normalize::secrets::{mask_text, mask_under, mask_value};
use serde_json::Value;
use std::fmt::{self, Write as _};

/// Why a refusal where the fixture has a success is not re-recorded.
const REFUSAL_PINNED: &str = "the server failed a request the fixture has a success for (a \
     JSON-RPC error, or a result with isError: true), and a re-recording would pin the \
     failure over the recorded success. The client line may be stale (a tool renamed, a \
     required argument added): edit it, or fix the server.";

/// One finding of a replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub(crate) kind: MismatchKind,
    pub(crate) line: Option<usize>,
    pub(crate) summary: String,
    pub(crate) expected: Option<Value>,
    pub(crate) actual: Option<Value>,
    pub(crate) differences: Vec<Difference>,
    pub(crate) changes: Vec<Change>,
    /// The client request it concerns: its fixture line (see [`Mismatch::request_line`])
    /// and its name (`tools/call add_note`).
    pub(crate) request: Option<(usize, String)>,
    /// The bound placeholders (`<MINTED:1>`) that request sends: what an earlier answer
    /// had to mint for it ([`follows`]).
    pub(crate) sends: Vec<String>,
    /// The bound placeholder a client line sent as written, no answer before it having
    /// minted it (a finding of its own: [`Mismatch::unbound`]).
    pub(crate) unbound: Option<String>,
    /// When it happened, as the summary says it (`while `tools/call x` (line 1) ran`,
    /// `after the last message`): with the kind and the method, what makes findings alike.
    pub(crate) during: Option<String>,
    /// For the response to a listing request: its items, paired by key in the differences
    /// and the diff.
    pub(crate) listing: Option<Listing>,
    /// Why a re-recording cannot fix this finding, where its kind alone does not say so
    /// (a placeholder sent as written).
    pub(crate) unrecordable: Option<&'static str>,
}

impl Mismatch {
    pub(crate) fn new(kind: MismatchKind, line: Option<usize>, summary: impl Into<String>) -> Self {
        Mismatch {
            kind,
            line,
            summary: summary.into(),
            expected: None,
            actual: None,
            differences: Vec::new(),
            changes: Vec::new(),
            request: None,
            sends: Vec::new(),
            unbound: None,
            during: None,
            listing: None,
            unrecordable: None,
        }
    }

    /// This finding is one a re-recording cannot fix, for `why` (what to do instead).
    pub(crate) fn unrecordable(mut self, why: &'static str) -> Self {
        self.unrecordable = Some(why);
        self
    }

    /// Does this finding keep the session from being written as a fixture (without
    /// `MCP_FIXTURE_UPDATE=force`)? Its kind's [`spoils_recording`](MismatchKind::spoils_recording),
    /// a refusal where the fixture has a success (re-recording would pin the refusal), or
    /// a reason of its own. `Some` says why, and what to do.
    pub fn why_not_rerecorded(&self) -> Option<&'static str> {
        self.kind
            .why_not_rerecorded()
            .or(self.unrecordable)
            .or_else(|| self.worse().then_some(REFUSAL_PINNED))
    }

    /// This finding is a client line that sent `placeholder` as written: the answer that
    /// was to mint it did not ([`follows`]).
    pub(crate) fn unbound(mut self, placeholder: &str) -> Self {
        self.unbound = Some(placeholder.to_owned());
        self
    }

    /// Names the client request the finding concerns.
    pub(crate) fn request(mut self, entry: &crate::data::fixture::Entry) -> Self {
        self.request = Some((entry.line(), entry.request_name()));
        let text = entry.text();
        self.sends = crate::normalize::bound::bound_in(text)
            .into_iter()
            .map(|(start, end)| text[start..end].to_owned())
            .collect();
        self
    }

    /// Says when it happened, as the summary says it.
    pub(crate) fn during(mut self, when: impl Into<String>) -> Self {
        self.during = Some(when.into());
        self
    }

    /// Attaches the expected and actual messages; their differences are computed here.
    pub(crate) fn compare(mut self, expected: &Value, actual: &Value) -> Self {
        self.differences = differences(expected, actual);
        self.expected = Some(expected.clone());
        self.actual = Some(actual.clone());
        self
    }

    /// [`compare`](Mismatch::compare) for the response to a `method` request: the items of
    /// a listing (`tools/list`, ...) paired by key before they are compared.
    pub(crate) fn compare_response(
        mut self,
        method: &str,
        expected: &Value,
        actual: &Value,
    ) -> Self {
        self.listing = listing_of(method);
        self.differences = differences_in(expected, actual, self.listing);
        self.expected = Some(expected.clone());
        self.actual = Some(actual.clone());
        self
    }

    pub(crate) fn expected(mut self, expected: &Value) -> Self {
        self.expected = Some(expected.clone());
        self
    }

    pub(crate) fn actual(mut self, actual: &Value) -> Self {
        self.actual = Some(actual.clone());
        self
    }

    /// Which kind of finding this is.
    pub fn kind(&self) -> MismatchKind {
        self.kind
    }

    /// The fixture line of the expected message it concerns, if any.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The fixture line of the client request this finding concerns, if any: the request
    /// a response answers (or was awaited for), or the one that ran when a notification
    /// came or was expected. For a response the server refused, the line to look at.
    pub fn request_line(&self) -> Option<usize> {
        self.request.as_ref().map(|(line, _)| *line)
    }

    /// One sentence: what was expected and what happened.
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// The expected message (ids as the fixture writes them), when there is one.
    pub fn expected_message(&self) -> Option<&Value> {
        self.expected.as_ref()
    }

    /// The actual message (ids normalized to the fixture's labels), when there is one.
    pub fn actual_message(&self) -> Option<&Value> {
        self.actual.as_ref()
    }

    /// The JSON paths where expected and actual differ (for method, params, result and id).
    pub fn differences(&self) -> &[Difference] {
        &self.differences
    }

    /// For a changed result of a listing or description (`tools/list`, `initialize`, ...):
    /// each change and its contract class ([`contract`](crate::analyses::contract)); else empty.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// One line per contract change under the finding, most severe first (as
    /// [`contract::changes`](crate::analyses::contract::changes) gives them; sorted again in case
    /// they were set otherwise): breaking and unknown in red.
    fn write_changes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Paint {
            red, dim, reset, ..
        } = Paint::of(f);
        let mut changes: Vec<&Change> = self.changes.iter().collect();
        changes.sort_by_key(|c| std::cmp::Reverse(c.class));
        for change in changes {
            let color = match change.class {
                Class::Breaking | Class::Unknown => red,
                Class::Compatible | Class::Cosmetic => dim,
            };
            write!(f, "\n    {color}{change}{reset}")?;
        }
        Ok(())
    }

    /// The most severe class among [`changes`](Mismatch::changes), if any.
    pub fn class(&self) -> Option<Class> {
        self.changes.iter().map(|c| c.class).max()
    }
}

/// ANSI styles of a report written with `{:#}`; all empty for plain text.
struct Paint {
    bold: &'static str,
    red: &'static str,
    green: &'static str,
    dim: &'static str,
    reset: &'static str,
}

impl Paint {
    fn of(f: &fmt::Formatter<'_>) -> Paint {
        if f.alternate() {
            Paint {
                bold: "\x1b[1m",
                red: "\x1b[31m",
                green: "\x1b[32m",
                dim: "\x1b[2m",
                reset: "\x1b[0m",
            }
        } else {
            Paint {
                bold: "",
                red: "",
                green: "",
                dim: "",
                reset: "",
            }
        }
    }
}

/// `{}` plain text; `{:#}` the same text with ANSI colors (expected in red, actual in
/// green, the finding in bold), for a terminal. What the secret scanner would refuse to
/// write into a fixture is masked, `ghp_…[masked: github-pat]`.
impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.masked().render(f)
    }
}

impl Mismatch {
    /// This finding with every secret the scanner knows masked in what a report shows of
    /// it: the summary, the messages, the differences (their paths too), the changes. A
    /// report prints what the server sent, and CI logs are read by many; the scanner only
    /// guards the fixture files. [`Mismatch::actual_message`] keeps the message as it came.
    pub(crate) fn masked(&self) -> Mismatch {
        let values = |d: &Difference| {
            let key = last_key(&d.path);
            let mask = |v: &Value| mask_under(key.as_deref(), v);
            Difference {
                path: mask_text(&d.path).into_owned(),
                expected: d.expected.as_ref().map(mask),
                actual: d.actual.as_ref().map(mask),
            }
        };
        Mismatch {
            kind: self.kind,
            line: self.line,
            summary: mask_text(&self.summary).into_owned(),
            expected: self.expected.as_ref().map(mask_value),
            actual: self.actual.as_ref().map(mask_value),
            differences: self.differences.iter().map(values).collect(),
            changes: self
                .changes
                .iter()
                .map(|c| Change {
                    class: c.class,
                    description: mask_text(&c.description).into_owned(),
                    path: mask_text(&c.path).into_owned(),
                })
                .collect(),
            request: self
                .request
                .as_ref()
                .map(|(line, name)| (*line, mask_text(name).into_owned())),
            sends: self.sends.clone(),
            unbound: self.unbound.clone(),
            during: self.during.as_deref().map(|d| mask_text(d).into_owned()),
            listing: self.listing,
            unrecordable: self.unrecordable,
        }
    }

    fn render(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Paint {
            bold,
            red,
            green,
            dim,
            reset,
        } = Paint::of(f);
        match self.line {
            Some(line) => write!(
                f,
                "{bold}{} at fixture line {line}{reset}: {}",
                self.kind, self.summary
            )?,
            None => write!(f, "{bold}{}{reset}: {}", self.kind, self.summary)?,
        }
        self.write_changes(f)?;
        if !self.differences.is_empty() {
            // The changes above name every difference: the paths would repeat them.
            let paths = if self.changes.is_empty() {
                &self.differences[..]
            } else {
                &[]
            };
            for d in paths {
                write!(f, "\n    at {}", d.path)?;
                if let (Some(Value::String(e)), Some(Value::String(a))) = (&d.expected, &d.actual) {
                    // Around the first difference, with carets under what differs.
                    let [e, a] = excerpts(e, a, WIDTH);
                    write!(
                        f,
                        "\n      expected: {red}{}\n                {}{reset}\
                         \n      actual:   {green}{}\n                {}{reset}",
                        e.text, e.marks, a.text, a.marks
                    )?;
                    continue;
                }
                let show = |v: &Option<Value>| {
                    v.as_ref()
                        .map_or("(absent)".to_owned(), |v| compact(v, WIDTH))
                };
                write!(
                    f,
                    "\n      expected: {red}{}{reset}\n      actual:   {green}{}{reset}",
                    show(&d.expected),
                    show(&d.actual)
                )?;
            }
            if let (Some(e), Some(a)) = (&self.expected, &self.actual) {
                let diff = line_diff(e, a, self.listing);
                if !diff.is_empty() {
                    f.write_str("\n    diff (- expected, + actual):")?;
                    for line in diff.lines() {
                        let color = match line.as_bytes().first() {
                            Some(b'-') => red,
                            Some(b'+') => green,
                            _ => dim,
                        };
                        write!(f, "\n    {color}{line}{reset}")?;
                    }
                }
            }
        } else {
            if let Some(e) = &self.expected {
                write!(f, "\n    expected: {red}{}{reset}", compact(e, 300))?;
            }
            if let Some(a) = &self.actual {
                write!(f, "\n    actual:   {green}{}{reset}", compact(a, 300))?;
            }
        }
        Ok(())
    }
}

/// The object key a difference's `path` ends with (`.a.password`, `.h["x-api-key"]`), if
/// it ends with one rather than an index.
fn last_key(path: &str) -> Option<String> {
    if path.ends_with("\"]") {
        // A quoted key: the last `["` after which the rest is one JSON string.
        return path
            .rmatch_indices("[\"")
            .find_map(|(i, _)| serde_json::from_str::<String>(&path[i + 1..path.len() - 1]).ok());
    }
    if path.ends_with(']') {
        return None;
    }
    path.rsplit('.')
        .next()
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
}

/// A unified line diff of two messages pretty-printed, with a little context. The items
/// of a `listing` are paired by key first, the actual ones put in the expected order: a
/// line of one item never pairs with a line of another, so a renamed item is its lines
/// removed and the new one's added, and items that only moved show no line.
/// Kept short however large the messages: lines are cut at 160 characters and the diff
/// at 60 lines (the JSON paths above it name every difference anyway).
fn line_diff(expected: &Value, actual: &Value, listing: Option<Listing>) -> String {
    const MAX_LINES: usize = 60;
    const MAX_LINE: usize = 160;
    let order = listing.and_then(|l| {
        let items = |v: &Value| {
            l.path
                .iter()
                .try_fold(v, |v, k| v.get(k))
                .and_then(Value::as_array)
                .cloned()
        };
        let rows = pair_items(&items(expected)?, &items(actual)?, l.key)?;
        Some(rows.iter().filter_map(|r| r.1).collect::<Vec<usize>>())
    });
    let old = pretty_lines(expected, listing, None);
    let new = pretty_lines(actual, listing, order.as_deref());
    // A listing item's lines compare without their comma, which depends on its place.
    let key = |(tag, text): &Line| -> (Option<String>, String) {
        let text = match tag {
            Some(_) => text.trim_end_matches(','),
            None => text,
        };
        (tag.clone(), text.to_owned())
    };
    let (old_keys, new_keys): (Vec<_>, Vec<_>) =
        (old.iter().map(key).collect(), new.iter().map(key).collect());
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old_keys, &new_keys);
    let mut out = String::new();
    let mut lines = 0;
    for group in similar::group_diff_ops(ops, 2) {
        for op in group {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            let changes: Vec<(char, &str)> = match tag {
                similar::DiffTag::Equal => new_range.map(|j| (' ', new[j].1.as_str())).collect(),
                similar::DiffTag::Delete => old_range.map(|i| ('-', old[i].1.as_str())).collect(),
                similar::DiffTag::Insert => new_range.map(|j| ('+', new[j].1.as_str())).collect(),
                similar::DiffTag::Replace => old_range
                    .map(|i| ('-', old[i].1.as_str()))
                    .chain(new_range.map(|j| ('+', new[j].1.as_str())))
                    .collect(),
            };
            for (sign, text) in changes {
                if lines == MAX_LINES {
                    out.push_str("  ... (diff cut)\n");
                    return out;
                }
                lines += 1;
                if text.chars().count() > MAX_LINE {
                    let cut: String = text.chars().take(MAX_LINE).collect();
                    let _ = writeln!(out, "{sign} {cut}…");
                } else {
                    let _ = writeln!(out, "{sign} {text}");
                }
            }
        }
        out.push_str("  ...\n");
    }
    out
}

impl Mismatch {
    /// What makes findings alike, so that a report shows many of them as one item: the
    /// kind, the method of the message (a notification or a server request; responses
    /// are never alike), and when it happened (the request it ran under).
    pub(crate) fn alike(&self) -> Option<(MismatchKind, &str, Option<&str>)> {
        let message = self.actual.as_ref().or(self.expected.as_ref())?;
        let method = message.get("method")?.as_str()?;
        Some((self.kind, method, self.during.as_deref()))
    }
}

/// A request the server refused where the fixture has its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The request's fixture line.
    pub line: usize,
    /// Its name: `tools/call add_note`.
    pub request: String,
    /// How it was refused: `error -32602 "tool not found"`, `a tool error "..."`.
    pub how: String,
    /// A JSON-RPC error, or a tool error whose words say the arguments were refused: the
    /// client line may be stale. Else the tool failed where it succeeded.
    pub arguments: bool,
}

/// Words that say a tool error refused the call's arguments: rmcp's (3.11) `failed to
/// deserialize parameters: missing field ...`, the TypeScript SDK's `MCP error -32602:
/// Input validation error: ...`, the Python SDK's pydantic `1 validation error for
/// addArguments`, serde's own (``missing field `name` ``, `invalid type: ...`), tower-mcp's
/// `Invalid input: ...`, turbomcp's `Missing required parameter: ...`. They only choose the
/// words of the advice ([`Refusal::arguments`]): whether a refusal is one is decided by
/// the answer's structure ([`Mismatch::worse`]), whatever an SDK says in it.
const REFUSED_ARGUMENTS: [&str; 9] = [
    "failed to deserialize parameters",
    "-32602",
    "validation error",
    "missing field `",
    "unknown field `",
    "invalid type: ",
    "Invalid input",
    "Missing required parameter",
    "invalid_params",
];

impl Mismatch {
    /// Is this a *result* finding where the server now fails what the fixture has it
    /// succeed: a JSON-RPC error, or a result with `isError: true`, where the fixture has a
    /// result that is not one? Decided by the answer's structure alone, never by its words:
    /// a re-recording would pin the failure over the recorded success
    /// ([`why_not_rerecorded`](Mismatch::why_not_rerecorded)).
    pub fn worse(&self) -> bool {
        self.failure().is_some()
    }

    /// The failure of [`worse`](Mismatch::worse): the actual answer's `error`, or its
    /// result with `isError: true`.
    fn failure(&self) -> Option<Failed<'_>> {
        if self.kind() != MismatchKind::Result {
            return None;
        }
        let (expected, actual) = (self.expected_message()?, self.actual_message()?);
        let recorded = expected.get("result")?;
        let failed = |r: &Value| r.get("isError") == Some(&Value::Bool(true));
        if failed(recorded) {
            return None;
        }
        if let Some(error) = actual.get("error") {
            return Some(Failed::Error(error));
        }
        let result = actual.get("result")?;
        failed(result).then_some(Failed::ToolError(result))
    }

    /// The refusal a *result* finding is, if it is one ([`worse`](Mismatch::worse)), with
    /// the request it answers: what the advice names.
    pub(crate) fn refusal(&self) -> Option<Refusal> {
        let (line, request) = self.request.clone()?;
        let (how, arguments) = match self.failure()? {
            Failed::Error(error) => {
                let code = error.get("code").map(|c| compact(c, 20));
                let message = error.get("message").map(|t| compact(t, WIDTH));
                let how = match (code, message) {
                    (Some(code), Some(message)) => format!("error {code} {message}"),
                    (Some(code), None) => format!("error {code}"),
                    _ => format!("error {}", compact(error, WIDTH)),
                };
                (how, true)
            }
            Failed::ToolError(result) => {
                let text = result.pointer("/content/0/text").and_then(Value::as_str);
                let how = match text {
                    Some(text) => format!("a tool error {}", compact(&Value::from(text), WIDTH)),
                    None => "a tool error (`isError: true`)".to_owned(),
                };
                let words = result.to_string();
                (how, REFUSED_ARGUMENTS.iter().any(|m| words.contains(m)))
            }
        };
        Some(Refusal {
            line,
            request,
            how,
            arguments,
        })
    }
}

/// How an answer failed where the fixture has it succeed.
enum Failed<'a> {
    /// A JSON-RPC error: its `error` object.
    Error(&'a Value),
    /// A result with `isError: true`.
    ToolError(&'a Value),
}

/// For each of `mismatches`, the one it follows from, if it provably does: a client line
/// sent a bound placeholder as written ([`Mismatch::unbound`]) because the answer that was
/// to mint it went wrong, so every finding about a request that sends that placeholder
/// (that line's among them) follows from the finding about that answer; and from what that
/// one follows from, in turn. The first cause is a finding that follows from none. Decided
/// by the placeholders, never by a finding's words.
pub(crate) fn follows(mismatches: &[Mismatch]) -> Vec<Option<usize>> {
    let mints = |m: &Mismatch, placeholder: &str| {
        m.unbound.is_none()
            && m.expected_message()
                .is_some_and(|e| e.get("method").is_none() && e.to_string().contains(placeholder))
    };
    // Each placeholder sent as written, with the finding about the answer that was to
    // mint it.
    let mut causes: Vec<(&str, usize)> = Vec::new();
    for m in mismatches {
        let Some(placeholder) = m.unbound.as_deref() else {
            continue;
        };
        if let Some(cause) = mismatches.iter().position(|c| mints(c, placeholder)) {
            causes.push((placeholder, cause));
        }
    }
    let mut out: Vec<Option<usize>> = mismatches
        .iter()
        .enumerate()
        .map(|(i, m)| {
            causes
                .iter()
                .find(|(p, cause)| *cause != i && m.sends.iter().any(|s| s == p))
                .map(|(_, cause)| *cause)
        })
        .collect();
    // To the first cause: a cause that follows from another follows from its cause.
    for i in 0..out.len() {
        let mut seen = 0;
        while let Some(next) = out[i].and_then(|c| out[c]) {
            out[i] = Some(next);
            seen += 1;
            if seen > out.len() {
                out[i] = None;
                break;
            }
        }
    }
    out
}
