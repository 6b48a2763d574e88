//! # mcp-replay
//!
//! Regression tests that pin the protocol contract of an MCP (Model Context Protocol)
//! server. A **fixture** is a small JSONL file holding one representative exchange, with
//! request ids as placeholders; a test feeds the fixture's client messages into the
//! server under test over an in-process [`Transport`], compares what the server sends
//! back with the fixture, and reports every difference by kind ([`MismatchKind`]: a
//! method, params or a result that changed, an id, the order of notifications, a message
//! missing or unexpected, a timeout, a protocol violation, ...), each with a diff.
//!
//! ## With the attribute
//!
//! ```no_run
//! use mcp_replay::{mcp_fixture, Transport};
//! use rmcp::ServiceExt;
//! # #[derive(Default)]
//! # struct DemoServer;
//! # impl rmcp::ServerHandler for DemoServer {}
//! # // `#[tokio::test]` as `#[tokio::main]`: outside `cargo test`'s own harness a test
//! # // function is not compiled at all; this way its body is type-checked.
//! # mod tokio { pub use ::tokio::{main as test, runtime}; }
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
//! When the server answers differently, the failing test leaves its new answers beside
//! the fixture as `lookup_issue.jsonl.new` for `mcp-replay review` (nothing under CI: the
//! default `MCP_FIXTURE_UPDATE=auto`, as insta's); `MCP_FIXTURE_UPDATE=1 cargo test
//! lookup_issue` re-records the fixture's server messages in place; see [`UpdateMode`].
//!
//! ## Without it
//!
//! Two entry points, one for each need:
//!
//! - [`harness::Plan::run`] behaves as the attribute does, for any fixture file: the
//!   fixture folder's rules file, the workspace root for `<WORKSPACE>`,
//!   `MCP_FIXTURE_UPDATE`, and the same report and advice.
//!   `Plan::new(path, UpdateMode::from_env()?).run(serve).await` is
//!   `#[mcp_fixture]` without the macro.
//! - [`Fixture::replay`] is the bare replay: the fixture as you loaded or built it, the
//!   default rules (or yours, with [`Replay::rules`]), no update
//!   mode and no file written; the [`Report`] is yours to inspect, and
//!   [`Report::recorded`] is the fixture a re-recording would write.
//!
//! ```
//! use mcp_replay::{Fixture, MismatchKind};
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let fixture = Fixture::parse(concat!(
//!     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{}}}"#, "\n",
//!     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"demo","version":"1.0.0"}}}}"#, "\n",
//! )).unwrap();
//!
//! // A hand-written server that answers every request as version 1.0.1.
//! let report = fixture
//!     .replay().run(|transport| async move {
//!         let (read, mut write) = tokio::io::split(transport);
//!         let mut lines = BufReader::new(read).lines();
//!         while let Ok(Some(line)) = lines.next_line().await {
//!             let request: serde_json::Value = serde_json::from_str(&line).unwrap();
//!             let result = serde_json::json!({"capabilities": {}, "protocolVersion": "2025-11-25",
//!                 "serverInfo": {"name": "demo", "version": "1.0.1"}});
//!             let reply = serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
//!             write.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
//!         }
//!     })
//!     .await;
//!
//! assert!(!report.is_ok());
//! assert_eq!(report.mismatches()[0].kind(), MismatchKind::Result);
//! assert_eq!(report.mismatches()[0].differences()[0].path(), ".result.serverInfo.version");
//! # }
//! ```
//!
//! ## The API at a glance
//!
//! - At the root, what a test touches: [`mcp_fixture`], [`Fixture`] (load, configure,
//!   [`replay`](Fixture::replay), [`mock`](Fixture::mock)), [`Transport`],
//!   [`Report`] with its [`Mismatch`]es, [`MismatchKind`] and [`Difference`]s, [`Rules`],
//!   [`Options`], [`ProtocolCheck`], [`UpdateMode`], [`Error`], and [`ServeOutput`] (what a
//!   serve closure may return).
//! - [`harness`]: the flow `#[mcp_fixture]` runs, for a runner of your own ([`harness::Plan`],
//!   [`harness::Target`]), two servers compared ([`harness::Pair`]), one test per fixture
//!   file (`harness::Files`, feature `files`), exploring (`harness::Explore`, feature
//!   `explore`).
//! - [`mock`]: the fixture as a server for a client under test; [`process`]: a server in a
//!   child process (feature `process`); `http`: Streamable HTTP in process (feature
//!   `http`).
//! - [`fixture`]: the parts of a fixture ([`Entry`](fixture::Entry), the typed
//!   [`Header`](fixture::Header), ...); [`personal`]: the values files of personal data;
//!   [`contract`]: the classes of a contract change.
//!
//! Everything else the `mcp-replay` command uses (recording, the output formats, the
//! coverage probe, the contract diff) is not part of this API.
//!
//! The fixture format and the replay algorithm are described in `docs/fixture-format.md`.

#![warn(missing_docs)]

mod env;
mod error;
pub mod harness;
mod normalize;
mod options;
mod terminal;
pub use validate::ProtocolCheck;

mod analyses;
mod data;
mod engine;
mod findings;
mod lifecycle;

pub use analyses::contract;
use analyses::validate;
pub use data::fixture;
#[cfg(feature = "http")]
pub use engine::http;
pub use engine::mock;
pub use engine::process;
pub use normalize::personal;

/// What only the `mcp-replay` command and this repository's own tests, benchmarks and
/// fuzz targets use (as insta's `_cargo_insta_support`): not a public API, not part of
/// the documented surface a test author reads, and no promise of stability. The
/// recording, the re-recording's machinery, the command's output formats, the coverage
/// probe, the contract diff, the validator, the protocol's constants, the environment's
/// names and the parts of the HTTP bridge and front a test never names.
#[doc(hidden)]
pub mod _support {
    #[cfg(feature = "command")]
    pub use crate::analyses::coverage;
    pub use crate::analyses::{diff, validate};
    pub use crate::data::timing::parse_duration;
    pub use crate::data::{explored, protocol};
    #[cfg(feature = "http")]
    pub use crate::engine::http::{bridge, front, sse};
    /// The names of the environment variables the runtime reads (`env.rs`).
    pub mod env {
        pub use crate::env::*;
    }
    pub use crate::findings::output;
    #[cfg(feature = "command")]
    pub use crate::harness::coverage::{ask_surface, era_of, load_fixtures};
    pub use crate::harness::page::{page_name, write_html};
    pub use crate::harness::plan::settle;
    pub use crate::harness::resolve::{check_denied, rules_for, workspace_root};
    #[cfg(feature = "command")]
    pub use crate::lifecycle::mcporter;
    pub use crate::lifecycle::{record, update};
    pub use crate::normalize::rules;
    pub use crate::terminal::{color_wanted, shell_line, shell_quote};
}

use normalize::rules;

pub use data::json::Difference;
pub use engine::replay::{Replay, Serve, ServeOutput, ServerError};
pub use engine::transport::Transport;
pub use error::{Error, Invalid};
pub use findings::report::{Mismatch, MismatchKind, Report};
pub use fixture::Fixture;
pub use lifecycle::update::UpdateMode;
/// Turns an `async fn` test taking one [`Transport`] into a replay test of the
/// fixture `<dir>/<name>.jsonl`; with two, the server's and the client's, the body is the
/// client and the fixture its record ([`harness::Target::pair`]).
///
/// Write it **above** `#[tokio::test]` (attributes expand top to bottom):
///
/// ```no_run
/// use mcp_replay::{mcp_fixture, Transport};
/// use rmcp::ServiceExt;
/// # #[derive(Default)]
/// # struct DemoServer;
/// # impl rmcp::ServerHandler for DemoServer {}
/// # // `#[tokio::test]` as `#[tokio::main]`, so that the test functions are type-checked.
/// # mod tokio { pub use ::tokio::{main as test, runtime}; }
///
/// #[mcp_fixture("lookup_issue")]
/// #[tokio::test]
/// async fn lookup_issue(transport: Transport) {
///     let server = DemoServer::default().serve(transport).await.unwrap();
///     let _ = server.waiting().await;
/// }
///
/// // Two transports: the body is the client. It serves its server on the first and
/// // drives rmcp's typed client on the second; the exchange is the fixture, written by
/// // the first run (`MCP_FIXTURE_UPDATE=1`), compared on every later one.
/// #[mcp_fixture("lookup_flow")]
/// #[tokio::test]
/// async fn lookup_flow(server: Transport, client: Transport) {
///     ::tokio::spawn(async move {
///         let server = DemoServer::default().serve(server).await.unwrap();
///         let _ = server.waiting().await;
///     });
///     let client = ().serve(client).await.unwrap();
///     let tools = client.list_all_tools().await.unwrap();
///     assert!(tools.is_empty());
///     client.cancel().await.unwrap();
/// }
///
/// // Options: a subfolder in the name, another fixture folder, a time limit.
/// #[mcp_fixture("issues/lookup", dir = "tests/fixtures", timeout_ms = 500)]
/// #[tokio::test(flavor = "multi_thread")]
/// async fn lookup_in_subfolder(transport: Transport) -> Result<(), String> {
///     let server = DemoServer::default().serve(transport).await.map_err(|e| e.to_string())?;
///     let _ = server.waiting().await;
///     Ok(())
/// }
/// # fn main() {}
/// ```
///
/// - The first argument is the fixture name: the file name relative to the
///   fixture folder, without `.jsonl`; `/` separates subfolders.
/// - `dir = "..."`: the fixture folder, relative to the crate root
///   (`CARGO_MANIFEST_DIR`); default `"fixtures"`.
/// - `timeout_ms = N`: a time limit in milliseconds (greater than 0).
/// - `rules = path::to::f`: a `fn() -> Rules` of the test's own, applied after the
///   defaults and the fixture folder's rules file.
/// - `protocol = "2026-07-28"`: the protocol era to replay in.
/// - `protocol_check = "warn"`: a server message that is not valid MCP is a warning in
///   the report instead of a [`MismatchKind::Protocol`] finding (`"off"`: not checked;
///   `"deny"`, the default: a finding), as with the fixture header's `"protocol_check"`.
/// - `mock_server`: the other way round: the fixture plays the server and the test
///   body is the client under test.
/// - `http` (cargo feature `http`): the fixture replays over Streamable HTTP, in
///   process. The test takes no transport and returns the service to replay against,
///   any tower `Service<http::Request<Full<Bytes>>>` such as rmcp's
///   `StreamableHttpService`; its declared return type is kept, so a generic
///   constructor infers its parameters from it.
/// - `allow_stray_output`: lines the server writes on stdout that are not JSON-RPC
///   messages (a banner, logs: a server in a child process may print them) are a note
///   in the report instead of a [`MismatchKind::StrayOutput`] finding, as with the
///   fixture header's `"allow_stray_output": true`.
///
/// The function may return `()` or `Result<(), E>` with `E: Debug` (an `Err` is
/// reported as a server failure); it must not be generic. The test becomes a
/// parameterless `async fn` whose body is one chain of calls on [`harness::Test`], with
/// the original body as the serve closure; all other attributes are kept as written. A
/// failing test panics with the report at the test function's own file and line.
pub use mcp_replay_macros::mcp_fixture;
pub use options::{Options, ServerRequestHandler};
pub use rules::Rules;

/// Hooks into the internals for this repository's benchmarks and fuzz targets, behind
/// the `internals` feature that users never turn on. Not a public API.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    use crate::data::fixture::Entry;
    use crate::rules::Rules;

    /// The stdio framing of one line the harness reads from a server (trailing `\r\n`
    /// trimmed): the message, or why it is not one.
    pub fn frame_line(line: &[u8]) -> Result<serde_json::Value, crate::Invalid> {
        crate::engine::transport::frame_line(line)
    }

    /// Checks the replay's fast path for responses against the general path on `line`
    /// (`Err` says how they disagree).
    pub fn fast_path_agrees(line: &str) -> Result<(), crate::Invalid> {
        crate::normalize::fast::agrees_with_general(line)
    }

    /// The replay's comparison of one server message with a fixture entry, outside a
    /// session.
    pub fn line_matches(rules: &Rules, entry: &Entry, line: &str) -> bool {
        crate::engine::replay::line_matches(rules, entry, line)
    }
}
