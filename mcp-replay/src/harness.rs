//! What `#[mcp_fixture]` runs and what the `mcp-replay` command runs: one place that
//! resolves a fixture file into a replay (its rules, its time limit, its era, the update
//! mode) and turns the report into a pass, a re-recording or a failure.
//!
//! The attribute builds a [`Spec`] and calls [`run`]; the command builds a [`Plan`] per
//! fixture file and calls [`Plan::prepare`] and [`Plan::conclude`] around its own replay
//! against a child process. So a fixture normalizes the same way under `cargo test` and
//! under `mcp-replay replay`: the same defaults at the version the fixture header pins,
//! the same workspace root for `<WORKSPACE>`, the same rules file beside the fixture.
//!
//! ```no_run
//! use mcp_replay::harness::{Plan, Verdict};
//! use mcp_replay::update::UpdateMode;
//!
//! # async fn demo() -> Result<(), mcp_replay::harness::Failure> {
//! let plan = Plan::new("fixtures/lookup_issue.jsonl", UpdateMode::from_env()?);
//! let (fixture, rules) = plan.prepare()?;
//! let report = fixture
//!     .replay_with(&rules, |transport| async move { drop(transport) })
//!     .await;
//! match plan.conclude(&report)? {
//!     Verdict::Passed => println!("ok"),
//!     Verdict::Rerecorded(path) => println!("re-recorded {}", path.display()),
//! }
//! # Ok(()) }
//! ```

use crate::error::{test_filter, Error};
use crate::fixture::Fixture;
use crate::replay::ServeOutput;
use crate::report::Report;
use crate::rules::Rules;
pub use crate::timing::parse_duration;
use crate::transport::Transport;
use crate::update::{write_fixture, UpdateMode, Written};
use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a replay test failed: the whole report, or why there was no replay. Its `Display`
/// is what the failing test prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure(String);

impl Failure {
    /// The failure message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure(e.to_string())
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure(message)
    }
}

/// How a replay that did not fail ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The server's messages matched the fixture (or matched after re-recording wrote
    /// nothing new).
    Passed,
    /// The fixture was rewritten in place from the server's messages (update mode
    /// `always`).
    Rerecorded(PathBuf),
}

/// One fixture file to replay, with everything that decides how: the resolution the
/// attribute and the command share.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The fixture file.
    pub path: PathBuf,
    /// The test replaying it (`crate::module::name`), for messages; `None` from the command.
    pub test: Option<String>,
    /// The folder `<WORKSPACE>` stands for (see [`workspace_root`]).
    pub workspace: PathBuf,
    /// A time limit per awaited message that overrides the fixture header's.
    pub timeout: Option<Duration>,
    /// The protocol era to replay in, overriding the fixture's.
    pub protocol: Option<String>,
    /// Rules of the caller's own, applied after the defaults and the folder's rules file.
    pub rules: Option<Rules>,
    /// Compare only, or re-record.
    pub mode: UpdateMode,
    /// Print every live message to stderr (`None`: as `MCP_REPLAY_TRACE` says).
    pub trace: Option<bool>,
    /// The report goes to a terminal: colored unless the environment says otherwise
    /// ([`color_wanted`]).
    pub terminal: bool,
    /// A server that needed a signal to stop after its input closed is a finding, as
    /// with the header's `"strict_exit": true` ([`Fixture::with_strict_exit`]).
    pub strict_exit: bool,
    /// Lines on stdout that are not JSON-RPC messages are allowed (a note), as with the
    /// header's `"allow_stray_output": true` ([`Fixture::with_stray_output_allowed`]).
    pub allow_stray_output: bool,
}

impl Plan {
    /// A plan for the fixture at `path` with nothing overridden; the workspace root is
    /// found from the fixture's folder ([`workspace_root`]).
    pub fn new(path: impl Into<PathBuf>, mode: UpdateMode) -> Plan {
        let path = path.into();
        let folder = absolute(path.parent().unwrap_or(Path::new(".")));
        Plan {
            workspace: workspace_root(&folder),
            path,
            test: None,
            timeout: None,
            protocol: None,
            rules: None,
            mode,
            trace: None,
            terminal: false,
            strict_exit: false,
            allow_stray_output: false,
        }
    }

