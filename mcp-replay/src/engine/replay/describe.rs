//! How findings and the trace name fixture entries and live messages.

use crate::data::fixture::{Entry, MessageKind};
use serde_json::Value;
use std::time::Duration;

/// `message` with its `id` set to `id` (a fixture label), when it has one.
pub(super) fn relabel(mut message: Value, id: Option<&Value>) -> Value {
    if let (Some(slot), Some(id)) = (message.get_mut("id"), id) {
        *slot = id.clone();
    }
    message
}

pub(super) fn describe(entry: &Entry) -> String {
    match entry.kind() {
        MessageKind::Response => format!(
            "response {}",
            entry.id().map(|v| v.to_string()).unwrap_or_default()
        ),
        MessageKind::Request => format!("request `{}`", entry.method().unwrap_or("?")),
        MessageKind::Notification => format!("`{}`", entry.method().unwrap_or("?")),
    }
}

/// A client request of the fixture: `` `tools/call add_note` (line 5) ``, with the tool,
/// prompt or resource it is about.
pub(super) fn describe_request(entry: &Entry) -> String {
    format!("`{}` (line {})", entry.request_name(), entry.line())
}

/// A request the replay sent: `` `tools/call add_note` (line 5, sent as id 3) ``.
pub(super) fn describe_sent(entry: &Entry, live: i64) -> String {
    format!(
        "`{}` (line {}, sent as id {live})",
        entry.request_name(),
        entry.line()
    )
}

pub(super) fn describe_message(message: &Value) -> String {
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some(method), Some(_)) => format!("request `{method}`"),
        (Some(method), None) => format!("`{method}`"),
        (None, Some(id)) => format!("response {id}"),
        (None, None) => "a message".into(),
    }
}

pub(super) fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}
