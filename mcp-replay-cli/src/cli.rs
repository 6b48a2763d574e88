//! The command line, typed: one struct of arguments per subcommand (clap derive), so an
//! option a subcommand does not take is a usage error (exit 2) that lists the ones it does.

use crate::Fatal;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use mcp_replay::harness::{self, parse_duration};
use mcp_replay::{Fixture, Rules};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The exit statuses, in every help text: the rule of docs/cli.md, "Exit status".
pub(crate) const EXIT_CODES: &str = "\
Exit status (the most severe applies: 2 over 1 over 0):
  0  success: every fixture passed, or the command did its job
  1  findings: what was tested did not do what was expected: a replay or serve found a
     difference (a server that started, then failed or exited, is one), check a problem
     in a fixture, diff a change that reaches --fail-on, call a JSON-RPC error or an
     incomplete exchange, record a session with nothing to record
  2  usage or input error, the command could not do its job: a wrong option; an input
     file that does not exist, is unreadable, invalid or empty, or holds a secret (check
     reports a problem in a file as a finding, 1); a server that could not start; an
     output that could not be written (a recording that would hold a secret)
  record exits with the server's own status when the server failed.";

/// mcp-replay: regression tests that pin the protocol contract of MCP servers and clients.
#[derive(Debug, Parser)]
#[command(
    name = "mcp-replay",
    // Also when it runs under another file name (the demo package's copy for its tests).
    bin_name = "mcp-replay",
    version,
    about,
    after_help = EXIT_CODES,
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run a server behind a transparent stdio proxy and write the session as a fixture
    #[command(after_help = concat!(
        "Examples:\n",
        "  mcp-replay record -o fixtures/echo.jsonl -- node server.js\n",
        "  (configure the client under test to launch this command as its server)\n",
        "\n",
        "Exit status: the server's own when it failed (the client sees what it would have);\n",
        "after a clean exit 0 when the fixture was written, 1 when nothing crossed the proxy,\n",
        "2 when it could not be written (it would hold a secret); 2 when the server could not\n",
        "start."
    ))]
    Record(RecordArgs),
    /// Replay fixtures against a server started as a child process (one per fixture)
    #[command(after_help = concat!(
        "Examples:\n",
        "  mcp-replay replay fixtures/*.jsonl -- node server.js\n",
        "  mcp-replay replay --update fixtures/echo.jsonl -- python server.py\n",
        "  mcp-replay replay --format json --junit junit.xml fixtures/*.jsonl -- node server.js   (CI)\n",
        "\n",
        "--format json writes one JSON document to stdout instead of the text (schema:\n",
        "docs/cli.md, \"JSON output\"); --junit FILE also writes a JUnit XML report."
    ))]
    Replay(ReplayArgs),
    /// Act as the client: call a server's tools, resources and prompts, and write the
    /// exchange as a fixture
    #[command(after_help = concat!(
        "Examples:\n",
        "  mcp-replay call -o fixtures/echo.jsonl --list-tools --tool echo message=hello -- node server.js\n",
        "  mcp-replay call -o fixtures/add.jsonl --tool add a:=2 b:=3 -- python server.py\n",
        "  mcp-replay call -o fixtures/readme.jsonl --resource file:///README.md --client-only -- ./server\n",
        "  mcp-replay call -o fixtures/modern.jsonl --protocol 2026-07-28 --tool search --args '{\"q\":\"mcp\"}' -- ./server\n",
        "\n",
        "The steps run in the order given, each waiting for its answer (--timeout), and each\n",
        "answer is printed to stdout as JSON. KEY=VALUE passes a string argument to the --tool\n",
        "or --prompt before it, KEY:=JSON a typed one (2, true, [1,2], {\"a\":1}); --args JSON\n",
        "passes them as one object. The server's requests get a cautious client's answers\n",
        "(no roots, elicitation declined, sampling refused) unless --root, --accept-elicitation\n",
        "or --sampling-reply say otherwise.\n",
        "\n",
        "Exit 1 when a step got a JSON-RPC error (the fixture is written: it pins the error),\n",
        "when the server wrote lines on stdout that are not JSON-RPC messages (written without
