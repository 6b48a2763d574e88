//! `tour-client`: a "desktop-like" MCP client on rmcp that tours server-everything, the
//! Rust twin of `peers/python/tour_client.py` and `peers/node/tour_client.mjs` (their
//! `--tour everything`).
//!
//! ```text
//! tour-client [--timeout SECONDS] -- <server command> [args...]
//! ```
//!
//! It starts the server as a child process over stdio (`TokioChildProcess`), speaks the
//! `initialize` handshake declaring roots, sampling and form elicitation, and answers each
//! server request with fixed values:
//!
//! - roots: one made-up root, `file:///srv/mcp-replay-tour` ("tour"), outside `/tmp`, the
//!   home and the workspace, which the recorder would turn into placeholders;
//! - sampling: always a fixed assistant text from model `tour-model`, stop reason `endTurn`;
//! - elicitation: accepts, each field with a default getting it and each other required
//!   field a value from its type, keys sorted (like the other tour clients).
//!
//! The tour is the same request sequence as the other clients' (`TOUR` below). rmcp puts a
//! progress token on every request it sends; `trigger-long-running-operation` is sent with
//! `send_request_with_option` so its token is known, and every `notifications/progress` is
//! printed by the handler's `on_progress`, labelled with the step whose token it carries.
//!
//! Every event is one compact JSON line on stdout: `initialize`, `result` (one per step),
//! `progress`, `log`, `notification` and `server-request`. `event` comes first, the other
//! fields in a fixed order, and every object inside them with its keys sorted (a fixture
//! stores messages with sorted keys, so a served session must print what the live one did).
//! The runtime is single-threaded: rmcp runs each notification handler as a task of its
//! own, and on one thread those tasks run in the order the messages arrived, before the
//! task waiting for a response that came after them.
//!
//! Exit status 0 on success; 1 on any error (to stderr): spawn failure, failed handshake,
//! a JSON-RPC error, a timeout, a closed connection, or a tool result with `isError: true`.

// Sampling, roots, logging and resources/subscribe are deprecated by SEP-2577, but they are
// what a handshake-era server like server-everything speaks.
#![allow(deprecated)]

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientConfig, ClientRequest, CompleteRequestParams,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, GetPromptRequestParams, Implementation, ListRootsResult,
    LoggingMessageNotificationParam, PingRequest, ProgressNotificationParam, ProgressToken,
    ReadResourceRequestParams, Request, ResourceUpdatedNotificationParam, Root, SamplingMessage,
    ServerResult, SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{
    NotificationContext, PeerRequestOptions, RequestContext, RoleClient, RunningService,
};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

const ROOT_URI: &str = "file:///srv/mcp-replay-tour";
const SAMPLED_TEXT: &str = "A fixed answer from the tour client's pretend model.";
const SAMPLING_MODEL: &str = "tour-model";
const DOC: &str = "demo://resource/static/document/extension.md";

/// One step: label, method (`call` is `tools/call`, `call+progress` the same with its
/// progress printed under the label), params as the wire has them.
type Step = (&'static str, &'static str, Value);

