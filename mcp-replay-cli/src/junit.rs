//! `--junit FILE`: the report as JUnit XML, the format CI systems (GitLab, Jenkins, GitHub
//! test-report actions, Buildkite) show test results from. One `<testsuite
//! name="mcp-replay">` in a `<testsuites>` root, one `<testcase>` per fixture.

use crate::error::Error;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// One fixture's test case.
pub(crate) struct Case {
    /// The fixture (the `name` attribute).
    pub name: String,
    /// `mcp-replay.replay`, `mcp-replay.check` or `mcp-replay.diff`.
    pub classname: &'static str,
    pub time: Duration,
    pub outcome: Verdict,
}

/// How a test case ended.
pub(crate) enum Verdict {
    Passed,
    /// Findings: `<failure message=... type=...>` with the plain report.
    Failure {
        message: String,
        kind: String,
        text: String,
    },
    /// No replay happened (a missing fixture, a server that did not start):
    /// `<error message=... type="error">`.
    Error {
        message: String,
        text: String,
    },
}

/// The document for `cases`, `total` being the time of the whole run.
pub(crate) fn render(suite: &str, cases: &[Case], total: Duration) -> String {
    let failures = cases
        .iter()
        .filter(|c| matches!(c.outcome, Verdict::Failure { .. }))
        .count();
    let errors = cases
        .iter()
        .filter(|c| matches!(c.outcome, Verdict::Error { .. }))
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!(
        "tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\" time=\"{}\"",
        cases.len(),
        seconds(total)
    );
    let suite = escape(suite);
    let _ = writeln!(out, "<testsuites name=\"{suite}\" {counts}>");
    let _ = writeln!(out, "  <testsuite name=\"{suite}\" {counts}>");
    for case in cases {
        let _ = write!(
            out,
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\"",
            escape(&case.name),
            escape(case.classname),
            seconds(case.time)
        );
        match &case.outcome {
            Verdict::Passed => out.push_str("/>\n"),
            Verdict::Failure {
                message,
                kind,
                text,
            } => {
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                    escape(message),
                    escape(kind),
                    cdata(text)
                );
            }
            Verdict::Error { message, text } => {
                let _ = writeln!(
                    out,
                    ">\n      <error message=\"{}\" type=\"error\">{}</error>\n    </testcase>",
                    escape(message),
                    cdata(text)
                );
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Writes the document for `cases` to `path`.
pub(crate) fn write(path: &Path, cases: &[Case], total: Duration) -> Result<(), Error> {
    write_suite(path, "mcp-replay", cases, total)
}

/// [`write`] with the suite named `suite` (`mcp-replay (shard hash:1/3)`).
pub(crate) fn write_suite(
    path: &Path,
    suite: &str,
    cases: &[Case],
    total: Duration,
) -> Result<(), Error> {
    std::fs::write(path, render(suite, cases, total))
        .map_err(|e| Error::output(format!("writing the JUnit report {}: {e}", path.display())))
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// A report as a CDATA section: the text as it is, which every JUnit reader shows
/// verbatim (some drop entities in element text), with what CDATA cannot hold made safe
/// ([`clean`], and `]]>` split across two sections).
pub(crate) fn cdata(text: &str) -> String {
    format!(
        "<![CDATA[{}]]>",
        clean(text, false).replace("]]>", "]]]]><![CDATA[>")
    )
}

/// Text as an attribute value: the five special characters as entities, and [`clean`].
pub(crate) fn escape(text: &str) -> String {
    clean(text, true)
}

/// ANSI color codes dropped, the characters XML 1.0 cannot hold at all (the control
/// characters but tab and line breaks) as `\u{..}`, and with `entities` the five special
/// characters as entities.
fn clean(text: &str, entities: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '&' if entities => out.push_str("&amp;"),
            '<' if entities => out.push_str("&lt;"),
            '>' if entities => out.push_str("&gt;"),
            '"' if entities => out.push_str("&quot;"),
            '\'' if entities => out.push_str("&apos;"),
            // An SGR sequence, `ESC [ digits ; ... m`: color, not text.
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn escape_markup_quotes_colors_and_control_characters() {
        assert_eq!(
            escape("a<b> & \"c\" 'd'"),
            "a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;"
        );
        assert_eq!(escape("\x1b[1;31mFAILED\x1b[0m"), "FAILED");
        assert_eq!(escape("x\u{0}y\u{8}\tz\n"), "x\\u{0}y\\u{8}\tz\n");
    }

    #[test]
    fn keep_a_report_verbatim_in_cdata_even_with_its_end_marker() {
        assert_eq!(cdata("a < \"b\" & c"), "<![CDATA[a < \"b\" & c]]>");
        assert_eq!(cdata("x]]>y\x1b[31m"), "<![CDATA[x]]]]><![CDATA[>y]]>");
    }
}
