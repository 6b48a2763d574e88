//! What `#[mcp_fixture]` runs and what the `mcp-replay` command runs: one place that
//! resolves a fixture file into a replay (its rules, its time limit, its era, the update
//! mode) and turns the report into a pass, a re-recording or a failure.
//!
//! The attribute and [`Plan::run`] (the attribute's behaviour without the macro) claim
//! the fixture for the update mode, prepare it, replay it and conclude; the command builds
//! a [`Plan`] per fixture file and calls [`Plan::prepare`] and [`Plan::conclude`] around
//! its own replay against a child process or a URL. So a fixture normalizes the same way under `cargo test` and
//! under `mcp-replay replay`: the same defaults at the version the fixture header pins,
//! the same workspace root for `<WORKSPACE>`, the same rules file beside the fixture.
//!
//! ```no_run
//! use mcp_replay::harness::{Plan, Verdict};
//! use mcp_replay::update::UpdateMode;
//!
//! # async fn demo() -> Result<(), mcp_replay::harness::Failure> {
//! let plan = Plan::new("fixtures/lookup_issue.jsonl", UpdateMode::from_env()?);
//! let (fixture, rules, options) = plan.prepare()?;
//! let report = fixture
//!     .replay_with_options(&rules, &options, |transport| async move { drop(transport) })
//!     .await;
//! match plan.conclude(&report)? {
//!     Verdict::Passed => println!("ok"),
//!     Verdict::Rerecorded(path) => println!("re-recorded {}", path.display()),
//! }
//! # Ok(()) }
//! ```

use crate::error::Error;
use crate::fixture::Fixture;
use crate::options::Options;
use crate::replay::ServeOutput;
use crate::report::Report;
use crate::rules::Rules;
pub use crate::terminal::{color_wanted, shell_line, shell_quote};
pub use crate::timing::parse_duration;
use crate::transport::Transport;
use crate::update::{write_fixture, UpdateMode, Written};
use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a replay test failed: the whole report, or why there was no replay. Its `Display`
/// is what the failing test prints; the command maps each kind to its exit status
/// ([`Failure::is_error`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Failure {
    /// The fixture (or the rules beside it, or `MCP_FIXTURE_UPDATE`) could not be read, is
    /// missing, invalid, empty or holds a secret, or a re-recording could not be written:
    /// match the [`Error`] for which.
    Input(Error),
    /// The server the command was to replay against could not be started (the message
    /// names the command and the reason).
    ServerDidNotStart(String),
    /// The replay found differences: the report, as text.
    Findings(String),
    /// The replay passed or failed, but its recording cannot be trusted as a fixture (a
    /// timeout, an id finding, a server failure, stray output): not re-recorded, and why.
    NotRerecorded(String),
    /// In update mode `new`, the new recording was written beside the fixture for review.
    Pending {
        /// The `.jsonl.new` file.
        path: PathBuf,
        /// The report and the commands that accept or reject it.
        message: String,
    },
    /// Two tests of one run replay one fixture and get different answers (one re-records
    /// it, the other then differs from what it wrote).
    Shared(String),
}

