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

use crate::json::compact;
use crate::normalize::secrets::{mask_text, mask_value};
use crate::report::{headline, Mismatch, Report};
use crate::timeline::{Event, Side, Timeline, What};
use serde_json::Value;
use std::fmt::Write as _;
use std::time::Duration;

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
    ///     .replay().rules(&Rules::default()).options(&options).run(|transport| async move { drop(transport) })
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

/// A pause between two messages at least this long is drawn as a gap of its own.
const GAP: Duration = Duration::from_millis(100);
/// How much of a message a row shows (the rest is a click away).
const ROW_TEXT: usize = 400;
/// How much of a message its details show.
const WHOLE_TEXT: usize = 64 * 1024;
/// The colors of the spans, in turn: `(red, green, blue)`.
const HUES: [(u8, u8, u8); 6] = [
    (21, 101, 192),
    (0, 137, 123),
    (142, 36, 170),
    (239, 108, 0),
    (93, 64, 55),
    (194, 24, 91),
];
/// The widest stack of span bars drawn side by side; more overlap.
const SLOTS: usize = 6;

/// One row of the diagram.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Row {
    /// `events[i]`.
    Event(usize),
    /// `missing[i]`: an expected message that never came.
    Missing(usize),
    /// A pause this long before the next message.
    Gap(Duration),
}

/// A message as the page shows it: masked, in a row and whole.
struct Shown {
    /// The method (and the tool, prompt or resource) or the id.
    label: String,
    /// One line, cut at [`ROW_TEXT`].
    line: String,
    /// Pretty-printed, cut at [`WHOLE_TEXT`].
    whole: String,
}

fn shown(text: &str) -> Shown {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => {
            // Every string and key masked: what is written of the value holds no secret.
            let value = mask_value(&value);
            let whole = serde_json::to_string_pretty(&value).unwrap_or_default();
            Shown {
                label: label_of(&value),
                line: compact(&value, ROW_TEXT),
                whole: cut(&whole, WHOLE_TEXT),
            }
        }
        Err(_) => {
            let text = mask_text(text);
            Shown {
                label: String::new(),
                line: cut(&text, ROW_TEXT),
                whole: cut(&text, WHOLE_TEXT),
            }
        }
    }
}

/// `text` cut at `max` characters, saying so.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!(
            "{}… ({} more characters)",
            &text[..at],
            text[at..].chars().count()
        ),
        None => text.to_owned(),
    }
}

/// What an arrow is labelled with: `tools/call count_up · id 2`, `response 2`,
/// `notifications/progress`.
fn label_of(message: &Value) -> String {
    let id = message.get("id").map(|id| compact(id, 24));
    match message.get("method").and_then(Value::as_str) {
        Some(method) => {
            let params = message.get("params");
            let item = ["name", "uri"]
                .iter()
                .find_map(|k| params.and_then(|p| p.get(*k)).and_then(Value::as_str));
            let mut label = match item {
                Some(item) => format!("{method} {}", cut(item, 40)),
                None => method.to_owned(),
            };
            if let Some(id) = id {
                let _ = write!(label, " · id {id}");
            }
            label
        }
        None => {
            let word = if message.get("error").is_some() {
                "error"
            } else {
                "response"
            };
            match id {
                Some(id) => format!("{word} {id}"),
                None => word.to_owned(),
            }
        }
    }
}

/// `text` for HTML, in an element or an attribute. Control characters (which a page
/// cannot hold) are written as `\u{..}`.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms >= 10_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        format!("{ms:.1} ms")
    }
}

/// The rows of the diagram: the events in the order they happened, a gap before a long
/// pause, and each expected message that never came after the message of the fixture's
/// line before it (at the top when there is none).
fn rows(t: &Timeline) -> Vec<Row> {
    // The event each missing row follows: the latest with the greatest fixture entry
    // before the missing one.
    let anchors: Vec<Option<usize>> = t
        .missing
        .iter()
        .map(|m| {
            t.events
                .iter()
                .enumerate()
                .filter_map(|(i, e)| Some((e.entry.filter(|&x| x < m.entry)?, i)))
                .max()
                .map(|(_, i)| i)
        })
        .collect();
    let mut rows: Vec<Row> = (0..t.missing.len())
        .filter(|&m| anchors[m].is_none())
        .map(Row::Missing)
        .collect();
    let mut before: Option<Duration> = None;
    for (i, event) in t.events.iter().enumerate() {
        if let Some(before) = before {
            let pause = event.at.saturating_sub(before);
            if pause >= GAP {
                rows.push(Row::Gap(pause));
            }
        }
        before = Some(event.at);
        rows.push(Row::Event(i));
        rows.extend(
            (0..t.missing.len())
                .filter(|&m| anchors[m] == Some(i))
                .map(Row::Missing),
        );
    }
    rows
}

