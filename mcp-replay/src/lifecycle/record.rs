//! Turning a raw exchange (a live recording, an mcporter capture) into a fixture: ids and
//! progress tokens become labels, every message is normalized, and the result is checked
//! for secrets before anyone writes it.

use crate::data::fixture::{Direction, Fixture, MessageKind};
use crate::data::json::json_eq;
use crate::data::json::At;
use crate::error::Error;
use crate::rules::Rules;
use serde_json::{json, Value};

/// Builds a fixture from raw messages in the order they crossed the wire.
///
/// - Client request ids become `"<REQUEST_ID>"` when the exchange never has two client
///   requests in flight at once, else `"<REQUEST_ID:n>"` numbered by first use; server
///   request ids become `"<SERVER_REQUEST_ID:n>"`. Responses (and `notifications/cancelled`)
///   take the label of the request they name, per direction.
/// - Progress tokens become `"<PROGRESS_TOKEN>"` (or `"<PROGRESS_TOKEN:n>"` when there are
///   several), in the request and in the server's progress notifications alike.
/// - Client messages go through [`Rules::normalize_client`], server messages through
///   [`Rules::normalize_server`].
/// - Personal data (the categories in force, the values, patterns and selectors of the
///   rules) is written as pseudonyms numbered by first occurrence in the exchange
///   (`docs/normalization.md`, "Personal data").
///
/// Responses whose request is not in the exchange are kept with their id as written.
/// The result is not yet checked for secrets: [`write_fixture`](crate::lifecycle::update::write_fixture) and
/// [`Fixture::check_secrets`] do that.
pub fn fixture_from_exchange(
    messages: impl IntoIterator<Item = (Direction, Value)>,
    rules: &Rules,
    source: &str,
) -> Result<Fixture, Error> {
    let messages: Vec<(Direction, Value)> = messages.into_iter().collect();
    let newer = newer_revision(&messages);
    let pipelined = has_pipelined_client_requests(&messages);
    let mut labels = Labels {
        one_token: distinct_tokens(&messages) <= 1,
        ..Labels::default()
    };
    let mut out = Vec::with_capacity(messages.len());
    for (direction, mut message) in messages {
        let kind = MessageKind::of(&message).map_err(|m| Error::Parse {
            file: source.to_owned(),
            line: out.len() + 1,
            column: 1,
            message: m.into(),
        })?;
        let id = message.get("id").cloned();
        match (kind, id) {
            (MessageKind::Request, Some(id)) => {
                let label = labels.request(direction, &id, pipelined);
                message["id"] = label;
            }
            (MessageKind::Response, Some(id)) => {
                if let Some(label) = labels.response(direction, &id) {
                    message["id"] = label;
                }
            }
            _ => {}
        }
        labels.tokens_and_cancellations(direction, &mut message);
        out.push((direction, message));
    }
    // The protocol's handles before normalization: a UUID task id stays a handle.
    let (_, pinned) = rules.minted_and_pinned(&out);
    let mut found = crate::normalize::bound::label_handles(&mut out, &pinned);
    for (direction, message) in &mut out {
        match direction {
            Direction::ClientToServer => rules.normalize_client(message),
            Direction::ServerToClient => rules.normalize_server(message),
        }
    }
    let (bound, pinned) = rules.minted_and_pinned(&out);
    found.extend(crate::normalize::bound::label_minted(
        &mut out, &bound, &pinned,
    ));
    // Personal data last, numbered over the whole exchange: a value the server minted
    // and the client sent back is already bound.
    rules.pseudonymize_exchange(&mut out);
    let shapes = crate::normalize::shape::shapes_of(&found, &[], rules);
    let fixture = Fixture::empty(source)
        .with_messages(out)?
        .with_shapes(shapes)?;
    match newer {
        // Replayed in the revision it was recorded in, which the era's default is not.
        Some(version) => fixture.with_header_key("protocol", Value::String(version)),
        None => Ok(fixture),
    }
}

