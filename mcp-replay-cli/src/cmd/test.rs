//! `mcp-replay test [-- CARGO ARGS]`: `cargo test` with every failing replay leaving its
//! new recording beside the fixture (`NAME.jsonl.new`), as `cargo insta test` does, then
//! the pending files listed, reviewed (`--review`) or accepted (`--accept`); `--check`
//! only compares and writes nothing, for CI.

use crate::error::{Error, Outcome};
use crate::out::outln;
use crate::pending::{find, take_all, Pending};
use mcp_replay::_support::env::PENDING_PASSES_ENV;
use mcp_replay::_support::update::UPDATE_ENV;
use std::ffi::OsString;
use std::path::PathBuf;

/// `mcp-replay test`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Then review the pending files in the terminal (`mcp-replay review`)
    #[arg(long, conflicts_with_all = ["accept", "check"])]
    pub review: bool,
    /// Then accept every pending file (for scripts)
    #[arg(long, conflicts_with = "check")]
    pub accept: bool,
    /// Only compare: write nothing (MCP_FIXTURE_UPDATE=no); for CI
    #[arg(long)]
    pub check: bool,
    /// Where the pending files are looked for after the run [default: the current folder]
    #[arg(long, value_name = "PATH")]
    pub fixtures: Vec<PathBuf>,
    /// Arguments for `cargo test`, after `--` (e.g. -- -p my-server --test tools)
    #[arg(last = true, value_name = "CARGO ARGS")]
    pub cargo: Vec<OsString>,
}

/// The examples and exit statuses of `mcp-replay test --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay test\n",
    "  mcp-replay test --review -- -p my-server\n",
    "  mcp-replay test --accept -- --test tools\n",
    "  mcp-replay test --check   (CI)\n",
    "\n",
    "Runs `cargo test CARGO ARGS` (cargo as $CARGO names it, else from PATH) with\n",
    "MCP_FIXTURE_UPDATE=new: a replay test whose server answers differently writes\n",
    "NAME.jsonl.new beside its fixture and passes, so that cargo's status says whether\n",
    "anything else failed. Then the pending files below the current folder (or --fixtures)\n",
    "are listed, reviewed (--review) or accepted (--accept).\n",
    "\n",
    "Exit 0 when the tests passed and nothing is left pending; 1 when a test failed, or\n",
    "pending files are left to review; 2 when cargo could not be started or a pending\n",
    "file could not be accepted."
);

/// `mcp-replay test`.
pub(crate) async fn run(args: Args) -> Result<Outcome, Error> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = tokio::process::Command::new(&cargo);
    command.arg("test").args(&args.cargo);
    if args.check {
        command.env(UPDATE_ENV, "no");
    } else {
        command.env(UPDATE_ENV, "new").env(PENDING_PASSES_ENV, "1");
    }
    let status = command
        .status()
        .await
        .map_err(|e| Error::server(format!("running {} test: {e}", cargo.to_string_lossy())))?;
    if !status.success() {
        eprintln!("mcp-replay: cargo test failed ({status})");
    }
    let tests = if status.success() {
        Outcome::Success
    } else {
        Outcome::Findings
    };
    if args.check {
        return Ok(tests);
    }
    let roots = if args.fixtures.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.fixtures.clone()
    };
    let pending = find(&roots)?;
    let left = if args.accept {
        take_all(&pending, Pending::accept)?;
        0
    } else if args.review && !pending.is_empty() {
        review(&roots)?;
        find(&roots)?.len()
    } else {
        list(&pending);
        pending.len()
    };
    Ok(match (tests, left) {
        (Outcome::Success, 0) => Outcome::Success,
        _ => Outcome::Findings,
    })
}

/// `mcp-replay review PATH...`, as its own process on this terminal (a subcommand runs
/// no other in process).
fn review(roots: &[PathBuf]) -> Result<(), Error> {
    let me = std::env::current_exe()
        .map_err(|e| Error::server(format!("finding this command to run review: {e}")))?;
    std::process::Command::new(me)
        .arg("review")
        .args(roots)
        .status()
        .map_err(|e| Error::server(format!("running mcp-replay review: {e}")))?;
    Ok(())
}

/// The pending files and what to do with them.
fn list(pending: &[Pending]) {
    if pending.is_empty() {
        outln!("mcp-replay: no pending fixtures");
        return;
    }
    outln!("mcp-replay: {} pending:", pending.len());
    for p in pending {
        outln!("  {}", p.file.display());
    }
    outln!("review them with `mcp-replay review` (or `mcp-replay test --review` next time)");
}
