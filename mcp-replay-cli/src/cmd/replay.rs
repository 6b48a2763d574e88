//! `mcp-replay replay`: fixtures replayed against a server in any language, started as a
//! child process on stdio (one per fixture) or reached over Streamable HTTP, each resolved
//! as `#[mcp_fixture]` resolves it (one [`Plan`] per fixture).

use crate::args::{positive_time, Format, OutputArgs, RulesArg, ServerArg, StrayArg};
use crate::error::{Error, Kind, Outcome};
use crate::junit;
use crate::net;
use crate::out::{outln, print_json};
use futures_util::StreamExt;
use mcp_replay::_support::output;
use mcp_replay::_support::update::UpdateMode;
use mcp_replay::harness;
use mcp_replay::harness::{Plan, Verdict};
use mcp_replay::{Options, Report, Rules};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `mcp-replay replay`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The fixtures to replay
    #[arg(required = true, value_name = "FIXTURE")]
    pub fixtures: Vec<PathBuf>,
    /// How long to wait for each message the replay needs: 700ms, 2s, or milliseconds
    /// [default: the fixture header's timeout, else 5s]
    #[arg(long, value_name = "TIME", value_parser = positive_time)]
    pub timeout: Option<Duration>,
    /// Replay in this protocol era (e.g. 2026-07-28)
    #[arg(long, value_name = "VERSION")]
    pub protocol: Option<String>,
    /// Re-record the fixtures' server messages (also MCP_FIXTURE_UPDATE=1; =new writes
    /// FIXTURE.new instead)
    #[arg(long)]
    pub update: bool,
    /// Print every live message to stderr as it passes (also MCP_REPLAY_TRACE=1)
    #[arg(long)]
    pub trace: bool,
    /// Replay over Streamable HTTP against the server at URL (http://HOST:PORT/PATH); with
    /// `-- SERVER` too, start it first and wait until URL answers
    #[arg(long, value_name = "URL", value_parser = crate::net::parse_url)]
    pub url: Option<http::Uri>,
    /// Fail a server that had to be stopped with SIGTERM or SIGKILL after its input closed
    /// (as the header's "strict_exit": true) [default: a note]
    #[arg(long)]
    pub strict_exit: bool,
    /// Report what the server sends that is not valid MCP as warnings, not findings (as the
    /// header's "protocol_check": "warn"), for a server one cannot fix
    #[arg(long)]
    pub protocol_warnings: bool,
    /// Replay N fixtures at once, each against its own server (or session with --url);
    /// reports in the order the fixtures were given [default: the available parallelism]
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Start no fixture after the first that fails (those already running finish)
    #[arg(long)]
    pub fail_fast: bool,
    /// Replay only this shard of the fixtures, as cargo nextest splits tests: count:K/N
    /// (the i-th fixture given in shard i mod N + 1) or hash:K/N (by the path's hash)
    #[arg(long, value_name = "count:K/N|hash:K/N", value_parser = crate::shard::Partition::parse)]
    pub partition: Option<crate::shard::Partition>,
    /// Write the picture of each session, a self-contained HTML page (a sequence diagram of
    /// every message, the findings marked): to PATH for one fixture, else (or when PATH is a
    /// folder, or ends with /) to PATH/NAME.html per fixture, NAME its file name without
    /// .jsonl
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub stray: StrayArg,
    #[command(flatten)]
    pub rules: RulesArg,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub headers: crate::args::HeaderArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

/// The examples of `mcp-replay replay --help`.
pub(crate) const AFTER_HELP: &str = concat!(
        "Examples:\n",
        "  mcp-replay replay fixtures/*.jsonl -- node server.js\n",
        "  mcp-replay replay --update fixtures/echo.jsonl -- python server.py\n",
        "  mcp-replay replay --format json --junit junit.xml fixtures/*.jsonl -- node server.js   (CI)\n",
        "  mcp-replay replay --html target/replay-html fixtures/*.jsonl -- node server.js\n",
        "\n",
        "--format json writes one JSON document to stdout instead of the text (schema:\n",
        "docs/cli.md, \"JSON output\"); --junit FILE also writes a JUnit XML report."
    );