    /// Loads the fixture with the plan's overrides applied, and resolves its rules
    /// ([`rules_for`]). A missing fixture names the test and says how to start one.
    pub fn prepare(&self) -> Result<(Fixture, Rules), Failure> {
        let mut fixture = match Fixture::load(&self.path) {
            Err(Error::MissingFixture { path, .. }) => {
                return Err(Error::MissingFixture {
                    path,
                    test: self.test.clone(),
                }
                .into())
            }
            other => other?,
        };
        if let Some(timeout) = self.timeout {
            fixture = fixture.with_timeout(timeout);
        }
        if let Some(version) = &self.protocol {
            fixture = fixture.with_protocol(version);
        }
        if let Some(on) = self.trace {
            fixture = fixture.with_trace(on);
        }
        if self.strict_exit {
            fixture = fixture.with_strict_exit(true);
        }
        if self.allow_stray_output {
            fixture = fixture.with_stray_output_allowed(true);
        }
        if self.mode == UpdateMode::No {
            fixture = fixture.without_recording();
        }
        let folder = self.path.parent().unwrap_or(Path::new("."));
        let rules = rules_for(Some(&fixture), folder, &self.workspace, self.rules.as_ref())?;
        Ok((fixture, rules))
    }

    /// Applies the update mode to a finished replay: passes, re-records, or fails with
    /// the report (and, in `new` mode, with the command that accepts the pending file).
    pub fn conclude(&self, report: &Report) -> Result<Verdict, Failure> {
        let mode = self.mode;
        // Accepted contract changes pass, yet a re-recording writes what the server sent.
        let unchanged = report.is_ok() && report.accepted().is_empty();
        if mode == UpdateMode::No || (unchanged && mode == UpdateMode::Always) {
            return if report.is_ok() {
                Ok(Verdict::Passed)
            } else {
                Err(Failure(render(report, self.terminal)))
            };
        }
        let text = render(report, self.terminal);
        let Some(recorded) = report.recorded() else {
            let stray = report
                .mismatches()
                .iter()
                .any(|m| m.kind() == crate::MismatchKind::StrayOutput);
            let why = if stray {
                "The fixture was NOT re-recorded: the server writes lines on stdout that are not \
                 JSON-RPC messages. Fix the server, or allow them explicitly with \
                 \"allow_stray_output\": true in the fixture header (then re-record)."
            } else {
                "The fixture was NOT re-recorded: a timeout, id or server failure means the \
                 server's replies cannot be trusted as a recording. Fix the server first."
            };
            return Err(Failure(format!("{text}\n\n{why}")));
        };
        match write_fixture(recorded, &self.path, mode)? {
            Written::Unchanged(_) => Ok(Verdict::Passed),
            Written::Updated(p) => Ok(Verdict::Rerecorded(p)),
            Written::Pending(p) => Err(Failure(format!(
                "{text}\n\nmcp-replay: wrote the new recording to {new}; review it, then accept it with\n    \
                 mv {new} {old}",
                new = p.display(),
                old = self.path.display()
            ))),
        }
    }
}

/// The rules of one replay, in order: the defaults (at the version `fixture`'s header
/// pins, with `workspace` as `<WORKSPACE>`), then `folder`'s rules file
/// ([`RULES_FILE`](crate::rules::RULES_FILE)), then `own`.
pub fn rules_for(
    fixture: Option<&Fixture>,
    folder: &Path,
    workspace: &Path,
    own: Option<&Rules>,
) -> Result<Rules, Error> {
    let mut rules = Rules::default().workspace(workspace);
    if let Some(version) = fixture.and_then(|f| f.header().rules_version) {
        rules = rules.version(version);
    }
    if let Some(file) = Rules::load_folder(folder)? {
        rules = rules.merge(&file);
    }
    if let Some(own) = own {
        rules = rules.merge(own);
    }
    Ok(rules)
}

/// The folder `<WORKSPACE>` stands for, seen from `start`: the nearest folder at or above
/// it whose `Cargo.toml` declares a `[workspace]`, else the nearest with a `Cargo.toml`
/// (a crate of its own), else the current folder (a project in another language).
pub fn workspace_root(start: &Path) -> PathBuf {
    let start = absolute(start);
    let manifest = |d: &Path| std::fs::read_to_string(d.join("Cargo.toml")).ok();
    if let Some(root) = start
        .ancestors()
        .find(|d| manifest(d).is_some_and(|t| t.lines().any(|l| l.trim() == "[workspace]")))
    {
        return root.to_owned();
    }
    match start.ancestors().find(|d| d.join("Cargo.toml").is_file()) {
        Some(krate) => krate.to_owned(),
        None => std::env::current_dir().unwrap_or(start),
    }
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_owned())
    }
}

