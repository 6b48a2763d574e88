//! How a replay through the flow ends: a [`Verdict`] or a [`Failure`], and a report as the
//! failure's text. A leaf: the flow, the targets and the attribute all use it.

use crate::error::Error;
use crate::findings::report::Report;
use crate::terminal::color_wanted;
use std::fmt;
use std::path::PathBuf;

/// Why a replay test failed: the whole report, or why there was no replay. Its `Display`
/// is what the failing test prints; the command maps each kind to its exit status
/// ([`Failure::is_error`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Failure {
    /// The fixture (or the rules beside it, or `MCP_FIXTURE_UPDATE`) could not be read, is
    /// missing, invalid, empty or holds a secret, or a re-recording could not be written:
    /// match the [`Error`] for which.
    Input(Error),
    /// The server the command was to replay against could not be started (the message
    /// names the command and the reason).
    ServerDidNotStart(String),
    /// The replay found differences: the report, as text.
    Findings(String),
    /// The replay passed or failed, but its recording cannot be trusted as a fixture (a
    /// timeout, an id finding, a server failure, stray output): not re-recorded, and why.
    NotRerecorded(String),
    /// In update mode `new`, the new recording was written beside the fixture for review.
    Pending {
        /// The `.jsonl.new` file.
        path: PathBuf,
        /// The report and the commands that accept or reject it.
        message: String,
    },
    /// Two tests of one run replay one fixture and get different answers (one re-records
    /// it, the other then differs from what it wrote).
    Shared(String),
}

impl Failure {
    /// The failure message.
    pub fn message(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Failure::Input(e) => e.to_string().into(),
            Failure::ServerDidNotStart(m)
            | Failure::Findings(m)
            | Failure::NotRerecorded(m)
            | Failure::Pending { message: m, .. }
            | Failure::Shared(m) => m.as_str().into(),
        }
    }

    /// `true` when this is not a finding of the replay but an error of its input: the
    /// fixture, its rules or the update mode could not be read or written
    /// ([`Failure::Input`]), or the server could not be started. A report with findings, a
    /// re-recording refused because the replay cannot be trusted, and a pending
    /// `.jsonl.new` are findings. `mcp-replay replay` exits 2 for an error, 1 for a finding.
    pub fn is_error(&self) -> bool {
        matches!(self, Failure::Input(_) | Failure::ServerDidNotStart(_))
    }

    /// This failure with `text` as a paragraph of its own at the end of its message (an
    /// input error keeps its own).
    pub(crate) fn mention(self, text: &str) -> Failure {
        let add = |m: String| format!("{m}\n\n{text}");
        match self {
            Failure::Input(e) => Failure::Input(e),
            Failure::ServerDidNotStart(m) => Failure::ServerDidNotStart(add(m)),
            Failure::Findings(m) => Failure::Findings(add(m)),
            Failure::NotRerecorded(m) => Failure::NotRerecorded(add(m)),
            Failure::Pending { path, message } => Failure::Pending {
                path,
                message: add(message),
            },
            Failure::Shared(m) => Failure::Shared(add(m)),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Failure::Input(e) => Some(e),
            _ => None,
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Input(e)
    }
}

/// How a replay that did not fail ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The server's messages matched the fixture (or matched after re-recording wrote
    /// nothing new).
    Passed,
    /// The fixture was rewritten in place from the server's messages (update mode
    /// `always`).
    Rerecorded(PathBuf),
}

/// A report as text, in color when [`color_wanted`].
pub(crate) fn render(report: &Report, terminal: bool) -> String {
    if color_wanted(terminal) {
        format!("{report:#}")
    } else {
        report.to_string()
    }
}

/// The message of a panic's payload (a `&str` or a `String`, as `panic!` makes them).
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a panic without a message)")
}