/// Replays each fixture against the server (started once per fixture, or at `--url`), as
/// `#[mcp_fixture]` would, and reports them: as text with the slowest three and a summary,
/// or as one JSON document; also as JUnit when asked.
pub(crate) async fn run(args: Args) -> Result<Outcome, Error> {
    let mode = if args.update {
        UpdateMode::Always
    } else {
        // Unset, the command only compares: it writes a fixture or a pending file when
        // asked (`--update`, or the variable set), where a test run takes unset as `auto`.
        UpdateMode::from_env_if_set()?.unwrap_or(UpdateMode::No)
    };
    let own = args.headers.redacted(args.rules.own()?)?;
    // A machine-readable document on stdout (json or sarif): no colors, no summary lines.
    let json = args.output.format != Format::Text;
    // A terminal that is not given JSON: reports in color unless the environment says not.
    let terminal = !json && std::io::stdout().is_terminal();
    let paint = Paint(!json && mcp_replay::_support::color_wanted(terminal));
    let _server = http_server(&args).await?;
    let started = Instant::now();
    let selected = args.selected();
    let pages = args.pages()?;
    let run = Run {
        args: &args,
        own: own.as_ref(),
        mode,
        terminal,
        pages: &pages,
    };
    let Some((outcomes, not_run)) = run.replay_all(&selected, (!json).then_some(paint)).await?
    else {
        return Ok(Outcome::Interrupted);
    };
    let failed = outcomes.iter().filter(|(_, o)| o.failure.is_some()).count();
    let errors = outcomes.iter().filter(|(_, o)| o.error).count();
    if args.output.format == Format::Sarif {
        let findings: Vec<_> = outcomes.iter().flat_map(|(p, o)| o.sarif(p)).collect();
        print_json(&output::sarif::log(&findings))?;
    } else if json {
        let fixtures = outcomes.iter().map(|(p, o)| o.to_json(p)).collect();
        print_json(&output::document("replay", fixtures))?;
    } else {
        print_slowest(&outcomes);
        print_pages(&args, &outcomes);
        let counts = Counts {
            failed,
            errors,
            not_run,
            selected: selected.len(),
        };
        print_summary(&args, &outcomes, counts, started, paint);
    }
    if let Some(file) = &args.output.junit {
        let cases: Vec<junit::Case> = outcomes.iter().map(|(p, o)| o.junit_case(p)).collect();
        let suite = match &args.partition {
            Some(shard) => format!("mcp-replay (shard {shard})"),
            None => "mcp-replay".to_owned(),
        };
        junit::write_suite(file, &suite, &cases, started.elapsed())?;
    }
    // The most severe outcome decides (docs/cli.md, "Exit status"): an input error over a
    // finding. The report said what it was.
    match (errors, failed) {
        (0, 0) => Ok(Outcome::Success),
        (0, _) => Ok(Outcome::Findings),
        _ => Err(Error::said(Kind::Input)),
    }
}

/// What every replay of one run shares.
struct Run<'a> {
    args: &'a Args,
    own: Option<&'a Rules>,
    mode: UpdateMode,
    terminal: bool,
    pages: &'a std::collections::HashMap<&'a PathBuf, PathBuf>,
}

/// The fixtures replayed, each with its outcome in the order given, and how many
/// `--fail-fast` left unrun; `None` when Ctrl-C interrupted the run.
type Replays<'a> = Option<(Vec<(&'a PathBuf, Replayed)>, usize)>;

