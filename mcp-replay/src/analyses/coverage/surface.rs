//! What a server advertises ([`Surface`]) and how it is asked: the probe fixtures (the
//! handshake, every listing page by page) and the client capabilities that make a server
//! show all it has.

use super::*;

/// What a server advertises.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Surface {
    /// The capabilities it declares, as dotted paths: `tools`, `resources.subscribe`,
    /// `logging`, ... (a member set to `false` is left out).
    pub capabilities: BTreeSet<String>,
    /// Its tools, in the order listed.
    pub tools: Vec<Item>,
    /// Its prompts.
    pub prompts: Vec<Item>,
    /// Its resources (URIs).
    pub resources: Vec<String>,
    /// Its resource templates (`uriTemplate`s).
    pub templates: Vec<String>,
    /// The listing methods whose last answer had a `nextCursor`: the pages after it are
    /// not known.
    pub truncated: BTreeSet<String>,
}

/// The listing methods, with the key of their items.
const LISTINGS: [(&str, &str); 4] = [
    ("tools/list", "tools"),
    ("prompts/list", "prompts"),
    ("resources/list", "resources"),
    ("resources/templates/list", "resourceTemplates"),
];

/// At most this many pages of one listing are asked for.
pub const MAX_PAGES: usize = 100;

/// A tool or prompt and its arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Item {
    /// Its name.
    pub name: String,
    /// The arguments it requires.
    pub required: Vec<String>,
    /// The arguments it takes but does not require.
    pub optional: Vec<String>,
}

impl Surface {
    /// The surface the responses in `fixtures` show: the capabilities of `initialize` or
    /// `server/discover`, and every listing's items (each name once, first seen first).
    pub fn of(fixtures: &[&Fixture]) -> Surface {
        let mut surface = Surface::default();
        for fixture in fixtures {
            let entries = fixture.entries();
            for e in entries {
                let Some(request) = e.answers() else {
                    continue;
                };
                if e.direction() != Direction::ServerToClient {
                    continue;
                }
                let Some(method) = entries[request].method() else {
                    continue;
                };
                let message = e.message();
                if let Some(result) = message.get("result") {
                    surface.take(method, result);
                }
            }
        }
        surface
    }

    fn take(&mut self, method: &str, result: &Value) {
        let list = |key: &str| result.get(key).and_then(Value::as_array).cloned();
        match method {
            "initialize" | "server/discover" => {
                if let Some(caps) = result.get("capabilities") {
                    capability_paths(caps, "", &mut self.capabilities);
                }
            }
            "tools/list" => {
                for tool in list("tools").unwrap_or_default() {
                    let schema = tool.get("inputSchema");
                    let required = strings(schema.and_then(|s| s.get("required")));
                    let properties: Vec<String> = schema
                        .and_then(|s| s.get("properties"))
                        .and_then(Value::as_object)
                        .map(|p| p.keys().cloned().collect())
                        .unwrap_or_default();
                    push_item(&mut self.tools, &tool, required, properties);
                }
            }
            "prompts/list" => {
                for prompt in list("prompts").unwrap_or_default() {
                    let arguments = prompt
                        .get("arguments")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    let name_of =
                        |a: &Value| a.get("name").and_then(Value::as_str).map(str::to_owned);
                    let required = arguments
                        .iter()
                        .filter(|a| a.get("required") == Some(&Value::Bool(true)))
                        .filter_map(name_of)
                        .collect();
                    let all = arguments.iter().filter_map(name_of).collect();
                    push_item(&mut self.prompts, &prompt, required, all);
                }
            }
            "resources/list" => {
                for r in list("resources").unwrap_or_default() {
                    push_unique(&mut self.resources, r.get("uri"));
                }
            }
            "resources/templates/list" => {
                for t in list("resourceTemplates").unwrap_or_default() {
                    push_unique(&mut self.templates, t.get("uriTemplate"));
                }
            }
            _ => return,
        }
        if result.get("nextCursor").is_some_and(|c| !c.is_null()) {
            self.truncated.insert(method.to_owned());
        } else {
            self.truncated.remove(method);
        }
    }
}

