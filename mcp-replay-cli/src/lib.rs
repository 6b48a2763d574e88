//! `mcp-replay`: record a live MCP session, replay fixtures against a server in any
//! language, import mcporter recordings, lint and compare fixtures, and serve a fixture to
//! a client.
//!
//! The command is this library's [`main`] (src/main.rs calls it), so that the root package
//! (the repository's end-to-end tests) can build the same command under another file name
//! for its tests; the library is no public API.
//!
//! - `cli.rs`: the command line, the subcommands and the exit status rule every help
//!   states; `error.rs`: how a subcommand ends (an `Outcome`, or an `Error` of a kind)
//!   and the one function that makes it the exit status;
//! - `cmd/`: one file per subcommand, with its arguments, its help's examples and its run;
//! - what the subcommands share, importing none of them: `args.rs` the argument groups
//!   several take, `out.rs` stdout, `junit.rs` JUnit reports, `files.rs` the fixture
//!   folders walked, `net.rs` Streamable HTTP on a socket, `capture.rs` a recording and
//!   how it is written, `proxy.rs` the recording proxy for Streamable HTTP, `client.rs`
//!   the client `call` plays.

mod args;
mod capture;
mod cli;
mod client;
mod cmd;
mod error;
mod files;
mod junit;
mod live;
mod net;
mod out;
mod pending;
mod proxy;
mod shard;
mod terminal;

use clap::CommandFactory;
use cli::{Cli, Command, Parsed};
use error::{Error, Outcome};
use std::process::ExitCode;

/// The command: parses the arguments, runs the subcommand on a multi-threaded runtime, and
/// ends with the exit status for how it went (docs/cli.md, "Exit status").
#[doc(hidden)]
pub fn main() -> ExitCode {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("the tokio runtime starts");
    let code = runtime.block_on(async {
        let ended = run().await;
        error::exit_status(ended, out::failed().is_some())
    });
    // The tasks still running are dropped (a child server is killed with them: SIGINT
    // during a run leaves none behind), and blocking reads still under way (tokio's stdin:
    // `serve` reading a client that is itself waiting for an answer) get a moment, not
    // forever: the command has ended, and its standard output closes with the process, as a
    // server's does.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    code
}

/// Runs the subcommand the command line names.
async fn run() -> Result<Outcome, Error> {
    let (cli, matches) = match cli::parse()? {
        Parsed::Run(cli, matches) => (cli, matches),
        Parsed::Shown => return Ok(Outcome::Success),
    };
    match cli.command {
        Command::Record(args) => cmd::record::run(args).await,
        Command::Replay(args) => cmd::replay::run(args).await,
        Command::Call(args) => {
            let call = matches.subcommand_matches("call").unwrap_or(&matches);
            cmd::call::run(*args, call).await
        }
        Command::Import(args) => cmd::import::run(args),
        Command::Serve(args) => cmd::serve::run(args).await,
        Command::Check(args) => cmd::check::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::Coverage(args) => cmd::coverage::run(args).await,
        Command::Explore(args) => cmd::explore::run(args).await,
        Command::Accept(args) => cmd::pending::accept(args),
        Command::Reject(args) => cmd::pending::reject(args),
        Command::Review(args) => cmd::review::run(args),
        Command::Test(args) => cmd::test::run(args).await,
        Command::Completions(args) => cmd::completions::run(args, Cli::command()),
    }
}
