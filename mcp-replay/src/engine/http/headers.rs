//! The standard request headers of the 2026-07-28 era (SEP-2243): `Mcp-Method`,
//! `Mcp-Name` and the `Mcp-Param-*` headers a tool's input schema asks for with
//! `x-mcp-header`, which let an intermediary route a POST without reading its body. The
//! [`bridge`](super::bridge) sends them as a client does; the [`front`](super::front) checks
//! them as a server does.

use crate::data::json::At;
use crate::data::protocol::header::{METHOD, NAME, PARAM_PREFIX};
use crate::data::protocol::Era;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use std::collections::HashMap;

/// `MCP-Protocol-Version` as a header name, made once: a lookup by `&str` parses the name
/// every time.
const PROTOCOL_VERSION: HeaderName =
    HeaderName::from_static(crate::data::protocol::header::PROTOCOL_VERSION);

/// The JSON-RPC error code of a request whose standard headers are missing or disagree
/// with its body ("HeaderMismatch").
pub(super) const HEADER_MISMATCH: i64 = -32020;

const BASE64_PREFIX: &str = "=?base64?";
const BASE64_SUFFIX: &str = "?=";
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The input schemas of the tools a server listed, by name: what says which arguments of a
/// `tools/call` travel as `Mcp-Param-*` headers too.
#[derive(Debug, Default, Clone)]
pub(super) struct ToolSchemas(HashMap<String, Value>);

impl ToolSchemas {
    /// Takes in the tools of a server message when it is a `tools/list` result (a later
    /// listing of a tool replaces an earlier one).
    pub(super) fn learn(&mut self, message: &Value) {
        let Some(Value::Array(tools)) = message.at(&["result", "tools"]) else {
            return;
        };
        for tool in tools {
            if let (Some(name), Some(schema)) = (
                tool.get("name").and_then(Value::as_str),
                tool.get("inputSchema").filter(|s| s.is_object()),
            ) {
                self.0.insert(name.to_owned(), schema.clone());
            }
        }
    }

    /// The tools of every `tools/list` result among `messages`.
    pub(super) fn of<'a>(messages: impl IntoIterator<Item = &'a Value>) -> Self {
        let mut tools = ToolSchemas::default();
        for message in messages {
            tools.learn(message);
        }
        tools
    }

    /// The `Mcp-Param-*` headers a call of `params` (a `tools/call`'s) carries: for each
    /// `x-mcp-header` on a property reached through `properties` alone, the argument's
    /// value when it is a string, number or boolean. None for a tool not listed.
    fn params(&self, params: Option<&Value>) -> Vec<(String, String)> {
        let Some(params) = params else {
            return Vec::new();
        };
        let schema = params
            .get("name")
            .and_then(Value::as_str)
            .and_then(|name| self.0.get(name));
        let (Some(schema), Some(arguments)) = (schema, params.get("arguments")) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (path, header) in annotations(schema) {
            let value = path
                .iter()
                .try_fold(arguments, |value, key| value.get(key))
                .and_then(primitive_text);
            if let Some(value) = value {
                out.push((format!("{PARAM_PREFIX}{header}"), value));
            }
        }
        out
    }
}

