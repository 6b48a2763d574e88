//! # mcp-replay
//!
//! Regression tests that pin the protocol contract of an MCP (Model Context Protocol)
//! server. A **fixture** is a small JSONL file holding one representative exchange, with
//! request ids as placeholders; a test feeds the fixture's client messages into the
//! server under test over an in-process [`Transport`], compares what the server sends
//! back with the fixture, and reports every difference by kind
//! ([`MismatchKind`]: method, params, result, id, notification order, missing,
//! unexpected, timeout, server failure), each with a diff.
//!
//! ## With the attribute
//!
//! ```no_run
//! use mcp_replay::{mcp_fixture, Transport};
//! use rmcp::ServiceExt;
//! # #[derive(Default)]
//! # struct DemoServer;
//! # impl rmcp::ServerHandler for DemoServer {}
//!
//! #[mcp_fixture("lookup_issue")]        // <CARGO_MANIFEST_DIR>/fixtures/lookup_issue.jsonl
//! #[tokio::test]
//! async fn lookup_issue(transport: Transport) {
//!     let server = DemoServer::default().serve(transport).await.unwrap();
//!     let _ = server.waiting().await;
//! }
//! # fn main() {}
//! ```
//!
//! `MCP_FIXTURE_UPDATE=1 cargo test lookup_issue` re-records the fixture's server
//! messages from what the server sends now (`new` writes `lookup_issue.jsonl.new`
//! instead); see [`UpdateMode`].
//!
//! ## Without it
//!
//! The attribute is sugar over this API:
//!
//! ```
//! use mcp_replay::{Fixture, MismatchKind};
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let fixture = Fixture::parse(concat!(
//!     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{}}}"#, "\n",
//!     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"ok":true}}}"#, "\n",
//! )).unwrap();
//!
//! // A hand-written server that answers every request with {"ok": false}.
//! let report = fixture
//!     .replay(|transport| async move {
//!         let (read, mut write) = tokio::io::split(transport);
//!         let mut lines = BufReader::new(read).lines();
//!         while let Ok(Some(line)) = lines.next_line().await {
//!             let request: serde_json::Value = serde_json::from_str(&line).unwrap();
//!             let reply = serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": {"ok": false}});
//!             write.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
//!         }
//!     })
//!     .await;
//!
//! assert!(!report.is_ok());
//! assert_eq!(report.mismatches()[0].kind(), MismatchKind::Result);
//! assert_eq!(report.mismatches()[0].differences()[0].path, ".result.ok");
//! # }
//! ```
//!
//! The fixture format and the replay algorithm are described in `docs/fixture-format.md`.

#![warn(missing_docs)]

mod error;
mod fast;
mod fixture;
mod import;
mod json;
mod mock;
mod normalize;
mod process;
mod record;
mod replay;
mod report;
mod rules;
mod secrets;
mod selector;
mod transport;
mod update;

pub use error::Error;
pub use fixture::{Direction, Entry, Fixture, MessageKind, ServerRequestHandler, REQUEST_ID};
pub use import::{import_mcporter, parse_mcporter, ServerTraffic};
pub use json::{json_eq, Difference};
pub use mcp_replay_macros::mcp_fixture;
pub use mock::{MockServer, Timing, MISMATCH_CODE};
pub use normalize::DEFAULT_RULES;
pub use process::serve_command;
pub use record::fixture_from_exchange;
pub use replay::{DEFAULT_PROTOCOL, MODERN_PROTOCOL};
pub use report::{Mismatch, MismatchKind, Report};
pub use rules::{Rules, RULES_FILE, RULES_VERSION};
pub use transport::Transport;
pub use update::{write_fixture, UpdateMode, Written, UPDATE_ENV};

use std::future::Future;
use std::time::Duration;

/// The mock server's pause after each message that another follows at once (see
/// [`Fixture::with_pace`]).
pub const DEFAULT_PACE: Duration = Duration::from_millis(2);

/// How long a replay waits for each message it needs unless the fixture header,
/// the attribute's `timeout_ms` or [`Fixture::with_timeout`] says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// What a serve closure may return: `()`, or `Result<(), E>` where an `Err` is reported
/// as a server failure.
pub trait ServeOutput: Send + 'static {
    /// `Ok` when the server ended normally, else what went wrong.
    fn into_outcome(self) -> Result<(), String>;
}

impl ServeOutput for () {
    fn into_outcome(self) -> Result<(), String> {
        Ok(())
    }
}

impl<E: std::fmt::Debug + Send + 'static> ServeOutput for Result<(), E> {
    fn into_outcome(self) -> Result<(), String> {
        self.map_err(|e| format!("the serve closure returned an error: {e:?}"))
    }
}

