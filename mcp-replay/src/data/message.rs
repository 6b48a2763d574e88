//! Who sent a message and which of JSON-RPC's three shapes it has: the small data types
//! that fixtures, the normalizer, the validator and the replay share. A leaf: it imports
//! nothing of the crate but its error type, so that `normalize/` and `validate.rs` can
//! name a message's side without importing the fixture (which imports them). Public at
//! `mcp_replay::fixture::{Direction, MessageKind}`.

use crate::error::Invalid;
use serde_json::Value;
use std::fmt;

/// Which side sent a fixture message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// A message the client sends: the harness feeds it to the server under test.
    ClientToServer,
    /// A message the server sends: the harness compares it with what the server really sent.
    ServerToClient,
}

impl Direction {
    /// The spelling used in fixture files: `client->server` or `server->client`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client->server",
            Direction::ServerToClient => "server->client",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The three shapes of a JSON-RPC message (MCP has no batches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// Has `method` and `id`: expects a response.
    Request,
    /// Has `method` and no `id`.
    Notification,
    /// Has `id` and `result` or `error`.
    Response,
}

impl MessageKind {
    /// Classifies a parsed message, or says why it is not a JSON-RPC message.
    pub fn of(message: &Value) -> Result<MessageKind, Invalid> {
        MessageKind::classify(message).map_err(Invalid::new)
    }

    fn classify(message: &Value) -> Result<MessageKind, String> {
        let Some(obj) = message.as_object() else {
            return Err("a JSON-RPC message must be a JSON object".into());
        };
        match obj.get("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            Some(other) => return Err(format!("\"jsonrpc\" must be \"2.0\", not {other}")),
            None => return Err("the message has no \"jsonrpc\":\"2.0\"".into()),
        }
        match (obj.get("method"), obj.get("id")) {
            (Some(Value::String(_)), None) => Ok(MessageKind::Notification),
            (Some(Value::String(_)), Some(id)) if valid_id(id) => Ok(MessageKind::Request),
            (Some(Value::String(_)), Some(id)) => Err(format!(
                "a request id must be a string or an integer, not {id}"
            )),
            (Some(other), _) => Err(format!("\"method\" must be a string, not {other}")),
            (None, Some(_)) => match (obj.get("result"), obj.get("error")) {
                (Some(_), None) | (None, Some(_)) => Ok(MessageKind::Response),
                (Some(_), Some(_)) => {
                    Err("a response has \"result\" or \"error\", not both".into())
                }
                (None, None) => Err("a response needs \"result\" or \"error\"".into()),
            },
            (None, None) => Err(
                "not a JSON-RPC request, notification or response: it needs \"method\", \
                 or \"id\" with \"result\" or \"error\""
                    .into(),
            ),
        }
    }
}

fn valid_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some() || id.as_u64().is_some()
}