/// Every well-formed `x-mcp-header` (a non-empty string) on a property reached from the
/// schema's root through `properties` alone: the property's path and the header's suffix.
fn annotations(schema: &Value) -> Vec<(Vec<&str>, &str)> {
    fn walk<'a>(
        properties: Option<&'a Value>,
        path: &mut Vec<&'a str>,
        out: &mut Vec<(Vec<&'a str>, &'a str)>,
    ) {
        let Some(Value::Object(properties)) = properties else {
            return;
        };
        for (name, schema) in properties {
            path.push(name);
            if let Some(header) = schema.get("x-mcp-header").and_then(Value::as_str) {
                if !header.is_empty() {
                    out.push((path.clone(), header));
                }
            }
            walk(schema.get("properties"), path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema.get("properties"), &mut Vec::new(), &mut out);
    out
}

/// A string, number or boolean as a header carries it; nothing for other values.
fn primitive_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The key of a request's params whose value `Mcp-Name` carries, for the methods that
/// name a tool, prompt, resource or task.
fn name_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// The protocol version a POST speaks: its `MCP-Protocol-Version` header, else the one
/// its `_meta` names.
fn version_of<'a>(headers: &'a HeaderMap, message: &'a Value) -> Option<&'a str> {
    crate::data::protocol::request_version(message)
        .or_else(|| headers.get(PROTOCOL_VERSION).and_then(|v| v.to_str().ok()))
}

/// Whether a POST's standard headers need more of its message than its method and the
/// version its `_meta` names (`named`): from 2026-07-28 on (that version, else the one
/// negotiated, already in `headers`), when [`add_standard`] reads its params.
pub(super) fn is_stateless(named: Option<&str>, headers: &HeaderMap) -> bool {
    named
        .or_else(|| headers.get(PROTOCOL_VERSION).and_then(|v| v.to_str().ok()))
        .is_some_and(|v| Era::of_version(v).is_stateless())
}

/// The version header of a request or notification whose `_meta` names a version
/// (`named`): the version it speaks, whatever an `initialize` before it negotiated, so the
/// header says the same. All [`add_standard`] adds before 2026-07-28.
pub(super) fn add_named_version(named: Option<&str>, headers: &mut HeaderMap) {
    if let Some(value) = named.and_then(|v| HeaderValue::from_str(v).ok()) {
        headers.insert(PROTOCOL_VERSION, value);
    }
}

/// From 2026-07-28 on (the version a request's `_meta` names, else the one negotiated,
/// already in `headers`): `MCP-Protocol-Version` from `_meta`, `Mcp-Method`, `Mcp-Name` for the methods that name a
/// tool, prompt, resource or task, and a `tools/call`'s `Mcp-Param-*` headers as the
/// tool's schema in `tools` asks.
pub(super) fn add_standard(message: Option<&Value>, headers: &mut HeaderMap, tools: &ToolSchemas) {
    let Some(message) = message.filter(|m| m.is_object()) else {
        return;
    };
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return;
    };
    let Some(version) = version_of(headers, message).map(str::to_owned) else {
        return;
    };
    add_named_version(crate::data::protocol::request_version(message), headers);
    if !Era::of_version(&version).is_stateless() {
        return;
    }
    let mut add = |name: &str, value: &str| {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&header_text(value)),
        ) {
            headers.insert(name, value);
        }
    };
    add(METHOD, method);
    let params = message.get("params");
    if let Some(name) = name_key(method)
        .and_then(|key| params.and_then(|p| p.get(key)))
        .and_then(Value::as_str)
    {
        add(NAME, name);
    }
    if method == "tools/call" {
        for (header, value) in tools.params(params) {
            add(&header, &value);
        }
    }
}

/// What a server of the 2026-07-28 era refuses in a POST's standard headers: a missing
/// `Mcp-Method` or `Mcp-Name`, one that disagrees with the body, or a `tools/call`'s
/// `Mcp-Param-*` header missing, unasked for or different from its argument (the tool's
/// schema from `tools`). `Ok` before that era, for a response, and for `initialize` unless
/// it names another method.
pub(super) fn check_standard(
    headers: &HeaderMap,
    message: &Value,
    tools: &ToolSchemas,
) -> Result<(), String> {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Ok(());
    };
    if version_of(headers, message).is_none_or(|v| !Era::of_version(v).is_stateless()) {
        return Ok(());
    }
    match header(headers, "Mcp-Method")? {
        None if method == "initialize" => return Ok(()),
        None => return Err("the Mcp-Method header is missing".into()),
        Some(value) if value != method => {
            return Err(format!(
                "the Mcp-Method header `{value}` does not match the body's method `{method}`"
            ))
        }
        Some(_) if method == "initialize" => return Ok(()),
        Some(_) => {}
    }
    let params = message.get("params");
    if let Some(expected) = name_key(method)
        .and_then(|key| params.and_then(|p| p.get(key)))
        .and_then(Value::as_str)
    {
        match header(headers, "Mcp-Name")? {
            None => return Err(format!("the Mcp-Name header is missing for `{method}`")),
            Some(value) if value != expected => {
                return Err(format!(
                    "the Mcp-Name header `{value}` does not match the body's `{expected}`"
                ))
            }
            Some(_) => {}
        }
    }
    if method == "tools/call" {
        check_params(headers, params, tools)?;
    }
    Ok(())
}

/// The `Mcp-Param-*` part of [`check_standard`].
fn check_params(
    headers: &HeaderMap,
    params: Option<&Value>,
    tools: &ToolSchemas,
) -> Result<(), String> {
    let expected = tools.params(params);
    for (name, value) in &expected {
        match header(headers, name)? {
            None => return Err(format!("the {} header is missing", display(name))),
            Some(sent) if &sent != value => {
                return Err(format!(
                    "the {} header `{sent}` does not match the argument `{value}`",
                    display(name)
                ))
            }
            Some(_) => {}
        }
    }
    let known = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .is_some_and(|name| tools.0.contains_key(name));
    if known {
        for name in headers.keys() {
            let unasked = name.as_str().starts_with(PARAM_PREFIX)
                && !expected
                    .iter()
                    .any(|(e, _)| e.eq_ignore_ascii_case(name.as_str()));
            if unasked {
                return Err(format!(
                    "the {} header names no argument of the call (absent, null, or not \
                     annotated with x-mcp-header)",
                    display(name.as_str())
                ));
            }
        }
    }
    Ok(())
}

