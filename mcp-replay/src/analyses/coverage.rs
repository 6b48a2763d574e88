//! What do the fixtures cover? What a server advertises (its [`Surface`]: capabilities,
//! tools with their arguments, prompts, resources, resource templates) against what a set
//! of fixtures exercises: each tool called or not, with and without an error result, which
//! optional arguments were ever passed, each prompt got, each resource and template read,
//! each method, notification and server request kind seen.
//!
//! The surface comes from an exchange that lists it: a fixture that holds the responses to
//! `initialize` (or `server/discover`) and the listings ([`Surface::of`]), or the live
//! server, asked by the [`probe`] fixture (`mcp-replay coverage -- SERVER` replays it; in a
//! test, [`probe`] and [`Fixture::replay`](crate::Fixture::replay) over the in-process
//! server). A listing in pages is followed to its end: [`probe_next`] asks for the next
//! page of each listing whose last answer had a `nextCursor`, with the cursor the server
//! gave in the same run (a bound placeholder, `<CURSOR:n>`); a listing still in pages is
//! marked [`Surface::truncated`].
//!
//! ```
//! use mcp_replay::_support::coverage::{Coverage, Surface};
//! use mcp_replay::Fixture;
//!
//! let session = Fixture::parse(concat!(
//!     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#, "\n",
//!     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[
//!         {"name":"echo","inputSchema":{"type":"object","properties":{"text":{},"loud":{}},"required":["text"]}},
//!         {"name":"divide","inputSchema":{"type":"object"}}]}}}"#, "\n",
//!     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}"#, "\n",
//!     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#, "\n",
//! ).replace("\n        ", "").as_str()).unwrap();
//! let coverage = Coverage::of(&Surface::of(&[&session]), &[&session]);
//! assert_eq!(coverage.percent(), 50.0); // echo called, divide never
//! assert_eq!(coverage.tools[0].optional_never, ["loud"]);
//! ```
//!
//! Pure: no I/O.

mod surface;

use crate::data::fixture::{Direction, Entry, Fixture, MessageKind};
use crate::data::json::At;
use crate::data::protocol::{Era, DEFAULT_PROTOCOL, STATELESS_PROTOCOL};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
pub use surface::{client_capabilities, probe, probe_next, Item, Surface, MAX_PAGES};

/// How one tool or prompt was exercised.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemUse {
    /// Its name.
    pub name: String,
    /// Calls (`tools/call`) or gets (`prompts/get`) in the fixtures.
    pub calls: usize,
    /// Of them, answered with an error: a JSON-RPC error, or a tool result with
    /// `isError: true`.
    pub errors: usize,
    /// The optional arguments some call passed.
    pub optional_passed: Vec<String>,
    /// The optional arguments no call passed.
    pub optional_never: Vec<String>,
}

/// How one resource or template was exercised.
#[derive(Debug, Clone, PartialEq)]
pub struct UriUse {
    /// The URI, or the `uriTemplate`.
    pub uri: String,
    /// `resources/read` requests of it (of a URI the template matches).
    pub reads: usize,
}

/// A capability the server declares, and whether the fixtures exercise it.
#[derive(Debug, Clone, PartialEq)]
pub struct CapabilityUse {
    /// Its dotted path (`resources.subscribe`).
    pub capability: String,
    /// The methods seen that use it (empty: not exercised, or nothing to say).
    pub seen: Vec<String>,
    /// Some method uses it (`false` for a capability no method stands for, such as
    /// `tools.listChanged` without its notification).
    pub exercised: bool,
}

