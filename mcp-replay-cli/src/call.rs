//! `mcp-replay call`: the command acts as the client and writes the exchange as a fixture.

use crate::cli::ServerArg;
use crate::Fatal;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `mcp-replay call`.
#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// Where to write the fixture
    #[arg(short, long, value_name = "FIXTURE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub server: ServerArg,
}

/// Not yet.
pub(crate) async fn call(args: CallArgs) -> Result<ExitCode, Fatal> {
    Err(Fatal(format!(
        "call is not built yet ({})",
        args.output.display()
    )))
}
