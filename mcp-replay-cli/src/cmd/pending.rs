//! `mcp-replay accept` and `reject`: every pending `NAME.jsonl.new` file below the paths,
//! renamed over its fixture or deleted, without asking (`review` asks).

use crate::error::{Error, Outcome};
use crate::pending::{find, take_all, Pending};
use std::path::PathBuf;

/// `mcp-replay accept` and `reject`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Pending files, fixtures or folders [default: fixtures/ and tests/fixtures/]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// The example and exit statuses of `mcp-replay accept --help`.
pub(crate) const ACCEPT_AFTER_HELP: &str = concat!(
    "Example:\n  mcp-replay accept tests/fixtures\n\n",
    "A pending file that does not load as a fixture (it names file, line and column), holds\n",
    "a secret, or shares its fixture with another pending file is not accepted: the others\n",
    "are, then the command exits 2. A fixture that no longer exists is created."
);

/// The example of `mcp-replay reject --help`.
pub(crate) const REJECT_AFTER_HELP: &str = "Example:\n  mcp-replay reject tests/fixtures";

/// `mcp-replay accept`: each pending file replaces its fixture.
pub(crate) fn accept(args: Args) -> Result<Outcome, Error> {
    take_all(&find(&args.paths)?, Pending::accept)
}

/// `mcp-replay reject`: each pending file is deleted.
pub(crate) fn reject(args: Args) -> Result<Outcome, Error> {
    take_all(&find(&args.paths)?, Pending::reject)
}
