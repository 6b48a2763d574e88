//! The outcome of a replay: every mismatch found, rendered as one readable report.

use crate::advice::{advice, Advice};
use crate::contract::{Change, Class};
use crate::error::test_filter;
use crate::excerpt::{excerpts, WIDTH};
use crate::fixture::Fixture;
use crate::json::{
    compact, differences, differences_in, listing_of, pair_items, pretty_lines, Difference, Line,
    Listing,
};
use crate::normalize::secrets::{mask_text, mask_under, mask_value};
use serde_json::Value;
use std::fmt::{self, Write as _};

/// The kinds of findings, each reported under its own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum MismatchKind {
    /// A message arrived where a message with another method was expected.
    Method,
    /// A notification or server request has the expected method but other params.
    Params,
    /// A response to the right request has another result (result vs error counts here).
    Result,
    /// A response whose id matches no request in flight, has the wrong type, or answers twice.
    Id,
    /// The expected notifications or server requests arrived, in another order.
    NotificationOrder,
    /// An expected message never came.
    Missing,
    /// A message came that the fixture does not expect.
    Unexpected,
    /// The server did not answer (or read) within the timeout; names what was awaited.
    Timeout,
    /// The server panicked, closed early, wrote a line that is not JSON-RPC, or failed setup.
    ServerFailure,
    /// Over Streamable HTTP: the transport broke its contract (a status, a content type,
    /// the session header, malformed SSE), whatever the MCP messages were.
    Http,
    /// The server wrote lines on stdout that are not JSON-RPC messages (a banner, logs):
    /// one finding for all of them, unless the fixture allows them (header
    /// `"allow_stray_output": true`). For `mcp-replay serve`: the client did, on its stdin.
    StrayOutput,
}

impl MismatchKind {
    /// The name used in reports: `method`, `params`, `result`, `id`, `notification order`,
    /// `missing`, `unexpected`, `timeout`, `server failure`, `http`, `stray output`.
    pub fn name(self) -> &'static str {
        match self {
            MismatchKind::Method => "method",
            MismatchKind::Params => "params",
            MismatchKind::Result => "result",
            MismatchKind::Id => "id",
            MismatchKind::NotificationOrder => "notification order",
            MismatchKind::Missing => "missing",
            MismatchKind::Unexpected => "unexpected",
            MismatchKind::Timeout => "timeout",
            MismatchKind::ServerFailure => "server failure",
            MismatchKind::Http => "http",
            MismatchKind::StrayOutput => "stray output",
        }
    }
}

