//! The general path: the default rules in force applied to a parsed message, server's or
//! client's ([`normalize_server`], [`normalize_client`]), the string rules on one string
//! ([`normalize_str`], which the fast path uses too), and the way back for a served
//! recording ([`concretize`]).
//!
//! Every rule has a name (see `DEFAULT_RULES` and `docs/normalization.md`). Rules never
//! rewrite a placeholder, so normalizing twice gives the same as normalizing once. Request
//! ids and progress tokens are labels handled by the replay driver, not here.

use super::defaults::{
    is_session_id_key, rewritten_code, Defaults, IDENTITY_META, RESULT_RULES, SERVED_SERVER_INFO,
    SERVED_VALUES, SERVER_INFO, SERVER_INFO_META, TRACE_META,
};
use super::paths::Paths;
use super::placeholder::is_placeholder;
use once_cell::sync::Lazy;
use regex::Regex;
use serde_json::{Map, Value};
use std::borrow::Cow;

static TIMESTAMP: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?-u)\b\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?\b",
    )
    .expect("valid regex")
});

static UUID: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?-u)\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
    )
    .expect("valid regex")
});

/// Applies the default rules in force to a server message.
pub(crate) fn normalize_server(message: &mut Value, defaults: &Defaults) {
    trace_context(message, defaults);
    if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
        for rule in &RESULT_RULES {
            if defaults.in_force(rule.name) {
                rule.apply(result);
            }
        }
        if defaults.in_force("server-identity") {
            server_identity(result);
        }
    }
    if defaults.in_force("resource-not-found-code") {
        if let Some(code) = message.pointer_mut("/error/code") {
            if let Some(modern) = match code {
                Value::Number(n) => rewritten_code(n),
                _ => None,
            } {
                *code = Value::from(modern);
            }
        }
    }
    normalize_values(message, &defaults.paths);
}

/// Applies the default rules to a client message (adds `client-identity`).
pub(crate) fn normalize_client(message: &mut Value, defaults: &Defaults) {
    trace_context(message, defaults);
    let paths = &defaults.paths;
    let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
    if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
        if initialize {
            for (key, placeholder) in [
                ("clientInfo", "<CLIENT_INFO>"),
                ("protocolVersion", "<PROTOCOL_VERSION>"),
            ] {
                if let Some(v) = params.get_mut(key) {
                    *v = Value::String(placeholder.into());
                }
            }
        }
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
            identity_meta(meta);
        }
    }
    normalize_values(message, paths);
}

/// The `trace-context` rule, both directions: the W3C trace context keys of `params._meta`
/// and `result._meta` (`traceparent`, `tracestate`, `baggage`) written as placeholders.
fn trace_context(message: &mut Value, defaults: &Defaults) {
    if !defaults.in_force("trace-context") {
        return;
    }
    for member in ["params", "result"] {
        let Some(meta) = message
            .get_mut(member)
            .and_then(|m| m.get_mut("_meta"))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        for (key, placeholder) in TRACE_META {
            if let Some(value) = meta.get_mut(key).filter(|v| v.is_string()) {
                *value = Value::String(placeholder.into());
            }
        }
    }
}

/// The `server-identity` rule on a `result` (not `server/discover`'s, which has
/// `supportedVersions`).
fn server_identity(result: &mut Map<String, Value>) {
    if result.contains_key("supportedVersions") {
        return;
    }
    if let Some(info) = result
        .get_mut("_meta")
        .and_then(Value::as_object_mut)
        .and_then(|meta| meta.get_mut(SERVER_INFO_META))
    {
        *info = Value::String(SERVER_INFO.into());
    }
}

fn identity_meta(meta: &mut Map<String, Value>) {
    for (key, placeholder) in IDENTITY_META
        .into_iter()
        .filter(|(key, _)| !key.ends_with("clientCapabilities"))
    {
        if let Some(v) = meta.get_mut(key) {
            *v = Value::String(placeholder.into());
        }
    }
}

/// `timestamp`, `uuid`, `paths` and `session-id` over every string and key of a value.
fn normalize_values(value: &mut Value, paths: &Paths) {
    match value {
        Value::String(s) => {
            if let Some(new) = normalize_str(s, paths) {
                *s = new;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| normalize_values(v, paths)),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if is_session_id_key(key) {
                    if !v.as_str().is_some_and(is_placeholder) {
                        *v = Value::String("<SESSION_ID>".into());
                    }
                    continue;
                }
                normalize_values(v, paths);
            }
            // Keys can hold paths too (e.g. a map from file to status).
            if map.keys().any(|k| normalize_str(k, paths).is_some()) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    let k = normalize_str(&k, paths).unwrap_or(k);
                    map.insert(k, v);
                }
            }
        }
        _ => {}
    }
}

