//! Listed items (tools, prompts, resources, resource templates, prompt arguments) matched
//! by key, and the descriptions of a server (`initialize`, `server/discover`).

use super::claims::{claim_positions, differing, index, key, shown, verb, Out};
use super::schema::{self, set_members, Mode};
use super::Class;
use crate::data::json::json_eq;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One kind of listed item: what an item added, removed or changed means.
pub(super) trait Items {
    /// The field that names an item: `name`, `uri`, `uriTemplate`.
    fn key_field(&self) -> &str;
    /// What an item is called in a change: `tool`, `prompt`, `resource`, ...
    fn noun(&self) -> &str;
    /// The change for an item the actual list no longer has: breaking.
    fn removed(&self, out: &mut Out, key: &str, _item: &Value, path: &str) -> usize {
        let text = format!("{} `{key}` removed", self.noun());
        out.change(Class::Breaking, text, path)
    }
    /// The change for an item only the actual list has: compatible.
    fn added(&self, out: &mut Out, key: &str, _item: &Value, path: &str) -> usize {
        let text = format!("{} `{key}` added", self.noun());
        out.change(Class::Compatible, text, path)
    }
    /// The changes to an item both lists have (`path` is the actual one's).
    fn changed(
        &self,
        out: &mut Out,
        key: &str,
        e: &Map<String, Value>,
        a: &Map<String, Value>,
        path: &str,
    );
}

/// Compares two lists of items (either may be absent: no items) by their keys.
pub(super) fn keyed_list(
    out: &mut Out,
    path: &str,
    what: &str,
    (e, a): (Option<&Value>, Option<&Value>),
    items: &dyn Items,
) {
    fn list(v: Option<&Value>) -> Option<&[Value]> {
        match v {
            None => Some(&[]),
            Some(Value::Array(items)) => Some(items),
            Some(_) => None,
        }
    }
    let field = items.key_field();
    let keyed = |list: &[Value]| -> Option<Vec<String>> {
        let keys: Vec<String> = list
            .iter()
            .map(|i| i.get(field).and_then(Value::as_str).map(str::to_owned))
            .collect::<Option<_>>()?;
        let mut sorted: Vec<&String> = keys.iter().collect();
        sorted.sort_unstable();
        (sorted.windows(2).all(|w| w[0] != w[1]) && list.iter().all(Value::is_object))
            .then_some(keys)
    };
    let (Some(el), Some(al)) = (list(e), list(a)) else {
        return unjudged(out, path, what, field);
    };
    let (Some(ek), Some(ak)) = (keyed(el), keyed(al)) else {
        return unjudged(out, path, what, field);
    };
    let start = out.len();
    let mut owners = BTreeMap::new();
    for (i, k) in ek.iter().enumerate() {
        if !ak.contains(k) {
            owners.insert(k.clone(), items.removed(out, k, &el[i], &index(path, i)));
        }
    }
    for (j, k) in ak.iter().enumerate() {
        match ek.iter().position(|x| x == k) {
            None => {
                owners.insert(k.clone(), items.added(out, k, &al[j], &index(path, j)));
            }
            Some(i) if !json_eq(&el[i], &al[j]) => {
                let (Some(x), Some(y)) = (el[i].as_object(), al[j].as_object()) else {
                    continue;
                };
                out.muted_if(i != j, |out| items.changed(out, k, x, y, &index(path, j)));
            }
            Some(_) => {}
        }
    }
    claim_positions(out, path, &ek, &ak, &owners, || format!("{what} reordered"));
    if e.is_none() != a.is_none() {
        absent_whole(out, path, start, what);
    }
}

/// A list that is not an array of objects with distinct keys: one unknown change.
fn unjudged(out: &mut Out, path: &str, what: &str, field: &str) {
    let text = format!("{what}: not a list of items with distinct `{field}`s, not compared");
    out.change(Class::Unknown, text, path);
}

