//! `mcp-replay coverage FIXTURES... [-- SERVER | --url URL]`: what the fixtures exercise of
//! what the server advertises ([`mcp_replay::_support::coverage`]). The surface is asked of the live
//! server (the probe fixture replayed against it), or, without a server, read from the
//! fixtures' own answers to `initialize` and the listings.

use crate::args::{positive_time, Format, RulesArg, ServerArg};
use crate::error::{Error, Outcome};
use crate::out::{outln, print_json};
use mcp_replay::_support::coverage::{Coverage, Surface};
use mcp_replay::_support::protocol::Era;
use mcp_replay::_support::{ask_surface, era_of};
use mcp_replay::{Fixture, Options, Rules};
use std::path::PathBuf;
use std::time::Duration;

/// `mcp-replay coverage`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The fixtures whose exchanges count (a folder: the .jsonl fixtures below it)
    #[arg(required = true, value_name = "FIXTURE")]
    pub fixtures: Vec<PathBuf>,
    /// Ask the server at URL (Streamable HTTP) for its surface
    #[arg(long, value_name = "URL", value_parser = crate::net::parse_url)]
    pub url: Option<http::Uri>,
    /// Ask in this protocol era (e.g. 2026-07-28) [default: the fixtures' era]
    #[arg(long, value_name = "VERSION")]
    pub protocol: Option<String>,
    /// How long to wait for each answer of the server: 700ms, 2s, or milliseconds
    #[arg(long, value_name = "TIME", value_parser = positive_time)]
    pub timeout: Option<Duration>,
    /// Exit 1 when less than PERCENT of the tools, prompts, resources and resource
    /// templates are exercised
    #[arg(long, value_name = "PERCENT")]
    pub fail_under: Option<f64>,
    /// text for people, or json (one document: docs/cli.md, "coverage")
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub rules: RulesArg,
    #[command(flatten)]
    pub headers: crate::args::HeaderArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

/// The examples and exit statuses of `mcp-replay coverage --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay coverage fixtures/*.jsonl -- node server.js\n",
    "  mcp-replay coverage --url http://127.0.0.1:3001/mcp fixtures/*.jsonl\n",
    "  mcp-replay coverage --format json --fail-under 80 fixtures/*.jsonl -- ./server   (CI)\n",
    "\n",
    "Without a server, the surface is what the fixtures' own answers to initialize (or\n",
    "server/discover) and the listings say, every page of them.\n",
    "Exit 0, or 1 below --fail-under; 2 on a usage or input error, or a server that\n",
    "could not be asked."
);

/// Reads the fixtures, asks for the surface, prints the coverage.
pub(crate) async fn run(args: Args) -> Result<Outcome, Error> {
    if let Some(p) = args.fail_under {
        if !(0.0..=100.0).contains(&p) {
            return Err(Error::usage(format!(
                "--fail-under {p}: a percentage from 0 to 100"
            )));
        }
    }
    let rules = args
        .headers
        .redacted(args.rules.own()?)?
        .unwrap_or_default();
    // A folder counts the `.jsonl` fixtures below it, as `check` reads them.
    let fixtures = mcp_replay::_support::load_fixtures(&crate::files::roots(&args.fixtures)?)
        .map_err(Error::input)?;
    let refs: Vec<&Fixture> = fixtures.iter().collect();
    let era = match &args.protocol {
        Some(version) => Era::of_version(version),
        None => era_of(&refs),
    };
    let surface = if args.url.is_some() || !args.server.is_empty() {
        ask(&args, &rules, era, &refs).await?
    } else {
        Surface::of(&refs)
    };
    let coverage = Coverage::of(&surface, &refs);
    match args.format {
        Format::Json => print_json(&coverage.to_json())?,
        Format::Text => outln!("{coverage}"),
        Format::Sarif => print_json(&gate_log(&coverage, args.fail_under, &args.fixtures))?,
    }
    match args.fail_under {
        Some(p) if coverage.percent() < p => {
            if args.format == Format::Text {
                outln!("below --fail-under {p}%");
            }
            Ok(Outcome::Findings)
        }
        _ => Ok(Outcome::Success),
    }
}

/// The SARIF log of the coverage gate: one `mcp-replay/coverage` error, at the first
/// fixture given, when the share is below `--fail-under`; else no result.
fn gate_log(coverage: &Coverage, fail_under: Option<f64>, given: &[PathBuf]) -> serde_json::Value {
    use mcp_replay::_support::output::sarif::{self, Finding, Level};
    let below = fail_under.filter(|p| coverage.percent() < *p);
    let findings: Vec<Finding> = below
        .map(|p| Finding {
            rule: "coverage",
            level: Level::Error,
            message: format!(
                "the fixtures exercise {:.1}% of what the server advertises, below --fail-under {p}%",
                coverage.percent()
            ),
            file: given
                .first()
                .map(|f| f.display().to_string())
                .unwrap_or_default(),
            line: None,
        })
        .into_iter()
        .collect();
    sarif::log(&findings)
}

/// The live server's surface ([`ask_surface`]): each round a new session of the server at
/// `--url` or a new child process.
async fn ask(
    args: &Args,
    rules: &Rules,
    era: Era,
    fixtures: &[&Fixture],
) -> Result<Surface, Error> {
    if args.url.is_some() && !args.server.is_empty() {
        return Err(Error::usage(
            "give --url or a server command after --, not both",
        ));
    }
    let mut options = Options::new();
    if let Some(timeout) = args.timeout {
        options = options.timeout(timeout);
    }
    let headers = args.headers.resolved()?;
    let target = || crate::live::target(args.url.as_ref(), &args.server, &headers);
    ask_surface(target, fixtures, era, rules, &options)
        .await
        .map_err(Error::server)
}