/// The placeholders of [`SERVED_VALUES`] and the folders of `paths` written as values, in
/// every string and object key of `message`: a recorded server message as a client under
/// test gets it.
pub(crate) fn concretize(message: &mut Value, paths: &Paths) {
    fn one(s: &str, paths: &Paths) -> Option<String> {
        if !s.contains('<') {
            return None;
        }
        let mut out = paths.expand(s);
        for (placeholder, value) in SERVED_VALUES {
            if out.contains(placeholder) {
                out = Cow::Owned(out.replace(placeholder, value));
            }
        }
        match out {
            Cow::Owned(out) => Some(out),
            Cow::Borrowed(_) => None,
        }
    }
    match message {
        Value::String(s) if s == SERVER_INFO => {
            let (name, version) = SERVED_SERVER_INFO;
            *message = serde_json::json!({"name": name, "version": version});
        }
        Value::String(s) => {
            if let Some(out) = one(s, paths) {
                *s = out;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| concretize(v, paths)),
        Value::Object(map) => {
            if map.keys().any(|k| k.contains('<')) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (one(&k, paths).unwrap_or(k), v))
                    .collect();
            }
            map.values_mut().for_each(|v| concretize(v, paths));
        }
        _ => {}
    }
}

/// The normalized string, or `None` when no rule applies.
pub fn normalize_str(s: &str, paths: &Paths) -> Option<String> {
    if s.len() < 8 || is_placeholder(s) {
        return None;
    }
    let mut out: Cow<'_, str> = Cow::Borrowed(s);
    // Cheap pre-checks before running a regex over every string (and before compiling
    // it: a protocol version like `2025-11-25` must not cost every test process the
    // timestamp regex). A timestamp has two dashes and a colon, a UUID four dashes.
    let dashes = out.as_bytes().iter().filter(|b| **b == b'-').count();
    if dashes >= 2 && out.contains(':') {
        if let Cow::Owned(t) = TIMESTAMP.replace_all(&out, "<TIMESTAMP>") {
            out = Cow::Owned(t);
        }
    }
    if dashes >= 4 && out.len() >= 36 {
        if let Cow::Owned(t) = UUID.replace_all(&out, "<UUID>") {
            out = Cow::Owned(t);
        }
    }
    if out.contains(['/', '\\']) {
        if let Cow::Owned(t) = paths.replace(&out) {
            out = Cow::Owned(t);
        }
    }
    match out {
        Cow::Borrowed(_) => None,
        Cow::Owned(t) => Some(t),
    }
}

#[cfg(test)]
mod should {
    use super::*;
    use crate::normalize::defaults::RULES_VERSION;
    use crate::normalize::placeholder::contains_placeholder;
    use serde_json::json;

    fn server(v: Value) -> Value {
        server_at(RULES_VERSION, v)
    }

    fn server_at(version: u64, v: Value) -> Value {
        let mut v = v;
        normalize_server(&mut v, &Defaults::example(version));
        v
    }