/// The client messages that ask a server for its surface in `era`: the handshake (or
/// `server/discover`) and the four listings, without answers. Replayed against a server
/// (with re-recording, so that [`Report::recorded`](crate::Report::recorded) holds the
/// answers), then read with [`Surface::of`]. A listing the server does not serve is
/// answered with an error, which the surface leaves out.
///
/// `capabilities` are the client capabilities it declares: a server may advertise some
/// tools only to a client that can answer their requests (server-everything lists
/// `trigger-sampling-request` to a client with `sampling`). [`client_capabilities`] gives
/// what the fixtures' clients declared.
pub fn probe(era: Era, capabilities: &Value) -> Fixture {
    let request = |method: &str, params: Value| {
        json!({"direction": "client->server", "message":
            {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": method, "params": params}})
    };
    let mut lines = Vec::new();
    match era {
        Era::Legacy => {
            lines.push(request(
                "initialize",
                json!({"protocolVersion": DEFAULT_PROTOCOL, "capabilities": capabilities,
                       "clientInfo": {"name": "mcp-replay-coverage", "version": env!("CARGO_PKG_VERSION")}}),
            ));
            lines.push(json!({"direction": "client->server", "message":
                {"jsonrpc": "2.0", "method": "notifications/initialized"}}));
        }
        Era::Stateless => lines.push(request(
            "server/discover",
            json!({"_meta": {crate::data::protocol::meta::CLIENT_CAPABILITIES: capabilities}}),
        )),
    }
    for (method, _) in LISTINGS {
        lines.push(request(method, json!({})));
    }
    let mut text = String::new();
    if era.is_stateless() {
        text.push_str(&format!(
            "{{\"mcp_replay\":1,\"protocol\":\"{STATELESS_PROTOCOL}\"}}\n"
        ));
    }
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    Fixture::parse_named(&text, "<coverage probe>").expect("the probe is a valid fixture")
}

/// The probe after `recorded`, the re-recording of the previous one ([`probe`] first):
/// `recorded` again, and a request for the next page of each listing whose last answer
/// had a `nextCursor`, its cursor the bound placeholder that answer holds (so the replay
/// sends the cursor the server gave in the same run). `None` when every listing is
/// complete, or has had [`MAX_PAGES`] pages.
///
/// ```
/// use mcp_replay::_support::coverage::probe_next;
/// use mcp_replay::Fixture;
///
/// let first = Fixture::parse(concat!(
///     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list","params":{}}}"#, "\n",
///     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[],"nextCursor":"<CURSOR:1>"}}}"#, "\n",
/// )).unwrap();
/// let next = probe_next(&first).unwrap();
/// let last = next.to_jsonl().lines().last().unwrap().to_owned();
/// assert!(last.ends_with(r#""method":"tools/list","params":{"cursor":"<CURSOR:1>"}}}"#));
/// ```
pub fn probe_next(recorded: &Fixture) -> Option<Fixture> {
    let entries = recorded.entries();
    let mut more = Vec::new();
    for (method, _) in LISTINGS {
        let answers: Vec<Value> = entries
            .iter()
            .filter(|e| e.direction() == Direction::ServerToClient)
            .filter(|e| e.answers().and_then(|r| entries[r].method()) == Some(method))
            .map(|e| e.message())
            .collect();
        let cursor = answers.last().and_then(|m| m.at(&["result", "nextCursor"]));
        if let Some(cursor) = cursor.filter(|c| !c.is_null()) {
            if answers.len() < MAX_PAGES {
                more.push(
                    json!({"direction": "client->server", "message": {"jsonrpc": "2.0",
                    "id": "<REQUEST_ID>", "method": method, "params": {"cursor": cursor}}}),
                );
            }
        }
    }
    if more.is_empty() {
        return None;
    }
    let mut text = recorded.to_jsonl();
    for line in more {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    Fixture::parse_named(&text, "<coverage probe>").ok()
}

/// Every client capability the `initialize` requests (or a stateless request's `_meta`)
/// of `fixtures` declare, merged: what [`probe`] should declare to see what their servers
/// saw.
pub fn client_capabilities(fixtures: &[&Fixture]) -> Value {
    let mut merged = Value::Object(Default::default());
    for fixture in fixtures {
        for e in fixture.entries() {
            if e.direction() != Direction::ClientToServer || e.kind() != MessageKind::Request {
                continue;
            }
            let message = e.message();
            let declared = match e.method() {
                Some("initialize") => message.at(&["params", "capabilities"]),
                _ => message
                    .at(&["params", "_meta"])
                    .and_then(|m| m.get(crate::data::protocol::meta::CLIENT_CAPABILITIES)),
            };
            if let Some(declared) = declared.filter(|d| d.is_object()) {
                merge(&mut merged, declared);
            }
        }
    }
    merged
}

/// `from`'s members into `into`, objects merged member by member.
fn merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                match into.get_mut(key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        into.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (slot, value) if slot.is_null() => *slot = value.clone(),
        _ => {}
    }
}
