//! [`WatchServer`]: a 2026-07-28 subscription as rmcp 3.11 implements it
//! (`subscriptions/listen`, SEP-2575). A client listens to the stock of some items
//! (`stock://ITEM`, `resourceSubscriptions`); `restock {item}` answers `restocked ITEM`
//! and tells every open subscription that asked for that item
//! (`notifications/resources/updated`, its `_meta` naming the subscription by the listen
//! request's id). Over stdio a client leaves a subscription with `notifications/cancelled`;
//! over Streamable HTTP it closes the listen request's stream.
//!
//! rmcp sends the acknowledgment before it calls [`ServerHandler::listen`], on the listen
//! request's own task: a client that restocks as soon as it reads the acknowledgment can
//! reach `restock` before the sink is registered (seen once in 20 replays on a loaded
//! machine). The server therefore counts the subscriptions it has accepted and not yet
//! registered, and `restock` waits for them (at most [`SETTLE`]) before it tells anyone.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ResourceUpdatedNotification,
    ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig, ServerNotification,
    SubscriptionFilter,
};
use rmcp::service::{SubscriptionContext, SubscriptionSink};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, ServerHandler};
use serde::Deserialize;

/// The items whose stock a client may watch.
pub const ITEMS: [&str; 2] = ["hat", "cap"];

/// How long `restock` waits for accepted subscriptions to be registered (one whose
/// acknowledgment could not be sent never is).
pub const SETTLE: Duration = Duration::from_secs(2);

/// The arguments of `restock`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RestockArgs {
    /// The item restocked (`hat`, `cap`).
    pub item: String,
}

/// The stock server: one tool, `restock`, and subscriptions to `stock://ITEM`.
#[derive(Clone)]
pub struct WatchServer {
    tool_router: ToolRouter<Self>,
    /// The open subscriptions (each its own filter; closed ones refuse to send).
    listeners: Arc<Mutex<Vec<SubscriptionSink>>>,
    /// Subscriptions accepted (`accepted_subscription_filter`) and not yet in `listeners`.
    pending: Arc<tokio::sync::watch::Sender<usize>>,
}

impl Default for WatchServer {
    fn default() -> Self {
        Self {
            tool_router: Self::tool_router(),
            listeners: Arc::default(),
            pending: Arc::new(tokio::sync::watch::Sender::new(0)),
        }
    }
}

#[tool_router]
impl WatchServer {
    #[tool(description = "Restock an item; subscribers of stock://ITEM are told.")]
    async fn restock(
        &self,
        Parameters(args): Parameters<RestockArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if !ITEMS.contains(&args.item.as_str()) {
            let text = format!("no item {}", args.item);
            return Ok(CallToolResult::error(vec![ContentBlock::text(text)]));
        }
        let mut settled = self.pending.subscribe();
        let _ = tokio::time::timeout(SETTLE, settled.wait_for(|pending| *pending == 0)).await;
        let uri = format!("stock://{}", args.item);
        let sinks: Vec<SubscriptionSink> = self.listeners.lock().unwrap().clone();
        for sink in sinks {
            let update = ResourceUpdatedNotification::new(ResourceUpdatedNotificationParam::new(
                uri.clone(),
            ));
            // A subscription that did not ask for this item, or has ended, refuses it.
            let _ = sink
                .send(ServerNotification::ResourceUpdatedNotification(update))
                .await;
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "restocked {}",
            args.item
        ))]))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for WatchServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(Implementation::new("mcp-replay-watch-server", "1.0.0"))
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.pending.send_modify(|pending| *pending += 1);
        let uris: Vec<String> = ITEMS.iter().map(|item| format!("stock://{item}")).collect();
        Some(
            SubscriptionFilter::builder()
                .resource_subscriptions(uris)
                .build(),
        )
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        self.listeners.lock().unwrap().push(sink.clone());
        self.pending
            .send_modify(|pending| *pending = pending.saturating_sub(1));
        context.cancelled().await;
        self.listeners
            .lock()
            .unwrap()
            .retain(|open| open.id() != sink.id());
        Ok(())
    }
}

/// The client side: rmcp's client watching the hat's stock, on any transport (a child
/// process in `task-client --watch`, Streamable HTTP in the tests).
pub mod client {
    use rmcp::model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
        ServerNotification, SubscriptionFilter,
    };
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
    use rmcp::transport::IntoTransport;
    use rmcp::RoleClient;
    use serde_json::json;
    use std::time::Duration;

    /// Any error of the session, as text.
    pub type Failure = Box<dyn std::error::Error + Send + Sync>;

    /// A client with no handler of its own.
    #[derive(Clone)]
    pub struct WatchClient;

    impl rmcp::ClientHandler for WatchClient {
        fn get_info(&self) -> ClientConfig {
            ClientConfig::new(
                ClientCapabilities::default(),
                Implementation::new("mcp-replay-watch-client", "1.0.0"),
            )
        }
    }

    async fn restock(
        client: &RunningService<RoleClient, WatchClient>,
        item: &str,
    ) -> Result<String, Failure> {
        let params = CallToolRequestParams::new("restock")
            .with_arguments(serde_json::from_value(json!({ "item": item }))?);
        let result = client.call_tool(params).await?;
        let text = result.content.first().and_then(|c| c.as_text());
        Ok(text.map(|t| t.text.clone()).unwrap_or_default())
    }

    /// The session over `transport` (protocol 2026-07-28 only, `server/discover`): listen to
    /// `stock://hat`, restock the cap (no update: not asked for) and the hat (an update),
    /// wait for the update, leave the subscription, restock the hat again (no one told).
    /// What it saw, as one JSON line.
    pub async fn session<T, E, A>(transport: T) -> Result<String, Failure>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client = WatchClient
            .serve_with_lifecycle(transport, lifecycle)
            .await?;
        let filter = SubscriptionFilter::builder()
            .resource_subscriptions(vec!["stock://hat".to_owned()])
            .build();
        let mut watch = client.listen(filter).await?;
        let cap = restock(&client, "cap").await?;
        let hat = restock(&client, "hat").await?;
        let update = tokio::time::timeout(Duration::from_secs(10), watch.next())
            .await
            .map_err(|_| "no update within 10 s")??;
        let updated = match update {
            Some(ServerNotification::ResourceUpdatedNotification(n)) => n.params.uri,
            other => return Err(format!("not an update: {other:?}").into()),
        };
        watch.cancel().await?;
        let again = restock(&client, "hat").await?;
        client.cancel().await?;
        Ok(json!({"restocked": [cap, hat, again], "updated": updated}).to_string())
    }
}
