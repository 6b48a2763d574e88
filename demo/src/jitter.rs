//! A test-peer server that sends the same messages on every run, at random times.
//!
//! [`JitterServer`] exists to prove that a replay tolerates a server's own
//! asynchronous traffic interleaving differently from the recording. Every message it
//! writes has deterministic contents (no clock, no random text); only *when* it writes
//! them is random:
//!
//! - after `notifications/initialized`, one spawned task waits a random
//!   0..[`STARTUP_DELAY_MAX_MS`] ms and, if the client declared the `roots`
//!   capability, sends `roots/list` to the client and then logs
//!   `"roots: {count}"` (`"roots: failed"` when the client answers with an error);
//!   another task independently waits its own random 0..[`STARTUP_DELAY_MAX_MS`] ms
//!   and sends `notifications/tools/list_changed` and then
//!   `notifications/resources/list_changed`;
//! - `slow_count {n}` logs `"slow_count step {i} of {n}"` per step, sends a progress
//!   notification per step (when the request has a progress token), sleeps a random
//!   0..[`STEP_GAP_MAX_MS`] ms between steps, and returns `"counted to {n}"`;
//! - `ask` samples [`ASK_PROMPT`] from the client (`sampling/createMessage`) and
//!   returns the model's text;
//! - `confirm` elicits [`CONFIRM_MESSAGE`] from the client (`elicitation/create`) and
//!   returns the action (`"accept"`, `"decline"` or `"cancel"`);
//! - `echo {text}` returns its text.
//!
//! rmcp numbers the server's own requests (and the `_meta.progressToken` it adds to
//! each) in the order they are sent. So that the startup `roots/list` always gets the
//! first number whatever the timing, `ask` and `confirm` hold their request back until
//! the startup `roots/list` has been sent (when the client declared roots).
//!
//! The timing comes from a small xorshift generator: [`JitterServer::new`] seeds it
//! from fresh entropy, [`JitterServer::with_seed`] from a given seed (to reproduce a
//! failing run), and [`JitterServer::seed`] tells which seed an instance uses. Each
//! source of delay (the roots task, the `list_changed` task, each `slow_count` call)
//! draws from its own stream derived from the seed, so a seed gives the same delays
//! whatever order the tasks run in. Nothing is printed.
//!
//! ```no_run
//! use mcp_replay_demo::jitter::JitterServer;
//! use rmcp::ServiceExt;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let (server_io, _client_io) = tokio::io::duplex(64 * 1024);
//! let running = JitterServer::with_seed(7).serve(server_io).await?;
//! running.waiting().await?;
//! # Ok(())
//! # }
//! ```

// Sampling, roots and logging are deprecated by SEP-2577, but this server exercises
// them on purpose.
#![expect(
    deprecated,
    reason = "the server exercises sampling, roots and logging (SEP-2577)"
)]

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc,
};
use std::time::Duration;

use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{
        CallToolResult, ClientResult, ContentBlock, CreateMessageRequest,
        CreateMessageRequestParams, ElicitRequest, ElicitRequestParams, ElicitationAction,
        ElicitationSchema, Implementation, ListRootsRequest, LoggingLevel,
        LoggingMessageNotificationParam, ProgressNotificationParam, SamplingMessage,
        ServerCapabilities, ServerConfig, ServerRequest,
    },
    schemars,
    service::{NotificationContext, PeerRequestOptions, RequestContext},
    tool, tool_handler, tool_router, ErrorData, Peer, RoleServer, ServerHandler,
};
use serde::Deserialize;
use tokio::sync::watch;

/// The implementation name the jitter server reports in `serverInfo`.
pub const SERVER_NAME: &str = "mcp-replay-jitter";

/// The implementation version the jitter server reports in `serverInfo`.
pub const SERVER_VERSION: &str = "1.0.0";

/// The instructions the jitter server returns from `initialize`.
pub const INSTRUCTIONS: &str = "Test-peer server for mcp-replay: deterministic messages \
at random times. Tools: echo, slow_count, ask, confirm.";

/// The logger name of every `notifications/message` the jitter server sends.
pub const LOGGER: &str = "jitter";

/// The longest random wait, in milliseconds, before each startup task (the
/// `roots/list` one and the `list_changed` one) sends anything.
pub const STARTUP_DELAY_MAX_MS: u64 = 300;

/// The longest random gap, in milliseconds, between two steps of `slow_count`.
pub const STEP_GAP_MAX_MS: u64 = 40;

/// The prompt `ask` sends in its `sampling/createMessage` request.
pub const ASK_PROMPT: &str = "Say something for the jitter test.";

/// The `maxTokens` of `ask`'s `sampling/createMessage` request.
pub const ASK_MAX_TOKENS: u32 = 20;

/// The message of `confirm`'s `elicitation/create` request.
pub const CONFIRM_MESSAGE: &str = "Proceed with the jitter test?";

/// The one (required, boolean) property of `confirm`'s elicitation schema.
pub const CONFIRM_KEY: &str = "proceed";

