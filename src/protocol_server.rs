//! A second demo server that exercises every MCP message kind of both protocol eras.
//!
//! [`ProtocolServer`] is what the protocol fixtures pin. In the legacy era
//! (`initialize` handshake, e.g. `2025-11-25`) its tools send requests to the
//! client through rmcp's peer API (`elicitation/create`, `sampling/createMessage`,
//! `roots/list`, `ping`) and use the answers. In the modern era (`2026-07-28`,
//! stateless: rmcp selects it when the first message is `server/discover` or
//! requests carry the `io.modelcontextprotocol/*` `_meta` keys) server-to-client
//! requests are forbidden, so the same tools answer `resultType: "input_required"`
//! with `inputRequests` and a fixed `requestState`, and complete when the client
//! retries the call (under a new id) with `inputResponses` and that `requestState`.
//!
//! Tools (every output is deterministic):
//!
//! - `ask_name` elicits `{name}` and returns `"Hello, {name}"` (`"Hello, stranger"`
//!   when the user declines or cancels); modern `requestState`: `"ask_name:1"`;
//! - `summarize` samples `"Summarize: {text}"` (`maxTokens` 50) and returns
//!   `"summary: {model text}"`; modern `requestState`: `"summarize:1"`;
//! - `list_roots` lists the client's roots and returns their URIs joined by
//!   `", "` (`"no roots"` when there are none); modern `requestState`: `"list_roots:1"`;
//! - `ping_client` pings the client and returns `"pong received"` (legacy era only);
//! - `long_task` reports progress per step (when the request has a progress
//!   token), 20 ms apart, stops when the request is cancelled, and returns
//!   `"done after {steps} steps"`;
//! - `announce` sends `notifications/tools/list_changed` and returns `"announced"`.
//!
//! Failures of the client (an error answer, an unexpected answer) are tool errors
//! (`isError: true`); a malformed modern retry (unknown `requestState`, missing
//! input response) is a JSON-RPC invalid-params error.

// Sampling and roots are deprecated by SEP-2577, but this server exercises them on purpose.
#![expect(
    deprecated,
    reason = "the server exercises sampling and roots (SEP-2577)"
)]

use std::time::Duration;

use rmcp::{
    handler::server::{
        router::tool::ToolRouter,
        tool::{InputResponses as Responses, RequestState},
        wrapper::Parameters,
    },
    model::{
        CallToolResponse, CallToolResult, ContentBlock, CreateMessageRequest,
        CreateMessageRequestParams, CreateMessageResult, ElicitRequest, ElicitRequestParams,
        ElicitResult, ElicitationAction, ElicitationSchema, Implementation, InputRequest,
        InputRequests, InputRequiredResult, InputResponses, ListRootsRequest, ListRootsResult,
        PingRequest, ProgressNotificationParam, ProtocolVersion, SamplingMessage,
        ServerCapabilities, ServerConfig, ServerRequest,
    },
    schemars,
    service::RequestContext,
    tool, tool_handler, tool_router, ErrorData, Peer, RoleServer, ServerHandler,
};
use serde::{de::DeserializeOwned, Deserialize};
use serde_json::Value;

/// The implementation name the protocol server reports in `serverInfo`.
pub const SERVER_NAME: &str = "mcp-replay-protocol";

/// The implementation version the protocol server reports in `serverInfo`.
pub const SERVER_VERSION: &str = "1.0.0";

/// The instructions the protocol server returns from `initialize` and `server/discover`.
pub const INSTRUCTIONS: &str = "Deterministic protocol server for mcp-replay fixtures. \
Tools: ask_name, summarize, list_roots, ping_client, long_task, announce.";

/// The key of the single entry in `inputRequests` / `inputResponses` of each
/// modern-era round trip: `"name"`, `"summary"` or `"roots"`.
const NAME_KEY: &str = "name";
const SUMMARY_KEY: &str = "summary";
const ROOTS_KEY: &str = "roots";

