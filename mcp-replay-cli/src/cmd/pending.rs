//! `mcp-replay accept` and `reject`: the pending `NAME.jsonl.new` files a re-recording
//! with `MCP_FIXTURE_UPDATE=new` wrote, renamed over their fixtures or deleted.

use crate::error::{Error, Outcome};
use crate::files::{name_of, roots, walk};
use crate::out::outln;
use std::path::PathBuf;

/// `mcp-replay accept` and `reject`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Pending files, fixtures or folders [default: fixtures/ and tests/fixtures/]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// The example of `mcp-replay accept --help`.
pub(crate) const ACCEPT_AFTER_HELP: &str = "Example:\n  mcp-replay accept tests/fixtures";

/// The example of `mcp-replay reject --help`.
pub(crate) const REJECT_AFTER_HELP: &str = "Example:\n  mcp-replay reject tests/fixtures";

/// `mcp-replay accept`: each pending file replaces its fixture.
pub(crate) fn accept(args: Args) -> Result<Outcome, Error> {
    pending(args, true)
}

/// `mcp-replay reject`: each pending file is deleted.
pub(crate) fn reject(args: Args) -> Result<Outcome, Error> {
    pending(args, false)
}

/// The pending files below the paths (a fixture names its own), accepted or rejected.
fn pending(args: Args, accept: bool) -> Result<Outcome, Error> {
    let mut found = 0;
    for path in walk(&roots(&args.paths)?) {
        let name = name_of(&path);
        let pending = if name.ends_with(".jsonl.new") {
            path.clone()
        } else if name.ends_with(".jsonl") {
            mcp_replay::update::pending_path(&path)
        } else {
            continue;
        };
        if !pending.is_file() {
            continue;
        }
        found += 1;
        let target = pending.with_extension("");
        if accept {
            std::fs::rename(&pending, &target)
                .map_err(|e| Error::output(format!("accepting {}: {e}", pending.display())))?;
            outln!("accepted {} -> {}", pending.display(), target.display());
        } else {
            std::fs::remove_file(&pending)
                .map_err(|e| Error::output(format!("rejecting {}: {e}", pending.display())))?;
            outln!("rejected {}", pending.display());
        }
    }
    if found == 0 {
        outln!("no pending .jsonl.new files");
    }
    Ok(Outcome::Success)
}
