//! `MCP_REPLAY_TRACE=1` (or [`Options::trace`](crate::Options::trace), or the command's
//! `--trace`): every live message as it passes, with the milliseconds since the replay
//! started, its direction, its method or id, and the fixture line it matched or why not.
//! The session core writes it into a buffer, at the instants it is given; its I/O shell
//! prints the buffer to stderr as it goes, so `cargo test` shows it for a failing test only.

use crate::data::fixture::{Entry, MessageKind};
use crate::normalize::secrets::mask_text;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::fmt::{Display, Write as _};
use std::time::Instant;

/// The trace of one replay; does nothing (and builds no text) when off.
pub(crate) struct Trace {
    on: bool,
    start: Instant,
    /// The instant of what the session is handling now.
    now: Cell<Instant>,
    /// Written, not yet printed.
    out: RefCell<String>,
    source: String,
}

impl Trace {
    pub fn new(on: bool, source: &str, start: Instant) -> Trace {
        let out = if on {
            format!("mcp-replay trace: {}\n", mask_text(source))
        } else {
            String::new()
        };
        Trace {
            on,
            start,
            now: Cell::new(start),
            out: RefCell::new(out),
            source: source.to_owned(),
        }
    }

    /// The time of the lines written from now on.
    pub fn at(&self, now: Instant) {
        self.now.set(now);
    }

    /// What was written since the last call, to print.
    pub fn take(&self) -> String {
        std::mem::take(&mut *self.out.borrow_mut())
    }

    pub fn on(&self) -> bool {
        self.on
    }

    /// One line: the time, then `what`, with every secret the scanner knows masked (a
    /// trace shows live messages, and CI logs are read by many).
    pub fn line(&self, what: impl Display) {
        if self.on {
            let elapsed = self.now.get().saturating_duration_since(self.start);
            let ms = elapsed.as_secs_f64() * 1000.0;
            let _ = writeln!(
                self.out.borrow_mut(),
                "  {ms:9.1} ms  {}",
                mask_text(&what.to_string())
            );
        }
    }

    /// A fixture message sent, with its live id.
    pub fn sent(&self, entry: &Entry, live: Option<i64>) {
        if !self.on {
            return;
        }
        let id = live.map(|l| format!(" id {l}")).unwrap_or_default();
        let what = match entry.kind() {
            MessageKind::Response => format!("response to server request {}", label(entry.id())),
            MessageKind::Request => format!("`{}`{id}", entry.request_name()),
            MessageKind::Notification => format!("`{}`", entry.method().unwrap_or("?")),
        };
        self.line(format_args!("-> {what} (line {})", entry.line()));
    }

    /// A server message received, and what became of it.
    pub fn received(&self, message: &Value, verdict: impl Display) {
        if self.on {
            self.line(format_args!("<- {}: {verdict}", describe(message)));
        }
    }

    /// The end of the replay.
    pub fn end(&self, findings: usize) {
        if self.on {
            self.line(format_args!(
                "end of {}: {findings} finding(s)",
                self.source
            ));
        }
    }
}

fn label(id: Option<&Value>) -> String {
    id.map(Value::to_string).unwrap_or_default()
}

/// What a message is, for a trace: `request `tools/call` id 3`, `response 3`, `` `notifications/progress` ``.
pub(crate) fn describe(message: &Value) -> String {
    match (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        (Some(method), Some(id)) => format!("request `{method}` id {id}"),
        (Some(method), None) => format!("`{method}`"),
        (None, Some(id)) => format!("response {id}"),
        (None, None) => "a message".into(),
    }
}