",
        "them; --allow-stray-output allows them), or when the server exited, did not answer or
",
        "refused the handshake (nothing written); 2 when the server could not start or the
",
        "fixture would hold a secret (nothing written)."
    ))]
    Call(Box<crate::call::CallArgs>),
    /// Convert an mcporter recording (NDJSON with _meta.dir) into fixtures
    #[command(after_help = concat!(
        "Examples:\n",
        "  mcp-replay import recording.ndjson -o fixtures/\n",
        "  mcp-replay import recording.ndjson --server github -o fixtures/github.jsonl"
    ))]
    Import(ImportArgs),
    /// Play the server side of a fixture (or an mcporter recording) on stdio or over
    /// Streamable HTTP, for a client under test
    #[command(after_help = concat!(
        "Examples:\n",
        "  mcp-replay serve fixtures/echo.jsonl          (the client launches this as its server)\n",
        "  mcp-replay serve --pace 0 fixtures/echo.jsonl (stress: messages back to back)\n",
        "  mcp-replay serve --http 127.0.0.1:8931 fixtures/echo.jsonl\n",
        "                                                (the client connects to http://127.0.0.1:8931/mcp)\n",
        "\n",
        "With --http, `listening on http://HOST:PORT/mcp` goes to stderr once the port is\n",
        "bound (port 0 picks a free one); one client session is served, and it ends with the\n",
        "client's DELETE, 2 s after the client's last connection closed, or on Ctrl-C or SIGTERM.\n",
        "\n",
        "The report goes to stderr when the session ends. Exit 0 when the client did what\n",
        "the recording did, 1 on findings, 2 on a usage or input error (a fixture that does\n",
        "not exist, is invalid or holds a secret; an address that cannot be bound)."
    ))]
    Serve(ServeArgs),
    /// Lint fixtures: format, placeholders, secrets, pending and unreferenced files
    #[command(after_help = concat!(
        "Examples:\n",
        "  mcp-replay check\n",
        "  mcp-replay check --strict tests/fixtures\n",
        "  mcp-replay check --format json --junit check.xml   (CI)\n",
        "\n",
        "Exit 1 when a file has a problem (invalid, empty, a secret, pending, temporary;\n",
        "unreferenced with --strict): finding those is check's job. Exit 2 when a PATH does\n",
        "not exist."
    ))]
    Check(CheckArgs),
    /// Compare two fixtures: what changed in the contract they pin, with the contract
    /// class of each change to a listing
    #[command(after_help = concat!(
        "Examples:\n",
        "  mcp-replay diff HEAD:fixtures/tools.jsonl fixtures/tools.jsonl\n",
        "  mcp-replay diff --fail-on breaking main:fixtures/tools.jsonl fixtures/tools.jsonl\n",
        "  mcp-replay diff --format json old.jsonl new.jsonl\n",
        "\n",
        "OLD and NEW are files, or REV:PATH read with `git show REV:PATH` (PATH from the\n",
        "repository's root, or ./PATH from the current folder) when no such file exists.\n",
        "Both are normalized with NEW's rules first. Requests pair by method (and tool,\n",
        "prompt or resource) in order, responses by the request they answer, notifications\n",
        "and server requests by method in order.\n",
        "\n",
        "--fail-on CLASS: exit 1 when a finding is of that class or more severe. A finding\n",
        "with no contract class (a changed tools/call result, a message gone or added) counts\n",
        "as unknown, and unknown fails at every threshold: breaking fails on breaking and\n",
        "unknown findings, compatible also on compatible ones, cosmetic (the default) on any.\n",
        "Exit 0 when no finding reaches it, 2 on a usage or input error (a fixture that does\n",
        "not exist, is invalid or empty, or holds a secret)."
    ))]
    Diff(DiffArgs),
    /// Accept pending NAME.jsonl.new files (replace the fixtures with them)
    #[command(after_help = "Example:\n  mcp-replay accept tests/fixtures")]
    Accept(PendingArgs),
    /// Delete pending NAME.jsonl.new files
    #[command(after_help = "Example:\n  mcp-replay reject tests/fixtures")]
    Reject(PendingArgs),
    /// Print a shell completion script
    #[command(after_help = concat!(
        "Examples:\n",
        "  mcp-replay completions bash > ~/.local/share/bash-completion/completions/mcp-replay\n",
        "  mcp-replay completions zsh > ~/.zfunc/_mcp-replay\n",
        "  mcp-replay completions fish > ~/.config/fish/completions/mcp-replay.fish\n",
        "  mcp-replay completions powershell >> $PROFILE"
    ))]
    Completions {
        /// The shell
        shell: clap_complete::Shell,
    },
}

