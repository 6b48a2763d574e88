//! Equality, differences, the canonical writer and the renderings.

use super::diff::{differences, differences_in, listing_of, pair_items};
use super::eq::json_eq;
use super::pretty::{compact, pretty_lines};
use super::write::{write_canonical, write_message, write_string, SortedMembers};
use serde_json::{json, Value};

/// Pretty-prints a value with sorted keys, as reports used to before [`pretty_lines`],
/// which is held to the same text.
fn pretty(value: &Value) -> String {
    let mut out = String::new();
    pretty_into(&mut out, value, 0);
    out
}

fn pretty_into(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let entries = map.len();
            out.push_str("{\n");
            for (i, (k, v)) in SortedMembers::of(map).enumerate() {
                push_indent(out, indent + 1);
                write_string(out, k);
                out.push_str(": ");
                pretty_into(out, v, indent + 1);
                if i + 1 < entries {
                    out.push(',');
                }
                out.push('\n');
            }
            push_indent(out, indent);
            out.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                push_indent(out, indent + 1);
                pretty_into(out, item, indent + 1);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            push_indent(out, indent);
            out.push(']');
        }
        other => write_canonical(out, other),
    }
}

fn push_indent(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push_str("  ");
    }
}

#[test]
fn treat_one_and_one_point_zero_as_equal() {
    assert!(json_eq(&json!({"a": 1}), &json!({"a": 1.0})));
    assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1.5})));
    assert!(!json_eq(&json!(1), &json!("1")));
}

#[test]
fn ignore_key_order() {
    let a: Value = serde_json::from_str(r#"{"a":1,"b":[1,2]}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"b":[1,2.0],"a":1}"#).unwrap();
    assert!(json_eq(&a, &b));
}

#[test]
fn name_the_path_of_each_difference() {
    let d = differences(
        &json!({"result": {"content": [{"text": "a"}], "x": 1}}),
        &json!({"result": {"content": [{"text": "b"}, 2], "y": 2}}),
    );
    let paths: Vec<&str> = d.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            ".result.content[0].text",
            ".result.content[1]",
            ".result.x",
            ".result.y"
        ]
    );
    assert_eq!(d[1].expected, None);
    assert_eq!(d[1].actual, Some(json!(2)));
}

#[test]
fn quote_keys_that_are_not_plain() {
    let d = differences(&json!({"a b": 1}), &json!({"a b": 2}));
    assert_eq!(d[0].path, r#".["a b"]"#);
    assert_eq!(differences(&json!([1]), &json!([2]))[0].path, ".[0]");
    assert_eq!(differences(&json!(1), &json!(2))[0].path, ".");
}

#[test]
fn write_messages_in_json_rpc_key_order_and_nested_keys_sorted() {
    let mut out = String::new();
    write_message(
        &mut out,
        &json!({"params": {"z": 1, "a": [{"y": 1, "b": "é\n"}]}, "method": "m", "id": 1, "jsonrpc": "2.0"}),
    );
    assert_eq!(
        out,
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"b":"é\n","y":1}],"z":1}}"#
    );
}

#[test]
fn write_the_lines_of_pretty_and_tag_each_listing_items_lines_with_its_key() {
    let value = json!({"id": 1, "result": {"tools": [{"name": "b", "x": [1, {}]}, {"name": "a"}], "z": []}});
    let listing = listing_of("tools/list");
    let lines = pretty_lines(&value, listing, None);
    let text: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(text.join("\n"), pretty(&value));
    let tags: Vec<Option<&str>> = lines.iter().map(|(t, _)| t.as_deref()).collect();
    let b = Some("b");
    assert_eq!(
        tags,
        [
            None,
            None,
            None,
            None,
            b,
            b,
            b,
            b,
            b,
            b,
            b,
            Some("a"),
            Some("a"),
            Some("a"),
            None,
            None,
            None,
            None
        ]
    );
    // In another order, the commas follow the places.
    let lines = pretty_lines(&value, listing, Some(&[1, 0]));
    assert_eq!(lines[4], (Some("a".into()), "      {".into()));
    assert_eq!(lines[6], (Some("a".into()), "      },".into()));
    assert_eq!(lines[13], (Some("b".into()), "      }".into()));
}

