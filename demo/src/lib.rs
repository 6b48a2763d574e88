//! The bundled demo MCP server of `mcp-replay`.
//!
//! [`DemoServer`] is a small [rmcp] server that the fixtures under `fixtures/`
//! pin byte for byte: the `demo` example and the integration tests replay the
//! recorded JSON-RPC exchanges against it and compare every line it writes.
//! Everything it returns is deterministic (a fixed implementation name and
//! version, `mcp-replay-demo` `1.0.0`, so that upgrading rmcp does not leak a new
//! SDK version into the fixtures), except `job_status`, which returns a random
//! id, the time and a temp path on purpose: the default normalization rules
//! turn those into placeholders.
//!
//! It offers five tools:
//!
//! - `lookup_issue` returns `"Issue {number}: example"`;
//! - `count_up` reports progress for `1..=to` (when the request carries a
//!   progress token), logs one `info` message, and returns `"counted to {to}"`;
//! - `divide` returns `a / b`, or a tool error (`isError: true`) when `b` is zero;
//! - `echo` returns its text unchanged;
//! - `job_status` returns a random job id, the current time and a temp path: not
//!   deterministic on purpose, the default normalization rules pin it.
//!
//! and two text resources ([`RESOURCES`]), `demo://readme` and `demo://tools`; reading any
//! other URI is the protocol's resource-not-found error (`-32002`, which rmcp answers as
//! `-32602` from protocol 2026-07-28 on).
//!
//! ```no_run
//! use mcp_replay_demo::DemoServer;
//! use rmcp::ServiceExt;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let (server_io, _client_io) = tokio::io::duplex(64 * 1024);
//! let running = DemoServer::default().serve(server_io).await?;
//! running.waiting().await?;
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

use std::sync::{Mutex, PoisonError};

use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{
        CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
        ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse,
        ReadResourceResult, RequestMetaObject, Resource, ResourceContents, ServerCapabilities,
        ServerConfig,
    },
    schemars,
    service::RequestContext,
    tool, tool_handler, tool_router, ErrorData, Peer, RoleServer, ServerHandler,
};
use serde::Deserialize;

// `logging/setLevel` and `notifications/message` are deprecated by SEP-2577,
// but the demo deliberately exercises them, so the logging items are used
// under `#[expect(deprecated)]`.
#[expect(deprecated, reason = "the demo exercises MCP logging (SEP-2577)")]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};

/// The implementation name the demo server reports in `serverInfo`.
pub const SERVER_NAME: &str = "mcp-replay-demo";

/// The implementation version the demo server reports in `serverInfo`.
pub const SERVER_VERSION: &str = "1.0.0";

/// The instructions the demo server returns from `initialize`.
pub const INSTRUCTIONS: &str = "Deterministic demo server for mcp-replay fixtures. \
Tools: lookup_issue, count_up (reports progress and logs), divide, echo, job_status.";

/// A text resource of the demo server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoResource {
    /// Its URI, e.g. `demo://readme`.
    pub uri: &'static str,
    /// Its name in `resources/list`.
    pub name: &'static str,
    /// Its description in `resources/list`.
    pub description: &'static str,
    /// What `resources/read` returns (`text/plain`).
    pub text: &'static str,
}

/// The resources the demo server lists and reads, in the order it lists them.
pub const RESOURCES: [DemoResource; 2] = [
    DemoResource {
        uri: "demo://readme",
        name: "readme",
        description: "What the demo server is for.",
        text: "The bundled demo server of mcp-replay: every answer is deterministic, so fixtures pin it.",
    },
    DemoResource {
        uri: "demo://tools",
        name: "tools",
        description: "The demo server's tools, one a line.",
        text: "lookup_issue\ncount_up\ndivide\necho\njob_status\n",
    },
];

/// The logger name of the `notifications/message` sent by `count_up`.
pub const LOGGER: &str = "demo";

/// Arguments of the `lookup_issue` tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub struct LookupIssueArgs {
    /// Owner of the repository, e.g. "demo".
    pub owner: String,
    /// Name of the repository, e.g. "sample".
    pub repo: String,
    /// Issue number to look up.
    pub number: u64,
}

/// Arguments of the `count_up` tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub struct CountUpArgs {
    /// Count from 1 up to this number, reporting progress at each step.
    pub to: u32,
}

