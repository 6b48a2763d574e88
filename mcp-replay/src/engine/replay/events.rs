//! The session's vocabulary: what it asks its shell to do ([`Transmit`]), what it is told
//! ([`WriteError`], [`Ending`]), what it keeps of each arrival ([`Arrival`], [`Rec`]), what it
//! waits for ([`Awaited`], [`Wait`]) and in which [`Phase`]. Data, no decisions: those are
//! the session's (`session.rs`).

use super::ledger::SETUP_ID;
use crate::data::fixture::{Entry, MessageKind};
use crate::engine::transport::Incoming;
use serde_json::Value;
use std::time::{Duration, Instant};

/// What the session asks its shell to do with the server's input.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Transmit {
    /// Write the line in the buffer given to [`Session::poll_transmit`] and flush it.
    Line,
    /// Close the server's input; then report [`Session::input_closed`].
    CloseInput,
}

/// A queued transmit: a line (`None`: the close of the input), the fixture line it is, and
/// what it is, for the finding of a failed write.
pub(super) struct Queued {
    pub(super) bytes: Option<Vec<u8>>,
    pub(super) line: Option<usize>,
    pub(super) what: What,
}

/// What a line written to the server is, named only when its write fails.
#[derive(Debug)]
pub(super) enum What {
    /// Fixture entry `i`.
    Entry(usize),
    Text(String),
}

/// The harness's own handshake, in findings.
pub(super) const SETUP_WHAT: &str =
    "the harness's `initialize` (session setup for a fixture without a handshake)";

/// Why a write to the server failed.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// The server closed its input (the I/O error's text).
    Closed(String),
    /// The server did not read the line within the timeout.
    Stuck,
}

/// How the server ended, as the shell saw it after the session: the facts the last
/// findings are judged from.
#[derive(Debug, Default)]
pub(crate) struct Ending {
    /// The server did not stop within this bound after its input closed.
    pub stuck: Option<Duration>,
    /// How a child process had to be stopped (a signal), if it had to.
    pub forced: Option<String>,
    /// A child process's last lines on stderr (none in process).
    pub stderr: Vec<String>,
}

/// A server notification or server request that arrived.
#[derive(Debug)]
pub(super) struct Arrival {
    pub seq: u64,
    pub kind: MessageKind,
    /// Normalized.
    pub message: Value,
    /// The group it was taken into (`causal::Model::assign`).
    pub group: Option<usize>,
    /// For a server request: the want it was matched with when it came.
    pub fixed: Option<usize>,
    /// It claimed an expected message while the session ran (so that no wait is made for
    /// that one); the pairing at the end is the alignment's.
    pub claimed: bool,
}

/// What the recording of a replay holds, by its place in the session.
pub(super) enum Rec<'f> {
    Server(Value),
    /// A response exactly the fixture's entry (once its id is the entry's label).
    Entry(&'f Entry),
    /// A client entry as sent: normalized with the client rules when the recording is
    /// made (only then, and only when one is: most replays make none).
    Sent(&'f Entry),
    /// A notification or server request: `arrivals[i]`, labelled at the end.
    Arrival(usize),
}

/// What the session waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Awaited {
    /// The expected response entry (its request was sent).
    Response(usize),
    /// The answer to a request the fixture has no response line for: `(live, entry)`.
    Answer(i64, usize),
    /// An expected server request or unsolicited notification (a want); or one tied to a
    /// request, which stops being awaited when that request is answered.
    Want(usize),
    /// A want tied to a request only because that request alone ran when it was recorded:
    /// after the last client message, it is awaited until it or a stand-in came.
    Loose(usize),
    /// A run of task polls (`polls.rs`): awaited until the task reached the run's end.
    Poll(usize),
}

/// Where the session is.
#[derive(Debug)]
pub(super) enum Phase {
    /// Nothing done yet.
    Start,
    /// The harness's own `initialize` was sent; its answer is awaited until `deadline`.
    Setup { deadline: Instant },
    /// Going through the fixture from entry `cursor` on.
    Feed,
    /// Waiting before a client message, or after the last one.
    Waiting(Wait),
    /// After the last wait: what already arrived is taken (the shell hands it over, then
    /// calls `handle_timeout`), then the input is closed.
    Settle { at: Instant },
    /// The server's input is to be closed, once what is queued is written.
    Close,
    /// The input is closed: the output is read to its end, until `deadline` (set when the
    /// shell reports the close).
    Drain { deadline: Option<Instant> },
    /// Nothing more to do but conclude.
    Done,
}

/// One wait: until nothing in `awaited` (nor, with `unanswered`, a request the fixture has
/// no response for) is still to come, or `deadline`.
#[derive(Debug)]
pub(super) struct Wait {
    pub(super) awaited: Vec<Awaited>,
    pub(super) unanswered: bool,
    /// After the last client message.
    pub(super) last: bool,
    pub(super) deadline: Instant,
    /// The latest the deadline may move to while progress comes ([`PROGRESS_CAP`]).
    pub(super) cap: Instant,
    /// The client message entry to send when the wait is over (`None`: the last wait).
    pub(super) then: Option<usize>,
}

/// How long at most an answer to a server request is held back for the lines recorded
/// before it ([`Session::flush_pending`]); a quarter of the timeout if that is less. Long
/// enough for a server's own timer (server-everything asks for roots 350 ms after the
/// handshake, and again if a late answer has not come by then); a server that instead
/// waits for the answer costs this once per answer, and only when it changed.
pub(super) const HOLD: Duration = Duration::from_millis(1000);

/// How many timeouts a wait lasts at most while progress resets its clock (the
/// specification: a client "MAY" reset it, "SHOULD always enforce a maximum timeout").
pub(super) const PROGRESS_CAP: u32 = 10;

/// Is `event` the answer to the harness's own `initialize`: `Ok`, or the error response?
pub(super) fn setup_outcome(event: &Incoming) -> Option<Result<(), Value>> {
    match event {
        Incoming::Setup { text, is_error } => Some(if *is_error {
            Err(serde_json::from_str(text).expect("the framer peeked at JSON"))
        } else {
            Ok(())
        }),
        Incoming::Response(fast) if fast.id == SETUP_ID => Some(if fast.is_error {
            Err(serde_json::from_str(&fast.text).expect("the fast path writes JSON"))
        } else {
            Ok(())
        }),
        Incoming::Message(message)
            if message.get("method").is_none()
                && message.get("id").and_then(Value::as_i64) == Some(SETUP_ID) =>
        {
            Some(match message.get("error") {
                Some(_) => Err(message.clone()),
                None => Ok(()),
            })
        }
        _ => None,
    }
}
