//! Bound placeholders: values the server mints and the client sends back (a task id, a
//! pagination cursor, the id of something a tool created). A fixture cannot pin them, as
//! they are new in every run, and cannot blank them either, as the client must send the
//! live value back. So each distinct one is written `<TASK_ID:n>`, `<CURSOR:n>` or
//! `<MINTED:n>` at every place it occurs (inside strings too: `"created <MINTED:1>"`), and a
//! replay binds it to the live value where the server first sends it (`replay/bind.rs`).
//!
//! This file finds them when a fixture is written ([`label_minted`]): the protocol's own
//! handles by key, anything else by use (a string the server sent first and the client
//! later sent back).

use crate::data::message::Direction;
use serde_json::Value;

/// The bound placeholders' names, and the keys that name each by the protocol.
pub(crate) const KINDS: [(&str, &[&str]); 4] = [
    ("TASK_ID", &["taskId"]),
    ("CURSOR", &["nextCursor", "cursor"]),
    // The opaque state of an `input_required` result, which the client's retry sends back
    // (protocol 2026-07-28's multi-round-trip requests).
    ("REQUEST_STATE", &["requestState"]),
    // A URL elicitation's id (the server's `elicitation/create`, then its
    // `notifications/elicitation/complete`). (A 2026-07-28 subscription's id is not one:
    // it is the `subscriptions/listen` request's own id, labelled as that request is.)
    ("MINTED", &["elicitationId"]),
];

/// A value found by use must be at least this long: shorter strings (`"ok"`, `"user"`,
/// `"1"`) are too likely to be the same by chance.
pub(crate) const MIN_MINTED: usize = 8;

/// The starts of the bound placeholders, as they are written.
pub(crate) const STARTS: [&str; KINDS.len()] =
    ["<TASK_ID:", "<CURSOR:", "<REQUEST_STATE:", "<MINTED:"];

/// Does `text` hold a bound placeholder (`<TASK_ID:`, `<CURSOR:` or `<MINTED:`)?
pub(crate) fn has_bound(text: &str) -> bool {
    // One pass over the text: most lines hold other placeholders (`<REQUEST_ID>`) only.
    crate::normalize::starts_any(text, &STARTS)
}

/// What the mock gives a client for a bound placeholder: a fixed value, the same in every
/// run (`<CURSOR:2>` is `mcp-replay-cursor-2`), bound to it in the mock's
/// [`Bindings`](crate::normalize::bind::Bindings), which take the client's echo back.
pub(crate) fn served(s: &str) -> Option<String> {
    let found = bound_in(s);
    if found.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut at = 0;
    for (start, end) in found {
        out.push_str(&s[at..start]);
        let (name, n) = s[start + 1..end - 1]
            .split_once(':')
            .expect("a bound placeholder");
        out.push_str("mcp-replay-");
        out.push_str(&name.to_ascii_lowercase().replace('_', "-"));
        out.push('-');
        out.push_str(n);
        at = end;
    }
    out.push_str(&s[at..]);
    Some(out)
}

/// The bound placeholders in `s`, in order: `(start, end)` byte ranges.
pub(crate) fn bound_in(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, _) in s.match_indices('<') {
        let rest = &s[i + 1..];
        let Some((name, _)) = KINDS
            .iter()
            .find(|(name, _)| rest.starts_with(name) && rest[name.len()..].starts_with(':'))
        else {
            continue;
        };
        let digits = &rest[name.len() + 1..];
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        if n > 0 && digits[n..].starts_with('>') {
            out.push((i, i + 1 + name.len() + 1 + n + 1));
        }
    }
    out
}

