//! What `#[mcp_fixture]` expands into: calls on [`Test`], a builder of one test's [`Plan`].
//! A knob of the attribute is one parse arm in the macro and one method here.

use super::outcome::Failure;
use super::plan::Plan;
use super::resolve;
use super::target::Target;
use crate::engine::replay::ServeOutput;
use crate::engine::transport::Transport;
use crate::lifecycle::update::UpdateMode;
use crate::options::Options;
use crate::rules::Rules;
use crate::ProtocolCheck;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One `#[mcp_fixture]` test, as the attribute writes it: where its fixture is, the knobs
/// it was given, and what it replays against. Usable without the macro:
///
/// ```no_run
/// use mcp_replay::harness::Test;
///
/// # async fn demo() {
/// let result = Test::new(env!("CARGO_MANIFEST_DIR"), "lookup_issue", "my_crate::lookup_issue")
///     .timeout_ms(500)
///     .serve(|transport| async move { drop(transport) })
///     .await;
/// if let Err(failure) = result {
///     panic!("{failure}");
/// }
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Test {
    manifest_dir: &'static str,
    dir: &'static str,
    name: &'static str,
    test_path: &'static str,
    options: Options,
    rules: Option<fn() -> Rules>,
    mode: Option<UpdateMode>,
}

impl Test {
    /// The test `test_path` (`crate::module::name`) of the crate at `manifest_dir`
    /// (`env!("CARGO_MANIFEST_DIR")`), replaying `fixtures/<name>.jsonl`.
    pub fn new(manifest_dir: &'static str, name: &'static str, test_path: &'static str) -> Test {
        Test {
            manifest_dir,
            dir: "fixtures",
            name,
            test_path,
            options: Options::new(),
            rules: None,
            mode: None,
        }
    }

    /// `dir = "..."`: the fixture folder, relative to the crate's root.
    pub fn dir(mut self, dir: &'static str) -> Test {
        self.dir = dir;
        self
    }

    /// `timeout_ms = N`: how long the replay waits for each message
    /// ([`Options::timeout`]).
    pub fn timeout_ms(mut self, ms: u64) -> Test {
        self.options = self.options.timeout(Duration::from_millis(ms));
        self
    }

    /// `rules = path::to::f`: the test's own rules, after the defaults and the folder's
    /// rules file.
    pub fn rules(mut self, rules: fn() -> Rules) -> Test {
        self.rules = Some(rules);
        self
    }

    /// `protocol = "2026-07-28"`: the era to replay in ([`Options::protocol`]).
    pub fn protocol(mut self, version: &str) -> Test {
        self.options = self.options.protocol(version);
        self
    }

    /// `protocol_check = warn`: what a server message that is not valid MCP is
    /// ([`Options::protocol_check`]).
    pub fn protocol_check(mut self, check: ProtocolCheck) -> Test {
        self.options = self.options.protocol_check(check);
        self
    }

    /// `allow_stray_output`: lines on stdout that are not JSON-RPC messages are a note, not
    /// a finding ([`Options::allow_stray_output`]).
    pub fn allow_stray_output(mut self) -> Test {
        self.options = self.options.allow_stray_output(true);
        self
    }

    /// The update mode, instead of what `MCP_FIXTURE_UPDATE` says.
    pub fn mode(mut self, mode: UpdateMode) -> Test {
        self.mode = Some(mode);
        self
    }

    /// The fixture file: `<manifest_dir>/<dir>/<name>.jsonl`.
    pub fn path(&self) -> PathBuf {
        Path::new(self.manifest_dir)
            .join(self.dir)
            .join(format!("{}.jsonl", self.name))
    }

    /// The plan this test runs in `mode`.
    pub fn plan(&self, mode: UpdateMode) -> Plan {
        Plan {
            path: self.path(),
            test: Some(self.test_path.to_owned()),
            rerecord: None,
            // From the crate's root, found once (Plan::new would look from the fixture's
            // folder first: the same root, one more walk up the tree a test).
            workspace: resolve::workspace_root(Path::new(self.manifest_dir)),
            options: self.options.clone(),
            rules: self.rules.map(|f| f()),
            mode,
            terminal: false,
            html: crate::env::html(),
            page: None,
        }
    }

    /// Replays the fixture against the server `serve` runs on the in-process transport,
    /// called once: a recording is written from that one run (see
    /// [`serve_each`](Test::serve_each)).
    pub fn serve<'a, F, Fut, O>(self, serve: F) -> impl Future<Output = Result<(), Failure>> + 'a
    where
        F: FnOnce(Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.target(Target::serve(serve))
    }

    /// Replays the fixture against the server `serve` runs on the in-process transport,
    /// a fresh one each time it is called: what `#[mcp_fixture]` expands into. A recording
    /// calls it twice, to find the values that change from one run to the next
    /// ([`Target::serve_each`]).
    pub fn serve_each<'a, F, Fut, O>(
        self,
        serve: F,
    ) -> impl Future<Output = Result<(), Failure>> + 'a
    where
        F: Fn(Transport) -> Fut + Send + Sync + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.target(Target::serve_each(serve))
    }

    /// Two transports, `async fn t(server: Transport, client: Transport)`: the body serves
    /// its server on the first and drives its client on the second; every message passes
    /// through, and the exchange is compared with the fixture, which its first run writes
    /// ([`Target::pair`]).
    pub fn pair<'a, F, Fut, O>(self, body: F) -> impl Future<Output = Result<(), Failure>> + 'a
    where
        F: FnOnce(Transport, Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.target(Target::pair(body))
    }

    /// `mock_server`: the fixture plays the server for the client `client` runs.
    pub fn client<'a, F, Fut, O>(self, client: F) -> impl Future<Output = Result<(), Failure>> + 'a
    where
        F: FnOnce(Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.target(Target::client(client))
    }

    /// `http`: the test's body makes a Streamable HTTP service, and the fixture replays
    /// against it in process (cargo feature `http`).
    #[cfg(feature = "http")]
    pub async fn http<Fut, S>(self, service: Fut) -> Result<(), Failure>
    where
        Fut: Future<Output = S>,
        S: crate::engine::http::HttpService,
    {
        let target = Target::http(service.await);
        self.target(target).await
    }

    /// Replays the fixture against `target`, in the update mode `MCP_FIXTURE_UPDATE` says
    /// (or [`mode`](Test::mode) set): what every form of the attribute ends in.
    pub async fn target(self, target: Target<'_>) -> Result<(), Failure> {
        let mode = match self.mode {
            Some(mode) => mode,
            None => UpdateMode::from_env()?,
        };
        // Boxed: the flow's future is large, and a test's first replay would touch its
        // stack pages one by one (a page fault each, in a fresh process).
        Box::pin(self.plan(mode).run_target(target))
            .await
            .map(|_| ())
    }
}
