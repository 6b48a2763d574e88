//! What the harness sends: a fixture's client message with live ids, the session's
//! identity and the server's `requestState` filled in, written as one flushed line.

use super::describe::{describe_message, describe_request};
use super::session::{Rec, Session, What};
use crate::data::fixture::{Direction, MessageKind};
use crate::data::json::json_eq;
use crate::data::json::At;
use crate::findings::report::{Mismatch, MismatchKind};
use crate::normalize::fast::HEAD;
use serde_json::{json, Value};

impl Session<'_> {
    /// Sends fixture entry `index`, ids substituted with live ones.
    pub(super) fn send(&mut self, index: usize) {
        let fixture = self.fixture;
        let entry = &fixture.entries()[index];
        self.clock.sent();
        let live = (entry.kind() == MessageKind::Request)
            .then(|| self.ledger.send(index, self.clock.seq()));
        if let Some(run) = self.polls.run_of(index) {
            self.polls.begin(run);
        }
        self.record_sent(index);
        self.expected.sent(entry);
        self.trace.sent(entry, live);
        let what = What::Entry(index);
        let mut bytes = self.outbox.buffer();
        if self.verbatim(index, live, &mut bytes) {
            self.write_bytes(bytes, Some(entry.line()), what);
            return;
        }
        self.outbox.give_back(bytes);
        let mut message = entry.message();
        match entry.kind() {
            MessageKind::Request => {
                if let Some(live) = live {
                    message["id"] = json!(live);
                }
            }
            MessageKind::Response => {
                let request = entry
                    .answers()
                    .expect("responses are correlated at parse time");
                match self.requests.live.get(&request) {
                    Some(live) => message["id"] = live.clone(),
                    // The server request never came: that is already a finding.
                    None => return,
                }
                self.answer_with_handler(index, request, &mut message);
            }
            MessageKind::Notification => {
                if entry.method() == Some("notifications/cancelled") {
                    self.cancel(index, &mut message);
                }
            }
        }
        self.fill_in(index, &mut message);
        self.write(&message, Some(entry.line()), what);
    }

    /// Keeps what was sent of entry `index` in the recording (normalized once a recording
    /// is made, `conclude.rs`).
    fn record_sent(&mut self, index: usize) {
        let entry = &self.fixture.entries()[index];
        if let Some(recording) = &mut self.recording {
            recording.push((self.clock.seq(), Rec::Sent(entry)));
        }
    }

    /// Fills in what the session knows and the fixture has as a placeholder: the server's
    /// `requestState`, the harness's identity, the folders.
    fn fill_in(&mut self, index: usize, message: &mut Value) {
        let fixture = self.fixture;
        let entry = &fixture.entries()[index];
        if self.script.named[index] {
            // One the server has not sent is the client's own: sent as written.
            self.pseudonyms.substitute(message);
        }
        if self.script.bound[index] {
            let mut unbound = self.bindings.substitute(message);
            if !unbound.is_empty() && self.script.client_first {
                unbound.retain(|placeholder| !self.bind_from_answer(placeholder, entry.line()));
                let _ = self.bindings.substitute(message);
            }
            for placeholder in unbound {
                self.fail(
                    Mismatch::new(
                        MismatchKind::Missing,
                        Some(entry.line()),
                        format!(
                            "line {} sends {placeholder}, a value the server mints, but the \
                             server has not sent it before this line (a bound placeholder: \
                             docs/fixture-format.md); it was sent as written",
                            entry.line()
                        ),
                    )
                    .request(entry)
                    .unbound(&placeholder)
                    .unrecordable(PLACEHOLDER_SENT),
                );
            }
        }
        if let Some(state) = message
            .get_mut("params")
            .and_then(|p| p.get_mut("requestState"))
        {
            if state
                .as_str()
                .is_some_and(|s| s.starts_with("<REQUEST_STATE"))
            {
                if let Some(live) = &self.last_request_state {
                    *state = live.clone();
                }
            }
        }
        if self.settings.era.is_stateless() && entry.kind() == MessageKind::Request {
            add_identity_meta(message);
        }
        self.fill_identity(message);
        fill_trace(message, self.clock.seq());
        if crate::normalize::FOLDER_PLACEHOLDERS
            .iter()
            .any(|p| entry.text().contains(p))
        {
            self.settings.rules.expand_paths(message);
            for (placeholder, folder) in self.settings.rules.folders_in(entry.text()) {
                self.trace.line(format_args!("   {placeholder} = {folder}"));
                if !self.folders.iter().any(|(p, _)| *p == placeholder) {
                    self.folders.push((placeholder, folder.to_owned()));
                }
            }
        }
    }

    /// Puts the line to send for `entry` into `out` straight from the fixture's text, with
    /// the live id spliced in for a request, when nothing else in it is to be replaced:
    /// `false` (and `out` unusable) when the message must be parsed and edited instead.
    pub(super) fn verbatim(&self, index: usize, live: Option<i64>, out: &mut Vec<u8>) -> bool {
        let entry = &self.fixture.entries()[index];
        let text = entry.text();
        let plain = match entry.kind() {
            MessageKind::Request => !self.settings.era.is_stateless(),
            MessageKind::Notification => entry.method() != Some("notifications/cancelled"),
            MessageKind::Response => false,
        };
        if !plain || self.script.filled[index] {
            return false;
        }
        out.clear();
        let Some(live) = live else {
            out.extend_from_slice(text.as_bytes());
            return true;
        };
        let Some(rest) = text
            .strip_prefix(HEAD)
            .and_then(|rest| strip_json(rest, entry.id().unwrap_or(&Value::Null)))
        else {
            return false;
        };
        out.extend_from_slice(HEAD.as_bytes());
        out.extend_from_slice(itoa::Buffer::new().format(live).as_bytes());
        out.extend_from_slice(rest.as_bytes());
        true
    }

    /// A client `notifications/cancelled` names the request by its fixture label: send the
    /// live id, and stop waiting for that request's answer (a server may still answer a
    /// cancelled request; such an answer is ignored unless the fixture expects one).
    pub(super) fn cancel(&mut self, index: usize, message: &mut Value) {
        let Some(target) = super::causal::cancelled_request(self.fixture.entries(), index) else {
            return;
        };
        let Some(live) = self.ledger.live(target) else {
            return;
        };
        message["params"]["requestId"] = json!(live);
        let awaited = self.script.response_of_request.contains_key(&target);
        self.ledger.cancel(live, awaited);
    }

    /// With a caller-supplied handler, the handler answers a server request instead of
    /// the recording; a different answer is a finding.
    pub(super) fn answer_with_handler(
        &mut self,
        index: usize,
        request: usize,
        message: &mut Value,
    ) {
        let Some(handler) = self.settings.handler.as_ref() else {
            return;
        };
        let Some(actual_request) = self.requests.seen.get(&request) else {
            return;
        };
        let Some(answer) = handler.call(actual_request) else {
            return;
        };
        let entry = &self.fixture.entries()[index];
        let mut recorded = entry.message();
        self.settings.rules.normalize_client(&mut recorded);
        let mut ours = json!({"jsonrpc": "2.0", "id": entry.id().cloned().unwrap_or(Value::Null), "result": answer});
        self.settings.rules.normalize_client(&mut ours);
        if !json_eq(&recorded, &ours) {
            self.fail(
                Mismatch::new(
                    MismatchKind::Result,
                    Some(entry.line()),
                    format!(
                        "the handler answered {} differently from the recording",
                        describe_request(&self.fixture.entries()[request])
                    ),
                )
                .compare(&recorded, &ours),
            );
        }
        message["result"] = ours["result"].take();
        message.as_object_mut().map(|m| m.remove("error"));
    }

    /// The harness's own identity where a recorded client message has the
    /// `client-identity` placeholders (`<CLIENT_INFO>`, `<PROTOCOL_VERSION>`,
    /// `<CLIENT_CAPABILITIES>`).
    pub(super) fn fill_identity(&self, message: &mut Value) {
        let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else {
            return;
        };
        let fill = |v: &mut Value, this: &Self| {
            *v = match v.as_str() {
                Some("<CLIENT_INFO>") => this.client_info(),
                Some("<PROTOCOL_VERSION>") => json!(this.protocol()),
                Some("<CLIENT_CAPABILITIES>") => this.client_capabilities(),
                _ => return,
            }
        };
        for key in ["clientInfo", "protocolVersion", "capabilities"] {
            if let Some(v) = params.get_mut(key) {
                fill(v, self);
            }
        }
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
            for (key, _) in crate::normalize::IDENTITY_META {
                if let Some(v) = meta.get_mut(key) {
                    fill(v, self);
                }
            }
        }
    }

    /// The protocol version the harness speaks (the settings resolved it: an option, the
    /// header's, else the era's default).
    pub(super) fn protocol(&self) -> &str {
        &self.settings.protocol
    }

    pub(super) fn client_info(&self) -> Value {
        json!({"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")})
    }

    /// The capabilities the fixture's client declared in its `initialize`, if it has one
    /// (its tasks, its extensions), and what the fixture's server requests need
    /// (`sampling`, `elicitation`, `roots`).
    pub(super) fn client_capabilities(&self) -> Value {
        let mut capabilities = self
            .fixture
            .entries()
            .iter()
            .find(|e| {
                e.direction() == Direction::ClientToServer && e.method() == Some("initialize")
            })
            .and_then(|e| e.message().at(&["params", "capabilities"]).cloned())
            .and_then(|c| match c {
                Value::Object(map) => Some(map),
                _ => None,
            })
            .unwrap_or_default();
        for entry in self.fixture.entries() {
            if entry.direction() == Direction::ServerToClient
                && entry.kind() == MessageKind::Request
            {
                let capability = match entry.method() {
                    Some("sampling/createMessage") => "sampling",
                    Some("elicitation/create") => "elicitation",
                    Some("roots/list") => "roots",
                    _ => continue,
                };
                capabilities.entry(capability).or_insert_with(|| json!({}));
            }
        }
        Value::Object(capabilities)
    }

    /// Refuses a server request the fixture does not expect (JSON-RPC error -32601), so
    /// that a server waiting for its answer does not hang.
    pub(super) fn refuse(&mut self, request: &Value) {
        let refusal = json!({
            "jsonrpc": "2.0",
            "id": request["id"],
            "error": {"code": -32601, "message": "mcp-replay: the fixture does not expect this request"}
        });
        let what = What::Text(format!("the refusal of {}", describe_message(request)));
        self.write(&refusal, None, what);
    }
}