impl fmt::Display for MismatchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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
    /// When it happened, as the summary says it (`while `tools/call x` (line 1) ran`,
    /// `after the last message`): with the kind and the method, what makes findings alike.
    pub(crate) during: Option<String>,
    /// For the response to a listing request: its items, paired by key in the differences
    /// and the diff.
    pub(crate) listing: Option<Listing>,
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
            during: None,
            listing: None,
        }
    }

    /// Names the client request the finding concerns.
    pub(crate) fn request(mut self, entry: &crate::fixture::Entry) -> Self {
        self.request = Some((entry.line(), entry.request_name()));
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
    /// each change and its contract class ([`contract`](crate::contract)); else empty.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// One line per contract change under the finding, most severe first (as
    /// [`contract::changes`](crate::contract::changes) gives them; sorted again in case
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
            during: self.during.as_deref().map(|d| mask_text(d).into_owned()),
            listing: self.listing,
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

/// The outcome of replaying one fixture: all findings, collected before failing once.
#[derive(Debug, Clone)]
pub struct Report {
    pub(crate) source: String,
    pub(crate) test: Option<String>,
    pub(crate) rerecord: Option<String>,
    pub(crate) mismatches: Vec<Mismatch>,
    pub(crate) accepted: Vec<Mismatch>,
    pub(crate) notes: Vec<String>,
    pub(crate) recorded: Option<Fixture>,
}

impl Report {
    /// `true` when the server did exactly what the fixture says.
    pub fn is_ok(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// Every finding, in the order the fixture reaches them.
    pub fn mismatches(&self) -> &[Mismatch] {
        &self.mismatches
    }

    /// The changed results that are not findings because every one of their contract
    /// changes is in an accepted class ([`Rules::accept`](crate::Rules::accept), the
    /// header's `"accept"`). A re-recording writes them as the server sent them.
    pub fn accepted(&self) -> &[Mismatch] {
        &self.accepted
    }

    /// What is worth knowing but is no finding, e.g. that the server had to be stopped
    /// with SIGTERM after its input closed, or that it wrote lines on stdout that the
    /// fixture allows. Written under the report, whether it is ok or not.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The fixture this report is about (file path, or `<string>`).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The fixture as the server actually behaved: the same client messages, the server
    /// messages it really sent with ids normalized to the fixture's labels. `None` when
    /// nothing trustworthy could be recorded (a timeout, a server failure or an id mismatch),
    /// and after a replay [`without_recording`](Fixture::without_recording).
    pub fn recorded(&self) -> Option<&Fixture> {
        self.recorded.as_ref()
    }

    /// Names the test in the re-record command at the end of the report.
    pub fn with_test_name(mut self, test: impl Into<String>) -> Self {
        self.test = Some(test.into());
        self
    }

    /// Panics with the whole readable report unless [`is_ok`](Report::is_ok).
    #[track_caller]
    pub fn assert_ok(&self) {
        if !self.is_ok() {
            panic!("{self}");
        }
    }

    /// Replaces the re-record command at the end of the report (for runners that are not
    /// `cargo test`, such as a CLI). It is printed for pasting into a shell: build it with
    /// [`shell_line`](crate::harness::shell_line) so that it runs as shown.
    pub fn with_rerecord_command(mut self, command: impl Into<String>) -> Self {
        self.rerecord = Some(command.into());
        self
    }

    /// The command that re-records this fixture.
    pub fn rerecord_command(&self) -> String {
        if let Some(command) = &self.rerecord {
            return command.clone();
        }
        match self.test.as_deref() {
            Some(test) => format!(
                "MCP_FIXTURE_UPDATE=1 cargo test {}",
                crate::harness::shell_quote(test_filter(test))
            ),
            // A bare `Fixture::replay` reads no update mode: say what does re-record.
            None => "write `report.recorded()` with `mcp_replay::update::write_fixture`, or \
                     replay through `harness::Plan::run` (or `#[mcp_fixture]`), which \
                     `MCP_FIXTURE_UPDATE=1` re-records"
                .into(),
        }
    }
}

/// `{}` plain text; `{:#}` with ANSI colors for a terminal (see
/// [`harness::color_wanted`](crate::harness::color_wanted)).
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_ok() {
            write!(f, "mcp-replay: {}: ok", self.source)?;
            let n = self.accepted.len();
            if n > 0 {
                let s = if n == 1 { "" } else { "s" };
                write!(f, " ({n} changed result{s}, every change accepted)")?;
            }
            let mut notes = String::new();
            write_notes(&mut notes, &self.notes)?;
            return f.write_str(&mask_text(&notes));
        }
        let mut text = String::new();
        let _ = writeln!(
            text,
            "mcp-replay: {}: {}",
            self.source,
            headline(&self.mismatches)
        );
        let _ = write_findings(&mut text, &self.mismatches, f.alternate());
        if !self.notes.is_empty() {
            text.push_str("\nNotes:");
            let _ = write_notes(&mut text, &self.notes);
            text.push('\n');
        }
        for (i, piece) in self.advice().iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let _ = write!(text, "\n{piece}");
        }
        // The findings are masked already; the notes, the advice and the source here.
        f.write_str(&mask_text(text.trim_end_matches('\n')))
    }
}

impl Report {
    /// The advice at the end of the report, one text per piece ([`advice`]).
    pub(crate) fn advice(&self) -> Vec<String> {
        advice(&self.mismatches)
            .iter()
            .map(|piece| self.render_advice(piece))
            .collect()
    }

    fn render_advice(&self, piece: &Advice) -> String {
        match piece {
            Advice::Refused(refused) => {
                let what = match refused.len() {
                    1 => "a request it answered".to_owned(),
                    n => format!("{n} requests it answered"),
                };
                let mut text = format!(
                    "The server refused {what} when the fixture was recorded: the client lines \
                     may be stale."
                );
                for r in refused {
                    let _ = write!(
                        text,
                        "\n    edit line {} (`{}`: {}), or check the server",
                        r.line, r.request, r.how
                    );
                }
                text
            }
            Advice::Rerecord => format!(
                "If the new behaviour is right, re-record the fixture:\n    {}",
                self.rerecord_command()
            ),
            Advice::FixFirst(kinds) => {
                let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
                format!(
                    "Fix the {} first: a session with one is not re-recorded. Then, if the new \
                     behaviour is right, re-record the fixture:\n    {}",
                    names.join(" and the "),
                    self.rerecord_command()
                )
            }
        }
    }
}

