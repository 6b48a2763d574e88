//! The default normalization rules on arbitrary JSON, as a server result and as the
//! params of a client `initialize`: no panic, and normalizing twice equals once.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_replay::Rules;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// Built once: `Rules::default()` looks up this machine's home and temp folders.
static RULES: OnceLock<Rules> = OnceLock::new();

fn check(rules: &Rules, message: Value, server: bool) {
    let normalize = |m: &mut Value| {
        if server {
            rules.normalize_server(m)
        } else {
            rules.normalize_client(m)
        }
    };
    let mut once = message;
    normalize(&mut once);
    let mut twice = once.clone();
    normalize(&mut twice);
    assert_eq!(
        twice,
        once,
        "normalize_{} is not idempotent",
        if server { "server" } else { "client" }
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let rules = RULES.get_or_init(Rules::default);
    let result = json!({"jsonrpc": "2.0", "id": 1, "result": v});
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": v});
    check(rules, result.clone(), true);
    check(rules, request.clone(), true);
    check(rules, result, false);
    check(rules, request, false);
});