/// Arguments of the `divide` tool.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
pub struct DivideArgs {
    /// The dividend.
    pub a: f64,
    /// The divisor; zero gives a tool error.
    pub b: f64,
}

/// Arguments of the `echo` tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// Text to return unchanged.
    pub text: String,
}

/// The bundled demo MCP server that the `mcp-replay` fixtures are recorded
/// against.
///
/// Serve one instance per connection (`DemoServer::default().serve(io)`).
/// The only state is the minimum log level a client set with
/// `logging/setLevel`; it belongs to the instance, and [`Clone`] copies it
/// rather than sharing it, so clones never influence each other.
pub struct DemoServer {
    tool_router: ToolRouter<Self>,
    // Stored as the deprecated `LoggingLevel`'s severity rank, see `severity`.
    min_log_severity: Mutex<u8>,
    leak_token: bool,
}

impl DemoServer {
    /// Creates a server with all five tools and no log level set (every log
    /// message is sent).
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
            min_log_severity: Mutex::new(0),
            leak_token: false,
        }
    }

    /// A server whose `job_status` also returns a (fake, well-formed) GitHub token: what a
    /// careless server might leak, for testing that such a recording is never written.
    pub fn leaky() -> Self {
        Self {
            leak_token: true,
            ..Self::new()
        }
    }

    fn min_log_severity(&self) -> u8 {
        *self
            .min_log_severity
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for DemoServer {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for DemoServer {
    fn clone(&self) -> Self {
        Self {
            tool_router: self.tool_router.clone(),
            min_log_severity: Mutex::new(self.min_log_severity()),
            leak_token: self.leak_token,
        }
    }
}

impl std::fmt::Debug for DemoServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoServer")
            .field("min_log_severity", &self.min_log_severity())
            .finish_non_exhaustive()
    }
}

/// The RFC 5424 order of MCP log levels, `debug` lowest.
#[expect(deprecated, reason = "the demo exercises MCP logging (SEP-2577)")]
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// A random version-4 UUID (std only: `RandomState` is randomly seeded).
fn random_uuid() -> String {
    use std::hash::{BuildHasher, Hasher};
    let random = || {
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    };
    let (a, b) = (random(), random());
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | (b >> 48) & 0x3fff,
        b & 0xffff_ffff_ffff
    )
}

/// The current UTC time as RFC 3339 with milliseconds (std only).
fn now_rfc3339() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn transport_closed(error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("failed to send notification: {error}"), None)
}

#[tool_router]
impl DemoServer {
    #[tool(description = "Look up an issue of a repository (always returns a fixed example).")]
    async fn lookup_issue(
        &self,
        Parameters(LookupIssueArgs { number, .. }): Parameters<LookupIssueArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(text_result(format!("Issue {number}: example")))
    }