/// One `note: ...` line per note, each on a line of its own.
pub(crate) fn write_notes(out: &mut impl fmt::Write, notes: &[String]) -> fmt::Result {
    for note in notes {
        write!(out, "\n    note: {note}")?;
    }
    Ok(())
}

/// `4 mismatches (2 result, 1 notification order, 1 missing)`: how many findings of each
/// kind, as the first line of a report says it.
pub fn headline(mismatches: &[Mismatch]) -> String {
    let n = mismatches.len();
    let mut kinds: Vec<MismatchKind> = mismatches.iter().map(Mismatch::kind).collect();
    kinds.sort();
    kinds.dedup();
    let counts: Vec<String> = kinds
        .iter()
        .map(|k| format!("{} {k}", mismatches.iter().filter(|m| m.kind == *k).count()))
        .collect();
    format!(
        "{n} mismatch{} ({})",
        if n == 1 { "" } else { "es" },
        counts.join(", ")
    )
}

/// The numbered findings of a report, each after a blank line (in color with
/// `alternate`). More than [`ALIKE`] findings alike ([`Mismatch::alike`]) are one numbered
/// item: how many, of what, when, and the first [`ALIKE`] of them in full.
pub(crate) fn write_findings(
    out: &mut impl fmt::Write,
    mismatches: &[Mismatch],
    alternate: bool,
) -> fmt::Result {
    let (bold, reset) = if alternate {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("", "")
    };
    let one = |out: &mut dyn fmt::Write, number: &str, m: &Mismatch, indent: &str| {
        let text = if alternate {
            format!("{m:#}")
        } else {
            m.to_string()
        };
        let text = text.replace('\n', &format!("\n{indent}"));
        writeln!(out, "\n{indent}{number}. {text}")
    };
    for (i, item) in items(mismatches).into_iter().enumerate() {
        let n = i + 1;
        match item {
            Item::One(m) => one(out, &n.to_string(), &mismatches[m], "")?,
            Item::Alike(members) => {
                let first = &mismatches[members[0]];
                let lines: Vec<usize> =
                    members.iter().filter_map(|&m| mismatches[m].line).collect();
                let mut header = alike_header(first, members.len());
                if let (Some(lo), Some(hi)) = (lines.iter().min(), lines.iter().max()) {
                    let _ = if lo == hi {
                        write!(header, " (fixture line {lo})")
                    } else {
                        write!(header, " (fixture lines {lo} to {hi})")
                    };
                }
                writeln!(out, "\n{n}. {bold}{header}; the first {ALIKE}:{reset}")?;
                for (j, &m) in members.iter().take(ALIKE).enumerate() {
                    one(out, &format!("{n}.{}", j + 1), &mismatches[m], "    ")?;
                }
                writeln!(
                    out,
                    "\n    ... and {} more like them (all of them in the JSON report and in \
                     `Report::mismatches()`)",
                    members.len() - ALIKE
                )?;
            }
        }
    }
    Ok(())
}

/// How many findings alike a report shows one by one; more are one item.
const ALIKE: usize = 3;

/// One numbered item of a report's findings.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    /// A finding (its index).
    One(usize),
    /// More than [`ALIKE`] findings alike, in order, at the place of the first.
    Alike(Vec<usize>),
}

/// The numbered items of `mismatches`: each finding, but more than [`ALIKE`] alike
/// together.
fn items(mismatches: &[Mismatch]) -> Vec<Item> {
    let keys: Vec<Option<(MismatchKind, &str, Option<&str>)>> =
        mismatches.iter().map(Mismatch::alike).collect();
    let mut out = Vec::new();
    let mut taken = vec![false; mismatches.len()];
    for i in 0..mismatches.len() {
        if taken[i] {
            continue;
        }
        let members: Vec<usize> = match keys[i] {
            Some(key) => (i..mismatches.len())
                .filter(|&j| keys[j] == Some(key))
                .collect(),
            None => vec![i],
        };
        if members.len() > ALIKE {
            for &m in &members {
                taken[m] = true;
            }
            out.push(Item::Alike(members));
        } else {
            out.push(Item::One(i));
        }
    }
    out
}

/// `94 unexpected `notifications/progress` while `tools/call x` (line 7) ran`: what
/// `n` findings alike to `first` are.
fn alike_header(first: &Mismatch, n: usize) -> String {
    let (kind, method, during) = first.alike().expect("findings alike have a key");
    let what = match kind {
        MismatchKind::Unexpected => format!("{n} unexpected `{method}`"),
        MismatchKind::Missing => format!("{n} missing `{method}`"),
        MismatchKind::Params => format!("{n} `{method}` with other params"),
        other => format!("{n} {other} findings for `{method}`"),
    };
    match during {
        Some(during) => format!("{what} {during}"),
        None => what,
    }
}