/// Claims `path`, absent on one side, for the most severe change since `start`, or a
/// cosmetic one when nothing changed in meaning (an empty list written or left out).
fn absent_whole(out: &mut Out, path: &str, start: usize, what: &str) {
    let id = out.worst_since(start).unwrap_or_else(|| {
        out.note(
            Class::Cosmetic,
            format!("{what}: empty, written differently"),
            path,
        )
    });
    out.claim(path, id);
}

/// The fields that are text for people wherever they occur.
const FOR_PEOPLE: [&str; 4] = ["title", "description", "icons", "annotations"];

/// A cosmetic change for a field for people, else an unknown one.
fn plain_field(
    out: &mut Out,
    subject: &str,
    field: &str,
    ev: Option<&Value>,
    av: Option<&Value>,
    path: &str,
) {
    let class = if FOR_PEOPLE.contains(&field) {
        Class::Cosmetic
    } else {
        Class::Unknown
    };
    let text = match class {
        Class::Cosmetic => format!("{subject}: {field} {}", verb(ev, av)),
        _ => format!("{subject}: `{field}` {}", verb(ev, av)),
    };
    out.change(class, text, path);
}

/// `tools/list` items.
pub(super) struct Tools;

impl Items for Tools {
    fn key_field(&self) -> &str {
        "name"
    }
    fn noun(&self) -> &str {
        "tool"
    }
    fn changed(
        &self,
        out: &mut Out,
        name: &str,
        e: &Map<String, Value>,
        a: &Map<String, Value>,
        path: &str,
    ) {
        let subject = format!("tool `{name}`");
        for (field, ev, av) in differing(e, a) {
            let p = key(path, field);
            match field {
                "inputSchema" => schema::compare(out, Mode::Input, &subject, &p, ev, av),
                "outputSchema" => schema::compare(out, Mode::Output, &subject, &p, ev, av),
                _ => plain_field(out, &subject, field, ev, av, &p),
            }
        }
    }
}

/// `prompts/list` items.
pub(super) struct Prompts;

impl Items for Prompts {
    fn key_field(&self) -> &str {
        "name"
    }
    fn noun(&self) -> &str {
        "prompt"
    }
    fn changed(
        &self,
        out: &mut Out,
        name: &str,
        e: &Map<String, Value>,
        a: &Map<String, Value>,
        path: &str,
    ) {
        let subject = format!("prompt `{name}`");
        for (field, ev, av) in differing(e, a) {
            let p = key(path, field);
            if field == "arguments" {
                let what = format!("arguments of {subject}");
                keyed_list(
                    out,
                    &p,
                    &what,
                    (ev, av),
                    &PromptArguments { subject: &subject },
                );
            } else {
                plain_field(out, &subject, field, ev, av, &p);
            }
        }
    }
}

/// The `arguments` of a prompt.
struct PromptArguments<'s> {
    subject: &'s str,
}

fn required(item: Option<&Value>) -> Option<bool> {
    match item {
        None => Some(false),
        Some(v) => v.as_bool(),
    }
}

