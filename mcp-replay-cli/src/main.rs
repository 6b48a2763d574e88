//! `mcp-replay`: record a live MCP session, replay fixtures against a server in any
//! language, import mcporter recordings, lint fixtures, and serve a fixture to a client.

mod check;
mod record;

use mcp_replay::harness::{self, parse_duration, Plan};
use mcp_replay::process::serve_command;
use mcp_replay::update::{write_fixture, UpdateMode};
use mcp_replay::{mcporter, Fixture, Rules};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

const HELP: &str = "\
mcp-replay: regression tests that pin the protocol contract of MCP servers and clients

Usage: mcp-replay <COMMAND> [OPTIONS] [-- SERVER COMMAND...]

Commands:
  record   Run a server behind a transparent stdio proxy and write the session as a fixture
  replay   Replay fixtures against a server started as a child process
  import   Convert an mcporter recording into fixtures
  serve    Play a fixture's server side on stdio, for a client under test
  check    Lint fixtures: format, placeholders, secrets, pending and unreferenced files
  accept   Accept pending NAME.jsonl.new files (replace the fixtures)
  reject   Delete pending NAME.jsonl.new files

Run `mcp-replay <COMMAND> --help` for a command's options.
Exit status: 0 on success, 1 when a replay, check or serve found problems, 2 on usage or I/O errors.
";

const RECORD_HELP: &str = "\
Run SERVER COMMAND behind a transparent stdio proxy and write the session as a fixture.

Usage: mcp-replay record -o FIXTURE [--raw FILE] [--rules FILE] [--timing FILE] -- SERVER COMMAND...

Configure a client (Claude Desktop, the MCP Inspector, mcporter, an SDK) to launch this
command as its server. Bytes pass both ways unchanged and undelayed, stderr passes through,
and the server's exit status (or signal) becomes this command's. When the session ends the
exchange is normalized (ids, tokens, timestamps, paths, client identity) and written to
FIXTURE atomically, unless it still holds a secret: then nothing is written and the reason
is printed.

Options:
  -o, --output FIXTURE  where to write the fixture (required)
      --raw FILE        also keep the unredacted capture, owner-only (0600); never commit it
      --rules FILE      extra normalization rules (mcp-replay.rules.json format)
      --timing FILE     also write when each message crossed (ms since the start), for
                        `serve --timing recorded`; name it FIXTURE's name with .timing.jsonl
                        in place of .jsonl and serve finds it (the fixture stays deterministic)
  -h, --help            this help
";

const REPLAY_HELP: &str = "\
Replay fixtures against a server started as a child process (one process per fixture).

Usage: mcp-replay replay [OPTIONS] FIXTURE... -- SERVER COMMAND...

Prints each fixture's report and a closing line `N passed, M failed`; exits 0 only if all pass.

Options:
      --timeout TIME    how long to wait for each message the replay needs: 700ms, 2s, or
                        milliseconds (default: the fixture header's timeout, else 5s)
      --protocol V      replay in protocol era V (e.g. 2026-07-28)
      --update          re-record the fixtures' server messages (also MCP_FIXTURE_UPDATE=1;
                        MCP_FIXTURE_UPDATE=new writes FIXTURE.new instead)
      --rules FILE      extra normalization rules (mcp-replay.rules.json format)
      --trace           print every live message to stderr as it passes: milliseconds since
                        the start, direction, method or id, the fixture line it matched or why
                        not (also MCP_REPLAY_TRACE=1)
  -h, --help            this help
";

const IMPORT_HELP: &str = "\
Convert an mcporter recording (NDJSON with _meta.dir send/recv/lifecycle) into fixtures.

Usage: mcp-replay import RECORDING [--server NAME] -o DIR|FILE.jsonl

Lifecycle lines are dropped; a recording of several servers gives one fixture per server
(DIR/SERVER.jsonl); server-initiated requests and the client's answers stay in place. Every
fixture is normalized and checked for secrets before it is written.

Options:
      --server NAME     only this server's traffic
  -o, --output PATH     a folder, or a .jsonl file when there is one server
      --rules FILE      extra normalization rules (mcp-replay.rules.json format)
  -h, --help            this help
";

const SERVE_HELP: &str = "\
Play the server side of a fixture (or of an mcporter recording) on stdin/stdout.

Usage: mcp-replay serve FIXTURE|RECORDING [--server NAME] [--rules FILE] [--pace TIME] [--timeout TIME]
                         [--timing recorded|scaled:F|none] [--timing-file FILE]

Point a client under test at this command as its server. Requests must arrive in recorded
order with the same method and params (client identity is ignored); each is answered with
the recorded messages under the client's id. A request that does not match gets a JSON-RPC
error naming it and the one expected. When the client closes stdin, the report goes to
stderr and the exit status is 1 if anything did not match or was never asked.