/// How long `ask` and `confirm` wait at most for the startup `roots/list` to be sent
/// before sending their own request anyway.
const ROOTS_GATE_TIMEOUT: Duration = Duration::from_millis(STARTUP_DELAY_MAX_MS + 2_000);

// The streams derived from the seed, one per source of delay (slow_count calls take
// `STREAM_SLOW_COUNT + call number`).
const STREAM_ROOTS: u64 = 1;
const STREAM_LIST_CHANGED: u64 = 2;
const STREAM_SLOW_COUNT: u64 = 16;

/// Arguments of the `echo` tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub struct EchoArgs {
    /// Text to return unchanged.
    pub text: String,
}

/// Arguments of the `slow_count` tool.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub struct SlowCountArgs {
    /// Number of steps; each logs a message and (with a progress token) reports progress.
    pub n: u32,
}

/// A deterministic MCP server whose own messages come at random times (see the
/// [module documentation](self)).
///
/// Serve one instance per connection. Clones share the seed, the `slow_count` call
/// counter and the startup `roots/list` state.
#[derive(Clone)]
pub struct JitterServer {
    tool_router: ToolRouter<Self>,
    seed: u64,
    slow_count_calls: Arc<AtomicU64>,
    /// `true` once the startup `roots/list` has been sent (or will not be).
    roots_sent: Arc<watch::Sender<bool>>,
}

impl JitterServer {
    /// A server whose timing is seeded from fresh entropy: every instance behaves
    /// differently. [`seed`](Self::seed) tells the seed, for [`with_seed`](Self::with_seed).
    pub fn new() -> Self {
        Self::with_seed(fresh_seed())
    }

    /// A server whose random delays are drawn from `seed`: the same seed gives the
    /// same delays (the order in which the peer's messages arrive may still differ).
    pub fn with_seed(seed: u64) -> Self {
        Self {
            tool_router: Self::tool_router(),
            seed,
            slow_count_calls: Arc::new(AtomicU64::new(0)),
            roots_sent: Arc::new(watch::Sender::new(false)),
        }
    }

    /// The seed this server draws its delays from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    fn stream(&self, stream: u64) -> XorShift {
        XorShift::new(self.seed, stream)
    }

    /// Waits (at most [`ROOTS_GATE_TIMEOUT`]) until the startup `roots/list` is out, so
    /// that the server's own requests are numbered in the same order on every run.
    async fn after_startup_roots(&self, peer: &Peer<RoleServer>) {
        if !client_has_roots(peer) {
            return;
        }
        let mut sent = self.roots_sent.subscribe();
        let _ = tokio::time::timeout(ROOTS_GATE_TIMEOUT, sent.wait_for(|sent| *sent)).await;
    }
}

impl Default for JitterServer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for JitterServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitterServer")
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// A seed from fresh entropy: std's randomly keyed hasher, the clock, the process id
/// and a per-process counter.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.finish()
}

/// SplitMix64's output function: spreads any input over all 64 bits.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xorshift64*: small, fast and plenty random for picking delays.
#[derive(Debug, Clone)]
struct XorShift(u64);

impl XorShift {
    /// The generator of one stream of `seed`.
    fn new(seed: u64, stream: u64) -> Self {
        let state = splitmix64(seed ^ splitmix64(stream));
        // xorshift's state must never be zero.
        Self(if state == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            state
        })
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A random delay of 0..`max_ms` milliseconds (`max_ms` excluded).
    fn delay(&mut self, max_ms: u64) -> Duration {
        Duration::from_millis(self.next() % max_ms.max(1))
    }
}

fn client_has_roots(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.capabilities.roots.is_some())
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

fn tool_error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

fn transport_closed(error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("failed to send notification: {error}"), None)
}

/// Sends an `info` log message from [`LOGGER`].
async fn log(peer: &Peer<RoleServer>, text: &str) -> Result<(), ErrorData> {
    let message =
        LoggingMessageNotificationParam::new(LoggingLevel::Info, text.into()).with_logger(LOGGER);
    peer.notify_logging_message(message)
        .await
        .map_err(transport_closed)
}

/// The startup `roots/list` task: a random wait, the request (if the client declared
/// roots), then a log of how many roots the client has. Opens the gate of `ask` and
/// `confirm` as soon as the request is sent (or known not to be).
async fn startup_roots(peer: Peer<RoleServer>, mut rng: XorShift, sent: Arc<watch::Sender<bool>>) {
    tokio::time::sleep(rng.delay(STARTUP_DELAY_MAX_MS)).await;
    if !client_has_roots(&peer) {
        sent.send_replace(true);
        return;
    }
    let request = ServerRequest::ListRootsRequest(ListRootsRequest::default());
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await;
    sent.send_replace(true);
    let Ok(handle) = handle else {
        return; // the transport is closed: nobody to tell
    };
    let text = match handle.await_response().await {
        Ok(ClientResult::ListRootsResult(result)) => format!("roots: {}", result.roots.len()),
        Ok(_) => "roots: unexpected answer".to_owned(),
        Err(_) => "roots: failed".to_owned(),
    };
    let _ = log(&peer, &text).await;
}

