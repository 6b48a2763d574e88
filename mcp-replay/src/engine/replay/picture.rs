//! The timeline of a session, for its picture (`html/`), as the session records it: kept
//! only when the settings ask for it ([`Settings::timeline`](crate::options::Settings)),
//! every line written and every arrival at the instant the session was given. A session
//! that keeps no timeline has no [`Picture`], and each place that would record into one
//! only tests that it is absent. When the session concludes, `timeline.rs` resolves it
//! into what the page shows.

use crate::engine::transport::Incoming;
use crate::findings::timeline::{Event, Side, Timeline, What};
use serde_json::Value;
use std::time::Instant;

/// What a session recorded for its timeline, not yet resolved.
pub(super) struct Picture {
    pub(super) start: Instant,
    pub(super) events: Vec<Event>,
    /// Per event: the session's count of sends and arrivals it had (a fixture line sent,
    /// a server message taken), to find it in the ledger and among the arrivals.
    pub(super) seqs: Vec<Option<u64>>,
    /// Per event: a server message as normalized, to find the findings about it.
    pub(super) values: Vec<Option<Value>>,
    pub(super) dropped: usize,
}

impl Picture {
    pub(super) fn new(start: Instant) -> Picture {
        Picture {
            start,
            events: Vec::new(),
            seqs: Vec::new(),
            values: Vec::new(),
            dropped: 0,
        }
    }

    fn push(&mut self, at: Instant, side: Side, what: What, text: String) -> Option<&mut Event> {
        if self.events.len() >= Timeline::MAX_EVENTS {
            self.dropped += 1;
            return None;
        }
        self.events.push(Event {
            at: at.saturating_duration_since(self.start),
            side,
            what,
            text,
            entry: None,
            own: None,
            span: None,
            findings: Vec::new(),
        });
        self.seqs.push(None);
        self.values.push(None);
        self.events.last_mut()
    }

    /// A line written to the server: fixture entry `entry` (at `seq`), or the harness's
    /// own line `own`.
    pub(super) fn sent(
        &mut self,
        at: Instant,
        bytes: &[u8],
        entry: Option<usize>,
        own: Option<&str>,
        seq: u64,
    ) {
        let text = String::from_utf8_lossy(bytes).into_owned();
        if let Some(event) = self.push(at, Side::Client, What::Message, text) {
            event.entry = entry;
            event.own = own.map(str::to_owned);
            if entry.is_some() {
                *self.seqs.last_mut().expect("pushed") = Some(seq);
            }
        }
    }

    /// A server message taken at `seq` (`None`: one the session did not judge), as it
    /// came (`text`) and as normalized.
    pub(super) fn received(
        &mut self,
        at: Instant,
        seq: Option<u64>,
        text: String,
        normalized: Value,
    ) {
        if self.push(at, Side::Server, What::Message, text).is_some() {
            *self.seqs.last_mut().expect("pushed") = seq;
            *self.values.last_mut().expect("pushed") = Some(normalized);
        }
    }

    /// What the server sent that the session takes without judging it (`note` says why:
    /// the answer to the harness's own session setup, what came after the replay stopped).
    pub(super) fn unjudged(&mut self, at: Instant, event: &Incoming, note: &str) {
        let text = match event {
            Incoming::Message(message) => message.to_string(),
            Incoming::Response(fast) => fast.text.clone(),
            Incoming::Setup { text, .. } => text.clone(),
            Incoming::Invalid { excerpt, .. } => return self.stray(at, excerpt.clone()),
            Incoming::Closed(_) => return self.closed(at, Side::Server),
        };
        if let Some(event) = self.push(at, Side::Server, What::Message, text) {
            event.own = Some(note.to_owned());
        }
    }

    /// A line of the server's that is not a JSON-RPC message.
    pub(super) fn stray(&mut self, at: Instant, text: String) {
        self.push(at, Side::Server, What::Stray, text);
    }

    /// The harness closed the server's input, or the server its output.
    pub(super) fn closed(&mut self, at: Instant, side: Side) {
        let what = match side {
            Side::Client => What::InputClosed,
            Side::Server => What::OutputClosed,
        };
        self.push(at, side, what, String::new());
    }
}
