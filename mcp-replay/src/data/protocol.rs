//! The protocol's eras, versions, `_meta` keys and HTTP header names: one home for what
//! the replay, the mock server, the Streamable HTTP code and the command all speak.
//!
//! Two eras are live (docs/protocol.md): **legacy** (2024-11-05 to 2025-11-25), with an
//! `initialize` handshake and requests from server to client, and **stateless**
//! (2026-07-28 on), with no handshake and the client's identity in every request's
//! `_meta`.

use crate::data::json::At;
use serde_json::Value;

/// The protocol version of the session setup the harness performs for a legacy fixture
/// that starts without a handshake, unless the header names another: the latest legacy
/// version.
pub const DEFAULT_PROTOCOL: &str = LEGACY_VERSIONS[LEGACY_VERSIONS.len() - 1];

/// The first protocol version of the stateless era.
pub const STATELESS_PROTOCOL: &str = "2026-07-28";

/// The first protocol version of the stateless era (the name it had before
/// [`STATELESS_PROTOCOL`]).
pub const MODERN_PROTOCOL: &str = STATELESS_PROTOCOL;

/// The legacy versions, oldest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// A protocol era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2024-11-05 to 2025-11-25: an `initialize` handshake, sessions, server requests.
    Legacy,
    /// 2026-07-28 on: no handshake, the client's identity in each request's `_meta`.
    Stateless,
}

impl Era {
    /// The era a protocol version belongs to (versions are dates, so they compare as
    /// text).
    pub fn of_version(version: &str) -> Era {
        if version >= STATELESS_PROTOCOL {
            Era::Stateless
        } else {
            Era::Legacy
        }
    }

    /// The version the harness speaks in this era unless told another.
    pub fn default_version(self) -> &'static str {
        match self {
            Era::Legacy => DEFAULT_PROTOCOL,
            Era::Stateless => STATELESS_PROTOCOL,
        }
    }

    /// Is this the stateless era?
    pub fn is_stateless(self) -> bool {
        self == Era::Stateless
    }

    /// The era's name in reports and docs: `legacy` or `stateless`.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Stateless => "stateless",
        }
    }
}

impl std::fmt::Display for Era {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `_meta` keys of the stateless era.
pub mod meta {
    /// A request's protocol version.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// A request's client name and version.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// A request's client capabilities.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// A `server/discover` result's server name and version.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The subscription a message of a `subscriptions/listen` stream belongs to: the
    /// JSON-RPC id of that request (a request's own id, labelled as the request is).
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// Where a message names the subscription it belongs to: `_meta`'s
/// [`meta::SUBSCRIPTION_ID`] of its params (the acknowledgement, every notification of the
/// stream) or of its result (the `subscriptions/listen` answer that ends it).
pub fn subscription_id(message: &mut serde_json::Value) -> Option<&mut serde_json::Value> {
    let member = subscription_member(message)?;
    message
        .get_mut(member)?
        .get_mut("_meta")?
        .get_mut(meta::SUBSCRIPTION_ID)
}

/// The subscription a message names, read only ([`subscription_id`]).
pub fn subscription_of(message: &serde_json::Value) -> Option<&serde_json::Value> {
    message
        .get(subscription_member(message)?)?
        .get("_meta")?
        .get(meta::SUBSCRIPTION_ID)
}

/// The member (`params` or `result`) whose `_meta` names a subscription.
fn subscription_member(message: &serde_json::Value) -> Option<&'static str> {
    ["params", "result"].into_iter().find(|member| {
        message
            .get(member)
            .and_then(|m| m.get("_meta"))
            .is_some_and(|meta| meta.get(meta::SUBSCRIPTION_ID).is_some())
    })
}

/// The HTTP header names of Streamable HTTP (lower case, as HTTP/2 writes them).
pub mod header {
    /// The session id a legacy server issues on `initialize`.
    pub const SESSION_ID: &str = "mcp-session-id";
    /// The negotiated protocol version, on every request after `initialize`.
    pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    /// An SSE stream's resumption point.
    pub const LAST_EVENT_ID: &str = "last-event-id";
    /// From 2026-07-28 on: the request's method.
    pub const METHOD: &str = "mcp-method";
    /// From 2026-07-28 on: the tool, prompt or resource a request names.
    pub const NAME: &str = "mcp-name";
    /// From 2026-07-28 on: the prefix of a header that repeats one tool argument.
    pub const PARAM_PREFIX: &str = "mcp-param-";
}

/// The version a stateless request names in its `_meta`, if it names one.
pub fn request_version(message: &Value) -> Option<&str> {
    message
        .at(&["params", "_meta"])?
        .get(meta::PROTOCOL_VERSION)?
        .as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eras_by_version() {
        assert_eq!(Era::of_version("2024-11-05"), Era::Legacy);
        assert_eq!(Era::of_version(DEFAULT_PROTOCOL), Era::Legacy);
        assert_eq!(Era::of_version("2026-07-28"), Era::Stateless);
        assert_eq!(Era::of_version("2027-01-01"), Era::Stateless);
        assert_eq!(Era::Stateless.default_version(), "2026-07-28");
        assert_eq!(Era::Legacy.default_version(), "2025-11-25");
        assert_eq!(Era::Legacy.to_string(), "legacy");
    }

    #[test]
    fn the_version_a_request_names() {
        let call = serde_json::json!({"params": {"_meta": {meta::PROTOCOL_VERSION: "2026-07-28"}}});
        assert_eq!(request_version(&call), Some("2026-07-28"));
        assert_eq!(request_version(&serde_json::json!({"params": {}})), None);
    }
}