/// Writes each value that stands under one of the protocol's handle keys (`taskId`,
/// `nextCursor`, `cursor`) as its bound placeholder, everywhere in `messages`, *before* they
/// are normalized: a handle is a value to send back, even when it looks like something the
/// normalizer would blank (an rmcp task id is a UUID, which would become `<UUID>` and could
/// no longer be sent back). Numbered by first appearance, on either side (a task the client
/// runs for the server has the client's id). `pinned`: values rules keep as they are.
/// Returns what it replaced, `(value, placeholder)` each, for their shapes
/// (`normalize/shape.rs`).
pub(crate) fn label_handles(
    messages: &mut [(Direction, Value)],
    pinned: &[String],
) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    // After the placeholders the messages hold already (a re-recording's new page
    // after the fixture's `<CURSOR:1>` is `<CURSOR:2>`).
    let mut counts = taken(messages);
    // Values the server sent: one only a client sent is the client's own (a retry's
    // `requestState` it made up), sent as it was, never bound to the server's; so is one
    // a client request sent before the server ever did (a task id the client names, which
    // the server echoes). One the client's answer sent first it minted (a task it runs
    // for the server), and both sides' players bind it (`Bindings::minted_by`).
    let mut client_said: Vec<String> = Vec::new();
    for (direction, message) in messages.iter() {
        let mut strings = Vec::new();
        strings_of(message, None, &mut strings);
        if *direction == Direction::ClientToServer {
            if message.get("method").is_some() {
                client_said.extend(strings.into_iter().map(|(_, value)| value));
            }
            continue;
        }
        for (key, value) in strings {
            let Some(kind) = key
                .as_deref()
                .and_then(|k| KINDS.iter().position(|(_, keys)| keys.contains(&k)))
            else {
                continue;
            };
            // One the fixture wrote already is wholly its placeholder (`<CURSOR:1>`); a
            // live handle that merely holds text like one (`p<QD:3>`) is bound all the same.
            if value.is_empty()
                || super::placeholder::is_placeholder(&value)
                || pinned.contains(&value)
                || client_said.contains(&value)
                || found.iter().any(|(v, _)| *v == value)
            {
                continue;
            }
            counts[kind] += 1;
            found.push((value, format!("<{}:{}>", KINDS[kind].0, counts[kind])));
        }
    }
    if found.is_empty() {
        return found;
    }
    found.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
    for (_, message) in messages.iter_mut() {
        replace_all(message, &found);
    }
    found
}

/// The highest number of each kind of bound placeholder in `messages` (0: none).
fn taken(messages: &[(Direction, Value)]) -> [usize; KINDS.len()] {
    let mut taken = [0usize; KINDS.len()];
    for (_, message) in messages.iter() {
        let text = message.to_string();
        if !has_bound(&text) {
            continue;
        }
        for (start, end) in bound_in(&text) {
            let (name, n) = text[start + 1..end - 1]
                .split_once(':')
                .expect("a bound placeholder");
            if let (Some(kind), Ok(n)) = (
                KINDS.iter().position(|(k, _)| *k == name),
                n.parse::<usize>(),
            ) {
                taken[kind] = taken[kind].max(n);
            }
        }
    }
    taken
}

/// Writes each value the server minted as a bound placeholder, everywhere in `messages`
/// (normalized already, in exchange order): the values of the protocol's handle keys
/// (`taskId`: `<TASK_ID:n>`, `nextCursor`/`cursor`: `<CURSOR:n>`), any other string of
/// [`MIN_MINTED`] characters or more that first appears in a server message and later in a
/// client message (`<MINTED:n>`), and the other strings the server sent under the key such
/// a value stood under (the ids of the other notes it created). Numbered by first
/// appearance; deterministic.
///
/// `bound` and `pinned`: the strings rules name as minted, or as not
/// ([`Rules::bind`](crate::Rules::bind), [`Rules::pin`](crate::Rules::pin)). Returns what
/// it replaced, `(value, placeholder)` each.
pub(crate) fn label_minted(
    messages: &mut [(Direction, Value)],
    bound: &[String],
    pinned: &[String],
) -> Vec<(String, String)> {
    let mut found = minted(messages, bound, pinned);
    if found.is_empty() {
        return found;
    }
    // After the handles `label_handles` numbered, by kind.
    let taken = taken(messages);
    if taken.iter().any(|&n| n > 0) {
        for (_, placeholder) in &mut found {
            let (name, n) = placeholder[1..placeholder.len() - 1]
                .split_once(':')
                .expect("ours");
            let kind = KINDS.iter().position(|(k, _)| *k == name).expect("ours");
            let n: usize = n.parse().expect("ours");
            *placeholder = format!("<{name}:{}>", n + taken[kind]);
        }
    }
    for (_, message) in messages.iter_mut() {
        replace_all(message, &found);
    }
    found
}

