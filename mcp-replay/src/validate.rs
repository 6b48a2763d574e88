//! Is what a server sends valid MCP? Each server message, by its method (a response by the
//! method of the request it answers), is read into the protocol's type for it, and what
//! does not fit is a [`Violation`] naming the JSON path and the rule:
//! `.result.tools[1].inputSchema.type` is required (server-filesystem 2025.8.21 advertises
//! `inputSchema: {}`, which the specification's schema rejects).
//!
//! The types are rust-mcp-schema 2.0's, generated from the specification's schema, for
//! protocol 2025-11-25 (cargo feature `validate`, on by default). Where they differ from the
//! specification:
//! - they are looser: members the schema does not name are let through (the schema allows
//!   them too, except where it says `additionalProperties: false`), so an extra `"type"` in
//!   a result is not a violation;
//! - one revision per build: rust-mcp-schema 2.0 does not compile with two revision features
//!   at once (its modules clash), so messages of the stateless era (2026-07-28) are not
//!   checked yet ([`Checked::Skipped`]); the legacy era's versions before 2025-11-25 are
//!   checked against 2025-11-25, which only added to them; a result with `resultType` (the
//!   stateless era's, or the Tasks extension's, which rmcp speaks in a legacy session too)
//!   is skipped.
//!
//! Pure: no I/O.

use crate::protocol::Era;
use serde_json::Value;