/// The version the client's requests name in their `_meta` when it is newer than every
/// revision whose schema this build holds: the normalizer writes it `<PROTOCOL_VERSION>`,
/// and a replay would speak the era's default in its place.
fn newer_revision(messages: &[(Direction, Value)]) -> Option<String> {
    let version = messages
        .iter()
        .filter(|(d, _)| *d == Direction::ClientToServer)
        .find_map(|(_, m)| crate::data::protocol::request_version(m))?;
    crate::analyses::validate::newer_than_schemas(version).map(|_| version.to_owned())
}

fn distinct_tokens(messages: &[(Direction, Value)]) -> usize {
    let mut seen: Vec<&Value> = Vec::new();
    for (_, m) in messages {
        if let Some(t) = m.at(&["params", "_meta", "progressToken"]) {
            if !seen.iter().any(|s| json_eq(s, t)) {
                seen.push(t);
            }
        }
    }
    seen.len()
}

fn has_pipelined_client_requests(messages: &[(Direction, Value)]) -> bool {
    let mut in_flight: Vec<&Value> = Vec::new();
    for (direction, m) in messages {
        let Some(id) = m.get("id") else { continue };
        match (direction, MessageKind::of(m)) {
            (Direction::ClientToServer, Ok(MessageKind::Request)) => {
                if !in_flight.is_empty() {
                    return true;
                }
                in_flight.push(id);
            }
            (Direction::ServerToClient, Ok(MessageKind::Response)) => {
                in_flight.retain(|x| !json_eq(x, id));
            }
            _ => {}
        }
    }
    false
}

#[derive(Default)]
struct Labels {
    /// (direction of the request, raw id, label), most recent last.
    requests: Vec<(Direction, Value, Value)>,
    client_count: usize,
    server_count: usize,
    /// (raw token, label)
    tokens: Vec<(Value, Value)>,
    /// The exchange has at most one progress token: label it `<PROGRESS_TOKEN>`.
    one_token: bool,
}

impl Labels {
    fn request(&mut self, direction: Direction, id: &Value, pipelined: bool) -> Value {
        let label = match direction {
            Direction::ClientToServer if !pipelined => json!("<REQUEST_ID>"),
            Direction::ClientToServer => {
                self.client_count += 1;
                json!(format!("<REQUEST_ID:{}>", self.client_count))
            }
            Direction::ServerToClient => {
                self.server_count += 1;
                json!(format!("<SERVER_REQUEST_ID:{}>", self.server_count))
            }
        };
        self.requests.push((direction, id.clone(), label.clone()));
        label
    }

    /// The label of the latest request sent in `direction` whose raw id is `id`.
    fn label_of(&self, direction: Direction, id: &Value) -> Option<Value> {
        self.requests
            .iter()
            .rev()
            .find(|(d, raw, _)| *d == direction && json_eq(raw, id))
            .map(|(_, _, label)| label.clone())
    }

    /// The label of the request a response (sent the other way) answers.
    fn response(&self, direction: Direction, id: &Value) -> Option<Value> {
        let requester = match direction {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
        };
        self.requests
            .iter()
            .rev()
            .find(|(d, raw, _)| *d == requester && json_eq(raw, id))
            .map(|(_, _, label)| label.clone())
    }

    fn token_label(&mut self, token: &Value) -> Value {
        if let Some((_, label)) = self.tokens.iter().find(|(raw, _)| json_eq(raw, token)) {
            return label.clone();
        }
        let label = if self.one_token {
            json!("<PROGRESS_TOKEN>")
        } else {
            json!(format!("<PROGRESS_TOKEN:{}>", self.tokens.len() + 1))
        };
        self.tokens.push((token.clone(), label.clone()));
        label
    }

    fn tokens_and_cancellations(&mut self, direction: Direction, message: &mut Value) {
        if let Some(token) = message.at(&["params", "_meta", "progressToken"]).cloned() {
            message["params"]["_meta"]["progressToken"] = self.token_label(&token);
        }
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        // Progress names its request's token; so may a message of a revision this build
        // does not know (`notifications/tools/progress`): a token a request carried is
        // labelled wherever a message's params name it.
        if let Some(token) = message.at(&["params", "progressToken"]).cloned() {
            let known = self.tokens.iter().any(|(raw, _)| json_eq(raw, &token));
            if known || method == "notifications/progress" {
                message["params"]["progressToken"] = self.token_label(&token);
            }
        }
        if direction == Direction::ServerToClient {
            // A subscription's id is its `subscriptions/listen` request's (the client's).
            if let Some(id) = crate::data::protocol::subscription_id(message) {
                if let Some(label) = self.label_of(Direction::ClientToServer, id) {
                    *id = label;
                }
            }
        }
        if method == "notifications/cancelled" {
            if let Some(id) = message.at(&["params", "requestId"]).cloned() {
                // A cancellation names a request sent the same way it travels.
                let requester = direction;
                let label = self
                    .requests
                    .iter()
                    .rev()
                    .find(|(d, raw, _)| *d == requester && json_eq(raw, &id))
                    .map(|(_, _, l)| l.clone());
                if let Some(label) = label {
                    message["params"]["requestId"] = label;
                }
            }
        }
    }
}