/// The pause between two steps of `long_task`.
pub const STEP_DELAY: Duration = Duration::from_millis(20);

/// Arguments of the `summarize` tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub struct SummarizeArgs {
    /// Text the client's model is asked to summarize.
    pub text: String,
}

/// Arguments of the `long_task` tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub struct LongTaskArgs {
    /// Number of steps; one progress notification is sent per step, 20 ms apart.
    pub steps: u32,
}

/// A demo MCP server whose tools exercise the server-to-client messages of
/// both protocol eras (see the [module documentation](self)).
///
/// It holds no state besides its tool router: serve one instance (or clone)
/// per connection, `ProtocolServer::default().serve(io)`.
#[derive(Clone)]
pub struct ProtocolServer {
    tool_router: ToolRouter<Self>,
}

impl ProtocolServer {
    /// Creates a server with all six tools.
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }
}

impl Default for ProtocolServer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ProtocolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProtocolServer").finish_non_exhaustive()
    }
}

/// Whether the request belongs to the stateless `2026-07-28` (or later) era.
fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn tool_error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

fn name_request() -> ElicitRequest {
    let schema = ElicitationSchema::builder()
        .required_string(NAME_KEY)
        .build_unchecked();
    ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: "What is your name?".into(),
        requested_schema: schema,
    })
}

fn summary_request(text: &str) -> CreateMessageRequest {
    CreateMessageRequest::new(CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text(format!("Summarize: {text}"))],
        50,
    ))
}

/// An `input_required` result with one input request and a fixed `requestState`.
fn input_required(key: &str, request: InputRequest, state: &str) -> CallToolResponse {
    let requests = InputRequests::from([(key.to_owned(), request)]);
    InputRequiredResult::new(Some(requests), Some(state.to_owned())).into()
}

/// The client's answer to a modern-era round trip of `tool`: `None` on the first
/// call (ask), the `inputResponses[key]` on the retry carrying `"{tool}:1"`.
fn modern_answer(
    tool: &str,
    key: &str,
    state: Option<String>,
    responses: Option<InputResponses>,
) -> Result<Option<Value>, ErrorData> {
    let expected = format!("{tool}:1");
    match (state, responses) {
        (None, None) => Ok(None),
        (Some(state), Some(mut responses)) if state == expected => {
            responses.remove(key).map(Some).ok_or_else(|| {
                ErrorData::invalid_params(format!("missing inputResponses.{key}"), None)
            })
        }
        (state, _) => Err(ErrorData::invalid_params(
            format!("expected requestState {expected:?} with inputResponses, got {state:?}"),
            None,
        )),
    }
}

/// Sends a legacy-era request to the client; its answer as JSON, or the tool
/// error to return.
async fn legacy_answer(
    peer: &Peer<RoleServer>,
    method: &str,
    request: ServerRequest,
) -> Result<Value, CallToolResult> {
    let answer = peer
        .send_request(request)
        .await
        .map_err(|error| tool_error(format!("{method} failed: {error}")))?;
    serde_json::to_value(answer).map_err(|error| tool_error(format!("{method} answer: {error}")))
}

/// Parses the client's answer (either era) into its typed result.
fn parse<T: DeserializeOwned>(what: &str, answer: Value) -> Result<T, CallToolResult> {
    serde_json::from_value(answer)
        .map_err(|error| tool_error(format!("malformed {what} result: {error}")))
}

fn greeting(answer: ElicitResult) -> CallToolResult {
    match answer.action {
        ElicitationAction::Accept => {
            match answer.content.as_ref().and_then(|c| c[NAME_KEY].as_str()) {
                Some(name) => text_result(format!("Hello, {name}")),
                None => tool_error("the accepted elicitation has no string name"),
            }
        }
        _ => text_result("Hello, stranger"),
    }
}

fn summary(answer: CreateMessageResult) -> CallToolResult {
    match answer
        .message
        .content
        .first()
        .and_then(|block| block.as_text())
    {
        Some(text) => text_result(format!("summary: {}", text.text)),
        None => tool_error("the model returned no text"),
    }
}