impl Fixture {
    /// Replays this fixture against the server that `serve` runs on the given
    /// [`Transport`], and reports every difference.
    ///
    /// `serve` should serve MCP on the transport and return when it closes (for rmcp:
    /// `server.serve(transport).await?.waiting().await`). It runs as its own task, so a
    /// panic in it is reported as a [`MismatchKind::ServerFailure`], not lost.
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
        let (transport, harness) = Transport::pair();
        let serving = serve(transport);
        // Boxed once here: a server's future is often tens of kilobytes (rmcp's is), and
        // spawning it unboxed copies it several times.
        let server = tokio::spawn(Box::pin(async move { serving.await.into_outcome() }));
        let (reader, writer) = tokio::io::split(harness);
        replay::run(self, rules, reader, writer, Some(server)).await
    }
}

#[doc(hidden)]
pub mod __private {
    //! The runtime entry point of `#[mcp_fixture]`. Not a public API.
    use super::*;
    use std::path::Path;

    /// What `#[mcp_fixture]` knows at expansion time.
    pub struct Spec {
        /// `env!("CARGO_MANIFEST_DIR")` of the crate holding the test.
        pub manifest_dir: &'static str,
        /// Fixture folder, relative to `manifest_dir` (default `"fixtures"`).
        pub dir: &'static str,
        /// Fixture name without `.jsonl`; may contain `/`.
        pub name: &'static str,
        /// `concat!(module_path!(), "::", stringify!(fn_name))`.
        pub test_path: &'static str,
        /// `timeout_ms = N`, if given.
        pub timeout_ms: Option<u64>,
        /// `rules = path::to::fn`, if given: the test's own normalization rules.
        pub rules: Option<fn() -> Rules>,
        /// `protocol = "2026-07-28"`, if given: the era to replay in.
        pub protocol: Option<&'static str>,
        /// `mock_server`: the fixture plays the server and the test body is the client.
        pub mock_server: bool,
    }

