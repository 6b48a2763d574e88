//! An arbitrary string as a selector in a rules file: `Rules::from_json` must not panic
//! (errors are fine); rules that parse are applied to a fixed nested message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_replay::Rules;
use serde_json::{json, Value};

fn message() -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "content": [
                {"type": "text", "text": "b"},
                {"type": "text", "text": "a", "annotations": {"priority": 1.5}},
                [3, 1, [2, 0]],
                "2026-05-16T12:00:00Z"
            ],
            "tools": [{"name": "z"}, {"name": "a", "tags": ["y", "x"]}],
            "a b": {"c.d": [null, true, {"": []}]},
            "io.modelcontextprotocol/related-task": {"taskId": "<TASK_ID>"},
            "isError": false,
            "empty": {}
        },
        "params": {"_meta": {"progressToken": 3}, "**": ["*"]}
    })
}

fuzz_target!(|data: &[u8]| {
    let selector = String::from_utf8_lossy(data);
    let quoted = serde_json::to_string(&*selector).expect("a string serializes");
    for text in [
        format!(r#"{{"sort":[{quoted}]}}"#),
        format!(r#"{{"replace":[{{"selector":{quoted},"with":{{"x":[1]}}}}]}}"#),
    ] {
        if let Ok(rules) = Rules::from_json(&text, "fuzz") {
            let mut m = message();
            rules.normalize_server(&mut m);
            let mut m = message();
            rules.normalize_client(&mut m);
        }
    }
});