impl Run<'_> {
    /// Replays `selected`, `--jobs` at a time, each as soon as a slot is free; with
    /// `paint`, prints each one's lines once every fixture before it is printed, so that
    /// reports never interleave. A fixture whose header says `"solo": true` runs alone: the
    /// fixtures before it end first, and the ones after it start once it has (one group
    /// after another).
    async fn replay_all<'p>(
        &self,
        selected: &[&'p PathBuf],
        paint: Option<Paint>,
    ) -> Result<Replays<'p>, Error> {
        let jobs = self.args.jobs();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let stop = &stop;
        let mut replays = futures_util::stream::iter(groups(selected)).flat_map(|(solo, paths)| {
            futures_util::stream::iter(paths)
                .map(move |path| async move {
                    if self.args.fail_fast && stop.load(std::sync::atomic::Ordering::SeqCst) {
                        return Ok((path, None));
                    }
                    let page = self.pages.get(path).map(PathBuf::as_path);
                    let outcome =
                        replay_one(self.args, self.own, path, self.mode, self.terminal, page)
                            .await?;
                    if outcome.failure.is_some() {
                        stop.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                    Ok::<_, Error>((path, Some(outcome)))
                })
                .buffered(if solo { 1 } else { jobs })
        });
        let mut outcomes = Vec::new();
        let mut not_run = 0usize;
        // Ctrl-C: the replays are dropped, which kills their servers (each child is killed
        // on drop and reaped), and the command ends with 130.
        let interrupt = tokio::signal::ctrl_c();
        tokio::pin!(interrupt);
        loop {
            let next = tokio::select! {
                next = replays.next() => next,
                _ = &mut interrupt => {
                    drop(replays);
                    eprintln!(
                        "mcp-replay: interrupted: {} of {} fixtures replayed; the servers were stopped",
                        outcomes.len(),
                        selected.len()
                    );
                    return Ok(None);
                }
            };
            let Some(next) = next else {
                break;
            };
            let (path, outcome) = next?;
            let Some(outcome) = outcome else {
                not_run += 1;
                continue;
            };
            if let Some(paint) = paint {
                outcome.print(path, paint);
            }
            outcomes.push((path, outcome));
        }
        Ok(Some((outcomes, not_run)))
    }
}

/// What the summary line counts.
struct Counts {
    failed: usize,
    errors: usize,
    not_run: usize,
    selected: usize,
}

/// The summary line: passed and failed, those not replayed or not run, the shard.
fn print_summary(
    args: &Args,
    outcomes: &[(&PathBuf, Replayed)],
    counts: Counts,
    started: Instant,
    paint: Paint,
) {
    let Counts {
        failed,
        errors,
        not_run,
        selected,
    } = counts;
    let passed = outcomes.len() - failed;
    let mut summary = format!("{passed} passed, {failed} failed");
    if errors > 0 {
        summary.push_str(&format!(", {errors} of them not replayed"));
    }
    if not_run > 0 {
        summary.push_str(&format!(", {not_run} not run (--fail-fast)"));
    }
    if let Some(shard) = &args.partition {
        let all = args.fixtures.len();
        summary.push_str(&format!("; shard {shard}: {selected} of {all} fixtures"));
    }
    outln!(
        "\n{} ({:.1} s)",
        paint.word(failed == 0, &summary),
        started.elapsed().as_secs_f64()
    );
}

impl Args {
    /// The fixtures of this run: all of them, or this `--partition`'s shard.
    fn selected(&self) -> Vec<&PathBuf> {
        let in_shard = |i: usize, p: &PathBuf| {
            self.partition
                .is_none_or(|s| s.includes(i, &p.display().to_string()))
        };
        let all = self.fixtures.iter().enumerate();
        all.filter(|(i, p)| in_shard(*i, p))
            .map(|(_, p)| p)
            .collect()
    }

    /// Where the page of each fixture goes, with `--html PATH`: PATH itself for one
    /// fixture given (unless PATH is a folder or ends with `/`), else `PATH/NAME.html`,
    /// NAME the fixture's file name without `.jsonl`, and `NAME-2.html`, `NAME-3.html` for
    /// the second and third fixture of that name, in the order given (the same in every
    /// shard). The folder is made here: one that cannot be is an output error.
    fn pages(&self) -> Result<std::collections::HashMap<&PathBuf, PathBuf>, Error> {
        let mut pages = std::collections::HashMap::new();
        let Some(path) = &self.html else {
            return Ok(pages);
        };
        let folder = self.fixtures.len() > 1
            || path.is_dir()
            || path.as_os_str().to_string_lossy().ends_with('/');
        if !folder {
            pages.insert(&self.fixtures[0], path.clone());
            return Ok(pages);
        }
        std::fs::create_dir_all(path).map_err(|e| {
            Error::output(format!(
                "--html {}: cannot make the folder for the pages: {e}",
                path.display()
            ))
        })?;
        let mut taken: std::collections::HashMap<String, usize> = Default::default();
        for fixture in &self.fixtures {
            let stem = fixture
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let stem = stem.strip_suffix(".jsonl").unwrap_or(&stem).to_owned();
            let n = taken.entry(stem.clone()).or_insert(0);
            *n += 1;
            let name = match *n {
                1 => format!("{stem}.html"),
                n => format!("{stem}-{n}.html"),
            };
            pages.insert(fixture, path.join(name));
        }
        Ok(pages)
    }

