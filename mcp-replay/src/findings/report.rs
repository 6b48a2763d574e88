//! The outcome of a replay: every mismatch found, rendered as one readable report.

use crate::data::fixture::Fixture;
use crate::error::test_filter;
use crate::findings::advice::{advice, Advice};
pub use crate::findings::mismatch::{Mismatch, MismatchKind};
use crate::findings::timeline::Timeline;
use crate::normalize::secrets::mask_text;
use std::fmt::{self, Write as _};

/// The outcome of replaying one fixture: all findings, collected before failing once.
#[derive(Debug, Clone)]
pub struct Report {
    pub(crate) source: String,
    pub(crate) test: Option<String>,
    pub(crate) rerecord: Option<String>,
    pub(crate) mismatches: Vec<Mismatch>,
    pub(crate) accepted: Vec<Mismatch>,
    pub(crate) warnings: Vec<Mismatch>,
    pub(crate) notes: Vec<String>,
    pub(crate) recorded: Option<Fixture>,
    /// The run re-records (`MCP_FIXTURE_UPDATE=1`, `replay --update`): its advice never
    /// tells to run it again.
    pub(crate) rerecording: bool,
    /// The recording's runs pinned a value or an order that changes between runs
    /// (`harness::settle`): the recording is written although this run matched.
    pub(crate) pinned: bool,
    /// The timeline of the session, for its picture ([`Report::to_html`]), when the
    /// replay kept one ([`Options::timeline`](crate::Options::timeline)).
    pub(crate) timeline: Option<Box<Timeline>>,
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

    /// What the server sent that is not valid MCP, when the settings make that a warning
    /// instead of a [`Protocol`](MismatchKind::Protocol) finding
    /// ([`Options::protocol_check`](crate::Options::protocol_check), the header's
    /// `"protocol_check": "warn"`). Written under the report, whether it is ok or not.
    pub fn warnings(&self) -> &[Mismatch] {
        &self.warnings
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
    /// and after a replay [`without_recording`](crate::Options::without_recording).
    pub fn recorded(&self) -> Option<&Fixture> {
        self.recorded.as_ref()
    }

    /// Names the test in the re-record command at the end of the report.
    pub fn with_test_name(mut self, test: impl Into<String>) -> Self {
        self.test = Some(test.into());
        self
    }

    /// A report of `source` with nothing in it yet.
    pub(crate) fn empty(source: &str) -> Report {
        Report {
            source: source.to_owned(),
            test: None,
            rerecord: None,
            mismatches: Vec::new(),
            accepted: Vec::new(),
            warnings: Vec::new(),
            notes: Vec::new(),
            recorded: None,
            rerecording: false,
            pinned: false,
            timeline: None,
        }
    }

    /// This report with the failure of a test body that is the client (its panic, its
    /// error) as a finding: the test fails, and a re-recording is not written.
    pub(crate) fn with_body_failure(mut self, why: crate::ServerError) -> Self {
        self.mismatches.insert(
            0,
            Mismatch::new(
                MismatchKind::ServerFailure,
                None,
                format!("the test body failed: {why}"),
            ),
        );
        self
    }

    /// This report with a finding that the client under test failed (a mock session's
    /// client that panicked or returned an error): what it did until then stays reported.
    pub(crate) fn with_client_failure(mut self, why: crate::ServerError) -> Self {
        self.mismatches.push(Mismatch::new(
            MismatchKind::ServerFailure,
            None,
            format!("the client under test failed: {why}"),
        ));
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
    /// [`shell_line`](crate::terminal::shell_line) so that it runs as shown.
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
                crate::terminal::shell_quote(test_filter(test))
            ),
            // A bare `Fixture::replay` reads no update mode: say what does re-record.
            None => {
                "write `report.recorded()` with `mcp_replay::_support::update::write_fixture`, or \
                     replay through `harness::Plan::run` (or `#[mcp_fixture]`), which \
                     `MCP_FIXTURE_UPDATE=1` re-records"
                    .into()
            }
        }
    }
}

