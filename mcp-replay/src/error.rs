//! The error type of loading, parsing and writing fixtures.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a fixture could not be loaded, parsed or written, or why the update mode is invalid.
///
/// Every message says where the problem is and what to do next.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A line of a fixture is not valid JSON, or not a valid fixture line.
    Parse {
        /// The fixture file, or `<string>` for [`Fixture::parse`](crate::Fixture::parse).
        file: String,
        /// 1-based line number.
        line: usize,
        /// 1-based column number.
        column: usize,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The fixture file does not exist.
    MissingFixture {
        /// The path that was looked for.
        path: PathBuf,
        /// The test that asked for it, when known (`module::test_name`).
        test: Option<String>,
    },
    /// The fixture file holds no message (it is empty, or holds only a header line): it
    /// pins nothing, so it is refused rather than passed. A file of client lines alone is
    /// not empty: re-recording fills in the server's side.
    Empty {
        /// The fixture file.
        file: String,
    },
    /// `MCP_FIXTURE_UPDATE` has a value mcp-replay does not know.
    InvalidUpdateMode {
        /// The value found.
        value: String,
    },
    /// A rules file (or rules given in code) is invalid.
    Rules {
        /// The rules file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A recording to import holds nothing to import (no traffic, or none of the server
    /// asked for).
    Import {
        /// The recording.
        file: String,
        /// What is missing, and what the recording has instead.
        message: String,
    },
    /// A fixture holds something that looks like a credential. The secret itself is never
    /// part of the error.
    Secret {
        /// The fixture file.
        file: String,
        /// 1-based line of the message holding it.
        line: usize,
        /// JSON path inside the line, e.g. `.message.result.content[0].text`.
        path: String,
        /// The id of the rule that matched, e.g. `aws-access-key-id`.
        rule: &'static str,
        /// What the rule detects.
        description: &'static str,
        /// `true` when a write was refused (the old file is unchanged), `false` on load.
        writing: bool,
    },
    /// A fixture holds a value of a deny list (`Rules::deny_values`, a rules file's
    /// `"deny_values"`, `MCP_REPLAY_DENY_VALUES`). The value itself is never part of the
    /// error.
    Denied {
        /// The fixture file.
        file: String,
        /// Where: `line N: PATH`, one a finding.
        places: Vec<String>,
    },
    /// Reading or writing a file failed.
    Io {
        /// What was being done, e.g. `reading fixtures/a.jsonl`.
        action: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn io(action: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            action: action.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse {
                file,
                line,
                column,
                message,
            } => write!(f, "{file}:{line}:{column}: {message}"),
            Error::MissingFixture { path, test } => missing_fixture(f, path, test.as_deref()),
            Error::Empty { file } => write!(
                f,
                "{file}: the fixture holds no message, so it pins nothing.\n\
                 Give it the client lines of one exchange (`mcp-replay call -o {quoted} --client-only \
                 --list-tools` writes them, or write them by hand: see docs/fixture-format.md) and \
                 record the server's replies (MCP_FIXTURE_UPDATE=1 cargo test, or \
                 `mcp-replay replay --update`), or delete the file",
                quoted = crate::terminal::shell_quote(file)
            ),
            Error::InvalidUpdateMode { value } => write!(
                f,
                "MCP_FIXTURE_UPDATE={value:?} is not a valid value; use one of: \
                 auto or unset (a failing test writes NAME.jsonl.new beside its fixture; under \
                 CI only compare), new (write NAME.jsonl.new), 1 or always (rewrite fixtures \
                 in place), force (rewrite even when unchanged), no or 0 (only compare)"
            ),
            Error::Rules { file, message } | Error::Import { file, message } => {
                write!(f, "{file}: {message}")
            }
            Error::Secret {
                file,
                line,
                path,
                rule,
                description,
                writing,
            } => secret(f, file, *line, path, rule, description, *writing),
            Error::Denied { file, places } => {
                write!(
                    f,
                    "{file} holds {} of the deny list (the values are not shown):",
                    if places.len() == 1 { "a value" } else { "values" }
                )?;
                for place in places {
                    write!(f, "\n  {place}")?;
                }
                write!(
                    f,
                    "\nRe-record it with the values in a values file (--redact-values FILE, \
                     MCP_REPLAY_REDACT_VALUES, or \"redact_values\" in the rules file) so that each \
                     becomes a placeholder such as <CUSTOMER:1>, or edit those lines"
                )
            }
            Error::Io { action, source } => write!(f, "{action}: {source}"),
        }
    }
}

/// [`Error::MissingFixture`]: how to create the fixture, from the command line or, for a
/// test, from its client lines and a re-recording.
fn missing_fixture(f: &mut fmt::Formatter<'_>, path: &Path, test: Option<&str>) -> fmt::Result {
    let Some(test) = test else {
        return write!(
            f,
            "fixture {} does not exist.\n\
             Record one from a live session with `mcp-replay record -o {} -- <server command>`, or write \
             its client lines by hand and re-record (see docs/fixture-format.md)",
            path.display(),
            crate::terminal::shell_quote(&path.display().to_string())
        );
    };
    let filter = test_filter(test);
    write!(
        f,
        "fixture {path} does not exist.\n\
         A fixture starts from its client lines. Let the command write them from a few words:\n  \
         mcp-replay call -o {quoted} --client-only --list-tools --tool NAME KEY=VALUE\n\
         or write the client messages of one exchange by hand, one per line, e.g.\n  \
         {{\"direction\":\"client->server\",\"message\":{{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\
         \"method\":\"tools/list\"}}}}\n\
         then record the server's replies with:\n  MCP_FIXTURE_UPDATE=1 cargo test {filter}\n\
         (see docs/fixture-format.md)",
        path = path.display(),
        quoted = crate::terminal::shell_quote(&path.display().to_string())
    )
}

/// [`Error::Secret`]: where the secret is, which rule matched, and how to replace or allow it.
fn secret(
    f: &mut fmt::Formatter<'_>,
    file: &str,
    line: usize,
    path: &str,
    rule: &str,
    description: &str,
    writing: bool,
) -> fmt::Result {
    if writing {
        write!(f, "refusing to write {file}: line {line}: ")?;
    } else {
        write!(f, "{file}:{line}: ")?;
    }
    write!(
        f,
        "{path} holds what looks like a secret (rule {rule}: {description}).\n\
         Replace it with a placeholder such as \"<REDACTED>\" (a normalization rule can do \
         that on every recording); if it is a known false positive, allow it in the \
         fixture's header line:\n  \
         {{\"mcp_replay\":1,\"allow_secrets\":[{{\"rule\":\"{rule}\",\"path\":\"{}\"}}]}}",
        path.replace('\\', "\\\\").replace('"', "\\\"")
    )?;
    if writing {
        write!(f, "\nThe previous file is unchanged.")?;
    }
    Ok(())
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A test path `crate::module::name` as a `cargo test` filter (`module::name`).
pub(crate) fn test_filter(test_path: &str) -> &str {
    test_path
        .split_once("::")
        .map_or(test_path, |(_, rest)| rest)
}

/// Why a value is not what it should be (a JSON-RPC message, a time, a line a server
/// wrote): one sentence, typed so that it does not pass for any string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(String);

impl Invalid {
    pub(crate) fn new(reason: impl Into<String>) -> Invalid {
        Invalid(reason.into())
    }

    /// The sentence.
    pub fn reason(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Invalid {}

impl From<Invalid> for String {
    fn from(invalid: Invalid) -> String {
        invalid.0
    }
}
