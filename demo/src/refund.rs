//! The `refund` and `refund_status` tools of [`TaskServer`]: a multi
//! round-trip request of protocol 2026-07-28 (SEP-2322, `input_required` then a retry under
//! a new id with `inputResponses` and the `requestState` the server sealed), as rmcp 3.11
//! implements it, with the state rmcp's [`RequestStateCodec`] seals under a key drawn when
//! the process starts (so every run mints other `requestState` values) and a time to live
//! (so even one key seals differently from second to second).
//!
//! `refund {order, amount}` asks to confirm (`confirm`, a boolean), then for a reason
//! (`reason`, one of `damaged`, `late`, `other`), then answers `refunded AMOUNT to order
//! ORDER (REASON) as R-XXXXXXXX`, with a refund id minted for this run;
//! declined, it answers `refund of order ORDER declined`. A `requestState` that does not
//! open (tampered, of another run's key, expired) is refused (`-32602`), as a server must
//! treat an echoed state as untrusted. `refund_status {refund}` answers `refund R-...:
//! settled` for a refund of this run, else a tool error.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::{
    handler::server::{
        tool::{InputResponses, RequestState},
        wrapper::Parameters,
    },
    model::{
        CallToolResponse, CallToolResult, ContentBlock, InputRequest, InputRequests,
        InputRequiredResult, RequestStateCodec, SealOptions,
    },
    schemars, tool, tool_router, ErrorData,
};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::TaskServer;

/// How long a sealed state stays valid.
const STATE_TTL: Duration = Duration::from_secs(300);

/// The refunds made by this process (their ids).
pub(crate) type Refunds = Arc<Mutex<HashSet<String>>>;

/// The arguments of `refund`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RefundArgs {
    /// The order to refund.
    pub order: String,
    /// The amount, as written on the receipt.
    pub amount: String,
}

/// The arguments of `refund_status`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct StatusArgs {
    /// A refund id `refund` answered.
    pub refund: String,
}

/// Random hex of `bytes` bytes, from the standard library's per-process random hasher keys.
fn random_hex(bytes: usize) -> String {
    let mut out = String::new();
    while out.len() < bytes * 2 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_usize(out.len());
        out.push_str(&format!("{:016x}", hasher.finish()));
    }
    out.truncate(bytes * 2);
    out
}

/// This process's codec: a key drawn once, when first used.
fn codec() -> &'static RequestStateCodec {
    static CODEC: OnceLock<RequestStateCodec> = OnceLock::new();
    CODEC.get_or_init(|| RequestStateCodec::new_unchecked(random_hex(32).into_bytes()))
}

fn seal(state: &Value) -> Result<String, ErrorData> {
    codec()
        .seal_json_with(state, &SealOptions::new().ttl(STATE_TTL))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// An elicitation under `key` asking `message` for one field of `schema`.
fn ask(key: &str, message: String, field: &str, schema: Value, state: &Value) -> CallToolResponse {
    let request: InputRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {field: schema},
                "required": [field]
            }
        }
    }))
    .expect("a well-formed elicitation");
    let mut requests = InputRequests::new();
    requests.insert(key.to_owned(), request);
    match seal(state) {
        Ok(sealed) => InputRequiredResult::new(Some(requests), Some(sealed)).into(),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.message)]).into(),
    }
}

/// What the client answered to input request `key`: the accepted content's `field`.
fn answered<'a>(
    responses: &'a Option<rmcp::model::InputResponses>,
    key: &str,
    field: &str,
) -> Option<&'a Value> {
    let response = responses.as_ref()?.get(key)?;
    (response["action"] == "accept").then(|| &response["content"][field])
}

fn text(text: String) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