/// The "everything" tour, step for step the one of the Python and TypeScript tour clients.
fn everything_tour() -> Vec<Step> {
    vec![
        ("tools", "tools/list", json!({})),
        (
            "echo",
            "call",
            json!({"name": "echo", "arguments": {"message": "hello from the tour"}}),
        ),
        (
            "get-sum",
            "call",
            json!({"name": "get-sum", "arguments": {"a": 2, "b": 3}}),
        ),
        // 1.5 s in 3 steps: the server's own roots/list (350 ms after initialized) tends to
        // land inside.
        (
            "long",
            "call+progress",
            json!({"name": "trigger-long-running-operation", "arguments": {"duration": 1.5, "steps": 3}}),
        ),
        (
            "annotated",
            "call",
            json!({"name": "get-annotated-message", "arguments": {"messageType": "success"}}),
        ),
        (
            "structured",
            "call",
            json!({"name": "get-structured-content", "arguments": {"location": "Chicago"}}),
        ),
        ("resources", "resources/list", json!({})),
        ("templates", "resources/templates/list", json!({})),
        ("read", "resources/read", json!({"uri": DOC})),
        ("subscribe", "resources/subscribe", json!({"uri": DOC})),
        ("unsubscribe", "resources/unsubscribe", json!({"uri": DOC})),
        ("prompts", "prompts/list", json!({})),
        (
            "prompt",
            "prompts/get",
            json!({"name": "completable-prompt", "arguments": {"department": "Engineering", "name": "Alice"}}),
        ),
        (
            "complete-department",
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "completable-prompt"}, "argument": {"name": "department", "value": "E"}}),
        ),
        (
            "complete-name",
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "completable-prompt"},
                "argument": {"name": "name", "value": ""},
                "context": {"arguments": {"department": "Engineering"}}
            }),
        ),
        (
            "complete-resource",
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "demo://resource/dynamic/text/{resourceId}"},
                "argument": {"name": "resourceId", "value": "3"}
            }),
        ),
        ("set-level", "logging/setLevel", json!({"level": "info"})),
        (
            "sampling",
            "call",
            json!({"name": "trigger-sampling-request", "arguments": {"prompt": "What is two plus two?", "maxTokens": 32}}),
        ),
        (
            "roots",
            "call",
            json!({"name": "get-roots-list", "arguments": {}}),
        ),
        (
            "elicitation",
            "call",
            json!({"name": "trigger-elicitation-request", "arguments": {}}),
        ),
        ("ping", "ping", json!({})),
    ]
}

/// Prints one event line: `{"event":EVENT` then `fields` in the order given. Values are
/// `serde_json::Value`s, whose objects keep their keys sorted.
fn emit(event: &str, fields: &[(&str, Value)]) {
    let mut line = format!("{{\"event\":{}", Value::from(event));
    for (key, value) in fields {
        line.push_str(&format!(",{}:{}", Value::from(*key), value));
    }
    line.push_str("}\n");
    let mut stdout = std::io::stdout().lock();
    // A closed stdout is the reader's business; the exit status still tells the tour's.
    let _ = stdout.write_all(line.as_bytes());
    let _ = stdout.flush();
}

fn to_value(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("rmcp's model types serialize")
}

/// Fixed, schema-valid content for a form elicitation: defaults where given, else by type.
fn answer_form(schema: &Value) -> Result<Value, ErrorData> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut content = Map::new(); // sorted keys
    let empty = Map::new();
    for (name, prop) in schema["properties"].as_object().unwrap_or(&empty) {
        let value = if let Some(default) = prop.get("default") {
            default.clone()
        } else if !required.contains(&name.as_str()) {
            continue;
        } else {
            match prop["type"].as_str() {
                Some("string") => prop["enum"]
                    .get(0)
                    .cloned()
                    .unwrap_or_else(|| json!("Tour Client")),
                Some("integer" | "number") => {
                    prop.get("minimum").cloned().unwrap_or_else(|| json!(42))
                }
                Some("boolean") => json!(true),
                other => {
                    return Err(ErrorData::invalid_params(
                        format!("cannot answer elicitation field {name} of type {other:?}"),
                        None,
                    ))
                }
            }
        };
        content.insert(name.clone(), value);
    }
    Ok(Value::Object(content))
}

/// The client's handler: answers server requests with fixed values and prints every
/// notification; `steps` labels progress by the token of the request it belongs to.
#[derive(Clone, Default)]
struct Tour {
    steps: Arc<Mutex<HashMap<ProgressToken, &'static str>>>,
}