fn roots_text(answer: ListRootsResult) -> CallToolResult {
    if answer.roots.is_empty() {
        return text_result("no roots");
    }
    let uris: Vec<&str> = answer.roots.iter().map(|root| root.uri.as_str()).collect();
    text_result(uris.join(", "))
}

/// Gets the client's answer in either era: `Err` carries what the tool returns
/// right away (the `input_required` result, or a tool error).
async fn client_answer<T: DeserializeOwned>(
    context: &RequestContext<RoleServer>,
    (tool, key, state, responses): (&str, &str, Option<String>, Option<InputResponses>),
    request: InputRequest,
) -> Result<Result<T, CallToolResponse>, ErrorData> {
    let answer = if is_modern(context) {
        match modern_answer(tool, key, state, responses)? {
            Some(answer) => answer,
            None => return Ok(Err(input_required(key, request, &format!("{tool}:1")))),
        }
    } else {
        let (method, request) = match request {
            InputRequest::Elicitation(r) => ("elicitation/create", ServerRequest::ElicitRequest(r)),
            InputRequest::CreateMessage(r) => (
                "sampling/createMessage",
                ServerRequest::CreateMessageRequest(r),
            ),
            InputRequest::ListRoots(r) => ("roots/list", ServerRequest::ListRootsRequest(r)),
            _ => return Err(ErrorData::internal_error("unknown input request", None)),
        };
        match legacy_answer(&context.peer, method, request).await {
            Ok(answer) => answer,
            Err(error) => return Ok(Err(error.into())),
        }
    };
    Ok(parse(key, answer).map_err(CallToolResponse::from))
}

fn transport_closed(error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("failed to send notification: {error}"), None)
}

