//! The groups of arguments several subcommands take (flattened into each one's `Args`),
//! and the parser of a time above zero.

use crate::error::Error;
use clap::{Args, ValueEnum};
use mcp_replay::_support::parse_duration;
use mcp_replay::{Fixture, Rules};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `--rules FILE`: normalization rules of the caller's own.
#[derive(Debug, Args)]
pub(crate) struct RulesArg {
    /// Extra normalization rules (mcp-replay.rules.json format)
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// A values file: one sensitive value a line (customer names, account numbers, host
    /// names), `[kind]` headers, `#` comments; each written as <KIND:n> wherever it occurs
    /// in what is recorded. Also MCP_REPLAY_REDACT_VALUES
    #[arg(long, value_name = "FILE")]
    pub redact_values: Option<PathBuf>,
}

impl RulesArg {
    /// `--rules FILE`, read, when given.
    pub fn own(&self) -> Result<Option<Rules>, Error> {
        let values = match &self.redact_values {
            Some(path) => Some(
                mcp_replay::personal::Values::load(path)
                    .map_err(|e| Error::input(format!("--redact-values: {e}")))?,
            ),
            None => None,
        };
        let Some(path) = &self.rules else {
            return Ok(values.map(|v| Rules::default().redact_values(&v)));
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::input(format!("reading {}: {e}", path.display())))?;
        let rules = Rules::from_json(&text, &path.display().to_string())?;
        Ok(Some(match values {
            Some(v) => rules.redact_values(&v),
            None => rules,
        }))
    }

    /// The rules for fixtures in `folder`, resolved as `#[mcp_fixture]` resolves them
    /// ([`harness::rules_for`]), plus `--rules FILE`.
    pub fn resolve(&self, fixture: Option<&Fixture>, folder: &Path) -> Result<Rules, Error> {
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        let workspace = mcp_replay::_support::workspace_root(folder);
        let own = self.own()?;
        Ok(mcp_replay::_support::rules_for(
            fixture,
            folder,
            &workspace,
            own.as_ref(),
        )?)
    }
}

/// `--allow-stray-output`, for `record`, `call`, `replay` and `serve`.
#[derive(Debug, Args)]
pub(crate) struct StrayArg {
    /// Tolerate lines on stdio that are not JSON-RPC messages (a server's banner or logs on
    /// stdout; for serve, the client's): a note instead of a failure. record and call
    /// write "allow_stray_output": true into the fixture's header so its replay does too
    #[arg(long)]
    pub allow_stray_output: bool,
}

/// The server command after `--`.
#[derive(Debug, Args)]
pub(crate) struct ServerArg {
    /// The server to start, after `--` (e.g. -- node server.js)
    #[arg(last = true, value_name = "SERVER COMMAND")]
    pub server: Vec<OsString>,
}

impl ServerArg {
    /// The server command, ready to spawn.
    pub fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.server[0]);
        command.args(&self.server[1..]);
        command
    }

    /// Whether no server command was given.
    pub fn is_empty(&self) -> bool {
        self.server.is_empty()
    }

    /// The server command's words, as text.
    pub fn words(&self) -> impl Iterator<Item = String> + '_ {
        self.server.iter().map(|a| a.to_string_lossy().into_owned())
    }

    /// The server command as one line a shell runs as given (each word
    /// [`mcp_replay::_support::shell_quote`]d).
    pub fn line(&self) -> String {
        mcp_replay::_support::shell_line(self.words())
    }
}

/// How a report is written on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// For people: the readable report
    Text,
    /// For CI: one JSON document (schema: docs/cli.md, "JSON output")
    Json,
    /// For code review tools: a SARIF 2.1.0 log, each finding at its fixture's line
    /// (`check`, `replay`; `coverage`: its --fail-under gate)
    Sarif,
}

impl Format {
    /// `--format sarif` where a command writes no SARIF: a usage error naming those that do.
    pub(crate) fn refuse_sarif(self, command: &str) -> Result<(), crate::error::Error> {
        if self == Format::Sarif {
            return Err(crate::error::Error::usage(format!(
                "{command} writes text or json; --format sarif is for check, replay and coverage"
            )));
        }
        Ok(())
    }
}

