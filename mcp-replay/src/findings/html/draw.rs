//! The timeline drawing: each row of the diagram, its arrow on the two lanes, the span bars
//! beside it, its badges, and the whole messages and findings a click away.

use super::layout::{Placed, Row};
use super::style::HUES;
use super::text::{esc, ms, shown, Shown};
use crate::findings::report::Mismatch;
use crate::findings::timeline::{Event, Side, Timeline, What};
use crate::normalize::secrets::mask_text;
use std::fmt::Write as _;

/// The widest stack of span bars drawn side by side; more overlap.
pub(super) const SLOTS: usize = 6;

/// The lanes of row `r`: the span bars and shading across it, then `inner` (an arrow or a
/// mark).
pub(super) fn lanes(t: &Timeline, spans: &[Placed], r: usize, inner: &str) -> String {
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

pub(super) fn write_row(
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

pub(super) fn when(when: &str) -> String {
    if when.is_empty() {
        String::new()
    } else {
        format!("<p class=\"when\">{}</p>", esc(when))
    }
}

/// `#2 result` for each finding.
pub(super) fn badges(findings: &[Mismatch], about: &[usize]) -> String {
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

pub(super) fn write_findings_of(out: &mut String, findings: &[Mismatch], about: &[usize]) {
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

pub(super) fn write_event(
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
pub(super) fn drawn(event: &Event, actual: &Shown, hue: &str) -> (String, String) {
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
pub(super) fn write_pair(
    out: &mut String,
    event: &Event,
    expected: Option<(&crate::findings::timeline::Expected, &Shown)>,
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
