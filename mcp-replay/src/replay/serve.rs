//! The public entry points of a replay: [`Fixture::replay`], [`Fixture::replay_with`] and
//! [`Fixture::replay_with_options`].

use super::outcome::ServeOutput;
use crate::fixture::Fixture;
use crate::options::Options;
use crate::report::Report;
use crate::rules::Rules;
use crate::transport::Transport;
use std::future::Future;

impl Fixture {
    /// Replays this fixture against the server that `serve` runs on the given
    /// [`Transport`], and reports every difference.
    ///
    /// This is the bare replay: the fixture as loaded (or built), the default rules, no
    /// rules file, no update mode (`MCP_FIXTURE_UPDATE` is not read, nothing is written).
    /// For what `#[mcp_fixture]` does (the folder's rules file, the workspace root,
    /// re-recording), use [`harness::Plan::run`](crate::harness::Plan::run).
    ///
    /// `serve` should serve MCP on the transport and return when it closes (for rmcp:
    /// `server.serve(transport).await?.waiting().await`). It runs as its own task, so a
    /// panic in it is reported as a
    /// [`MismatchKind::ServerFailure`](crate::MismatchKind::ServerFailure), not lost.
    pub async fn replay<F, Fut, O>(&self, serve: F) -> Report
    where
        F: FnOnce(Transport) -> Fut,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.replay_with(&Rules::default(), serve).await
    }

    /// [`replay`](Fixture::replay) with normalization [`Rules`] of your own.
    pub async fn replay_with<F, Fut, O>(&self, rules: &Rules, serve: F) -> Report
    where
        F: FnOnce(Transport) -> Fut,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.replay_with_options(rules, &Options::default(), serve)
            .await
    }

    /// [`replay_with`](Fixture::replay_with) with [`Options`] (a time limit, the protocol
    /// era, the trace, a handler for server requests, compare only, ...).
    pub async fn replay_with_options<F, Fut, O>(
        &self,
        rules: &Rules,
        options: &Options,
        serve: F,
    ) -> Report
    where
        F: FnOnce(Transport) -> Fut,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        let settings = options.resolve(self, rules);
        // A child process gets the stop grace, or the timeout when that is shorter.
        let grace = crate::process::STOP_GRACE.min(settings.timeout);
        let (transport, harness, stopping) = Transport::pair_stopping(grace);
        // Boxed as it comes: a server's future is often tens of kilobytes (rmcp's is), and
        // each move of it unboxed (into the task's future, into the task) copies all of it.
        let serving = Box::pin(serve(transport));
        let server = tokio::spawn(async move { serving.await.into_outcome() });
        let pipe = tokio::io::split(harness);
        super::shell::run_spawned(self, settings, pipe, Some(server), stopping).await
    }
}