#[tool_router]
impl ProtocolServer {
    #[tool(
        description = "Ask the user's name (elicitation) and greet them: \"Hello, {name}\", \
                       or \"Hello, stranger\" when declined or cancelled."
    )]
    async fn ask_name(
        &self,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        Responses(responses): Responses,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = ("ask_name", NAME_KEY, state, responses);
        let request = InputRequest::Elicitation(name_request());
        Ok(match client_answer(&context, round, request).await? {
            Ok(answer) => greeting(answer).into(),
            Err(response) => response,
        })
    }

    #[tool(
        description = "Ask the client's model (sampling) to summarize `text`: \"summary: {answer}\"."
    )]
    async fn summarize(
        &self,
        Parameters(SummarizeArgs { text }): Parameters<SummarizeArgs>,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        Responses(responses): Responses,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = ("summarize", SUMMARY_KEY, state, responses);
        let request = InputRequest::CreateMessage(summary_request(&text));
        Ok(match client_answer(&context, round, request).await? {
            Ok(answer) => summary(answer).into(),
            Err(response) => response,
        })
    }

    #[tool(description = "List the client's roots: their URIs joined by \", \".")]
    async fn list_roots(
        &self,
        context: RequestContext<RoleServer>,
        RequestState(state): RequestState,
        Responses(responses): Responses,
    ) -> Result<CallToolResponse, ErrorData> {
        let round = ("list_roots", ROOTS_KEY, state, responses);
        let request = InputRequest::ListRoots(ListRootsRequest::default());
        Ok(match client_answer(&context, round, request).await? {
            Ok(answer) => roots_text(answer).into(),
            Err(response) => response,
        })
    }

    #[tool(description = "Ping the client: \"pong received\" (legacy protocol era only).")]
    async fn ping_client(&self, context: RequestContext<RoleServer>) -> CallToolResult {
        if is_modern(&context) {
            return tool_error("ping needs the legacy era (2025-11-25)");
        }
        let ping = ServerRequest::PingRequest(PingRequest::default());
        match legacy_answer(&context.peer, "ping", ping).await {
            Ok(_) => text_result("pong received"),
            Err(error) => error,
        }
    }

    #[tool(
        description = "Run `steps` steps 20 ms apart, reporting progress per step (when the \
                       request has a progress token); stops when the request is cancelled."
    )]
    async fn long_task(
        &self,
        Parameters(LongTaskArgs { steps }): Parameters<LongTaskArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let token = context.meta.get_progress_token();
        for step in 1..=steps {
            if context.ct.is_cancelled() {
                break;
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_total(f64::from(steps))
                    .with_message(format!("step {step} of {steps}"));
                context
                    .peer
                    .notify_progress(progress)
                    .await
                    .map_err(transport_closed)?;
            }
            if step < steps {
                tokio::select! {
                    biased;
                    () = context.ct.cancelled() => break,
                    () = tokio::time::sleep(STEP_DELAY) => {}
                }
            }
        }
        if context.ct.is_cancelled() {
            // rmcp drops the response to a cancelled request: this is never written.
            return Ok(tool_error("cancelled"));
        }
        Ok(text_result(format!("done after {steps} steps")))
    }

    #[tool(description = "Send notifications/tools/list_changed, then return \"announced\".")]
    async fn announce(&self, peer: Peer<RoleServer>) -> Result<CallToolResult, ErrorData> {
        peer.notify_tool_list_changed()
            .await
            .map_err(transport_closed)?;
        Ok(text_result("announced"))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ProtocolServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_logging()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(SERVER_NAME, SERVER_VERSION))
            .with_instructions(INSTRUCTIONS)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rmcp::ServiceExt;
    use serde_json::{json, Value};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, WriteHalf};

    use super::*;

    /// A raw JSON-RPC client: writes lines to the server, reads the lines it writes.
    struct RawClient {
        writer: WriteHalf<DuplexStream>,
        lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
        server: tokio::task::JoinHandle<()>,
    }

    impl RawClient {
        fn start() -> Self {
            let (server_io, client_io) = tokio::io::duplex(64 * 1024);
            let server = tokio::spawn(async move {
                if let Ok(running) = ProtocolServer::default().serve(server_io).await {
                    let _ = running.waiting().await;
                }
            });
            let (reader, writer) = tokio::io::split(client_io);
            Self {
                writer,
                lines: BufReader::new(reader).lines(),
                server,
            }
        }

        async fn send(&mut self, message: Value) {
            let line = message.to_string();
            println!(">> {line}");
            self.writer
                .write_all(format!("{line}\n").as_bytes())
                .await
                .expect("write to server");
            self.writer.flush().await.expect("flush");
        }

        /// The next message the server writes, or `None` if it writes nothing
        /// within a short while (or closes the pipe).
        async fn recv(&mut self) -> Option<Value> {
            let line = tokio::time::timeout(Duration::from_millis(500), self.lines.next_line())
                .await
                .ok()?
                .expect("read from server")?;
            println!("<< {line}");
            Some(serde_json::from_str(&line).expect("server wrote JSON"))
        }

        async fn expect(&mut self) -> Value {
            self.recv().await.expect("a message from the server")
        }

        async fn call(&mut self, id: i64, name: &str, params: Value) -> Value {
            let mut params = params;
            params["name"] = json!(name);
            self.send(json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params}))
                .await;
            self.expect().await
        }
    }

    impl Drop for RawClient {
        fn drop(&mut self) {
            self.server.abort();
        }
    }

    fn text(response: &Value) -> Value {
        json!({"content": [{"type": "text", "text": response["result"]["content"][0]["text"]}]})
    }

    #[tokio::test]
    async fn legacy_era() {
        let mut c = RawClient::start();
        c.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"sampling":{},"roots":{}},"clientInfo":{"name":"t","version":"0"}}})).await;
        let init = c.expect().await;
        c.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).await;
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");

        let ask = c.call(2, "ask_name", json!({"arguments":{}})).await;
        c.send(json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"accept","content":{"name":"Ada"}}})).await;
        let done = c.expect().await;
        println!("{}", text(&done));

        let ask = c.call(3, "summarize", json!({"arguments":{"text":"a long story"}})).await;
        c.send(json!({"jsonrpc":"2.0","id":ask["id"],"result":{"role":"assistant","content":{"type":"text","text":"short"},"model":"m","stopReason":"endTurn"}})).await;
        c.expect().await;

        let ask = c.call(4, "list_roots", json!({"arguments":{}})).await;
        c.send(json!({"jsonrpc":"2.0","id":ask["id"],"result":{"roots":[{"uri":"file:///demo","name":"demo"}]}})).await;
        c.expect().await;

        let ask = c.call(5, "ping_client", json!({"arguments":{}})).await;
        c.send(json!({"jsonrpc":"2.0","id":ask["id"],"result":{}})).await;
        c.expect().await;

        c.call(6, "long_task", json!({"arguments":{"steps":3},"_meta":{"progressToken":"p1"}})).await;
        c.expect().await;
        c.expect().await;
        c.expect().await;

        c.call(7, "long_task", json!({"arguments":{"steps":50},"_meta":{"progressToken":"p2"}})).await;
        c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}})).await;
        while c.recv().await.is_some() {}

        c.call(8, "announce", json!({"arguments":{}})).await;
        c.expect().await;

        let ask = c.call(9, "ask_name", json!({"arguments":{}})).await;
        c.send(json!({"jsonrpc":"2.0","id":ask["id"],"result":{"action":"decline"}})).await;
        c.expect().await;
        let ask = c.call(10, "ask_name", json!({"arguments":{}})).await;
        c.send(json!({"jsonrpc":"2.0","id":ask["id"],"error":{"code":-32601,"message":"no elicitation"}})).await;
        c.expect().await;
        assert_eq!(c.recv().await, None);
    }

    const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}}}"#;

    fn meta() -> Value {
        serde_json::from_str(META).expect("meta")
    }

    #[tokio::test]
    async fn modern_era() {
        let mut c = RawClient::start();
        c.send(json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":meta()}})).await;
        c.expect().await;

        let ask = c.call(2, "ask_name", json!({"arguments":{},"_meta":meta()})).await;
        let state = ask["result"]["requestState"].clone();
        c.call(3, "ask_name", json!({"arguments":{},"_meta":meta(),"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":state})).await;

        let ask = c.call(4, "summarize", json!({"arguments":{"text":"a long story"},"_meta":meta()})).await;
        let state = ask["result"]["requestState"].clone();
        c.call(5, "summarize", json!({"arguments":{"text":"a long story"},"_meta":meta(),"inputResponses":{"summary":{"role":"assistant","content":{"type":"text","text":"short"},"model":"m","stopReason":"endTurn"}},"requestState":state})).await;

        let ask = c.call(6, "list_roots", json!({"arguments":{},"_meta":meta()})).await;
        let state = ask["result"]["requestState"].clone();
        c.call(7, "list_roots", json!({"arguments":{},"_meta":meta(),"inputResponses":{"roots":{"roots":[{"uri":"file:///demo","name":"demo"}]}},"requestState":state})).await;

        c.call(8, "ping_client", json!({"arguments":{},"_meta":meta()})).await;
        let mut m = meta();
        m["progressToken"] = json!("p1");
        c.call(9, "long_task", json!({"arguments":{"steps":3},"_meta":m})).await;
        c.expect().await;
        c.expect().await;
        c.expect().await;
        c.call(10, "announce", json!({"arguments":{},"_meta":meta()})).await;
        c.expect().await;
        c.call(11, "ask_name", json!({"arguments":{}})).await;
        c.call(12, "ask_name", json!({"arguments":{},"_meta":meta(),"requestState":"bogus"})).await;
        m["progressToken"] = json!("p2");
        c.call(13, "long_task", json!({"arguments":{"steps":50},"_meta":m})).await;
        c.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":13,"reason":"user"}})).await;
        while c.recv().await.is_some() {}
        c.send(json!({"jsonrpc":"2.0","id":14,"method":"tools/list","params":{"_meta":meta()}})).await;
        c.expect().await;
    }
}