    /// How many fixtures replay at once: `-j`, else the available parallelism.
    fn jobs(&self) -> usize {
        match self.jobs {
            Some(n) => usize::from(n),
            None => std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

/// Words of the text report in color (green for ok, bold red for a failure), or plain.
#[derive(Clone, Copy)]
struct Paint(bool);

impl Paint {
    fn word(self, ok: bool, word: &str) -> String {
        match (self.0, ok) {
            (false, _) => word.to_owned(),
            (true, true) => format!("\x1b[32m{word}\x1b[0m"),
            (true, false) => format!("\x1b[1;31m{word}\x1b[0m"),
        }
    }
}

/// Over HTTP the server must listen before the first fixture: started here with
/// `-- SERVER` (and stopped when the returned value goes), or probed, so that a URL nothing
/// listens on is a usage error rather than a finding per fixture.
async fn http_server(args: &Args) -> Result<Option<net::Started>, Error> {
    match &args.url {
        None if args.server.is_empty() => Err(Error::usage(
            "replay needs a server: `-- SERVER COMMAND` to start one on stdio, or \
             --url URL for one over Streamable HTTP",
        )),
        None => Ok(None),
        Some(url) if args.server.is_empty() => {
            net::probe(url).await.map_err(|e| {
                Error::network(format!(
                    "{e}; start the server first, or give its command after `--` and the \
                     replay starts it"
                ))
            })?;
            Ok(None)
        }
        Some(url) => Ok(Some(
            net::start_and_wait(&args.server, url, net::LISTEN_WAIT).await?,
        )),
    }
}

/// The fixtures in runs that may replay at once, and the solo ones alone, in the order
/// given: `(solo, fixtures)`.
fn groups<'a>(fixtures: &[&'a PathBuf]) -> Vec<(bool, Vec<&'a PathBuf>)> {
    let mut folders = std::collections::HashMap::new();
    let mut groups: Vec<(bool, Vec<&PathBuf>)> = Vec::new();
    for &path in fixtures {
        let folder = path.parent().unwrap_or(Path::new("."));
        let folder_alone = *folders.entry(folder.to_owned()).or_insert_with(|| {
            let dir = if folder.as_os_str().is_empty() {
                Path::new(".")
            } else {
                folder
            };
            Rules::load_folder(dir).is_ok_and(|r| r.is_some_and(|r| r.runs_alone()))
        });
        let solo = folder_alone || is_solo(path);
        match groups.last_mut() {
            Some((false, run)) if !solo => run.push(path),
            _ => groups.push((solo, vec![path])),
        }
    }
    groups
}

/// Does the fixture's header say `"solo": true`? Its first line alone is read; a file
/// that cannot be read is not solo (its replay says what is wrong with it). The folder's
/// rules file may say so for all its fixtures (`"jobs": 1`, [`Rules::runs_alone`]);
/// an invalid one is left to the replay to report.
fn is_solo(path: &Path) -> bool {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut first = String::new();
    if std::io::BufReader::new(file).read_line(&mut first).is_err() {
        return false;
    }
    serde_json::from_str::<serde_json::Value>(&first).is_ok_and(|header| {
        header.get("mcp_replay").is_some()
            && header.get("solo") == Some(&serde_json::Value::Bool(true))
    })
}

/// With `--html`: where the pages went.
fn print_pages(args: &Args, outcomes: &[(&PathBuf, Replayed)]) {
    let written = outcomes.iter().filter(|(_, o)| o.page.is_some()).count();
    match (&args.html, written) {
        (None, _) | (_, 0) => {}
        (Some(_), 1) => {
            let page = outcomes.iter().find_map(|(_, o)| o.page.as_ref());
            if let Some(page) = page {
                outln!("\nhtml: the picture of the session in {}", page.display());
            }
        }
        (Some(folder), n) => outln!(
            "\nhtml: the pictures of {n} sessions in {}",
            folder.display()
        ),
    }
}

/// The three slowest fixtures of a run of several.
fn print_slowest(outcomes: &[(&PathBuf, Replayed)]) {
    if outcomes.len() > 1 {
        let mut times: Vec<_> = outcomes.iter().map(|(p, o)| (o.elapsed, p)).collect();
        times.sort_by_key(|t| std::cmp::Reverse(t.0));
        let slowest: Vec<String> = times
            .iter()
            .take(3)
            .map(|(t, p)| format!("{} {} ms", p.display(), t.as_millis()))
            .collect();
        outln!("\nslowest: {}", slowest.join(", "));
    }
}

/// How one fixture's replay went.
struct Replayed {
    /// `ok` or `re-recorded`, when it passed.
    what: &'static str,
    /// The whole report (or why there was no replay), when it failed.
    failure: Option<String>,
    /// The failure is an error of the input or of a write, not a finding
    /// ([`harness::Failure::is_error`]): the fixture was not replayed (or its
    /// re-recording not written), exit status 2.
    error: bool,
    /// The replay's report, when there was a replay.
    report: Option<Report>,
    /// The page of the session, once written (`--html`).
    page: Option<PathBuf>,
    elapsed: Duration,
}

impl Replayed {
    /// One entry of the JSON document's `fixtures`: the report's (`fixture`, `ok`,
    /// `findings`) with `status`, `time_ms` and `error`.
    /// The fixture's line of the text report, then its report when it failed, else its
    /// warnings and notes.
    fn print(&self, path: &Path, paint: Paint) {
        let word = match (&self.failure, self.error) {
            (None, _) => paint.word(true, self.what),
            (Some(_), false) => paint.word(false, "FAILED"),
            (Some(_), true) => paint.word(false, "ERROR"),
        };
        let ms = self.elapsed.as_millis();
        outln!("mcp-replay: {}: {word} ({ms} ms)", path.display());
        if let (Some(page), Some(_)) = (&self.page, &self.failure) {
            outln!(
                "mcp-replay: {}: the picture of the session: {}",
                path.display(),
                page.display()
            );
        }
        match &self.failure {
            Some(report) => outln!("{report}\n"),
            None => {
                for warning in self.report.iter().flat_map(Report::warnings) {
                    outln!("    warning: protocol: {}", warning.summary());
                }
                for note in self.report.iter().flat_map(Report::notes) {
                    outln!("    note: {note}");
                }
            }
        }
    }