impl Failure {
    /// The failure message.
    pub fn message(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Failure::Input(e) => e.to_string().into(),
            Failure::ServerDidNotStart(m)
            | Failure::Findings(m)
            | Failure::NotRerecorded(m)
            | Failure::Pending { message: m, .. }
            | Failure::Shared(m) => m.as_str().into(),
        }
    }

    /// `true` when this is not a finding of the replay but an error of its input: the
    /// fixture, its rules or the update mode could not be read or written
    /// ([`Failure::Input`]), or the server could not be started. A report with findings, a
    /// re-recording refused because the replay cannot be trusted, and a pending
    /// `.jsonl.new` are findings. `mcp-replay replay` exits 2 for an error, 1 for a finding.
    pub fn is_error(&self) -> bool {
        matches!(self, Failure::Input(_) | Failure::ServerDidNotStart(_))
    }

    /// This failure with `text` as a paragraph of its own at the end of its message (an
    /// input error keeps its own).
    fn mention(self, text: &str) -> Failure {
        let add = |m: String| format!("{m}\n\n{text}");
        match self {
            Failure::Input(e) => Failure::Input(e),
            Failure::ServerDidNotStart(m) => Failure::ServerDidNotStart(add(m)),
            Failure::Findings(m) => Failure::Findings(add(m)),
            Failure::NotRerecorded(m) => Failure::NotRerecorded(add(m)),
            Failure::Pending { path, message } => Failure::Pending {
                path,
                message: add(message),
            },
            Failure::Shared(m) => Failure::Shared(add(m)),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Failure::Input(e) => Some(e),
            _ => None,
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Input(e)
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
    /// How the replay runs where the caller says so (a time limit, the protocol era, the
    /// trace, strict exit, stray output allowed, ...): the header, the environment and the
    /// defaults decide the rest. Compare only is set from `mode`.
    pub options: Options,
    /// Rules of the caller's own, applied after the defaults and the folder's rules file.
    pub rules: Option<Rules>,
    /// Compare only, or re-record.
    pub mode: UpdateMode,
    /// The report goes to a terminal: colored unless the environment says otherwise
    /// ([`color_wanted`]).
    pub terminal: bool,
    /// The folder [`Plan::run`] writes the picture of the session to, as one
    /// self-contained HTML page named after the test ([`page_name`]), passing or failing;
    /// a relative folder is taken from the workspace root. By default what
    /// [`HTML_ENV`] (`MCP_REPLAY_HTML`) names; `None`: no page, and the replay keeps no
    /// timeline. The command writes its pages itself (`replay --html`).
    pub html: Option<PathBuf>,
}

/// The environment variable naming the folder where `#[mcp_fixture]` tests (and
/// [`Plan::run`]) write the picture of each session: `MCP_REPLAY_HTML=target/replay-html
/// cargo test` writes `target/replay-html/<test>.html` for every replay test, passing or
/// failing, and a failing test's message names its page.
pub const HTML_ENV: &str = "MCP_REPLAY_HTML";

/// The folder [`HTML_ENV`] names, if it is set and not empty.
fn html_from_env() -> Option<PathBuf> {
    html_folder(std::env::var_os(HTML_ENV).as_deref())
}

fn html_folder(value: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    value
        .filter(|v| !v.to_string_lossy().trim().is_empty())
        .map(PathBuf::from)
}

/// The file name of the page of `test` (`crate::module::name`, as `#[mcp_fixture]` names
/// it): `crate.module.name.html`, with any character a file name may not hold on some
/// system written `_`.
pub fn page_name(test: &str) -> String {
    let name: String = test
        .replace("::", ".")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{}.html", name.trim_start_matches('.'))
}

/// Writes the picture of the session of `report` ([`Report::to_html`]) to `path`
/// atomically, creating its folder: `Ok(false)`, and nothing written, when the replay kept
/// no timeline ([`Options::timeline`]).
pub fn write_html(report: &Report, path: &Path) -> Result<bool, Error> {
    let Some(page) = report.to_html() else {
        return Ok(false);
    };
    crate::update::write_atomically(path, |file| {
        use std::io::Write as _;
        file.write_all(page.as_bytes())
    })
    .map_err(|e| match e {
        // Whatever step failed (its folder, the temporary file), the page names it.
        Error::Io { source, .. } => Error::io(format!("writing {}", path.display()), source),
        other => other,
    })?;
    Ok(true)
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
            options: Options::default(),
            rules: None,
            mode,
            terminal: false,
            html: html_from_env(),
        }
    }

    /// Loads the fixture and resolves its rules ([`rules_for`]) and the options it replays
    /// with (compare only unless the update mode re-records). A missing fixture names the
    /// test and says how to start one.
    pub fn prepare(&self) -> Result<(Fixture, Rules, Options), Failure> {
        let fixture = match Fixture::load(&self.path) {
            Err(Error::MissingFixture { path, .. }) => {
                return Err(Error::MissingFixture {
                    path,
                    test: self.test.clone(),
                }
                .into())
            }
            other => other?,
        };
        let mut options = self.options.clone();
        match self.mode {
            UpdateMode::No => options = options.without_recording(),
            // A passing test writes nothing in `new` (the default outside CI): no copy of
            // its exchange is made for it.
            UpdateMode::New => options = options.record_on_change(),
            UpdateMode::Always | UpdateMode::Force => {}
        }
        if self.html.is_some() {
            options = options.timeline(true);
        }
        let folder = self.path.parent().unwrap_or(Path::new("."));
        let rules = rules_for(Some(&fixture), folder, &self.workspace, self.rules.as_ref())?;
        check_denied(&fixture, &rules)?;
        Ok((fixture, rules, options))
    }

    /// What `#[mcp_fixture]` does, without the macro: claims the fixture for this run's
    /// update mode (several tests of one fixture re-record it once), [`prepare`]s it (the
    /// folder's rules file, the workspace root, the overrides), replays it against the
    /// server `serve` runs, prints a passing report's notes, and [`conclude`]s (passes,
    /// re-records, or fails with the report and the advice that fits it). The same fixture
    /// folder gives the same result as under the attribute.
    ///
    /// ```no_run
    /// use mcp_replay::harness::Plan;
    /// use mcp_replay::update::UpdateMode;
    ///
    /// # async fn demo() -> Result<(), mcp_replay::harness::Failure> {
    /// Plan::new("fixtures/lookup_issue.jsonl", UpdateMode::from_env()?)
    ///     .run(|transport| async move { drop(transport) })
    ///     .await?;
    /// # Ok(()) }
    /// ```
    ///
    /// [`prepare`]: Plan::prepare
    /// [`conclude`]: Plan::conclude
    pub async fn run<F, Fut, O>(self, serve: F) -> Result<Verdict, Failure>
    where
        F: FnOnce(Transport) -> Fut,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        let test = self
            .test
            .clone()
            .unwrap_or_else(|| self.path.display().to_string());
        let claim = claim_for_update(&self, &test).await;
        let plan = claim.plan(self);
        let (fixture, rules, options) = plan.prepare()?;
        let mut report = fixture.replay_with_options(&rules, &options, serve).await;
        if let Some(test) = &plan.test {
            report = report.with_test_name(test);
        }
        if report.is_ok() {
            print_notes(&report);
        }
        let page = plan.write_page(&report);
        with_page(claim.conclude(&plan, &report, &test), page)
    }

    /// Where [`Plan::run`] writes the page of this plan's session, if it writes one:
    /// [`page_name`] of the test (else of the fixture's file name) in [`Plan::html`].
    pub fn page_path(&self) -> Option<PathBuf> {
        let folder = self.html.as_ref()?;
        let folder = if folder.is_absolute() {
            folder.clone()
        } else {
            self.workspace.join(folder)
        };
        let name = match &self.test {
            Some(test) => page_name(test),
            None => page_name(
                &self
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ),
        };
        Some(folder.join(name))
    }

    /// Writes the page of `report` where [`page_path`](Plan::page_path) says: `None` when
    /// there is none to write.
    fn write_page(&self, report: &Report) -> Option<Result<PathBuf, Error>> {
        let path = self.page_path()?;
        match write_html(report, &path) {
            Ok(true) => Some(Ok(path)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// Applies the update mode to a finished replay: passes, re-records, or fails with
    /// the report (and, in `new` mode, with the command that accepts the pending file).
    pub fn conclude(&self, report: &Report) -> Result<Verdict, Failure> {
        let mode = self.mode;
        // Accepted contract changes pass, yet a re-recording writes what the server sent.
        let unchanged = report.is_ok() && report.accepted().is_empty();
        // An unchanged server writes nothing, in every mode (a stale pending file of an
        // earlier run no longer says what the server does: it goes).
        if unchanged && mode == UpdateMode::New {
            crate::update::remove_pending(&self.path)?;
        }
        if mode == UpdateMode::No || (unchanged && mode != UpdateMode::Force) {
            return if report.is_ok() {
                Ok(Verdict::Passed)
            } else {
                Err(Failure::Findings(render(report, self.terminal)))
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
            return Err(Failure::NotRerecorded(format!("{text}\n\n{why}")));
        };
        match write_fixture(recorded, &self.path, mode)? {
            Written::Unchanged(_) => Ok(Verdict::Passed),
            Written::Updated(p) => Ok(Verdict::Rerecorded(p)),
            Written::Pending(p) => Err(Failure::Pending {
                message: format!(
                    "{text}\n\nmcp-replay: wrote the new recording to {new}; review it with\n    \
                 mcp-replay review {quoted}\n\
                 or accept it with\n    \
                 mcp-replay accept {quoted}\n\
                 or reject it with\n    \
                 mcp-replay reject {quoted}",
                    new = p.display(),
                    quoted = shell_quote(&p.display().to_string())
                ),
                path: p,
            }),
        }
    }
}

/// `verdict`, with what became of the page of its session: a failure names the page (or
/// why it could not be written); a test that passed fails when its page could not be.
fn with_page(
    verdict: Result<Verdict, Failure>,
    page: Option<Result<PathBuf, Error>>,
) -> Result<Verdict, Failure> {
    match (verdict, page) {
        (verdict, None) => verdict,
        (Ok(verdict), Some(Ok(_))) => Ok(verdict),
        (Ok(_), Some(Err(e))) => Err(Failure::Input(e)),
        (Err(failure), Some(Ok(path))) => {
            Err(failure.mention(&format!("The picture of the session: {}", path.display())))
        }
        (Err(failure), Some(Err(e))) => Err(failure.mention(&format!(
            "The picture of the session could not be written: {e}"
        ))),
    }
}

/// The message of a panic's payload (a `&str` or a `String`, as `panic!` makes them).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a panic without a message)")
}

/// The rules of one replay, in order: the defaults (with `workspace` as `<WORKSPACE>`),
/// then `folder`'s rules file ([`RULES_FILE`](crate::rules::RULES_FILE)), then `own`. The
/// version of the defaults is the one `fixture`'s header pins (`"rules": N`, what the
/// fixture was written with), else the one `own` pins, else the rules file's, else the
/// newest.
pub fn rules_for(
    fixture: Option<&Fixture>,
    folder: &Path,
    workspace: &Path,
    own: Option<&Rules>,
) -> Result<Rules, Error> {
    let mut rules = Rules::default().workspace(workspace);
    if let Some(file) = Rules::load_folder(folder)? {
        rules = rules.merge(&file);
    }
    if let Some(own) = own {
        rules = rules.merge(own);
    }
    if let Some(version) = fixture.and_then(|f| f.header().rules_version) {
        rules = rules.version(version);
    }
    personal_from_env(rules)
}

/// `rules` with the values file of [`REDACT_VALUES_ENV`] and the deny list of
/// [`DENY_VALUES_ENV`], when they are set (and not empty).
///
/// [`REDACT_VALUES_ENV`]: crate::personal::REDACT_VALUES_ENV
/// [`DENY_VALUES_ENV`]: crate::personal::DENY_VALUES_ENV
fn personal_from_env(mut rules: Rules) -> Result<Rules, Error> {
    use crate::personal::{DenyList, Values, DENY_VALUES_ENV, REDACT_VALUES_ENV};
    let named = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    if let Some(file) = named(REDACT_VALUES_ENV) {
        rules = rules.redact_values(&Values::load(Path::new(&file)).map_err(|e| Error::Rules {
            file: REDACT_VALUES_ENV.into(),
            message: e.to_string(),
        })?);
    }
    if let Some(file) = named(DENY_VALUES_ENV) {
        rules = rules.deny_values(DenyList::load(Path::new(&file)).map_err(|e| Error::Rules {
            file: DENY_VALUES_ENV.into(),
            message: e.to_string(),
        })?);
    }
    Ok(rules)
}

/// Fails when `fixture` holds a value of the deny lists of `rules` (its file's text as it
/// is, when it has a file), naming lines and paths, never the values.
pub fn check_denied(fixture: &Fixture, rules: &Rules) -> Result<(), Error> {
    if !rules.has_deny_lists() {
        return Ok(());
    }
    let text = fixture
        .path()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .unwrap_or_else(|| fixture.to_jsonl());
    let denied = rules.denied(&text);
    if denied.is_empty() {
        return Ok(());
    }
    Err(Error::Denied {
        file: fixture.source().to_owned(),
        places: denied.iter().map(ToString::to_string).collect(),
    })
}

/// The folder `<WORKSPACE>` stands for, seen from `start` (a fixture's folder): the
/// nearest folder at or above it whose `Cargo.toml` declares a `[workspace]`, else the
/// nearest with a `Cargo.toml` (a crate of its own), else the nearest holding `.git` (a
/// project in another language), else `start` itself. It never depends on the current
/// folder, so a fixture recorded in one folder replays from any other.
pub fn workspace_root(start: &Path) -> PathBuf {
    let start = absolute(start);
    let manifest = |d: &Path| std::fs::read_to_string(d.join("Cargo.toml")).ok();
    let found = start
        .ancestors()
        .find(|d| manifest(d).is_some_and(|t| t.lines().any(|l| l.trim() == "[workspace]")))
        .or_else(|| start.ancestors().find(|d| d.join("Cargo.toml").is_file()))
        .or_else(|| start.ancestors().find(|d| d.join(".git").exists()));
    found.map_or_else(|| start.clone(), Path::to_owned)
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

/// What `#[mcp_fixture]` knows at expansion time. The macro's own: not a public API (use
/// [`Plan`]).
#[doc(hidden)]
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
    /// `protocol_check = "warn"`: what a server message that is not valid MCP is (`deny`,
    /// `warn`, `off`), as [`Options::protocol_check`].
    pub protocol_check: Option<&'static str>,
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
        let mut options = Options::new().allow_stray_output(self.allow_stray_output);
        if let Some(ms) = self.timeout_ms {
            options = options.timeout(Duration::from_millis(ms));
        }
        if let Some(version) = self.protocol {
            options = options.protocol(version);
        }
        if let Some(check) = self.protocol_check.and_then(crate::ProtocolCheck::parse) {
            options = options.protocol_check(check);
        }
        Plan {
            path: self.path(),
            test: Some(self.test_path.to_owned()),
            workspace: workspace_root(Path::new(self.manifest_dir)),
            options,
            rules: self.rules.map(|f| f()),
            mode,
            terminal: false,
            html: html_from_env(),
        }
    }
}

#[doc(hidden)]
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

#[doc(hidden)]
/// Loads the test's fixture, replays it against `serve` (or, with `mock_server`, plays
/// its server side to the client `serve` runs), and applies `mode`.
pub async fn run_in<F, Fut, O>(spec: Spec, mode: UpdateMode, serve: F) -> Result<(), Failure>
where
    F: FnOnce(Transport) -> Fut,
    Fut: Future<Output = O> + Send + 'static,
    O: ServeOutput,
{
    let plan = spec.plan(mode);
    if spec.mock_server {
        let (fixture, rules, options) = plan.prepare()?;
        // Update mode does not apply: the client under test writes nothing to record.
        let (transport, mock) = fixture.mock_server_with_options(&rules, &options);
        // The client runs in a task of its own: when it panics, the mock's report of what
        // the client did until then is still given, with the panic.
        let client = match tokio::spawn(serve(transport)).await {
            Ok(output) => output.into_outcome(),
            Err(e) => Err(crate::ServerError::new(match e.try_into_panic() {
                Ok(payload) => format!("the client panicked: {}", panic_text(payload.as_ref())),
                Err(e) => format!("the client's task ended: {e}"),
            })),
        };
        let report = mock.finish().await.with_test_name(spec.test_path);
        return match (client, report.is_ok()) {
            (Ok(()), true) => {
                print_notes(&report);
                Ok(())
            }
            (Ok(()), false) => Err(Failure::Findings(render(&report, false))),
            (Err(why), true) => Err(Failure::Findings(format!(
                "mcp-replay: {}: {why}",
                report.source()
            ))),
            (Err(why), false) => Err(Failure::Findings(format!(
                "mcp-replay: {}: {why}\n\n{}",
                report.source(),
                render(&report, false)
            ))),
        };
    }
    plan.run(serve).await.map(|_| ())
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
#[doc(hidden)]
pub async fn run_http<Fut, S>(spec: Spec, service: Fut) -> Result<(), Failure>
where
    Fut: Future<Output = S>,
    S: crate::http::HttpService,
{
    let mode = UpdateMode::from_env()?;
    let plan = spec.plan(mode);
    let claim = claim_for_update(&plan, spec.test_path).await;
    let plan = claim.plan(plan);
    let (fixture, rules, options) = plan.prepare()?;
    let bridge = crate::http::bridge::Bridge::new(service.await);
    let report = fixture
        .replay_bridge(&rules, &options, bridge)
        .await
        .with_test_name(spec.test_path);
    if report.is_ok() {
        print_notes(&report);
    }
    let page = plan.write_page(&report);
    with_page(claim.conclude(&plan, &report, spec.test_path), page).map(|_| ())
}

/// The environment variable `mcp-replay test` runs the tests with: a test that writes a
/// pending `NAME.jsonl.new` passes (saying so on stderr) instead of failing, as insta's
/// `INSTA_FORCE_PASS` does, so that cargo's exit status tells the other failures apart.
pub const PENDING_PASSES_ENV: &str = "MCP_REPLAY_PENDING_PASSES";

/// Whether [`PENDING_PASSES_ENV`] is set to something other than empty or `0`.
fn pending_passes() -> bool {
    std::env::var(PENDING_PASSES_ENV).is_ok_and(|v| !matches!(v.trim(), "" | "0"))
}

/// The notes of a report (a server that needed a signal to stop, stray output a fixture
/// allows), on stderr: libtest shows them with `--nocapture` or for a failing test; a
/// failing report has them in its text too.
fn print_notes(report: &Report) {
    for note in report.notes() {
        eprintln!("mcp-replay: {}: note: {note}", report.source());
    }
}

/// What a test may do with its fixture in update mode. Several tests of one run may replay
/// one fixture (the same fixture in both protocol eras, over the pipe and over HTTP): the
/// first to come re-records it, and the others wait until it is done, then only compare
/// with the file it left, so they never race for the file, and a recording that one of
/// them would write differently is a finding naming both, never a silent last write.
enum Claim {
    /// Compare only (no update mode), or the test that re-records the fixture in this run;
    /// the guard (if any) makes the others wait until it is done.
    Own(Option<tokio::sync::OwnedMutexGuard<()>>),
    /// Another test of this run re-records the fixture (`owner`), and is done: compare
    /// with what it left.
    After { owner: String },
}

/// The claim of `test` on `plan`'s fixture; in update mode the first test claiming a
/// fixture owns it, a later one waits until the owner is done.
async fn claim_for_update(plan: &Plan, test: &str) -> Claim {
    use once_cell::sync::Lazy;
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    type Owners = HashMap<PathBuf, (String, Arc<tokio::sync::Mutex<()>>)>;
    static CLAIMS: Lazy<Mutex<Owners>> = Lazy::new(Default::default);
    if plan.mode == UpdateMode::No {
        return Claim::Own(None);
    }
    let (owner, lock) = {
        let mut claims = CLAIMS.lock().unwrap_or_else(|e| e.into_inner());
        match claims.get(&plan.path) {
            Some((owner, lock)) => (owner.clone(), lock.clone()),
            None => {
                // Locked before anyone else can see it: the owner goes first.
                let lock = Arc::new(tokio::sync::Mutex::new(()));
                let guard = lock.clone().try_lock_owned().expect("a new lock is free");
                claims.insert(plan.path.clone(), (test.to_owned(), lock));
                return Claim::Own(Some(guard));
            }
        }
    };
    let guard = lock.lock_owned().await;
    if owner == test {
        Claim::Own(Some(guard))
    } else {
        Claim::After { owner }
    }
}

impl Claim {
    /// The plan this claim replays: `plan`, or for a test after the owner, a comparison
    /// with the file the owner left (in `new` mode its pending `NAME.jsonl.new`, if it
    /// wrote one).
    fn plan(&self, mut plan: Plan) -> Plan {
        if let Claim::After { .. } = self {
            if plan.mode == UpdateMode::New {
                let pending = crate::update::pending_path(&plan.path);
                if pending.is_file() {
                    plan.path = pending;
                }
            }
            plan.mode = UpdateMode::No;
        }
        plan
    }

    /// Applies the plan's update mode to a finished replay; for a test after the owner,
    /// a difference says that the two tests cannot share the fixture.
    fn conclude(self, plan: &Plan, report: &Report, test: &str) -> Result<Verdict, Failure> {
        match self {
            Claim::Own(_guard) => {
                let verdict = match plan.conclude(report) {
                    // `mcp-replay test` collects the pending files after the run itself: a
                    // test that wrote one does not fail there, so that cargo's status says
                    // whether anything else did.
                    Err(Failure::Pending { path, .. }) if pending_passes() => {
                        eprintln!("mcp-replay: wrote the pending {}", path.display());
                        return Ok(Verdict::Passed);
                    }
                    other => other?,
                };
                if let Verdict::Rerecorded(path) = &verdict {
                    eprintln!("mcp-replay: re-recorded {}", path.display());
                }
                Ok(verdict)
            }
            Claim::After { .. } if report.is_ok() => Ok(Verdict::Passed),
            Claim::After { owner } => Err(Failure::Shared(format!(
                "mcp-replay: {test} replays {path}, which {owner} re-records in this run: replayed \
                 after it, against the file as it left it, {test} gets different answers \
                 (below), so one fixture cannot pin both; give each test its own fixture\n\n{}",
                render(report, false),
                path = plan.path.display(),
            ))),
        }
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn name_a_page_after_its_test_and_take_a_relative_folder_from_the_workspace() {
        assert_eq!(page_name("lookup::session"), "lookup.session.html");
        assert_eq!(page_name("a::b::r#type"), "a.b.r_type.html");
        assert_eq!(page_name("../x y"), "_x_y.html");
        assert_eq!(html_folder(None), None);
        assert_eq!(html_folder(Some("  ".as_ref())), None);
        assert_eq!(
            html_folder(Some("target/pages".as_ref())),
            Some(PathBuf::from("target/pages"))
        );
        let mut plan = Plan::new("/w/fixtures/f.jsonl", UpdateMode::No);
        plan.workspace = PathBuf::from("/w");
        plan.html = None;
        assert_eq!(plan.page_path(), None);
        plan.html = Some(PathBuf::from("target/pages"));
        assert_eq!(
            plan.page_path(),
            Some(PathBuf::from("/w/target/pages/f.html"))
        );
        plan.test = Some("c::t".into());
        plan.html = Some(PathBuf::from("/elsewhere"));
        assert_eq!(plan.page_path(), Some(PathBuf::from("/elsewhere/c.t.html")));
    }

    #[test]
    fn let_the_fixture_header_pin_the_rules_version_over_the_tests_and_the_folders() {
        let folder =
            std::env::temp_dir().join(format!("mcp-replay-rules-for-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(crate::rules::RULES_FILE), r#"{"version": 1}"#).unwrap();
        let line =
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#;
        let plain = Fixture::parse(line).unwrap();
        let pinned = Fixture::parse(&format!("{{\"mcp_replay\":1,\"rules\":1}}\n{line}")).unwrap();
        let own = Rules::default().version(2);
        let version = |fixture: &Fixture, own: Option<&Rules>| {
            rules_for(Some(fixture), &folder, &folder, own)
                .unwrap()
                .rules_version()
        };
        assert_eq!(version(&plain, None), 1, "the folder's rules file");
        assert_eq!(version(&plain, Some(&own)), 2, "the test's own rules");
        assert_eq!(version(&pinned, Some(&own)), 1, "the fixture's header");
        std::fs::remove_file(folder.join(crate::rules::RULES_FILE)).unwrap();
        assert_eq!(version(&plain, None), crate::rules::RULES_VERSION);
        let _ = std::fs::remove_dir(&folder);
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
            "{\"mcp_replay\":1,\"rules\":1,\"timeout\":\"700ms\"}\n\
             {\"direction\":\"client->server\",\"message\":{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"method\":\"ping\"}}\n",
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
            protocol_check: None,
            mock_server: false,
            allow_stray_output: false,
        };
        let attribute = spec.plan(UpdateMode::No);
        // The command, started from another folder with a relative path.
        let command = Plan::new(fixtures.join("a.jsonl"), UpdateMode::No);
        assert_eq!(attribute.path, command.path);
        assert_eq!(attribute.workspace, root);
        assert_eq!(command.workspace, root);
        let (fa, ra, oa) = attribute.prepare().unwrap();
        let (fc, rc, oc) = command.prepare().unwrap();
        assert_eq!(format!("{ra:?}"), format!("{rc:?}"));
        assert!(format!("{ra:?}").contains("<ID>"), "{ra:?}");
        assert_eq!(format!("{oa:?}"), format!("{oc:?}"));
        assert_eq!(oa.resolve(&fa, &ra).timeout, Duration::from_millis(700));
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

    #[test]
    fn find_the_workspace_of_another_language_by_git_else_the_fixture_folder() {
        let root = std::env::temp_dir().join(format!("mcp-replay-ws-git-{}", std::process::id()));
        let fixtures = root.join("tests/fixtures");
        std::fs::create_dir_all(&fixtures).unwrap();
        // Nothing above marks a project (the temp folder holds no Cargo.toml or .git):
        // the fixture's own folder, whatever the current folder is.
        assert_eq!(workspace_root(&fixtures), fixtures);
        std::fs::create_dir_all(root.join(".git")).unwrap();
        assert_eq!(workspace_root(&fixtures), root);
        assert_eq!(workspace_root(&root), root);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