/// `text` without the canonical JSON of `value` at its start, if it starts with that.
pub(crate) fn strip_json<'t>(text: &'t str, value: &Value) -> Option<&'t str> {
    match value {
        // The request id's placeholder, the commonest id, is known to need no escaping.
        Value::String(s)
            if s == crate::data::fixture::REQUEST_ID || !crate::data::json::needs_escape(s) =>
        {
            text.strip_prefix('"')?
                .strip_prefix(s.as_str())?
                .strip_prefix('"')
        }
        other => {
            let mut token = String::new();
            crate::data::json::write_canonical(&mut token, other);
            text.strip_prefix(token.as_str())
        }
    }
}

/// The `trace-context` placeholders of a client line's `params._meta` or `result._meta`:
/// `<TRACEPARENT>` becomes a fresh, valid W3C `traceparent` (its trace id ends in `seq`,
/// the line's place in the session, so each line starts its own trace, as a traced client's
/// do); `<TRACESTATE>` and `<BAGGAGE>` are left out (both optional, and a recorded one
/// belongs to the recording's trace).
fn fill_trace(message: &mut Value, seq: u64) {
    for member in ["params", "result"] {
        let Some(meta) = message
            .get_mut(member)
            .and_then(|m| m.get_mut("_meta"))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        for (key, placeholder) in crate::normalize::TRACE_META {
            if meta.get(key).and_then(Value::as_str) != Some(placeholder) {
                continue;
            }
            if key == "traceparent" {
                meta[key] = json!(format!("00-6d63702d7265706c{seq:016x}-{seq:016x}-01"));
            } else {
                meta.remove(key);
            }
        }
    }
}

