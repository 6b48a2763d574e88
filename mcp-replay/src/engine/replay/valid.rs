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
            self.check_tool_answer(entry, || Some(message.clone()));
        }
    }

    /// What the server declares of its tools and what they answer: a `tools/list` answer
    /// teaches the checker the tools' output schemas, and a `tools/call` answer is checked
    /// against its tool's ([`tool_result`](crate::analyses::validate::Checker::tool_result)). `message`: the answer, parsed only
    /// when it is needed (the fast path holds it as text).
    fn check_tool_answer(&mut self, entry: usize, message: impl FnOnce() -> Option<Value>) {
        let request = &self.fixture.entries()[entry];
        let Some(checker) = &mut self.checker else {
            return;
        };
        match request.method() {
            Some("tools/list") => {
                if let Some(result) = message().as_ref().and_then(|m| m.get("result")) {
                    checker.learn_tools(result);
                }
            }
            Some("tools/call") if checker.checks_tool_results() => {
                let (Some(tool), Some(message)) = (called_tool(request), message()) else {
                    return;
                };
                let checked = checker.tool_result(&tool, &message);
                self.protocol_finding(checked, Some(entry), || describe_message(&message));
            }
            _ => {}
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
        // A listing is read only if it declares an output schema.
        let listing = request.method == "tools/list";
        if let Some(entry) = entry.filter(|_| !listing || OUTPUT_SCHEMA.is_in(&fast.text)) {
            self.check_tool_answer(entry, || serde_json::from_str(&fast.text).ok());
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
        self.warnings.push(finding);
    }
}
