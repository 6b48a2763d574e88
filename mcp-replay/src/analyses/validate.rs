//! Is what a server sends valid MCP? Each server message, by its method (a response by the
//! method of the request it answers), is checked against the specification's own JSON
//! Schema, and what does not fit is a [`Violation`] naming the JSON path and the rule:
//! `.result.tools[1].inputSchema.type` is required (server-filesystem 2025.8.21 advertises
//! `inputSchema: {}`, which the specification's schema rejects).
//!
//! The schema is data (`mcp-replay/schema/REVISION.rs`, written from the specification's
//! `schema/<revision>/schema.json` by `scripts/compact-schema.py`): protocol 2025-11-25 for
//! the legacy era (the versions before it only added to it, so it checks them too) and
//! 2026-07-28 for the stateless era. Which definition checks which message comes from the
//! schema's own names (`schema.rs`); a small validator interprets it (`check.rs`). Cargo
//! feature `validate`, on by default; off, nothing is checked. Where it differs from a
//! full JSON Schema validator:
//! - the formats it asserts are the ones a client reads by: `byte` (base64) and `uri` (a
//!   scheme); the others are annotations;
//! - of a 2026-07-28 answer that may be an `InputRequiredResult` or the method's own
//!   result, the one its `resultType` names is checked, as a client reads it (the schema
//!   tells the two apart by no constant);
//! - the Tasks extension (`io.modelcontextprotocol/tasks`) is not in the core schema: its
//!   `tasks/*` answers and its results with `resultType: "task"` are not checked.
//!
//! A fixture is normalized, and the normalizer drops what the 2026-07-28 schema requires
//! with a default (`resultType: "complete"`, the caching hints): [`fixture`] puts those
//! defaults back before it checks a stateless result, so it finds what the fixture says and
//! not what normalization took out. A live replay checks the message as the server sent it.
//!
//! Pure: no I/O.

use crate::data::fixture::Fixture;
use crate::data::json::At;
use crate::data::message::Direction;
use crate::data::protocol::Era;
pub use crate::data::protocol_check::ProtocolCheck;
use serde_json::Value;

