//! Turns the client may take out of the recorded order: its answers to the mock's
//! requests and its own requests are two streams that promise no order between them, and
//! from 2026-07-28 on over HTTP a cancellation is a stream the client closes, not a
//! message it sends.

use super::shape::{same_forged_state, strip_sdk_meta};
use super::Mock;
use crate::data::fixture::{Direction, Entry, MessageKind};
use crate::data::json::json_eq;
use crate::findings::report::{Mismatch, MismatchKind};
use serde_json::Value;

impl Mock<'_> {
    /// A client's answers to the server's requests and its own requests are two streams
    /// that promise no order between them (an SDK answers a server request when its
    /// handler is done, which may be before or after its next call). An answer that comes
    /// before its turn is compared with its own recorded line, which is then passed over;
    /// a request that comes while only answers (or, over HTTP from 2026-07-28 on, a
    /// cancellation the client makes by closing a stream) are still due before it goes
    /// ahead of them, and they are taken when they come. `true` when `message` was an
    /// answer taken here.
    pub(super) fn out_of_turn(
        &mut self,
        kind: MessageKind,
        live_id: Option<&Value>,
        message: &mut Value,
    ) -> bool {
        let entries = self.fixture.entries();
        if kind == MessageKind::Notification && self.owed_cancellation(message) {
            return true;
        }
        if kind != MessageKind::Response {
            // Only answers due before the next client message: go ahead of them. So does a
            // cancellation the client makes by closing a stream.
            let due = |e: &Entry| {
                e.direction() == Direction::ClientToServer
                    && (e.kind() == MessageKind::Response || self.closes_instead(e))
            };
            let ahead = (self.position..entries.len())
                .find(|&i| !due(&entries[i]) && !self.skipped.contains(&i));
            if let Some(next) = ahead.filter(|&next| {
                next > self.position && entries[next].direction() == Direction::ClientToServer
            }) {
                self.owed.extend(self.position..next);
                self.position = next;
            }
            return false;
        }
        let Some(answer) = live_id.and_then(|id| self.answer_entry(id)) else {
            return false;
        };
        let early = answer > self.position && !self.skipped.contains(&answer);
        if answer == self.position || !(early || self.owed.remove(&answer)) {
            return false;
        }
        let entry = entries[answer].clone();
        let wanted = self.as_recorded(&entry, kind, message);
        self.compare_answer(&entry, &wanted, message);
        self.skipped.insert(answer);
        true
    }

    /// Whether the client makes recorded `entry` by closing a stream rather than sending
    /// it: a `notifications/cancelled` from 2026-07-28 on over HTTP, where the client
    /// cancels a request by closing its stream (the fixture holds the stdio form). The
    /// mock does not wait for it: what the recording has after it is served at once, and
    /// the message is taken if it comes after all.
    pub(super) fn closes_instead(&self, entry: &Entry) -> bool {
        self.faults.over_http
            && self.stateless
            && entry.direction() == Direction::ClientToServer
            && entry.method() == Some("notifications/cancelled")
    }

    /// A cancellation the mock did not wait for ([`Mock::closes_instead`]) that the
    /// client sent after all: taken (`true`) if it is as recorded.
    fn owed_cancellation(&mut self, message: &Value) -> bool {
        if message.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
            return false;
        }
        let entries = self.fixture.entries();
        let owed = self
            .owed
            .iter()
            .copied()
            .filter(|&i| self.closes_instead(&entries[i]))
            .min();
        let Some(i) = owed else {
            return false;
        };
        let entry = entries[i].clone();
        let mut sent = message.clone();
        let wanted = self.as_recorded(&entry, MessageKind::Notification, &mut sent);
        json_eq(&wanted, &sent) && self.owed.remove(&i)
    }

    /// `message` (of `kind`) written as `entry` would have it, to compare with it: the
    /// entry's label for its id, the client's own values labelled and bound, the SDK's
    /// own `_meta` left out; and what `entry` recorded, alike.
    pub(super) fn as_recorded(
        &mut self,
        entry: &Entry,
        kind: MessageKind,
        message: &mut Value,
    ) -> Value {
        if let Some(label) = entry.id() {
            if message.get("id").is_some() && kind == entry.kind() {
                message["id"] = label.clone();
            }
        }
        self.label_client_values(entry, message);
        strip_sdk_meta(message);
        let mut wanted = self.recorded(entry);
        self.bindings.bind_from(&wanted, message);
        strip_sdk_meta(&mut wanted);
        same_forged_state(&wanted, message);
        wanted
    }

    /// The client's answer to one of the mock's requests (`entry`, recorded as `wanted`):
    /// a different decision is a finding, and the exchange goes on either way.
    pub(super) fn compare_answer(&mut self, entry: &Entry, wanted: &Value, message: &Value) {
        if !json_eq(wanted, message) {
            self.fail(
                Mismatch::new(
                    MismatchKind::Result,
                    Some(entry.line()),
                    "the client answered the server's request differently from the recording",
                )
                .compare(wanted, message),
            );
        }
    }

    /// The recorded client answer entry to the server request the mock sent as `id`.
    fn answer_entry(&self, id: &Value) -> Option<usize> {
        let (&request, _) = self.server_live.iter().find(|(_, live)| *live == id)?;
        self.fixture.entries().iter().position(|e| {
            e.direction() == Direction::ClientToServer && e.answers() == Some(request)
        })
    }
}
