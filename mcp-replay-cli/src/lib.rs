//! `mcp-replay`: record a live MCP session, replay fixtures against a server in any
//! language, import mcporter recordings, lint and compare fixtures, and serve a fixture to
//! a client.
//!
//! The command is this library's [`main`] (src/main.rs calls it), so that the demo package
//! can build the same command under another file name for its tests; the library is no
//! public API.

mod call;
mod check;
mod cli;
mod diff;
mod junit;
mod net;
mod out;
mod proxy;
mod record;
mod serve;

use clap::{ArgMatches, CommandFactory, FromArgMatches};

use cli::{Cli, Command, Format, ImportArgs, ReplayArgs, ServeArgs, TimingScale};
use mcp_replay::harness;
use mcp_replay::harness::{Plan, Verdict};
use mcp_replay::http::bridge::Bridge;
use mcp_replay::mock::Timing;
use mcp_replay::process::{self, serve_command};
use mcp_replay::update::{write_fixture, UpdateMode};
use mcp_replay::{mcporter, output, Fixture, Report, Rules};
use out::outln;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A failure of the command itself (usage, I/O): exit status 2.
pub(crate) struct Fatal(pub String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Self {
        Fatal(e.to_string())
    }
}

/// The command: parses the arguments, runs the subcommand on a multi-threaded runtime, and
/// says how it ended (docs/cli.md, "Exit status").
#[doc(hidden)]
pub fn main() -> ExitCode {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("the tokio runtime starts")
        .block_on(command())
}

