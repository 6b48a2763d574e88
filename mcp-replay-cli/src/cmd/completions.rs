//! `mcp-replay completions SHELL`: a shell completion script for the whole command.

use crate::error::{Error, Outcome};
use crate::out;

/// `mcp-replay completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The shell
    shell: clap_complete::Shell,
}

/// The examples of `mcp-replay completions --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay completions bash > ~/.local/share/bash-completion/completions/mcp-replay\n",
    "  mcp-replay completions zsh > ~/.zfunc/_mcp-replay\n",
    "  mcp-replay completions fish > ~/.config/fish/completions/mcp-replay.fish\n",
    "  mcp-replay completions powershell >> $PROFILE"
);

/// Prints the completion script of `command` (the whole command line's definition).
pub(crate) fn run(args: Args, mut command: clap::Command) -> Result<Outcome, Error> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "mcp-replay", &mut script);
    out::write_bytes(&script);
    Ok(Outcome::Success)
}
