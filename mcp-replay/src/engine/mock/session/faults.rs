//! Faults on cue in the mock's core: where a served answer meets the fault that hits it
//! (`data/faults.rs` decides which), and what the report says of each with what the
//! client did next.

use super::{Action, Mock};
use crate::data::fixture::{Entry, MessageKind};
use serde_json::Value;
use std::time::Duration;

/// The mock's faults on cue in one owner: the plan (with the state of its counts and
/// draws), each fault injected with what the client did next, and the orders for the HTTP
/// front of the faults only HTTP has.
pub(super) struct FaultState {
    /// The faults to inject (`data/faults.rs`); `None` without any.
    pub(super) plan: Option<crate::data::faults::Faults>,
    /// Each fault injected, the live id of the request it answered, and what the client
    /// did next (`None`: nothing yet).
    pub(super) injected: Vec<(super::super::Injected, Option<Value>, Option<String>)>,
    /// The front carries out the faults only HTTP has (`Mock::http`).
    pub(super) over_http: bool,
    /// The orders for the front of the queued messages of [`Action::Http`], in order.
    pub(super) http_orders: std::collections::VecDeque<Value>,
}

impl Mock<'_> {
    /// Queues a served message, as a fault on cue makes it (`data/faults.rs` decides): a
    /// response may come later, as an error, twice, or not at all, and the fault is noted
    /// for the report with what the client does next.
    pub(super) fn push_served(&mut self, entry: &Entry, message: Value, pause: Option<Duration>) {
        // Without faults the request is not even read: a mock without them costs what it
        // did before they existed.
        let request = match &self.faults.plan {
            Some(_) => entry
                .answers()
                .filter(|_| entry.kind() == MessageKind::Response)
                .map(|r| self.fixture.entries()[r].message()),
            None => None,
        };
        let fault = match (&mut self.faults.plan, &request) {
            (Some(faults), Some(request)) => faults.decide(entry.line(), request),
            _ => None,
        };
        let (Some(fault), Some(request)) = (fault, request) else {
            self.outgoing.push((message, pause, Action::Send));
            return;
        };
        let live_id = message.get("id").cloned();
        let mut fault_note = crate::data::faults::injected(entry.line(), &request, &fault);
        let action = match fault {
            crate::data::faults::Fault::Malformed => Action::Malformed,
            crate::data::faults::Fault::Close => Action::Close,
            crate::data::faults::Fault::Reorder => {
                // The notifications queued just before the answer go after it.
                let moved = self.notifications_before();
                if moved.is_empty() {
                    fault_note.what.push_str(" (none was recorded there)");
                }
                self.outgoing.push((message, pause, Action::Send));
                self.outgoing.extend(moved);
                self.faults.injected.push((fault_note, live_id, None));
                return;
            }
            crate::data::faults::Fault::Status(_) if self.faults.over_http => {
                // A status answers the request's POST: what the server recorded for the
                // request's stream before its answer is not sent either.
                let dropped = self.notifications_before().len();
                match dropped {
                    0 => {}
                    1 => fault_note
                        .what
                        .push_str(" (and the notification before it)"),
                    n => fault_note
                        .what
                        .push_str(&format!(" (and the {n} notifications before it)")),
                }
                self.faults
                    .http_orders
                    .push_back(crate::data::faults::to_json(&fault));
                Action::Http
            }
            _ if fault.is_http_only() && self.faults.over_http => {
                self.faults
                    .http_orders
                    .push_back(crate::data::faults::to_json(&fault));
                Action::Http
            }
            _ if fault.is_http_only() => {
                fault_note
                    .what
                    .push_str(" (a fault of HTTP's: served as recorded here)");
                Action::Send
            }
            _ => Action::Send,
        };
        let (sent, delay) = crate::data::faults::apply(&fault, message);
        let pause = match (pause, delay) {
            (Some(p), Some(d)) => Some(p + d),
            (p, d) => p.or(d),
        };
        for message in sent {
            self.outgoing.push((message, pause, action));
        }
        self.faults.injected.push((fault_note, live_id, None));
    }

    /// What the client did after the faults not yet answered for: `message`, the next
    /// thing it sent.
    pub(super) fn after_fault(&mut self, message: &Value) {
        for (injected, live_id, next) in &mut self.faults.injected {
            if next.is_some() {
                continue;
            }
            let method = message.get("method").and_then(Value::as_str);
            let name = message.pointer("/params/name").and_then(Value::as_str);
            let what = match (method, name) {
                (Some(m), Some(n)) => format!("`{m} {n}`"),
                (Some(m), None) => format!("`{m}`"),
                (None, _) => "an answer".to_owned(),
            };
            let again = method.is_some_and(|m| injected.request.starts_with(m))
                && name.is_none_or(|n| injected.request.ends_with(n));
            let id = message.get("id");
            // After an answer it got, the same request again is the client's next one.
            let again = again && !injected.answered;
            *next = Some(match (again, id) {
                (true, Some(id)) if Some(id) == live_id.as_ref() => {
                    format!("the client sent {what} again under the same id")
                }
                (true, Some(_)) => format!("the client sent {what} again under a new id (a retry)"),
                _ if method == Some("notifications/cancelled") => {
                    "the client cancelled the request".to_owned()
                }
                _ => format!("the client went on with {what}"),
            });
        }
    }

    /// The report's notes on the faults injected: where, what, and what the client did next.
    pub(super) fn fault_notes(&self) -> Vec<String> {
        self.faults
            .injected
            .iter()
            .map(|(injected, _, next)| {
                format!(
                    "fault injected at line {} (`{}`): {}; then {}",
                    injected.line,
                    injected.request,
                    injected.what,
                    next.as_deref().unwrap_or("the client sent nothing more")
                )
            })
            .collect()
    }

    /// Takes the notifications queued just before the answer being queued (the run of
    /// messages without an id at the end of what is queued).
    fn notifications_before(&mut self) -> Vec<(Value, Option<Duration>, Action)> {
        let at = self.outgoing.len()
            - self
                .outgoing
                .iter()
                .rev()
                .take_while(|(m, _, _)| m.get("id").is_none())
                .count();
        self.outgoing.drain(at..).collect()
    }
}
