//! Is what a server sends valid MCP? Each server message, by its method (a response by the
//! method of the request it answers), is read into the protocol's type for it, and what
//! does not fit is a [`Violation`] naming the JSON path and the rule:
//! `.result.tools[1].inputSchema.type` is required (server-filesystem 2025.8.21 advertises
//! `inputSchema: {}`, which the specification's schema rejects).
//!
//! The types are rust-mcp-schema's, generated from the specification's schema (cargo
//! feature `validate`, on by default): protocol 2025-11-25 for the legacy era (from its 1.0;
//! the versions before 2025-11-25 are checked against it, which only added to them) and
//! 2026-07-28 for the stateless era (from its 2.0, which builds one revision at a time).
//! Where they differ from the specification:
//! - they are looser: members the schema does not name are let through (the schema allows
//!   them too, except where it says `additionalProperties: false`), so an extra `"type"` in
//!   a result is not a violation; a string the schema constrains by a pattern or format
//!   (a URI, a date) is only a string;
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
    /// Not checked: a method the types have no type for (a custom method), the Tasks
    /// extension, or a build without the `validate` feature.
    Skipped,
}

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
        }
    }

    /// A checker for the live messages of a replay of `fixture` in `era`.
    pub fn for_session(fixture: &Fixture, era: Era) -> Checker {
        let extension = fixture.entries().iter().any(|e| EXTENSION.is_in(e.text()));
        Checker::new(era, extension)
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
                    checker.response(Request { method, task }, &message)
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

/// A message to check: a tree, or the canonical text of one.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "validate"), allow(dead_code))]
enum Source<'a> {
    Tree(&'a Value),
    Text(&'a str),
}

#[cfg(feature = "validate")]
mod imp {
    use super::{Checked, Request, Source, Violation};
    use crate::data::protocol::Era;
    use rust_mcp_schema::mcp_2026_07_28 as now;
    use rust_mcp_schema_2025::mcp_2025_11_25 as legacy;
    use serde::de::DeserializeOwned;
    use serde::Deserialize;
    use serde_json::Value;
    use std::borrow::Cow;

    /// A response, read for its `result` alone (so that the path starts at `.result`).
    #[derive(Deserialize)]
    struct WithResult<T> {
        #[allow(dead_code)]
        result: T,
    }

    /// An error response, read for its `error` alone.
    #[derive(Deserialize)]
    struct WithError<T> {
        #[allow(dead_code)]
        error: T,
    }

    pub(super) fn message(era: Era, method: &str, message: &Value) -> Checked {
        let m = Source::Tree(message);
        match era {
            Era::Legacy => match method {
                "notifications/message" => fits::<legacy::LoggingMessageNotification>(m),
                "notifications/progress" => fits::<legacy::ProgressNotification>(m),
                "notifications/cancelled" => fits::<legacy::CancelledNotification>(m),
                "notifications/resources/updated" => fits::<legacy::ResourceUpdatedNotification>(m),
                "notifications/resources/list_changed" => {
                    fits::<legacy::ResourceListChangedNotification>(m)
                }
                "notifications/tools/list_changed" => {
                    fits::<legacy::ToolListChangedNotification>(m)
                }
                "notifications/prompts/list_changed" => {
                    fits::<legacy::PromptListChangedNotification>(m)
                }
                "notifications/tasks/status" => fits::<legacy::TaskStatusNotification>(m),
                "notifications/elicitation/complete" => {
                    fits::<legacy::ElicitationCompleteNotification>(m)
                }
                "sampling/createMessage" => fits::<legacy::CreateMessageRequest>(m),
                "elicitation/create" => fits::<legacy::ElicitRequest>(m),
                "roots/list" => fits::<legacy::ListRootsRequest>(m),
                "ping" => fits::<legacy::PingRequest>(m),
                _ => Checked::Skipped,
            },
            Era::Stateless => match method {
                "notifications/message" => fits::<now::LoggingMessageNotification>(m),
                "notifications/progress" => fits::<now::ProgressNotification>(m),
                "notifications/cancelled" => fits::<now::CancelledNotification>(m),
                "notifications/resources/updated" => fits::<now::ResourceUpdatedNotification>(m),
                "notifications/resources/list_changed" => {
                    fits::<now::ResourceListChangedNotification>(m)
                }
                "notifications/tools/list_changed" => fits::<now::ToolListChangedNotification>(m),
                "notifications/prompts/list_changed" => {
                    fits::<now::PromptListChangedNotification>(m)
                }
                "notifications/subscriptions/acknowledged" => {
                    fits::<now::SubscriptionsAcknowledgedNotification>(m)
                }
                _ => Checked::Skipped,
            },
        }
    }

    pub(super) fn error(m: Source<'_>) -> Checked {
        fits::<WithError<legacy::RpcError>>(m)
    }

    /// A `result` answering `request`; `result_type`: its `resultType`, if it has one.
    pub(super) fn result(
        era: Era,
        request: Request<'_>,
        m: Source<'_>,
        result_type: Option<&str>,
    ) -> Checked {
        match era {
            Era::Legacy => legacy_result(request, m),
            Era::Stateless if result_type == Some("input_required") => {
                fits::<WithResult<now::InputRequiredResult>>(m)
            }
            Era::Stateless => stateless_result(request.method, m),
        }
    }

    fn legacy_result(request: Request<'_>, m: Source<'_>) -> Checked {
        use legacy as t;
        match request.method {
            "initialize" => fits::<WithResult<t::InitializeResult>>(m),
            "tools/list" => items::<WithResult<t::ListToolsResult>, t::Tool>(m, "tools"),
            "prompts/list" => items::<WithResult<t::ListPromptsResult>, t::Prompt>(m, "prompts"),
            "resources/list" => {
                items::<WithResult<t::ListResourcesResult>, t::Resource>(m, "resources")
            }
            "tools/call" if request.task => fits::<WithResult<t::CreateTaskResult>>(m),
            "tools/call" => fits::<WithResult<t::CallToolResult>>(m),
            "resources/templates/list" => fits::<WithResult<t::ListResourceTemplatesResult>>(m),
            "resources/read" => fits::<WithResult<t::ReadResourceResult>>(m),
            "prompts/get" => fits::<WithResult<t::GetPromptResult>>(m),
            "completion/complete" => fits::<WithResult<t::CompleteResult>>(m),
            "tasks/get" => fits::<WithResult<t::GetTaskResult>>(m),
            "tasks/list" => fits::<WithResult<t::ListTasksResult>>(m),
            "tasks/cancel" => fits::<WithResult<t::CancelTaskResult>>(m),
            _ => Checked::Skipped,
        }
    }

    fn stateless_result(method: &str, m: Source<'_>) -> Checked {
        use now as t;
        match method {
            "server/discover" => fits::<WithResult<t::DiscoverResult>>(m),
            "tools/list" => items::<WithResult<t::ListToolsResult>, t::Tool>(m, "tools"),
            "tools/call" => fits::<WithResult<t::CallToolResult>>(m),
            "resources/list" => {
                items::<WithResult<t::ListResourcesResult>, t::Resource>(m, "resources")
            }
            "resources/templates/list" => fits::<WithResult<t::ListResourceTemplatesResult>>(m),
            "resources/read" => fits::<WithResult<t::ReadResourceResult>>(m),
            "prompts/list" => items::<WithResult<t::ListPromptsResult>, t::Prompt>(m, "prompts"),
            "prompts/get" => fits::<WithResult<t::GetPromptResult>>(m),
            "completion/complete" => fits::<WithResult<t::CompleteResult>>(m),
            "subscriptions/listen" => fits::<WithResult<t::SubscriptionsListenResult>>(m),
            _ => Checked::Skipped,
        }
    }

    /// A listing read as `L`; when it does not fit, each item of `result.KEY` is read as an
    /// `I` too, and the items after the first that break a rule are named in
    /// [`Violation::also`].
    fn items<L: DeserializeOwned, I: DeserializeOwned>(m: Source<'_>, key: &str) -> Checked {
        listing(m, check::<L>, check::<I>, key)
    }

    /// Does the message read as a `T`? The path of what does not.
    fn fits<T: DeserializeOwned>(m: Source<'_>) -> Checked {
        checked(check::<T>(m))
    }

    /// What [`check`] finds: `Err((path, error))` for a message that does not fit.
    type Outcome = Result<(), (String, String)>;

    /// Does the message read as a `T`? The one generic step of a check: everything else
    /// ([`checked`], [`listing`]) is compiled once and takes it as a pointer.
    ///
    /// Each protocol type's `Deserialize`, and that of every type inside it, is compiled
    /// here once per deserializer it meets, which is most of what `validate` costs a build:
    /// three of them, the text's and the tree's for the check and the tree's through
    /// `serde_path_to_error` for the path of a misfit (a misfit's text is parsed into a
    /// tree first), not four. The plain checks stay one per source: reading the fast
    /// path's text into a tree first costs a one-call replay about 3% more instructions.
    fn check<T: DeserializeOwned>(m: Source<'_>) -> Outcome {
        // Most messages fit: read them plainly first, and only a misfit again with the
        // path tracked (serde_path_to_error wraps every step; about a tenth of a replay's
        // cost per call if it read every message).
        let plain = match m {
            Source::Tree(value) => T::deserialize(value).is_ok(),
            Source::Text(text) => serde_json::from_str::<T>(text).is_ok(),
        };
        if plain {
            return Ok(());
        }
        let value = tree(m)?;
        serde_path_to_error::deserialize::<_, T>(&*value)
            .map(drop)
            .map_err(|e| (e.path().to_string(), e.into_inner().to_string()))
    }

    /// The message as a tree: the fast path's text parsed (a text that is not JSON does
    /// not fit at its root).
    fn tree(m: Source<'_>) -> Result<Cow<'_, Value>, (String, String)> {
        match m {
            Source::Tree(value) => Ok(Cow::Borrowed(value)),
            Source::Text(text) => serde_json::from_str(text)
                .map(Cow::Owned)
                .map_err(|e| (String::new(), e.to_string())),
        }
    }

    /// [`items`], its types as their [`check`].
    fn listing(
        m: Source<'_>,
        whole: fn(Source<'_>) -> Outcome,
        item: fn(Source<'_>) -> Outcome,
        key: &str,
    ) -> Checked {
        let mut first = match checked(whole(m)) {
            Checked::Invalid(first) => first,
            checked => return checked,
        };
        let Ok(value) = tree(m) else {
            return Checked::Invalid(first);
        };
        let listing = value.get("result").and_then(|r| r.get(key));
        let at = format!(".result.{key}[");
        for (i, one) in listing
            .iter()
            .flat_map(|l| l.as_array())
            .flatten()
            .enumerate()
        {
            let prefix = format!("{at}{i}]");
            if first.path.starts_with(&format!("{prefix}.")) || first.path == prefix {
                continue;
            }
            if let Checked::Invalid(v) = checked(item(Source::Tree(one))) {
                let path = if v.path == "." { String::new() } else { v.path };
                first.also.push(format!("`{prefix}{path}` {}", v.rule));
            }
        }
        Checked::Invalid(first)
    }

    /// A [`check`]'s outcome as a [`Checked`]: serde's path and error as a path and a rule.
    fn checked(outcome: Outcome) -> Checked {
        let Err((path, inner)) = outcome else {
            return Checked::Valid;
        };
        let mut path = match path.as_str() {
            "." | "" => String::new(),
            p => format!(".{p}"),
        };
        // "missing field `type`": the path of the field, and that it is required.
        let rule = match inner
            .strip_prefix("missing field `")
            .and_then(|r| r.split_once('`'))
        {
            Some((field, _)) => {
                path = format!("{path}.{field}");
                "is required".to_owned()
            }
            None => inner
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_owned(),
        };
        if path.is_empty() {
            path = ".".into();
        }
        Checked::Invalid(Violation {
            path,
            rule,
            also: Vec::new(),
        })
    }
}

#[cfg(not(feature = "validate"))]
mod imp {
    use super::{Checked, Request, Source};
    use crate::data::protocol::Era;
    use serde_json::Value;

    pub(super) fn message(_: Era, _: &str, _: &Value) -> Checked {
        Checked::Skipped
    }

    pub(super) fn error(_: Source<'_>) -> Checked {
        Checked::Skipped
    }

    pub(super) fn result(_: Era, _: Request<'_>, _: Source<'_>, _: Option<&str>) -> Checked {
        Checked::Skipped
    }
}

#[cfg(all(test, feature = "validate"))]
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
        assert!(
            v.also[1].starts_with("`.result.tools[3].annotations.readOnlyHint` invalid type"),
            "{v}"
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
        assert!(v.rule.contains("unknown variant `loud`"), "{v}");
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