pub use crate::findings::stray::StrayLines;

/// The fixture header key that allows lines on stdio that are not JSON-RPC messages
/// (`"allow_stray_output": true`; see [`StrayLines`]).
pub const ALLOW_STRAY_OUTPUT: &str = "allow_stray_output";

#[cfg(test)]
mod should {
    use super::*;
    use serde_json::json;

    fn c(v: Value) -> (Direction, Value) {
        (Direction::ClientToServer, v)
    }
    fn s(v: Value) -> (Direction, Value) {
        (Direction::ServerToClient, v)
    }

    #[test]
    fn mask_a_secret_in_a_stray_line_before_cutting_it() {
        // A token across the cut at 100 characters: cut first, it would not be found.
        let token = ["ghp_", "a1B2c3D4e5F6g7H8i9J0", "kLmNoPqRsTuVwXyZ"].concat();
        let line = format!("{} {token} and more", "x".repeat(90));
        let mut stray = StrayLines::default();
        stray.push(line.as_bytes());
        let described = stray.describe("the server", "stdout").unwrap();
        assert!(!described.contains(&token[..8]), "{described}");
        assert!(described.contains(" ghp_…"), "{described}");
    }

    #[test]
    fn label_one_at_a_time_requests_with_the_seed_placeholder() {
        let f = fixture_from_exchange(
            [
                c(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})),
                s(json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": []}})),
                c(json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "x", "_meta": {"progressToken": 99}}})),
                s(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 99, "progress": 1}})),
                s(json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"})),
                c(json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": []}})),
                s(json!({"jsonrpc": "2.0", "id": 8, "result": {"content": [], "isError": false}})),
            ],
            &Rules::default(),
            "capture",
        )
        .unwrap();
        let ids: Vec<Value> = f
            .entries()
            .iter()
            .map(|e| e.message().get("id").cloned().unwrap_or(Value::Null))
            .collect();
        assert_eq!(
            ids,
            [
                json!("<REQUEST_ID>"),
                json!("<REQUEST_ID>"),
                json!("<REQUEST_ID>"),
                Value::Null,
                json!("<SERVER_REQUEST_ID:1>"),
                json!("<SERVER_REQUEST_ID:1>"),
                json!("<REQUEST_ID>")
            ]
        );
        assert_eq!(
            f.entries()[2].message()["params"]["_meta"]["progressToken"],
            "<PROGRESS_TOKEN>"
        );
        assert_eq!(
            f.entries()[3].message()["params"]["progressToken"],
            "<PROGRESS_TOKEN>"
        );
        assert_eq!(f.entries()[6].message()["result"], json!({"content": []}));
        assert_eq!(f.entries()[5].answers(), Some(4));
    }

    #[test]
    fn number_labels_when_requests_overlap_and_map_cancellations() {
        let f = fixture_from_exchange(
            [
                c(json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "slow"}})),
                c(json!({"jsonrpc": "2.0", "id": "b", "method": "tools/call", "params": {"name": "fast"}})),
                s(json!({"jsonrpc": "2.0", "id": "b", "result": {}})),
                c(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}})),
            ],
            &Rules::default(),
            "capture",
        )
        .unwrap();
        assert_eq!(f.entries()[0].message()["id"], "<REQUEST_ID:1>");
        assert_eq!(f.entries()[2].message()["id"], "<REQUEST_ID:2>");
        assert_eq!(
            f.entries()[3].message()["params"]["requestId"],
            "<REQUEST_ID:1>"
        );
    }
}