impl ClientHandler for Tour {
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        emit("server-request", &[("method", json!("roots/list"))]);
        Ok(ListRootsResult::new(vec![
            Root::new(ROOT_URI).with_name("tour")
        ]))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        emit(
            "server-request",
            &[
                ("method", json!("sampling/createMessage")),
                ("params", to_value(&params)),
            ],
        );
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text(SAMPLED_TEXT),
            SAMPLING_MODEL.into(),
        )
        .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => {
                emit(
                    "server-request",
                    &[
                        ("method", json!("elicitation/create")),
                        ("message", json!(message)),
                    ],
                );
                let content = answer_form(&to_value(&requested_schema))?;
                Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
            }
            // URL mode (or a future one): never opened here.
            other => {
                emit(
                    "server-request",
                    &[
                        ("method", json!("elicitation/create")),
                        ("message", to_value(&other)["message"].clone()),
                    ],
                );
                Ok(ElicitResult::new(ElicitationAction::Decline))
            }
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let step = self
            .steps
            .lock()
            .unwrap()
            .get(&params.progress_token)
            .copied();
        emit(
            "progress",
            &[
                ("step", json!(step)),
                ("progress", json!(params.progress)),
                ("total", json!(params.total)),
                ("message", json!(params.message)),
            ],
        );
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        emit(
            "log",
            &[
                ("level", to_value(&params.level)),
                ("logger", json!(params.logger)),
                ("data", params.data),
            ],
        );
    }

    async fn on_resource_updated(
        &self,
        _params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        emit(
            "notification",
            &[("method", json!("notifications/resources/updated"))],
        );
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        emit(
            "notification",
            &[("method", json!("notifications/resources/list_changed"))],
        );
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        emit(
            "notification",
            &[("method", json!("notifications/tools/list_changed"))],
        );
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        emit(
            "notification",
            &[("method", json!("notifications/prompts/list_changed"))],
        );
    }

    fn get_info(&self) -> ClientConfig {
        // What the TypeScript tour client declares.
        let capabilities = serde_json::from_value(json!({
            "roots": {"listChanged": true},
            "sampling": {},
            "elicitation": {"form": {}}
        }))
        .expect("valid client capabilities");
        ClientConfig::new(
            capabilities,
            Implementation::new("mcp-replay-tour-client-rs", "1.0.0"),
        )
    }
}

type Client = RunningService<RoleClient, Tour>;
type Failure = Box<dyn std::error::Error>;

fn params<T: DeserializeOwned>(label: &str, value: &Value) -> Result<T, Failure> {
    serde_json::from_value(value.clone())
        .map_err(|e| format!("step {label}: params do not fit rmcp's type: {e}").into())
}

/// Runs one step through rmcp's method for it; returns what to print as its result.
async fn step(
    client: &Client,
    tour: &Tour,
    label: &'static str,
    method: &str,
    args: &Value,
) -> Result<Value, Failure> {
    Ok(match method {
        "call" => {
            let result = client
                .call_tool(params::<CallToolRequestParams>(label, args)?)
                .await?;
            checked(label, to_value(&result))?
        }
        "call+progress" => {
            let call: CallToolRequestParams = params(label, args)?;
            let request = ClientRequest::CallToolRequest(Request::new(call));
            let handle = client
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await?;
            tour.steps
                .lock()
                .unwrap()
                .insert(handle.progress_token.clone(), label);
            match handle.await_response().await? {
                ServerResult::CallToolResult(result) => checked(label, to_value(&result))?,
                other => return Err(format!("step {label}: unexpected response {other:?}").into()),
            }
        }
        "tools/list" => {
            let result = client.list_tools(None).await?;
            result.tools.iter().map(|t| json!(t.name)).collect()
        }
        "resources/list" => {
            let result = client.list_resources(None).await?;
            result.resources.iter().map(|r| json!(r.uri)).collect()
        }
        "resources/templates/list" => {
            let result = client.list_resource_templates(None).await?;
            result
                .resource_templates
                .iter()
                .map(|t| json!(t.uri_template))
                .collect()
        }
        "resources/read" => to_value(
            &client
                .read_resource(params::<ReadResourceRequestParams>(label, args)?)
                .await?,
        ),
        "resources/subscribe" => {
            client
                .subscribe(params::<SubscribeRequestParams>(label, args)?)
                .await?;
            json!({})
        }
        "resources/unsubscribe" => {
            client
                .unsubscribe(params::<UnsubscribeRequestParams>(label, args)?)
                .await?;
            json!({})
        }
        "prompts/list" => {
            let result = client.list_prompts(None).await?;
            result.prompts.iter().map(|p| json!(p.name)).collect()
        }
        "prompts/get" => to_value(
            &client
                .get_prompt(params::<GetPromptRequestParams>(label, args)?)
                .await?,
        ),
        "completion/complete" => to_value(
            &client
                .complete(params::<CompleteRequestParams>(label, args)?)
                .await?,
        ),
        "logging/setLevel" => {
            client
                .set_level(params::<SetLevelRequestParams>(label, args)?)
                .await?;
            json!({})
        }
        "ping" => match client
            .send_request(ClientRequest::PingRequest(PingRequest::default()))
            .await?
        {
            ServerResult::EmptyResult(result) => to_value(&result),
            other => return Err(format!("step {label}: unexpected response {other:?}").into()),
        },
        other => return Err(format!("unknown tour step method {other}").into()),
    })
}