/// `--rules FILE`: normalization rules of the caller's own.
#[derive(Debug, Args)]
pub(crate) struct RulesArg {
    /// Extra normalization rules (mcp-replay.rules.json format)
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
}

impl RulesArg {
    /// `--rules FILE`, read, when given.
    pub fn own(&self) -> Result<Option<Rules>, Fatal> {
        let Some(path) = &self.rules else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| Fatal(format!("reading {}: {e}", path.display())))?;
        Ok(Some(Rules::from_json(&text, &path.display().to_string())?))
    }

    /// The rules for fixtures in `folder`, resolved as `#[mcp_fixture]` resolves them
    /// ([`harness::rules_for`]), plus `--rules FILE`.
    pub fn resolve(&self, fixture: Option<&Fixture>, folder: &Path) -> Result<Rules, Fatal> {
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        let workspace = harness::workspace_root(folder);
        let own = self.own()?;
        Ok(harness::rules_for(
            fixture,
            folder,
            &workspace,
            own.as_ref(),
        )?)
    }
}

/// `--allow-stray-output`, for `record`, `call`, `replay` and `serve`.
#[derive(Debug, Args)]
pub(crate) struct StrayArg {
    /// Tolerate lines on stdio that are not JSON-RPC messages (a server's banner or logs on
    /// stdout; for serve, the client's): a note instead of a failure. record and call
    /// write "allow_stray_output": true into the fixture's header so its replay does too
    #[arg(long)]
    pub allow_stray_output: bool,
}

/// The server command after `--`.
#[derive(Debug, Args)]
pub(crate) struct ServerArg {
    /// The server to start, after `--` (e.g. -- node server.js)
    #[arg(last = true, value_name = "SERVER COMMAND")]
    pub server: Vec<OsString>,
}

impl ServerArg {
    /// The server command, ready to spawn.
    pub fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.server[0]);
        command.args(&self.server[1..]);
        command
    }

    /// Whether no server command was given.
    pub fn is_empty(&self) -> bool {
        self.server.is_empty()
    }

    /// The server command's words, as text.
    pub fn words(&self) -> impl Iterator<Item = String> + '_ {
        self.server.iter().map(|a| a.to_string_lossy().into_owned())
    }

    /// The server command as one line a shell runs as given (each word
    /// [`harness::shell_quote`]d).
    pub fn line(&self) -> String {
        harness::shell_line(self.words())
    }
}

