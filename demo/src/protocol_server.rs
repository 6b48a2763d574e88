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

// The key of the single `inputRequests` / `inputResponses` entry of each
// modern-era round trip (`NAME_KEY` is also the elicited property).
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

    use super::*;

    use crate::raw_client::RawClient;

    /// Plays a script against a fresh server: `>` sends the line, `<` expects
    /// exactly that line from the server, `~` expects silence for that many ms.
    /// `$META` and `$INSTRUCTIONS` are substituted first.
    async fn play(script: &[(&str, &str)]) {
        let mut client = RawClient::start(ProtocolServer::default());
        for (step, (kind, line)) in script.iter().enumerate() {
            let line = line
                .replace("$META", META)
                .replace("$INSTRUCTIONS", INSTRUCTIONS);
            match *kind {
                ">" => client.send(&line).await,
                "<" => assert_eq!(client.recv(1000).await, Some(line), "step {step}"),
                _ => assert_eq!(client.recv(line.parse().expect("ms")).await, None),
            }
        }
    }

    /// The `_meta` identity keys every modern (2026-07-28) request carries.
    const META: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}}"#;

    #[tokio::test]
    async fn legacy_era_sends_requests_to_the_client() {
        play(&[
            (">", r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"sampling":{},"roots":{}},"clientInfo":{"name":"t","version":"0"}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"mcp-replay-protocol","version":"1.0.0"},"instructions":"$INSTRUCTIONS"}}"#),
            (">", r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            ("~", "50"),
            // ask_name: the server's own request ids start at 0; rmcp adds a progressToken.
            (">", r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"_meta":{"progressToken":0},"message":"What is your name?","mode":"form","requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}"#),
            (">", r#"{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"name":"Ada"}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada"}],"isError":false}}"#),
            // summarize
            (">", r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"summarize","arguments":{"text":"a long story"}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"_meta":{"progressToken":1},"maxTokens":50,"messages":[{"content":{"text":"Summarize: a long story","type":"text"},"role":"user"}]}}"#),
            (">", r#"{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"short"},"model":"m","stopReason":"endTurn"}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"summary: short"}],"isError":false}}"#),
            // list_roots
            (">", r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_roots","arguments":{}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":2,"method":"roots/list","params":{"_meta":{"progressToken":2}}}"#),
            (">", r#"{"jsonrpc":"2.0","id":2,"result":{"roots":[{"uri":"file:///demo","name":"demo"}]}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"file:///demo"}],"isError":false}}"#),
            // ping_client
            (">", r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ping_client","arguments":{}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"progressToken":3}}}"#),
            (">", r#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"pong received"}],"isError":false}}"#),
            // long_task with progress
            (">", r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"long_task","arguments":{"steps":3},"_meta":{"progressToken":"p1"}}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 1 of 3","progress":1.0,"progressToken":"p1","total":3.0}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 2 of 3","progress":2.0,"progressToken":"p1","total":3.0}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 3 of 3","progress":3.0,"progressToken":"p1","total":3.0}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"done after 3 steps"}],"isError":false}}"#),
            // long_task cancelled after its first step: nothing more, not even a response
            // (50 steps would take ~1 s, the silence lasts 1.5 s).
            (">", r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"long_task","arguments":{"steps":50},"_meta":{"progressToken":"p2"}}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 1 of 50","progress":1.0,"progressToken":"p2","total":50.0}}"#),
            (">", r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}"#),
            ("~", "1500"),
            // announce
            (">", r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"announce","arguments":{}}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
            ("<", r#"{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"announced"}],"isError":false}}"#),
            // ask_name declined, then answered with an error
            (">", r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{"_meta":{"progressToken":4},"message":"What is your name?","mode":"form","requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}"#),
            (">", r#"{"jsonrpc":"2.0","id":4,"result":{"action":"decline"}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"Hello, stranger"}],"isError":false}}"#),
            (">", r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"_meta":{"progressToken":5},"message":"What is your name?","mode":"form","requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}"#),
            (">", r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"no elicitation"}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"elicitation/create failed: Mcp error: -32601: no elicitation"}],"isError":true}}"#),
            ("~", "50"),
        ])
        .await;
    }

    #[tokio::test]
    async fn modern_era_returns_input_required() {
        play(&[
            (">", r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{$META}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2024-11-05","2025-03-26","2025-06-18","2025-11-25","2026-07-28"],"capabilities":{"logging":{},"tools":{"listChanged":true}},"instructions":"$INSTRUCTIONS","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-replay-protocol","version":"1.0.0"}}}}"#),
            // ask_name, then the retry under a new id
            (">", r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_name","arguments":{},"_meta":{$META}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{"message":"What is your name?","mode":"form","requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}},"requestState":"ask_name:1"}}"#),
            (">", r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_name","arguments":{},"_meta":{$META},"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":"ask_name:1"}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada"}],"isError":false}}"#),
            // summarize
            (">", r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"summarize","arguments":{"text":"a long story"},"_meta":{$META}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"summary":{"method":"sampling/createMessage","params":{"maxTokens":50,"messages":[{"content":{"text":"Summarize: a long story","type":"text"},"role":"user"}]}}},"requestState":"summarize:1"}}"#),
            (">", r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"summarize","arguments":{"text":"a long story"},"_meta":{$META},"inputResponses":{"summary":{"role":"assistant","content":{"type":"text","text":"short"},"model":"m","stopReason":"endTurn"}},"requestState":"summarize:1"}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[{"type":"text","text":"summary: short"}],"isError":false}}"#),
            // list_roots
            (">", r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_roots","arguments":{},"_meta":{$META}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"input_required","inputRequests":{"roots":{"method":"roots/list"}},"requestState":"list_roots:1"}}"#),
            (">", r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_roots","arguments":{},"_meta":{$META},"inputResponses":{"roots":{"roots":[{"uri":"file:///demo","name":"demo"}]}},"requestState":"list_roots:1"}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"file:///demo"}],"isError":false}}"#),
            // ping_client is a tool error
            (">", r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ping_client","arguments":{},"_meta":{$META}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","content":[{"type":"text","text":"ping needs the legacy era (2025-11-25)"}],"isError":true}}"#),
            // long_task with progress
            (">", r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"long_task","arguments":{"steps":3},"_meta":{"progressToken":"p1",$META}}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 1 of 3","progress":1.0,"progressToken":"p1","total":3.0}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 2 of 3","progress":2.0,"progressToken":"p1","total":3.0}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 3 of 3","progress":3.0,"progressToken":"p1","total":3.0}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","content":[{"type":"text","text":"done after 3 steps"}],"isError":false}}"#),
            // long_task cancelled
            (">", r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"long_task","arguments":{"steps":50},"_meta":{"progressToken":"p2",$META}}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"step 1 of 50","progress":1.0,"progressToken":"p2","total":50.0}}"#),
            (">", r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"user"}}"#),
            ("~", "1500"),
            // announce
            (">", r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"announce","arguments":{},"_meta":{$META}}}"#),
            ("<", r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
            ("<", r#"{"jsonrpc":"2.0","id":11,"result":{"resultType":"complete","content":[{"type":"text","text":"announced"}],"isError":false}}"#),
            // without the _meta keys: refused by rmcp; an unknown requestState: by the tool
            (">", r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"ask_name","arguments":{}}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities"}}"#),
            (">", r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"ask_name","arguments":{},"_meta":{$META},"inputResponses":{"name":{"action":"cancel"}},"requestState":"bogus"}}"#),
            ("<", r#"{"jsonrpc":"2.0","id":13,"error":{"code":-32602,"message":"expected requestState \"ask_name:1\" with inputResponses, got Some(\"bogus\")"}}"#),
            ("~", "50"),
        ])
        .await;
    }
}