impl Items for PromptArguments<'_> {
    fn key_field(&self) -> &str {
        "name"
    }
    fn noun(&self) -> &str {
        "argument"
    }
    fn removed(&self, out: &mut Out, key: &str, _: &Value, path: &str) -> usize {
        let text = format!("{}: argument `{key}` removed", self.subject);
        out.change(Class::Breaking, text, path)
    }
    fn added(&self, out: &mut Out, key: &str, item: &Value, path: &str) -> usize {
        let (class, text) = match required(item.get("required")) {
            Some(false) => (
                Class::Compatible,
                format!("optional argument `{key}` added"),
            ),
            Some(true) => (Class::Breaking, format!("required argument `{key}` added")),
            None => (Class::Unknown, format!("argument `{key}` added")),
        };
        out.change(class, format!("{}: {text}", self.subject), path)
    }
    fn changed(
        &self,
        out: &mut Out,
        name: &str,
        e: &Map<String, Value>,
        a: &Map<String, Value>,
        path: &str,
    ) {
        for (field, ev, av) in differing(e, a) {
            let p = key(path, field);
            if field != "required" {
                plain_field(
                    out,
                    &format!("{}: argument `{name}`", self.subject),
                    field,
                    ev,
                    av,
                    &p,
                );
                continue;
            }
            let (class, how) = match (required(ev), required(av)) {
                (Some(false), Some(true)) => (Class::Breaking, "made required"),
                (Some(true), Some(false)) => (Class::Compatible, "made optional"),
                (Some(x), Some(y)) if x == y => (Class::Cosmetic, "`required` written differently"),
                _ => (Class::Unknown, "`required` changed"),
            };
            out.change(
                class,
                format!("{}: argument `{name}` {how}", self.subject),
                &p,
            );
        }
    }
}

/// `resources/list` items (by `uri`) and `resources/templates/list` ones (by `uriTemplate`).
pub(super) struct Resources {
    /// `resource` or `resource template`.
    pub(super) noun: &'static str,
    /// `uri` or `uriTemplate`.
    pub(super) field: &'static str,
}

impl Items for Resources {
    fn key_field(&self) -> &str {
        self.field
    }
    fn noun(&self) -> &str {
        self.noun
    }
    fn changed(
        &self,
        out: &mut Out,
        uri: &str,
        e: &Map<String, Value>,
        a: &Map<String, Value>,
        path: &str,
    ) {
        let subject = format!("{} `{uri}`", self.noun);
        for (field, ev, av) in differing(e, a) {
            let p = key(path, field);
            let (class, text) = match (field, ev, av) {
                ("name" | "size", ..) => (Class::Cosmetic, format!("{field} {}", verb(ev, av))),
                ("mimeType", Some(_), Some(_)) => (
                    Class::Breaking,
                    format!("MIME type changed from {} to {}", shown(ev), shown(av)),
                ),
                ("mimeType", None, Some(_)) => (Class::Compatible, "MIME type added".to_owned()),
                ("mimeType", ..) => (Class::Unknown, "MIME type removed".to_owned()),
                _ => {
                    plain_field(out, &subject, field, ev, av, &p);
                    continue;
                }
            };
            out.change(class, format!("{subject}: {text}"), &p);
        }
    }
}

/// The result of a listing (`tools/list`, ...): the list at `field`; any other field
/// that differs (`nextCursor`, `_meta`) is unknown.
pub(super) fn listing(
    out: &mut Out,
    e: &Map<String, Value>,
    a: &Map<String, Value>,
    field: &str,
    items: &dyn Items,
) {
    for (k, ev, av) in differing(e, a) {
        let p = key("", k);
        if k == field {
            keyed_list(out, &p, &format!("`{field}`"), (ev, av), items);
        } else {
            out.change(Class::Unknown, format!("`{k}` {}", verb(ev, av)), &p);
        }
    }
}

/// The result of `initialize`.
pub(super) fn initialize(out: &mut Out, e: &Map<String, Value>, a: &Map<String, Value>) {
    for (k, ev, av) in differing(e, a) {
        let p = key("", k);
        match (k, ev, av) {
            ("capabilities", ..) => capabilities_root(out, &p, ev, av),
            ("serverInfo", ..) => server_info(out, &p, ev, av),
            ("instructions", ..) => {
                out.change(
                    Class::Cosmetic,
                    format!("instructions {}", verb(ev, av)),
                    &p,
                );
            }
            ("protocolVersion", Some(_), Some(_)) => {
                let text = format!(
                    "protocol version changed from {} to {}",
                    shown(ev),
                    shown(av)
                );
                out.change(Class::Breaking, text, &p);
            }
            _ => {
                out.change(Class::Unknown, format!("`{k}` {}", verb(ev, av)), &p);
            }
        }
    }
}