Each message is its own flushed write, and a message that another follows at once waits
a little first (the pace), so the client handles each before the next arrives, as from a
live server: some client SDKs drop progress notifications that arrive in one read with
their response.

Options:
      --server NAME     the server of a multi-server mcporter recording
      --rules FILE      extra normalization rules (mcp-replay.rules.json format)
      --pace TIME       the pause between messages written together: 2ms, 0.1s, or
                        milliseconds (default: the fixture header's pace_ms, else 2ms);
                        0 writes them back to back, a stress
                        mode that finds clients which lose messages when a server is fast
      --timeout TIME    how long to wait for the client's answer to a server request:
                        700ms, 2s, or milliseconds (default: the fixture header's timeout,
                        else 5s)
      --timing MODE     `recorded`: each server message waits the pause it was recorded with
                        after the client message it answers (`record --timing`); `scaled:F`:
                        that pause times F (0.5 is twice as fast); `none` (default): paced only
      --timing-file F   the times (default: FIXTURE with .timing.jsonl in place of .jsonl)
  -h, --help            this help
";

const CHECK_HELP: &str = "\
Lint fixtures: each must parse, hold no secret, have no pending .jsonl.new or stray
temporary file beside it; fixtures that no .rs file under the current folder names are
reported as unreferenced.

Usage: mcp-replay check [--strict] [PATH...]

PATH is a fixture or a folder (default: fixtures/ and tests/fixtures/ when they exist).
Exits 1 when a problem was found; with --strict, unreferenced fixtures count as problems.
";

const PENDING_HELP: &str = "\
Usage: mcp-replay accept|reject [PATH...]

accept renames each pending FIXTURE.jsonl.new over FIXTURE.jsonl; reject deletes it.
PATH is a pending file, a fixture, or a folder (default: fixtures/ and tests/fixtures/).
";

/// A failure of the command itself (usage, I/O): exit status 2.
pub(crate) struct Fatal(pub String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Self {
        Fatal(e.to_string())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match run(args).await {
        Ok(code) => code,
        Err(Fatal(message)) => {
            eprintln!("mcp-replay: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run(args: Vec<OsString>) -> Result<ExitCode, Fatal> {
    let Some(command) = args.first().and_then(|a| a.to_str()).map(str::to_owned) else {
        print!("{HELP}");
        return Ok(ExitCode::from(2));
    };
    let rest = Args::parse(&args[1..])?;
    let help = |text: &str| {
        print!("{text}");
        Ok(ExitCode::SUCCESS)
    };
    match command.as_str() {
        "-h" | "--help" | "help" => help(HELP),
        "-V" | "--version" => {
            println!("mcp-replay {}", env!("CARGO_PKG_VERSION"));
            Ok(ExitCode::SUCCESS)
        }
        "record" if rest.help => help(RECORD_HELP),
        "replay" if rest.help => help(REPLAY_HELP),
        "import" if rest.help => help(IMPORT_HELP),
        "serve" if rest.help => help(SERVE_HELP),
        "check" if rest.help => help(CHECK_HELP),
        "accept" | "reject" if rest.help => help(PENDING_HELP),
        "record" => record::record(rest).await,
        "replay" => replay(rest).await,
        "import" => import(rest),
        "serve" => serve(rest).await,
        "check" => check::check(rest),
        "accept" => check::pending(rest, true),
        "reject" => check::pending(rest, false),
        other => Err(Fatal(format!(
            "unknown command {other:?}; commands: record, replay, import, serve, check, accept, reject (see --help)"
        ))),
    }
}

/// Parsed options: `--key value` pairs, flags, positional arguments, and the server command
/// after `--`.
pub(crate) struct Args {
    pub options: Vec<(String, String)>,
    pub flags: Vec<String>,
    pub positional: Vec<String>,
    pub command: Vec<OsString>,
    pub help: bool,
}

/// Options that take a value.
const VALUED: [&str; 9] = [
    "--output",
    "--raw",
    "--rules",
    "--timeout",
    "--server",
    "--protocol",
    "--pace",
    "--timing",
    "--timing-file",
];

impl Args {
    fn parse(args: &[OsString]) -> Result<Args, Fatal> {
        let mut out = Args {
            options: Vec::new(),
            flags: Vec::new(),
            positional: Vec::new(),
            command: Vec::new(),
            help: false,
        };
        let mut i = 0;
        while i < args.len() {
            let arg = args[i]
                .to_str()
                .ok_or_else(|| Fatal(format!("argument {:?} is not UTF-8", args[i])))?;
            if arg == "--" {
                out.command = args[i + 1..].to_vec();
                break;
            }
            let (key, inline) = match arg.split_once('=') {
                Some((k, v)) if k.starts_with("--") => (k.to_owned(), Some(v.to_owned())),
                _ => (
                    if arg == "-o" {
                        "--output".to_owned()
                    } else {
                        arg.to_owned()
                    },
                    None,
                ),
            };
            if key == "-h" || key == "--help" {
                out.help = true;
            } else if VALUED.contains(&key.as_str()) {
                let value = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        args.get(i)
                            .and_then(|v| v.to_str())
                            .ok_or_else(|| Fatal(format!("{key} needs a value")))?
                            .to_owned()
                    }
                };
                out.options.push((key, value));
            } else if key.starts_with('-') && key.len() > 1 {
                out.flags.push(key);
            } else {
                out.positional.push(arg.to_owned());
            }
            i += 1;
        }
        Ok(out)
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn flag(&self, key: &str) -> bool {
        self.flags.iter().any(|f| f == key)
    }

    /// Refuses flags this command does not know.
    pub fn only_flags(&self, known: &[&str]) -> Result<(), Fatal> {
        match self.flags.iter().find(|f| !known.contains(&f.as_str())) {
            Some(f) => Err(Fatal(format!("unknown option {f} (see --help)"))),
            None => Ok(()),
        }
    }

    /// The time `option` gives (`700ms`, `2s`, or milliseconds; `zero_ok`: 0 is a value).
    pub fn duration(&self, option: &str, zero_ok: bool) -> Result<Option<Duration>, Fatal> {
        let Some(text) = self.get(option) else {
            return Ok(None);
        };
        match parse_duration(text) {
            Ok(d) if zero_ok || !d.is_zero() => Ok(Some(d)),
            Ok(_) => Err(Fatal(format!(
                "{option} {text}: give a time above zero, e.g. 2s"
            ))),
            Err(e) => Err(Fatal(format!("{option} {e}"))),
        }
    }

    pub fn server_command(&self) -> Result<tokio::process::Command, Fatal> {
        let Some((program, args)) = self.command.split_first() else {
            return Err(Fatal(
                "give the server command after `--`, e.g. `-- node server.js`".into(),
            ));
        };
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        Ok(command)
    }

    pub fn command_line(&self) -> String {
        self.command
            .iter()
            .map(|a| {
                let a = a.to_string_lossy();
                if a.contains([' ', '"', '\'']) {
                    format!("{a:?}")
                } else {
                    a.into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `--rules FILE`, when given.
    pub fn own_rules(&self) -> Result<Option<Rules>, Fatal> {
        let Some(path) = self.get("--rules") else {
            return Ok(None);
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| Fatal(format!("reading {path}: {e}")))?;
        Ok(Some(Rules::from_json(&text, path)?))
    }

    /// The rules for fixtures in `folder`, resolved as `#[mcp_fixture]` resolves them
    /// ([`harness::rules_for`]), plus `--rules FILE`.
    pub fn rules(&self, fixture: Option<&Fixture>, folder: &Path) -> Result<Rules, Fatal> {
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        let workspace = harness::workspace_root(folder);
        let own = self.own_rules()?;
        Ok(harness::rules_for(
            fixture,
            folder,
            &workspace,
            own.as_ref(),
        )?)
    }
}

async fn replay(args: Args) -> Result<ExitCode, Fatal> {
    args.only_flags(&["--update", "--trace"])?;
    if args.positional.is_empty() {
        return Err(Fatal(
            "give at least one fixture (see `mcp-replay replay --help`)".into(),
        ));
    }
    args.server_command()?;
    let mode = if args.flag("--update") {
        UpdateMode::Always
    } else {
        UpdateMode::from_env()?
    };
    let timeout = args.duration("--timeout", false)?;
    let (mut passed, mut failed) = (0, 0);
    for path in &args.positional {
        let path = PathBuf::from(path);
        let outcome = replay_one(&args, &path, timeout, mode).await;
        match outcome {
            Ok(report) => {
                println!("{report}");
                passed += 1;
            }
            Err(message) => {
                println!("{message}\n");
                failed += 1;
            }
        }
    }
    println!("\n{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `Ok` with a one-line summary, or `Err` with the whole report. The fixture is resolved
/// exactly as `#[mcp_fixture]` resolves it ([`Plan`]).
async fn replay_one(
    args: &Args,
    path: &Path,
    timeout: Option<Duration>,
    mode: UpdateMode,
) -> Result<String, String> {
    let mut plan = Plan::new(path, mode);
    plan.timeout = timeout;
    plan.protocol = args.get("--protocol").map(str::to_owned);
    plan.trace = args.flag("--trace").then_some(true);
    plan.rules = args.own_rules().map_err(|Fatal(m)| m)?;
    let (fixture, rules) = plan.prepare().map_err(|f| f.to_string())?;
    let mut command = args.server_command().map_err(|Fatal(m)| m)?;
    let started = std::time::Instant::now();
    let report = fixture
        .replay_with(&rules, move |transport| async move {
            serve_command(transport, &mut command).await
        })
        .await
        .with_rerecord_command(format!(
            "mcp-replay replay --update {} -- {}",
            path.display(),
            args.command_line()
        ));
    let elapsed = started.elapsed();
    let verdict = plan.conclude(&report).map_err(|f| f.to_string())?;
    let what = match verdict {
        harness::Verdict::Passed => "ok".to_owned(),
        harness::Verdict::Rerecorded(_) => "re-recorded".to_owned(),
    };
    Ok(format!(
        "mcp-replay: {}: {what} ({} ms)",
        path.display(),
        elapsed.as_millis()
    ))
}

fn import(args: Args) -> Result<ExitCode, Fatal> {
    args.only_flags(&[])?;
    let [recording] = args.positional.as_slice() else {
        return Err(Fatal(
            "give one recording (see `mcp-replay import --help`)".into(),
        ));
    };
    let output = args.get("--output").ok_or_else(|| {
        Fatal("give -o DIR or -o FILE.jsonl (see `mcp-replay import --help`)".into())
    })?;
    let text = std::fs::read_to_string(recording)
        .map_err(|e| Fatal(format!("reading {recording}: {e}")))?;
    let output = PathBuf::from(output);
    let single_file = output.extension().is_some_and(|e| e == "jsonl");
    let folder = if single_file {
        output.parent().unwrap_or(Path::new("."))
    } else {
        &output
    };
    let rules = args.rules(None, folder)?;
    let fixtures = mcporter::import(&text, recording, args.get("--server"), &rules)?;
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
        println!(
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

/// `--timing recorded|scaled:F|none`: the factor the recorded pauses are played at.
fn timing_scale(mode: Option<&str>) -> Result<Option<f64>, Fatal> {
    match mode {
        None | Some("none") => Ok(None),
        Some("recorded") => Ok(Some(1.0)),
        Some(other) => match other.strip_prefix("scaled:").map(str::parse::<f64>) {
            Some(Ok(f)) if f.is_finite() && f >= 0.0 => Ok(Some(f)),
            _ => Err(Fatal(format!(
                "--timing {other}: give `recorded`, `scaled:F` (e.g. scaled:0.5) or `none`"
            ))),
        },
    }
}

async fn serve(args: Args) -> Result<ExitCode, Fatal> {
    args.only_flags(&[])?;
    let [path] = args.positional.as_slice() else {
        return Err(Fatal(
            "give one fixture or mcporter recording (see `mcp-replay serve --help`)".into(),
        ));
    };
    let text = std::fs::read_to_string(path).map_err(|e| Fatal(format!("reading {path}: {e}")))?;
    let folder = Path::new(path).parent().unwrap_or(Path::new("."));
    let is_mcporter = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .is_some_and(|v| v.get("_meta").is_some_and(|m| m.get("dir").is_some()));
    let fixture = if is_mcporter {
        let rules = args.rules(None, folder)?;
        let mut fixtures = mcporter::import(&text, path, args.get("--server"), &rules)?;
        if fixtures.len() > 1 {
            let names: Vec<&str> = fixtures.iter().map(|(n, _)| n.as_str()).collect();
            return Err(Fatal(format!(
                "{path} holds several servers ({}): pick one with --server",
                names.join(", ")
            )));
        }
        fixtures.remove(0).1
    } else {
        Fixture::load(path)?
    };
    let rules = args.rules(Some(&fixture), folder)?;
    let mut fixture = fixture;
    if let Some(pace) = args.duration("--pace", true)? {
        fixture = fixture.with_pace(pace);
    }
    if let Some(timeout) = args.duration("--timeout", false)? {
        fixture = fixture.with_timeout(timeout);
    }
    if let Some(scale) = timing_scale(args.get("--timing"))? {
        let file = match args.get("--timing-file") {
            Some(file) => PathBuf::from(file),
            None => PathBuf::from(path.strip_suffix(".jsonl").unwrap_or(path))
                .with_extension("timing.jsonl"),
        };
        let timing = mcp_replay::mock::Timing::load(&file).map_err(|e| {
            Fatal(format!(
                "{e} (record it with `mcp-replay record --timing {}`, or name it with --timing-file)",
                file.display()
            ))
        })?;
        fixture = fixture.with_timing(timing, scale);
    }
    let report = fixture
        .mock_serve(&rules, tokio::io::stdin(), tokio::io::stdout())
        .await;
    eprintln!("{report}");
    Ok(if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
