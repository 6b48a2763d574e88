//! The command line, typed: the subcommands, each with the struct of arguments it takes
//! (clap derive, in its own file under `cmd/`), so an option a subcommand does not take is
//! a usage error (exit 2) that lists the ones it does.

use crate::cmd;
use crate::error::{Error, Kind};
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

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
    // Also when it runs under another file name (the root package's copy for its tests).
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
    #[command(after_help = cmd::record::AFTER_HELP)]
    Record(cmd::record::Args),
    /// Replay fixtures against a server started as a child process (one per fixture)
    #[command(after_help = cmd::replay::AFTER_HELP)]
    Replay(cmd::replay::Args),
    /// Act as the client: call a server's tools, resources and prompts, and write the
    /// exchange as a fixture
    #[command(after_help = cmd::call::AFTER_HELP)]
    Call(Box<cmd::call::Args>),
    /// Convert an mcporter recording (NDJSON with _meta.dir) into fixtures
    #[command(after_help = cmd::import::AFTER_HELP)]
    Import(cmd::import::Args),
    /// Play the server side of a fixture (or an mcporter recording) on stdio or over
    /// Streamable HTTP, for a client under test
    #[command(after_help = cmd::serve::AFTER_HELP)]
    Serve(cmd::serve::Args),
    /// Lint fixtures: format, placeholders, secrets, pending and unreferenced files
    #[command(after_help = cmd::check::AFTER_HELP)]
    Check(cmd::check::Args),
    /// Compare two fixtures: what changed in the contract they pin, with the contract
    /// class of each change to a listing
    #[command(after_help = cmd::diff::AFTER_HELP)]
    Diff(cmd::diff::Args),
    /// What the fixtures exercise of the server's tools, prompts, resources and
    /// capabilities
    #[command(after_help = cmd::coverage::AFTER_HELP)]
    Coverage(cmd::coverage::Args),
    /// Calls nobody recorded: arguments generated from each tool's schema, the answers
    /// judged by the specification's rules, each failure shrunk and kept as a fixture
    #[command(after_help = cmd::explore::AFTER_HELP)]
    Explore(cmd::explore::Args),
    /// Accept pending NAME.jsonl.new files (replace the fixtures with them)
    #[command(after_help = cmd::pending::ACCEPT_AFTER_HELP)]
    Accept(cmd::pending::Args),
    /// Review pending NAME.jsonl.new files one at a time: what changed in the contract, then
    /// accept, reject or skip each
    #[command(after_help = cmd::review::AFTER_HELP)]
    Review(cmd::review::Args),
    /// Run the crate's tests (cargo test) with pending files written for failing replays,
    /// then review them, accept them, or only check
    #[command(after_help = cmd::test::AFTER_HELP)]
    Test(cmd::test::Args),
    /// Delete pending NAME.jsonl.new files
    #[command(after_help = cmd::pending::REJECT_AFTER_HELP)]
    Reject(cmd::pending::Args),
    /// Print a shell completion script
    #[command(after_help = cmd::completions::AFTER_HELP)]
    Completions(cmd::completions::Args),
}

/// What the command line asks for.
pub(crate) enum Parsed {
    /// Run this subcommand; the matches too: `call` reads the order of its options from
    /// them.
    Run(Box<Cli>, ArgMatches),
    /// `--help` or `--version`: printed, and the command is done.
    Shown,
}

/// Parses the command line. `--help` and `--version` print (to stdout) and are done; a
/// usage error is printed and is an error, and an option the subcommand does not take is
/// followed by the options it does take.
pub(crate) fn parse() -> Result<Parsed, Error> {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|matches| Ok((Cli::from_arg_matches(&matches)?, matches)));
    match parsed {
        Ok((cli, matches)) => Ok(Parsed::Run(Box::new(cli), matches)),
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            Ok(Parsed::Shown)
        }
        Err(e) => {
            usage_error(e);
            Err(Error::said(Kind::Usage))
        }
    }
}

/// Prints a usage error as clap does; an option the subcommand does not take is followed
/// by the options it does take.
fn usage_error(e: clap::Error) {
    use clap::error::{ContextKind, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        let _ = e.print();
        return;
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
}