/// The `_meta` key under which `server/discover` names the server.
const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

/// The result of `server/discover`.
pub(super) fn discover(out: &mut Out, e: &Map<String, Value>, a: &Map<String, Value>) {
    for (k, ev, av) in differing(e, a) {
        let p = key("", k);
        match (k, ev, av) {
            ("capabilities", ..) => capabilities_root(out, &p, ev, av),
            ("supportedVersions", Some(Value::Array(x)), Some(Value::Array(y))) => {
                set_members(out, &p, x, y, &mut |out, v, added| {
                    let (class, how) = if added {
                        (Class::Compatible, "now supported")
                    } else {
                        (Class::Breaking, "no longer supported")
                    };
                    out.note(
                        class,
                        format!("protocol version {} {how}", shown(Some(v))),
                        &p,
                    )
                });
            }
            ("instructions" | "ttlMs", ..) => {
                out.change(Class::Cosmetic, format!("{k} {}", verb(ev, av)), &p);
            }
            ("_meta", Some(Value::Object(x)), Some(Value::Object(y))) => {
                for (m, mv, nv) in differing(x, y) {
                    let mp = key(&p, m);
                    if m == SERVER_INFO_META {
                        server_info(out, &mp, mv, nv);
                    } else {
                        out.change(
                            Class::Unknown,
                            format!("`_meta` `{m}` {}", verb(mv, nv)),
                            &mp,
                        );
                    }
                }
            }
            _ => {
                out.change(Class::Unknown, format!("`{k}` {}", verb(ev, av)), &p);
            }
        }
    }
}

/// `serverInfo`: its version and texts for people are cosmetic; its `name` (which a
/// client or its configuration may key on) and anything else is unknown.
fn server_info(out: &mut Out, path: &str, e: Option<&Value>, a: Option<&Value>) {
    let (Some(Value::Object(x)), Some(Value::Object(y))) = (e, a) else {
        out.change(Class::Unknown, format!("server info {}", verb(e, a)), path);
        return;
    };
    for (k, ev, av) in differing(x, y) {
        let class = match k {
            "version" | "title" | "description" | "icons" | "websiteUrl" => Class::Cosmetic,
            _ => Class::Unknown,
        };
        let text = format!("server {k} changed from {} to {}", shown(ev), shown(av));
        out.change(class, text, &key(path, k));
    }
}

/// The `capabilities` object (absent: none).
fn capabilities_root(out: &mut Out, path: &str, e: Option<&Value>, a: Option<&Value>) {
    let empty = Value::Object(Map::new());
    let start = out.len();
    capability(
        out,
        path,
        "",
        Some(e.unwrap_or(&empty)),
        Some(a.unwrap_or(&empty)),
    );
    if e.is_none() != a.is_none() {
        absent_whole(out, path, start, "capabilities");
    }
}

/// One capability (`tools`, `tools.listChanged`, `experimental.x`): withdrawn is breaking,
/// added is compatible; an object is compared member by member.
fn capability(out: &mut Out, path: &str, name: &str, e: Option<&Value>, a: Option<&Value>) {
    let (class, how) = match (e, a) {
        (Some(x), Some(y)) if json_eq(x, y) => return,
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            for (k, ev, av) in differing(x, y) {
                let child = if name.is_empty() {
                    k.to_owned()
                } else {
                    format!("{name}.{k}")
                };
                capability(out, &key(path, k), &child, ev, av);
            }
            return;
        }
        (None, Some(_)) | (Some(Value::Bool(false)), Some(Value::Bool(true))) => {
            (Class::Compatible, "added")
        }
        (Some(_), None) | (Some(Value::Bool(true)), Some(Value::Bool(false))) => {
            (Class::Breaking, "withdrawn")
        }
        _ => (Class::Unknown, "changed"),
    };
    out.change(class, format!("capability `{name}` {how}"), path);
}
