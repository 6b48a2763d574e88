//! The grammar, its errors, the walk, removal, and the rendering of paths, by table and
//! by property.

use super::*;
use crate::data::json::arbitrary;
use crate::data::json::differences;
use crate::data::json::path::{push_step, rendered_path};
use proptest::prelude::{prop_assert, prop_assert_eq, TestCaseError};
use serde_json::json;
use serde_json::Value;
use PathSegment::{Index as I, Key as K};

fn parse(text: &str) -> Selector {
    Selector::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn segments(text: &str) -> Vec<Vec<Segment>> {
    parse(text).alternatives
}

fn key(k: &str) -> Segment {
    Segment::Key(k.to_owned())
}

fn error(text: &str) -> SelectorError {
    match Selector::parse(text) {
        Ok(s) => panic!("`{text}` parsed as {s:?}"),
        Err(e) => e,
    }
}

/// The position of an error, and that its message says something about `hint`.
fn error_at(text: &str, hint: &str) -> usize {
    let e = error(text);
    assert!(
        e.message.contains(hint),
        "message for `{text}` lacks `{hint}`: {}",
        e.message
    );
    e.position
}

/// Paths visited by `apply`, in order, leaving the value alone.
fn visited(selector: &str, value: &Value) -> Vec<String> {
    let mut value = value.clone();
    let mut out = Vec::new();
    parse(selector).apply(&mut value, &mut |_, path| out.push(path.to_owned()));
    out
}

#[test]
fn parse_keys_indexes_and_wildcards() {
    assert_eq!(
        segments(".result.content[].text"),
        [vec![
            key("result"),
            key("content"),
            Segment::EveryIndex,
            key("text")
        ]]
    );
    assert_eq!(
        segments(".a[0][12].*.b"),
        [vec![
            key("a"),
            Segment::Index(0),
            Segment::Index(12),
            Segment::Any,
            key("b")
        ]]
    );
    assert_eq!(
        segments(".params.**.timestamp"),
        [vec![key("params"), Segment::Deep, key("timestamp")]]
    );
    assert_eq!(segments(".**"), [vec![Segment::Deep]]);
    assert_eq!(segments(".*"), [vec![Segment::Any]]);
}

#[test]
fn parse_the_root_alone_as_no_segments() {
    assert_eq!(segments("."), [Vec::<Segment>::new()]);
    assert_eq!(parse(" . ").as_str(), ".");
}

#[test]
fn parse_bare_keys_with_digits_dashes_underscores_and_slashes() {
    assert_eq!(
        segments("._meta.a-b/c_9.0"),
        [vec![key("_meta"), key("a-b/c_9"), key("0")]]
    );
}

#[test]
fn split_a_dotted_name_into_separate_keys() {
    assert_eq!(
        segments(".io.modelcontextprotocol/clientInfo"),
        [vec![key("io"), key("modelcontextprotocol/clientInfo")]]
    );
}

#[test]
fn parse_quoted_keys_with_dots_slashes_and_escapes() {
    assert_eq!(
        segments(r#".params._meta["io.modelcontextprotocol/clientInfo"]"#),
        [vec![
            key("params"),
            key("_meta"),
            key("io.modelcontextprotocol/clientInfo")
        ]]
    );
    assert_eq!(segments(r#".["a\"b"]"#), [vec![key("a\"b")]]);
    assert_eq!(
        segments(r#".["\\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00"]"#),
        [vec![key("\\ / \u{8}\u{c}\n\r\t é 😀")]]
    );
    assert_eq!(segments(r#".[""]"#), [vec![key("")]]);
    assert_eq!(segments(r#".["*"]["**"]"#), [vec![key("*"), key("**")]]);
}

#[test]
fn parse_subscripts_right_after_the_root() {
    assert_eq!(segments(".[0]"), [vec![Segment::Index(0)]]);
    assert_eq!(segments(".[]"), [vec![Segment::EveryIndex]]);
    assert_eq!(segments(r#".["a b"].c"#), [vec![key("a b"), key("c")]]);
}

#[test]
fn parse_ranges_with_optional_bounds() {
    let range = |start, end| Segment::Range { start, end };
    assert_eq!(
        segments(".a[1:3][2:][:4][:][0:]"),
        [vec![
            key("a"),
            range(1, Some(3)),
            range(2, None),
            range(0, Some(4)),
            Segment::EveryIndex,
            Segment::EveryIndex,
        ]]
    );
    assert_eq!(segments(".a[2:2]"), [vec![key("a"), range(2, Some(2))]]);
}

#[test]
fn parse_alternatives_and_normalize_the_spacing_around_commas() {
    let selector = parse("  .id ,.result.x,\t.** ");
    assert_eq!(
        selector.alternatives,
        [
            vec![key("id")],
            vec![key("result"), key("x")],
            vec![Segment::Deep]
        ]
    );
    assert_eq!(selector.as_str(), ".id, .result.x, .**");
    assert_eq!(parse(".id, .result.x, .**"), selector);
}

#[test]
fn keep_the_selector_as_written() {
    let text = r#".result["content"][0:2].**.x"#;
    assert_eq!(parse(text).as_str(), text);
}

#[test]
fn collapse_repeated_deep_wildcards() {
    assert_eq!(
        segments(".**.**.a.**"),
        [vec![Segment::Deep, key("a"), Segment::Deep]]
    );
}

#[test]
fn reject_an_empty_selector() {
    assert_eq!(error_at("", "empty selector"), 0);
    assert_eq!(error_at("   ", "empty selector"), 3);
}

#[test]
fn reject_a_selector_that_does_not_start_with_a_dot() {
    assert_eq!(error_at("result.content", "starts with `.`"), 0);
    assert_eq!(error_at("  [0]", "starts with `.`"), 2);
    assert_eq!(error_at(".a,,.b", "starts with `.`"), 3);
    assert_eq!(error_at(".a, b", "found `b`"), 4);
}

#[test]
fn reject_two_dots_with_the_caret_under_the_second() {
    let e = error(".result..text");
    assert_eq!(e.position, 8);
    assert_eq!(
        e.to_string(),
        "invalid selector `.result..text`: expected a key name, `*` or `**` after `.`, found `.` \
         (keys with other characters are written `[\"...\"]`) at character 9\n  \
         .result..text\n          ^"
    );
}

#[test]
fn reject_a_dot_with_nothing_after_it() {
    assert_eq!(error_at(".result.", "found the end"), 8);
    assert_eq!(error_at(".a. .b", "found a space"), 3);
    assert_eq!(error_at(".a.,.b", "found `,`"), 3);
    assert_eq!(
        error(".a.").message,
        "expected a key name, `*` or `**` after `.`, found the end"
    );
    assert_eq!(error_at(".a.[0]", "follows its parent directly"), 3);
}

#[test]
fn reject_an_unterminated_quoted_key_at_the_end() {
    let e = error(r#".a["b.c"#);
    assert_eq!(e.position, 7);
    assert_eq!(
        e.to_string(),
        "invalid selector `.a[\"b.c`: unterminated quoted key: expected a `\"` to close the one at \
         character 4 at character 8\n  .a[\"b.c\n         ^"
    );
    assert_eq!(error_at(r#".["a\"#, "unterminated"), 5);
}

#[test]
fn reject_a_bad_escape_at_its_letter() {
    assert_eq!(error_at(r#".["a\qb"]"#, "invalid escape `\\q`"), 5);
    assert_eq!(error_at(r#".["\u12g4"]"#, "four hex digits"), 7);
    assert_eq!(error_at(r#".["\ud83d"]"#, "surrogate pair"), 9);
    assert_eq!(error_at(r#".["\ude00"]"#, "second half"), 4);
    assert_eq!(error_at(r#".["\ud83d\u0041"]"#, "cannot end"), 11);
}

#[test]
fn reject_a_bare_word_in_brackets() {
    assert_eq!(error_at(".a[abc]", "a quoted key like `[\"key\"]`"), 3);
    assert_eq!(error_at(".a[*]", "found `*`"), 3);
    assert_eq!(error_at(".a['b']", "found `'`"), 3);
}

#[test]
fn reject_a_missing_closing_bracket() {
    assert_eq!(error_at(".a[0", "expected `]` or `:`"), 4);
    assert_eq!(error_at(".a[0x]", "found `x`"), 4);
    assert_eq!(error_at(".a[1:2", "close the `[` at character 3"), 6);
    assert_eq!(error_at(r#".a["b""#, "close the `[` at character 3"), 6);
    assert_eq!(error_at(".a[", "found the end"), 3);
}

#[test]
fn reject_a_trailing_comma() {
    assert_eq!(error_at(".a,", "trailing `,`"), 3);
    assert_eq!(error_at(".a, ", "trailing `,`"), 4);
}

#[test]
fn reject_an_unexpected_character_after_a_segment() {
    assert_eq!(error_at(".result!", "after `.result`, found `!`"), 7);
    assert_eq!(error_at(".a[0]x", "after `[0]`, found `x`"), 5);
    assert_eq!(error_at(".*x", "after `.*`, found `x`"), 2);
    assert_eq!(error_at(".***", "after `.**`, found `*`"), 3);
    assert_eq!(error_at(".a .b", "spaces are only allowed around `,`"), 3);
}

#[test]
fn reject_negative_indexes_and_backwards_ranges() {
    assert_eq!(error_at(".a[-1]", "negative indexes"), 3);
    assert_eq!(error_at(".a[1:-1]", "negative indexes"), 5);
    assert_eq!(error_at(".a[3:1]", "starts after its end"), 3);
    assert_eq!(error_at(".a[99999999999999999999999]", "too large"), 3);
}

#[test]
fn count_positions_in_characters_not_bytes() {
    let e = error(r#".["é"]é"#);
    assert_eq!(e.position, 6);
    assert!(e.to_string().ends_with("\n  .[\"é\"]é\n        ^"), "{e}");
}

#[test]
fn be_a_standard_error() {
    let e: Box<dyn std::error::Error> = Box::new(error(".."));
    assert!(e.to_string().starts_with("invalid selector `..`"));
}

#[test]
fn match_the_root_only_with_the_root_selector() {
    assert!(parse(".").matches(&[]));
    assert!(!parse(".").matches(&[K("a")]));
    assert!(!parse(".a").matches(&[]));
    assert!(!parse(".*").matches(&[]));
}

#[test]
fn match_keys_and_indexes_exactly() {
    let s = parse(".result.content[1].text");
    assert!(s.matches(&[K("result"), K("content"), I(1), K("text")]));
    assert!(!s.matches(&[K("result"), K("content"), I(0), K("text")]));
    assert!(!s.matches(&[K("result"), K("content"), I(1)]));
    assert!(!s.matches(&[K("result"), K("content"), I(1), K("text"), K("x")]));
    assert!(!parse(".a.0").matches(&[K("a"), I(0)]));
    assert!(parse(".a.0").matches(&[K("a"), K("0")]));
    assert!(!parse(".a[0]").matches(&[K("a"), K("0")]));
}

#[test]
fn match_a_deep_wildcard_at_the_start() {
    let s = parse(".**.timestamp");
    assert!(s.matches(&[K("timestamp")]));
    assert!(s.matches(&[K("params"), I(3), K("x"), K("timestamp")]));
    assert!(!s.matches(&[K("params"), K("timestamp"), K("x")]));
    assert!(!s.matches(&[]));
}

#[test]
fn match_a_deep_wildcard_in_the_middle() {
    let s = parse(".params.**.timestamp");
    assert!(s.matches(&[K("params"), K("timestamp")]));
    assert!(s.matches(&[K("params"), K("a"), I(2), K("b"), K("timestamp")]));
    assert!(!s.matches(&[K("result"), K("timestamp")]));
    assert!(!s.matches(&[K("timestamp")]));
    let twice = parse(".a.**.b.**.c");
    assert!(twice.matches(&[K("a"), K("b"), K("c")]));
    assert!(twice.matches(&[K("a"), K("x"), K("b"), I(0), K("b"), K("c")]));
    assert!(!twice.matches(&[K("a"), K("c"), K("b")]));
}

#[test]
fn match_a_deep_wildcard_at_the_end_including_its_parent() {
    let s = parse(".params.**");
    assert!(s.matches(&[K("params")]));
    assert!(s.matches(&[K("params"), I(0), K("x")]));
    assert!(!s.matches(&[]));
    assert!(!s.matches(&[K("result")]));
    let all = parse(".**");
    assert!(all.matches(&[]));
    assert!(all.matches(&[I(4), K("x")]));
}

#[test]
fn match_every_index_with_brackets_but_keys_too_with_a_star() {
    let brackets = parse(".a[]");
    let star = parse(".a.*");
    assert!(brackets.matches(&[K("a"), I(7)]));
    assert!(!brackets.matches(&[K("a"), K("b")]));
    assert!(star.matches(&[K("a"), I(7)]));
    assert!(star.matches(&[K("a"), K("b")]));
    assert!(!star.matches(&[K("a")]));
    assert!(!star.matches(&[K("a"), K("b"), K("c")]));
}

#[test]
fn match_ranges_with_an_exclusive_end() {
    let s = parse(".a[1:3]");
    assert!(!s.matches(&[K("a"), I(0)]));
    assert!(s.matches(&[K("a"), I(1)]));
    assert!(s.matches(&[K("a"), I(2)]));
    assert!(!s.matches(&[K("a"), I(3)]));
    assert!(parse(".a[2:]").matches(&[K("a"), I(1000)]));
    assert!(!parse(".a[:2]").matches(&[K("a"), I(2)]));
    assert!(!parse(".a[1:3]").matches(&[K("a"), K("1")]));
}

#[test]
fn match_quoted_keys_with_dots_slashes_and_escapes() {
    let s = parse(r#".params._meta["io.modelcontextprotocol/clientInfo"]"#);
    assert!(s.matches(&[
        K("params"),
        K("_meta"),
        K("io.modelcontextprotocol/clientInfo")
    ]));
    assert!(!s.matches(&[
        K("params"),
        K("_meta"),
        K("io"),
        K("modelcontextprotocol/clientInfo")
    ]));
    assert!(parse(r#".["a\"b\\c\n"]"#).matches(&[K("a\"b\\c\n")]));
    assert!(parse(r#".["caf\u00e9"]"#).matches(&[K("café")]));
    assert!(parse(r#".["*"]"#).matches(&[K("*")]));
    assert!(!parse(r#".["*"]"#).matches(&[K("x")]));
}

#[test]
fn match_any_alternative() {
    let s = parse(".id, .result.**.timestamp, .params[0]");
    assert!(s.matches(&[K("id")]));
    assert!(s.matches(&[K("result"), K("x"), K("timestamp")]));
    assert!(s.matches(&[K("params"), I(0)]));
    assert!(!s.matches(&[K("params"), I(1)]));
    assert!(!s.matches(&[K("method")]));
}

fn message() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 3,
        "result": {
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "xyz"},
                {"type": "text", "text": "b", "_meta": {"timestamp": 1}}
            ],
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}, "timestamp": 2},
            "timestamp": 3
        }
    })
}

#[test]
fn visit_the_matching_nodes_in_document_order_with_exact_paths() {
    assert_eq!(
        visited(".result.content[].text", &message()),
        [".result.content[0].text", ".result.content[2].text"]
    );
    assert_eq!(
        visited(".**.timestamp", &message()),
        [
            ".result._meta.timestamp",
            ".result.content[2]._meta.timestamp",
            ".result.timestamp"
        ]
    );
    assert_eq!(
        visited(".result.*", &message()),
        [".result._meta", ".result.content", ".result.timestamp"]
    );
    assert_eq!(
        visited(".result.content[1:].type, .id", &message()),
        [".id", ".result.content[1].type", ".result.content[2].type"]
    );
    assert_eq!(visited(".", &message()), ["."]);
    assert_eq!(
        visited(".result.missing, .id.x, .[0]", &message()),
        Vec::<String>::new()
    );
}

#[test]
fn visit_parents_before_children() {
    assert_eq!(
        visited(".result._meta.**", &message()),
        [
            ".result._meta",
            ".result._meta[\"io.modelcontextprotocol/related-task\"]",
            ".result._meta[\"io.modelcontextprotocol/related-task\"].taskId",
            ".result._meta.timestamp"
        ]
    );
}

#[test]
fn visit_a_node_once_when_several_alternatives_match_it() {
    assert_eq!(visited(".id, .**, .*", &json!({"id": 1})), [".", ".id"]);
    assert_eq!(
        visited(".a.**.b, .a.b, .**.b", &json!({"a": {"b": 1}})),
        [".a.b"]
    );
}

#[test]
fn render_keys_that_are_not_bare_as_json_strings() {
    let keys = [
        "a b",
        "a.b",
        "",
        "q\"uote",
        "back\\slash",
        "ctl\u{1}\u{8}\u{c}\n\r\t",
        "é",
        "*",
    ];
    for k in keys {
        let mut value = json!({"x": {k: 1}});
        let mut paths = Vec::new();
        parse(".x.*").apply(&mut value, &mut |_, path| paths.push(path.to_owned()));
        assert_eq!(paths, [format!(".x[{}]", Value::String(k.to_owned()))]);
    }
    assert_eq!(visited(".*", &json!({"a/b-c_1": 0})), [".a/b-c_1"]);
}

#[test]
fn render_subscripts_at_the_root_after_a_dot() {
    assert_eq!(visited(".[]", &json!([1, 2])), [".[0]", ".[1]"]);
    assert_eq!(visited(".*", &json!({"a b": 1})), [".[\"a b\"]"]);
}

#[test]
fn let_the_callback_rewrite_the_matching_nodes() {
    let mut value = message();
    parse(".**.timestamp, .result.content[].data").apply(&mut value, &mut |node, _| {
        *node = json!("<redacted>");
    });
    assert_eq!(value["result"]["timestamp"], "<redacted>");
    assert_eq!(value["result"]["_meta"]["timestamp"], "<redacted>");
    assert_eq!(
        value["result"]["content"][2]["_meta"]["timestamp"],
        "<redacted>"
    );
    assert_eq!(value["result"]["content"][1]["data"], "<redacted>");
    assert_eq!(value["result"]["content"][0]["text"], "a");
}

#[test]
fn not_descend_into_an_object_replaced_by_a_string() {
    let mut value = json!({"a": {"b": {"c": 1}}, "d": 2});
    let mut paths = Vec::new();
    parse(".**").apply(&mut value, &mut |node, path| {
        paths.push(path.to_owned());
        if path == ".a" {
            *node = json!("gone");
        }
    });
    assert_eq!(paths, [".", ".a", ".d"]);
    assert_eq!(value, json!({"a": "gone", "d": 2}));
}

#[test]
fn descend_into_the_value_the_callback_put_in_place() {
    let mut value = json!({"a": {"old": 1}});
    let mut paths = Vec::new();
    parse(".**").apply(&mut value, &mut |node, path| {
        paths.push(path.to_owned());
        if path == ".a" {
            *node = json!({"new": [true]});
        }
    });
    assert_eq!(paths, [".", ".a", ".a.new", ".a.new[0]"]);
}

/// A handful of nested values, hand-built to cover empty containers, scalars at the
/// root, keys that need quoting, and arrays of arrays.
fn samples() -> Vec<Value> {
    vec![
        json!(null),
        json!("scalar"),
        json!({}),
        json!([]),
        json!([[], [[1, 2], {}], {"": {"a b": [null]}}]),
        json!({"a": {"a": {"a": [1, {"a": 2}]}}, "b": [true, false], "c": "x"}),
        json!({"x.y": {"z/w": [{"\"": 1, "\\": [[0]]}]}, "timestamp": 5, "params": {"timestamp": 6}}),
        message(),
    ]
}

/// Every node of `value` with its concrete path, in document order.
fn nodes(value: &Value) -> Vec<Vec<OwnedStep>> {
    fn walk(value: &Value, path: &mut Vec<OwnedStep>, out: &mut Vec<Vec<OwnedStep>>) {
        out.push(path.clone());
        match value {
            // Members in key order, as the walk visits them whatever `preserve_order`.
            Value::Object(map) => {
                for (k, v) in crate::data::json::members(map) {
                    path.push(OwnedStep::Key(k.clone()));
                    walk(v, path, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push(OwnedStep::Index(i));
                    walk(v, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

#[derive(Clone)]
enum OwnedStep {
    Key(String),
    Index(usize),
}

fn borrowed(path: &[OwnedStep]) -> Vec<PathSegment<'_>> {
    path.iter()
        .map(|step| match step {
            OwnedStep::Key(k) => K(k),
            OwnedStep::Index(i) => I(*i),
        })
        .collect()
}

fn rendered(path: &[OwnedStep]) -> String {
    let mut out = String::new();
    for step in borrowed(path) {
        push_step(&mut out, step);
    }
    rendered_path(&out).to_owned()
}

#[test]
fn visit_every_node_exactly_once_with_a_deep_wildcard() {
    for value in samples() {
        let expected: Vec<String> = nodes(&value).iter().map(|p| rendered(p)).collect();
        assert_eq!(visited(".**", &value), expected, "in {value}");
        let mut unique = expected.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), expected.len(), "in {value}");
    }
}

#[test]
fn visit_exactly_the_nodes_that_match() {
    let selectors = [
        ".",
        ".**",
        ".*",
        ".[]",
        ".**.a",
        ".a.**",
        ".a.**.a",
        ".**[]",
        ".**.*.**",
        ".*[1:]",
        ".**[0][0]",
        ".result.content[].text, .**.timestamp",
        r#".["x.y"]["z/w"][0].*"#,
        ".a.a.a[1].a, .a.a.a[0:1], .b[5]",
        r#".**[""]["a b"][:1]"#,
    ];
    for value in samples() {
        let all = nodes(&value);
        for selector in selectors {
            let expected: Vec<String> = all
                .iter()
                .filter(|p| parse(selector).matches(&borrowed(p)))
                .map(|p| rendered(p))
                .collect();
            assert_eq!(
                visited(selector, &value),
                expected,
                "`{selector}` in {value}"
            );
        }
    }
}

#[test]
fn render_paths_that_parse_back_to_a_selector_for_that_node_alone() {
    for value in samples() {
        let all = nodes(&value);
        for path in &all {
            let selector = parse(&rendered(path));
            assert_eq!(selector.as_str(), rendered(path));
            for other in &all {
                let same = rendered(other) == rendered(path);
                assert_eq!(
                    selector.matches(&borrowed(other)),
                    same,
                    "{}",
                    rendered(other)
                );
            }
            assert_eq!(visited(selector.as_str(), &value), [rendered(path)]);
        }
    }
}

fn render(path: &[arbitrary::Step]) -> String {
    let mut out = String::new();
    for step in path {
        push_step(&mut out, step.borrowed());
    }
    rendered_path(&out).to_owned()
}

fn removed(selector: &str, value: &Value) -> Value {
    let mut value = value.clone();
    parse(selector).remove(&mut value);
    value
}

#[test]
fn remove_matched_members_and_elements_but_never_the_root() {
    let value = json!({"a": {"b": 1, "c": [1, 2, 3]}, "d": [{"e": 1, "f": 2}, {"e": 3}]});
    assert_eq!(
        removed(".a.b", &value),
        json!({"a": {"c": [1, 2, 3]}, "d": [{"e": 1, "f": 2}, {"e": 3}]})
    );
    assert_eq!(
        removed(".d[].e, .a.c[1:]", &value),
        json!({"a": {"b": 1, "c": [1]}, "d": [{"f": 2}, {}]})
    );
    assert_eq!(
        removed(".**.e", &value),
        json!({"a": {"b": 1, "c": [1, 2, 3]}, "d": [{"f": 2}, {}]})
    );
    assert_eq!(removed(".a.c[]", &value)["a"]["c"], json!([]));
    assert_eq!(removed(".a.*", &value)["a"], json!({}));
    // Indexes are those of the value as it was, in one walk.
    assert_eq!(removed(".a.c[0], .a.c[2]", &value)["a"]["c"], json!([2]));
    // The outermost match goes; what was below it is not looked at.
    assert_eq!(
        removed(".a, .a.b", &value),
        json!({"d": [{"e": 1, "f": 2}, {"e": 3}]})
    );
    assert_eq!(removed(".", &value), value);
    assert_eq!(removed(".**", &value), json!({}));
    assert_eq!(removed(".x.y, .a.b.c, .d[7]", &value), value);
}

#[test]
fn refuse_to_remove_one_element_or_a_bounded_range_as_not_idempotent() {
    for text in [".a[0]", ".a[1:3]", ".a[:2]", ".a, .b[2].**", "."] {
        assert!(parse(text).why_not_removable().is_some(), "{text}");
    }
    for text in [
        ".a",
        ".a[0].b",
        ".a[]",
        ".a[2:]",
        ".a.*",
        ".**",
        ".a[0:2].b.**",
    ] {
        assert_eq!(parse(text).why_not_removable(), None, "{text}");
    }
    assert_eq!(
        parse(".x, .a[0]").why_not_removable().unwrap(),
        "cannot remove `.x, .a[0]`: it ends in one array element: removing it again would \
         remove the next one (remove every element with `[]`, or the tail with `[n:]`)"
    );
}

/// Selectors over the keys `a`, `b` and small indexes, so that they hit.
fn small_selector() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let segment = prop_oneof![
        Just(".a"),
        Just(".b"),
        Just("[0]"),
        Just("[1]"),
        Just("[1:]"),
        Just("[:2]"),
        Just("[]"),
        Just(".*"),
        Just(".**"),
    ];
    let alternative = prop::collection::vec(segment, 1..4).prop_map(|s| {
        let text = s.concat();
        if text.starts_with('[') {
            format!(".{text}")
        } else {
            text
        }
    });
    prop::collection::vec(alternative, 1..3).prop_map(|a| a.join(", "))
}

fn small_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![Just(Value::Null), (0..3i64).prop_map(Value::from)];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(prop_oneof![Just("a"), Just("b"), Just("c")], inner, 0..3)
                .prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
        ]
    })
}

proptest::proptest! {
    #[test]
    fn remove_idempotently_whatever_why_not_removable_lets_through(
        text in small_selector(),
        value in small_json(),
    ) {
        let selector = parse(&text);
        if selector.why_not_removable().is_none() {
            let once = removed(&text, &value);
            prop_assert_eq!(&removed(&text, &once), &once, "{}", text);
            // Nothing the selector matches is left, but the root.
            let left = visited(&text, &once);
            prop_assert!(left.iter().all(|p| p == "."), "{} left {:?}", text, left);
        }
    }

    #[test]
    fn render_any_path_as_a_selector_that_matches_that_path_alone(path in arbitrary::path()) {
        let text = render(&path);
        let selector = Selector::parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let steps: Vec<PathSegment<'_>> = path.iter().map(arbitrary::Step::borrowed).collect();
        prop_assert!(selector.matches(&steps), "{}", text);
        if let Some((last, parent)) = steps.split_last() {
            prop_assert!(!selector.matches(parent), "{} matches its parent", text);
            let other = match *last {
                K(key) => K(if key == "x" { "y" } else { "x" }),
                I(i) => I(i.wrapping_add(1)),
            };
            let sibling: Vec<PathSegment<'_>> = parent.iter().copied().chain([other]).collect();
            prop_assert!(!selector.matches(&sibling), "{} matches a sibling", text);
            let flipped = match *last {
                K(_) => I(0),
                I(_) => K("0"),
            };
            let flipped: Vec<PathSegment<'_>> = parent.iter().copied().chain([flipped]).collect();
            prop_assert!(!selector.matches(&flipped), "{} matches a step of the other kind", text);
        }
        let child: Vec<PathSegment<'_>> = steps.iter().copied().chain([I(0)]).collect();
        prop_assert!(!selector.matches(&child), "{} matches its child", text);
    }

    #[test]
    fn render_every_node_of_any_value_as_a_selector_for_that_node_alone(value in arbitrary::json()) {
        for path in nodes(&value) {
            let text = rendered(&path);
            let selector = Selector::parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(selector.as_str(), text.as_str());
            prop_assert_eq!(visited(&text, &value), [text.clone()]);
        }
    }
}

/// The nodes `selector` visits in `value`, with their paths.
fn visit(selector: &Selector, value: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    selector.apply(&mut value.clone(), &mut |v, path| {
        out.push((path.to_owned(), v.clone()))
    });
    out
}

proptest::proptest! {
    #[test]
    fn give_each_difference_a_path_that_selects_exactly_that_place(
        expected in arbitrary::json(),
        actual in arbitrary::json(),
    ) {
        for d in differences(&expected, &actual) {
            let selector = Selector::parse(&d.path)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
            for (side, value) in [(&d.expected, &expected), (&d.actual, &actual)] {
                let want: Vec<(String, Value)> =
                    side.iter().map(|v| (d.path.clone(), v.clone())).collect();
                proptest::prop_assert_eq!(visit(&selector, value), want);
            }
        }
    }
}