/// The startup `list_changed` task: a random wait, then the tools and the resources
/// `list_changed` notifications.
async fn startup_list_changed(peer: Peer<RoleServer>, mut rng: XorShift) {
    tokio::time::sleep(rng.delay(STARTUP_DELAY_MAX_MS)).await;
    if peer.notify_tool_list_changed().await.is_ok() {
        let _ = peer.notify_resource_list_changed().await;
    }
}

#[tool_router]
impl JitterServer {
    #[tool(description = "Return the given text unchanged.")]
    async fn echo(
        &self,
        Parameters(EchoArgs { text }): Parameters<EchoArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(text_result(text))
    }

    #[tool(
        description = "Count `n` steps with random gaps of up to 40 ms: a log message per step \
                       and a progress notification per step (when the request has a progress \
                       token); returns \"counted to {n}\"."
    )]
    async fn slow_count(
        &self,
        Parameters(SlowCountArgs { n }): Parameters<SlowCountArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let call = self.slow_count_calls.fetch_add(1, Ordering::Relaxed);
        let mut rng = self.stream(STREAM_SLOW_COUNT + call);
        let token = context.meta.get_progress_token();
        for step in 1..=n {
            if step > 1 {
                tokio::time::sleep(rng.delay(STEP_GAP_MAX_MS)).await;
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_total(f64::from(n))
                    .with_message(format!("step {step} of {n}"));
                context
                    .peer
                    .notify_progress(progress)
                    .await
                    .map_err(transport_closed)?;
            }
            log(&context.peer, &format!("slow_count step {step} of {n}")).await?;
        }
        Ok(text_result(format!("counted to {n}")))
    }

    #[tool(description = "Ask the client's model (sampling) for a line of text and return it.")]
    async fn ask(&self, peer: Peer<RoleServer>) -> CallToolResult {
        self.after_startup_roots(&peer).await;
        let request = CreateMessageRequest::new(CreateMessageRequestParams::new(
            vec![SamplingMessage::user_text(ASK_PROMPT)],
            ASK_MAX_TOKENS,
        ));
        match peer
            .send_request(ServerRequest::CreateMessageRequest(request))
            .await
        {
            Ok(ClientResult::CreateMessageResult(result)) => {
                match result.message.content.first().and_then(|c| c.as_text()) {
                    Some(text) => text_result(text.text.clone()),
                    None => tool_error("the model returned no text"),
                }
            }
            Ok(_) => tool_error("sampling/createMessage: unexpected answer"),
            Err(error) => tool_error(format!("sampling/createMessage failed: {error}")),
        }
    }

    #[tool(
        description = "Ask the user (elicitation) whether to proceed and return the action: \
                       \"accept\", \"decline\" or \"cancel\"."
    )]
    async fn confirm(&self, peer: Peer<RoleServer>) -> CallToolResult {
        self.after_startup_roots(&peer).await;
        let schema = ElicitationSchema::builder()
            .required_bool(CONFIRM_KEY)
            .build_unchecked();
        let request = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: CONFIRM_MESSAGE.into(),
            requested_schema: schema,
        });
        match peer
            .send_request(ServerRequest::ElicitRequest(request))
            .await
        {
            Ok(ClientResult::ElicitResult(result)) => text_result(match result.action {
                ElicitationAction::Accept => "accept",
                ElicitationAction::Decline => "decline",
                ElicitationAction::Cancel => "cancel",
                _ => "unknown action",
            }),
            Ok(_) => tool_error("elicitation/create: unexpected answer"),
            Err(error) => tool_error(format!("elicitation/create failed: {error}")),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for JitterServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_logging()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(SERVER_NAME, SERVER_VERSION))
            .with_instructions(INSTRUCTIONS)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        tokio::spawn(startup_roots(
            context.peer.clone(),
            self.stream(STREAM_ROOTS),
            self.roots_sent.clone(),
        ));
        tokio::spawn(startup_list_changed(
            context.peer,
            self.stream(STREAM_LIST_CHANGED),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_delays_and_streams_differ() {
        let draw = |seed, stream| {
            let mut rng = XorShift::new(seed, stream);
            (0..8)
                .map(|_| rng.delay(STARTUP_DELAY_MAX_MS))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(42, STREAM_ROOTS), draw(42, STREAM_ROOTS));
        assert_ne!(draw(42, STREAM_ROOTS), draw(42, STREAM_LIST_CHANGED));
        assert_ne!(draw(42, STREAM_ROOTS), draw(43, STREAM_ROOTS));
        assert!(draw(0, 0)
            .iter()
            .all(|d| *d < Duration::from_millis(STARTUP_DELAY_MAX_MS)));
    }

    #[test]
    fn fresh_instances_get_fresh_seeds() {
        assert_ne!(JitterServer::new().seed(), JitterServer::new().seed());
        assert_eq!(JitterServer::with_seed(9).seed(), 9);
    }
}
