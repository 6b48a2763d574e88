//! The picture of a session ([`Report::to_html`]): one self-contained HTML page drawn from
//! the replay's timeline (`timeline.rs`) by pure code. A sequence diagram with a client
//! lane and a server lane: each message is an arrow at its time, the fixture's line and
//! the live line side by side, the findings marked at the messages they concern, the span
//! of each client request drawn as a bar on the server lane (shaded across the lanes where
//! the fixture ties notifications to it), and the whole messages and findings a click away
//! (`<details>`). The page loads nothing: its style and its few lines of script are inline,
//! and its content security policy forbids any other source, so it opens from a CI
//! artifact as it does from a disk. Every text is masked as the text report masks it
//! (what the secret guard would refuse to write is `ghp_…[masked: github-pat]`), then
//! escaped.
//!
//! Here: the page, its header, its list of findings and its footer. The rows and the span
//! bars laid out is `layout.rs`, each row drawn `draw.rs`, a message's text as shown
//! `text.rs`, the inline style and script `style.rs`.

mod draw;
mod layout;
mod style;
#[cfg(test)]
mod tests;
mod text;

use crate::findings::report::{headline, Mismatch, Report};
use crate::findings::timeline::{Side, Timeline, What};
use crate::normalize::secrets::mask_text;
use draw::write_row;
use layout::{place_spans, rows, Row};
use std::fmt::Write as _;
use style::{hue_css, CSS, SCRIPT};
use text::{esc, ms};

impl Report {
    /// The picture of the session as one self-contained HTML page (a sequence diagram of
    /// every message, with the fixture's line beside the live one and the findings
    /// marked), or `None` when the replay kept no timeline: replay with
    /// [`Options::timeline`](crate::Options::timeline) (`#[mcp_fixture]` does when
    /// `MCP_REPLAY_HTML` names a folder; the command with `replay --html`).
    ///
    /// ```
    /// use mcp_replay::{Fixture, Options, Rules};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let fixture = Fixture::parse(concat!(
    ///     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"ping"}}"#, "\n",
    ///     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{}}}"#, "\n",
    /// )).unwrap();
    /// let options = Options::new().timeline(true);
    /// let report = fixture
    ///     .replay().options(&options).run(|transport| async move { drop(transport) })
    ///     .await;
    /// let page = report.to_html().expect("the replay kept its timeline");
    /// assert!(page.starts_with("<!DOCTYPE html>"));
    /// assert!(page.contains("server failure"));
    /// # }
    /// ```
    pub fn to_html(&self) -> Option<String> {
        self.timeline
            .as_deref()
            .map(|timeline| page(self, timeline))
    }
}

