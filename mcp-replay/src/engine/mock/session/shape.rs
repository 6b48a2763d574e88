//! How the mock shapes messages: what it compares of a client's message (without what
//! differs from SDK to SDK), how a finding names one, and what it puts into the answers it
//! writes (a synthesized handshake's identity and capabilities, the defaults the recording
//! dropped). Pure functions of the message.

use crate::data::fixture::Fixture;
use crate::data::json::compact;
use serde_json::{json, Value};

/// A `requestState` the server never sent (a client's forged or stale token, recorded as
/// the client sent it) is opaque: to the server, any other value it never sent is the
/// same. So where the recording has one, a live one the mock never served stands for it
/// (the Python SDK's `mrtr` example flips one character of the token it was served).
pub(super) fn same_forged_state(wanted: &Value, message: &mut Value) {
    let forged = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|s| !crate::normalize::placeholder::contains_placeholder(s))
    };
    if forged(wanted.pointer("/params/requestState"))
        && forged(message.pointer("/params/requestState"))
    {
        message["params"]["requestState"] = wanted["params"]["requestState"].clone();
    }
}

/// What differs from client to client (the identity and capabilities of `initialize` and
/// `_meta`, the progress token SDKs add to every request, an empty `params`) is not part of
/// the contract a client fixture pins: compared without it.
pub(super) fn strip_sdk_meta(message: &mut Value) {
    let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
    let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else {
        return;
    };
    if initialize {
        // Client identity: which client, which version, what it supports.
        for key in ["clientInfo", "protocolVersion", "capabilities"] {
            params.remove(key);
        }
    }
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.remove("progressToken");
        for (key, _) in crate::normalize::IDENTITY_META {
            meta.remove(key);
        }
        if meta.is_empty() {
            params.remove("_meta");
        }
    }
    // `"params": {}` and no params say the same (rmcp's client sends `{}` with a
    // `tools/list` that another SDK sends without params).
    if params.is_empty() {
        if let Some(message) = message.as_object_mut() {
            message.remove("params");
        }
    }
}

/// A client message as a finding names it: a request with its method and params, a
/// notification with its method, or a response.
pub(super) fn describe_incoming(message: &Value) -> String {
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some(method), Some(_)) => format!(
            "request {method} {}",
            compact(message.get("params").unwrap_or(&Value::Null), 200)
        ),
        (Some(method), None) => format!("notification {method}"),
        _ => "a response".into(),
    }
}

/// Who a synthesized handshake says the server is.
pub(super) fn server_info() -> Value {
    json!({"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")})
}

/// The capabilities a synthesized handshake announces: those the recording's messages
/// use (`tools/*` gives `tools`, `resources/subscribe` gives `resources.subscribe`, a log
/// message or `logging/setLevel` gives `logging`, ...), so that a client which checks a
/// capability before it calls finds it.
pub(super) fn capabilities_of(fixture: &Fixture) -> Value {
    let mut capabilities = serde_json::Map::new();
    for entry in fixture.entries() {
        let Some(method) = entry.method() else {
            continue;
        };
        let (name, detail) = match method.split('/').next().unwrap_or_default() {
            "tools" => ("tools", None),
            "prompts" => ("prompts", None),
            "resources" if method == "resources/subscribe" => ("resources", Some("subscribe")),
            "resources" => ("resources", None),
            "logging" => ("logging", None),
            "completion" => ("completions", None),
            "notifications" if method == "notifications/message" => ("logging", None),
            _ => continue,
        };
        let capability = capabilities
            .entry(name)
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let (Some(detail), Value::Object(map)) = (detail, capability) {
            map.insert(detail.into(), Value::Bool(true));
        }
    }
    Value::Object(capabilities)
}

/// A result without `resultType` gets `"complete"`, the default the recording dropped
/// (`result-type-default`): from 2026-07-28 on every result carries it, and the Python SDK
/// client refuses one without it.
pub(super) fn put_back_result_type(message: &mut Value) {
    if let Some(Value::Object(result)) = message.get_mut("result") {
        result
            .entry("resultType")
            .or_insert_with(|| Value::String("complete".into()));
    }
}

/// The results that carry caching hints from 2026-07-28 on (`ttlMs` and `cacheScope` are
/// required there), which the `cache-hints` rule drops from a recording.
pub(super) const CACHEABLE_METHODS: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// A complete result of a [`CACHEABLE_METHODS`] request without its caching hints gets
/// `ttlMs: 0` and `cacheScope: "private"` (stale at once, for this client alone: what the
/// recording cannot promise, it does not), the values rmcp's and the Python SDK's servers
/// fill in. From 2026-07-28 on they are required, and the Python SDK client refuses a
/// result without them. Hints the recording kept (version 1 of the rules) stay.
pub(super) fn put_back_cache_hints(message: &mut Value, method: Option<&str>) {
    if !method.is_some_and(|m| CACHEABLE_METHODS.contains(&m)) {
        return;
    }
    if let Some(Value::Object(result)) = message.get_mut("result") {
        if result
            .get("resultType")
            .is_some_and(|t| t.as_str() != Some("complete"))
        {
            return;
        }
        result.entry("ttlMs").or_insert_with(|| json!(0));
        result
            .entry("cacheScope")
            .or_insert_with(|| Value::String("private".into()));
    }
}
