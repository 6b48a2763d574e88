//! The rules' tests: set in code, read from a file, merged, applied.

use super::*;
use serde_json::json;

#[test]
fn apply_user_rules_after_the_defaults_and_sort_last() {
    let rules = Rules::default()
        .replace(".result.content[].text", "<TEXT>")
        .regex(".result.note", r"\d+ ms", "<DURATION>")
        .compute(".result.count", |v, path| {
            json!(format!("{path}={}", v.as_u64().unwrap() > 0))
        })
        .sort(".result.tags");
    let mut m = json!({"result": {
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "note": "took 12 ms at 2026-05-16T12:00:00Z",
        "count": 3,
        "tags": ["b", "a", {"z": 1}],
        "isError": false
    }});
    rules.normalize_server(&mut m);
    assert_eq!(
        m,
        json!({"result": {
            "content": [{"type": "text", "text": "<TEXT>"}, {"type": "text", "text": "<TEXT>"}],
            "note": "took <DURATION> at <TIMESTAMP>",
            "count": ".result.count=true",
            "tags": ["a", "b", {"z": 1}]
        }})
    );
}

#[test]
fn read_accepted_contract_classes_from_a_rules_file() {
    let rules = Rules::from_json(r#"{"accept": ["cosmetic"]}"#, "r.json").unwrap();
    assert!(rules.accepts(Class::Cosmetic));
    assert!(!rules.accepts(Class::Compatible));
    let merged = Rules::default().merge(&rules).accept(Class::Compatible);
    assert!(merged.accepts(Class::Cosmetic) && merged.accepts(Class::Compatible));
    let err = Rules::from_json(r#"{"accept": ["pretty"]}"#, "r.json")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(r#"accept[0] must be a contract class: "cosmetic", "compatible", "unknown" or "breaking", not "pretty""#),
        "{err}"
    );
}

#[test]
fn leave_placeholders_to_compute_and_regex_rules() {
    let rules = Rules::without_defaults()
        .compute(".a", |_, _| json!("changed"))
        .regex(".b", ".*", "changed");
    let mut m = json!({"a": "<KEEP>", "b": "<KEEP:1>"});
    rules.normalize_server(&mut m);
    assert_eq!(m, json!({"a": "<KEEP>", "b": "<KEEP:1>"}));
}

#[test]
fn read_a_rules_file_and_explain_its_mistakes() {
    let rules = Rules::from_json(
        r#"{"version":1,"replace":[{"selector":".result.x","with":"<X>"}],"sort":[".result.l"],"unordered":["notifications/message"]}"#,
        "r.json",
    )
    .unwrap();
    let mut m = json!({"result": {"x": 1, "l": [2, 1]}});
    rules.normalize_server(&mut m);
    assert_eq!(m, json!({"result": {"x": "<X>", "l": [1, 2]}}));
    assert!(rules.is_unordered("notifications/message"));

    let e = Rules::from_json(r#"{"sort":[".a..b"]}"#, "r.json")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("r.json: sort[0]: invalid selector"), "{e}");
    let e = Rules::from_json(r#"{"redact":[]}"#, "r.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown key \"redact\"; valid keys: version, replace"),
        "{e}"
    );
    let e = Rules::from_json(r#"{"version":7}"#, "r.json")
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"version\" must be 1 to 5, not 7"), "{e}");
}

#[test]
fn remove_what_a_selector_matches_after_the_defaults_idempotently() {
    let rules = Rules::default()
        .remove(".result._meta[\"x-trace\"], .result.content[].annotations")
        .remove(".result.tags[1:]");
    let mut m = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "_meta": {"x-trace": "abc", "keep": 1},
        "content": [{"type": "text", "text": "a", "annotations": {"p": 1}}, {"type": "text", "text": "b"}],
        "tags": ["x", "y", "z"],
        "isError": false
    }});
    rules.normalize_server(&mut m);
    let once = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "_meta": {"keep": 1},
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "tags": ["x"]
    }});
    assert_eq!(m, once);
    rules.normalize_server(&mut m);
    assert_eq!(m, once, "removing twice is removing once");
}

#[test]
fn never_remove_the_envelope() {
    let rules = Rules::without_defaults().remove(".jsonrpc, .id, .method, .params.x");
    let mut m =
        json!({"jsonrpc": "2.0", "id": 4, "method": "notifications/x", "params": {"x": 1, "y": 2}});
    rules.normalize_server(&mut m);
    assert_eq!(
        m,
        json!({"jsonrpc": "2.0", "id": 4, "method": "notifications/x", "params": {"y": 2}})
    );
    // Every member below the root: only the envelope is left.
    let mut m = json!({"jsonrpc": "2.0", "id": 4, "result": {"a": 1}});
    Rules::without_defaults()
        .remove(".**")
        .normalize_server(&mut m);
    assert_eq!(m, json!({"jsonrpc": "2.0", "id": 4}));
}