/// A header name as the spec writes it (`Mcp-Param-region` for `mcp-param-region`; the
/// rest as the schema or the request spelled it).
fn display(name: &str) -> String {
    match name.get(..PARAM_PREFIX.len()) {
        Some(prefix) if prefix.eq_ignore_ascii_case(PARAM_PREFIX) => {
            format!("Mcp-Param-{}", &name[PARAM_PREFIX.len()..])
        }
        _ => name.to_owned(),
    }
}

/// A header's value, decoded from `=?base64?...?=`; an error for one that is not text or
/// not valid Base64, or that is given twice.
fn header(headers: &HeaderMap, name: &str) -> Result<Option<String>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(format!("the {} header is given twice", display(name)));
    }
    let text = value
        .to_str()
        .map_err(|_| format!("the {} header is not text", display(name)))?;
    match text
        .strip_prefix(BASE64_PREFIX)
        .and_then(|t| t.strip_suffix(BASE64_SUFFIX))
    {
        Some(encoded) => base64_decode(encoded)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(Some)
            .ok_or_else(|| format!("the {} header is not valid Base64", display(name))),
        None => Ok(Some(text.to_owned())),
    }
}

/// A header value as SEP-2243 writes it: as it is when it is plain printable ASCII
/// without surrounding blanks, else `=?base64?...?=`.
pub(super) fn header_text(text: &str) -> String {
    // A plain value that looks encoded would be decoded by the server.
    let looks_encoded = text.starts_with(BASE64_PREFIX) && text.ends_with(BASE64_SUFFIX);
    let plain = text.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !text.starts_with([' ', '\t'])
        && !text.ends_with([' ', '\t'])
        && !looks_encoded;
    if plain {
        return text.to_owned();
    }
    let mut out = String::from(BASE64_PREFIX);
    for chunk in text.as_bytes().chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out.push_str(BASE64_SUFFIX);
    out
}