impl Mismatch {
    /// What makes findings alike, so that a report shows many of them as one item: the
    /// kind, the method of the message (a notification or a server request; responses
    /// are never alike), and when it happened (the request it ran under).
    fn alike(&self) -> Option<(MismatchKind, &str, Option<&str>)> {
        let message = self.actual.as_ref().or(self.expected.as_ref())?;
        let method = message.get("method")?.as_str()?;
        Some((self.kind, method, self.during.as_deref()))
    }
}

#[cfg(test)]
mod should {
    use super::*;
    use serde_json::json;

    fn report() -> Report {
        Report {
            source: "f.jsonl".into(),
            test: None,
            rerecord: None,
            mismatches: vec![Mismatch::new(MismatchKind::Result, Some(2), "differs")
                .compare(&json!({"result": {"n": 1}}), &json!({"result": {"n": 2}}))],
            accepted: Vec::new(),
            notes: Vec::new(),
            recorded: None,
        }
    }

    #[test]
    fn show_a_late_difference_in_a_long_string_around_it_with_carets_under_it() {
        let stem = "The current time in Pacific/Kiritimati is 2025-06-01T10:30:00, ".repeat(2);
        let expected = json!({"result": {"text": format!("{stem}offset +13.0h")}});
        let actual = json!({"result": {"text": format!("{stem}offset +14.0h")}});
        let m = Mismatch::new(MismatchKind::Result, Some(2), "differs").compare(&expected, &actual);
        let text = m.to_string();
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == "    at .result.text")
            .unwrap();
        assert_eq!(
            lines[at + 1..at + 5],
            [
                "      expected: …is 2025-06-01T10:30:00, The current time in Pacific/Kiritimati is 2025-06-01T10:30:00, offset +13.0h\"",
                "                                                                                                                 ^",
                "      actual:   …is 2025-06-01T10:30:00, The current time in Pacific/Kiritimati is 2025-06-01T10:30:00, offset +14.0h\"",
                "                                                                                                                 ^",
            ],
            "{text}"
        );
        // The same in color, the carets in the colors of their lines.
        let colored = format!("{m:#}");
        assert!(colored.contains("\x1b[31m…is 2025-06-01"), "{colored}");
    }

    fn unexpected(method: &str, during: &str, n: u32) -> Mismatch {
        Mismatch::new(MismatchKind::Unexpected, None, "sent")
            .during(during)
            .actual(&json!({"jsonrpc": "2.0", "method": method, "params": {"n": n}}))
    }

    #[test]
    fn take_more_than_three_findings_of_one_kind_method_and_moment_as_one_item() {
        let p = "notifications/progress";
        let l = "notifications/message";
        let (a, b) = (
            "while `tools/call a` (line 1) ran",
            "while `tools/call b` (line 3) ran",
        );
        let result = || Mismatch::new(MismatchKind::Result, Some(2), "differs");
        let table: Vec<(&str, Vec<Mismatch>, Vec<Item>)> = vec![
            (
                "three alike: one by one",
                (0..3).map(|n| unexpected(p, a, n)).collect(),
                vec![Item::One(0), Item::One(1), Item::One(2)],
            ),
            (
                "four alike: one item, at the first's place",
                vec![
                    result(),
                    unexpected(p, a, 0),
                    unexpected(l, a, 0),
                    unexpected(p, a, 1),
                    unexpected(p, a, 2),
                    unexpected(p, a, 3),
                ],
                vec![Item::One(0), Item::Alike(vec![1, 3, 4, 5]), Item::One(2)],
            ),
            (
                "under another request, or another method: not alike",
                vec![
                    unexpected(p, a, 0),
                    unexpected(p, b, 1),
                    unexpected(p, a, 2),
                    unexpected(l, a, 3),
                    unexpected(p, a, 4),
                ],
                (0..5).map(Item::One).collect(),
            ),
            (
                "responses are never alike",
                (0..5).map(|_| result()).collect(),
                (0..5).map(Item::One).collect(),
            ),
        ];
        for (case, mismatches, want) in table {
            assert_eq!(items(&mismatches), want, "{case}");
        }
    }

    #[test]
    fn show_many_findings_alike_as_one_item_with_the_first_three_but_keep_every_one() {
        let during = "while `tools/call reindex` (line 7) ran";
        let report = Report {
            mismatches: (1..=94)
                .map(|n| unexpected("notifications/progress", during, n))
                .chain([Mismatch::new(MismatchKind::Result, Some(8), "differs")])
                .collect(),
            ..report()
        };
        assert_eq!(report.mismatches().len(), 95);
        let text = report.to_string();
        let items: Vec<&str> = text
            .lines()
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .collect();
        assert_eq!(
            items,
            [
                "1. 94 unexpected `notifications/progress` while `tools/call reindex` (line 7) ran; the first 3:",
                "2. result at fixture line 8: differs",
            ],
            "{text}"
        );
        assert!(text.contains("\n    1.1. unexpected: sent\n        actual:   {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"n\":1}}\n"), "{text}");
        assert!(text.contains("\n    1.3. unexpected: sent"), "{text}");
        assert!(!text.contains("1.4."), "{text}");
        assert!(text.contains("\n    ... and 91 more like them"), "{text}");
        assert!(
            text.starts_with("mcp-replay: f.jsonl: 95 mismatches (1 result, 94 unexpected)"),
            "{text}"
        );
    }

    /// For every token rule the scanner knows (its own samples, one or more per rule, so a
    /// new rule is covered once it has a sample), and the key-name rule: no report output
    /// shows the secret, whether it is in a changed string, a long one cut to an excerpt,
    /// a key, the summary or a note.
    #[test]
    fn mask_every_secret_the_scanner_knows_in_every_output() {
        use crate::normalize::secrets::tests::{assert_no_piece_of, samples};
        let stem = "The answer to the question you asked is long enough to be cut. ".repeat(3);
        let mut covered: Vec<&str> = Vec::new();
        for (id, sample) in samples() {
            covered.push(id);
            let expected = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [
                {"type": "text", "text": "ok"},
                {"type": "text", "text": format!("{stem}end")},
            ]}});
            let actual = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [
                {"type": "text", "text": format!("ok {sample}")},
                {"type": "text", "text": format!("{stem}{sample}")},
            ], "meta": {sample.clone(): 1}}});
            let m = Mismatch::new(MismatchKind::Result, Some(2), format!("differs: {sample}"))
                .compare(&expected, &actual);
            let report = Report {
                mismatches: vec![m.clone()],
                notes: vec![format!("a note with {sample}")],
                ..report()
            };
            let outputs = [
                report.to_string(),
                format!("{report:#}"),
                report.to_json().to_string(),
                crate::output::document("replay", vec![report.to_json()]).to_string(),
            ];
            // A Slack webhook's secret is its path; the host is public.
            let secret = sample.split("/services/").last().unwrap();
            for (i, out) in outputs.iter().enumerate() {
                assert_no_piece_of(secret, out, &format!("{id}, output {i}"));
                assert!(
                    out.contains(&format!("[masked: {id}]")),
                    "{id}, output {i}: {out}"
                );
            }
            // The finding itself keeps what came, for code that asks for it.
            assert_eq!(m.actual_message(), Some(&actual));
        }
        for id in crate::normalize::secrets::rule_ids() {
            assert!(
                covered.contains(id) || *id == "sensitive-key",
                "no report test for {id}"
            );
        }
        // The key-name rule: a credential under its key's name, in the message and in the
        // difference at that key.
        let password = "Zx8#qL2!vN5@wR7$";
        let m = Mismatch::new(MismatchKind::Params, Some(2), "other params").compare(
            &json!({"method": "m", "params": {"password": "<SECRET>"}}),
            &json!({"method": "m", "params": {"password": password}}),
        );
        let text = m.to_string();
        assert_no_piece_of(password, &text, "sensitive-key");
        assert!(text.contains("…[masked: sensitive-key]"), "{text}");
        assert_no_piece_of(password, &m.to_json().to_string(), "sensitive-key");
    }

    #[test]
    fn write_plain_text_and_the_same_text_in_color_with_the_alternate_flag() {
        let plain = report().to_string();
        let colored = format!("{:#}", report());
        assert!(!plain.contains('\x1b'), "{plain}");
        assert!(colored.contains("\x1b[31m-"), "{colored}");
        assert!(colored.contains("\x1b[32m+"), "{colored}");
        let stripped = regex::Regex::new("\x1b\\[[0-9]+m")
            .unwrap()
            .replace_all(&colored, "");
        assert_eq!(stripped, plain);
    }
}