/// The values to bind, with their placeholders, longest value first (so that one value
/// inside another is replaced after it).
fn minted(
    messages: &[(Direction, Value)],
    bound: &[String],
    pinned: &[String],
) -> Vec<(String, String)> {
    let seen = Sightings::of(messages, bound);
    let mut out = seen.placeholders(bound, pinned);
    out.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
    out
}

/// Which strings of an exchange the server sent first, and which of those the client sent
/// back: what [`minted`] decides from.
struct Sightings {
    /// Each string the server sent before the client did, with the key it stood under when
    /// the server first sent it, in order of first appearance.
    from_server: Vec<(String, Option<String>)>,
    /// The values of `from_server` that a client message later carries.
    echoed: Vec<String>,
}

impl Sightings {
    /// Reads `messages` in exchange order. A client's answer to a server request is left
    /// out, and so is what a listing of the server (its tools' names, its resources' URIs)
    /// says under keys that are no handle, unless a rule binds it.
    fn of(messages: &[(Direction, Value)], bound: &[String]) -> Sightings {
        let mut seen = Sightings {
            from_server: Vec::new(),
            echoed: Vec::new(),
        };
        let mut client_first: Vec<String> = Vec::new();
        for (direction, message) in messages {
            // A client's answer to a server request answers it (an elicitation's default,
            // taken as it was offered): what it repeats is not a handle passed back.
            if *direction == Direction::ClientToServer && message.get("method").is_none() {
                continue;
            }
            let mut strings = Vec::new();
            strings_of(message, None, &mut strings);
            let listing = *direction == Direction::ServerToClient && describes_the_server(message);
            for (key, s) in strings {
                if super::placeholder::contains_placeholder(&s) {
                    continue;
                }
                // What the server says it is and offers (its tools' names, its resources'
                // URIs) is its contract, not a value it minted: only its handles are bound.
                // (A value a rule names is bound wherever it stands.)
                if listing && !key.as_deref().is_some_and(is_handle_key) && !bound.contains(&s) {
                    continue;
                }
                seen.note(*direction, key, s, &mut client_first);
            }
        }
        seen.parts();
        seen.rule_parts(bound);
        seen
    }

    /// A value a rule names may stand inside a server string rather than be one (an id
    /// that differs between two runs, inside `"created at-5caaf2fb"`): it is bound as a
    /// part, in the place of the first server string that holds it.
    fn rule_parts(&mut self, bound: &[String]) {
        for value in bound {
            if self.from_server.iter().any(|(v, _)| v == value) {
                continue;
            }
            if let Some(at) = self
                .from_server
                .iter()
                .position(|(v, _)| holds_token(v, value))
            {
                self.from_server.insert(at, (value.clone(), None));
            }
        }
    }

    /// Part and whole, one decision: an echoed value that holds a token the server also
    /// sent elsewhere (a URI `crm://customers/cus_8f3a2c1d9e0b` whose id stands in
    /// `"created customer cus_8f3a2c1d9e0b"`) is bound by that token, so the whole is
    /// written around the placeholder (`crm://customers/<MINTED:1>`) in every message, and
    /// a replay, which binds by template, decides the same way. Elsewhere means without
    /// the whole: a text that repeats the whole value (`"created udana@qacme42.com"`) says
    /// nothing of its parts, and an address bound by its domain would keep its local part.
    fn parts(&mut self) {
        for e in 0..self.echoed.len() {
            let whole = self.echoed[e].clone();
            let part = tokens(&whole).find(|t| {
                *t != whole
                    && t.len() >= MIN_MINTED
                    && t.bytes().any(|b| b.is_ascii_digit())
                    && self
                        .from_server
                        .iter()
                        .any(|(v, _)| !v.contains(whole.as_str()) && v.contains(t))
            });
            let Some(part) = part.map(str::to_owned) else {
                continue;
            };
            if self.echoed.contains(&part) {
                self.echoed[e] = String::new();
                continue;
            }
            // The part takes the place of the first server string that holds it.
            let at = self
                .from_server
                .iter()
                .position(|(v, _)| v.contains(&part))
                .expect("found above");
            if !self.from_server.iter().any(|(v, _)| *v == part) {
                self.from_server.insert(at, (part.clone(), None));
            }
            self.echoed[e] = part;
        }
        self.echoed.retain(|e| !e.is_empty());
    }