    #[tool(
        description = "Count from 1 up to `to`, sending a progress notification per step \
                       (when the request has a progress token) and one info log message."
    )]
    async fn count_up(
        &self,
        Parameters(CountUpArgs { to }): Parameters<CountUpArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if let Some(token) = meta.get_progress_token() {
            for i in 1..=to {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(i))
                    .with_total(f64::from(to))
                    .with_message(format!("step {i} of {to}"));
                peer.notify_progress(progress)
                    .await
                    .map_err(transport_closed)?;
            }
        }
        #[expect(deprecated, reason = "the demo exercises MCP logging (SEP-2577)")]
        {
            if severity(LoggingLevel::Info) >= self.min_log_severity() {
                let log = LoggingMessageNotificationParam::new(
                    LoggingLevel::Info,
                    serde_json::json!({ "event": "count_up", "to": to }),
                )
                .with_logger(LOGGER);
                peer.notify_logging_message(log)
                    .await
                    .map_err(transport_closed)?;
            }
        }
        Ok(text_result(format!("counted to {to}")))
    }

    #[tool(description = "Divide `a` by `b`; dividing by zero is reported as a tool error.")]
    async fn divide(
        &self,
        Parameters(DivideArgs { a, b }): Parameters<DivideArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if b == 0.0 {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "division by zero",
            )]));
        }
        Ok(text_result((a / b).to_string()))
    }

    #[tool(
        description = "Start a (pretend) job: returns its id, start time and log file. \
                       Not deterministic on purpose: the default normalization rules pin it."
    )]
    async fn job_status(&self) -> Result<CallToolResult, ErrorData> {
        let id = random_uuid();
        let log = std::env::temp_dir()
            .join("mcp-replay-demo")
            .join(format!("{id}.log"));
        let mut text = format!(
            "job {id} started at {}, log at {}",
            now_rfc3339(),
            log.display()
        );
        if self.leak_token {
            // Fake, but shaped (and random-looking) like a real personal access token.
            text.push_str(&format!(
                ", token ghp_{}{}",
                "a1B2c3D4e5F6g7H8i9J0", "kLmNoPqRsTuVwXyZ"
            ));
        }
        Ok(text_result(text))
    }

    #[tool(description = "Return the given text unchanged.")]
    async fn echo(
        &self,
        Parameters(EchoArgs { text }): Parameters<EchoArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(text_result(text))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        #[expect(deprecated, reason = "the demo exercises MCP logging (SEP-2577)")]
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_logging()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(SERVER_NAME, SERVER_VERSION))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(
            RESOURCES
                .iter()
                .map(|r| {
                    Resource::new(r.uri, r.name)
                        .with_description(r.description)
                        .with_mime_type("text/plain")
                })
                .collect(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        match RESOURCES.iter().find(|r| r.uri == request.uri) {
            Some(r) => {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(r.text, r.uri)]).into())
            }
            None => Err(ErrorData::resource_not_found(
                format!("resource not found: {}", request.uri),
                Some(serde_json::json!({ "uri": request.uri })),
            )),
        }
    }

    #[expect(deprecated, reason = "the demo exercises MCP logging (SEP-2577)")]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let rank = severity(request.level);
        *self
            .min_log_severity
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = rank;
        Ok(())
    }
}

pub mod jitter;
pub mod protocol_server;
#[cfg(test)]
mod raw_client;
pub use protocol_server::ProtocolServer;
pub mod refund;
pub mod task_server;
pub use task_server::TaskServer;
pub mod watch;
pub use watch::WatchServer;

#[cfg(test)]
mod tests {

    use serde_json::{json, Value};

    use super::*;

    use crate::raw_client::RawClient;

    /// The demo server's raw-client helpers.
    impl RawClient {
        /// Every line up to and including the response with `id`.
        async fn recv_until_response(&mut self, id: i64) -> Vec<Value> {
            let mut messages = Vec::new();
            loop {
                let line = self
                    .recv(500)
                    .await
                    .unwrap_or_else(|| panic!("no response to request {id}"));
                let message: Value = serde_json::from_str(&line).expect("server wrote JSON");
                let done = message.get("id") == Some(&json!(id)) && message.get("method").is_none();
                messages.push(message);
                if done {
                    return messages;
                }
            }
        }

        async fn initialize(&mut self) {
            self.send(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
            )
            .await;
            let init = self.recv_until_response(1).await;
            assert_eq!(init.len(), 1);
            assert_eq!(
                init[0]["result"]["serverInfo"],
                json!({"name": SERVER_NAME, "version": SERVER_VERSION})
            );
            assert_eq!(init[0]["result"]["protocolVersion"], "2025-11-25");
            assert!(init[0]["result"]["capabilities"]["tools"].is_object());
            assert!(init[0]["result"]["capabilities"]["logging"].is_object());
            self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                .await;
        }
    }

    fn text_of(response: &Value) -> &str {
        response["result"]["content"][0]["text"]
            .as_str()
            .expect("a text content")
    }

