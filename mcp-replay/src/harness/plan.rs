//! The one flow of a replay: a [`Plan`] resolved from a fixture file and run against a
//! [`Target`].

use super::claim;
use super::outcome::{render, Failure, Verdict};
use super::page::{page_name, write_html};
use super::resolve::{absolute, check_denied, rules_for, workspace_root};
use super::target::Target;
use crate::data::fixture::Fixture;
use crate::engine::replay::ServeOutput;
use crate::engine::transport::Transport;
use crate::error::Error;
use crate::findings::report::Report;
use crate::lifecycle::update::{write_fixture, UpdateMode, Written};
use crate::options::Options;
use crate::rules::Rules;
use crate::terminal::shell_quote;
use std::future::Future;
use std::path::{Path, PathBuf};

/// One fixture file to replay, with everything that decides how: the resolution the
/// attribute and the command share.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The fixture file.
    pub path: PathBuf,
    /// The test replaying it (`crate::module::name`), for messages; `None` from the command.
    pub test: Option<String>,
    /// The command that re-records this fixture, as a failing report advises it; `None`:
    /// `MCP_FIXTURE_UPDATE=1 cargo test` of the test.
    pub rerecord: Option<String>,
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
    /// ([`color_wanted`](crate::_support::color_wanted)).
    pub terminal: bool,
    /// The folder [`Plan::run`] writes the picture of the session to, as one
    /// self-contained HTML page named after the test ([`page_name`]), passing or failing;
    /// a relative folder is taken from the workspace root. By default what
    /// [`HTML_ENV`](crate::env::HTML_ENV) (`MCP_REPLAY_HTML`) names; `None`: no page, and the replay keeps no
    /// timeline.
    pub html: Option<PathBuf>,
    /// The file the page goes to, whatever [`Plan::html`] says (the command's `--html
    /// PATH` for one fixture, or its numbered pages).
    pub page: Option<PathBuf>,
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
            rerecord: None,
            options: Options::default(),
            rules: None,
            mode,
            terminal: false,
            html: crate::env::html(),
            page: None,
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
            UpdateMode::Always => {}
            UpdateMode::Force => options = options.record_spoiled(),
        }
        if self.html.is_some() || self.page.is_some() {
            options = options.timeline(true);
        }
        let folder = self.path.parent().unwrap_or(Path::new("."));
        let rules = rules_for(Some(&fixture), folder, &self.workspace, self.rules.as_ref())?;
        check_denied(&fixture, &rules)?;
        Ok((fixture, rules, options))
    }

    /// What `#[mcp_fixture]` does, without the macro: [`replay`](Plan::replay)s the
    /// fixture against the server `serve` runs, prints a passing report's notes, and says
    /// on stderr what it wrote (a re-recording, a pending file that `mcp-replay test`
    /// collects). The same fixture folder gives the same result as under the attribute.
    ///
    /// ```no_run
    /// use mcp_replay::harness::Plan;
    /// use mcp_replay::_support::update::UpdateMode;
    ///
    /// # async fn demo() -> Result<(), mcp_replay::harness::Failure> {
    /// Plan::new("fixtures/lookup_issue.jsonl", UpdateMode::from_env()?)
    ///     .run(|transport| async move { drop(transport) })
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn run<'a, F, Fut, O>(self, serve: F) -> impl Future<Output = Result<Verdict, Failure>> + 'a
    where
        F: FnOnce(Transport) -> Fut + Send + 'a,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        // Only the closure's erasure is generic: the flow is compiled once, here.
        self.run_target(Target::serve(serve))
    }

    /// [`run`](Plan::run) against any [`Target`]: what the attribute's forms call.
    pub async fn run_target(self, target: Target<'_>) -> Result<Verdict, Failure> {
        let mut replayed = self.replay(target).await;
        if let Some(report) = replayed.report.as_ref().filter(|r| r.is_ok()) {
            print_notes(report);
        }
        // A failing report holds its notes; a re-recording over one says them here.
        let replayed_notes = replayed
            .report
            .as_mut()
            .filter(|r| !r.is_ok())
            .map(|r| (r.source().to_owned(), std::mem::take(&mut r.notes)));
        match replayed.into_verdict() {
            // `mcp-replay test` collects the pending files after the run itself: a test
            // that wrote one does not fail there, so that cargo's status says whether
            // anything else did.
            Err(Failure::Pending { path, .. }) if crate::env::pending_passes() => {
                eprintln!("mcp-replay: wrote the pending {}", path.display());
                Ok(Verdict::Passed)
            }
            Ok(Verdict::Rerecorded(path)) => {
                if let Some((source, notes)) = &replayed_notes {
                    for note in notes {
                        eprintln!("mcp-replay: {source}: note: {note}");
                    }
                }
                eprintln!("mcp-replay: re-recorded {}", path.display());
                Ok(Verdict::Rerecorded(path))
            }
            other => other,
        }
    }

    /// The one flow of a replay: claims the fixture for this run's update mode (several
    /// tests of one fixture re-record it once), [`prepare`](Plan::prepare)s it, replays it
    /// against `target`, names the test, writes the page of the session and
    /// [`conclude`](Plan::conclude)s. A client under test ([`Target::Client`]) is never
    /// re-recorded.
    pub async fn replay(mut self, mut target: Target<'_>) -> Replayed {
        if target.is_client() {
            self.mode = UpdateMode::No;
        }
        let test = self
            .test
            .clone()
            .unwrap_or_else(|| self.path.display().to_string());
        let claim = claim::claim_for_update(&self.path, self.mode, &test).await;
        let mut plan = self;
        claim.adjust(&mut plan.path, &mut plan.mode);
        let (fixture, rules, options) = match (plan.prepare(), target) {
            (Ok(prepared), target_) => {
                target = target_;
                prepared
            }
            // A test whose body is the client writes its fixture from its first run.
            (Err(Failure::Input(Error::MissingFixture { .. })), Target::Pair(body)) => {
                return plan.first_recording(body).await
            }
            (Err(failure), _) => return Replayed::without_report(failure),
        };
        let again = target.again();
        let mut report = match target.replay(&fixture, &rules, &options).await {
            Ok(report) => report,
            Err(failure) => return Replayed::without_report(failure),
        };
        if let Some(again) = again {
            second_run(&mut report, again, &rules, &options).await;
        }
        if let Some(test) = &plan.test {
            report = report.with_test_name(test);
        }
        if let Some(command) = &plan.rerecord {
            report = report.with_rerecord_command(command);
        }
        report.rerecording = matches!(plan.mode, UpdateMode::Always | UpdateMode::Force);
        let page = plan.write_page(&report);
        Replayed {
            verdict: claim.conclude(|| plan.conclude(&report), &plan.path, &report, &test),
            report: Some(report),
            page,
        }
    }

    /// The first run of a test whose body is the client ([`Target::pair`]), with no fixture
    /// yet: the exchange is the fixture. `1`/`always`/`force` write it and pass; `new` (the
    /// default outside CI) writes `NAME.jsonl.new` and fails saying how to accept it; under
    /// CI (`no`) nothing is written and the test fails naming the file. A body that failed
    /// writes nothing.
    async fn first_recording(&self, body: super::pair::Pair<'_>) -> Replayed {
        let folder = self.path.parent().unwrap_or(Path::new("."));
        let rules = match rules_for(None, folder, &self.workspace, self.rules.as_ref()) {
            Ok(rules) => rules,
            Err(e) => return Replayed::without_report(e.into()),
        };
        let trace = self.options.resolve_trace();
        let exchange = super::pair::pass_through(body, trace).await;
        let source = self.path.display().to_string();
        let mut report = super::pair::report_of(exchange, None, &source, &rules, (true, false));
        if let Some(test) = &self.test {
            report = report.with_test_name(test);
        }
        let record = report.rerecord_command();
        let verdict = match (report.is_ok(), report.recorded(), self.mode) {
            (false, _, _) | (_, None, _) => Err(Failure::Findings(render(&report, self.terminal))),
            (true, Some(_), UpdateMode::No) => Err(Failure::Findings(format!(
                "{source} does not exist, and this test records it: nothing is written under CI. \
                 Run the test once locally (it writes {source}.new to review and accept) or \
                 with\n    {record}\nand commit the fixture"
            ))),
            (true, Some(recorded), mode) => match write_fixture(recorded, &self.path, mode) {
                Err(e) => Err(e.into()),
                Ok(Written::Pending(p)) => Err(Failure::Pending {
                    message: format!(
                        "{source} does not exist: the test's exchange is its first recording, \
                         written to {new} for review. Accept it with\n    mcp-replay accept \
                         {new_quoted}\nor `mcp-replay test --accept`, or write the fixture \
                         itself with\n    {record}",
                        new = p.display(),
                        new_quoted = shell_quote(&p.display().to_string()),
                    ),
                    path: p,
                }),
                Ok(Written::Updated(p) | Written::Unchanged(p)) => Ok(Verdict::Rerecorded(p)),
            },
        };
        Replayed {
            verdict,
            report: Some(report),
            page: None,
        }
    }

    /// Where [`Plan::replay`] writes the page of this plan's session, if it writes one:
    /// [`Plan::page`], else [`page_name`] of the test (else of the fixture's file name) in
    /// [`Plan::html`].
    pub fn page_path(&self) -> Option<PathBuf> {
        if let Some(page) = &self.page {
            return Some(page.clone());
        }
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
        // A recording whose runs pinned a per-run value or order is written, even when
        // this run happened to match the fixture.
        let unchanged = report.is_ok() && report.accepted().is_empty() && !report.pinned;
        // An unchanged server writes nothing, in every mode (a stale pending file of an
        // earlier run no longer says what the server does: it goes).
        if unchanged && mode == UpdateMode::New {
            crate::lifecycle::update::remove_pending(&self.path)?;
        }
        if mode == UpdateMode::No || (unchanged && mode != UpdateMode::Force) {
            return if report.is_ok() {
                Ok(Verdict::Passed)
            } else {
                Err(Failure::Findings(render(report, self.terminal)))
            };
        }
        let text = render(report, self.terminal);
        let why = first_cause(report);
        let recorded = match report.recorded() {
            Some(recorded) if why.is_none() || mode == UpdateMode::Force => recorded,
            _ => {
                let why = why.unwrap_or_else(|| {
                    crate::MismatchKind::Timeout
                        .why_not_rerecorded()
                        .unwrap_or_default()
                        .to_owned()
                });
                let why = format!(
                    "The fixture was NOT re-recorded: {why}\n(MCP_FIXTURE_UPDATE=force writes it anyway.)"
                );
                return Err(Failure::NotRerecorded(format!("{text}\n\n{why}")));
            }
        };
        if let Some(why) = why {
            eprintln!(
                "mcp-replay: {}: re-recorded with MCP_FIXTURE_UPDATE=force although {}",
                self.path.display(),
                why.trim_end_matches('.')
            );
        }
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

/// Why `report`'s session is not written as a fixture (without `MCP_FIXTURE_UPDATE=force`):
/// the first cause among its findings that keep a session from being re-recorded, by
/// fixture line (stray output before all: its advice, allow it, differs), named with its
/// line and the request it concerns, and the lines of the findings that follow from it
/// ([`follows`](crate::findings::mismatch::follows)); `None` when nothing keeps it.
fn first_cause(report: &Report) -> Option<String> {
    let mismatches = report.mismatches();
    let causes = crate::findings::mismatch::follows(mismatches);
    let (i, m) = mismatches
        .iter()
        .enumerate()
        .filter(|(i, m)| causes[*i].is_none() && m.why_not_rerecorded().is_some())
        .min_by_key(|(_, m)| {
            (
                m.kind() != crate::MismatchKind::StrayOutput,
                m.line().unwrap_or(usize::MAX),
            )
        })?;
    let why = m.why_not_rerecorded()?;
    let mut text = match (m.line(), &m.request) {
        (Some(line), Some((request, name))) if *request != line => {
            format!("line {line} (the answer to `{name}`, line {request}): {why}")
        }
        (Some(line), _) => format!("line {line}: {why}"),
        (None, _) => why.to_owned(),
    };
    let mut after: Vec<usize> = causes
        .iter()
        .zip(mismatches)
        .filter(|(c, _)| **c == Some(i))
        .filter_map(|(_, f)| f.line())
        .collect();
    after.sort_unstable();
    after.dedup();
    if !after.is_empty() {
        let lines: Vec<String> = after.iter().map(usize::to_string).collect();
        let _ = std::fmt::Write::write_fmt(
            &mut text,
            format_args!(
                " The finding{} at line{} {} follow{} from it.",
                if after.len() == 1 { "" } else { "s" },
                if after.len() == 1 { "" } else { "s" },
                lines.join(", "),
                if after.len() == 1 { "s" } else { "" }
            ),
        );
    }
    Some(text)
}

/// What one [`Plan::replay`] gave: the verdict, the report when there was a replay, and
/// what became of the page of the session.
#[derive(Debug)]
pub struct Replayed {
    /// Passed, re-recorded, or why not.
    pub verdict: Result<Verdict, Failure>,
    /// The replay's report; `None` when there was no replay (a fixture that could not be
    /// read, a server that could not be started).
    pub report: Option<Report>,
    /// The page of the session: its path once written, or why it could not be; `None`
    /// when none was asked for or the replay kept no timeline.
    pub page: Option<Result<PathBuf, Error>>,
}

impl Replayed {
    fn without_report(failure: Failure) -> Replayed {
        Replayed {
            verdict: Err(failure),
            report: None,
            page: None,
        }
    }

    /// The verdict with what became of the page: a failure names the page (or why it could
    /// not be written); a replay that passed fails when its page could not be written.
    pub fn into_verdict(self) -> Result<Verdict, Failure> {
        with_page(self.verdict, self.page)
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

/// A recording's runs that look for values that change between runs, under
/// [`Plan::replay`]: what `report` recorded, [`settle`]d against fresh servers (`again`,
/// run anew as often as [`settle`] needs), with a note saying what it bound or sorted, and
/// the report marked to be written when it did. Nothing when nothing is to be written.
async fn second_run(report: &mut Report, again: Target<'_>, rules: &Rules, options: &Options) {
    let Some(recorded) = report.recorded.as_ref() else {
        return;
    };
    let mut next = move || again.again();
    match settle(recorded, &mut next, rules, options).await {
        Ok((settled, note)) => {
            report.pinned = settled.to_jsonl() != recorded.to_jsonl();
            report.recorded = Some(settled);
            report.notes.extend(note);
        }
        Err(why) => report.notes.push(why),
    }
}

/// Values that change between runs, found when recording: `recorded` is replayed again
/// (compare only) against fresh servers, each from `again`, and what those runs gave
/// otherwise is pinned in the recording before it is written: a string bound as
/// `<MINTED:n>` (its differing token, or the whole string), a list in another order
/// sorted (the header's `"sort"`). It runs until a list of three items or more in a
/// per-run order would have shown another order with a chance of missing it below 1 in
/// 10,000 (`normalize::per_run::runs_needed`: 6 runs for a list of three, fewer for longer
/// ones, one without lists; a list of two escapes 6 runs with a chance of 1/64), or until
/// `again` gives no target. Returns the recording to write and,
/// when the runs differed, a note saying what was pinned and what was not (with the rule
/// that would pin it); `Err`: why the runs could not tell (the recording is then written
/// as it is).
///
/// What [`Plan::replay`] does when it records against a target that runs again (the
/// attribute's serve closure, a child process), and what `mcp-replay call` and `record`
/// do.
pub async fn settle<'a>(
    recorded: &Fixture,
    again: &mut (dyn FnMut() -> Option<Target<'a>> + Send + 'a),
    rules: &Rules,
    options: &Options,
) -> Result<(Fixture, Option<String>), String> {
    use crate::lifecycle::per_run::{apply, between};
    use crate::normalize::per_run::{lists_of, runs_needed, PerRun};
    let options = options.clone().without_recording().timeline(false);
    // Only a line with a `[` can hold a list: the others are not parsed.
    let server_messages: Vec<serde_json::Value> = recorded
        .entries()
        .iter()
        .filter(|e| e.direction() == crate::fixture::Direction::ServerToClient)
        .filter(|e| e.text().contains('['))
        .map(|e| e.message())
        .collect();
    let lists = lists_of(&server_messages);
    let mut found = PerRun::default();
    let mut runs = 0;
    while runs < runs_needed(&lists, &found) {
        let Some(target) = again() else { break };
        let run = target
            .replay(recorded, rules, &options)
            .await
            .map_err(|failure| {
                format!(
                    "the recording's run {} of those that find values that change between \
                     runs could not start: {failure}",
                    runs + 1
                )
            })?;
        found.merge(between(&run));
        runs += 1;
    }
    let Some(note) = found.describe(runs) else {
        return Ok((recorded.clone(), None));
    };
    let settled = apply(&found, recorded, rules)
        .map_err(|e| format!("{note}; but the recording could not be pinned: {e}"))?;
    Ok((settled, Some(note)))
}

/// The notes of a report (a server that needed a signal to stop, stray output a fixture
/// allows), on stderr: libtest shows them with `--nocapture` or for a failing test; a
/// failing report has them in its text too.
fn print_notes(report: &Report) {
    for note in report.notes() {
        eprintln!("mcp-replay: {}: note: {note}", report.source());
    }
}
