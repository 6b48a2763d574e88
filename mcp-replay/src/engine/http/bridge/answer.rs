//! What a reader of an answer knows of its request, and how each server message it reads
//! goes to the pipe.

use super::outgoing::{Outgoing, What};
use super::Shared;
use crate::data::fixture::ResumePoint;
use crate::data::json::At;
use http::header::HeaderValue;
use serde_json::Value;

/// What an answer's reader knows of its request.
pub(super) struct Answer {
    /// The request (its id, its method) and how problems name the POST.
    pub(super) what: What,
    /// Where to drop the stream and resume it (by progress count, ascending).
    pub(super) resume: Vec<ResumePoint>,
    /// The session a resuming GET names.
    pub(super) session: Option<HeaderValue>,
}

impl Answer {
    /// The request's id: the answer must hold its response. `None` for the GET stream,
    /// which answers no request and stays open.
    pub(super) fn id(&self) -> Option<&Value> {
        match self.what.outgoing() {
            Outgoing::Request { id, .. } => Some(id),
            _ => None,
        }
    }

    /// Whether it answers `initialize` (whose result names the protocol version).
    fn initialize(&self) -> bool {
        self.what.outgoing().is_initialize()
    }

    /// Whether `message` is the response to this answer's request.
    pub(super) fn is_answered_by(&self, message: &Value) -> bool {
        self.answered(message.get("id"), message.get("method").is_some())
    }

    /// Whether a message with this `id` (and a method or none) is the response.
    fn answered(&self, id: Option<&Value>, has_method: bool) -> bool {
        !has_method
            && id
                .zip(self.id())
                .is_some_and(|(id, asked)| crate::data::json::json_eq(id, asked))
    }

    /// The GET stream: no request to answer, open until the session ends.
    pub(super) fn stream() -> Answer {
        Answer {
            what: What::Stream,
            resume: Vec::new(),
            session: None,
        }
    }
}

/// How an answer that could be read to its end went.
pub(super) struct Read {
    /// Whether it held the response to the request.
    pub(super) answered: bool,
    /// The event id the stream was last resumed after, if it was.
    pub(super) resumed: Option<String>,
}

/// Writes one server message to the pipe (its own text when that is one line, else
/// re-serialized), noting the protocol version an `initialize` result negotiates. Returns
/// whether it is the response to the request.
pub(super) fn forward(
    shared: &Shared,
    answer: &Answer,
    message: Value,
    text: Option<&[u8]>,
) -> bool {
    let is_response = answer.is_answered_by(&message);
    if is_response && answer.initialize() {
        let version = message
            .at(&["result", "protocolVersion"])
            .and_then(Value::as_str)
            .and_then(|v| HeaderValue::from_str(v).ok());
        *shared
            .protocol_version
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = version;
    }
    if is_response {
        // A tools/list result: the schemas of later calls' Mcp-Param-* headers (learnt
        // before the engine reads it, so before it sends the call).
        shared
            .tools
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .learn(&message);
    }
    let line = crate::engine::transport::one_line(text, &message);
    let _ = shared.lines.send(line);
    is_response
}

/// A `tools/list` result holds it.
static TOOLS: crate::data::needle::Needle = crate::data::needle::Needle::new("\"tools\"");

/// The members of a server message an SSE event's reader looks at, read without a tree.
#[derive(serde::Deserialize)]
struct Peek<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(borrow, default)]
    method: Option<super::outgoing::Text<'a>>,
}

/// What [`forward_text`] read of a message.
pub(super) struct Forwarded {
    /// It is the response to the answer's request.
    pub(super) is_response: bool,
    /// It is a `notifications/progress`.
    pub(super) progress: bool,
}

/// [`forward`] for a message as text (an SSE event's data): most messages are only
/// peeked at (id, method) and go to the pipe as they came, without a copy; one that needs
/// its tree (the answer to `initialize`, a listing of tools, a text of several lines) is
/// parsed whole. `Err` when the text is not JSON, with the text.
pub(super) fn forward_text(
    shared: &Shared,
    answer: &Answer,
    text: String,
) -> Result<Forwarded, (serde_json::Error, String)> {
    let peek: Peek<'_> = match serde_json::from_str(&text) {
        Ok(peek) => peek,
        Err(error) => return Err((error, text)),
    };
    let progress = peek.method.as_ref().map(|m| &*m.0) == Some("notifications/progress");
    let is_response = answer.answered(peek.id.as_ref(), peek.method.is_some());
    drop(peek);
    let whole = (is_response && (answer.initialize() || TOOLS.is_in(&text)))
        || memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_some();
    if whole {
        let message: Value = match serde_json::from_str(&text) {
            Ok(message) => message,
            Err(error) => return Err((error, text)),
        };
        let is_response = forward(shared, answer, message, Some(text.as_bytes()));
        return Ok(Forwarded {
            is_response,
            progress,
        });
    }
    let _ = shared.lines.send(text.into_bytes());
    Ok(Forwarded {
        is_response,
        progress,
    })
}
