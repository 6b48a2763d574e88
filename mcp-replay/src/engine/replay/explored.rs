//! A fixture `explore` wrote (`"explore"` in its header): the answer to its last
//! `tools/call` is judged by the rule the call broke, not compared with the recorded one,
//! so the fixture is red while the server still breaks it and green once it is fixed
//! (data/explored.rs, docs/explore.md).

use super::describe::describe_request;
use super::session::Session;
use crate::data::explored::Rule;
use crate::findings::report::{Mismatch, MismatchKind};
use serde_json::Value;

impl Session<'_> {
    /// Whether expected response `r` answers the call an `"explore"` header names: the
    /// fixture's last `tools/call` request. Such an answer is never taken as equal on
    /// its text: it is judged.
    pub(super) fn is_explored_answer(&self, r: usize) -> bool {
        if self.settings.explored.is_none() {
            return false;
        }
        let entries = self.fixture.entries();
        let last_call = entries.iter().rposition(|e| {
            e.method() == Some("tools/call") && e.kind() == crate::fixture::MessageKind::Request
        });
        last_call.is_some() && entries[r].answers() == last_call
    }

    /// When expected response `r` answers the call an `"explore"` header names: judges
    /// `actual` by the header's rule (a `result` finding while it is broken) and says
    /// `true`, the response then compared with nothing. `false` for any other response.
    pub(super) fn judge_explored(&mut self, r: usize, actual: &Value) -> bool {
        if !self.is_explored_answer(r) {
            return false;
        }
        let Some(explored) = &self.settings.explored else {
            return false;
        };
        let entries = self.fixture.entries();
        let Some(request) = entries[r].answers() else {
            return false;
        };
        let rule = explored.rule;
        let broken = match rule {
            Rule::Secret => crate::normalize::secrets::scan(actual)
                .into_iter()
                .next()
                .map(|f| format!("the answer still holds a secret ({} at {})", f.rule, f.path)),
            _ => rule.broken_by(actual),
        };
        self.explored_held = Some(broken.is_none());
        if let Some(why) = broken {
            let m = Mismatch::new(
                MismatchKind::Result,
                Some(entries[r].line()),
                format!(
                    "{} breaks `{}`, as `explore` found (seed {}): {why}; the specification: {} ({})",
                    describe_request(&entries[request]),
                    rule.name(),
                    explored.seed,
                    rule.says(),
                    rule.link()
                ),
            )
            .request(&entries[request]);
            self.fail(m);
        }
        true
    }
}