/// The page.
pub(crate) fn page(report: &Report, t: &Timeline) -> String {
    let findings: Vec<Mismatch> = report.mismatches().iter().map(Mismatch::masked).collect();
    let rows = rows(t);
    let spans = place_spans(t, &rows);
    // The first row of each finding, for the list's links.
    let mut row_of_finding: Vec<Option<usize>> = vec![None; findings.len()];
    for (r, row) in rows.iter().enumerate() {
        let about = match row {
            Row::Event(i) => &t.events[*i].findings,
            Row::Missing(m) => &t.missing[*m].findings,
            Row::Gap(_) => continue,
        };
        for &k in about {
            if let Some(slot) = row_of_finding.get_mut(k) {
                slot.get_or_insert(r);
            }
        }
    }
    let source = esc(&mask_text(report.source()));
    let mut out = String::with_capacity(16 * 1024 + t.events.len() * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>mcp-replay: {source}</title>\n<style>{CSS}{hues}</style>\n</head>\n<body>\n",
        hues = hue_css()
    );
    write_header(&mut out, report, t, &source);
    write_findings(&mut out, &findings, &row_of_finding);
    out.push_str(
        "<div class=\"tools\"><label><input type=\"checkbox\" id=\"only\"/> only the messages \
         with findings</label> <button type=\"button\" id=\"open\">open all</button> \
         <button type=\"button\" id=\"close\">close all</button></div>\n",
    );
    out.push_str(
        "<main class=\"diagram\">\n<div class=\"head\"><span class=\"t\">time</span>\
         <span class=\"x\">expected: the fixture's line</span><span class=\"lanes\">\
         <b class=\"lc\">client</b><b class=\"ls\">server</b></span>\
         <span class=\"a\">actual: the live line</span></div>\n",
    );
    for (r, row) in rows.iter().enumerate() {
        write_row(&mut out, t, &findings, &spans, r, *row);
    }
    out.push_str("</main>\n");
    write_footer(&mut out, report, t);
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

fn write_header(out: &mut String, report: &Report, t: &Timeline, source: &str) {
    let (class, verdict) = if report.is_ok() {
        ("ok", "ok".to_owned())
    } else {
        ("fail", format!("FAILED: {}", headline(report.mismatches())))
    };
    let count = |side: Side| {
        t.events
            .iter()
            .filter(|e| e.side == side && e.what == What::Message)
            .count()
    };
    let dropped = t.dropped + t.events.len();
    let _ = write!(
        out,
        "<header><h1>{source}</h1>\n<p class=\"verdict {class}\">{}</p>\n\
         <p class=\"meta\">{} lines sent to the server, {} received from it, in {}; \
         {} client request{}, each a span from its send to its response</p>",
        esc(&verdict),
        count(Side::Client),
        count(Side::Server),
        ms(t.elapsed),
        t.spans.len(),
        if t.spans.len() == 1 { "" } else { "s" },
    );
    if t.dropped > 0 {
        let _ = write!(
            out,
            "\n<p class=\"meta\">The page shows the first {} of {dropped} events.</p>",
            t.events.len()
        );
    }
    out.push_str("</header>\n");
}

fn write_findings(out: &mut String, findings: &[Mismatch], row_of_finding: &[Option<usize>]) {
    if findings.is_empty() {
        return;
    }
    out.push_str("<section id=\"findings\"><h2>Findings</h2>\n<ol>\n");
    for (k, m) in findings.iter().enumerate() {
        let title = match m.line() {
            Some(line) => format!("{} at fixture line {line}", m.kind()),
            None => m.kind().to_string(),
        };
        let _ = write!(out, "<li id=\"f{}\">", k + 1);
        match row_of_finding[k] {
            Some(r) => {
                let _ = write!(out, "<a href=\"#r{r}\">{}</a>", esc(&title));
            }
            None => {
                let _ = write!(out, "<b>{}</b>", esc(&title));
            }
        }
        let _ = write!(out, ": <span class=\"sum\">{}</span>", esc(m.summary()));
        if row_of_finding[k].is_none() {
            out.push_str(" <i>(the session as a whole)</i>");
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ol></section>\n");
}

fn write_footer(out: &mut String, report: &Report, t: &Timeline) {
    out.push_str("<footer>\n");
    let notes: Vec<String> = report
        .warnings()
        .iter()
        .map(|w| format!("warning: protocol: {}", w.masked().summary()))
        .chain(report.notes().iter().map(|n| format!("note: {n}")))
        .chain(report.accepted().iter().map(|a| {
            format!(
                "accepted (every contract change in an accepted class): {}",
                a.masked().summary()
            )
        }))
        .collect();
    if !notes.is_empty() {
        out.push_str("<ul class=\"notes\">\n");
        for note in notes {
            let _ = writeln!(out, "<li>{}</li>", esc(&mask_text(&note)));
        }
        out.push_str("</ul>\n");
    }
    let _ = write!(
        out,
        "<p class=\"legend\"><span class=\"eq\">= L6</span> equal to fixture line 6 · \
         <span class=\"badge\">#1 result</span> a finding (red rows) · \
         <span class=\"dim\">never came</span>: expected, dashed · \
         <i class=\"key bar h0\"></i> a client request's span, from its send to its \
         response, on the server lane; shaded across the lanes where the fixture ties \
         notifications to it · the harness's own lines in grey · click a row for the whole \
         messages and findings</p>\n\
         <p class=\"legend\">mcp-replay {} · replayed in {}</p>\n</footer>\n",
        env!("CARGO_PKG_VERSION"),
        ms(t.elapsed)
    );
}