/// `--format text|json` and `--junit FILE`, for `replay`, `check` and `diff`.
#[derive(Debug, Args)]
pub(crate) struct OutputArgs {
    /// How to write the report on stdout: text, json (one document, versioned schema in
    /// docs/cli.md), or sarif (SARIF 2.1.0; check and replay)
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also write a JUnit XML report to FILE: one testcase per fixture, a failure with the
    /// report's text
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

/// A time above zero: `700ms`, `2s`, or milliseconds.
pub(crate) fn positive_time(text: &str) -> Result<Duration, String> {
    match parse_duration(text)? {
        d if d.is_zero() => Err("give a time above zero, e.g. 2s".into()),
        d => Ok(d),
    }
}

/// `--header 'NAME: VALUE'` (repeatable): headers every request to `--url` carries, such as
/// a credential. `${VAR}` in a value is read from the environment, so that a token never
/// sits in a shell history or a CI file; the value is never printed.
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct HeaderArgs {
    /// A header for every request to --url, e.g. 'Authorization: Bearer ${TOKEN}' (${VAR}
    /// is read from the environment); repeatable
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
}

impl HeaderArgs {
    /// The headers, each `${VAR}` replaced by the variable's value: a usage error names a
    /// malformed header or an unset variable, never a value.
    pub(crate) fn resolved(
        &self,
    ) -> Result<Vec<(http::HeaderName, http::HeaderValue)>, crate::error::Error> {
        self.headers
            .iter()
            .map(|raw| {
                let usage = |why: String| crate::error::Error::usage(format!("--header {why}"));
                let (name, value) = raw.split_once(':').ok_or_else(|| {
                    usage(format!("{:?}: write it as 'NAME: VALUE'", header_name(raw)))
                })?;
                let name = http::HeaderName::from_bytes(name.trim().as_bytes())
                    .map_err(|_| usage(format!("{:?}: not a header name", name.trim())))?;
                let value = expand(value.trim()).map_err(usage)?;
                let mut value = http::HeaderValue::from_str(&value)
                    .map_err(|_| usage(format!("{name}: the value is not a valid header value")))?;
                value.set_sensitive(true);
                Ok((name, value))
            })
            .collect()
    }
}

impl HeaderArgs {
    /// `rules` with each header value (and the credential after its scheme, `Bearer
    /// TOKEN`'s `TOKEN`) written as `<CREDENTIAL:n>` wherever a server echoes it: the
    /// secret guard's part for what `--header` sends. `rules` as they are without headers.
    pub(crate) fn redacted(
        &self,
        rules: Option<mcp_replay::Rules>,
    ) -> Result<Option<mcp_replay::Rules>, crate::error::Error> {
        let headers = self.resolved()?;
        if headers.is_empty() {
            return Ok(rules);
        }
        let mut rules = rules.unwrap_or_default();
        for (_, value) in &headers {
            let Ok(text) = value.to_str() else { continue };
            rules = rules.redact_value("credential", text);
            if let Some((_, credential)) = text.split_once(' ') {
                rules = rules.redact_value("credential", credential.trim());
            }
        }
        Ok(Some(rules))
    }
}

/// What stands before the header's `:`, for a message (never its value).
fn header_name(raw: &str) -> &str {
    raw.split([':', ' ']).next().unwrap_or_default()
}

/// `text` with each `${VAR}` replaced by the variable's value; an unset variable is an
/// error naming it.
fn expand(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| "an unclosed ${ in a value".to_owned())?;
        let name = &after[..end];
        let value = std::env::var(name)
            .map_err(|_| format!("names ${{{name}}}, which is not set in the environment"))?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// How many client sessions `serve --http` serves, or `record --listen` records, before it
/// ends (`--sessions N|unlimited`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limit(pub Option<u64>);

/// `--sessions N|unlimited` (N at least 1).
pub(crate) fn parse_limit(text: &str) -> Result<Limit, String> {
    match text {
        "unlimited" => Ok(Limit(None)),
        n => match n.parse::<u64>() {
            Ok(n) if n > 0 => Ok(Limit(Some(n))),
            _ => Err("give a number of sessions (1 or more) or `unlimited`".into()),
        },
    }
}

impl Limit {
    /// Whether `started` sessions are all it allows.
    pub(crate) fn reached(self, started: u64) -> bool {
        self.0.is_some_and(|n| started >= n)
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn read_the_session_limit() {
        assert_eq!(parse_limit("1"), Ok(Limit(Some(1))));
        assert_eq!(parse_limit("unlimited"), Ok(Limit(None)));
        assert!(parse_limit("0").is_err());
        assert!(parse_limit("many").is_err());
        assert!(Limit(Some(2)).reached(2) && !Limit(Some(2)).reached(1));
        assert!(!Limit(None).reached(u64::MAX));
    }
}
