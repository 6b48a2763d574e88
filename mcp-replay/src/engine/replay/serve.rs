//! The entry point of a bare replay, [`Fixture::replay`] and its builder [`Replay`], and the
//! serve closure with its types erased ([`Serve`]).

use super::outcome::{ServeOutput, ServerError};
use crate::data::fixture::Fixture;
use crate::engine::transport::Transport;
use crate::findings::report::Report;
use crate::options::Options;
use crate::options::Settings;
use crate::rules::Rules;
use std::future::Future;
use std::pin::Pin;

impl Fixture {
    /// A replay of this fixture, to be run against a server: set what differs from the
    /// defaults ([`rules`](Replay::rules), [`options`](Replay::options), a
    /// [`timeout`](Replay::timeout)), then [`run`](Replay::run) it on a serve closure (or
    /// [`http`](Replay::http), [`bridge`](Replay::bridge)); a child process or a client
    /// under test is a [`harness::Target`](crate::harness::Target).
    ///
    /// This is the bare replay: the fixture as loaded (or built), the default rules, no
    /// rules file, no update mode (`MCP_FIXTURE_UPDATE` is not read, nothing is written).
    /// For what `#[mcp_fixture]` does (the folder's rules file, the workspace root,
    /// re-recording), use [`harness::Plan::run`](crate::harness::Plan::run).
    ///
    /// ```
    /// use mcp_replay::Fixture;
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let fixture = Fixture::parse("").unwrap();
    /// let report = fixture
    ///     .replay()
    ///     .timeout(Duration::from_millis(500))
    ///     .run(|transport| async move { drop(transport) })
    ///     .await;
    /// assert!(report.is_ok());
    /// # }
    /// ```
    pub fn replay(&self) -> Replay<'_> {
        Replay {
            fixture: self,
            rules: None,
            options: Options::new(),
        }
    }
}

/// A replay of one fixture, being set up: what [`Fixture::replay`] returns.
#[derive(Debug, Clone)]
#[must_use = "a replay does nothing until it is run"]
pub struct Replay<'f> {
    fixture: &'f Fixture,
    rules: Option<&'f Rules>,
    options: Options,
}

impl<'f> Replay<'f> {
    /// Normalization [`Rules`] of your own instead of the defaults.
    pub fn rules(mut self, rules: &'f Rules) -> Self {
        self.rules = Some(rules);
        self
    }

    /// [`Options`] (a time limit, the protocol era, the trace, a handler for server
    /// requests, compare only, ...) instead of none.
    pub fn options(mut self, options: &Options) -> Self {
        self.options = options.clone();
        self
    }

    /// How long the replay waits for each message ([`Options::timeout`]).
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.options = self.options.timeout(timeout);
        self
    }

    /// Replays against the server that `serve` runs on the given [`Transport`], and
    /// reports every difference.
    ///
    /// `serve` should serve MCP on the transport and return when it closes (for rmcp:
    /// `server.serve(transport).await?.waiting().await`). It runs as its own task, so a
    /// panic in it is reported as a
    /// [`MismatchKind::ServerFailure`](crate::MismatchKind::ServerFailure), not lost.
    pub fn run<F, Fut, O>(self, serve: F) -> impl Future<Output = Report> + Send + 'f
    where
        F: FnOnce(Transport) -> Fut + Send + 'f,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.serve_erased(Serve::new(serve))
    }

    /// The replay of [`run`](Replay::run), compiled once here: the serve closure comes
    /// boxed, so a test crate instantiates none of it.
    async fn serve_erased(self, serve: Serve<'f>) -> Report {
        let rules = self.rules_or_default();
        self.fixture
            .replay_erased(&rules, &self.options, serve)
            .await
    }

    /// The fixture, the rules (the defaults unless set) and the options of this replay.
    #[cfg(feature = "http")]
    pub(crate) fn parts(&self) -> (&'f Fixture, std::borrow::Cow<'f, Rules>, &Options) {
        (self.fixture, self.rules_or_default(), &self.options)
    }

    fn rules_or_default(&self) -> std::borrow::Cow<'f, Rules> {
        match self.rules {
            Some(rules) => std::borrow::Cow::Borrowed(rules),
            None => std::borrow::Cow::Owned(Rules::default()),
        }
    }
}