/// Adds the stateless era's identity keys a hand-written request omits, as placeholders
/// that [`Session::fill_identity`] then fills.
fn add_identity_meta(message: &mut Value) {
    let Some(obj) = message.as_object_mut() else {
        return;
    };
    let params = obj.entry("params").or_insert_with(|| json!({}));
    let Some(params) = params.as_object_mut() else {
        return;
    };
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        for (key, placeholder) in crate::normalize::IDENTITY_META {
            meta.entry(key).or_insert_with(|| json!(placeholder));
        }
    }
}

impl Session<'_> {
    /// Binds `placeholder`, which client line `line` sends before any server line has it,
    /// to the value the answer before it minted: a string the rules' `bind` selectors
    /// match there, else the first new string under a key named `id` (or ending in it) of
    /// its `structuredContent`, else the first new id-like token (a digit, six characters
    /// or more) of its text. Whether one was found; the trace names it.
    fn bind_from_answer(&mut self, placeholder: &str, line: usize) -> bool {
        let Some(answer) = self.last_answer.as_ref() else {
            return false;
        };
        let taken = |v: &str| self.bindings.is_live(v);
        let by_rule = {
            let (bound, _) = self
                .settings
                .rules
                .minted_and_pinned(&[(Direction::ServerToClient, answer.clone())]);
            bound.into_iter().find(|v| !taken(v))
        };
        let found = by_rule
            .or_else(|| id_in(answer.pointer("/result/structuredContent"), &taken))
            .or_else(|| token_in(answer.pointer("/result/content"), &taken));
        let Some(value) = found else {
            return false;
        };
        if self.trace.on() {
            self.trace.line(format_args!(
                "   {placeholder} of line {line} bound to {value:?}, minted in the answer before it"
            ));
        }
        self.bindings.bind(placeholder, value);
        true
    }
}

