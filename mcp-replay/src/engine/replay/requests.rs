//! The server's own requests in a session, as one owner: which expected request each live
//! one was matched with (its live id, the request itself), the client's answers and
//! refusals waiting to be written, and the labels a re-recording gives new ones. Part of
//! the core: no runtime, no clock.

use super::IntMap;
use serde_json::Value;

/// Something to write to the server once the current event is taken.
pub(super) enum Pending {
    /// The client's answer line (entry) to a server request that came.
    Answer(usize),
    Refuse(Value),
}

/// The server requests of one session.
#[derive(Default)]
pub(super) struct ServerRequests {
    /// Answers to server requests and refusals to send once the current event is taken.
    pub(super) pending: Vec<Pending>,
    /// The server's live id of each expected server request entry it was matched with.
    pub(super) live: IntMap<usize, Value>,
    /// The actual server request each matched expected server request entry was.
    pub(super) seen: IntMap<usize, Value>,
    /// How many `<SERVER_REQUEST_ID:n>` labels a re-recording has given new requests.
    pub(super) new_labels: usize,
    /// Answers that went before a line recorded before them, which still waited when
    /// their hold ended: `(that line's entry, the answer's entry)`. A server line of them
    /// that never comes says why (`Session::missing`).
    pub(super) went_early: Vec<(usize, usize)>,
}