impl Fixture {
    /// The stdio replay of this fixture with `rules` and `options` against an erased serve
    /// closure: what every in-process replay ends in.
    pub(crate) async fn replay_erased(
        &self,
        rules: &Rules,
        options: &Options,
        serve: Serve<'_>,
    ) -> Report {
        replay_settings(self, options.resolve(self, rules), serve).await
    }
}

/// A serve closure with its types erased: it takes the transport and gives a boxed future
/// of how the server (or the client under test) ended. Of the whole replay, a test crate
/// instantiates this constructor and nothing else: the rest is compiled once, here.
pub struct Serve<'a>(Calls<'a>);

/// A closure called once, or one that serves again (a recording's second run).
enum Calls<'a> {
    Once(Box<dyn FnOnce(Transport) -> ServeFuture + Send + 'a>),
    Each(std::sync::Arc<dyn Fn(Transport) -> ServeFuture + Send + Sync + 'a>),
}

/// The boxed future of a [`Serve`].
pub(crate) type ServeFuture = Pin<Box<dyn Future<Output = Result<(), ServerError>> + Send>>;

impl<'a> Serve<'a> {
    /// Erases `serve`: a closure serving MCP on the transport and returning `()` or
    /// `Result<(), E>` ([`ServeOutput`]).
    pub fn new<F, Fut, O>(serve: F) -> Serve<'a>
    where
        F: FnOnce(Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        Serve(Calls::Once(Box::new(move |transport| {
            erased(serve(transport))
        })))
    }

    /// Erases `serve`, a closure that can serve a fresh server on each transport it is
    /// given (what `#[mcp_fixture]` hands over): a recording runs it a second time, to find
    /// the values that change from one run to the next (`lifecycle/per_run.rs`).
    pub fn each<F, Fut, O>(serve: F) -> Serve<'a>
    where
        F: Fn(Transport) -> Fut + Send + Sync + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        Serve(Calls::Each(std::sync::Arc::new(move |transport| {
            erased(serve(transport))
        })))
    }

    /// The same closure for another run, when it can serve more than once.
    pub(crate) fn again(&self) -> Option<Serve<'a>> {
        match &self.0 {
            Calls::Once(_) => None,
            Calls::Each(f) => Some(Serve(Calls::Each(f.clone()))),
        }
    }

    /// Calls the closure on `transport`.
    pub(crate) fn call(self, transport: Transport) -> ServeFuture {
        match self.0 {
            Calls::Once(f) => f(transport),
            Calls::Each(f) => f(transport),
        }
    }
}

/// A server's future, boxed as it comes: a server's future is often tens of kilobytes
/// (rmcp's is), and each move of it unboxed (into the task's future, into the task) copies
/// all of it. The wrapper holds only the box: moving the future itself into the wrapper,
/// and the wrapper into a box, copied it twice more (14k instructions of memcpy in a
/// one-call session).
fn erased<Fut, O>(serving: Fut) -> ServeFuture
where
    Fut: Future<Output = O> + Send + 'static,
    O: ServeOutput,
{
    let serving = Box::pin(serving);
    Box::pin(async move { serving.await.into_outcome() })
}

impl std::fmt::Debug for Serve<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Serve(..)")
    }
}

/// The in-process stdio replay of `fixture` with `settings` against the server `serve`
/// runs: its own task on one end of a pipe, the replay's shell on the other.
pub(crate) async fn replay_settings(
    fixture: &Fixture,
    settings: Settings<'_>,
    serve: Serve<'_>,
) -> Report {
    // A child process gets the stop grace, or the timeout when that is shorter.
    let grace = crate::engine::process::STOP_GRACE.min(settings.timeout);
    let (transport, harness, stopping) = Transport::pair_stopping(grace);
    let server = tokio::spawn(serve.call(transport));
    let pipe = tokio::io::split(harness);
    super::shell::run_spawned(fixture, settings, pipe, Some(server), stopping).await
}