/// Ends the process on a parse error: `--help` and `--version` print and exit 0; a usage
/// error exits 2, and an option the subcommand does not take is followed by the options
/// it does take.
pub(crate) fn usage_error(e: clap::Error) -> ! {
    use clap::error::{ContextKind, ErrorKind};
    if !e.use_stderr() || e.kind() != ErrorKind::UnknownArgument {
        e.exit()
    }
    let mut text = e.render().to_string();
    let used = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let root = Cli::command();
    if let Some(sub) = used.and_then(|name| root.find_subcommand(&name).cloned()) {
        let options: Vec<String> = sub
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        let offending = e.get(ContextKind::InvalidArg).map(|v| v.to_string());
        text.push_str(&format!(
            "\n`mcp-replay {}` does not take {}; its options are: {}\n",
            sub.get_name(),
            offending.as_deref().unwrap_or("that option"),
            options.join(", ")
        ));
    }
    eprint!("{text}");
    std::process::exit(2)
}

/// A time above zero: `700ms`, `2s`, or milliseconds.
pub(crate) fn positive_time(text: &str) -> Result<Duration, String> {
    match parse_duration(text)? {
        d if d.is_zero() => Err("give a time above zero, e.g. 2s".into()),
        d => Ok(d),
    }
}

/// `mcp-replay record`.
#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// Where to write the fixture
    #[arg(short, long, value_name = "FIXTURE")]
    pub output: PathBuf,
    /// Also keep the unredacted capture, owner-only (0600); never commit it
    #[arg(long, value_name = "FILE")]
    pub raw: Option<PathBuf>,
    /// Also write when each message crossed (ms since the start), for `serve --timing
    /// recorded`; name it like FIXTURE with .timing.jsonl in place of .jsonl and serve finds
    /// it
    #[arg(long, value_name = "FILE")]
    pub timing: Option<PathBuf>,
    /// Record over Streamable HTTP: listen here (e.g. 127.0.0.1:8080; port 0 picks one)
    /// for the client, and forward to --upstream
    #[arg(long, value_name = "ADDR", requires = "upstream")]
    pub listen: Option<std::net::SocketAddr>,
    /// The server's Streamable HTTP URL the proxy forwards to; with `-- SERVER` too, start
    /// it first and wait until the URL answers
    #[arg(long, value_name = "URL", requires = "listen", value_parser = crate::net::parse_url)]
    pub upstream: Option<http::Uri>,
    /// Over HTTP: also end the recording once the client has had no connection open for
    /// TIME (a client that goes without a DELETE, as the TypeScript SDK's close() does)
    /// [default: only on its DELETE, Ctrl-C or SIGTERM]
    #[arg(long, value_name = "TIME", requires = "listen", value_parser = positive_time)]
    pub idle: Option<Duration>,
    #[command(flatten)]
    pub stray: StrayArg,
    #[command(flatten)]
    pub rules: RulesArg,
    #[command(flatten)]
    pub server: ServerArg,
}

/// `mcp-replay replay`.
#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
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
    #[command(flatten)]
    pub stray: StrayArg,
    #[command(flatten)]
    pub rules: RulesArg,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

/// How a report is written on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// For people: the readable report
    Text,
    /// For CI: one JSON document (schema: docs/cli.md, "JSON output")
    Json,
}

/// `--format text|json` and `--junit FILE`, for `replay`, `check` and `diff`.
#[derive(Debug, Args)]
pub(crate) struct OutputArgs {
    /// How to write the report on stdout: text, or json (one document, versioned schema in
    /// docs/cli.md)
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write a JUnit XML report to FILE: one testcase per fixture, a failure with the
    /// report's text
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// `mcp-replay diff`.
#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The fixture as it was: a file, or REV:PATH (e.g. HEAD:fixtures/tools.jsonl)
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The fixture as it is: a file, or REV:PATH
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Exit 1 only when a finding is of this class or more severe (a finding with no
    /// contract class counts as unknown, which fails at every threshold)
    #[arg(long, value_name = "CLASS", default_value = "cosmetic",
          value_parser = ["breaking", "compatible", "cosmetic"])]
    pub fail_on: String,
    #[command(flatten)]
    pub rules: RulesArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `mcp-replay import`.
