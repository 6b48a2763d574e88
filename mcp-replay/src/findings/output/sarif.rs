//! SARIF 2.1.0, the format code review tools show on a pull request's lines (GitHub code
//! scanning, GitLab): each finding a `result` at its fixture's file and line, with a rule
//! id (`mcp-replay/result`, `mcp-replay/secret`) whose help says what to do. What
//! `mcp-replay check --format sarif` and `replay --format sarif` write; built here, without
//! I/O, so that a runner of your own writes the same. Every text goes through the secret
//! guard's masking: a secret value never reaches the file.
//!
//! ```
//! use mcp_replay::_support::output::sarif::{self, Finding, Level};
//!
//! let log = sarif::log(&[Finding {
//!     rule: "secret",
//!     level: Level::Error,
//!     message: "a GitHub token at .result.token".into(),
//!     file: "fixtures/job.jsonl".into(),
//!     line: Some(2),
//! }]);
//! assert_eq!(log["version"], "2.1.0");
//! assert_eq!(log["runs"][0]["results"][0]["ruleId"], "mcp-replay/secret");
//! assert_eq!(log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"], 2);
//! ```

use crate::findings::report::Report;
use crate::normalize::secrets::mask_text;
use crate::MismatchKind;
use serde_json::{json, Value};

/// The schema a log names (`$schema`): the OASIS SARIF 2.1.0 schema.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// How serious a finding is, as SARIF's `level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// A problem: the command's exit status says so.
    Error,
    /// A warning: reported, the exit status unchanged.
    Warning,
    /// Worth knowing.
    Note,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// One finding, for [`log`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule: a finding kind of a replay (`result`, `server failure`) or a problem kind
    /// of `check` (`secret`, `unbindable`); written `mcp-replay/<kind>`, spaces as `-`.
    pub rule: &'static str,
    /// How serious it is.
    pub level: Level,
    /// What was found, for people (masked when written).
    pub message: String,
    /// The fixture file, as a path relative to the repository root where it can be.
    pub file: String,
    /// Its line in the file (1-based), when it is on one.
    pub line: Option<usize>,
}

/// Each rule a log may name besides the kinds of findings ([`MismatchKind::help`] says
/// theirs): what `check`, `coverage` and the command find, with its help.
const RULES: [(&str, &str); 12] = [
    ("error", "The fixture could not be replayed: it is missing or invalid, or the server could not be started."),
    ("invalid", "The fixture is not a valid fixture file: the finding names the line and column."),
    ("secret", "The fixture holds what looks like a secret (a token, a key). Remove it and re-record; a known false positive goes in the header's allow_secrets."),
    ("unreadable", "The file could not be read."),
    ("pending", "A pending re-recording (NAME.jsonl.new) waits for review: mcp-replay review, accept or reject."),
    ("temporary", "A temporary file left by an interrupted write: delete it."),
    ("unreferenced", "No test of the Cargo project names this fixture."),
    ("deleted", "An unreferenced fixture, deleted by --unreferenced=delete."),
    ("unbindable", "A client line sends a bound placeholder (<MINTED:1>) that nothing before it binds, so a replay sends it as written. Re-record from the client lines, or name the value with a bind rule."),
    ("personal", "The fixture holds what looks like personal data. Re-record to write it as a pseudonym, or turn the category off if it is not."),
    ("denied", "The fixture holds a value of a --deny-values list (the value is never shown)."),
    ("coverage", "The fixtures exercise less of the server than --fail-under asks."),
];

/// `mcp-replay/<kind>`, spaces as `-`.
fn rule_id(kind: &str) -> String {
    format!("mcp-replay/{}", kind.replace(' ', "-"))
}

/// The help of a rule: a kind of finding's own ([`MismatchKind::help`]), or one of
/// `RULES`. `None` for a name neither knows (a test holds every name the command writes
/// to one of them).
pub fn help(rule: &str) -> Option<&'static str> {
    MismatchKind::ALL
        .iter()
        .find(|k| k.name() == rule)
        .map(|k| k.help())
        .or_else(|| RULES.iter().find(|(r, _)| *r == rule).map(|(_, h)| *h))
}

/// The SARIF 2.1.0 log of `findings`: one run of the driver `mcp-replay` with the rules
/// the findings name (their help included), one result each.
pub fn log(findings: &[Finding]) -> Value {
    let mut named: Vec<&str> = findings.iter().map(|f| f.rule).collect();
    named.sort_unstable();
    named.dedup();
    let rules: Vec<Value> = named
        .iter()
        .map(|kind| {
            let help = help(kind).unwrap_or("See docs/cli.md.");
            json!({
                "id": rule_id(kind),
                "name": kind.replace(' ', "-"),
                "shortDescription": {"text": format!("mcp-replay: {kind}")},
                "help": {"text": help},
                "helpUri": "https://github.com/mcp-replay/mcp-replay/blob/main/docs/cli.md",
            })
        })
        .collect();
    let results: Vec<Value> = findings.iter().map(result).collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mcp-replay",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/mcp-replay/mcp-replay",
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

/// One result: the rule, the level, the masked message, the file and line.
fn result(finding: &Finding) -> Value {
    let mut location = json!({
        "physicalLocation": {"artifactLocation": {"uri": uri_of(&finding.file)}}
    });
    if let Some(line) = finding.line.filter(|l| *l > 0) {
        location["physicalLocation"]["region"] = json!({"startLine": line});
    }
    json!({
        "ruleId": rule_id(finding.rule),
        "level": finding.level.as_str(),
        "message": {"text": mask_text(&finding.message)},
        "locations": [location],
    })
}

/// A path as a relative URI reference: `/` between folders, a leading `./` dropped.
fn uri_of(path: &str) -> String {
    let path = path.replace('\\', "/");
    path.strip_prefix("./").unwrap_or(&path).to_owned()
}

impl Report {
    /// This report's findings for [`log`], at `file` (the fixture as the command was
    /// given it): each an error at its fixture line (the kind as the rule), and each
    /// warning (a protocol violation let through) a warning.
    pub fn sarif_findings(&self, file: &str) -> Vec<Finding> {
        let as_finding = |m: &crate::Mismatch, level| Finding {
            rule: m.kind().name(),
            level,
            message: m.summary().to_owned(),
            file: file.to_owned(),
            line: m.line(),
        };
        self.mismatches()
            .iter()
            .map(|m| as_finding(m, Level::Error))
            .chain(
                self.warnings()
                    .iter()
                    .map(|m| as_finding(m, Level::Warning)),
            )
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_each_rule_once_with_its_help_and_mask_every_message() {
        let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        let findings = [
            Finding {
                rule: "server failure",
                level: Level::Error,
                message: format!("exited with status 3; its last lines on stderr: token {token}"),
                file: "./fixtures/a.jsonl".into(),
                line: None,
            },
            Finding {
                rule: "server failure",
                level: Level::Error,
                message: "again".into(),
                file: "fixtures/b.jsonl".into(),
                line: Some(0),
            },
        ];
        let log = log(&findings);
        let text = log.to_string();
        assert!(!text.contains(&token), "{text}");
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0]["id"], "mcp-replay/server-failure");
        assert!(rules[0]["help"]["text"]
            .as_str()
            .unwrap()
            .contains("stderr"));
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "fixtures/a.jsonl"
        );
        assert!(results[1]["locations"][0]["physicalLocation"]
            .get("region")
            .is_none());
    }
}