/// A message that does not fit the protocol's type for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where, as a JSON path into the message (`.result.tools[1].inputSchema.type`).
    pub path: String,
    /// What the protocol says there (`is required`, `must be "object"`, ...).
    pub rule: String,
    /// In a listing, the other items that break a rule too, each as its first violation
    /// (`.result.tools[3].inputSchema.type is required`), so that one finding says how
    /// many tools a fix concerns.
    pub also: Vec<String>,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` {}", self.path, self.rule)?;
        match self.also.as_slice() {
            [] => Ok(()),
            [one] => write!(f, "; and 1 more item: {one}"),
            [first, ..] => write!(f, "; and {} more items, the first {first}", self.also.len()),
        }
    }
}

/// What checking one message found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// It fits the protocol's type for it.
    Valid,
    /// It does not.
    Invalid(Violation),
    /// Not checked: a method the schema has no definition for (a custom method), the
    /// Tasks extension, or a build without the `validate` feature.
    Skipped,
}

/// Searched for in a `tools/list` answer: does any tool declare one?
pub(crate) static OUTPUT_SCHEMA: crate::data::needle::Needle =
    crate::data::needle::Needle::new("\"outputSchema\"");

/// The Tasks extension's id in capabilities.
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// [`TASKS_EXTENSION`] searched for in a fixture's lines.
static EXTENSION: crate::data::needle::Needle = crate::data::needle::Needle::new(TASKS_EXTENSION);

/// Checks what a server sends in one session: the era it speaks, and whether the session
/// uses the Tasks extension (whose shapes the core schema does not have).
#[derive(Debug, Clone)]
pub struct Checker {
    era: Era,
    extension: bool,
    /// Put back the defaults the normalizer drops (checking a fixture, not a live message).
    normalized: bool,
    /// The output schemas the session's tools declare (`output.rs`), as its latest
    /// `tools/list` said.
    outputs: output::OutputSchemas,
}

/// The request a response answers, as far as its type depends on it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Its method.
    pub method: &'a str,
    /// A task-augmented request (`params.task`): its result is a `CreateTaskResult`.
    pub task: bool,
}

impl Checker {
    /// A checker for live messages of a session in `era`; `extension`: the session uses
    /// the Tasks extension.
    pub fn new(era: Era, extension: bool) -> Checker {
        Checker {
            era,
            extension,
            normalized: false,
            outputs: output::OutputSchemas::default(),
        }
    }

    /// A checker for the live messages of a replay of `fixture` in `era`, knowing the
    /// output schemas the fixture's own `tools/list` answers declare (until the live ones
    /// come, [`learn_tools`](Checker::learn_tools)).
    pub fn for_session(fixture: &Fixture, era: Era) -> Checker {
        let entries = fixture.entries();
        let extension = entries.iter().any(|e| EXTENSION.is_in(e.text()));
        let mut checker = Checker::new(era, extension);
        for entry in entries {
            let listing = entry.answers().map(|r| entries[r].method()) == Some(Some("tools/list"));
            if listing && OUTPUT_SCHEMA.is_in(entry.text()) {
                checker.learn_tools(&entry.message()["result"]);
            }
        }
        checker
    }

    /// Takes in the output schemas a `tools/list` `result` declares, replacing what an
    /// earlier listing said of each tool it lists.
    pub fn learn_tools(&mut self, result: &Value) {
        self.outputs.learn(result);
    }

    /// Whether some tool of the session declares an output schema: only then is a
    /// `tools/call` answer worth [`tool_result`](Checker::tool_result).
    pub fn checks_tool_results(&self) -> bool {
        imp::ON && !self.outputs.is_empty()
    }

    /// Checks the answer to a `tools/call` of `tool` against the `outputSchema` the tool
    /// declares (the specification: a server MUST send structured results that conform to
    /// it): a successful result must carry `structuredContent` that fits.
    pub fn tool_result(&self, tool: &str, message: &Value) -> Checked {
        if !imp::ON {
            return Checked::Skipped;
        }
        self.outputs.check(tool, message, self.normalized)
    }

    /// Checks a notification or a server request.
    pub fn message(&self, message: &Value) -> Checked {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return Checked::Skipped;
        };
        if self.extension && is_task_method(method) {
            return Checked::Skipped;
        }
        imp::message(self.era, method, message)
    }

    /// Checks a response to `request`.
    pub fn response(&self, request: Request<'_>, message: &Value) -> Checked {
        if self.extension && is_task_method(request.method) {
            return Checked::Skipped;
        }
        if message.get("error").is_some() {
            return imp::error(Source::Tree(message));
        }
        let Some(result) = message.get("result") else {
            return Checked::Skipped;
        };
        let result_type = result.get("resultType").and_then(Value::as_str);
        match (self.era, result_type) {
            // The Tasks extension's answer, in either era.
            (_, Some("task")) => Checked::Skipped,
            // rmcp speaks the stateless era's result types in a legacy session too: not a
            // 2025-11-25 shape.
            (Era::Legacy, Some(_)) => Checked::Skipped,
            (Era::Stateless, _) if self.normalized => {
                let mut filled = message.clone();
                fill_dropped_defaults(request.method, &mut filled);
                imp::result(self.era, request, Source::Tree(&filled), result_type)
            }
            (Era::Legacy, _) if self.normalized && names_the_server(result) => {
                let mut filled = message.clone();
                fill_server_info(&mut filled);
                imp::result(self.era, request, Source::Tree(&filled), result_type)
            }
            _ => imp::result(self.era, request, Source::Tree(message), result_type),
        }
    }

    /// [`response`](Checker::response) for a response the replay's fast path holds as its
    /// canonical text (legacy era only: a stateless session's responses are checked as
    /// trees); `is_error`: it has `error`, not `result`; `text_blocks`: the fast path saw
    /// a result of text blocks alone (`normalize/fast.rs`), which as the answer to a
    /// `tools/call` that asked for no task is a valid `CallToolResult` unread.
    pub(crate) fn response_text(
        &self,
        request: Request<'_>,
        text: &str,
        is_error: bool,
        text_blocks: bool,
    ) -> Checked {
        if self.extension && is_task_method(request.method) {
            return Checked::Skipped;
        }
        if is_error {
            return imp::error(Source::Text(text));
        }
        if self.era.is_stateless() {
            return Checked::Skipped;
        }
        // (Text blocks alone hold no `resultType`.)
        if text_blocks && request.method == "tools/call" && !request.task {
            return Checked::Valid;
        }
        // A result type the fast path kept (not the dropped "complete"): not a 2025-11-25
        // shape (see `response`). A match inside a string only skips the check.
        static RESULT_TYPE: crate::data::needle::Needle =
            crate::data::needle::Needle::new("\"resultType\":");
        if RESULT_TYPE.is_in(text) {
            return Checked::Skipped;
        }
        imp::result(self.era, request, Source::Text(text), None)
    }
}

/// `tasks/get`, `tasks/result`, ... and the task status notifications.
fn is_task_method(method: &str) -> bool {
    method.starts_with("tasks/") || method.starts_with("notifications/tasks")
}

/// The members the normalizer drops from a stateless result with a default
/// (`normalize/defaults.rs`), put back at a value the schema allows, so that checking a
/// fixture does not report what normalization took out.
fn fill_dropped_defaults(method: &str, message: &mut Value) {
    fill_server_info(message);
    let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) else {
        return;
    };
    result
        .entry("resultType")
        .or_insert_with(|| "complete".into());
    let cacheable = matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    );
    if cacheable && result.get("resultType").and_then(Value::as_str) == Some("complete") {
        result
            .entry("cacheScope")
            .or_insert_with(|| "public".into());
        result.entry("ttlMs").or_insert_with(|| 0.into());
    }
}

/// The server's identity the `server-identity` rule wrote in a result's `_meta`
/// (`<SERVER_INFO>`), put back as the object the mock serves for it.
fn fill_server_info(message: &mut Value) {
    if let Some(info) = message
        .pointer_mut("/result/_meta")
        .and_then(|meta| meta.get_mut(crate::normalize::SERVER_INFO_META))
        .filter(|info| info.as_str() == Some(crate::normalize::SERVER_INFO))
    {
        let (name, version) = crate::normalize::SERVED_SERVER_INFO;
        *info = serde_json::json!({"name": name, "version": version});
    }
}

/// Does this `result` name its server as the `server-identity` rule writes it?
fn names_the_server(result: &Value) -> bool {
    result
        .get("_meta")
        .and_then(|meta| meta.get(crate::normalize::SERVER_INFO_META))
        .and_then(Value::as_str)
        == Some(crate::normalize::SERVER_INFO)
}

/// The revision of the specification whose schema checks a session of `era`: 2025-11-25
/// for the legacy era (the versions before it only added to it), 2026-07-28 for the
/// stateless one.
pub fn revision_of(era: Era) -> &'static str {
    match era {
        Era::Legacy => "2025-11-25",
        Era::Stateless => "2026-07-28",
    }
}

/// The newest revision whose schema this build holds, when `version` is newer than every
/// one of them (2027-03-30, before a build knows it): a session in it is checked against
/// that revision, and what breaks it may be `version`'s own (a new kind of input request),
/// so a replay says it as a warning, not a finding.
pub fn newer_than_schemas(version: &str) -> Option<&'static str> {
    let newest = crate::data::protocol::STATELESS_PROTOCOL;
    (version > newest).then_some(newest)
}

/// Every violation in what `fixture`'s server sends: `(fixture line, violation)`.
pub fn fixture(fixture: &Fixture) -> Vec<(usize, Violation)> {
    let mut checker = Checker::for_session(fixture, fixture.era());
    checker.normalized = true;
    let entries = fixture.entries();
    entries
        .iter()
        .filter(|e| e.direction() == Direction::ServerToClient)
        .filter_map(|e| {
            let message = e.message();
            let checked = match e.answers() {
                Some(r) => {
                    let request = &entries[r];
                    let task = request.method() == Some("tools/call")
                        && request.message().at(&["params", "task"]).is_some();
                    let method = request.method().unwrap_or_default();
                    match checker.response(Request { method, task }, &message) {
                        Checked::Invalid(v) => Checked::Invalid(v),
                        _ => match called_tool(request) {
                            Some(tool) => checker.tool_result(&tool, &message),
                            None => Checked::Skipped,
                        },
                    }
                }
                None => checker.message(&message),
            };
            match checked {
                Checked::Invalid(v) => Some((e.line(), v)),
                Checked::Valid | Checked::Skipped => None,
            }
        })
        .collect()
}

/// The tool a `tools/call` request entry calls.
pub(crate) fn called_tool(request: &crate::data::fixture::Entry) -> Option<String> {
    if request.method() != Some("tools/call") {
        return None;
    }
    let message = request.message();
    message.at(&["params", "name"])?.as_str().map(str::to_owned)
}

/// A message to check: a tree, or the canonical text of one.
#[derive(Clone, Copy)]
enum Source<'a> {
    Tree(&'a Value),
    Text(&'a str),
}

mod check;
pub(crate) mod output;
mod schema;

/// The check itself: the specification's schema of the era's revision (`schema.rs`)
/// interpreted by a small validator (`check.rs`).
mod imp {
    use super::check::{fits, get, misfit, other_items, Defs, Misfit, Node};
    use super::schema::Schema;
    use super::{Checked, Request, Source, Violation};
    use crate::data::json::Tree;
    use crate::data::protocol::Era;
    use serde_json::Value;

    /// Whether the build checks at all (cargo feature `validate`, on by default).
    pub(super) const ON: bool = cfg!(feature = "validate");

    /// The schema of the revision `era` is checked against: 2025-11-25 for the legacy era
    /// (the versions before it only added to, so it checks them too), 2026-07-28 for the
    /// stateless one.
    fn schema(era: Era) -> &'static Schema {
        Schema::of(super::revision_of(era)).expect("the runtime holds both revisions")
    }

    /// A notification or a server request: the definition of its method, if the schema
    /// has a server send it.
    pub(super) fn message(era: Era, method: &str, message: &Value) -> Checked {
        if !ON {
            return Checked::Skipped;
        }
        let schema = schema(era);
        match schema.sent_by_server(method) {
            Some(definition) => verdict(schema, definition, message, ""),
            None => Checked::Skipped,
        }
    }

    /// An error response: its `error` against the schema's `Error`.
    pub(super) fn error(m: Source<'_>) -> Checked {
        if !ON {
            return Checked::Skipped;
        }
        let schema = schema(Era::Legacy);
        match schema.node("Error") {
            Some(definition) => member(schema, definition, m, "error"),
            None => Checked::Skipped,
        }
    }

    /// A `result` answering `request`: the definition of that method's answer (a
    /// task-augmented `tools/call` of 2025-11-25 answers a `CreateTaskResult`).
    pub(super) fn result(
        era: Era,
        request: Request<'_>,
        m: Source<'_>,
        result_type: Option<&str>,
    ) -> Checked {
        if !ON {
            return Checked::Skipped;
        }
        let schema = schema(era);
        let definition = match (era, request.task) {
            (Era::Legacy, true) => schema.node("CreateTaskResult"),
            _ => schema
                .result_of(request.method)
                .map(|answer| by_result_type(answer, result_type)),
        };
        match definition {
            Some(definition) => member(schema, definition, m, "result"),
            None => Checked::Skipped,
        }
    }

    /// The message's member `key` (`result`, `error`) checked against `definition`; not
    /// there, nothing to check. The fast path's text is read as a borrowed tree, not into
    /// a `Value`: a replay checks every answer it does not skip.
    fn member(schema: &Schema, definition: &Node, m: Source<'_>, key: &str) -> Checked {
        let prefix = format!(".{key}");
        match m {
            Source::Tree(message) => match message.get(key) {
                Some(value) => verdict(schema, definition, value, &prefix),
                None => Checked::Skipped,
            },
            Source::Text(text) => {
                let Some(message) = crate::normalize::fast::tree(text) else {
                    return not_json();
                };
                match get(&message, key) {
                    Some(value) => verdict(schema, definition, value, &prefix),
                    None => Checked::Skipped,
                }
            }
        }
    }

    /// Of an answer that may be an `InputRequiredResult` or the method's own result (a
    /// 2026-07-28 `<Name>ResultResponse`'s `result`, `anyOf` the two, which the schema
    /// tells apart by no constant): the one its `resultType` names, as the specification
    /// says a client reads it (`"input_required"`, else the method's own).
    fn by_result_type<'s>(answer: &'s Node, result_type: Option<&str>) -> &'s Node {
        answer.alternative("InputRequiredResult", result_type == Some("input_required"))
    }

    fn not_json() -> Checked {
        Checked::Invalid(Violation {
            path: ".".into(),
            rule: "is not JSON".into(),
            also: Vec::new(),
        })
    }

    /// `value` (at `prefix` in its message) checked against `definition`: valid, or the
    /// first misfit, with the other items of a list that break a rule too (a tool listing's
    /// other tools).
    fn verdict<T: Tree>(schema: &Schema, definition: &Node, value: &T, prefix: &str) -> Checked {
        if fits(schema, definition, value) {
            return Checked::Valid;
        }
        let first = misfit(schema, definition, value)
            .unwrap_or_else(|| Misfit::at("does not fit its schema"));
        let also = other_items(schema, definition, value, &first)
            .into_iter()
            .map(|(prefix_of_item, m)| {
                format!(
                    "`{}` {}",
                    m.path(&format!("{prefix}{prefix_of_item}")),
                    m.rule
                )
            })
            .collect();
        Checked::Invalid(Violation {
            path: first.path(prefix),
            rule: first.rule,
            also,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn legacy() -> Checker {
        Checker::new(Era::Legacy, false)
    }

    fn call(method: &str) -> Request<'_> {
        Request {
            method,
            task: false,
        }
    }

    #[test]
    fn an_input_schema_without_its_type_is_a_violation_at_its_path() {
        let listing = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "ok", "inputSchema": {"type": "object"}},
            {"name": "read_file", "inputSchema": {}}
        ]}});
        let expected = Checked::Invalid(Violation {
            path: ".result.tools[1].inputSchema.type".into(),
            rule: "is required".into(),
            also: Vec::new(),
        });
        assert_eq!(legacy().response(call("tools/list"), &listing), expected);
        // The same from the fast path's text.
        let text = listing.to_string();
        assert_eq!(
            legacy().response_text(call("tools/list"), &text, false, false),
            expected
        );
    }

    /// The fast path's "text blocks alone" (`normalize/fast.rs`) lets a `tools/call` answer
    /// through unread: wherever it says so, the full check must agree that the result is
    /// valid; and every other shape is read.
    #[test]
    fn a_result_of_text_blocks_alone_is_what_the_full_check_finds_valid() {
        let results = [
            (json!({"content": [{"type": "text", "text": "a"}]}), true),
            (json!({"content": []}), true),
            (
                json!({"content": [{"type": "text", "text": "a"}, {"text": "b", "type": "text"}], "isError": true,
                       "structuredContent": {"n": 1}, "_meta": {"k": [1]}}),
                true,
            ),
            (json!({"content": [{"type": "text", "text": 5}]}), false),
            (json!({"content": [{"type": "image", "text": "a"}]}), false),
            (json!({"content": [{"type": "text"}]}), false),
            (
                json!({"content": [{"type": "text", "text": "a", "annotations": {"priority": 2}}]}),
                false,
            ),
            (
                json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}),
                false,
            ),
            (json!({"content": {"type": "text", "text": "a"}}), false),
            (json!({"content": [], "isError": "no"}), false),
            (json!({"content": [], "structuredContent": [1]}), false),
            (json!({"isError": false}), false),
            (json!({"content": [], "extra": 1}), false),
        ];
        for (result, plain) in results {
            let message = json!({"jsonrpc": "2.0", "id": 3, "result": result});
            let line = message.to_string();
            let fast = crate::normalize::fast::response(&line, None).expect("a response");
            assert_eq!(fast.text_blocks, plain, "{line}");
            let full = legacy().response(call("tools/call"), &message);
            if plain {
                assert_eq!(full, Checked::Valid, "{line}");
            }
            // Read or not, the text gives what the tree gives.
            let text =
                legacy().response_text(call("tools/call"), &fast.text, false, fast.text_blocks);
            assert_eq!(text, full, "{line}");
        }
    }

    #[test]
    fn a_listing_names_every_item_that_breaks_a_rule() {
        let listing = json!({"id": 1, "result": {"tools": [
            {"name": "a", "inputSchema": {}},
            {"name": "ok", "inputSchema": {"type": "object"}},
            {"name": "b", "inputSchema": {}},
            {"name": "c", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}}
        ]}});
        let Checked::Invalid(v) = legacy().response(call("tools/list"), &listing) else {
            panic!("invalid");
        };
        assert_eq!(v.path, ".result.tools[0].inputSchema.type");
        assert_eq!(v.also.len(), 2, "{v}");
        assert_eq!(v.also[0], "`.result.tools[2].inputSchema.type` is required");
        assert_eq!(
            v.also[1],
            "`.result.tools[3].annotations.readOnlyHint` must be a boolean"
        );
        assert!(
            v.to_string().ends_with(
                "; and 2 more items, the first `.result.tools[2].inputSchema.type` is required"
            ),
            "{v}"
        );
    }

    #[test]
    fn valid_results_notifications_and_server_requests_pass() {
        let task = Request {
            method: "tools/call",
            task: true,
        };
        let responses = [
            (
                call("tools/call"),
                json!({"id": 1, "result": {"content": [{"type": "text", "text": "hi"}]}}),
            ),
            (
                task,
                json!({"id": 1, "result": {"task": {"taskId": "t", "status": "working", "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 1000}}}),
            ),
            (
                call("initialize"),
                json!({"id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}),
            ),
            (
                call("tools/call"),
                json!({"id": 1, "error": {"code": -32602, "message": "Unknown tool"}}),
            ),
        ];
        for (request, message) in responses {
            assert_eq!(
                legacy().response(request, &message),
                Checked::Valid,
                "{message}"
            );
        }
        let messages = [
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}),
            json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        ];
        for message in messages {
            assert_eq!(legacy().message(&message), Checked::Valid, "{message}");
        }
    }

    #[test]
    fn a_wrong_type_names_the_rule_and_other_messages_are_skipped() {
        let bad = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud", "data": 1}});
        let Checked::Invalid(v) = legacy().message(&bad) else {
            panic!("a level outside the enum is invalid");
        };
        assert_eq!(v.path, ".params.level");
        assert!(
            v.rule.starts_with(r#"must be one of "alert", "critical""#),
            "{v}"
        );
        assert_eq!(
            legacy().response(call("x/custom"), &json!({"id": 1, "result": {}})),
            Checked::Skipped
        );
        let no_message = json!({"id": 1, "error": {"code": -1}});
        assert_eq!(
            legacy().response(call("tools/call"), &no_message),
            Checked::Invalid(Violation {
                path: ".error.message".into(),
                rule: "is required".into(),
                also: Vec::new()
            })
        );
        let extension =
            json!({"id": 1, "result": {"resultType": "task", "taskId": "t", "status": "working"}});
        assert_eq!(
            legacy().response(call("tools/call"), &extension),
            Checked::Skipped
        );
        let tasks = Checker::new(Era::Legacy, true);
        assert_eq!(
            tasks.response(call("tasks/get"), &json!({"id": 1, "result": {}})),
            Checked::Skipped
        );
    }

    #[test]
    fn the_stateless_era_is_checked_against_its_own_revision() {
        let stateless = Checker::new(Era::Stateless, false);
        // 2026-07-28 requires `resultType` and the caching hints of a listing.
        let bare = json!({"id": 1, "result": {"tools": [{"name": "x", "inputSchema": {"type": "object"}}]}});
        let Checked::Invalid(v) = stateless.response(call("tools/list"), &bare) else {
            panic!("a stateless listing without its result type is invalid");
        };
        assert!(v.path.starts_with(".result."), "{v}");
        let full = json!({"id": 1, "result": {"resultType": "complete", "cacheScope": "public", "ttlMs": 0,
            "tools": [{"name": "x", "inputSchema": {"type": "object"}}]}});
        assert_eq!(
            stateless.response(call("tools/list"), &full),
            Checked::Valid
        );
        let mut no_type = full.clone();
        no_type["result"]["tools"][0]["inputSchema"] = json!({});
        assert_eq!(
            stateless.response(call("tools/list"), &no_type),
            Checked::Invalid(Violation {
                path: ".result.tools[0].inputSchema.type".into(),
                rule: "is required".into(),
                also: Vec::new()
            })
        );
        let input =
            json!({"id": 1, "result": {"resultType": "input_required", "requestState": "s"}});
        assert_eq!(
            stateless.response(call("tools/call"), &input),
            Checked::Valid
        );
        // The schema's `anyOf` of the two would let any result with a `resultType` through:
        // the one its `resultType` names is checked, as a client reads it.
        let broken = json!({"id": 1, "result": {"resultType": "complete", "content": "x"}});
        assert_eq!(
            stateless.response(call("tools/call"), &broken),
            Checked::Invalid(Violation {
                path: ".result.content".into(),
                rule: "must be an array".into(),
                also: Vec::new()
            })
        );
        let asked = json!({"id": 1, "result": {"resultType": "input_required", "requestState": 5}});
        assert!(matches!(
            stateless.response(call("tools/call"), &asked),
            Checked::Invalid(Violation { ref path, .. }) if path == ".result.requestState"
        ));
        // A fixture's stateless result lost its defaults to the normalizer: they are put
        // back before it is checked.
        let mut normalized = stateless.clone();
        normalized.normalized = true;
        assert_eq!(
            normalized.response(call("tools/list"), &bare),
            Checked::Valid
        );
    }
}