    /// Loads the fixture, replays it, and re-records or panics with the report.
    pub async fn run<F, Fut, O>(spec: Spec, serve: F)
    where
        F: FnOnce(Transport) -> Fut,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        let outcome = match UpdateMode::from_env() {
            Ok(mode) => try_run(spec, mode, serve).await,
            Err(e) => Err(e.to_string()),
        };
        if let Err(message) = outcome {
            panic!("{message}");
        }
    }

    /// [`run`] with an explicit update mode, returning the failure message instead of
    /// panicking.
    pub async fn try_run<F, Fut, O>(spec: Spec, mode: UpdateMode, serve: F) -> Result<(), String>
    where
        F: FnOnce(Transport) -> Fut,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        let path = Path::new(spec.manifest_dir)
            .join(spec.dir)
            .join(format!("{}.jsonl", spec.name));
        let folder = Path::new(spec.manifest_dir).join(spec.dir);
        let mut fixture = match Fixture::load(&path) {
            Err(Error::MissingFixture { path, .. }) => {
                return Err(Error::MissingFixture {
                    path,
                    test: Some(spec.test_path.to_owned()),
                }
                .to_string())
            }
            other => other.map_err(|e| e.to_string())?,
        };
        if let Some(ms) = spec.timeout_ms {
            fixture = fixture.with_timeout(Duration::from_millis(ms));
        }
        if let Some(version) = spec.protocol {
            fixture = fixture.with_protocol(version);
        }
        if mode == UpdateMode::No {
            fixture = fixture.without_recording();
        }
        let rules = test_rules(&spec, &folder, &fixture).map_err(|e| e.to_string())?;
        if mode != UpdateMode::No {
            claim_for_update(&path, spec.test_path)?;
        }
        if spec.mock_server {
            // Update mode does not apply: the client under test writes nothing to record.
            let (transport, mock) = fixture.mock_server_with(&rules);
            let outcome = serve(transport).await.into_outcome();
            let report = mock.finish().await.with_test_name(spec.test_path);
            outcome?;
            return if report.is_ok() {
                Ok(())
            } else {
                Err(report.to_string())
            };
        }
        let report = fixture
            .replay_with(&rules, serve)
            .await
            .with_test_name(spec.test_path);
        finish(&report, &path, mode)
    }

    /// Two tests of one run re-recording the same fixture would race for the file: the
    /// second is refused, naming both.
    fn claim_for_update(path: &Path, test: &str) -> Result<(), String> {
        use once_cell::sync::Lazy;
        use std::collections::HashMap;
        use std::sync::Mutex;
        static CLAIMS: Lazy<Mutex<HashMap<std::path::PathBuf, String>>> =
            Lazy::new(Default::default);
        let mut claims = CLAIMS.lock().unwrap_or_else(|e| e.into_inner());
        match claims.get(path) {
            Some(owner) if owner != test => Err(format!(
                "fixture {} is re-recorded by two tests, {owner} and {test}: give each test its own fixture \
                 (or re-record one test at a time: MCP_FIXTURE_UPDATE=1 cargo test {})",
                path.display(),
                report::test_filter(test)
            )),
            _ => {
                claims.insert(path.to_owned(), test.to_owned());
                Ok(())
            }
        }
    }

    /// The rules of one test: the defaults (at the version the fixture header pins, with
    /// the crate's workspace root), then the fixture folder's rules file, then the
    /// attribute's `rules = fn`.
    pub fn test_rules(spec: &Spec, folder: &Path, fixture: &Fixture) -> Result<Rules, Error> {
        let mut rules = Rules::default().workspace(workspace_root(Path::new(spec.manifest_dir)));
        if let Some(version) = fixture.rules_version() {
            rules = rules.version(version);
        }
        if let Some(file) = Rules::load_folder(folder)? {
            rules = rules.merge(&file);
        }
        if let Some(own) = spec.rules {
            rules = rules.merge(&own());
        }
        Ok(rules)
    }

    /// The nearest folder at or above `dir` whose `Cargo.toml` declares a `[workspace]`,
    /// else `dir` itself.
    fn workspace_root(dir: &Path) -> std::path::PathBuf {
        dir.ancestors()
            .find(|d| {
                std::fs::read_to_string(d.join("Cargo.toml"))
                    .is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
            })
            .unwrap_or(dir)
            .to_owned()
    }

    /// The stdio framing of one line the harness reads from a server (trailing `\r\n`
    /// trimmed): the message, or why it is not one. For fuzzing.
    pub fn frame_line(line: &[u8]) -> Result<serde_json::Value, String> {
        crate::transport::frame_line(line)
    }

    /// Checks the replay's fast path for responses against the general path on `line`
    /// (`Err` says how they disagree). For fuzzing.
    pub fn fast_path_agrees(line: &str) -> Result<(), String> {
        crate::fast::agrees_with_general(line, &crate::normalize::Paths::example())
    }

    /// The replay's comparison of one server message with a fixture entry, outside a
    /// session. For the benchmarks.
    pub fn line_matches(rules: &Rules, entry: &Entry, line: &str) -> bool {
        crate::replay::line_matches(rules, entry, line)
    }

    /// Applies the update mode to a finished replay: `Ok` when the test passes.
    pub fn finish(report: &Report, path: &Path, mode: UpdateMode) -> Result<(), String> {
        if mode == UpdateMode::No || (report.is_ok() && mode == UpdateMode::Always) {
            return if report.is_ok() {
                Ok(())
            } else {
                Err(report.to_string())
            };
        }
        let Some(recorded) = report.recorded() else {
            return Err(format!(
                "{report}\n\nThe fixture was NOT re-recorded: a timeout, id or server failure means the \
                 server's replies cannot be trusted as a recording. Fix the server first."
            ));
        };
        match write_fixture(recorded, path, mode).map_err(|e| e.to_string())? {
            Written::Unchanged(_) => Ok(()),
            Written::Updated(p) => {
                eprintln!("mcp-replay: re-recorded {}", p.display());
                Ok(())
            }
            Written::Pending(p) => Err(format!(
                "{report}\n\nmcp-replay: wrote the new recording to {new}; review it, then accept it with\n    \
                 mv {new} {old}",
                new = p.display(),
                old = path.display()
            )),
        }
    }
}
