//! What a replay needs to know of its fixture beyond its entries ([`Script`]): tables that
//! depend on the fixture alone (who answers whom, which lines hold placeholders, which
//! requests are cancelled later), built once when a session starts and only read after.
//! Part of the session core: no I/O.

use super::causal;
use super::{IntMap, IntSet};
use crate::data::fixture::{Direction, Fixture, MessageKind};

/// The tables of one fixture that a session reads and never changes.
#[derive(Debug)]
pub(super) struct Script {
    /// The fixture entry of the expected response of each client request entry.
    pub(super) response_of_request: IntMap<usize, usize>,
    /// The client's answer entry to each expected server request entry.
    pub(super) answer_of: IntMap<usize, usize>,
    /// How many client requests the fixture has.
    pub(super) requests: usize,
    /// Per fixture entry: it holds a bound placeholder.
    pub(super) bound: Vec<bool>,
    /// Per fixture entry: it holds a placeholder `send` fills in (a bound one among them),
    /// so it cannot go as the fixture has it.
    pub(super) filled: Vec<bool>,
    /// Some fixture entry holds a bound placeholder.
    pub(super) any_bound: bool,
    /// A client request sends a bound placeholder no server line before it has (a
    /// fixture of client lines, `call --client-only`): the session keeps the latest answer,
    /// to bind it from (`Session::bind_from_answer`).
    pub(super) client_first: bool,
    /// Per fixture entry: it holds a pseudonym of a user's value (`<CUSTOMER:1>`,
    /// `normalize/personal/`), which the session binds as [`Bindings::pseudonyms`] says.
    ///
    /// [`Bindings::pseudonyms`]: crate::normalize::bind::Bindings::pseudonyms
    pub(super) named: Vec<bool>,
    /// Some fixture entry holds one.
    pub(super) any_named: bool,
    /// Client request entries that a later client `notifications/cancelled` cancels.
    pub(super) cancelled_later: IntSet<usize>,
}

impl Script {
    /// The tables of `fixture`.
    pub(super) fn of(fixture: &Fixture) -> Script {
        let entries = fixture.entries();
        let mut response_of_request = IntMap::default();
        let mut answer_of = IntMap::default();
        for (i, e) in entries.iter().enumerate() {
            if let Some(request) = e.answers() {
                match e.direction() {
                    Direction::ServerToClient => response_of_request.insert(request, i),
                    Direction::ClientToServer => answer_of.insert(request, i),
                };
            }
        }
        let requests = entries
            .iter()
            .filter(|e| {
                e.direction() == Direction::ClientToServer && e.kind() == MessageKind::Request
            })
            .count();
        // One scan of each line for both (a bound placeholder is filled in too).
        let (bound, mut filled): (Vec<bool>, Vec<bool>) = entries
            .iter()
            .map(|e| {
                crate::normalize::starts_either(e.text(), &crate::normalize::bound::STARTS, &FILLED)
            })
            .unzip();
        let named: Vec<bool> = entries
            .iter()
            .map(|e| crate::normalize::personal::has_pseudonym(e.text()))
            .collect();
        // A client line that sends a pseudonym back sends the live value, once bound.
        for (filled, named) in filled.iter_mut().zip(&named) {
            *filled |= named;
        }
        Script {
            client_first: client_first(entries, &bound),
            any_named: named.contains(&true),
            named,
            response_of_request,
            answer_of,
            requests,
            any_bound: bound.contains(&true),
            bound,
            filled,
            cancelled_later: cancelled_requests(fixture),
        }
    }
}

/// The client request entries a later client `notifications/cancelled` names by label.
fn cancelled_requests(fixture: &Fixture) -> IntSet<usize> {
    let entries = fixture.entries();
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.direction() == Direction::ClientToServer
                && e.method() == Some("notifications/cancelled")
        })
        .filter_map(|(i, _)| causal::cancelled_request(entries, i))
        .collect()
}

/// What `send` fills in place of a placeholder: a line holding one is parsed and edited,
/// not sent as the fixture has it.
const FILLED: [&str; 13] = [
    "<TASK_ID:",
    "<CURSOR:",
    "<MINTED:",
    "<REQUEST_STATE",
    "<CLIENT_INFO>",
    "<CLIENT_CAPABILITIES>",
    "<PROTOCOL_VERSION>",
    "<WORKSPACE>",
    "<HOME>",
    "<TMP>",
    "<TRACEPARENT>",
    "<TRACESTATE>",
    "<BAGGAGE>",
];

/// Does a client request send a bound placeholder that no server line before it has?
fn client_first(entries: &[crate::data::fixture::Entry], bound: &[bool]) -> bool {
    let mut served: Vec<&str> = Vec::new();
    for (entry, _) in entries.iter().zip(bound).filter(|(_, b)| **b) {
        let text = entry.text();
        let placeholders = crate::normalize::bound::bound_in(text)
            .into_iter()
            .map(|(start, end)| &text[start..end]);
        match (entry.direction(), entry.kind()) {
            (Direction::ServerToClient, _) => served.extend(placeholders),
            (Direction::ClientToServer, MessageKind::Request)
                if placeholders.clone().any(|p| !served.contains(&p)) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}