/// The surface against what the fixtures exercise ([`Coverage::of`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// How many fixtures were read.
    pub fixtures: usize,
    /// Each advertised tool, in the surface's order, and then tools called but not
    /// advertised.
    pub tools: Vec<ItemUse>,
    /// Each advertised prompt.
    pub prompts: Vec<ItemUse>,
    /// Each advertised resource.
    pub resources: Vec<UriUse>,
    /// Each advertised resource template.
    pub templates: Vec<UriUse>,
    /// Each declared capability.
    pub capabilities: Vec<CapabilityUse>,
    /// The client request methods seen, each once.
    pub methods: BTreeSet<String>,
    /// The notification kinds seen, as `client->server notifications/initialized`.
    pub notifications: BTreeSet<String>,
    /// The server-to-client request kinds seen (`sampling/createMessage`, ...).
    pub server_requests: BTreeSet<String>,
    /// Names the fixtures call or read that the surface does not advertise
    /// (`tools/call missing_tool`).
    pub not_advertised: BTreeSet<String>,
    /// The surface's listings whose pages after the last one read are not known.
    pub truncated: BTreeSet<String>,
}

/// Which methods stand for a capability.
fn methods_of(capability: &str) -> &'static [&'static str] {
    match capability {
        "tools" => &["tools/list", "tools/call"],
        "prompts" => &["prompts/list", "prompts/get"],
        "resources" => &[
            "resources/list",
            "resources/read",
            "resources/templates/list",
        ],
        "resources.subscribe" => &["resources/subscribe", "resources/unsubscribe"],
        "resources.listChanged" => &["notifications/resources/list_changed"],
        "tools.listChanged" => &["notifications/tools/list_changed"],
        "prompts.listChanged" => &["notifications/prompts/list_changed"],
        "logging" => &["logging/setLevel", "notifications/message"],
        "completions" => &["completion/complete"],
        "tasks" => &["tasks/get", "tasks/list", "tasks/result", "tasks/cancel"],
        _ => &[],
    }
}

impl Coverage {
    /// `surface` against what `fixtures` exercise.
    pub fn of(surface: &Surface, fixtures: &[&Fixture]) -> Coverage {
        let mut seen = Seen::default();
        for fixture in fixtures {
            seen.read(fixture.entries());
        }
        let uses = |list: &[String], matches: fn(&str, &str) -> bool| {
            list.iter()
                .map(|uri| UriUse {
                    uri: uri.clone(),
                    reads: seen.reads.iter().filter(|r| matches(uri, r)).count(),
                })
                .collect()
        };
        Coverage {
            fixtures: fixtures.len(),
            tools: item_uses(&surface.tools, &seen.tool_calls),
            prompts: item_uses(&surface.prompts, &seen.prompt_gets),
            resources: uses(&surface.resources, |uri, read| uri == read),
            templates: uses(&surface.templates, template_matches),
            capabilities: seen.capability_uses(&surface.capabilities),
            not_advertised: seen.not_advertised(surface),
            methods: seen.methods,
            notifications: seen.notifications,
            server_requests: seen.server_requests,
            truncated: surface.truncated.clone(),
        }
    }

    /// `(exercised, advertised)`: tools called, prompts got, resources and templates read,
    /// against how many the surface has.
    pub fn counts(&self) -> (usize, usize) {
        let items = self.tools.iter().chain(&self.prompts);
        let uris = self.resources.iter().chain(&self.templates);
        let done = items.clone().filter(|i| i.calls > 0).count()
            + uris.clone().filter(|u| u.reads > 0).count();
        (done, items.count() + uris.count())
    }

    /// The share of the surface exercised, in percent ([`counts`](Coverage::counts));
    /// 100 when the surface is empty.
    pub fn percent(&self) -> f64 {
        match self.counts() {
            (_, 0) => 100.0,
            (done, all) => (done as f64 * 1000.0 / all as f64).round() / 10.0,
        }
    }