/// The first string under a key `id` (or ending in `id`/`Id`) in `value`, not `taken`.
fn id_in(value: Option<&Value>, taken: &dyn Fn(&str) -> bool) -> Option<String> {
    match value? {
        Value::Object(map) => {
            let members = crate::data::json::members(map);
            let named = members.iter().find_map(|(k, v)| {
                let id = *k == "id" || k.ends_with("Id") || k.ends_with("_id");
                v.as_str().filter(|s| id && !s.is_empty() && !taken(s))
            });
            named
                .map(str::to_owned)
                .or_else(|| members.iter().find_map(|(_, v)| id_in(Some(v), taken)))
        }
        Value::Array(items) => items.iter().find_map(|v| id_in(Some(v), taken)),
        _ => None,
    }
}

/// The first token of six characters or more with a digit in the texts of `content`, not
/// `taken`.
fn token_in(content: Option<&Value>, taken: &dyn Fn(&str) -> bool) -> Option<String> {
    content?
        .as_array()?
        .iter()
        .filter_map(|block| block.get("text")?.as_str())
        .flat_map(crate::normalize::bound::tokens)
        .map(|t| t.trim_end_matches('.'))
        .find(|t| t.len() >= 6 && t.bytes().any(|b| b.is_ascii_digit()) && !taken(t))
        .map(str::to_owned)
}

/// Why a session that sent a bound placeholder as written is not re-recorded.
const PLACEHOLDER_SENT: &str = "a client line sent a placeholder of a value the server \
     mints before any server line bound it, so the server got the placeholder itself and \
     its answer to it would be recorded. Bind the value where the server sends it (a \
     \"bind\" selector in the header or the rules file, docs/fixture-format.md), or give \
     the client line the value.";
