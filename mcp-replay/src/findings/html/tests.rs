//! The page's tests: its rows, its spans, its masking and its escaping.

use super::layout::Placed;
use super::text::ROW_TEXT;
use super::*;
use crate::data::json::compact;
use crate::findings::report::MismatchKind;
use crate::findings::timeline::{Event, Expected, Missing, Span};
use serde_json::{json, Value};
use std::time::Duration;

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
const LOG: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}"#;
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
        rerecording: false,
            pinned: false,
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
                let known =
                    ["amp", "lt", "gt", "quot", "apos"].contains(&name.as_str()) || r.is_char_ref();
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