/// Where a span is drawn: its first and last rows, its slot among the bars that overlap
/// it, and whether it ended (its response came).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Placed {
    first: usize,
    last: usize,
    slot: usize,
    ended: bool,
}

fn place_spans(t: &Timeline, rows: &[Row]) -> Vec<Placed> {
    let mut row_of_event = vec![0; t.events.len()];
    for (r, row) in rows.iter().enumerate() {
        if let Row::Event(i) = row {
            row_of_event[*i] = r;
        }
    }
    let end = rows.len().saturating_sub(1);
    let mut placed: Vec<Placed> = t
        .spans
        .iter()
        .map(|s| Placed {
            first: row_of_event.get(s.from).copied().unwrap_or(0),
            last: s
                .to
                .and_then(|to| row_of_event.get(to).copied())
                .unwrap_or(end),
            slot: 0,
            ended: s.to.is_some(),
        })
        .collect();
    // The lowest slot no overlapping span before it holds.
    let mut order: Vec<usize> = (0..placed.len()).collect();
    order.sort_by_key(|&s| (placed[s].first, s));
    let mut busy: Vec<(usize, usize)> = Vec::new(); // (last row, slot)
    for s in order {
        busy.retain(|&(last, _)| last >= placed[s].first);
        let slot = (0..)
            .find(|n| busy.iter().all(|&(_, taken)| taken != *n))
            .unwrap_or(0);
        placed[s].slot = slot;
        busy.push((placed[s].last, slot));
    }
    placed
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

/// The lanes of row `r`: the span bars and shading across it, then `inner` (an arrow or a
/// mark).
fn lanes(t: &Timeline, spans: &[Placed], r: usize, inner: &str) -> String {
    let mut out = String::from("<span class=\"lanes\">");
    for (s, p) in spans.iter().enumerate() {
        if r < p.first || r > p.last {
            continue;
        }
        let top = if r == p.first { "50%" } else { "0" };
        let bottom = if r == p.last && p.ended { "50%" } else { "0" };
        let hue = s % HUES.len();
        if t.spans[s].tied {
            let _ = write!(
                out,
                "<i class=\"band h{hue}\" style=\"top:{top};bottom:{bottom}\"></i>"
            );
        }
        let _ = write!(
            out,
            "<i class=\"bar h{hue}\" style=\"top:{top};bottom:{bottom};right:calc(12% - 4px + {}px)\"></i>",
            (p.slot % SLOTS) * 9
        );
    }
    out.push_str(inner);
    out.push_str("</span>");
    out
}

fn write_row(
    out: &mut String,
    t: &Timeline,
    findings: &[Mismatch],
    spans: &[Placed],
    r: usize,
    row: Row,
) {
    match row {
        Row::Gap(pause) => {
            let _ = writeln!(
                out,
                "<div class=\"row gap\"><span class=\"t\"></span><span class=\"x\"></span>{}\
                 <span class=\"a\">… {} later</span></div>",
                lanes(t, spans, r, ""),
                ms(pause)
            );
        }
        Row::Missing(m) => {
            let missing = &t.missing[m];
            let Some(expected) = t.expected.get(missing.entry) else {
                return;
            };
            let e = shown(&expected.text);
            let dir = match expected.side {
                Side::Client => "to-server",
                Side::Server => "to-client",
            };
            let arrow = format!(
                "<i class=\"arrow ghost {dir}\"><b>{}</b></i>",
                esc(&e.label)
            );
            let _ = write!(
                out,
                "<details class=\"row bad miss\" id=\"r{r}\"><summary><span class=\"t\">never</span>\
                 <span class=\"x\"><span class=\"ln\">L{}</span> {}</span>{}\
                 <span class=\"a\">{}<span class=\"dim\">never came</span></span></summary>\n\
                 <div class=\"more\"><div class=\"pair\"><div><h4>expected: fixture line {}</h4>\
                 <pre>{}</pre>{}</div><div><h4>actual</h4><p class=\"dim\">nothing came</p></div></div>\n",
                expected.line,
                esc(&e.line),
                lanes(t, spans, r, &arrow),
                badges(findings, &missing.findings),
                expected.line,
                esc(&e.whole),
                when(&expected.when),
            );
            write_findings_of(out, findings, &missing.findings);
            out.push_str("</div></details>\n");
        }
        Row::Event(i) => write_event(out, t, findings, spans, r, &t.events[i]),
    }
}

fn when(when: &str) -> String {
    if when.is_empty() {
        String::new()
    } else {
        format!("<p class=\"when\">{}</p>", esc(when))
    }
}

/// `#2 result` for each finding.
fn badges(findings: &[Mismatch], about: &[usize]) -> String {
    let mut out = String::new();
    for &k in about {
        if let Some(m) = findings.get(k) {
            let _ = write!(
                out,
                "<span class=\"badge\">#{} {}</span> ",
                k + 1,
                esc(m.kind().name())
            );
        }
    }
    out
}

fn write_findings_of(out: &mut String, findings: &[Mismatch], about: &[usize]) {
    for &k in about {
        if let Some(m) = findings.get(k) {
            let _ = writeln!(
                out,
                "<div class=\"finding\"><h4><a href=\"#f{n}\">#{n}</a> {}</h4><pre>{}</pre></div>",
                esc(m.kind().name()),
                esc(&m.to_string()),
                n = k + 1,
            );
        }
    }
}

fn write_event(
    out: &mut String,
    t: &Timeline,
    findings: &[Mismatch],
    spans: &[Placed],
    r: usize,
    event: &Event,
) {
    let hue = event
        .span
        .map(|s| format!(" h{}", s % HUES.len()))
        .unwrap_or_default();
    let side = match event.side {
        Side::Client => "c",
        Side::Server => "s",
    };
    let mut class = format!("row {side}");
    if !event.findings.is_empty() {
        class.push_str(" bad");
    }
    if event.own.is_some() {
        class.push_str(" own");
    }
    let actual = shown(&event.text);
    let (inner, text) = drawn(event, &actual, &hue);
    let expected = event.entry.and_then(|e| t.expected.get(e));
    let expected_shown = expected.map(|e| shown(&e.text));
    let x = match (expected, &expected_shown, &event.own) {
        (Some(e), Some(s), _) => format!("<span class=\"ln\">L{}</span> {}", e.line, esc(&s.line)),
        (_, _, Some(own)) => format!("<span class=\"dim\">{}</span>", esc(own)),
        _ => "<span class=\"dim\">—</span>".to_owned(),
    };
    let verdict = match (event.what, expected, event.findings.is_empty(), &event.own) {
        (What::Message, Some(e), true, _) => format!("<span class=\"eq\">= L{}</span> ", e.line),
        (What::Message, None, true, None) if event.side == Side::Server => {
            "<span class=\"dim\">not paired</span> ".to_owned()
        }
        _ => String::new(),
    };
    let _ = write!(
        out,
        "<details class=\"{class}\" id=\"r{r}\"><summary><span class=\"t\">{}</span>\
         <span class=\"x\">{x}</span>{}<span class=\"a\">{}{verdict}{}</span></summary>\n\
         <div class=\"more\"><div class=\"pair\"><div>",
        ms(event.at),
        lanes(t, spans, r, &inner),
        badges(findings, &event.findings),
        esc(&text),
    );
    let expected = expected.zip(expected_shown.as_ref());
    write_pair(out, event, expected, &actual, &text);
    if let Some(span) = event.span.and_then(|s| t.spans.get(s)) {
        let _ = writeln!(
            out,
            "<p class=\"span{hue}\">in the span of {}</p>",
            esc(&mask_text(&span.name))
        );
    }
    write_findings_of(out, findings, &event.findings);
    out.push_str("</div></details>\n");
}

/// What a row draws in its lanes for `event` (an arrow, or a mark), and its one line.
fn drawn(event: &Event, actual: &Shown, hue: &str) -> (String, String) {
    match event.what {
        What::Message => {
            let dir = match event.side {
                Side::Client => "to-server",
                Side::Server => "to-client",
            };
            (
                format!(
                    "<i class=\"arrow {dir}{hue}\"><b>{}</b></i>",
                    esc(&actual.label)
                ),
                actual.line.clone(),
            )
        }
        What::Stray => (
            "<i class=\"mark ms\">✕</i>".to_owned(),
            format!("not a JSON-RPC message: {}", actual.line),
        ),
        What::InputClosed => (
            "<i class=\"mark mc\">■</i>".to_owned(),
            "the harness closed the server's input".to_owned(),
        ),
        What::OutputClosed => (
            "<i class=\"mark ms\">■</i>".to_owned(),
            "the server closed its output".to_owned(),
        ),
    }
}

/// The details of an event's row: the fixture's line and the live one, whole, side by
/// side.
fn write_pair(
    out: &mut String,
    event: &Event,
    expected: Option<(&crate::timeline::Expected, &Shown)>,
    actual: &Shown,
    text: &str,
) {
    match expected {
        Some((e, s)) => {
            let _ = write!(
                out,
                "<h4>expected: fixture line {}</h4><pre>{}</pre>{}",
                e.line,
                esc(&s.whole),
                when(&e.when)
            );
        }
        None => {
            let why = event
                .own
                .as_deref()
                .unwrap_or("no line of the fixture was paired with it");
            let _ = write!(out, "<h4>expected</h4><p class=\"dim\">{}</p>", esc(why));
        }
    }
    let how = match event.side {
        Side::Client => "sent",
        Side::Server => "received",
    };
    let whole = match event.what {
        What::Message | What::Stray => &actual.whole,
        What::InputClosed | What::OutputClosed => text,
    };
    let _ = writeln!(
        out,
        "</div><div><h4>actual: {how} at {}</h4><pre>{}</pre></div></div>",
        ms(event.at),
        esc(whole)
    );
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

/// `.h0 { --c: ... }`: the color of each span, and its shading.
fn hue_css() -> String {
    let mut css = String::new();
    for (i, (r, g, b)) in HUES.iter().enumerate() {
        let _ = write!(
            css,
            ".h{i}{{--c:rgb({r},{g},{b})}}.band.h{i}{{background:rgba({r},{g},{b},0.09)}}"
        );
    }
    css
}

/// The page's style. Nothing in it loads anything (no `url(`, no `@import`).
const CSS: &str = "
*{box-sizing:border-box}
body{margin:0;font:13px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2330;background:#fff}
header,#findings,.tools,footer{padding:8px 16px}
h1{font-size:17px;margin:4px 0;font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
h2{font-size:14px;margin:4px 0}
h4{font-size:12px;margin:2px 0;color:#4a5261}
.verdict{font-weight:700;font-size:15px;margin:4px 0}
.verdict.ok{color:#1b7f3b}.verdict.fail{color:#c62828}
.meta{color:#5b6474;margin:2px 0}
#findings ol{margin:4px 0;padding-left:24px}
#findings li{margin:2px 0}
.sum{white-space:pre-wrap}
a{color:#1565c0}
.diagram{border-top:1px solid #d5d9e0;border-bottom:1px solid #d5d9e0}
.head,summary,.row.gap{display:grid;grid-template-columns:6.5em minmax(0,1fr) minmax(13em,20em) minmax(0,1fr);align-items:stretch}
.head{position:sticky;top:0;z-index:3;background:#f3f5f8;font-weight:600;border-bottom:1px solid #d5d9e0}
.head>span{padding:4px 6px}
.head .lanes{min-height:0}
.head .lanes b{position:absolute;top:4px;transform:translateX(-50%)}
.head .lc{left:12%}.head .ls{left:88%}
summary{cursor:pointer;list-style:none}
summary::-webkit-details-marker{display:none}
summary:hover{background:#f5f8ff}
.row{border-bottom:1px solid #eef0f4}
.row>summary>span,.row.gap>span{padding:3px 6px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;align-self:center}
.t{color:#5b6474;text-align:right;font-variant-numeric:tabular-nums}
.x,.a{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.row>summary>span.lanes,.row.gap>span.lanes{align-self:stretch;padding:0;overflow:visible}
.lanes{position:relative;min-height:30px}
.lanes::before,.lanes::after{content:'';position:absolute;top:0;bottom:0;border-left:2px solid #a9b1bd}
.lanes::before{left:12%}.lanes::after{left:88%}
.arrow{--c:#39424e;position:absolute;left:12%;right:12%;top:62%;border-top:2px solid var(--c);z-index:2}
.arrow.ghost{border-top-style:dashed;--c:#c62828}
.arrow::after{content:'';position:absolute;top:-7px;border:6px solid transparent}
.arrow.to-server::after{right:-2px;border-left:10px solid var(--c);border-right:0}
.arrow.to-client::after{left:-2px;border-right:10px solid var(--c);border-left:0}
.arrow b{position:absolute;left:4px;right:4px;bottom:1px;text-align:center;font-weight:500;font-size:11px;font-style:normal;color:var(--c);white-space:nowrap;overflow:hidden;text-overflow:ellipsis;font-family:ui-monospace,Menlo,Consolas,monospace}
.bar{position:absolute;width:8px;background:var(--c);opacity:.55;border-radius:2px;z-index:1}
.band{position:absolute;left:12%;right:12%}
.mark{position:absolute;top:30%;transform:translateX(-50%);font-style:normal;font-size:12px;color:#c62828;z-index:2}
.mark.mc{left:12%;color:#5b6474}.mark.ms{left:88%}
.gap>span.a{color:#5b6474;font-style:italic}
.bad>summary{background:#fdecea}
.bad>summary:hover{background:#fbdcd8}
.bad>summary>.t{border-left:4px solid #c62828}
.own>summary{color:#7a8290}
.own .arrow{--c:#9aa2ae}
.ln{color:#5b6474;font-weight:600}
.eq{color:#1b7f3b;font-weight:600}
.dim{color:#7a8290}
.badge{display:inline-block;background:#c62828;color:#fff;border-radius:3px;padding:0 4px;font-size:11px;font-family:system-ui,sans-serif}
.more{padding:6px 16px 10px 6.5em;background:#fafbfc;border-top:1px dashed #d5d9e0}
.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px}
pre{margin:2px 0;padding:6px;background:#fff;border:1px solid #e1e4ea;border-radius:3px;white-space:pre-wrap;word-break:break-all;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;max-height:32em;overflow:auto}
.finding pre{border-color:#e8a19b}
.when,.span{color:#4a5261;margin:4px 0}
.span{border-left:4px solid var(--c,#a9b1bd);padding-left:6px}
body.only .row:not(.bad){display:none}
.notes{margin:4px 0}
.legend{color:#5b6474;margin:4px 0}
.key{display:inline-block;position:static;height:12px;vertical-align:middle}
";

/// Opens the row a link names (the findings' links, a URL ending in `#r12`; `#open:r12`
/// opens it where the page stands, without scrolling to it), and the tools above the
/// diagram. It has no `<` and no `&`, so the page stays well-formed XML
/// too.
const SCRIPT: &str = "
(function(){
function show(){var id=decodeURIComponent(location.hash.slice(1));var stay=id.indexOf('open:')===0;if(stay){id=id.slice(5);}var e=id?document.getElementById(id):null;if(e){if(e.tagName==='DETAILS'){e.open=true;}if(!stay){e.scrollIntoView({block:'nearest'});}}}
window.addEventListener('hashchange',show);show();
var rows=function(){return Array.prototype.slice.call(document.querySelectorAll('details.row'));};
var only=document.getElementById('only');
only.addEventListener('change',function(){document.body.classList.toggle('only',only.checked);});
document.getElementById('open').addEventListener('click',function(){rows().forEach(function(d){d.open=true;});});
document.getElementById('close').addEventListener('click',function(){rows().forEach(function(d){d.open=false;});});
})();
";

#[cfg(test)]
mod should {
    use super::*;
    use crate::report::MismatchKind;
    use crate::timeline::{Expected, Missing, Span};
    use serde_json::json;

    fn ms_(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn event(at: u64, side: Side, text: &str, entry: Option<usize>) -> Event {
        Event {
            at: ms_(at),
            side,
            what: What::Message,
            text: text.to_owned(),
            entry,
            own: None,
            span: None,
            findings: Vec::new(),
        }
    }

    fn expected(line: usize, side: Side, text: &str) -> Expected {
        Expected {
            line,
            side,
            text: text.to_owned(),
            when: String::new(),
        }
    }

    const CALL: &str = r#"{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"count_up","arguments":{"to":2}}}"#;
    const PROGRESS: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>"}}"#;
    const LOG: &str = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}"#;
    const RESULT: &str = r#"{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"counted to 2"}]}}"#;

    /// A call with progress tied to it, a changed result, a log that never came, a
    /// stray line: every kind of row.
    fn session() -> (Report, Timeline) {
        let mut call = event(
            0,
            Side::Client,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"t"},"name":"count_up","arguments":{"to":2}}}"#,
            Some(0),
        );
        call.span = Some(0);
        let mut progress = event(
            3,
            Side::Server,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"t"}}"#,
            Some(1),
        );
        progress.span = Some(0);
        let mut result = event(
            240,
            Side::Server,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"counted to <3>"}]}}"#,
            Some(3),
        );
        result.span = Some(0);
        result.findings = vec![0];
        let mut stray = event(241, Side::Server, "a banner <b>hi</b> & \u{1b}[0m", None);
        stray.what = What::Stray;
        stray.findings = vec![2];
        let mut closed = event(250, Side::Client, "", None);
        closed.what = What::InputClosed;
        let timeline = Timeline {
            events: vec![call, progress, result, stray, closed],
            expected: vec![
                expected(1, Side::Client, CALL),
                Expected {
                    when: "tied to `tools/call count_up` (line 1)".into(),
                    ..expected(2, Side::Server, PROGRESS)
                },
                expected(3, Side::Server, LOG),
                expected(4, Side::Server, RESULT),
            ],
            missing: vec![Missing {
                entry: 2,
                findings: vec![1],
            }],
            spans: vec![Span {
                name: "`tools/call count_up` (line 1)".into(),
                from: 0,
                to: Some(2),
                tied: true,
            }],
            elapsed: ms_(251),
            dropped: 0,
        };
        let report = Report {
            source: "fixtures/count_up.jsonl".into(),
            test: None,
            rerecord: None,
            mismatches: vec![
                Mismatch::new(MismatchKind::Result, Some(4), "the response differs").compare(
                    &serde_json::from_str(RESULT).unwrap(),
                    &json!({"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"counted to <3>"}]}}),
                ),
                Mismatch::new(MismatchKind::Missing, Some(3), "`notifications/message` never came"),
                Mismatch::new(MismatchKind::StrayOutput, None, "the server wrote 1 line"),
                Mismatch::new(MismatchKind::ServerFailure, None, "the server panicked"),
            ],
            accepted: Vec::new(),
            warnings: Vec::new(),
            notes: vec!["the server needed SIGTERM".into()],
            recorded: None,
            timeline: Some(Box::new(timeline.clone())),
        };
        (report, timeline)
    }

    /// What a well-formed page holds, read with an XML parser (the page is written so
    /// that one reads it): the elements, with their attributes, and the text.
    struct Parsed {
        /// `(name, attributes)` of every element, in document order.
        elements: Vec<(String, Vec<(String, String)>)>,
        text: String,
    }

    impl Parsed {
        fn with_class(&self, name: &str, class: &str) -> Vec<&Vec<(String, String)>> {
            self.elements
                .iter()
                .filter(|(n, attrs)| {
                    n == name
                        && attrs
                            .iter()
                            .any(|(k, v)| k == "class" && v.split(' ').any(|c| c == class))
                })
                .map(|(_, attrs)| attrs)
                .collect()
        }
    }

    fn attr<'a>(attrs: &'a [(String, String)], key: &str) -> Option<&'a str> {
        attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Parses `page` as XML (the doctype aside), failing on any element left open, closed
    /// twice or misnamed, and on any entity but the five XML knows and numeric ones.
    fn parse(page: &str) -> Parsed {
        use quick_xml::events::Event as X;
        let mut reader = quick_xml::Reader::from_str(page);
        reader.config_mut().check_end_names = true;
        let mut elements = Vec::new();
        let mut text = String::new();
        let mut depth = 0i32;
        loop {
            let event = reader
                .read_event()
                .unwrap_or_else(|e| panic!("not well-formed at {}: {e}", reader.buffer_position()));
            let start = |e: &quick_xml::events::BytesStart| {
                let name = e.name().as_ref().to_owned();
                let attrs = e
                    .attributes()
                    .map(|a| {
                        let a = a.expect("a well-formed attribute");
                        (
                            a.key.as_ref().to_owned(),
                            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                .expect("known entities")
                                .into_owned(),
                        )
                    })
                    .collect::<Vec<_>>();
                (name, attrs)
            };
            match event {
                X::Start(e) => {
                    depth += 1;
                    elements.push(start(&e));
                }
                X::Empty(e) => elements.push(start(&e)),
                X::End(_) => depth -= 1,
                X::Text(t) => text.push_str(&t),
                X::GeneralRef(r) => {
                    let name = r.to_string();
                    let known = ["amp", "lt", "gt", "quot", "apos"].contains(&name.as_str())
                        || r.is_char_ref();
                    assert!(known, "unknown entity &{name};");
                    text.push_str(match name.as_str() {
                        "amp" => "&",
                        "lt" => "<",
                        "gt" => ">",
                        "quot" => "\"",
                        _ => "'",
                    });
                }
                X::Eof => break,
                _ => {}
            }
        }
        assert_eq!(depth, 0, "every element closed");
        Parsed { elements, text }
    }

    #[test]
    fn draw_a_well_formed_page_that_loads_nothing() {
        let (report, _) = session();
        let page = report.to_html().unwrap();
        let parsed = parse(&page);
        // Nothing to fetch: no source attribute, links only within the page, no <link>,
        // no url() or @import in the style, and a policy that forbids any other source.
        for (name, attrs) in &parsed.elements {
            assert_ne!(name, "link");
            assert_ne!(name, "img");
            assert_ne!(name, "iframe");
            for (k, v) in attrs {
                assert!(k != "src" && k != "srcset", "{name} {k}={v}");
                if k == "href" {
                    assert!(v.starts_with('#'), "{name} href={v}");
                }
            }
        }
        assert!(!page.contains("url("), "no url() in the style");
        assert!(!page.contains("@import"));
        let csp = parsed
            .elements
            .iter()
            .find(|(n, a)| n == "meta" && attr(a, "http-equiv") == Some("Content-Security-Policy"))
            .expect("a content security policy");
        assert!(attr(&csp.1, "content")
            .unwrap()
            .starts_with("default-src 'none'"));
    }

    #[test]
    fn show_every_message_with_its_fixture_line_beside_it() {
        let (report, timeline) = session();
        let page = report.to_html().unwrap();
        let parsed = parse(&page);
        let rows = parsed.with_class("details", "row");
        // Five events and the message that never came.
        assert_eq!(rows.len(), 6, "{page}");
        assert_eq!(
            parsed.with_class("div", "gap").len(),
            1,
            "the 237 ms before the result"
        );
        assert!(parsed.text.contains("… 237.0 ms later"), "{}", parsed.text);
        for event in timeline.events.iter().filter(|e| e.what == What::Message) {
            let value: Value = serde_json::from_str(&event.text).unwrap();
            assert!(
                parsed.text.contains(&compact(&value, ROW_TEXT)),
                "{}",
                event.text
            );
        }
        // Expected and actual side by side: the fixture line (with its placeholders) and
        // the live one (with its live id).
        assert!(parsed
            .text
            .contains("L1 {\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"method\":\"tools/call\""));
        assert!(parsed
            .text
            .contains("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\""));
        assert!(parsed.text.contains("= L2"), "the progress equals its line");
        assert!(
            parsed.text.contains("tools/call count_up · id 1"),
            "the arrow's label"
        );
        // The stray line is text, escaped, its control character written out.
        assert!(
            parsed.text.contains("a banner <b>hi</b> & \\u{1b}[0m"),
            "{}",
            parsed.text
        );
        assert!(!page.contains("<b>hi</b>"));
        assert!(parsed
            .text
            .contains("the harness closed the server's input"));
    }

    #[test]
    fn mark_each_finding_at_the_rows_it_concerns_and_list_them_all() {
        let (report, _) = session();
        let page = report.to_html().unwrap();
        let parsed = parse(&page);
        let bad: Vec<&str> = parsed
            .with_class("details", "bad")
            .iter()
            .map(|a| attr(a, "id").unwrap())
            .collect();
        // The rows: 0 the call, 1 the progress, 2 the missing log (after the progress, as
        // in the fixture), 3 the gap, 4 the result, 5 the stray line, 6 the close.
        assert_eq!(bad, ["r2", "r4", "r5"], "{page}");
        assert_eq!(parsed.with_class("details", "miss").len(), 1);
        assert!(parsed.text.contains("never came"));
        // The list: each finding links to its row; the one about the whole session says so.
        let links: Vec<&str> = parsed
            .elements
            .iter()
            .filter(|(n, _)| n == "a")
            .filter_map(|(_, a)| attr(a, "href"))
            .filter(|h| h.starts_with("#r"))
            .collect();
        assert_eq!(links, ["#r4", "#r2", "#r5"]);
        assert!(parsed
            .text
            .contains("server failure: the server panicked (the session as a whole)"));
        assert!(parsed.text.contains("FAILED: 4 mismatches"));
        // The finding in full in its row's details, its diff too.
        assert!(
            parsed.text.contains("at .result.content[0].text"),
            "{}",
            parsed.text
        );
        assert!(parsed.text.contains("note: the server needed SIGTERM"));
    }

    #[test]
    fn shade_the_span_of_a_request_across_the_rows_it_covers() {
        let (report, timeline) = session();
        let rows = rows(&timeline);
        assert_eq!(
            rows,
            [
                Row::Event(0),
                Row::Event(1),
                Row::Missing(0),
                Row::Gap(ms_(237)),
                Row::Event(2),
                Row::Event(3),
                Row::Event(4),
            ]
        );
        let spans = place_spans(&timeline, &rows);
        assert_eq!(
            spans,
            [Placed {
                first: 0,
                last: 4,
                slot: 0,
                ended: true
            }]
        );
        let page = report.to_html().unwrap();
        let parsed = parse(&page);
        // From the call's row to the result's: a bar on the server lane and, as the
        // progress is tied to it, a band across the lanes; none after.
        assert_eq!(parsed.with_class("i", "band").len(), 5);
        assert_eq!(
            parsed.with_class("i", "bar").len(),
            5 + 1,
            "and one in the legend"
        );
        let style = |a: &Vec<(String, String)>| attr(a, "style").unwrap().to_owned();
        let bands: Vec<String> = parsed
            .with_class("i", "band")
            .into_iter()
            .map(style)
            .collect();
        assert!(bands[0].starts_with("top:50%;bottom:0"), "{bands:?}");
        assert!(bands[4].starts_with("top:0;bottom:50%"), "{bands:?}");
    }

    #[test]
    fn stack_the_bars_of_requests_in_flight_together() {
        let mut t = Timeline::default();
        for (at, side) in [
            (0, Side::Client),
            (1, Side::Client),
            (2, Side::Server),
            (3, Side::Server),
            (4, Side::Client),
            (5, Side::Server),
        ] {
            t.events.push(event(at, side, "{}", None));
        }
        let span = |from, to| Span {
            name: String::new(),
            from,
            to: Some(to),
            tied: false,
        };
        t.spans = vec![span(0, 3), span(1, 2), span(4, 5)];
        let rows = rows(&t);
        let slots: Vec<usize> = place_spans(&t, &rows).iter().map(|p| p.slot).collect();
        assert_eq!(slots, [0, 1, 0]);
    }

    #[test]
    fn never_show_a_secret_the_guard_knows() {
        use crate::normalize::secrets::tests::{assert_no_piece_of, samples};
        for (id, sample) in samples() {
            let line = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [
                {"type": "text", "text": format!("here: {sample}")}], "meta": {sample.clone(): 1}}})
            .to_string();
            let mut t = Timeline::default();
            t.events.push(event(1, Side::Server, &line, Some(0)));
            t.events.push(Event {
                what: What::Stray,
                ..event(2, Side::Server, &format!("log {sample}"), None)
            });
            t.expected.push(expected(1, Side::Server, &line));
            t.spans.push(Span {
                name: format!("`tools/call {sample}` (line 1)"),
                from: 0,
                to: None,
                tied: false,
            });
            t.events[0].span = Some(0);
            t.events[0].findings = vec![0];
            let report = Report {
                source: format!("fixtures/{sample}.jsonl"),
                mismatches: vec![Mismatch::new(
                    MismatchKind::Result,
                    Some(1),
                    format!("differs: {sample}"),
                )
                .compare(&json!({"result": 1}), &serde_json::from_str(&line).unwrap())],
                notes: vec![format!("a note with {sample}")],
                timeline: Some(Box::new(t)),
                ..session().0
            };
            let page = report.to_html().unwrap();
            let secret = sample.split("/services/").last().unwrap();
            assert_no_piece_of(secret, &page, id);
            assert!(page.contains(&format!("[masked: {id}]")), "{id}");
        }
        // The key-name rule.
        let password = "Zx8#qL2!vN5@wR7$";
        let line =
            json!({"jsonrpc": "2.0", "method": "m", "params": {"password": password}}).to_string();
        let mut t = Timeline::default();
        t.events.push(event(1, Side::Client, &line, None));
        let report = Report {
            timeline: Some(Box::new(t)),
            ..session().0
        };
        let page = report.to_html().unwrap();
        assert_no_piece_of(password, &page, "sensitive-key");
    }

    #[test]
    fn cut_long_messages_and_say_how_many_events_are_left_out() {
        let long = format!(
            r#"{{"jsonrpc":"2.0","method":"m","params":{{"text":"{}"}}}}"#,
            "x".repeat(100_000)
        );
        let mut t = Timeline::default();
        t.events.push(event(1, Side::Server, &long, None));
        t.dropped = 7;
        let report = Report {
            timeline: Some(Box::new(t)),
            ..session().0
        };
        let page = report.to_html().unwrap();
        assert!(page.len() < 90_000, "{}", page.len());
        assert!(page.contains("more characters)"));
        assert!(page.contains("The page shows the first 1 of 8 events."));
        parse(&page);
    }

    #[test]
    fn draw_an_empty_session_and_nothing_without_a_timeline() {
        let report = Report {
            mismatches: Vec::new(),
            notes: Vec::new(),
            timeline: Some(Box::default()),
            ..session().0
        };
        let page = report.to_html().unwrap();
        let parsed = parse(&page);
        assert!(parsed.with_class("details", "row").is_empty());
        assert!(
            parsed.text.contains("\nok\n") || page.contains("verdict ok\">ok<"),
            "{page}"
        );
        let none = Report {
            timeline: None,
            ..report
        };
        assert!(none.to_html().is_none());
    }

    #[test]
    fn keep_a_timeline_whose_indexes_point_nowhere_from_panicking() {
        let (report, mut t) = session();
        t.events[0].entry = Some(99);
        t.events[1].span = Some(42);
        t.events[2].findings = vec![77];
        t.missing.push(Missing {
            entry: 1234,
            findings: vec![5],
        });
        t.spans.push(Span {
            name: "x".into(),
            from: 500,
            to: Some(600),
            tied: true,
        });
        let report = Report {
            timeline: Some(Box::new(t)),
            ..report
        };
        parse(&report.to_html().unwrap());
    }
}
