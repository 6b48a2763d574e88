//! How a subcommand ends, and the command's exit status for it (docs/cli.md, "Exit
//! status"): an [`Outcome`] when it did its job, an [`Error`] when it could not.
//! [`exit_status`] is the one place that turns either into the status.

use std::fmt;
use std::process::ExitCode;

/// What a subcommand that did its job concluded.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Every fixture passed, or the command did its job: exit status 0.
    Success,
    /// What was tested did not do what was expected: a replay or `serve` found a
    /// difference, `check` a problem in a file, `diff` a change that reaches `--fail-on`;
    /// `call` got a JSON-RPC error or an incomplete exchange, `record` had nothing to
    /// record (or a server that wrote stray lines): 1.
    Findings,
    /// `record`: the server it stands in for failed (a status other than 0, or a signal);
    /// the command ends as the server did, so that the client sees what it would have.
    ServerFailed(std::process::ExitStatus),
    /// `replay` was interrupted (SIGINT, Ctrl-C): its servers were stopped, nothing more
    /// replayed: 130, as a shell reports a command ended by SIGINT.
    Interrupted,
}

/// Why a subcommand could not do its job: exit status 2, whatever its [`Kind`].
#[derive(Debug)]
pub(crate) struct Error {
    kind: Kind,
    /// What [`exit_status`] says on stderr after `mcp-replay: `; empty when the subcommand
    /// said it already, in its own words.
    message: String,
}

/// What kind of input or output an [`Error`] is about: the rows of docs/cli.md's exit
/// status 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A wrong or missing option or argument.
    Usage,
    /// An input file (a fixture, a recording, a `--rules` or timing file, a PATH) that
    /// does not exist, is unreadable, invalid or empty, or holds a secret.
    Input,
    /// A server that could not be started, did not listen, or could not be waited for.
    Server,
    /// An output that could not be written: a fixture, a re-recording or a recording that
    /// would hold a secret, a report, stdout.
    Output,
    /// An address that cannot be bound, a URL nothing listens on.
    Network,
}

impl Kind {
    /// The command's exit status for an error of this kind.
    fn status(self) -> u8 {
        match self {
            Kind::Usage | Kind::Input | Kind::Server | Kind::Output | Kind::Network => 2,
        }
    }
}

impl Error {
    /// An error of `kind` that says `message`.
    pub(crate) fn new(kind: Kind, message: impl fmt::Display) -> Error {
        Error {
            kind,
            message: message.to_string(),
        }
    }

    /// An error of `kind` the subcommand has already said on stderr.
    pub(crate) fn said(kind: Kind) -> Error {
        Error {
            kind,
            message: String::new(),
        }
    }

    /// A usage error: a wrong or missing option or argument.
    pub(crate) fn usage(message: impl fmt::Display) -> Error {
        Error::new(Kind::Usage, message)
    }

    /// An input file that does not exist, is unreadable, invalid or empty, or holds a
    /// secret.
    pub(crate) fn input(message: impl fmt::Display) -> Error {
        Error::new(Kind::Input, message)
    }

    /// A server that could not be started (or listen, or be waited for).
    pub(crate) fn server(message: impl fmt::Display) -> Error {
        Error::new(Kind::Server, message)
    }

    /// An output that could not be written.
    pub(crate) fn output(message: impl fmt::Display) -> Error {
        Error::new(Kind::Output, message)
    }

    /// An address that cannot be bound, a URL nothing listens on.
    pub(crate) fn network(message: impl fmt::Display) -> Error {
        Error::new(Kind::Network, message)
    }

    #[cfg(test)]
    pub(crate) fn message(&self) -> &str {
        &self.message
    }
}

/// What the error says (empty when the subcommand said it already).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The runtime's errors are about what the command read (a fixture, a recording, the
/// rules, `MCP_FIXTURE_UPDATE`), except a refused write: a subcommand that writes says
/// so with [`Error::output`].
impl From<mcp_replay::Error> for Error {
    fn from(e: mcp_replay::Error) -> Error {
        let kind = match &e {
            mcp_replay::Error::InvalidUpdateMode { .. } => Kind::Usage,
            mcp_replay::Error::Secret { writing: true, .. } => Kind::Output,
            _ => Kind::Input,
        };
        Error::new(kind, e)
    }
}

/// The exit status for how the subcommand ended, after saying on stderr why it could not
/// do its job. Output on stdout that failed (`stdout_failed`: an error other than a reader
/// that went away, [`crate::out::failed`], said on stderr when it happened) is an error
/// too, whatever the subcommand concluded. A server `record` stood in for that was killed
/// by a signal ends the command by the same signal.
pub(crate) fn exit_status(ended: Result<Outcome, Error>, stdout_failed: bool) -> ExitCode {
    let ended = match ended {
        Ok(_) if stdout_failed => Err(Error::said(Kind::Output)),
        other => other,
    };
    match ended {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::ServerFailed(status)) => like_the_server(status),
        Ok(Outcome::Interrupted) => ExitCode::from(130),
        Err(Error { kind, message }) => {
            if !message.is_empty() {
                eprintln!("mcp-replay: {message}");
            }
            ExitCode::from(kind.status())
        }
    }
}

/// The server's exit status as the command's; a server killed by a signal makes the
/// command end by the same signal (128 + the signal if it survives raising it).
fn like_the_server(status: std::process::ExitStatus) -> ExitCode {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            // SAFETY: restoring the default action and raising the signal at ourselves.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
            return ExitCode::from(128u8.saturating_add(signal as u8));
        }
    }
    match status.code() {
        Some(code) => ExitCode::from(code.clamp(0, 255) as u8),
        None => ExitCode::from(1),
    }
}
