//! A test whose body is the client: the body gets two transports, the server's and the
//! client's; it serves its server on one and drives any client on the other (rmcp's
//! `().serve(client)` and its typed calls), with its own assertions. The harness sits
//! between them and passes every line through unchanged, as it came (the client sees the
//! live server, minted ids and all), keeping each message in the order it crossed. The
//! exchange becomes a recording as `mcp-replay record` makes one
//! ([`fixture_from_exchange`]: ids as labels, normalized, minted values bound), and the
//! recording is compared with the fixture ([`diff`]: a changed answer is a `result`
//! finding, a changed client line a `params` finding at its line), with the same report,
//! kinds and advice as a replay; the update modes then apply as to a replay's recording.
//!
//! The shell here only pipes and keeps lines; what the exchange means is decided by the
//! recorder and the diff, without I/O.

use crate::analyses::diff::diff;
use crate::data::fixture::{Direction, Fixture};
use crate::engine::replay::{ServeOutput, ServerError};
use crate::engine::transport::Transport;
use crate::findings::report::Report;
use crate::lifecycle::record::fixture_from_exchange;
use crate::rules::Rules;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

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
    /// Each message, with the side that sent it, in the order the harness passed it.
    pub(crate) messages: Vec<(Direction, Value)>,
    /// Lines that were not JSON, with the side that wrote them (passed through too).
    pub(crate) stray: Vec<(Direction, String)>,
    /// How the body ended: its error or its panic, as text.
    pub(crate) ended: Result<(), ServerError>,
}

/// How long the lines still in the pipes are passed once the body has ended (a server it
/// spawned may still answer; then its input is closed).
const DRAIN: Duration = Duration::from_millis(200);

/// Runs `body` on the two transports and passes every line between them, keeping it.
pub(crate) async fn pass_through(body: Pair<'_>) -> Exchange {
    let (server, server_end) = Transport::pair();
    let (client, client_end) = Transport::pair();
    let kept: Arc<Mutex<Exchange>> = Arc::new(Mutex::new(Exchange {
        messages: Vec::new(),
        stray: Vec::new(),
        ended: Ok(()),
    }));
    let running = tokio::spawn((body.0)(server, client));
    let (from_client, to_client) = tokio::io::split(client_end);
    let (from_server, to_server) = tokio::io::split(server_end);
    let upstream = tokio::spawn(pipe(
        from_client,
        to_server,
        Direction::ClientToServer,
        kept.clone(),
    ));
    let downstream = tokio::spawn(pipe(
        from_server,
        to_client,
        Direction::ServerToClient,
        kept.clone(),
    ));
    let ended = match running.await {
        Ok(ended) => ended,
        Err(e) => Err(ServerError::new(match e.try_into_panic() {
            Ok(payload) => format!(
                "the test body panicked: {}",
                super::outcome::panic_text(payload.as_ref())
            ),
            Err(e) => format!("the test body's task ended: {e}"),
        })),
    };
    // The body is done: what is still in flight is passed for a moment, then the pipes
    // close (a server the body spawned sees its input end).
    for mut pipe in [upstream, downstream] {
        if tokio::time::timeout(DRAIN, &mut pipe).await.is_err() {
            pipe.abort();
        }
    }
    let mut exchange = std::mem::replace(
        &mut *kept.lock().unwrap_or_else(|e| e.into_inner()),
        Exchange {
            messages: Vec::new(),
            stray: Vec::new(),
            ended: Ok(()),
        },
    );
    exchange.ended = ended;
    exchange
}

/// Copies lines from `from` to `to` unchanged, keeping each (a message, or a stray line)
/// before it is passed on, so that the kept order is the order the other side saw.
async fn pipe(
    from: tokio::io::ReadHalf<DuplexStream>,
    mut to: tokio::io::WriteHalf<DuplexStream>,
    direction: Direction,
    kept: Arc<Mutex<Exchange>>,
) {
    let mut lines = BufReader::new(from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if !text.trim().is_empty() {
            let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
            match serde_json::from_str::<Value>(text) {
                Ok(message) if message.is_object() => kept.messages.push((direction, message)),
                _ => kept.stray.push((direction, text.to_owned())),
            }
        }
        if to.write_all(&line).await.is_err() || to.flush().await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// The report of a pass-through against `fixture` (`None`: no fixture yet): the exchange
/// recorded with `rules` (at the fixture's rules version, with its `bind` and `pin`), and,
/// against a fixture, every difference [`diff`] finds; the body's failure a finding of its
/// own. `record`: keep the recording, for the update modes.
pub(crate) fn report_of(
    exchange: Exchange,
    fixture: Option<&Fixture>,
    source: &str,
    rules: &Rules,
    record: bool,
) -> Report {
    let rules = match fixture {
        Some(fixture) => rules.for_fixture(fixture),
        None => std::borrow::Cow::Borrowed(rules),
    };
    let mut report = Report::empty(source);
    let recorded = match fixture_from_exchange(exchange.messages, &rules, source) {
        Ok(recorded) => recorded,
        Err(e) => {
            return report.with_client_failure(ServerError::new(format!(
                "the exchange could not be recorded: {e}"
            )))
        }
    };
    if let Some(fixture) = fixture {
        let compared = diff(fixture, &recorded, &rules);
        report.mismatches = compared.mismatches().to_vec();
    }
    for (direction, line) in &exchange.stray {
        let who = match direction {
            Direction::ClientToServer => "the client",
            Direction::ServerToClient => "the server",
        };
        report
            .notes
            .push(format!("{who} wrote a line that is not JSON: {line}"));
    }
    if record {
        report.recorded = Some(recorded);
    }
    match exchange.ended {
        Ok(()) => report,
        Err(why) => report.with_body_failure(why),
    }
}