    /// Notes one string `s` sent in `direction` under `key`; `client_first`: the strings
    /// the client sent before the server did.
    fn note(
        &mut self,
        direction: Direction,
        key: Option<String>,
        s: String,
        client_first: &mut Vec<String>,
    ) {
        match direction {
            // The client's own value first (`"milk"`, which the server then echoes): not
            // minted by the server.
            Direction::ServerToClient => {
                if !self.from_server.iter().any(|(v, _)| *v == s) && !client_first.contains(&s) {
                    self.from_server.push((s, key));
                }
            }
            // The client's own value, sent again (an order id it knows, which the server
            // repeated inside a question meanwhile): still its own.
            Direction::ClientToServer if client_first.contains(&s) => {}
            Direction::ClientToServer => {
                // The smallest value the client's string holds: the part, where it
                // sends a whole built around it.
                let minted = self
                    .from_server
                    .iter()
                    .filter(|(v, _)| client_sends(&s, v))
                    .min_by_key(|(v, _)| v.len());
                match minted {
                    Some((v, _)) if !self.echoed.contains(v) => self.echoed.push(v.clone()),
                    Some(_) => {}
                    None => match self.inside_a_server_string(&s) {
                        // A value the server sent only inside a text (`created note-3f9a`,
                        // a JSON text `{"id":"note-3f9a"}`) and the client sends back whole:
                        // bound as a part, in the place of the first server string that
                        // holds it, as `parts` binds one.
                        Some(at) => {
                            self.from_server.insert(at, (s.clone(), None));
                            self.echoed.push(s);
                        }
                        None => client_first.push(s),
                    },
                }
            }
        }
    }

    /// Where `s`, a string the client sends, stands whole as a token inside a string the
    /// server sent before (with no letter or digit right beside it): the index of the
    /// first such server string. Only for what looks like a minted id, as [`Sightings::parts`]
    /// asks of a part: [`MIN_MINTED`] characters or more, a digit among them.
    fn inside_a_server_string(&self, s: &str) -> Option<usize> {
        if s.len() < MIN_MINTED || !s.bytes().any(|b| b.is_ascii_digit()) {
            return None;
        }
        self.from_server.iter().position(|(v, _)| holds_token(v, s))
    }

    /// The values to bind, each with its placeholder numbered by kind in order of first
    /// appearance: the echoed values, the handles, the other values the server sent
    /// under a key where it minted an echoed one, and what a rule binds (`bound`), but
    /// for what a rule pins (`pinned`).
    fn placeholders(&self, bound: &[String], pinned: &[String]) -> Vec<(String, String)> {
        // Where the server minted one value the client sent back, it mints the others it
        // sends there too (the id of every note it created, not only of the one read back).
        let minting_keys: Vec<&str> = self
            .from_server
            .iter()
            .filter(|(value, _)| self.echoed.contains(value))
            .filter_map(|(_, key)| key.as_deref())
            .collect();
        let mut counts = [0usize; KINDS.len()];
        let mut out: Vec<(String, String)> = Vec::new();
        for (value, key) in &self.from_server {
            let handle = key.as_deref().is_some_and(is_handle_key);
            let minted_there = key.as_deref().is_some_and(|k| minting_keys.contains(&k));
            let by_rule = bound.contains(value);
            if pinned.contains(value)
                || !(self.echoed.contains(value) || handle || minted_there || by_rule)
            {
                continue;
            }
            let by_key = key
                .as_deref()
                .and_then(|k| KINDS.iter().position(|(_, keys)| keys.contains(&k)));
            let kind = match by_key {
                Some(kind) => kind,
                None if by_rule || value.chars().count() >= MIN_MINTED => KINDS.len() - 1,
                None => continue,
            };
            counts[kind] += 1;
            out.push((
                value.clone(),
                format!("<{}:{}>", KINDS[kind].0, counts[kind]),
            ));
        }
        out
    }
}

