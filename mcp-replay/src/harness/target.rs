//! What a replay runs against, as data: the one thing that differs between the attribute's
//! forms, [`Plan::run`](super::Plan::run) and the command's subcommands. Everything else
//! (the claim, the preparation, the page, the verdict) is the one flow in `harness/mod.rs`.

use super::outcome::{panic_text, Failure};
use crate::data::fixture::Fixture;
use crate::engine::replay::{Serve, ServeOutput};
use crate::engine::transport::Transport;
use crate::findings::report::Report;
use crate::options::Options;
use crate::rules::Rules;
use std::future::Future;

/// What a replay runs against. A new kind of target is one more variant here and one more
/// arm in [`Target::replay`]; the flow around it does not change.
#[derive(Debug)]
#[non_exhaustive]
pub enum Target<'a> {
    /// A server that the closure serves on the in-process transport.
    Serve(Serve<'a>),
    /// A server started as a child process, speaking MCP on its stdin and stdout (cargo
    /// feature `process`).
    #[cfg(feature = "process")]
    Command {
        /// The command that starts the server.
        command: tokio::process::Command,
        /// The command as one line, as a user would type it.
        line: String,
    },
    /// A Streamable HTTP service (in process, or a URL through a client), through the
    /// bridge (cargo feature `http`).
    #[cfg(feature = "http")]
    Http(crate::engine::http::bridge::Bridge<crate::engine::http::DynService>),
    /// A client under test: the fixture plays the server, and the closure runs the client
    /// on the transport. Nothing is re-recorded: a client writes no server answers.
    Client(Serve<'a>),
    /// A test body that is the client: it serves its server on one transport and runs its
    /// client on the other; the harness passes every line through and compares the
    /// exchange with the fixture (`harness/pair.rs`).
    Pair(super::pair::Pair<'a>),
}

impl<'a> Target<'a> {
    /// A server that `serve` runs on the in-process transport (for rmcp:
    /// `server.serve(transport).await?.waiting().await`), returning `()` or `Result<(), E>`.
    pub fn serve<F, Fut, O>(serve: F) -> Target<'a>
    where
        F: FnOnce(Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        Target::Serve(Serve::new(serve))
    }

    /// A server that `serve` runs on the in-process transport, serving a fresh one each
    /// time it is called: a recording replays what it wrote once more against a second
    /// server, and binds or sorts what that run gave otherwise (`docs/fixture-format.md`,
    /// "Values that change between runs").
    pub fn serve_each<F, Fut, O>(serve: F) -> Target<'a>
    where
        F: Fn(Transport) -> Fut + Send + Sync + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        Target::Serve(Serve::each(serve))
    }

    /// A test body that serves its server on the first transport and drives any client on
    /// the second (rmcp's `().serve(client)`), with its own assertions: every message
    /// passes through unchanged, and the exchange is recorded and compared with the
    /// fixture, the server's side and the client's.
    pub fn pair<F, Fut, O>(body: F) -> Target<'a>
    where
        F: FnOnce(Transport, Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        Target::Pair(super::pair::Pair::new(body))
    }

    /// A client under test that `client` runs on the transport the mock server answers.
    pub fn client<F, Fut, O>(client: F) -> Target<'a>
    where
        F: FnOnce(Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        Target::Client(Serve::new(client))
    }

    /// A Streamable HTTP service in process (any tower service, e.g. rmcp's
    /// `StreamableHttpService`), through a bridge with its defaults.
    #[cfg(feature = "http")]
    pub fn http<S: crate::engine::http::HttpService>(service: S) -> Target<'a> {
        Target::bridge(crate::engine::http::bridge::Bridge::new(service))
    }

    /// A Streamable HTTP service through a configured bridge (an endpoint, a time limit).
    #[cfg(feature = "http")]
    pub fn bridge<S: crate::engine::http::HttpService>(
        bridge: crate::engine::http::bridge::Bridge<S>,
    ) -> Target<'a> {
        Target::Http(bridge.erase())
    }

    /// A server started by `command` as a child process on stdio; `line` names it in
    /// messages (cargo feature `process`).
    #[cfg(feature = "process")]
    pub fn command(command: tokio::process::Command, line: impl Into<String>) -> Target<'a> {
        Target::Command {
            command,
            line: line.into(),
        }
    }

    /// The same target for another run against a fresh server, for a recording's second
    /// run (`lifecycle/per_run.rs`): a serve closure that serves more than once
    /// ([`Serve::each`], what `#[mcp_fixture]` hands over), a child process started again.
    /// `None` where the target runs once (a closure called once, an HTTP service, a
    /// client under test).
    pub(crate) fn again(&self) -> Option<Target<'a>> {
        match self {
            Target::Serve(serve) => serve.again().map(Target::Serve),
            #[cfg(feature = "process")]
            Target::Command { command, line } => Some(Target::Command {
                command: copy_command(command),
                line: line.clone(),
            }),
            _ => None,
        }
    }

    /// Whether this target is a client under test (the mock): nothing to re-record.
    pub(crate) fn is_client(&self) -> bool {
        matches!(self, Target::Client(_))
    }

    /// Replays `fixture` with `rules` and `options` against this target: the report, or
    /// why there was none (a server that could not be started). The one place each kind
    /// of target is told apart.
    pub async fn replay(
        self,
        fixture: &Fixture,
        rules: &Rules,
        options: &Options,
    ) -> Result<Report, Failure> {
        match self {
            Target::Serve(serve) => Ok(fixture.replay_erased(rules, options, serve).await),
            #[cfg(feature = "process")]
            Target::Command { command, line } => {
                replay_command(fixture, rules, options, command, line).await
            }
            #[cfg(feature = "http")]
            Target::Http(bridge) => Ok(fixture.replay_erased_bridge(rules, options, bridge).await),
            Target::Client(client) => Ok(replay_client(fixture, rules, options, client).await),
            Target::Pair(body) => {
                let settings = options.resolve(fixture, rules);
                let exchange = super::pair::pass_through(body, settings.trace).await;
                let mut report = super::pair::report_of(
                    exchange,
                    Some(fixture),
                    fixture.source(),
                    rules,
                    (settings.record, settings.record_on_change),
                );
                if settings.record_on_change && report.is_ok() {
                    report.recorded = None;
                }
                Ok(report)
            }
        }
    }
}