/// A tool result, or the failure its `isError: true` is.
fn checked(label: &str, result: Value) -> Result<Value, Failure> {
    if result["isError"] == json!(true) {
        return Err(format!("step {label}: the tool returned isError: true: {result}").into());
    }
    Ok(result)
}

async fn run(command: Vec<String>, timeout: Duration) -> Result<(), Failure> {
    let mut child = tokio::process::Command::new(&command[0]);
    child.args(&command[1..]);
    let transport = TokioChildProcess::new(child)
        .map_err(|e| format!("cannot start the server {:?}: {e}", command[0]))?;
    let tour = Tour::default();
    let client = tokio::time::timeout(timeout, tour.clone().serve(transport))
        .await
        .map_err(|_| "timed out in the initialize handshake")??;
    let info = client.peer_info().ok_or("no initialize result")?;
    emit(
        "initialize",
        &[
            ("protocolVersion", to_value(&info.protocol_version)),
            ("serverInfo", to_value(&info.server_info)),
        ],
    );
    for (label, method, args) in everything_tour() {
        let result = tokio::time::timeout(timeout, step(&client, &tour, label, method, &args))
            .await
            .map_err(|_| format!("step {label}: timed out after {timeout:?}"))??;
        emit(
            "result",
            &[
                ("step", json!(label)),
                ("method", json!(method)),
                ("result", result),
            ],
        );
    }
    client.cancel().await?;
    Ok(())
}

fn main() {
    const USAGE: &str = "usage: tour-client [--timeout SECONDS] -- <server command> [args...]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dash = args.iter().position(|a| a == "--");
    let (options, command) = match dash {
        Some(at) => (&args[..at], args[at + 1..].to_vec()),
        None => (&args[..], Vec::new()),
    };
    let mut timeout = Duration::from_secs(30);
    let mut options = options.iter();
    while let Some(option) = options.next() {
        match (option.as_str(), options.next().map(|v| v.parse::<f64>())) {
            ("--timeout", Some(Ok(seconds))) if seconds > 0.0 => {
                timeout = Duration::from_secs_f64(seconds)
            }
            _ => {
                eprintln!("tour-client: bad option {option:?} ({USAGE})");
                std::process::exit(2);
            }
        }
    }
    if command.is_empty() {
        eprintln!("tour-client: missing server command ({USAGE})");
        std::process::exit(2);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if let Err(error) = runtime.block_on(run(command, timeout)) {
        eprintln!("tour-client: error: {error}");
        std::process::exit(1);
    }
}
