//! `mcp-replay explore [-o DIR] [--seed N] [--calls N] [-- SERVER | --url URL]`: calls
//! nobody recorded, generated from each tool's `inputSchema`, judged by the specification's
//! rules; each failure shrunk and written as a fixture pending review
//! ([`mcp_replay::harness::Explore`], docs/explore.md).

use crate::args::{positive_time, ServerArg};
use crate::error::{Error, Outcome};
use crate::out::outln;
use mcp_replay::harness::Explore;
use std::path::PathBuf;
use std::time::Duration;

/// `mcp-replay explore`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Write each failure, and one call of each answer shape met, as NAME.jsonl.new in DIR;
    /// the failures kept there are replayed first
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// The seed the calls are generated from: the same seed, the same calls [default: 0]
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// How many generated calls to make at most (shrinking not counted)
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub calls: usize,
    /// Make no new call after this long: 30s, 2m, or milliseconds
    #[arg(long, value_name = "TIME", value_parser = positive_time)]
    pub time: Option<Duration>,
    /// How long a call may go unanswered before it is a hang: 700ms, 2s, or milliseconds
    #[arg(long, value_name = "TIME", value_parser = positive_time, default_value = "5s")]
    pub hang: Duration,
    /// How many calls shrinking one failure may make
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub shrink_calls: usize,
    /// The protocol version to speak: 2026-07-28 (or later) is the stateless era
    /// (server/discover, identity in every request's _meta) [default: 2025-11-25, with the
    /// initialize handshake]
    #[arg(long, value_name = "VERSION")]
    pub protocol: Option<String>,
    /// Explore the server at URL (Streamable HTTP)
    #[arg(long, value_name = "URL", value_parser = crate::net::parse_url)]
    pub url: Option<http::Uri>,
    #[command(flatten)]
    pub headers: crate::args::HeaderArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

/// The examples and exit statuses of `mcp-replay explore --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay explore -- node server.js\n",
    "  mcp-replay explore -o fixtures --seed 7 --calls 300 -- python server.py\n",
    "  mcp-replay explore --url http://127.0.0.1:3001/mcp --time 2m\n",
    "\n",
    "Every call is a session of its own (a new child process, or a new session at --url):\n",
    "the handshake, tools/list (every page), then the call. Review what -o wrote with\n",
    "`mcp-replay review`; an accepted failure stays red until the server is fixed.\n",
    "A call whose session fails before it (a server slow to start) is tried 3 times, then\n",
    "reported as NOT MADE. Exit 0 when no rule was broken, 1 when one was (or a kept failure\n",
    "still fails, or a call was not made); 2 on\n",
    "a usage error, or a server that could not be listed."
);

/// Explores, prints the report.
pub(crate) async fn run(args: Args) -> Result<Outcome, Error> {
    if args.url.is_some() != args.server.is_empty() {
        return Err(Error::usage("give a server command after --, or --url URL"));
    }
    let mut explore = Explore::new()
        .seed(args.seed)
        .calls(args.calls)
        .hang(args.hang)
        .shrink_calls(args.shrink_calls);
    if let Some(version) = &args.protocol {
        explore = explore.protocol(version);
    }
    if let Some(time) = args.time {
        explore = explore.time(time);
    }
    if let Some(dir) = &args.output {
        explore = explore.write_to(dir);
    }
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        explore = explore.on_call(|made, planned| {
            eprint!("\rexplore: call {} of {planned}\x1b[K", made + 1);
            if made + 1 == planned {
                eprint!("\r\x1b[K");
            }
        });
    }
    let headers = args.headers.resolved()?;
    let target = || crate::live::target(args.url.as_ref(), &args.server, &headers);
    let found = explore.run(target).await.map_err(Error::server)?;
    outln!("{found}");
    if found.findings().is_empty() && found.still_failing() == 0 && found.not_made().is_empty() {
        Ok(Outcome::Success)
    } else {
        Ok(Outcome::Findings)
    }
}
