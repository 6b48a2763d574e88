//! `mcp-replay coverage FIXTURES... [-- SERVER | --url URL]`: what the fixtures exercise of
//! what the server advertises ([`mcp_replay::coverage`]). The surface is asked of the live
//! server (the probe fixture replayed against it), or, without a server, read from the
//! fixtures' own answers to `initialize` and the listings.

use crate::args::{positive_time, Format, RulesArg, ServerArg};
use crate::error::{Error, Outcome};
use crate::out::{outln, print_json};
use mcp_replay::coverage::{client_capabilities, probe, probe_next, Coverage, Surface};
use mcp_replay::protocol::Era;
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
    let rules = args.rules.own()?.unwrap_or_default();
    // A folder counts the `.jsonl` fixtures below it, as `check` reads them.
    let mut fixtures = Vec::new();
    for given in crate::files::roots(&args.fixtures)? {
        let paths = if given.is_dir() {
            crate::files::walk(std::slice::from_ref(&given))
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect()
        } else {
            vec![given]
        };
        for path in paths {
            fixtures.push(Fixture::load(&path).map_err(Error::input)?);
        }
    }
    if fixtures.is_empty() {
        return Err(Error::input(format!(
            "no fixture (*.jsonl) in {}",
            args.fixtures
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let refs: Vec<&Fixture> = fixtures.iter().collect();
    let era = match &args.protocol {
        Some(version) => Era::of_version(version),
        None if refs.iter().any(|f| f.era().is_stateless()) => Era::Stateless,
        None => Era::Legacy,
    };
    let surface = if args.url.is_some() || !args.server.is_empty() {
        ask(&args, &rules, era, &client_capabilities(&refs)).await?
    } else {
        Surface::of(&refs)
    };
    let coverage = Coverage::of(&surface, &refs);
    match args.format {
        Format::Json => print_json(&coverage.to_json())?,
        Format::Text => outln!("{coverage}"),
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

/// The live server's surface: the probe fixture replayed against it, re-recorded.
async fn ask(
    args: &Args,
    rules: &Rules,
    era: Era,
    capabilities: &serde_json::Value,
) -> Result<Surface, Error> {
    let fixture = probe(era, capabilities);
    let mut options = Options::new().protocol(era.default_version());
    if let Some(timeout) = args.timeout {
        options = options.timeout(timeout);
    }
    if args.url.is_some() && !args.server.is_empty() {
        return Err(Error::usage(
            "give --url or a server command after --, not both",
        ));
    }
    // A listing in pages: the probe again with the next page's request, until none has
    // more (each round a new session, the cursors the server gives in it).
    let mut fixture = fixture;
    loop {
        let target = crate::live::target(args.url.as_ref(), &args.server);
        let report = match target.replay(&fixture, rules, &options).await {
            Ok(report) => report,
            Err(failure) => return Err(Error::server(failure)),
        };
        let Some(recorded) = report.recorded() else {
            return Err(Error::server(format!(
                "could not ask the server for its surface:\n{report}"
            )));
        };
        match probe_next(recorded) {
            Some(next) => fixture = next,
            None => return Ok(Surface::of(&[recorded])),
        }
    }
}