async fn command() -> ExitCode {
    // The matches too: `call` reads the order of its options from them.
    let matches = Cli::command()
        .try_get_matches()
        .unwrap_or_else(|e| cli::usage_error(e));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| cli::usage_error(e));
    match run(cli.command, &matches).await {
        // A reader that went away is no error; stdout that failed otherwise is (out.rs).
        Ok(_) if out::failed().is_some() => ExitCode::from(2),
        Ok(code) => code,
        Err(Fatal(message)) => {
            eprintln!("mcp-replay: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run(command: Command, matches: &ArgMatches) -> Result<ExitCode, Fatal> {
    match command {
        Command::Record(args) => record::record(args).await,
        Command::Replay(args) => replay(args).await,
        Command::Call(args) => {
            let call = matches.subcommand_matches("call").unwrap_or(matches);
            call::call(*args, call).await
        }
        Command::Import(args) => import(args),
        Command::Serve(args) => serve(args).await,
        Command::Check(args) => check::check(args),
        Command::Diff(args) => diff::diff(args),
        Command::Accept(args) => check::pending(args, true),
        Command::Reject(args) => check::pending(args, false),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "mcp-replay", &mut script);
            out::write_bytes(&script);
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn replay(args: ReplayArgs) -> Result<ExitCode, Fatal> {
    let mode = if args.update {
        UpdateMode::Always
    } else {
        UpdateMode::from_env()?
    };
    let own = args.rules.own()?;
    let json = args.output.format == Format::Json;
    // A terminal that is not given JSON: reports in color unless the environment says not.
    let terminal = !json && std::io::stdout().is_terminal();
    let color = !json && harness::color_wanted(terminal);
    let paint = |ok: bool, word: &str| match (color, ok) {
        (false, _) => word.to_owned(),
        (true, true) => format!("\x1b[32m{word}\x1b[0m"),
        (true, false) => format!("\x1b[1;31m{word}\x1b[0m"),
    };
    let _server = http_server(&args).await?;
    let started = Instant::now();
    let mut outcomes = Vec::new();
    for path in &args.fixtures {
        let outcome = replay_one(&args, own.as_ref(), path, mode, terminal).await?;
        let ms = outcome.elapsed.as_millis();
        if !json {
            let word = match (&outcome.failure, outcome.error) {
                (None, _) => paint(true, outcome.what),
                (Some(_), false) => paint(false, "FAILED"),
                (Some(_), true) => paint(false, "ERROR"),
            };
            outln!("mcp-replay: {}: {word} ({ms} ms)", path.display());
            match &outcome.failure {
                Some(report) => outln!(
                    "{report}
"
                ),
                None => {
                    for note in outcome.report.iter().flat_map(Report::notes) {
                        outln!("    note: {note}");
                    }
                }
            }
        }
        outcomes.push((path, outcome));
    }
    let failed = outcomes.iter().filter(|(_, o)| o.failure.is_some()).count();
    let errors = outcomes.iter().filter(|(_, o)| o.error).count();
    let passed = args.fixtures.len() - failed;
    if json {
        let fixtures = outcomes.iter().map(|(p, o)| o.to_json(p)).collect();
        print_json(&output::document("replay", fixtures))?;
    } else {
        print_slowest(&outcomes);
        let mut summary = format!("{passed} passed, {failed} failed");
        if errors > 0 {
            summary.push_str(&format!(", {errors} of them not replayed"));
        }
        outln!(
            "\n{} ({:.1} s)",
            paint(failed == 0, &summary),
            started.elapsed().as_secs_f64()
        );
    }
    if let Some(file) = &args.output.junit {
        let cases: Vec<junit::Case> = outcomes.iter().map(|(p, o)| o.junit_case(p)).collect();
        junit::write(file, &cases, started.elapsed())?;
    }
    // The most severe outcome decides (docs/cli.md, "Exit status"): an input error over a
    // finding.
    Ok(match (errors, failed) {
        (0, 0) => ExitCode::SUCCESS,
        (0, _) => ExitCode::from(1),
        _ => ExitCode::from(2),
    })
}

/// Over HTTP the server must listen before the first fixture: started here with
/// `-- SERVER` (and stopped when the returned value goes), or probed, so that a URL nothing
/// listens on is a usage error rather than a finding per fixture.
async fn http_server(args: &ReplayArgs) -> Result<Option<net::Started>, Fatal> {
    match &args.url {
        None if args.server.is_empty() => Err(Fatal(
            "replay needs a server: `-- SERVER COMMAND` to start one on stdio, or \
             --url URL for one over Streamable HTTP"
                .into(),
        )),
        None => Ok(None),
        Some(url) if args.server.is_empty() => {
            net::probe(url).await.map_err(|e| {
                Fatal(format!(
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

/// The three slowest fixtures of a run of several.
fn print_slowest(outcomes: &[(&PathBuf, Outcome)]) {
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

/// Writes `document` to stdout, pretty, as the one thing there.
pub(crate) fn print_json(document: &serde_json::Value) -> Result<(), Fatal> {
    let mut text = serde_json::to_string_pretty(document)?;
    text.push('\n');
    out::write_bytes(text.as_bytes());
    Ok(())
}

/// How one fixture's replay went.
struct Outcome {
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
    elapsed: Duration,
}

impl Outcome {
    /// One entry of the JSON document's `fixtures`: the report's (`fixture`, `ok`,
    /// `findings`) with `status`, `time_ms` and `error`.
    fn to_json(&self, path: &Path) -> serde_json::Value {
        let mut entry = match &self.report {
            Some(report) => report.to_json(),
            None => serde_json::json!({"findings": [], "notes": [], "advice": []}),
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
        // Why it failed when no findings say it: no replay happened (a missing or invalid
        // fixture, a server that did not start).
        let unexplained = self.report.as_ref().is_none_or(Report::is_ok);
        entry["error"] = match &self.failure {
            Some(failure) if unexplained => failure.clone().into(),
            _ => serde_json::Value::Null,
        };
        entry
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

/// How the server under test ended, in the report's words: its own message (`the server
/// "false" exited with status 1`), not the Debug form a `Result<(), io::Error>` gives.
struct ServerEnded(Result<(), String>);

impl mcp_replay::ServeOutput for ServerEnded {
    fn into_outcome(self) -> Result<(), String> {
        self.0
    }
}

/// Replays one fixture, resolved exactly as `#[mcp_fixture]` resolves it ([`Plan`]);
/// `terminal`: the report goes to a terminal (in color unless the environment says not).
/// A server that could not be started is no finding of this fixture but the command's
/// error (exit status 2): then `Err`, and no fixture after it is replayed.
async fn replay_one(
    args: &ReplayArgs,
    own: Option<&Rules>,
    path: &Path,
    mode: UpdateMode,
    terminal: bool,
) -> Result<Outcome, Fatal> {
    let started = Instant::now();
    let mut plan = Plan::new(path, mode);
    plan.timeout = args.timeout;
    plan.protocol = args.protocol.clone();
    plan.trace = args.trace.then_some(true);
    plan.rules = own.cloned();
    plan.terminal = terminal;
    plan.strict_exit = args.strict_exit;
    plan.allow_stray_output = args.stray.allow_stray_output;
    let mut replayed = None;
    let verdict = match plan.prepare() {
        Err(failure) => Err(failure),
        Ok((fixture, rules)) => {
            let report = match &args.url {
                None => {
                    let not_started = Arc::new(Mutex::new(None));
                    let report = replay_child(&fixture, &rules, &args.server, &not_started).await;
                    let not_started = not_started.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some(message) = not_started {
                        return Err(Fatal(message));
                    }
                    report
                }
                Some(url) => {
                    let bridge = Bridge::new(net::HttpClient::new()).endpoint(url.clone());
                    fixture.replay_bridge(&rules, bridge).await
                }
            };
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
            if !args.server.is_empty() {
                command.push("--".into());
                command.extend(args.server.words());
            }
            let report = report.with_rerecord_command(harness::shell_line(command));
            let verdict = plan.conclude(&report);
            replayed = Some(report);
            verdict
        }
    };
    let (what, failure, error) = match verdict {
        Ok(Verdict::Passed) => ("ok", None, false),
        Ok(Verdict::Rerecorded(_)) => ("re-recorded", None, false),
        Err(failure) => ("", Some(failure.to_string()), failure.is_error()),
    };
    Ok(Outcome {
        what,
        failure,
        error,
        report: replayed,
        elapsed: started.elapsed(),
    })
}

/// Replays `fixture` against `server` started as a child process on stdio. When it could
/// not be started, `not_started` receives the message the command ends with (as `call` and
/// `record` say it).
async fn replay_child(
    fixture: &Fixture,
    rules: &Rules,
    server: &cli::ServerArg,
    not_started: &Arc<Mutex<Option<String>>>,
) -> Report {
    let mut command = server.command();
    let line = server.line();
    let slot = Arc::clone(not_started);
    fixture
        .replay_with(rules, move |transport| async move {
            let ended = serve_command(transport, &mut command).await;
            ServerEnded(ended.map_err(|e| match process::start_error(&e) {
                Some(start) => {
                    let message = format!(
                        "could not start the server `{line}`: {}",
                        start.spawn_error()
                    );
                    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(message.clone());
                    message
                }
                None => e.to_string(),
            }))
        })
        .await
}

fn import(args: ImportArgs) -> Result<ExitCode, Fatal> {
    let recording = args.recording.display().to_string();
    let text = std::fs::read_to_string(&args.recording)
        .map_err(|e| Fatal(format!("reading {recording}: {e}")))?;
    let output = &args.output;
    let single_file = output.extension().is_some_and(|e| e == "jsonl");
    let folder = if single_file {
        output.parent().unwrap_or(Path::new("."))
    } else {
        output
    };
    let rules = args.rules.resolve(None, folder)?;
    let fixtures = mcporter::import(&text, &recording, args.server.as_deref(), &rules)?;
    if single_file && fixtures.len() > 1 {
        let names: Vec<&str> = fixtures.iter().map(|(n, _)| n.as_str()).collect();
        return Err(Fatal(format!(
            "{recording} holds {} servers ({}): give -o a folder, or pick one with --server",
            fixtures.len(),
            names.join(", ")
        )));
    }
    for (server, fixture) in fixtures {
        let path = if single_file {
            output.clone()
        } else {
            output.join(format!("{}.jsonl", file_name(&server)))
        };
        write_fixture(&fixture, &path, UpdateMode::Always)?;
        outln!(
            "mcp-replay: imported {} ({} messages) into {}",
            server,
            fixture.entries().len(),
            path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A server name as a file name: letters, digits, `-`, `_`, `.` kept, the rest `_`.
fn file_name(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

async fn serve(args: ServeArgs) -> Result<ExitCode, Fatal> {
    let path = args.fixture.display().to_string();
    let text = std::fs::read_to_string(&args.fixture)
        .map_err(|e| Fatal(format!("reading {path}: {e}")))?;
    let folder = args.fixture.parent().unwrap_or(Path::new("."));
    let is_mcporter = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .is_some_and(|v| v.get("_meta").is_some_and(|m| m.get("dir").is_some()));
    let fixture = if is_mcporter {
        let rules = args.rules.resolve(None, folder)?;
        let mut fixtures = mcporter::import(&text, &path, args.server.as_deref(), &rules)?;
        if fixtures.len() > 1 {
            let names: Vec<&str> = fixtures.iter().map(|(n, _)| n.as_str()).collect();
            return Err(Fatal(format!(
                "{path} holds several servers ({}): pick one with --server",
                names.join(", ")
            )));
        }
        fixtures.remove(0).1
    } else {
        Fixture::load(&args.fixture)?
    };
    let rules = args.rules.resolve(Some(&fixture), folder)?;
    let mut fixture = fixture;
    if let Some(pace) = args.pace {
        fixture = fixture.with_pace(pace);
    }
    if let Some(timeout) = args.timeout {
        fixture = fixture.with_timeout(timeout);
    }
    if args.stray.allow_stray_output {
        fixture = fixture.with_stray_output_allowed(true);
    }
    if let TimingScale(Some(scale)) = args.timing {
        let file = match &args.timing_file {
            Some(file) => file.clone(),
            None => PathBuf::from(path.strip_suffix(".jsonl").unwrap_or(&path))
                .with_extension("timing.jsonl"),
        };
        let timing = Timing::load(&file).map_err(|e| {
            Fatal(format!(
                "{e} (record it with `mcp-replay record --timing {}`, or name it with --timing-file)",
                file.display()
            ))
        })?;
        fixture = fixture.with_timing(timing, scale);
    }
    let report = match &args.http {
        Some(addr) => serve::serve_http(&fixture, &rules, addr, args.idle).await?,
        None => {
            fixture
                .mock_serve(&rules, tokio::io::stdin(), tokio::io::stdout())
                .await
        }
    };
    if harness::color_wanted(std::io::stderr().is_terminal()) {
        eprintln!("{report:#}");
    } else {
        eprintln!("{report}");
    }
    Ok(if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