/// Standard Base64 (with padding) to bytes; `None` when it is not.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (index, chunk) in bytes.chunks(4).enumerate() {
        let last = index + 1 == bytes.len() / 4;
        let pad = chunk.iter().rev().take_while(|&&b| b == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for (i, &b) in chunk[..4 - pad].iter().enumerate() {
            let sextet = ALPHABET.iter().position(|&a| a == b)? as u32;
            n |= sextet << (18 - 6 * i);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn headers_of(message: &Value, negotiated: Option<&str>, tools: &ToolSchemas) -> Vec<String> {
        let mut headers = HeaderMap::new();
        if let Some(v) = negotiated {
            headers.insert(PROTOCOL_VERSION, HeaderValue::from_str(v).unwrap());
        }
        add_standard(Some(message), &mut headers, tools);
        let mut out: Vec<String> = headers
            .iter()
            .map(|(k, v)| format!("{k}: {}", v.to_str().unwrap()))
            .collect();
        out.sort();
        out
    }

    fn region_tool() -> ToolSchemas {
        ToolSchemas::of([&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{
            "name": "query",
            "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "opts": {"type": "object", "properties": {
                    "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
                }},
                "sql": {"type": "string"},
                "limit": {"type": "integer", "x-mcp-header": "Limit"}
            }}
        }]}})])
    }

    #[test]
    fn standard_headers_from_2026_07_28() {
        let none = ToolSchemas::default();
        let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}});
        assert_eq!(
            headers_of(&call, None, &none),
            [
                "mcp-method: tools/call",
                "mcp-name: echo",
                "mcp-protocol-version: 2026-07-28"
            ]
        );
        // The version the request names in its `_meta` wins over what an `initialize`
        // negotiated: a server refuses a header that says otherwise (rmcp: "does not
        // match request _meta protocolVersion").
        assert_eq!(
            headers_of(&call, Some("2025-11-25"), &none),
            [
                "mcp-method: tools/call",
                "mcp-name: echo",
                "mcp-protocol-version: 2026-07-28"
            ]
        );
        // A request of an older era (no version in its `_meta`): the negotiated one only.
        let legacy = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}});
        assert_eq!(
            headers_of(&legacy, Some("2025-11-25"), &none),
            ["mcp-protocol-version: 2025-11-25"]
        );
        let read =
            json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///é"}});
        assert_eq!(
            headers_of(&read, Some("2026-07-28"), &none),
            [
                "mcp-method: resources/read",
                "mcp-name: =?base64?ZmlsZTovLy/DqQ==?=",
                "mcp-protocol-version: 2026-07-28"
            ]
        );
        assert_eq!(header_text(" a"), "=?base64?IGE=?=");
        assert_eq!(header_text("ab"), "ab");
        assert_eq!(header_text("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
    }

    /// As rmcp's client sends them: an annotated argument that is present and primitive,
    /// nested ones too; nothing for an absent or null one, or a tool never listed.
    #[test]
    fn param_headers_follow_the_listed_schema() {
        let tools = region_tool();
        let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query",
            "arguments":{"region":"eu west ","opts":{"dry":true},"sql":"select 1","limit":null}}});
        assert_eq!(
            headers_of(&call, Some("2026-07-28"), &tools),
            [
                "mcp-method: tools/call",
                "mcp-name: query",
                "mcp-param-dry-run: true",
                "mcp-param-region: =?base64?ZXUgd2VzdCA=?=",
                "mcp-protocol-version: 2026-07-28"
            ]
        );
        let unlisted = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other","arguments":{"region":"x"}}});
        assert_eq!(
            headers_of(&unlisted, Some("2026-07-28"), &tools),
            [
                "mcp-method: tools/call",
                "mcp-name: other",
                "mcp-protocol-version: 2026-07-28"
            ]
        );
    }

    #[test]
    fn the_checks_a_server_makes() {
        let tools = region_tool();
        let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query",
            "arguments":{"region":"eu-west","limit":5}}});
        let check = |pairs: &[(&str, &str)]| {
            let mut headers = HeaderMap::new();
            for (k, v) in pairs {
                headers.append(
                    HeaderName::from_bytes(k.as_bytes()).unwrap(),
                    HeaderValue::from_str(v).unwrap(),
                );
            }
            check_standard(&headers, &call, &tools)
        };
        let v = ("mcp-protocol-version", "2026-07-28");
        let m = ("mcp-method", "tools/call");
        let n = ("mcp-name", "query");
        let r = ("mcp-param-region", "eu-west");
        let l = ("mcp-param-limit", "5");
        assert_eq!(check(&[v, m, n, r, l]), Ok(()));
        assert_eq!(
            check(&[v, m, n, ("mcp-param-region", "=?base64?ZXUtd2VzdA==?="), l]),
            Ok(())
        );
        // Before the era nothing is required.
        assert_eq!(check(&[("mcp-protocol-version", "2025-11-25")]), Ok(()));
        assert_eq!(
            check(&[v, n, r, l]).unwrap_err(),
            "the Mcp-Method header is missing"
        );
        assert_eq!(
            check(&[v, ("mcp-method", "tools/list"), n, r, l]).unwrap_err(),
            "the Mcp-Method header `tools/list` does not match the body's method `tools/call`"
        );
        assert_eq!(
            check(&[v, m, r, l]).unwrap_err(),
            "the Mcp-Name header is missing for `tools/call`"
        );
        assert_eq!(
            check(&[v, m, n, l]).unwrap_err(),
            "the Mcp-Param-Region header is missing"
        );
        assert_eq!(
            check(&[v, m, n, ("mcp-param-region", "us"), l]).unwrap_err(),
            "the Mcp-Param-Region header `us` does not match the argument `eu-west`"
        );
        assert!(check(&[v, m, n, r, l, ("mcp-param-dry-run", "true")])
            .unwrap_err()
            .starts_with("the Mcp-Param-dry-run header names no argument"));
        assert_eq!(
            check(&[v, m, n, ("mcp-param-region", "=?base64?%%%%?="), l]).unwrap_err(),
            "the Mcp-Param-Region header is not valid Base64"
        );
        assert_eq!(
            check(&[v, m, m, n, r, l]).unwrap_err(),
            "the Mcp-Method header is given twice"
        );
    }

    #[test]
    fn base64_round_trips() {
        for text in ["", "a", "ab", "abc", "abcd", "é ü", " lead", "=?base64?x?="] {
            let encoded = header_text(text);
            let inner = encoded
                .strip_prefix(BASE64_PREFIX)
                .and_then(|t| t.strip_suffix(BASE64_SUFFIX));
            if let Some(inner) = inner {
                assert_eq!(base64_decode(inner).unwrap(), text.as_bytes(), "{text:?}");
            }
        }
        assert_eq!(base64_decode("YQ=="), Some(b"a".to_vec()));
        assert_eq!(base64_decode("YQ="), None);
        assert_eq!(base64_decode("Y==="), None);
        assert_eq!(base64_decode("YQ==YQ=="), None);
    }
}