    /// The coverage as JSON, for CI (`mcp-replay coverage --format json`; docs/cli.md).
    pub fn to_json(&self) -> Value {
        let item = |i: &ItemUse| {
            json!({"name": i.name, "calls": i.calls, "errors": i.errors,
                   "optional_passed": i.optional_passed, "optional_never": i.optional_never})
        };
        let uri = |u: &UriUse| json!({"uri": u.uri, "reads": u.reads});
        let (done, all) = self.counts();
        json!({
            "mcp_replay_coverage": 1,
            "fixtures": self.fixtures,
            "percent": self.percent(),
            "exercised": done,
            "advertised": all,
            "tools": self.tools.iter().map(item).collect::<Vec<_>>(),
            "prompts": self.prompts.iter().map(item).collect::<Vec<_>>(),
            "resources": self.resources.iter().map(uri).collect::<Vec<_>>(),
            "resource_templates": self.templates.iter().map(uri).collect::<Vec<_>>(),
            "capabilities": self.capabilities.iter().map(|c| json!({
                "capability": c.capability, "exercised": c.exercised, "seen": c.seen})).collect::<Vec<_>>(),
            "methods": self.methods,
            "notifications": self.notifications,
            "server_requests": self.server_requests,
            "not_advertised": self.not_advertised,
            "truncated": self.truncated,
        })
    }
}

/// The text for people: one block per kind, each item with what exercised it, then the
/// methods seen and the share.
impl fmt::Display for Coverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let width = self
            .tools
            .iter()
            .chain(&self.prompts)
            .map(|i| i.name.len())
            .chain(
                self.resources
                    .iter()
                    .chain(&self.templates)
                    .map(|u| u.uri.len()),
            )
            .max()
            .unwrap_or(0)
            .min(48);
        write_items(&mut out, "tools", "called", &self.tools, width);
        write_items(&mut out, "prompts", "got", &self.prompts, width);
        write_uris(&mut out, "resources", &self.resources, width);
        write_uris(&mut out, "resource templates", &self.templates, width);
        self.write_kinds(&mut out);
        let (done, all) = self.counts();
        let _ = write!(
            out,
            "coverage: {}% ({done} of {all} tools, prompts, resources and resource templates, in {} fixture{})",
            self.percent(),
            self.fixtures,
            if self.fixtures == 1 { "" } else { "s" }
        );
        f.write_str(&out)
    }
}

impl Coverage {
    /// The capabilities, the methods, notification and server request kinds seen, and
    /// what was exercised but not advertised.
    fn write_kinds(&self, out: &mut String) {
        if !self.capabilities.is_empty() {
            let _ = writeln!(out, "capabilities:");
            for c in &self.capabilities {
                let how = match (c.exercised, methods_of(&c.capability).is_empty()) {
                    (true, _) => format!("exercised ({})", c.seen.join(", ")),
                    (false, false) => {
                        format!("never exercised ({})", methods_of(&c.capability).join(", "))
                    }
                    (false, true) => "declared".to_owned(),
                };
                let _ = writeln!(out, "  {:24}  {how}", c.capability);
            }
        }
        let list = |set: &BTreeSet<String>| match set.is_empty() {
            true => "none".to_owned(),
            false => set.iter().cloned().collect::<Vec<_>>().join(", "),
        };
        let _ = writeln!(out, "methods: {}", list(&self.methods));
        let _ = writeln!(out, "notifications: {}", list(&self.notifications));
        let _ = writeln!(out, "server requests: {}", list(&self.server_requests));
        if !self.not_advertised.is_empty() {
            let _ = writeln!(
                out,
                "exercised but not advertised: {}",
                list(&self.not_advertised)
            );
        }
        if !self.truncated.is_empty() {
            let _ = writeln!(
                out,
                "not every page of: {} (the surface may have more)",
                list(&self.truncated)
            );
        }
    }
}

/// `tools: 2 of 3 called`, then a line per tool (or prompt) with how it was exercised.
fn write_items(out: &mut String, title: &str, verb: &str, items: &[ItemUse], width: usize) {
    let done = items.iter().filter(|i| i.calls > 0).count();
    let _ = writeln!(out, "{title}: {done} of {} {verb}", items.len());
    for i in items {
        let _ = write!(out, "  {:width$}  ", i.name);
        if i.calls == 0 {
            let _ = write!(out, "never {verb}");
        } else {
            let _ = write!(out, "{verb} {}", times(i.calls));
            if i.errors > 0 {
                let _ = write!(out, " ({} with an error)", i.errors);
            } else if title == "tools" {
                let _ = write!(out, " (never with an error)");
            }
        }
        if !i.optional_never.is_empty() {
            let _ = write!(
                out,
                "; optional never passed: {}",
                i.optional_never.join(", ")
            );
        }
        out.push('\n');
    }
}