#[test]
fn pair_listing_items_by_key_before_taking_their_differences() {
    let tool = |name: &str, d: &str| json!({"name": name, "description": d});
    let listing = listing_of("tools/list");
    let expected = json!({"result": {"tools": [tool("a", "A"), tool("b", "B"), tool("c", "C")]}});
    // Reordered, one renamed, one changed.
    let actual = json!({"result": {"tools": [tool("c", "C2"), tool("a", "A"), tool("bee", "B")]}});
    let d = differences_in(&expected, &actual, listing);
    let got: Vec<(&str, Option<&Value>, Option<&Value>)> = d
        .iter()
        .map(|d| (d.path.as_str(), d.expected.as_ref(), d.actual.as_ref()))
        .collect();
    assert_eq!(
        got,
        [
            (".result.tools[1]", Some(&tool("b", "B")), None),
            (".result.tools[2]", None, Some(&tool("bee", "B"))),
            (
                ".result.tools[0].description",
                Some(&json!("C")),
                Some(&json!("C2"))
            ),
        ]
    );
    // Without the listing, place by place: every item differs.
    assert_eq!(differences(&expected, &actual).len(), 6);
    // Keys missing or repeated: place by place.
    let twice = json!({"result": {"tools": [tool("a", "A"), tool("a", "B")]}});
    assert_eq!(
        differences_in(&twice, &expected, listing),
        differences(&twice, &expected)
    );
    assert_eq!(
        pair_items(
            &[tool("a", ""), tool("b", "")],
            &[tool("x", ""), tool("b", ""), tool("y", "")],
            "name"
        ),
        Some(vec![
            (Some(0), None),
            (None, Some(0)),
            (Some(1), Some(1)),
            (None, Some(2))
        ])
    );
}

#[test]
fn cut_long_compact_renderings() {
    assert_eq!(compact(&json!("abcdef"), 5), "\"abc…");
}

proptest::proptest! {
    #[test]
    fn write_strings_and_numbers_as_serde_json_does(s in "\\PC*|[\"\\\\\u{0}-\u{1f}\u{7f}é]{0,6}", n in proptest::num::f64::NORMAL, i in proptest::num::i64::ANY) {
        // Keys inserted in key order: serde_json writes them so with `preserve_order`
        // too, and the canonical writer always does.
        for value in [json!(s), json!(i), json!({"a": i, "b": [s]})] {
            let mut out = String::new();
            write_canonical(&mut out, &value);
            proptest::prop_assert_eq!(&out, &serde_json::to_string(&value).unwrap());
        }
        // Inserted out of order: the canonical writer sorts them, whatever the build.
        let mut out = String::new();
        write_canonical(&mut out, &json!({"b": [s], "a": i}));
        proptest::prop_assert!(out.starts_with("{\"a\":"), "{}", out);
        // A float: serde_json's shortest text whenever this build reads that back;
        // always a text that compares equal to it.
        let mut out = String::new();
        write_canonical(&mut out, &json!(n));
        let shortest = serde_json::to_string(&json!(n)).unwrap();
        let back: Value = serde_json::from_str(&out).unwrap();
        let read: Value = serde_json::from_str(&shortest).unwrap();
        if read.as_f64().map(f64::to_bits) == Some(n.to_bits()) {
            proptest::prop_assert_eq!(&out, &shortest);
        }
        proptest::prop_assert!(json_eq(&back, &json!(n)), "{} for {}", out, n);
    }

    /// What this build's serde_json parsed, written and parsed again, is the same
    /// value and then the same text: a fixture rewritten from itself keeps its bytes.
    #[test]
    fn write_a_parsed_float_so_that_it_reads_back_the_same(
        n in proptest::num::f64::POSITIVE
            | proptest::num::f64::NEGATIVE
            | proptest::num::f64::NORMAL
            | proptest::num::f64::SUBNORMAL
            | proptest::num::f64::ZERO
    ) {
        let parsed: Value = serde_json::from_str(&serde_json::to_string(&json!(n)).unwrap()).unwrap();
        let mut once = String::new();
        write_canonical(&mut once, &parsed);
        let again: Value = serde_json::from_str(&once).unwrap();
        proptest::prop_assert!(json_eq(&again, &parsed), "{} for {}", once, n);
        let mut twice = String::new();
        write_canonical(&mut twice, &again);
        proptest::prop_assert_eq!(&twice, &once);
    }
}
