//! [`TaskServer`]: an rmcp server with a task tool, for the MCP Tasks extension of protocol
//! 2026-07-28 (SEP-2663, `io.modelcontextprotocol/tasks`) as rmcp implements it.
//!
//! Its one tool, `research`, is run as a task when the client declared the extension:
//! `tools/call` answers a `CreateTaskResult` (`resultType: "task"`, a random UUID task id),
//! the work goes through three stages of [`STAGE`] each (its `statusMessage` says which),
//! and `tasks/get` answers `working` until the result is ready, then `completed` with the
//! result inline. With `"ask": true` it stops at the second stage for input: `tasks/get`
//! answers `input_required` with an elicitation under the key `clarify`, and the client's
//! `tasks/update` answer goes into the report. `tasks/cancel` stops it. A client without
//! the extension gets the result at once. Every run mints a new task id and the stages
//! fall on other polls: a fixture of it replays only when both are judged by meaning.
//!
//! Its `refund` and `refund_status` tools are a multi round-trip request of 2026-07-28
//! (`input_required`, a sealed `requestState`, the retry): see [`crate::refund`].

use std::time::Duration;

use rmcp::{
    handler::server::{router::tool::ToolRouter, tool::ToolCallContext, wrapper::Parameters},
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
        CreateTaskResult, GetTaskParams, GetTaskResult, Implementation, InputRequest,
        ServerCapabilities, ServerConfig, UpdateTaskParams,
    },
    schemars,
    service::RequestContext,
    task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions},
    tool, tool_router, ErrorData, RoleServer, ServerHandler,
};
use serde::Deserialize;

/// How long each of the three stages of a `research` task takes.
pub const STAGE: Duration = Duration::from_millis(120);

/// The interval the task asks its poller to keep (`pollIntervalMs`).
pub const POLL_INTERVAL_MS: u64 = 50;

/// The arguments of `research`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ResearchArgs {
    /// What to research.
    pub topic: String,
    /// Stop for a clarification (an `input_required` status, answered with `tasks/update`).
    #[serde(default)]
    pub ask: bool,
}

/// The task server (see the module docs).
#[derive(Clone)]
pub struct TaskServer {
    tool_router: ToolRouter<Self>,
    tasks: TaskManager,
    pub(crate) refunds: crate::refund::Refunds,
}

impl Default for TaskServer {
    fn default() -> Self {
        Self {
            tool_router: Self::tool_router() + Self::refund_router(),
            tasks: TaskManager::new(),
            refunds: Default::default(),
        }
    }
}

/// The report of a research on `topic` (with the client's `clarification`).
fn report(topic: &str, clarification: Option<&str>) -> CallToolResult {
    let text = match clarification {
        Some(c) => format!("report on {topic} ({c}): 3 stages done"),
        None => format!("report on {topic}: 3 stages done"),
    };
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// The work of a `research` task: three stages, a clarification asked for at the second
/// when `ask` is set.
async fn research(ctx: TaskContext, args: ResearchArgs) -> Result<CallToolResult, TaskExit> {
    let mut clarification = None;
    for (n, stage) in ["gathering", "analyzing", "writing"].iter().enumerate() {
        ctx.set_status_message(format!("stage {} of 3: {stage}", n + 1));
        if n == 1 && args.ask {
            let request: InputRequest = serde_json::from_value(serde_json::json!({
                "method": "elicitation/create",
                "params": {
                    "message": format!("Which {} do you mean?", args.topic),
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"meaning": {"type": "string", "enum": ["science", "history"]}},
                        "required": ["meaning"]
                    }
                }
            }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            let answer = ctx.request_input("clarify", request).await?;
            clarification = answer
                .pointer("/content/meaning")
                .and_then(|m| m.as_str())
                .map(str::to_owned);
        }
        tokio::select! {
            _ = ctx.cancelled() => return Err(TaskExit::Cancelled),
            _ = tokio::time::sleep(STAGE) => {}
        }
    }
    Ok(report(&args.topic, clarification.as_deref()))
}

#[tool_router]
impl TaskServer {
    /// Runs a research (as a task when the client declared the Tasks extension).
    #[tool(
        description = "Research a topic in three stages; run as a task when the client supports tasks."
    )]
    async fn research(
        &self,
        Parameters(args): Parameters<ResearchArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(report(&args.topic, None))
    }
}

impl ServerHandler for TaskServer {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tasks = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        if request.name == "research" && tasks {
            let args: ResearchArgs = serde_json::from_value(serde_json::Value::Object(
                request.arguments.clone().unwrap_or_default(),
            ))
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
            let options = TaskOptions::new()
                .with_poll_interval_ms(POLL_INTERVAL_MS)
                .with_ttl_ms(60_000)
                .with_status_message("queued");
            let task = self
                .tasks
                .spawn(options, move |ctx| Box::pin(research(ctx, args)));
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
        }
        let call = ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get_task(&request.task_id)?))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new("mcp-replay-task-server", "1.0.0"))
    }
}