    fn to_json(&self, path: &Path) -> serde_json::Value {
        let mut entry = match &self.report {
            Some(report) => report.to_json(),
            None => serde_json::json!({"findings": [], "notes": [], "warnings": [], "advice": []}),
        };
        entry["fixture"] = path.display().to_string().into();
        entry["ok"] = self.failure.is_none().into();
        entry["status"] = match (&self.failure, self.error) {
            (None, _) => self.what,
            (Some(_), false) => "failed",
            (Some(_), true) => "error",
        }
        .into();
        entry["time_ms"] = (self.elapsed.as_millis() as u64).into();
        if let Some(page) = &self.page {
            entry["html"] = page.display().to_string().into();
        }
        // Why it failed when no findings say it: no replay happened (a missing or invalid
        // fixture, a server that did not start).
        let unexplained = self.report.as_ref().is_none_or(Report::is_ok);
        entry["error"] = match &self.failure {
            Some(failure) if unexplained => failure.clone().into(),
            _ => serde_json::Value::Null,
        };
        entry
    }

    /// This fixture's findings for the SARIF log; a failure with no finding (a missing
    /// fixture, a server that did not start) is one `error` result on the file.
    fn sarif(&self, path: &Path) -> Vec<output::sarif::Finding> {
        let file = path.display().to_string();
        let mut found = match &self.report {
            Some(report) => report.sarif_findings(&file),
            None => Vec::new(),
        };
        if let (Some(failure), true) = (&self.failure, found.is_empty()) {
            found.push(output::sarif::Finding {
                rule: "error",
                level: output::sarif::Level::Error,
                message: failure.lines().next().unwrap_or_default().to_owned(),
                file,
                line: None,
            });
        }
        found
    }