    #[tokio::test]
    async fn session_over_raw_lines() {
        let mut client = RawClient::start(DemoServer::default());
        client.initialize().await;
        assert_eq!(client.recv(500).await, None, "initialized gets no reply");

        client
            .send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
            .await;
        let list = client.recv_until_response(2).await;
        let names: Vec<&str> = list[0]["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|tool| tool["name"].as_str().expect("name"))
            .collect();
        assert_eq!(
            names,
            ["count_up", "divide", "echo", "job_status", "lookup_issue"]
        );
        for tool in list[0]["result"]["tools"].as_array().expect("tools") {
            assert!(tool["description"].is_string(), "{tool}");
            for (name, property) in tool["inputSchema"]["properties"]
                .as_object()
                .into_iter()
                .flatten()
            {
                assert!(property["description"].is_string(), "{name}: {property}");
            }
        }

        client
            .send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}"#)
            .await;
        let lookup = client.recv_until_response(3).await;
        assert_eq!(lookup.len(), 1);
        assert_eq!(
            lookup[0]["result"],
            json!({"content":[{"type":"text","text":"Issue 42: example"}],"isError":false})
        );

        client
            .send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count_up","arguments":{"to":2},"_meta":{"progressToken":"p1"}}}"#)
            .await;
        let count = client.recv_until_response(4).await;
        let methods: Vec<&str> = count
            .iter()
            .map(|m| m["method"].as_str().unwrap_or("<response>"))
            .collect();
        assert_eq!(
            methods,
            [
                "notifications/progress",
                "notifications/progress",
                "notifications/message",
                "<response>"
            ]
        );
        for (i, progress) in count[..2].iter().enumerate() {
            let step = i + 1;
            assert_eq!(progress["params"]["progressToken"], "p1");
            assert_eq!(progress["params"]["progress"], json!(step as f64));
            assert_eq!(progress["params"]["total"], json!(2.0));
            assert_eq!(progress["params"]["message"], format!("step {step} of 2"));
        }
        assert_eq!(
            count[2]["params"],
            json!({"level":"info","logger":"demo","data":{"event":"count_up","to":2}})
        );
        assert_eq!(text_of(&count[3]), "counted to 2");

        client
            .send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"divide","arguments":{"a":1,"b":0}}}"#)
            .await;
        let divide = client.recv_until_response(5).await;
        assert_eq!(divide.len(), 1);
        assert_eq!(divide[0]["result"]["isError"], true);
        assert_eq!(text_of(&divide[0]), "division by zero");

        client
            .send(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#)
            .await;
        let unknown = client.recv_until_response(6).await;
        assert_eq!(unknown.len(), 1);
        assert!(unknown[0]["error"]["code"].is_i64(), "{}", unknown[0]);
        assert!(unknown[0].get("result").is_none());
    }

    #[tokio::test]
    async fn other_tools_and_logging_level() {
        let mut client = RawClient::start(DemoServer::default());
        client.initialize().await;

        client
            .send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"divide","arguments":{"a":7,"b":2}}}"#)
            .await;
        assert_eq!(text_of(&client.recv_until_response(2).await[0]), "3.5");

        client
            .send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"héllo \"there\""}}}"#)
            .await;
        assert_eq!(
            text_of(&client.recv_until_response(3).await[0]),
            "héllo \"there\""
        );

        // Without a progress token: only the log message, no progress.
        client
            .send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count_up","arguments":{"to":3}}}"#)
            .await;
        let count = client.recv_until_response(4).await;
        assert_eq!(count.len(), 2);
        assert_eq!(count[0]["method"], "notifications/message");
        assert_eq!(text_of(&count[1]), "counted to 3");

        // Above info, the log message is filtered out.
        client
            .send(r#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"warning"}}"#)
            .await;
        assert_eq!(
            client.recv_until_response(5).await,
            [json!({"jsonrpc":"2.0","id":5,"result":{}})]
        );
        client
            .send(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"count_up","arguments":{"to":1}}}"#)
            .await;
        let count = client.recv_until_response(6).await;
        assert_eq!(count.len(), 1);
        assert_eq!(text_of(&count[0]), "counted to 1");
    }

    /// The `_meta` a 2026-07-28 (stateless) request carries instead of an
    /// `initialize` handshake.
    const STATELESS_META_FIELDS: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}"#;

    #[tokio::test]
    async fn tools_call_without_initialize() {
        let mut client = RawClient::start(DemoServer::default());
        // Without `initialize` and without the 2026-07-28 request `_meta`, the
        // request is refused with invalid params, but the connection stays up.
        client
            .send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#)
            .await;
        let bare = client.recv_until_response(1).await;
        assert_eq!(bare.len(), 1);
        assert_eq!(bare[0]["error"]["code"], -32602);

        // With the stateless `_meta`, the same call is answered (2026-07-28
        // shape: `resultType` first).
        client
            .send(&format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"_meta":{{{STATELESS_META_FIELDS}}}}}}}"#))
            .await;
        let with_meta = client.recv_until_response(2).await;
        assert_eq!(
            with_meta,
            [
                json!({"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],"isError":false}})
            ]
        );

        // Progress and the log message still precede the response.
        client
            .send(&format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"count_up","arguments":{{"to":2}},"_meta":{{"progressToken":"p1",{STATELESS_META_FIELDS}}}}}}}"#))
            .await;
        let count = client.recv_until_response(3).await;
        assert_eq!(count.len(), 4);
        assert_eq!(count[0]["method"], "notifications/progress");
        assert_eq!(count[1]["method"], "notifications/progress");
        assert_eq!(count[2]["method"], "notifications/message");
        assert_eq!(count[3]["result"]["resultType"], "complete");
        assert_eq!(text_of(&count[3]), "counted to 2");
        assert_eq!(client.recv(500).await, None);
    }

    #[tokio::test]
    async fn server_discover_first() {
        let mut client = RawClient::start(DemoServer::default());
        client
            .send(&format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{"_meta":{{{STATELESS_META_FIELDS}}}}}}}"#))
            .await;
        let discover = client.recv_until_response(1).await;
        assert_eq!(discover.len(), 1);
        let result = &discover[0]["result"];
        assert_eq!(result["resultType"], "complete");
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"],
            json!({"name": SERVER_NAME, "version": SERVER_VERSION})
        );
        assert!(result["supportedVersions"]
            .as_array()
            .expect("supportedVersions")
            .contains(&json!("2026-07-28")));
        assert_eq!(result["instructions"], INSTRUCTIONS);

        client
            .send(&format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"lookup_issue","arguments":{{"owner":"demo","repo":"sample","number":42}},"_meta":{{{STATELESS_META_FIELDS}}}}}}}"#))
            .await;
        let lookup = client.recv_until_response(2).await;
        assert_eq!(text_of(&lookup[0]), "Issue 42: example");

        // A stateless session needs the `_meta` on every request.
        client
            .send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#)
            .await;
        assert_eq!(
            client.recv_until_response(3).await[0]["error"]["code"],
            -32602
        );
    }

    /// The resources, and the one fact of rmcp the `resource-not-found-code` rule is
    /// about: a missing resource is `-32002` in the legacy era, `-32602` in the stateless
    /// one, with the same message and data.
    #[tokio::test]
    async fn resources_in_both_eras() {
        let mut legacy = RawClient::start(DemoServer::default());
        legacy.initialize().await;
        legacy
            .send(r#"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#)
            .await;
        let list = legacy.recv_until_response(2).await;
        let uris: Vec<&str> = list[0]["result"]["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .map(|r| r["uri"].as_str().expect("uri"))
            .collect();
        assert_eq!(uris, ["demo://readme", "demo://tools"]);
        legacy
            .send(r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"demo://tools"}}"#)
            .await;
        let read = legacy.recv_until_response(3).await;
        assert_eq!(read[0]["result"]["contents"][0]["text"], RESOURCES[1].text);
        let missing = r#""method":"resources/read","params":{"uri":"demo://none""#;
        legacy
            .send(&format!(r#"{{"jsonrpc":"2.0","id":4,{missing}}}}}"#))
            .await;
        let legacy_error = legacy.recv_until_response(4).await[0]["error"].clone();
        assert_eq!(legacy_error["code"], -32002);

        let mut stateless = RawClient::start(DemoServer::default());
        stateless
            .send(&format!(
                r#"{{"jsonrpc":"2.0","id":4,{missing},"_meta":{{{STATELESS_META_FIELDS}}}}}}}"#
            ))
            .await;
        let mut stateless_error = stateless.recv_until_response(4).await[0]["error"].clone();
        assert_eq!(stateless_error["code"], -32602);
        stateless_error["code"] = json!(-32002);
        assert_eq!(stateless_error, legacy_error);
        assert_eq!(
            legacy_error["data"],
            json!({"uri": "demo://none"}),
            "{legacy_error}"
        );
    }

    #[test]
    fn clones_do_not_share_the_log_level() {
        let server = DemoServer::default();
        *server.min_log_severity.lock().expect("lock") = 4;
        let clone = server.clone();
        *server.min_log_severity.lock().expect("lock") = 0;
        assert_eq!(clone.min_log_severity(), 4);
    }
}