/// A client under test against the fixture's mock server. The client runs in a task of its
/// own: when it panics or fails, the mock's report of what the client did until then is
/// still given, with why, as a finding.
async fn replay_client(
    fixture: &Fixture,
    rules: &Rules,
    options: &Options,
    client: Serve<'_>,
) -> Report {
    let (transport, mock) = fixture.mock().rules(rules).options(options).server();
    let ended = match tokio::spawn(client.call(transport)).await {
        Ok(ended) => ended,
        Err(e) => Err(crate::ServerError::new(match e.try_into_panic() {
            Ok(payload) => format!("the client panicked: {}", panic_text(payload.as_ref())),
            Err(e) => format!("the client's task ended: {e}"),
        })),
    };
    let report = mock.finish().await;
    match ended {
        Ok(()) => report,
        Err(why) => report.with_client_failure(why),
    }
}

/// A command that starts the same program again: its program, arguments, environment and
/// folder (how its standard streams are set is `serve_command`'s business).
#[cfg(feature = "process")]
fn copy_command(command: &tokio::process::Command) -> tokio::process::Command {
    let std = command.as_std();
    let mut copy = tokio::process::Command::new(std.get_program());
    copy.args(std.get_args());
    for (key, value) in std.get_envs() {
        match value {
            Some(value) => copy.env(key, value),
            None => copy.env_remove(key),
        };
    }
    if let Some(dir) = std.get_current_dir() {
        copy.current_dir(dir);
    }
    copy
}

#[cfg(feature = "process")]
/// A server as a child process on stdio: a server that could not be started is no replay
/// but a [`Failure::ServerDidNotStart`], with the message `call` and `record` give.
async fn replay_command(
    fixture: &Fixture,
    rules: &Rules,
    options: &Options,
    mut command: tokio::process::Command,
    line: String,
) -> Result<Report, Failure> {
    use crate::engine::process::{serve_command, start_error};
    let (not_started, mut told) = tokio::sync::oneshot::channel();
    let serve = Serve::new(move |transport| async move {
        let ended = serve_command(transport, &mut command).await;
        CommandEnded(ended.map_err(|e| match start_error(&e) {
            Some(start) => {
                let message = format!(
                    "could not start the server `{line}`: {}",
                    start.spawn_error()
                );
                let _ = not_started.send(message.clone());
                message
            }
            None => e.to_string(),
        }))
    });
    let report = fixture.replay_erased(rules, options, serve).await;
    // A start error is sent before the server task ends, and the replay has waited for that
    // end: asked, not awaited, so a task still running can never hold the replay here.
    match told.try_recv() {
        Ok(message) => Err(Failure::ServerDidNotStart(message)),
        Err(_) => Ok(report),
    }
}

/// How a child process ended, in the report's words: its own message (`the server "false"
/// exited with status 1`), not the `Debug` form a `Result<(), io::Error>` gives.
#[cfg(feature = "process")]
struct CommandEnded(Result<(), String>);

#[cfg(feature = "process")]
impl ServeOutput for CommandEnded {
    fn into_outcome(self) -> Result<(), crate::ServerError> {
        self.0.map_err(crate::ServerError::new)
    }
}