/// What `#[mcp_fixture]` knows at expansion time.
#[derive(Debug, Clone, Copy)]
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
    /// `allow_stray_output`: lines on stdout that are not JSON-RPC messages are a note,
    /// not a finding (as the header's `"allow_stray_output": true`).
    pub allow_stray_output: bool,
}

impl Spec {
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
            workspace: workspace_root(Path::new(self.manifest_dir)),
            timeout: self.timeout_ms.map(Duration::from_millis),
            protocol: self.protocol.map(str::to_owned),
            rules: self.rules.map(|f| f()),
            mode,
            trace: None,
            terminal: false,
            strict_exit: false,
            allow_stray_output: self.allow_stray_output,
        }
    }
}

/// The whole `#[mcp_fixture]` test: reads the update mode from
/// [`UPDATE_ENV`](crate::update::UPDATE_ENV), then [`run_in`]. The expansion panics with
/// the failure, at the test function's own location.
pub async fn run<F, Fut, O>(spec: Spec, serve: F) -> Result<(), Failure>
where
    F: FnOnce(Transport) -> Fut,
    Fut: Future<Output = O> + Send + 'static,
    O: ServeOutput,
{
    run_in(spec, UpdateMode::from_env()?, serve).await
}

/// Loads the test's fixture, replays it against `serve` (or, with `mock_server`, plays
/// its server side to the client `serve` runs), and applies `mode`.
pub async fn run_in<F, Fut, O>(spec: Spec, mode: UpdateMode, serve: F) -> Result<(), Failure>
where
    F: FnOnce(Transport) -> Fut,
    Fut: Future<Output = O> + Send + 'static,
    O: ServeOutput,
{
    let plan = spec.plan(mode);
    let (fixture, rules) = plan.prepare()?;
    if spec.mock_server {
        // Update mode does not apply: the client under test writes nothing to record.
        let (transport, mock) = fixture.mock_server_with(&rules);
        let outcome = serve(transport).await.into_outcome();
        let report = mock.finish().await.with_test_name(spec.test_path);
        outcome?;
        return if report.is_ok() {
            print_notes(&report);
            Ok(())
        } else {
            Err(Failure(render(&report, false)))
        };
    }
    if mode != UpdateMode::No {
        claim_for_update(&plan.path, spec.test_path)?;
    }
    let report = fixture
        .replay_with(&rules, serve)
        .await
        .with_test_name(spec.test_path);
    let verdict = plan.conclude(&report)?;
    print_notes(&report);
    if let Verdict::Rerecorded(path) = verdict {
        eprintln!("mcp-replay: re-recorded {}", path.display());
    }
    Ok(())
}

/// Whether to write reports with ANSI colors (`{:#}`), as the conventions say: never when
/// `NO_COLOR` is set (not empty); always when `CLICOLOR_FORCE` is set (not `0`); never when
/// `CLICOLOR` is `0`; else when the output is a terminal. The command passes whether its
/// stdout is one; under `cargo test` the attribute passes `false` (libtest captures the
/// output, and CI logs and editors show escape codes as noise), so a report there is in
/// color only when `CLICOLOR_FORCE` asks.
pub fn color_wanted(terminal: bool) -> bool {
    color_by(|key| std::env::var(key).ok(), terminal)
}