/// `resources: 1 of 2 read`, then a line per resource (or template).
fn write_uris(out: &mut String, title: &str, uses: &[UriUse], width: usize) {
    let done = uses.iter().filter(|u| u.reads > 0).count();
    let _ = writeln!(out, "{title}: {done} of {} read", uses.len());
    for u in uses {
        let how = match u.reads {
            0 => "never read".to_owned(),
            n => format!("read {}", times(n)),
        };
        let _ = writeln!(out, "  {:width$}  {how}", u.uri);
    }
}

fn times(n: usize) -> String {
    if n == 1 {
        "once".to_owned()
    } else {
        format!("{n} times")
    }
}

/// What the fixtures exercise.
#[derive(Default)]
struct Seen {
    /// `(tool, answered with an error, arguments passed)` per `tools/call`.
    tool_calls: Vec<(String, bool, Vec<String>)>,
    prompt_gets: Vec<(String, bool, Vec<String>)>,
    reads: Vec<String>,
    methods: BTreeSet<String>,
    notifications: BTreeSet<String>,
    server_requests: BTreeSet<String>,
}

impl Seen {
    /// Each capability, and the methods seen that stand for it.
    fn capability_uses(&self, capabilities: &BTreeSet<String>) -> Vec<CapabilityUse> {
        capabilities
            .iter()
            .map(|c| {
                let used: Vec<String> = methods_of(c)
                    .iter()
                    .filter(|m| {
                        self.methods.contains(**m)
                            || self.notifications.iter().any(|n| n.ends_with(**m))
                    })
                    .map(|m| (*m).to_owned())
                    .collect();
                CapabilityUse {
                    capability: c.clone(),
                    exercised: !used.is_empty(),
                    seen: used,
                }
            })
            .collect()
    }

    /// The tools, prompts and resources the fixtures use that `surface` does not have.
    fn not_advertised(&self, surface: &Surface) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for (name, ..) in &self.tool_calls {
            if !surface.tools.iter().any(|t| &t.name == name) {
                out.insert(format!("tools/call {name}"));
            }
        }
        for (name, ..) in &self.prompt_gets {
            if !surface.prompts.iter().any(|p| &p.name == name) {
                out.insert(format!("prompts/get {name}"));
            }
        }
        for uri in &self.reads {
            let known = surface.resources.contains(uri)
                || surface.templates.iter().any(|t| template_matches(t, uri));
            if !known {
                out.insert(format!("resources/read {uri}"));
            }
        }
        out
    }

    fn read(&mut self, entries: &[Entry]) {
        // The answer to each request entry.
        let mut answer = vec![None; entries.len()];
        for (i, e) in entries.iter().enumerate() {
            if let Some(r) = e.answers() {
                answer[r] = Some(i);
            }
        }
        for (i, e) in entries.iter().enumerate() {
            let Some(method) = e.method() else {
                continue;
            };
            match (e.kind(), e.direction()) {
                (MessageKind::Notification, direction) => {
                    self.notifications.insert(format!("{direction} {method}"));
                    continue;
                }
                (MessageKind::Request, Direction::ServerToClient) => {
                    self.server_requests.insert(method.to_owned());
                    continue;
                }
                _ => {}
            }
            self.methods.insert(method.to_owned());
            let message = e.message();
            let params = message.get("params");
            let field = |key: &str| params.and_then(|p| p.get(key));
            let failed = answer[i].is_some_and(|a| {
                let answer = entries[a].message();
                answer.get("error").is_some()
                    || answer.at(&["result", "isError"]) == Some(&Value::Bool(true))
            });
            let keys = |key: &str| -> Vec<String> {
                field(key)
                    .and_then(Value::as_object)
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default()
            };
            let name = field("name").and_then(Value::as_str).map(str::to_owned);
            match (method, name) {
                ("tools/call", Some(name)) => {
                    self.tool_calls.push((name, failed, keys("arguments")))
                }
                ("prompts/get", Some(name)) => {
                    self.prompt_gets.push((name, failed, keys("arguments")))
                }
                ("resources/read", _) => {
                    if let Some(uri) = field("uri").and_then(Value::as_str) {
                        self.reads.push(uri.to_owned());
                    }
                }
                _ => {}
            }
        }
    }
}