/// Is `message` a result that describes the server: its identity and capabilities, or a
/// listing of its tools, prompts, resources or templates?
fn describes_the_server(message: &Value) -> bool {
    const LISTINGS: [&str; 7] = [
        "tools",
        "prompts",
        "resources",
        "resourceTemplates",
        "capabilities",
        "serverInfo",
        "supportedVersions",
    ];
    message
        .get("result")
        .and_then(Value::as_object)
        .is_some_and(|r| LISTINGS.iter().any(|k| r.contains_key(*k)))
}

/// Is `key` one of the protocol's handles (`taskId`, `nextCursor`, `cursor`)?
fn is_handle_key(key: &str) -> bool {
    KINDS.iter().any(|(_, keys)| keys.contains(&key))
}

/// The tokens of `s`: its longest runs of letters, digits, `_`, `-` and `.`.
pub(crate) fn tokens(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .filter(|t| !t.is_empty())
}

/// Does the client string `s` send back the server's value `v`: the whole string, or
/// within it when `v` is long enough not to be there by chance?
fn client_sends(s: &str, v: &str) -> bool {
    s == v || (v.chars().count() >= MIN_MINTED && holds_token(s, v))
}

/// Does `s` hold `v` with no letter or digit right before or after it: `cus_8f3a2c1d9e0b`
/// in `crm://customers/cus_8f3a2c1d9e0b`, not `customer` in `customers`.
fn holds_token(s: &str, v: &str) -> bool {
    s.match_indices(v).any(|(at, _)| {
        let before = s[..at].chars().next_back();
        let after = s[at + v.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric()) && !after.is_some_and(|c| c.is_alphanumeric())
    })
}

/// Every string leaf of `value`, with the object key it stands under.
fn strings_of(value: &Value, key: Option<&str>, out: &mut Vec<(Option<String>, String)>) {
    match value {
        Value::String(s) => out.push((key.map(str::to_owned), s.clone())),
        Value::Array(items) => items.iter().for_each(|v| strings_of(v, key, out)),
        Value::Object(map) => {
            for (k, v) in crate::data::json::members(map) {
                // The envelope is the harness's own (ids are labelled apart).
                if !matches!(k.as_str(), "jsonrpc" | "method" | "id") || key.is_some() {
                    strings_of(v, Some(k), out);
                }
            }
        }
        _ => {}
    }
}