fn color_by(var: impl Fn(&str) -> Option<String>, terminal: bool) -> bool {
    if var("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if var("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    terminal && var("CLICOLOR").as_deref() != Some("0")
}

/// A report as text, in color when [`color_wanted`].
pub(crate) fn render(report: &Report, terminal: bool) -> String {
    if color_wanted(terminal) {
        format!("{report:#}")
    } else {
        report.to_string()
    }
}

/// The whole `#[mcp_fixture("name", http)]` test (cargo feature `http`): the test's body
/// makes the Streamable HTTP service, and the fixture replays against it in process
/// ([`Fixture::replay_http_with`]), with the update mode of [`run`].
#[cfg(feature = "http")]
pub async fn run_http<Fut, S>(spec: Spec, service: Fut) -> Result<(), Failure>
where
    Fut: Future<Output = S>,
    S: crate::http::HttpService,
{
    let mode = UpdateMode::from_env()?;
    let plan = spec.plan(mode);
    let (fixture, rules) = plan.prepare()?;
    if mode != UpdateMode::No {
        claim_for_update(&plan.path, spec.test_path)?;
    }
    let bridge = crate::http::bridge::Bridge::new(service.await);
    let report = fixture
        .replay_http_with(&rules, bridge)
        .await
        .with_test_name(spec.test_path);
    let verdict = plan.conclude(&report)?;
    print_notes(&report);
    if let Verdict::Rerecorded(path) = verdict {
        eprintln!("mcp-replay: re-recorded {}", path.display());
    }
    Ok(())
}

/// The notes of a report that passed, on stderr (libtest shows them with `--nocapture`;
/// a failing report has them in its text).
fn print_notes(report: &Report) {
    for note in report.notes() {
        eprintln!("mcp-replay: {}: note: {note}", report.source());
    }
}

/// Two tests of one run re-recording the same fixture would race for the file: the
/// second is refused, naming both.
fn claim_for_update(path: &Path, test: &str) -> Result<(), Failure> {
    use once_cell::sync::Lazy;
    use std::collections::HashMap;
    use std::sync::Mutex;
    static CLAIMS: Lazy<Mutex<HashMap<PathBuf, String>>> = Lazy::new(Default::default);
    let mut claims = CLAIMS.lock().unwrap_or_else(|e| e.into_inner());
    match claims.get(path) {
        Some(owner) if owner != test => Err(Failure(format!(
            "fixture {} is re-recorded by two tests, {owner} and {test}: give each test its own fixture \
             (or re-record one test at a time: MCP_FIXTURE_UPDATE=1 cargo test {})",
            path.display(),
            test_filter(test)
        ))),
        _ => {
            claims.insert(path.to_owned(), test.to_owned());
            Ok(())
        }
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn color_as_no_color_and_clicolor_force_say() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert!(color_by(env(&[]), true));
        assert!(!color_by(env(&[]), false));
        assert!(!color_by(env(&[("NO_COLOR", "1")]), true));
        assert!(color_by(env(&[("NO_COLOR", "")]), true));
        assert!(color_by(env(&[("CLICOLOR_FORCE", "1")]), false));
        assert!(!color_by(env(&[("CLICOLOR_FORCE", "0")]), false));
        assert!(!color_by(
            env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]),
            true
        ));
        assert!(!color_by(env(&[("CLICOLOR", "0")]), true));
    }

    #[test]
    fn resolve_a_fixture_the_same_way_for_the_attribute_and_the_command() {
        let root = std::env::temp_dir().join(format!("mcp-replay-same-{}", std::process::id()));
        let krate = root.join("member");
        let fixtures = krate.join("tests/fixtures");
        std::fs::create_dir_all(&fixtures).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[workspace]\n").unwrap();
        std::fs::write(krate.join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(
            fixtures.join(crate::rules::RULES_FILE),
            r#"{"replace":[{"selector":".result.id","with":"<ID>"}]}"#,
        )
        .unwrap();
        std::fs::write(
            fixtures.join("a.jsonl"),
            "{\"mcp_replay\":1,\"rules\":1,\"timeout\":\"700ms\"}\n",
        )
        .unwrap();
        let manifest_dir: &'static str = Box::leak(krate.display().to_string().into_boxed_str());
        let spec = Spec {
            manifest_dir,
            dir: "tests/fixtures",
            name: "a",
            test_path: "c::a",
            timeout_ms: None,
            rules: None,
            protocol: None,
            mock_server: false,
            allow_stray_output: false,
        };
        let attribute = spec.plan(UpdateMode::No);
        // The command, started from another folder with a relative path.
        let command = Plan::new(fixtures.join("a.jsonl"), UpdateMode::No);
        assert_eq!(attribute.path, command.path);
        assert_eq!(attribute.workspace, root);
        assert_eq!(command.workspace, root);
        let (fa, ra) = attribute.prepare().unwrap();
        let (fc, rc) = command.prepare().unwrap();
        assert_eq!(format!("{ra:?}"), format!("{rc:?}"));
        assert!(format!("{ra:?}").contains("<ID>"), "{ra:?}");
        assert_eq!(fa.timeout(), Duration::from_millis(700));
        assert_eq!(fa, fc);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn find_the_workspace_above_a_crate_and_the_crate_without_one() {
        let root = std::env::temp_dir().join(format!("mcp-replay-ws-{}", std::process::id()));
        let krate = root.join("member");
        let fixtures = krate.join("fixtures");
        std::fs::create_dir_all(&fixtures).unwrap();
        std::fs::write(krate.join("Cargo.toml"), "[package]\nname = \"m\"\n").unwrap();
        assert_eq!(workspace_root(&fixtures), krate);
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"member\"]\n",
        )
        .unwrap();
        assert_eq!(workspace_root(&fixtures), root);
        assert_eq!(workspace_root(&krate), root);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
