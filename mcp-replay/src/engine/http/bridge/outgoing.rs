//! What a client line is, read for the bridge at the cost of a peek: its id and method,
//! the protocol version its `_meta` names, and how a problem names the POST that carries it.

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// What a client line is, for the answer it should get.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Outgoing {
    /// A request: answered 200 with its response (JSON or SSE).
    Request { id: Value, method: String },
    /// A notification: answered 202.
    Notification { method: String },
    /// A response to a server request: answered 202.
    Response { id: Value },
    /// Anything else (a batch, not JSON): sent as it is, any 2xx accepted.
    Other,
}

impl Outgoing {
    /// What a parsed message is (`None`: the line is not JSON).
    pub(super) fn classify(message: Option<&Value>) -> Outgoing {
        let Some(Value::Object(message)) = message else {
            return Outgoing::Other;
        };
        let method = message.get("method").and_then(Value::as_str);
        Outgoing::of(message.get("id").cloned(), method)
    }

    fn of(id: Option<Value>, method: Option<&str>) -> Outgoing {
        match (method, id) {
            (Some(method), Some(id)) => Outgoing::Request {
                id,
                method: method.into(),
            },
            (Some(method), None) => Outgoing::Notification {
                method: method.into(),
            },
            (None, Some(id)) => Outgoing::Response { id },
            (None, None) => Outgoing::Other,
        }
    }

    /// Whether it is the `initialize` request.
    pub(super) fn is_initialize(&self) -> bool {
        matches!(self, Outgoing::Request { method, .. } if method == "initialize")
    }

    /// `notifications/initialized`: the session is ready, the GET stream may open.
    pub(super) fn is_initialized(&self) -> bool {
        matches!(self, Outgoing::Notification { method } if method == "notifications/initialized")
    }
}

/// What the bridge sent, as a problem names it. Made into text only when a problem is
/// noted: most POSTs meet none.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum What {
    /// The `n`th POST (counted from 1) and what its line is.
    Post(usize, Outgoing),
    /// The GET stream for the server's own messages.
    Stream,
}

impl What {
    /// What the POSTed line is (`Other` for the GET stream).
    pub(super) fn outgoing(&self) -> &Outgoing {
        match self {
            What::Post(_, outgoing) => outgoing,
            What::Stream => &Outgoing::Other,
        }
    }
}

impl fmt::Display for What {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = match self {
            What::Stream => return f.write_str("GET (the stream for the server's own messages)"),
            What::Post(n, _) => n,
        };
        match self.outgoing() {
            Outgoing::Request { id, method } => write!(f, "POST #{n} (request {id}, {method})"),
            Outgoing::Notification { method } => write!(f, "POST #{n} (notification {method})"),
            Outgoing::Response { id } => write!(f, "POST #{n} (response to server request {id})"),
            Outgoing::Other => write!(f, "POST #{n}"),
        }
    }
}

/// A client line read without building its tree: what it is, and the protocol version
/// its `params._meta` names. `None` for a line the peek does not take (not JSON, not an
/// object, a method or version that is not a string, `params` that is not an object, a
/// repeated member): the caller reads those whole, as any line used to be.
pub(super) struct Peeked {
    /// What the line is.
    pub(super) outgoing: Outgoing,
    /// The version in `params._meta` (`io.modelcontextprotocol/protocolVersion`).
    pub(super) version: Option<String>,
}

impl Peeked {
    /// Peeks at `line`.
    pub(super) fn of(line: &[u8]) -> Option<Peeked> {
        let peek: Peek<'_> = serde_json::from_slice(line).ok()?;
        let version = peek
            .params
            .and_then(|p| p.meta)
            .and_then(|m| m.version)
            .map(|v| v.0.into_owned());
        Some(Peeked {
            outgoing: Outgoing::of(peek.id, peek.method.as_ref().map(|m| &*m.0)),
            version,
        })
    }
}

/// The members of a client line [`Peeked`] reads; serde skips the others without
/// building them.
#[derive(Deserialize)]
struct Peek<'a> {
    /// Present, even as `null`, is an id (as `Value::get` sees it).
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(borrow, default)]
    method: Option<Text<'a>>,
    #[serde(borrow, default)]
    params: Option<Params<'a>>,
}

/// A string member, borrowed from the line unless it holds an escape. (A `Cow` in an
/// `Option` is always owned: serde borrows only a `Cow` it meets as a field of its own.)
#[derive(Deserialize)]
pub(super) struct Text<'a>(#[serde(borrow)] pub(super) Cow<'a, str>);

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<Meta<'a>>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    // `crate::data::protocol::meta::PROTOCOL_VERSION` (a test holds them equal).
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    version: Option<Text<'a>>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The peek agrees with reading the line whole, for every line it takes.
    #[test]
    fn the_peek_agrees_with_the_tree() {
        let version = crate::data::protocol::meta::PROTOCOL_VERSION;
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}),
            json!({"jsonrpc": "2.0", "id": "a\"b", "method": "ping"}),
            json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
            json!({"jsonrpc": "2.0", "params": null}),
            json!({"method": "tools/list", "id": 2, "params": {"_meta": {version: "2026-07-28"}}}),
            json!({"method": "tools/list", "id": 2, "params": {"_meta": {version: null}}}),
            json!({"method": "tools/list", "id": 2, "params": {"_meta": null}}),
            json!({"method": "t\u{e9}/\\x", "id": {"odd": [1]}}),
        ];
        for line in lines {
            let text = serde_json::to_vec(&line).unwrap();
            let peeked = Peeked::of(&text).expect("taken");
            assert_eq!(peeked.outgoing, Outgoing::classify(Some(&line)), "{line}");
            assert_eq!(
                peeked.version.as_deref(),
                crate::data::protocol::request_version(&line),
                "{line}"
            );
        }
    }

    /// What the peek does not take is left to the whole read.
    #[test]
    fn the_peek_leaves_odd_lines_to_the_tree() {
        let version = crate::data::protocol::meta::PROTOCOL_VERSION;
        for line in [
            "not json".to_string(),
            "[1, 2]".to_string(),
            r#"{"id": 1, "method": 5}"#.to_string(),
            r#"{"id": 1, "method": "m", "params": [1]}"#.to_string(),
            format!(r#"{{"id": 1, "method": "m", "params": {{"_meta": {{"{version}": 5}}}}}}"#),
            r#"{"id": 1, "id": 2, "method": "m"}"#.to_string(),
        ] {
            assert!(Peeked::of(line.as_bytes()).is_none(), "{line}");
        }
    }

    #[test]
    fn what_names_the_post() {
        let request = Outgoing::classify(Some(&json!({"id": 3, "method": "ping"})));
        assert_eq!(
            What::Post(2, request).to_string(),
            "POST #2 (request 3, ping)"
        );
        assert_eq!(
            What::Stream.to_string(),
            "GET (the stream for the server's own messages)"
        );
    }
}