/// `value` with every occurrence of each found value replaced by its placeholder: inside
/// strings when the value is long enough not to be there by chance, else only as a whole
/// string (a cursor `"2"` is not every 2 in the text).
fn replace_all(value: &mut Value, found: &[(String, String)]) {
    match value {
        Value::String(s) => {
            for (v, placeholder) in found {
                if s == v {
                    *s = placeholder.clone();
                    return;
                }
                if v.chars().count() >= MIN_MINTED && s.contains(v.as_str()) {
                    *s = s.replace(v.as_str(), placeholder);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_all(v, found)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_all(v, found)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn label(messages: Vec<(Direction, Value)>) -> Vec<Value> {
        label_with(messages, &crate::Rules::default())
    }

    fn label_with(messages: Vec<(Direction, Value)>, rules: &crate::Rules) -> Vec<Value> {
        let mut messages = messages;
        let (bound, pinned) = rules.minted_and_pinned(&messages);
        label_minted(&mut messages, &bound, &pinned);
        messages.into_iter().map(|(_, m)| m).collect()
    }

    const C: Direction = Direction::ClientToServer;
    const S: Direction = Direction::ServerToClient;

    #[test]
    fn a_cursor_and_a_task_id_the_client_sends_back_are_bound_by_their_keys() {
        let out = label(vec![
            (C, json!({"method": "tools/list"})),
            (S, json!({"result": {"tools": [], "nextCursor": "c1"}})),
            (
                C,
                json!({"method": "tools/list", "params": {"cursor": "c1"}}),
            ),
            (
                S,
                json!({"result": {"task": {"taskId": "t-1", "status": "working"}}}),
            ),
            (
                C,
                json!({"method": "tasks/get", "params": {"taskId": "t-1"}}),
            ),
            (
                S,
                json!({"result": {"taskId": "t-1", "status": "completed"}}),
            ),
        ]);
        assert_eq!(out[1]["result"]["nextCursor"], "<CURSOR:1>");
        assert_eq!(out[2]["params"]["cursor"], "<CURSOR:1>");
        assert_eq!(out[3]["result"]["task"]["taskId"], "<TASK_ID:1>");
        assert_eq!(out[4]["params"]["taskId"], "<TASK_ID:1>");
        assert_eq!(out[5]["result"]["taskId"], "<TASK_ID:1>");
        // The status is the same word in every run: not bound.
        assert_eq!(out[5]["result"]["status"], "completed");
    }

    #[test]
    fn any_long_value_the_server_minted_and_the_client_echoes_is_bound_also_inside_strings() {
        let out = label(vec![
            (
                C,
                json!({"method": "tools/call", "params": {"name": "add_note", "arguments": {"text": "milk"}}}),
            ),
            (
                S,
                json!({"result": {"content": [{"type": "text", "text": "created note-8f3a2c1d"}], "structuredContent": {"id": "note-8f3a2c1d"}}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"name": "get_note", "arguments": {"id": "note-8f3a2c1d"}}}),
            ),
            // Short values and values the client sent first are left alone.
            (
                S,
                json!({"result": {"content": [{"type": "text", "text": "milk"}], "ok": "yes"}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"name": "x", "arguments": {"a": "yes", "b": "milk"}}}),
            ),
            (
                S,
                json!({"result": {"structuredContent": {"id": "note-00aa11bb"}}}),
            ),
        ]);
        assert_eq!(out[1]["result"]["content"][0]["text"], "created <MINTED:1>");
        assert_eq!(out[1]["result"]["structuredContent"]["id"], "<MINTED:1>");
        assert_eq!(out[2]["params"]["arguments"]["id"], "<MINTED:1>");
        // Another note's id, never read back, stood where the first one did: minted too.
        assert_eq!(out[5]["result"]["structuredContent"]["id"], "<MINTED:2>");
        assert_eq!(out[3]["result"]["ok"], "yes");
        assert_eq!(out[4]["params"]["arguments"]["b"], "milk");
    }

    /// The Python SDK's `refund_desk` example: the client names an order it knows, the
    /// server asks about it by name, the client retries with it. The client's all along.
    #[test]
    fn a_clients_own_id_that_the_server_repeats_in_a_question_stays_the_clients() {
        let out = label(vec![
            (
                C,
                json!({"method": "tools/call", "params": {"name": "refund", "arguments": {"order_id": "ORD-7002"}}}),
            ),
            (
                S,
                json!({"result": {"resultType": "input_required", "inputRequests": {"scope": {"method": "elicitation/create",
                    "params": {"message": "ORD-7002 has several items. Refund the whole order?"}}}}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"name": "refund", "arguments": {"order_id": "ORD-7002"}}}),
            ),
        ]);
        assert_eq!(out[2]["params"]["arguments"]["order_id"], "ORD-7002");
        let asked = out[1]["result"]["inputRequests"]["scope"]["params"]["message"].clone();
        assert_eq!(asked, "ORD-7002 has several items. Refund the whole order?");
    }

    #[test]
    fn an_id_only_inside_a_text_that_the_client_sends_back_whole_is_bound() {
        let out = label(vec![
            // pmcp's typed tool: its output as a JSON text.
            (
                S,
                json!({"result": {"content": [{"type": "text", "text": "{\"id\":\"note-3f9a0c1d\"}"}]}}),
            ),
            // The TypeScript SDK's: a sentence.
            (
                S,
                json!({"result": {"content": [{"type": "text", "text": "created note-77aa01bc"}]}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"name": "get_note", "arguments": {"id": "note-3f9a0c1d"}}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"name": "get_note", "arguments": {"id": "note-77aa01bc"}}}),
            ),
            // A word the server said, which the client types back: no digit, not minted.
            (
                S,
                json!({"result": {"content": [{"type": "text", "text": "try searching for forecasts"}]}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"name": "search", "arguments": {"q": "forecasts"}}}),
            ),
        ]);
        assert_eq!(
            out[0]["result"]["content"][0]["text"],
            "{\"id\":\"<MINTED:1>\"}"
        );
        assert_eq!(out[1]["result"]["content"][0]["text"], "created <MINTED:2>");
        assert_eq!(out[2]["params"]["arguments"]["id"], "<MINTED:1>");
        assert_eq!(out[3]["params"]["arguments"]["id"], "<MINTED:2>");
        assert_eq!(out[5]["params"]["arguments"]["q"], "forecasts");
    }

    #[test]
    fn a_default_the_client_accepts_in_its_answer_is_not_minted() {
        let out = label(vec![
            (
                S,
                json!({"id": 0, "method": "elicitation/create", "params": {"requestedSchema": {"properties": {"firstLine": {"default": "It was a dark and stormy night."}}}}}),
            ),
            (
                C,
                json!({"id": 0, "result": {"action": "accept", "content": {"firstLine": "It was a dark and stormy night."}}}),
            ),
        ]);
        assert_eq!(
            out[0]["params"]["requestedSchema"]["properties"]["firstLine"]["default"],
            "It was a dark and stormy night."
        );
    }

    #[test]
    fn what_the_server_lists_is_its_contract_not_a_minted_value() {
        let out = label(vec![
            (
                S,
                json!({"result": {"tools": [{"name": "add_note_long"}], "nextCursor": "page-two-x"}}),
            ),
            (
                C,
                json!({"method": "tools/list", "params": {"cursor": "page-two-x"}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"name": "add_note_long"}}),
            ),
        ]);
        assert_eq!(out[0]["result"]["tools"][0]["name"], "add_note_long");
        assert_eq!(out[2]["params"]["name"], "add_note_long");
        assert_eq!(out[1]["params"]["cursor"], "<CURSOR:1>");
    }

    #[test]
    fn handles_are_bound_even_unused_and_placeholders_stay_as_they_are() {
        let out = label(vec![
            (
                S,
                json!({"result": {"nextCursor": "c-last", "id": "<UUID>"}}),
            ),
            (
                C,
                json!({"method": "tools/list", "params": {"other": "<UUID>"}}),
            ),
        ]);
        // A handle is bound even when the client never sends it back.
        assert_eq!(out[0]["result"]["nextCursor"], "<CURSOR:1>");
        assert_eq!(out[0]["result"]["id"], "<UUID>");
    }

    #[test]
    fn the_mock_serves_a_fixed_value_for_each_bound_placeholder() {
        assert_eq!(
            served("page <CURSOR:2> of <TASK_ID:1>").as_deref(),
            Some("page mcp-replay-cursor-2 of mcp-replay-task-id-1")
        );
        assert_eq!(served("<UUID>"), None);
    }

    #[test]
    fn a_rule_binds_a_value_nobody_sends_back_and_another_pins_one_that_looks_minted() {
        let messages = vec![
            (
                C,
                json!({"method": "tools/call", "params": {"name": "order"}}),
            ),
            (
                S,
                json!({"result": {"structuredContent": {"orderId": "o1", "ticket": "ticket-7781-xyz"}}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"name": "track", "arguments": {"ticket": "ticket-7781-xyz"}}}),
            ),
        ];
        let plain = label(messages.clone());
        assert_eq!(plain[1]["result"]["structuredContent"]["orderId"], "o1");
        assert_eq!(plain[2]["params"]["arguments"]["ticket"], "<MINTED:1>");
        let rules = crate::Rules::default()
            .bind(".result.structuredContent.orderId")
            .pin(".result.structuredContent.ticket");
        let ruled = label_with(messages, &rules);
        assert_eq!(
            ruled[1]["result"]["structuredContent"]["orderId"],
            "<MINTED:1>"
        );
        assert_eq!(ruled[2]["params"]["arguments"]["ticket"], "ticket-7781-xyz");
    }

    #[test]
    fn a_rules_file_names_them_by_selector() {
        let rules = crate::Rules::from_json(
            r#"{"bind": [".result.structuredContent.orderId"], "pin": [".result.structuredContent.ticket"]}"#,
            "rules.json",
        )
        .unwrap();
        let out = label_with(
            vec![(
                S,
                json!({"result": {"structuredContent": {"orderId": "o1"}}}),
            )],
            &rules,
        );
        assert_eq!(
            out[0]["result"]["structuredContent"]["orderId"],
            "<MINTED:1>"
        );
        let bad = crate::Rules::from_json(r#"{"bind": [".result["]}"#, "rules.json");
        assert!(bad.unwrap_err().to_string().contains("bind[0]"));
    }

    #[test]
    fn a_url_elicitation_id_and_a_resource_link_read_back_are_bound() {
        let out = label(vec![
            (
                S,
                json!({"id": 0, "method": "elicitation/create", "params": {"mode": "url", "elicitationId": "e-1", "url": "https://example.invalid/auth"}}),
            ),
            (C, json!({"id": 0, "result": {"action": "accept"}})),
            (
                S,
                json!({"method": "notifications/elicitation/complete", "params": {"elicitationId": "e-1"}}),
            ),
            (
                S,
                json!({"result": {"content": [{"type": "resource_link", "uri": "file:///exports/report-5f2a.csv"}]}}),
            ),
            (
                C,
                json!({"method": "resources/read", "params": {"uri": "file:///exports/report-5f2a.csv"}}),
            ),
        ]);
        assert_eq!(out[0]["params"]["elicitationId"], "<MINTED:1>");
        assert_eq!(out[2]["params"]["elicitationId"], "<MINTED:1>");
        assert_eq!(out[3]["result"]["content"][0]["uri"], "<MINTED:2>");
        assert_eq!(out[4]["params"]["uri"], "<MINTED:2>");
    }

    #[test]
    fn a_request_state_and_a_uuid_task_id_are_handles_before_normalization() {
        let mut messages = vec![
            (
                S,
                json!({"result": {"resultType": "task", "taskId": "0b0c8d9e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"}}),
            ),
            (
                S,
                json!({"result": {"resultType": "input_required", "requestState": "opaque-1"}}),
            ),
            (
                C,
                json!({"method": "tools/call", "params": {"requestState": "opaque-1", "q": "task 0b0c8d9e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"}}),
            ),
        ];
        label_handles(&mut messages, &[]);
        assert_eq!(messages[0].1["result"]["taskId"], "<TASK_ID:1>");
        assert_eq!(messages[1].1["result"]["requestState"], "<REQUEST_STATE:1>");
        assert_eq!(messages[2].1["params"]["requestState"], "<REQUEST_STATE:1>");
        assert_eq!(messages[2].1["params"]["q"], "task <TASK_ID:1>");
        // The normalizer leaves them: they are names already.
        let rules = crate::Rules::default();
        let mut retry = messages[2].1.clone();
        rules.normalize_client(&mut retry);
        assert_eq!(retry["params"]["requestState"], "<REQUEST_STATE:1>");
        let mut result = messages[1].1.clone();
        rules.normalize_server(&mut result);
        assert_eq!(result["result"]["requestState"], "<REQUEST_STATE:1>");
    }

    #[test]
    fn find_bound_placeholders_in_a_string() {
        assert!(has_bound("{\"cursor\":\"<CURSOR:1>\"}"));
        assert!(!has_bound("<REQUEST_ID>"));
        let s = "a <MINTED:2> b <TASK_ID:10> <CURSOR:x> <REQUEST_ID:1>";
        let found: Vec<&str> = bound_in(s).iter().map(|&(a, b)| &s[a..b]).collect();
        assert_eq!(found, ["<MINTED:2>", "<TASK_ID:10>"]);
    }
}