#[tool_router(router = refund_router, vis = "pub(crate)")]
impl TaskServer {
    /// Refunds an order after two questions (a multi round-trip request).
    #[tool(description = "Refund an order: asks to confirm, then for a reason.")]
    async fn refund(
        &self,
        Parameters(args): Parameters<RefundArgs>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let RefundArgs { order, amount } = args;
        let step = match state {
            None => None,
            Some(sealed) => {
                let opened: Value = codec().open_json(&sealed).map_err(|e| {
                    ErrorData::invalid_params(format!("request state rejected: {e}"), None)
                })?;
                if opened["order"] != order.as_str() {
                    return Err(ErrorData::invalid_params(
                        "request state of another order",
                        None,
                    ));
                }
                opened["step"].as_str().map(str::to_owned)
            }
        };
        Ok(match step.as_deref() {
            None => ask(
                "confirm",
                format!("Refund {amount} to order {order}?"),
                "confirm",
                json!({"type": "boolean"}),
                &json!({"step": "confirm", "order": order}),
            ),
            Some("confirm") => match answered(&responses, "confirm", "confirm") {
                Some(Value::Bool(true)) => ask(
                    "reason",
                    format!("Why is order {order} refunded?"),
                    "reason",
                    json!({"type": "string", "enum": ["damaged", "late", "other"]}),
                    &json!({"step": "reason", "order": order}),
                ),
                _ => text(format!("refund of order {order} declined")),
            },
            Some("reason") => {
                let reason = answered(&responses, "reason", "reason")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ErrorData::invalid_params("no reason given", None))?;
                let id = format!("R-{}", random_hex(4).to_uppercase());
                self.refunds
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id.clone());
                text(format!(
                    "refunded {amount} to order {order} ({reason}) as {id}"
                ))
            }
            Some(other) => {
                return Err(ErrorData::invalid_params(
                    format!("unknown refund step {other:?}"),
                    None,
                ))
            }
        })
    }

    /// The status of a refund this server made.
    #[tool(description = "The status of a refund.")]
    async fn refund_status(
        &self,
        Parameters(StatusArgs { refund }): Parameters<StatusArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let known = self
            .refunds
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&refund);
        Ok(if known {
            CallToolResult::success(vec![ContentBlock::text(format!(
                "refund {refund}: settled"
            ))])
        } else {
            CallToolResult::error(vec![ContentBlock::text(format!("no refund {refund}"))])
        })
    }
}

/// The client side: rmcp's client running the refund session, on any transport (a child
/// process in `task-client --refund`, Streamable HTTP in the tests).
pub mod client {
    use rmcp::model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
        ElicitationAction, Implementation, ProtocolVersion, RequestParamsMeta,
    };
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
    use rmcp::transport::IntoTransport;
    use rmcp::{ErrorData, RoleClient};
    use serde_json::json;

    /// Any error of the session, as text.
    pub type Failure = Box<dyn std::error::Error + Send + Sync>;

    /// Answers the refund's questions: confirms, and gives `damaged` as the reason.
    #[derive(Clone)]
    pub struct RefundClient;

    impl rmcp::ClientHandler for RefundClient {
        async fn create_elicitation(
            &self,
            request: ElicitRequestParams,
            _context: RequestContext<RoleClient>,
        ) -> Result<ElicitResult, ErrorData> {
            let ElicitRequestParams::FormElicitationParams { message, .. } = &request else {
                return Ok(ElicitResult::new(ElicitationAction::Decline));
            };
            let content = if message.starts_with("Refund") {
                json!({"confirm": true})
            } else {
                json!({"reason": "damaged"})
            };
            Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
        }

        fn get_info(&self) -> ClientConfig {
            ClientConfig::new(
                ClientCapabilities::builder().enable_elicitation().build(),
                Implementation::new("mcp-replay-refund-client", "1.0.0"),
            )
        }
    }

    /// A new W3C `traceparent` (version 00, a random trace and span id, sampled).
    pub fn traceparent() -> String {
        format!("00-{}-{}-01", super::random_hex(16), super::random_hex(8))
    }

    /// `tools/call NAME ARGUMENTS` with a new `traceparent`; rmcp completes each
    /// `input_required` by itself. The answer's first text, or why there is none.
    async fn call(
        client: &RunningService<RoleClient, RefundClient>,
        name: &'static str,
        arguments: serde_json::Value,
    ) -> Result<String, Failure> {
        let mut params =
            CallToolRequestParams::new(name).with_arguments(serde_json::from_value(arguments)?);
        params.set_traceparent(&traceparent());
        let result = client.call_tool(params).await?;
        let text = result
            .content
            .first()
            .and_then(|c| c.as_text())
            .map(|t| t.text.clone());
        match (result.is_error, text) {
            (Some(true), text) => Err(format!("{name} failed: {text:?}").into()),
            (_, Some(text)) => Ok(text),
            (_, None) => Err(format!("{name} answered no text").into()),
        }
    }

    /// The session over `transport` (protocol 2026-07-28 only, `server/discover`): `refund`
    /// of order `A-1001`, then `refund_status` of the refund id its answer names. What it
    /// saw, as one JSON line (the refund id, minted anew by every run, written `R-?`).
    pub async fn session<T, E, A>(transport: T) -> Result<String, Failure>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client = RefundClient
            .serve_with_lifecycle(transport, lifecycle)
            .await?;
        let refunded = call(
            &client,
            "refund",
            json!({"order": "A-1001", "amount": "42.50"}),
        )
        .await?;
        let id = refunded
            .rsplit(' ')
            .next()
            .filter(|id| id.starts_with("R-"))
            .ok_or_else(|| format!("no refund id in {refunded:?}"))?
            .to_owned();
        let status = call(&client, "refund_status", json!({"refund": id})).await?;
        let shape = |t: &str| t.replace(&id, "R-?");
        client.cancel().await?;
        Ok(json!({"refund": shape(&refunded), "status": shape(&status)}).to_string())
    }
}