/// `{}` plain text; `{:#}` with ANSI colors for a terminal (see
/// [`harness::color_wanted`](crate::_support::color_wanted)).
/// What a handshake refused as an unknown method says: the server may speak the stateless
/// era only.
pub(crate) const ONLY_STATELESS: &str =
    "\n    (a server that does not know `initialize` may speak \
     protocol 2026-07-28 only, which has no handshake: replay in that era with \
     \"protocol\": \"2026-07-28\" in the fixture's header, `protocol = \"2026-07-28\"` on \
     the attribute, or `--protocol 2026-07-28`)";

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
            write_warnings(&mut notes, &self.warnings)?;
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
        if !self.notes.is_empty() || !self.warnings.is_empty() {
            text.push_str("\nNotes:");
            let _ = write_warnings(&mut text, &self.warnings);
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
            .filter(|text| !text.is_empty())
            .collect()
    }

    fn render_advice(&self, piece: &Advice) -> String {
        match piece {
            Advice::Refused(refused) => render_refused(refused),
            Advice::PerRun(found) => render_per_run(found),
            Advice::Follow(followed) => render_followed(followed),
            // The run re-records already: what keeps it from writing follows the report.
            Advice::Rerecord if self.rerecording => String::new(),
            Advice::Rerecord => format!(
                "If the new behaviour is right, re-record the fixture:\n    {}",
                self.rerecord_command()
            ),
            Advice::FixFirst(kinds) if self.rerecording => {
                let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
                format!(
                    "Fix the {} first: a session with one is not re-recorded.",
                    names.join(" and the ")
                )
            }
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

/// What looks minted per run, of [`Advice::PerRun`], each with the rule that pins it (each
/// checked, by applying it to the two messages, before it is offered).
fn render_per_run(found: &[(usize, crate::normalize::per_run::PerRun)]) -> String {
    let mut text = String::from(
        "What differs looks minted per run. A re-recording against a server it can start \
         again (the attribute's body, a child process) runs it until such values show, and \
         binds or sorts them; else pin them with a rule in the fixture's header or the \
         folder's rules file (docs/normalization.md, \"Values that change between runs\").",
    );
    for (line, per_run) in found {
        for (path, recorded, now) in &per_run.pairs {
            let _ = if per_run.inside.contains(path) {
                write!(
                    text,
                    "\n    line {line}, {path}: `{recorded}` (now `{now}`) inside a text: \
                     re-record, which binds the token alone (a \"bind\" of the path would \
                     stop comparing the rest of the text)"
                )
            } else {
                write!(
                    text,
                    "\n    line {line}, {path} (`{recorded}`, now `{now}`): \"bind\": [\"{path}\"]"
                )
            };
        }
        for path in &per_run.sorts {
            let _ = write!(
                text,
                "\n    line {line}, {path} came in another order: \"sort\": [\"{path}\"] (a \
                 listing: or \"accept\": [\"cosmetic\"])"
            );
        }
    }
    text
}

/// The refused requests of [`Advice::Refused`], each with the line to look at.
fn render_refused(refused: &[crate::findings::mismatch::Refusal]) -> String {
    let what = match refused.len() {
        1 => "a request it answered".to_owned(),
        n => format!("{n} requests it answered"),
    };
    let stale = if refused.iter().any(|r| r.arguments) {
        ": the client lines may be stale"
    } else {
        ""
    };
    let mut text = format!("The server refused {what} when the fixture was recorded{stale}.");
    for r in refused {
        let _ = if r.arguments {
            write!(
                text,
                "\n    edit line {} (`{}`: {}), or check the server",
                r.line, r.request, r.how
            )
        } else {
            write!(
                text,
                "\n    check the server (line {}, `{}`: {}), or edit the line",
                r.line, r.request, r.how
            )
        };
        if r.request == "initialize" && r.how.starts_with("error -32601") {
            text.push_str(ONLY_STATELESS);
        }
    }
    text
}

/// What follows from what, of [`Advice::Follow`].
fn render_followed(followed: &[(usize, Vec<usize>, Vec<String>)]) -> String {
    let mut text = String::from(
        "Later findings follow from an earlier one: their requests send a value its answer \
         was to mint. Fix the first cause, and they go with it.",
    );
    for (line, lines, minted) in followed {
        let one = lines.len() == 1;
        let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
        let _ = write!(
            text,
            "\n    line{} {} follow{} from line {line} ({} was to come in its answer)",
            if one { "" } else { "s" },
            lines.join(", "),
            if one { "s" } else { "" },
            minted.join(", ")
        );
    }
    text
}

/// One `note: ...` line per note, each on a line of its own.
/// Protocol violations made warnings: one line each, under the report.
fn write_warnings(out: &mut impl fmt::Write, warnings: &[Mismatch]) -> fmt::Result {
    for warning in warnings {
        write!(out, "\n    warning: protocol: {}", warning.summary())?;
    }
    Ok(())
}

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
            warnings: Vec::new(),
            notes: Vec::new(),
            recorded: None,
            rerecording: false,
            pinned: false,
            timeline: None,
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
                crate::findings::output::document("replay", vec![report.to_json()]).to_string(),
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