/// How each of `list` (tools or prompts) was used by `uses`: `(name, answered with an
/// error, arguments passed)` per call.
fn item_uses(list: &[Item], uses: &[(String, bool, Vec<String>)]) -> Vec<ItemUse> {
    list.iter()
        .map(|item| {
            let mine: Vec<_> = uses.iter().filter(|(n, ..)| *n == item.name).collect();
            let passed: BTreeSet<&String> =
                mine.iter().flat_map(|(_, _, args)| args.iter()).collect();
            let (optional_passed, optional_never) = item
                .optional
                .iter()
                .filter(|a| !item.required.contains(a))
                .cloned()
                .partition(|a| passed.contains(a));
            ItemUse {
                name: item.name.clone(),
                calls: mine.len(),
                errors: mine.iter().filter(|(_, error, _)| *error).count(),
                optional_passed,
                optional_never,
            }
        })
        .collect()
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn push_item(list: &mut Vec<Item>, item: &Value, required: Vec<String>, all: Vec<String>) {
    let Some(name) = item.get("name").and_then(Value::as_str) else {
        return;
    };
    if list.iter().any(|i| i.name == name) {
        return;
    }
    let optional = all.into_iter().filter(|a| !required.contains(a)).collect();
    list.push(Item {
        name: name.to_owned(),
        required,
        optional,
    });
}

fn push_unique(list: &mut Vec<String>, value: Option<&Value>) {
    if let Some(text) = value.and_then(Value::as_str) {
        if !list.iter().any(|x| x == text) {
            list.push(text.to_owned());
        }
    }
}

/// The declared capabilities as dotted paths: an object member is a capability, and its
/// members that are `true` or objects are sub-capabilities (`resources.subscribe`).
fn capability_paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    let Some(object) = value.as_object() else {
        return;
    };
    for (key, v) in object {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match v {
            Value::Bool(false) | Value::Null => {}
            Value::Object(_) => {
                out.insert(path.clone());
                // One level deep: `resources.subscribe`, `tasks.requests`; not the shapes
                // under experimental extensions.
                if prefix.is_empty() && key != "experimental" && key != "extensions" {
                    capability_paths(v, &path, out);
                }
            }
            _ => {
                out.insert(path);
            }
        }
    }
}

/// Does `uri` match the RFC 6570 template `template`? Each `{...}` expression matches one
/// or more characters (a `{+...}` or `{#...}` one also `/`), the rest literally.
pub fn template_matches(template: &str, uri: &str) -> bool {
    // The template as literal pieces and the expressions between them.
    let mut pieces: Vec<(&str, bool)> = Vec::new(); // (literal before, expression reserved?)
    let mut rest = template;
    let mut tail = "";
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let expression = &rest[open + 1..open + close];
        let reserved = expression.starts_with('+') || expression.starts_with('#');
        pieces.push((&rest[..open], reserved));
        rest = &rest[open + close + 1..];
        tail = rest;
    }
    if pieces.is_empty() {
        return template == uri;
    }
    fn walk(pieces: &[(&str, bool)], tail: &str, uri: &str) -> bool {
        let Some(((literal, reserved), more)) = pieces.split_first() else {
            return uri == tail;
        };
        let Some(after) = uri.strip_prefix(literal) else {
            return false;
        };
        // The expression takes 1..=n characters; the next literal (or the tail) follows.
        (1..=after.len()).any(|n| {
            after.is_char_boundary(n)
                && (*reserved || !after[..n].contains('/'))
                && walk(more, tail, &after[n..])
        })
    }
    walk(&pieces, tail, uri)
}

#[cfg(test)]
mod tests;
