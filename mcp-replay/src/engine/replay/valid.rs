//! Is what the server sends valid MCP? Each message is checked as it arrives, before it is
//! normalized ([`validate`](crate::analyses::validate)), and a violation is a `protocol` finding (or
//! a warning, as the settings say) of its own, apart from any drift from the recording.

use super::describe::{describe_message, describe_request};
use super::session::Session;
use crate::analyses::validate::{called_tool, Checked, ProtocolCheck, Request, OUTPUT_SCHEMA};
use crate::data::fixture::MessageKind;
use crate::findings::report::{Mismatch, MismatchKind};
use crate::normalize::fast::FastResponse;
use serde_json::Value;

impl<'f> Session<'f> {
    /// Checks a server message as it arrived: a response by the request it answers (the
    /// harness's own `initialize` when `setup`).
    pub(super) fn check_message(&mut self, kind: MessageKind, message: &Value, setup: bool) {
        let Some(checker) = &self.checker else {
            return;
        };
        let (checked, request) = if setup {
            let initialize = Request {
                method: "initialize",
                task: false,
            };
            (checker.response(initialize, message), None)
        } else if kind == MessageKind::Response {
            let Some(entry) = self.answered_entry(message.get("id").and_then(Value::as_i64)) else {
                return;
            };
            (checker.response(self.request(entry), message), Some(entry))
        } else {
            (checker.message(message), None)
        };
        self.protocol_finding(checked, request, || describe_message(message));
        if let Some(entry) = request {
            self.check_tool_answer(entry, message);
        }
    }

    /// What the server declares of its tools and what they answer: a `tools/list` answer
    /// (`message`, answering request entry `entry`) teaches the checker the tools' output
    /// schemas, and a `tools/call` answer is checked against its tool's
    /// ([`tool_result`](crate::analyses::validate::Checker::tool_result)).
    fn check_tool_answer(&mut self, entry: usize, message: &Value) {
        let request = &self.fixture.entries()[entry];
        let Some(checker) = &mut self.checker else {
            return;
        };
        match request.method() {
            Some("tools/list") => {
                if let Some(result) = message.get("result") {
                    checker.learn_tools(result);
                }
            }
            Some("tools/call") if checker.checks_tool_results() => {
                let Some(tool) = called_tool(request) else {
                    return;
                };
                let checked = checker.tool_result(&tool, message);
                self.protocol_finding(checked, Some(entry), || describe_message(message));
            }
            _ => {}
        }
    }

    /// Whether [`check_tool_answer`](Self::check_tool_answer) needs the answer to a request
    /// of `method` the fast path holds as `text` parsed: a listing that declares an output
    /// schema, or any listing or call once some tool declares one (a listing may also take
    /// one back).
    fn tool_answer_wanted(&self, method: &str, text: &str) -> bool {
        let declared = self
            .checker
            .as_ref()
            .is_some_and(|c| c.checks_tool_results());
        match method {
            "tools/list" => declared || OUTPUT_SCHEMA.is_in(text),
            "tools/call" => declared,
            _ => false,
        }
    }

    /// [`check_message`](Self::check_message) for a response the fast path holds as text.
    pub(super) fn check_fast(&mut self, fast: &FastResponse, setup: bool) {
        let Some(checker) = &self.checker else {
            return;
        };
        let (request, entry) = if setup {
            let initialize = Request {
                method: "initialize",
                task: false,
            };
            (initialize, None)
        } else {
            let Some(entry) = self.answered_entry(Some(fast.id)) else {
                return;
            };
            (self.request(entry), Some(entry))
        };
        let checked = checker.response_text(request, &fast.text, fast.is_error, fast.text_blocks);
        self.protocol_finding(checked, entry, || format!("response {}", fast.id));
        if let Some(entry) = entry.filter(|_| self.tool_answer_wanted(request.method, &fast.text)) {
            if let Ok(message) = serde_json::from_str::<Value>(&fast.text) {
                self.check_tool_answer(entry, &message);
            }
        }
    }

    /// The answer to the harness's own `initialize`, as the server wrote it.
    pub(super) fn check_setup(&mut self, text: &str, is_error: bool) {
        let Some(checker) = &self.checker else {
            return;
        };
        let initialize = Request {
            method: "initialize",
            task: false,
        };
        let checked = checker.response_text(initialize, text, is_error, false);
        self.protocol_finding(checked, None, || {
            "the answer to the harness's `initialize`".into()
        });
    }

    /// The client request entry a response with live id `live` answers.
    fn answered_entry(&self, live: Option<i64>) -> Option<usize> {
        Some(self.ledger.get(live?)?.entry)
    }

    fn request(&self, entry: usize) -> Request<'f> {
        let entries = self.fixture.entries();
        Request {
            method: entries[entry].method().unwrap_or_default(),
            task: self.task_calls.contains(&entry),
        }
    }

    /// A violation as the settings say: a finding or a warning.
    fn protocol_finding(
        &mut self,
        checked: Checked,
        request: Option<usize>,
        what: impl FnOnce() -> String,
    ) {
        let Checked::Invalid(violation) = checked else {
            return;
        };
        let entries = self.fixture.entries();
        let (summary, line) = match request {
            Some(r) => (
                format!(
                    "the response to {} is not valid MCP: {violation}",
                    describe_request(&entries[r])
                ),
                self.script
                    .response_of_request
                    .get(&r)
                    .map(|&e| entries[e].line()),
            ),
            None => (
                format!("{} from the server is not valid MCP: {violation}", what()),
                None,
            ),
        };
        let ahead = crate::analyses::validate::newer_than_schemas(&self.settings.protocol);
        let summary = match ahead {
            Some(newest) => format!(
                "{summary} (checked against {newest}, the newest revision this build knows; \
                 {} may allow it)",
                self.settings.protocol
            ),
            None => summary,
        };
        let mut finding = Mismatch::new(MismatchKind::Protocol, line, summary);
        if let Some(r) = request {
            finding = finding.request(&entries[r]);
        }
        match self.settings.protocol_check {
            _ if ahead.is_some() => self.warn_protocol(finding),
            ProtocolCheck::Warn => self.warn_protocol(finding),
            _ => self.fail(finding),
        }
    }

    fn warn_protocol(&mut self, finding: Mismatch) {
        if self.trace.on() {
            self.trace
                .line(format_args!("warning: {}", finding.summary()));
        }
        self.findings.warnings.push(finding);
    }
}
