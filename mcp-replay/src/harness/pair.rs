//! A test whose body is the client: the body gets two transports, the server's and the
//! client's; it serves its server on one and drives any client on the other (rmcp's
//! `().serve(client)` and its typed calls), with its own assertions. The two are ends of
//! one pipe: every line passes unchanged (the client sees the live server, minted ids and
//! all), and each end keeps a copy of what it writes, in the order written
//! ([`Transport::tapped_pair`]). An exchange that is the fixture's, line for line, is told
//! so as the replay compares (`engine::replay::same_exchange`, the fast path where it
//! can). Otherwise, or when the recording is wanted, the exchange becomes a recording as
//! `mcp-replay record` makes one ([`fixture_from_exchange`]: ids as labels, normalized,
//! minted values bound), compared with the fixture ([`diff`]: a changed answer is a
//! `result` finding, a changed client line a `params` finding at its line), with the same
//! report, kinds and advice as a replay; the update modes then apply as to a replay's
//! recording.
//!
//! The shell here only runs the body and takes the lines; what the exchange means is
//! decided by the comparison, the recorder and the diff, without I/O.

use crate::analyses::diff::diff;
use crate::data::fixture::{Direction, Fixture};
use crate::engine::polls::by_status;
use crate::engine::replay::{same_exchange, ServeOutput, ServerError};
use crate::engine::transport::{Crossed, Transport};
use crate::findings::report::Report;
use crate::lifecycle::record::fixture_from_exchange;
use crate::rules::Rules;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

/// The boxed future of a [`Pair`] body.
type PairFuture = Pin<Box<dyn Future<Output = Result<(), ServerError>> + Send>>;

/// A test body that takes the server's transport and the client's, with its types erased:
/// what `#[mcp_fixture]` on `async fn t(server: Transport, client: Transport)` hands over.
pub struct Pair<'a>(Box<dyn FnOnce(Transport, Transport) -> PairFuture + Send + 'a>);

impl<'a> Pair<'a> {
    /// Erases `body`, which serves the server on its first transport and runs the client
    /// on its second, returning `()` or `Result<(), E>`.
    pub fn new<F, Fut, O>(body: F) -> Pair<'a>
    where
        F: FnOnce(Transport, Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        Pair(Box::new(move |server, client| {
            let running = Box::pin(body(server, client));
            Box::pin(async move { running.await.into_outcome() })
        }))
    }
}

impl std::fmt::Debug for Pair<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pair(..)")
    }
}

/// What crossed between the body's client and its server.
pub(crate) struct Exchange {
    /// Each line, with the side that wrote it, in the order it was written.
    pub(crate) lines: Vec<(Direction, String)>,
    /// How the body ended: its error or its panic, as text.
    pub(crate) ended: Result<(), ServerError>,
}

/// Runs `body` on two ends of one pipe that keep every line written through them, each
/// printed on stderr as it passes when `trace` is on (`MCP_REPLAY_TRACE`).
pub(crate) async fn pass_through(body: Pair<'_>, trace: bool) -> Exchange {
    if trace {
        eprintln!("mcp-replay trace: the test body's client and server, line by line");
    }
    let log = Arc::new(Mutex::new(Crossed::traced(trace)));
    let (server, client) = Transport::tapped_pair(&log);
    let ended = match tokio::spawn((body.0)(server, client)).await {
        Ok(ended) => ended,
        Err(e) => Err(ServerError::new(match e.try_into_panic() {
            Ok(payload) => format!(
                "the test body panicked: {}",
                super::outcome::panic_text(payload.as_ref())
            ),
            Err(e) => format!("the test body's task ended: {e}"),
        })),
    };
    // A server the body spawned and left running may still write: what it writes from
    // now on is not the test's.
    let lines = log.lock().unwrap_or_else(|e| e.into_inner()).take();
    Exchange { lines, ended }
}

/// The report of a pass-through against `fixture` (`None`: no fixture yet): the exchange
/// recorded with `rules` (at the fixture's rules version, with its `bind` and `pin`), and,
/// against a fixture, every difference [`diff`] finds; the body's failure a finding of its
/// own. `record`: keep the recording, for the update modes; `on_change`: only when the
/// exchange is not the fixture's (then an exchange that is, line for line, is not recorded
/// at all).
pub(crate) fn report_of(
    exchange: Exchange,
    fixture: Option<&Fixture>,
    source: &str,
    rules: &Rules,
    (record, on_change): (bool, bool),
) -> Report {
    let rules = match fixture {
        Some(fixture) => rules.for_fixture(fixture),
        None => std::borrow::Cow::Borrowed(rules),
    };
    let mut report = Report::empty(source);
    // The commonest case, an exchange that is the fixture's, decided line by line as the
    // replay decides, without making the recording.
    if let (Some(fixture), true, Ok(())) = (fixture, !record || on_change, &exchange.ended) {
        if same_exchange(&rules, fixture.entries(), &exchange.lines) {
            return report;
        }
    }
    let mut messages = Vec::with_capacity(exchange.lines.len());
    let mut stray = Vec::new();
    for (direction, line) in exchange.lines {
        match serde_json::from_str::<Value>(&line) {
            Ok(message) if message.is_object() => messages.push((direction, message)),
            _ => stray.push((direction, line)),
        }
    }
    let recorded = match fixture_from_exchange(messages, &rules, source) {
        Ok(recorded) => recorded,
        Err(e) => {
            return report.with_client_failure(ServerError::new(format!(
                "the exchange could not be recorded: {e}"
            )))
        }
    };
    if let Some(fixture) = fixture {
        // A task's polls are as many as its time needs: compared by the statuses reached.
        let compared = diff(&by_status(fixture), &by_status(&recorded), &rules);
        report.mismatches = compared.mismatches().to_vec();
    }
    for (direction, line) in &stray {
        let who = match direction {
            Direction::ClientToServer => "the client",
            Direction::ServerToClient => "the server",
        };
        report
            .notes
            .push(format!("{who} wrote a line that is not JSON: {line}"));
    }
    if record {
        // Over a fixture, the recording keeps every header key the user wrote.
        report.recorded = match fixture {
            Some(fixture) => match recorded.under_header_of(fixture) {
                Ok(recorded) => Some(recorded),
                Err(e) => {
                    return report.with_client_failure(ServerError::new(format!(
                        "the exchange could not be recorded under the fixture's header: {e}"
                    )))
                }
            },
            None => Some(recorded),
        };
    }
    match exchange.ended {
        Ok(()) => report,
        Err(why) => report.with_body_failure(why),
    }
}