#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The mcporter recording
    #[arg(value_name = "RECORDING")]
    pub recording: PathBuf,
    /// Only this server's traffic
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// A folder, or a .jsonl file when there is one server
    #[arg(short, long, value_name = "DIR|FILE.jsonl")]
    pub output: PathBuf,
    #[command(flatten)]
    pub rules: RulesArg,
}

/// `mcp-replay serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The fixture, or an mcporter recording
    #[arg(value_name = "FIXTURE|RECORDING")]
    pub fixture: PathBuf,
    /// Serve over Streamable HTTP at http://ADDR/mcp instead of stdio (ADDR is host:port,
    /// e.g. 127.0.0.1:0)
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Over HTTP: end the session once the client has had no connection open for TIME
    /// after it sent every recorded message (it went without a DELETE); before that, 10s
    /// (or TIME if longer): it may come back
    #[arg(long, value_name = "TIME", requires = "http", default_value = "2s", value_parser = positive_time)]
    pub idle: Duration,
    /// The server of a multi-server mcporter recording
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// The pause between messages written together: 2ms, 0.1s, or milliseconds; 0 writes
    /// them back to back [default: the header's pace_ms, else 2ms]
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub pace: Option<Duration>,
    /// How long to wait for the client's answer to a server request: 700ms, 2s, or
    /// milliseconds [default: the header's timeout, else 5s]
    #[arg(long, value_name = "TIME", value_parser = positive_time)]
    pub timeout: Option<Duration>,
    /// `recorded`: play each server message after its recorded pause (`record --timing`);
    /// `scaled:F`: that pause times F; `none`: paced only
    #[arg(long, value_name = "MODE", default_value = "none", value_parser = timing_scale)]
    pub timing: TimingScale,
    /// The recorded times [default: FIXTURE with .timing.jsonl in place of .jsonl]
    #[arg(long, value_name = "FILE")]
    pub timing_file: Option<PathBuf>,
    #[command(flatten)]
    pub stray: StrayArg,
    #[command(flatten)]
    pub rules: RulesArg,
}

/// `--timing recorded|scaled:F|none`: the factor the recorded pauses are played at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimingScale(pub Option<f64>);

fn timing_scale(mode: &str) -> Result<TimingScale, String> {
    match mode {
        "none" => Ok(TimingScale(None)),
        "recorded" => Ok(TimingScale(Some(1.0))),
        other => match other.strip_prefix("scaled:").map(str::parse::<f64>) {
            Some(Ok(f)) if f.is_finite() && f >= 0.0 => Ok(TimingScale(Some(f))),
            _ => Err("give `recorded`, `scaled:F` (e.g. scaled:0.5) or `none`".into()),
        },
    }
}

/// `mcp-replay check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Fixtures or folders [default: fixtures/ and tests/fixtures/ when they exist]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Count unreferenced fixtures (no .rs file of their Cargo project names them) as
    /// problems, not warnings
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `mcp-replay accept` and `reject`.
#[derive(Debug, Args)]
pub(crate) struct PendingArgs {
    /// Pending files, fixtures or folders [default: fixtures/ and tests/fixtures/]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

#[cfg(test)]
mod should {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn be_a_valid_command_definition() {
        Cli::command().debug_assert();
    }

    #[test]
    fn refuse_an_option_another_subcommand_takes() {
        let e = Cli::try_parse_from([
            "mcp-replay",
            "import",
            "--timeout",
            "5",
            "r.ndjson",
            "-o",
            "x",
        ])
        .unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let e =
            Cli::try_parse_from(["mcp-replay", "check", "--output", "x", "f.jsonl"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn read_timing_modes() {
        assert_eq!(timing_scale("recorded").unwrap().0, Some(1.0));
        assert_eq!(timing_scale("scaled:0.5").unwrap().0, Some(0.5));
        assert_eq!(timing_scale("none").unwrap().0, None);
        assert!(timing_scale("scaled:-1").is_err());
        assert!(timing_scale("fast").is_err());
    }
}