    #[test]
    fn write_a_servers_identity_in_a_results_meta_from_version_4_but_discovers() {
        let info = json!({"name": "crm", "version": "2.0.1"});
        let listed = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [],
            "_meta": {"io.modelcontextprotocol/serverInfo": info, "other": 1}}});
        assert_eq!(
            server(listed.clone()),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [],
                "_meta": {"io.modelcontextprotocol/serverInfo": "<SERVER_INFO>", "other": 1}}})
        );
        // Another release of the same server is the same fixture line.
        let mut next = listed.clone();
        next["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["version"] = json!("2.1.0");
        assert_eq!(server(next), server(listed.clone()));
        // `server/discover` names the server as its contract; version 3 kept it everywhere.
        let discover = json!({"result": {"supportedVersions": ["2026-07-28"],
            "_meta": {"io.modelcontextprotocol/serverInfo": info}}});
        assert_eq!(server(discover.clone()), discover);
        assert_eq!(server_at(3, listed.clone()), listed);
        // The fast path leaves such a line to this one, and agrees.
        let line = listed.to_string();
        assert!(crate::normalize::fast::response(&line, Some(&Defaults::example(4))).is_none());
        assert_eq!(crate::normalize::fast::agrees_with_general(&line), Ok(()));
        // A served recording gives the client an identity of the protocol's shape.
        let mut served = server(listed);
        concretize(&mut served, &Defaults::example(4).paths);
        assert_eq!(
            served["result"]["_meta"]["io.modelcontextprotocol/serverInfo"],
            json!({"name": "mcp-replay-mock", "version": "0.0.0"})
        );
    }

    #[test]
    fn drop_the_cache_hints_of_any_result_but_a_tasks_from_version_2() {
        let list = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [], "cacheScope": "private", "ttlMs": 0}});
        assert_eq!(
            server(list.clone()),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
        );
        let discover = json!({"result": {"supportedVersions": ["2026-07-28"], "cacheScope": "public", "ttlMs": 60000}});
        assert_eq!(
            server(discover),
            json!({"result": {"supportedVersions": ["2026-07-28"]}})
        );
        // A task's `ttlMs` is how long the server keeps it: data, not a caching hint.
        let task = json!({"result": {"taskId": "t1", "status": "working", "ttlMs": 60000, "resultType": "task"}});
        assert_eq!(server(task.clone()), task);
        // Only the `result`'s own members: a tool's output may hold such keys as data.
        let nested = json!({"result": {"structuredContent": {"ttlMs": 5, "cacheScope": "x"}}});
        assert_eq!(server(nested.clone()), nested);
        // Version 1 keeps them, as it always did.
        assert_eq!(server_at(1, list.clone()), list);
    }

    #[test]
    fn write_the_resource_not_found_code_of_both_eras_as_the_2026_one_from_version_2() {
        let legacy = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32002, "message": "resource not found: demo://none", "data": {"uri": "demo://none"}}});
        let modern = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "resource not found: demo://none", "data": {"uri": "demo://none"}}});
        assert_eq!(server(legacy.clone()), modern);
        assert_eq!(server(modern.clone()), modern);
        let float = json!({"error": {"code": -32002.0, "message": "m"}});
        assert_eq!(
            server(float),
            json!({"error": {"code": -32602, "message": "m"}})
        );
        // Other codes, and a `code` that is not the error's, stay.
        for other in [
            json!({"error": {"code": -32601, "message": "m"}}),
            json!({"result": {"code": -32002}}),
            json!({"error": {"code": "-32002"}}),
        ] {
            assert_eq!(server(other.clone()), other);
        }
        assert_eq!(server_at(1, legacy.clone()), legacy);
    }

    #[test]
    fn apply_a_switchable_rule_only_while_it_is_on() {
        let mut defaults = Defaults::example(2);
        defaults.turn_off("cache-hints");
        let mut m = json!({"result": {"cacheScope": "private", "ttlMs": 0, "isError": false}, "error": {"code": -32002}});
        normalize_server(&mut m, &defaults);
        assert_eq!(
            m,
            json!({"result": {"cacheScope": "private", "ttlMs": 0}, "error": {"code": -32602}})
        );
        assert!(!defaults.in_force("cache-hints") && defaults.in_force("resource-not-found-code"));
        assert!(!Defaults::example(1).in_force("resource-not-found-code"));
        assert!(!Defaults::example(2).in_force("no-such-rule"));
    }

    #[test]
    fn drop_the_is_error_default_and_keep_true() {
        assert_eq!(
            server(json!({"result": {"content": [], "isError": false}})),
            json!({"result": {"content": []}})
        );
        assert_eq!(
            server(json!({"result": {"isError": true}})),
            json!({"result": {"isError": true}})
        );
    }

    #[test]
    fn replace_timestamps_inside_strings() {
        assert_eq!(
            server(
                json!({"params": {"data": {"at": "2026-05-16T12:00:00.000Z", "log": "started 2026-05-16 12:00:01+02:00 ok"}}})
            ),
            json!({"params": {"data": {"at": "<TIMESTAMP>", "log": "started <TIMESTAMP> ok"}}})
        );
        // A date alone, a version and a phone-like number are data, not timestamps.
        let untouched =
            json!({"params": {"due": "2026-05-16", "v": "2025-11-25", "n": "2026-13-45T99:00"}});
        assert_eq!(server(untouched.clone()), untouched);
    }

    #[test]
    fn drop_the_complete_result_type_and_pin_request_state() {
        assert_eq!(
            server(json!({"result": {"resultType": "complete", "content": []}})),
            json!({"result": {"content": []}})
        );
        assert_eq!(
            server(
                json!({"result": {"resultType": "input_required", "requestState": "opaque.123", "inputRequests": {}}})
            ),
            json!({"result": {"resultType": "input_required", "requestState": "<REQUEST_STATE>", "inputRequests": {}}})
        );
        // A client's own state (one the recording did not bind to the server's) is kept
        // as it was sent.
        let mut retry =
            json!({"method": "tools/call", "params": {"name": "x", "requestState": "opaque.123"}});
        normalize_client(&mut retry, &Defaults::example(2));
        assert_eq!(retry["params"]["requestState"], "opaque.123");
    }

    #[test]
    fn replace_uuids() {
        assert_eq!(
            server(json!({"result": {"id": "job 123e4567-e89b-12d3-a456-426614174000 queued"}})),
            json!({"result": {"id": "job <UUID> queued"}})
        );
        let near = json!({"result": {"id": "123e4567-e89b-12d3-a456-42661417400"}});
        assert_eq!(server(near.clone()), near);
    }

    #[test]
    fn replace_machine_folders_keeping_the_tail_of_the_path() {
        assert_eq!(
            server(json!({"result": {
                "a": "/home/ada/work/proj/src/main.rs",
                "b": "file:///home/ada/.config/x.toml",
                "c": "/tmp/abc/out.txt",
                "d": "/home/adam/notes",
                "e": "see /tmp",
                "f": "/home/ada"
            }})),
            json!({"result": {
                "a": "<WORKSPACE>/src/main.rs",
                "b": "file://<HOME>/.config/x.toml",
                "c": "<TMP>/abc/out.txt",
                "d": "/home/adam/notes",
                "e": "see <TMP>",
                "f": "<HOME>"
            }})
        );
    }

    #[test]
    fn replace_paths_in_keys_too() {
        assert_eq!(
            server(json!({"result": {"/tmp/a.txt": 1}})),
            json!({"result": {"<TMP>/a.txt": 1}})
        );
    }

    #[test]
    fn replace_client_identity_in_client_messages_only() {
        let mut init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"roots": {}}, "clientInfo": {"name": "c", "version": "9"}}});
        normalize_client(&mut init, &Defaults::example(2));
        assert_eq!(
            init["params"],
            json!({"protocolVersion": "<PROTOCOL_VERSION>", "capabilities": {"roots": {}}, "clientInfo": "<CLIENT_INFO>"})
        );
        let mut call = json!({"method": "tools/call", "params": {"name": "x", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "c"},
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": 1}}});
        normalize_client(&mut call, &Defaults::example(2));
        assert_eq!(
            call["params"]["_meta"],
            json!({"io.modelcontextprotocol/protocolVersion": "<PROTOCOL_VERSION>",
                   "io.modelcontextprotocol/clientInfo": "<CLIENT_INFO>",
                   "io.modelcontextprotocol/clientCapabilities": {},
                   "progressToken": 1})
        );
        let result = json!({"result": {"protocolVersion": "2025-11-25"}});
        assert_eq!(server(result.clone()), result);
    }

    #[test]
    fn replace_session_ids() {
        assert_eq!(
            server(json!({"params": {"headers": {"Mcp-Session-Id": "abc123"}}})),
            json!({"params": {"headers": {"Mcp-Session-Id": "<SESSION_ID>"}}})
        );
    }

    #[test]
    fn never_rewrite_a_placeholder_so_twice_equals_once() {
        let once = server(
            json!({"result": {"a": "/tmp/x at 2026-05-16T12:00:00Z", "b": "<TMP>", "c": "<REQUEST_ID:2>"}}),
        );
        assert_eq!(server(once.clone()), once);
        assert!(is_placeholder("<REQUEST_ID:2>") && is_placeholder("<TIMESTAMP>"));
        assert!(!is_placeholder("<b>bold</b>") && !is_placeholder("<>"));
        assert!(contains_placeholder("Bearer <TOKEN>") && contains_placeholder("a<b<X:1>"));
        assert!(!contains_placeholder("<b>bold</b> <1> <A:b:c>"));
    }
}