/// A message that does not fit the protocol's type for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where, as a JSON path into the message (`.result.tools[1].inputSchema.type`).
    pub path: String,
    /// What the protocol says there (`is required`, `must be "object"`, ...).
    pub rule: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` {}", self.path, self.rule)
    }
}

/// What checking one message found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// It fits the protocol's type for it.
    Valid,
    /// It does not.
    Invalid(Violation),
    /// Not checked: a method the types have no result type for (a custom method, an error
    /// response), or an era not checked yet (see the module docs).
    Skipped,
}

/// Checks `message`, which the server sent in `era`; `method` is the message's own method,
/// or for a response the method of the request it answers.
pub fn server_message(era: Era, method: Option<&str>, message: &Value) -> Checked {
    if era.is_stateless() {
        return Checked::Skipped;
    }
    imp::server_message(method, message)
}

/// The Tasks extension's id in capabilities.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Every violation in what `fixture`'s server sends: `(fixture line, violation)`.
pub fn fixture(fixture: &crate::Fixture) -> Vec<(usize, Violation)> {
    let era = fixture.era();
    let entries = fixture.entries();
    // The Tasks extension (SEP-2663) answers `tasks/*` in its own shapes, in either era.
    let extension = entries.iter().any(|e| e.text().contains(TASKS_EXTENSION));
    entries
        .iter()
        .filter(|e| e.direction() == crate::fixture::Direction::ServerToClient)
        .filter_map(|e| {
            let method = match e.answers() {
                Some(request) => entries[request].method(),
                None => e.method(),
            };
            if extension && method.is_some_and(|m| m.starts_with("tasks/")) {
                return None;
            }
            match server_message(era, method, &e.message()) {
                Checked::Invalid(v) => Some((e.line(), v)),
                Checked::Valid | Checked::Skipped => None,
            }
        })
        .collect()
}

#[cfg(feature = "validate")]
mod imp {
    use super::{Checked, Violation};
    use rust_mcp_schema::mcp_2025_11_25 as mcp;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    pub(super) fn server_message(method: Option<&str>, message: &Value) -> Checked {
        let Some(method) = method else {
            return Checked::Skipped;
        };
        if message.get("method").is_none() {
            return match message.get("result") {
                // `resultType` is the stateless era's, or the Tasks extension's (rmcp
                // speaks it in a legacy session too): not a 2025-11-25 shape.
                Some(result) if result.get("resultType").is_some() => Checked::Skipped,
                Some(result) => result_of(method, result),
                None => Checked::Skipped,
            };
        }
        match method {
            "notifications/message" => fits::<mcp::LoggingMessageNotification>(message, ""),
            "notifications/progress" => fits::<mcp::ProgressNotification>(message, ""),
            "notifications/cancelled" => fits::<mcp::CancelledNotification>(message, ""),
            "notifications/resources/updated" => {
                fits::<mcp::ResourceUpdatedNotification>(message, "")
            }
            "notifications/resources/list_changed" => {
                fits::<mcp::ResourceListChangedNotification>(message, "")
            }
            "notifications/tools/list_changed" => {
                fits::<mcp::ToolListChangedNotification>(message, "")
            }
            "notifications/prompts/list_changed" => {
                fits::<mcp::PromptListChangedNotification>(message, "")
            }
            "notifications/tasks/status" => fits::<mcp::TaskStatusNotification>(message, ""),
            "notifications/elicitation/complete" => {
                fits::<mcp::ElicitationCompleteNotification>(message, "")
            }
            "sampling/createMessage" => fits::<mcp::CreateMessageRequest>(message, ""),
            "elicitation/create" => fits::<mcp::ElicitRequest>(message, ""),
            "roots/list" => fits::<mcp::ListRootsRequest>(message, ""),
            _ => Checked::Skipped,
        }
    }

    /// A `result` answering a `method` request.
    fn result_of(method: &str, result: &Value) -> Checked {
        const AT: &str = ".result";
        match method {
            "initialize" => fits::<mcp::InitializeResult>(result, AT),
            "tools/list" => fits::<mcp::ListToolsResult>(result, AT),
            "tools/call" if result.get("task").is_some() => {
                fits::<mcp::CreateTaskResult>(result, AT)
            }
            "tools/call" => fits::<mcp::CallToolResult>(result, AT),
            "resources/list" => fits::<mcp::ListResourcesResult>(result, AT),
            "resources/templates/list" => fits::<mcp::ListResourceTemplatesResult>(result, AT),
            "resources/read" => fits::<mcp::ReadResourceResult>(result, AT),
            "prompts/list" => fits::<mcp::ListPromptsResult>(result, AT),
            "prompts/get" => fits::<mcp::GetPromptResult>(result, AT),
            "completion/complete" => fits::<mcp::CompleteResult>(result, AT),
            "tasks/get" => fits::<mcp::GetTaskResult>(result, AT),
            "tasks/list" => fits::<mcp::ListTasksResult>(result, AT),
            "tasks/cancel" => fits::<mcp::CancelTaskResult>(result, AT),
            _ => Checked::Skipped,
        }
    }

    /// Does `value` read as a `T`? The path of what does not, under `at`.
    fn fits<T: DeserializeOwned>(value: &Value, at: &str) -> Checked {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(_) => Checked::Valid,
            Err(error) => {
                let path = error.path().to_string();
                let mut path = match path.as_str() {
                    "." | "" => at.to_owned(),
                    p => format!("{at}.{p}"),
                };
                let inner = error.into_inner().to_string();
                // "missing field `type`": the path of the field, and that it is required.
                let rule = match inner
                    .strip_prefix("missing field `")
                    .and_then(|r| r.split_once('`'))
                {
                    Some((field, _)) => {
                        path = format!("{path}.{field}");
                        "is required".to_owned()
                    }
                    None => inner,
                };
                Checked::Invalid(Violation { path, rule })
            }
        }
    }
}

#[cfg(not(feature = "validate"))]
mod imp {
    use super::Checked;
    use serde_json::Value;

    pub(super) fn server_message(_: Option<&str>, _: &Value) -> Checked {
        Checked::Skipped
    }
}

#[cfg(all(test, feature = "validate"))]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(method: &str, message: Value) -> Checked {
        server_message(Era::Legacy, Some(method), &message)
    }

    #[test]
    fn an_input_schema_without_its_type_is_a_violation_at_its_path() {
        let listing = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "ok", "inputSchema": {"type": "object"}},
            {"name": "read_file", "inputSchema": {}}
        ]}});
        assert_eq!(
            check("tools/list", listing),
            Checked::Invalid(Violation {
                path: ".result.tools[1].inputSchema.type".into(),
                rule: "is required".into()
            })
        );
    }

    #[test]
    fn valid_results_notifications_and_server_requests_pass() {
        let ok = [
            (
                "tools/call",
                json!({"id": 1, "result": {"content": [{"type": "text", "text": "hi"}]}}),
            ),
            (
                "tools/call",
                json!({"id": 1, "result": {"task": {"taskId": "t", "status": "working", "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 1000}}}),
            ),
            (
                "initialize",
                json!({"id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}),
            ),
            (
                "notifications/message",
                json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}),
            ),
            (
                "roots/list",
                json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
            ),
        ];
        for (method, message) in ok {
            assert_eq!(
                check(method, message.clone()),
                Checked::Valid,
                "{method}: {message}"
            );
        }
    }

    #[test]
    fn a_wrong_type_names_the_rule_and_other_messages_are_skipped() {
        let bad = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud", "data": 1}});
        let Checked::Invalid(v) = check("notifications/message", bad) else {
            panic!("a level outside the enum is invalid");
        };
        assert_eq!(v.path, ".params.level");
        assert!(v.rule.contains("unknown variant `loud`"), "{v}");
        assert_eq!(
            check("x/custom", json!({"id": 1, "result": {}})),
            Checked::Skipped
        );
        assert_eq!(
            check(
                "tools/call",
                json!({"id": 1, "error": {"code": -1, "message": "m"}})
            ),
            Checked::Skipped
        );
        let extension =
            json!({"id": 1, "result": {"resultType": "task", "taskId": "t", "status": "working"}});
        assert_eq!(check("tools/call", extension), Checked::Skipped);
        let stateless = json!({"id": 1, "result": {"tools": [{"name": "x", "inputSchema": {}}]}});
        assert_eq!(
            server_message(Era::Stateless, Some("tools/list"), &stateless),
            Checked::Skipped
        );
    }
}
