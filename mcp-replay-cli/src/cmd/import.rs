//! `mcp-replay import`: an mcporter recording (NDJSON with `_meta.dir`) as fixtures.

use crate::args::RulesArg;
use crate::error::{Error, Outcome};
use crate::out::outln;
use mcp_replay::_support::mcporter;
use mcp_replay::_support::update::{write_fixture, UpdateMode};
use std::path::{Path, PathBuf};

/// `mcp-replay import`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
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

/// The examples of `mcp-replay import --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay import recording.ndjson -o fixtures/\n",
    "  mcp-replay import recording.ndjson --server github -o fixtures/github.jsonl"
);

/// Writes the recording's traffic as fixtures: one per server into a folder, or the one
/// server's into a `.jsonl` file.
pub(crate) fn run(args: Args) -> Result<Outcome, Error> {
    let recording = args.recording.display().to_string();
    let text = std::fs::read_to_string(&args.recording)
        .map_err(|e| Error::input(format!("reading {recording}: {e}")))?;
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
        return Err(Error::usage(format!(
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
        write_fixture(&fixture, &path, UpdateMode::Always).map_err(Error::output)?;
        outln!(
            "mcp-replay: imported {} ({} messages) into {}",
            server,
            fixture.entries().len(),
            path.display()
        );
    }
    Ok(Outcome::Success)
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
