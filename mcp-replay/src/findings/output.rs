//! Machine-readable reports: the versioned JSON document that `mcp-replay replay`, `check`
//! and `diff` write with `--format json`, built here so that a runner of your own (or a
//! `cargo test` that saves its reports) writes the same.
//!
//! ```
//! use mcp_replay::_support::output;
//! use mcp_replay::Fixture;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let fixture = Fixture::parse(concat!(
//!     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"ping"}}"#, "\n",
//!     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{}}}"#, "\n",
//! )).unwrap();
//! let report = fixture.replay().run(|transport| async move { drop(transport) }).await;
//! let document = output::document("replay", vec![report.to_json()]);
//! assert_eq!(document["mcp_replay_report"], output::VERSION);
//! assert_eq!(document["failed"], 1);
//! assert_eq!(document["fixtures"][0]["findings"][0]["kind"], "server failure");
//! # }
//! ```
//!
//! The schema (every field is described in `docs/cli.md`, "JSON output"):
//!
//! ```text
//! {"mcp_replay_report": 1, "command": "replay"|"check"|"diff",
//!  "fixtures": [{"fixture": PATH, "ok": BOOL, "findings": [FINDING...], "notes": [TEXT...],
//!                "warnings": [FINDING...], "advice": [TEXT...], ...}],
//!  "passed": N, "failed": M}
//! FINDING: {"kind", "line", "request_line", "summary", "expected", "actual",
//!           "differences": [{"path", "expected", "actual"}],
//!           "class", "changes": [{"class", "description", "path"}]}
//! ```
//!
//! A new field may be added within a version; a field removed or changed in meaning raises
//! [`VERSION`].

#[cfg(feature = "command")]
pub mod sarif;

use crate::data::contract::Change;
use crate::findings::report::{Mismatch, Report};
use crate::normalize::secrets::mask_text;
use serde_json::{json, Map, Value};

/// The version of the JSON report schema, the document's `mcp_replay_report` field.
pub const VERSION: u64 = 1;

/// The whole document: `fixtures` as given (each with an `ok` field), `passed` and
/// `failed` counted from their `ok`.
pub fn document(command: &str, fixtures: Vec<Value>) -> Value {
    let passed = fixtures.iter().filter(|f| f["ok"] == true).count();
    let failed = fixtures.len() - passed;
    json!({
        "mcp_replay_report": VERSION,
        "command": command,
        "fixtures": fixtures,
        "passed": passed,
        "failed": failed,
    })
}

impl Report {
    /// This report as one entry of a document's `fixtures`:
    /// `{"fixture": SOURCE, "ok": BOOL, "findings": [...], "notes": [TEXT...],
    /// "warnings": [...], "advice": [TEXT...]}` (see [`Mismatch::to_json`],
    /// [`Report::notes`] and [`Report::warnings`]; `advice` is
    /// what the text report ends with, one text per piece: the re-record command, the lines
    /// of requests the server now refuses).
    pub fn to_json(&self) -> Value {
        let masked = |t: &String| mask_text(t).into_owned();
        json!({
            "fixture": mask_text(self.source()),
            "ok": self.is_ok(),
            "findings": self.mismatches().iter().map(Mismatch::to_json).collect::<Vec<_>>(),
            "notes": self.notes().iter().map(masked).collect::<Vec<_>>(),
            "warnings": self.warnings().iter().map(Mismatch::to_json).collect::<Vec<_>>(),
            "advice": self.advice().iter().map(masked).collect::<Vec<_>>(),
        })
    }
}

impl Mismatch {
    /// This finding as JSON: `kind` ([`MismatchKind::name`](crate::MismatchKind::name)), `line` (or `null`),
    /// `request_line` ([`Mismatch::request_line`], or `null`), `summary`, the whole `expected` and `actual` messages (or `null`), `differences`
    /// (each `path` with the `expected` and `actual` values there, a side left out where the
    /// value is absent), the contract `class` (or `null`) and its `changes`.
    ///
    /// What the secret scanner would refuse to write into a fixture is masked in every
    /// field, `ghp_…[masked: github-pat]`, as in the text report.
    pub fn to_json(&self) -> Value {
        let m = self.masked();
        let differences: Vec<Value> = m
            .differences()
            .iter()
            .map(|d| {
                let mut o = Map::new();
                o.insert("path".into(), Value::String(d.path.clone()));
                if let Some(e) = &d.expected {
                    o.insert("expected".into(), e.clone());
                }
                if let Some(a) = &d.actual {
                    o.insert("actual".into(), a.clone());
                }
                Value::Object(o)
            })
            .collect();
        json!({
            "kind": m.kind().name(),
            "line": m.line(),
            "request_line": m.request_line(),
            "summary": m.summary(),
            "expected": m.expected_message(),
            "actual": m.actual_message(),
            "differences": differences,
            "class": m.class().map(|c| c.name()),
            "changes": m.changes().iter().map(change).collect::<Vec<_>>(),
        })
    }
}

fn change(c: &Change) -> Value {
    json!({"class": c.class.name(), "description": c.description, "path": c.path})
}

pub use crate::findings::report::headline;
