//! The replay: feeds a fixture's client messages to a server, takes what the server sends
//! as it comes, and judges it (the algorithm is in `docs/fixture-format.md`). The decisions
//! are a synchronous core that does no I/O, driven by a thin async shell (as quinn-proto's
//! `Connection` is driven by `quinn`). By file:
//!
//! - `session.rs`: the core: the phases of a session and its waits; its state in owners:
//!   `script.rs` (the tables of the fixture alone), `findings.rs` (what it found, and the
//!   one rule of what spoils a recording), `requests.rs` (the server's own requests);
//! - `incoming.rs`, `outgoing.rs`: what the core does with each message the server sends,
//!   and what it sends (ids and identity filled in);
//! - `conclude.rs`: the findings at the end, and the recording;
//! - `shell.rs`: the I/O: the pipe, the one timer, the server task;
//! - `causal.rs`: when each expected server message may arrive, and whose order it shares;
//! - `align.rs`: the pairing of what arrived with what was expected (pure, no I/O);
//! - `ledger.rs`: the live ids of the client requests sent;
//! - `polls.rs`: a run of task polls judged by meaning (the walk of statuses, not the count);
//! - `bind.rs`: the live values of the bound placeholders (values the server mints);
//! - `expected.rs`: the fixture's messages, normalized on demand, and their comparison;
//! - `same.rs`: whether a test whose body is the client let the fixture's exchange through, line
//!   for line (`harness/pair.rs`);
//! - `trace.rs`: the `MCP_REPLAY_TRACE` output;
//! - `picture.rs`, `timeline.rs`: the timeline of a session, for its picture (`html/`),
//!   when asked for: recorded as it goes, resolved when it concludes;
//! - `describe.rs`: how findings name entries and messages;
//! - `serve.rs`: the public entry point, [`Replay`], and the erased serve closure,
//!   [`Serve`].
//!
//! A client message is sent once what it causally needs has arrived: every response and
//! server request the fixture has before it. A client's answer to a server request is sent
//! as soon as that request arrives. Notifications are never waited for while the session
//! runs: each is paired at the end, within its span, so a missing one costs no time; only
//! unsolicited ones are waited for after the last client message. Then the server's input
//! is closed and its output read to the end, so that what it writes late (a second answer,
//! a message as it shuts down) is judged in every run, not only when it happened to be read
//! in time.

mod align;
mod arrivals;
mod causal;
mod clock;
mod conclude;
mod describe;
mod events;
mod expected;
mod explored;
mod incoming;
#[cfg(test)]
mod interleavings;
mod ledger;
mod outbox;
mod outcome;
mod outgoing;
mod picture;
mod requests;
mod same;
mod script;
mod serve;
mod session;
mod shell;
#[cfg(test)]
mod tests;
mod timeline;
pub(crate) mod trace;
mod valid;
mod waits;
mod wants;

pub use outcome::{ServeOutput, ServerError};
pub(crate) use outgoing::strip_json;
pub(crate) use same::same_exchange;
pub use serve::{Replay, Serve};
#[cfg(feature = "http")]
pub(crate) use shell::run;

#[cfg(feature = "internals")]
use crate::data::fixture::{Entry, MessageKind};
#[cfg(feature = "internals")]
use crate::rules::Rules;
#[cfg(feature = "internals")]
use expected::Expected;
#[cfg(feature = "internals")]
use serde_json::Value;

/// Does the server message `line` (a response with any integer id, or a notification)
/// match fixture entry `entry`? The driver's comparison of one message outside a session:
/// the fast path for a response, else parse, normalize and compare. For the benchmarks.
#[cfg(feature = "internals")]
pub(crate) fn line_matches(rules: &Rules, entry: &Entry, line: &str) -> bool {
    let expected = Expected::new(std::slice::from_ref(entry), rules);
    if entry.kind() == MessageKind::Response {
        if let Some(defaults) = rules.defaults_only() {
            if let Some(fast) = crate::normalize::fast::response(line, defaults.as_ref()) {
                if expected.matches_text(0, &fast) {
                    return true;
                }
            }
        }
    }
    let Ok(mut actual) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    rules.normalize_server(&mut actual);
    expected.pseudonymize(&mut actual);
    expected.matches(0, &actual, entry.id())
}

pub(crate) use crate::engine::int_map::{IntMap, IntSet};