    fn junit_case(&self, path: &Path) -> junit::Case {
        let outcome = match (&self.failure, &self.report) {
            (None, _) => junit::Verdict::Passed,
            (Some(text), Some(report)) if !report.is_ok() && !self.error => {
                junit::Verdict::Failure {
                    message: output::headline(report.mismatches()),
                    kind: "mismatch".into(),
                    text: text.clone(),
                }
            }
            (Some(text), _) => junit::Verdict::Error {
                message: text.lines().next().unwrap_or_default().to_owned(),
                text: text.clone(),
            },
        };
        junit::Case {
            name: path.display().to_string(),
            classname: "mcp-replay.replay",
            time: self.elapsed,
            outcome,
        }
    }
}

/// Replays one fixture, resolved exactly as `#[mcp_fixture]` resolves it ([`Plan`]);
/// `terminal`: the report goes to a terminal (in color unless the environment says not).
/// A server that could not be started is no finding of this fixture but the command's
/// error (exit status 2): then `Err`, and no fixture after it is replayed.
async fn replay_one(
    args: &Args,
    own: Option<&Rules>,
    path: &Path,
    mode: UpdateMode,
    terminal: bool,
    page: Option<&Path>,
) -> Result<Replayed, Error> {
    let started = Instant::now();
    let mut plan = Plan::new(path, mode);
    let mut options = Options::new()
        .strict_exit(args.strict_exit)
        .allow_stray_output(args.stray.allow_stray_output);
    if let Some(timeout) = args.timeout {
        options = options.timeout(timeout);
    }
    if let Some(version) = &args.protocol {
        options = options.protocol(version);
    }
    if args.trace {
        options = options.trace(true);
    }
    if args.protocol_warnings {
        options = options.protocol_check(mcp_replay::ProtocolCheck::Warn);
    }
    if page.is_some() {
        options = options.timeline(true);
    }
    plan.options = options;
    // The command's own pages (`--html`), not MCP_REPLAY_HTML's.
    plan.html = None;
    plan.page = page.map(Path::to_owned);
    plan.rules = own.cloned();
    plan.terminal = terminal;
    // Printed for pasting into a shell: every argument quoted as it needs.
    let mut command = vec![
        "mcp-replay".to_owned(),
        "replay".into(),
        "--update".into(),
        path.display().to_string(),
    ];
    if let Some(url) = &args.url {
        command.extend(["--url".into(), url.to_string()]);
    }
    // As given: a `${VAR}` stays unexpanded, so no credential is printed.
    for header in &args.headers.headers {
        command.extend(["--header".into(), header.clone()]);
    }
    if !args.server.is_empty() {
        command.push("--".into());
        command.extend(args.server.words());
    }
    plan.rerecord = Some(mcp_replay::_support::shell_line(command));
    let target = crate::live::target(args.url.as_ref(), &args.server, &args.headers.resolved()?);
    let replayed = plan.replay(target).await;
    let (what, mut failure, mut error) = match replayed.verdict {
        Ok(Verdict::Passed) => ("ok", None, false),
        Ok(Verdict::Rerecorded(_)) => ("re-recorded", None, false),
        // Not a finding of this fixture but the command's error.
        Err(harness::Failure::ServerDidNotStart(message)) => return Err(Error::server(message)),
        Err(failure) => ("", Some(failure.to_string()), failure.is_error()),
    };
    let written = page_written(replayed.page, &mut failure, &mut error);
    Ok(Replayed {
        what,
        failure,
        error,
        report: replayed.report,
        page: written,
        elapsed: started.elapsed(),
    })
}

/// What became of the page of a session (`--html`): its path once written. A page that
/// cannot be written is an output error (exit status 2), said with the fixture's report,
/// as a re-recording that cannot be written is.
fn page_written(
    page: Option<Result<PathBuf, mcp_replay::Error>>,
    failure: &mut Option<String>,
    error: &mut bool,
) -> Option<PathBuf> {
    match page? {
        Ok(path) => Some(path),
        Err(e) => {
            let why = format!("mcp-replay: could not write the picture of the session: {e}");
            *failure = Some(match failure.take() {
                Some(report) => format!("{report}\n\n{why}"),
                None => why,
            });
            *error = true;
            None
        }
    }
}