#[test]
fn read_remove_from_a_rules_file_and_refuse_what_is_not_idempotent() {
    let rules = Rules::from_json(r#"{"remove": [".result.debug"]}"#, "r.json").unwrap();
    let mut m = json!({"result": {"debug": {"t": 1}, "x": 1}});
    rules.normalize_server(&mut m);
    assert_eq!(m, json!({"result": {"x": 1}}));
    for (text, expected) in [
        (
            r#"{"remove": [".result.items[0]"]}"#,
            "r.json: remove[0]: cannot remove `.result.items[0]`: it ends in one array element",
        ),
        (
            r#"{"remove": [".a", ".b[1:3].**"]}"#,
            "r.json: remove[1]: cannot remove `.b[1:3].**`: it ends in a range with an end",
        ),
        (
            r#"{"remove": ["."]}"#,
            "r.json: remove[0]: cannot remove `.`: `.` is the whole message",
        ),
        (
            r#"{"remove": [".a..b"]}"#,
            "r.json: remove[0]: invalid selector",
        ),
        (
            r#"{"remove": [1]}"#,
            "r.json: remove[0] needs a \"selector\" string",
        ),
    ] {
        let e = Rules::from_json(text, "r.json").unwrap_err().to_string();
        assert!(e.starts_with(expected), "{e}");
    }
}

#[test]
#[should_panic(expected = "cannot remove `.result.content[0]`: it ends in one array element")]
fn panic_on_a_removal_that_is_not_idempotent_in_code() {
    let _ = Rules::default().remove(".result.content[0]");
}

#[test]
fn turn_off_a_switchable_default_rule_in_code_or_in_a_file() {
    let mut m = json!({"result": {"cacheScope": "private", "ttlMs": 0}, "error": {"code": -32002}});
    let mut off = m.clone();
    Rules::default().normalize_server(&mut m);
    assert_eq!(m, json!({"result": {}, "error": {"code": -32602}}));
    Rules::default()
        .without("cache-hints")
        .normalize_server(&mut off);
    assert_eq!(
        off,
        json!({"result": {"cacheScope": "private", "ttlMs": 0}, "error": {"code": -32602}})
    );
    let file = Rules::from_json(r#"{"without": ["resource-not-found-code"]}"#, "r.json").unwrap();
    let merged = Rules::default().merge(&file);
    assert!(!merged.applies("resource-not-found-code") && merged.applies("cache-hints"));
    for (text, expected) in [
        (r#"{"without": ["timestamp"]}"#, "r.json: without[0]: the default rule \"timestamp\" cannot be turned off; the ones that can be turned off: is-error-default, result-type-default, cache-hints, resource-not-found-code"),
        (r#"{"without": ["cache"]}"#, "r.json: without[0]: there is no default rule \"cache\"; the ones"),
        (r#"{"without": [2]}"#, "r.json: without[0] must be a rule name string"),
    ] {
        let e = Rules::from_json(text, "r.json").unwrap_err().to_string();
        assert!(e.starts_with(expected), "{e}");
    }
    assert!(!Rules::without_defaults().applies("cache-hints"));
    assert!(!Rules::default().version(1).applies("cache-hints"));
}

#[test]
#[should_panic(expected = "the default rule \"paths\" cannot be turned off")]
fn panic_on_turning_off_a_rule_that_cannot_be_in_code() {
    let _ = Rules::default().without("paths");
}

#[test]
fn read_a_folder_that_runs_alone_and_carry_it_over_in_a_merge() {
    let alone = Rules::from_json(r#"{"jobs": 1}"#, "r.json").unwrap();
    assert!(alone.runs_alone());
    assert!(!Rules::default().runs_alone());
    assert!(Rules::default().merge(&alone).runs_alone());
    for bad in [r#"{"jobs": 2}"#, r#"{"jobs": true}"#, r#"{"jobs": 0}"#] {
        let e = Rules::from_json(bad, "r.json").unwrap_err().to_string();
        assert!(
            e.contains("\"jobs\" may only be 1 (each fixture of the folder replays alone)"),
            "{e}"
        );
    }
}

#[test]
fn carry_a_pinned_version_over_in_a_merge() {
    assert_eq!(Rules::default().rules_version(), RULES_VERSION);
    let file = Rules::from_json(r#"{"version": 1}"#, "r.json").unwrap();
    assert_eq!(Rules::default().merge(&file).rules_version(), 1);
    // A test's own rules that pin nothing leave the file's version.
    let merged = Rules::default().merge(&file).merge(&Rules::default());
    assert_eq!(merged.rules_version(), 1);
    let merged = Rules::default()
        .merge(&file)
        .merge(&Rules::default().version(2));
    assert_eq!(merged.rules_version(), 2);
}

#[test]
#[should_panic(expected = "invalid selector")]
fn panic_on_an_invalid_selector_in_code() {
    let _ = Rules::default().replace("result", "x");
}
