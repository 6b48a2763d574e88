//! JSON Schemas compared by meaning. An `inputSchema` describes what clients send, so a
//! schema that accepts more (widened) is compatible and one that accepts less (narrowed)
//! is breaking; an `outputSchema` describes what clients read, so the classes swap.
//! Each keyword is judged on its own (a schema is the conjunction of its keywords, so a
//! change is no wider than its narrowest keyword); a keyword this module does not model
//! is an `unknown` change.

use super::claims::{canonical, claim_positions, index, key, shown, verb, Out};
use super::Class;
use crate::data::json::json_eq;
use crate::data::json::path::{push_step, PathSegment};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

mod object;

/// What a schema describes: what the client sends, or what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// `inputSchema`: the arguments a client sends.
    Input,
    /// `outputSchema`: the structured content a client reads.
    Output,
}

/// How many schema nodes one comparison visits at most (shared `$ref`s can multiply).
const BUDGET: usize = 20_000;

/// The state of comparing one pair of schemas.
struct Cx<'v> {
    mode: Mode,
    /// `tool `forecast``: who the changes are about.
    subject: &'v str,
    /// The two root schemas, against which local `$ref`s resolve.
    roots: [&'v Value; 2],
    /// The roots' path in the results (the same on both sides).
    root_path: &'v str,
    /// Do the roots hold any `$ref` (else equal subtrees are skipped at once)?
    any_refs: bool,
    /// The `$ref` pairs being compared (a cycle stops at a pair already here).
    stack: Vec<(String, String)>,
    /// The JSON pointers followed on each side.
    visited: [BTreeSet<String>; 2],
    /// Nodes left to visit.
    budget: usize,
    /// Inside a `oneOf`: widening a branch may make two branches overlap, so a change
    /// that would be compatible is `unknown` there.
    one_of: usize,
}

/// Compares two schemas (either may be absent) at `path`, for `subject`.
pub(super) fn compare(
    out: &mut Out,
    mode: Mode,
    subject: &str,
    path: &str,
    e: Option<&Value>,
    a: Option<&Value>,
) {
    let what = schema_name(mode);
    let (e, a) = match (e, a) {
        (Some(e), Some(a)) => (e, a),
        (None, None) => return,
        (e, a) => {
            let class = match (mode, e.is_none()) {
                (Mode::Input, _) => Class::Unknown,
                (Mode::Output, true) => Class::Compatible,
                (Mode::Output, false) => Class::Breaking,
            };
            out.change(class, format!("{subject}: {what} {}", verb(e, a)), path);
            return;
        }
    };
    let mut cx = Cx {
        mode,
        subject,
        roots: [e, a],
        root_path: path,
        any_refs: has_ref(e) || has_ref(a),
        stack: Vec::new(),
        visited: Default::default(),
        budget: BUDGET,
        one_of: 0,
    };
    let start = out.len();
    node(&mut cx, out, "", path, e, a);
    definitions(&cx, out, start);
}

fn schema_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Input => "input schema",
        Mode::Output => "output schema",
    }
}

impl Cx<'_> {
    /// `tool `f`: argument `a.b`: TEXT`, or `tool `f`: input schema: TEXT` at the root.
    fn say(&self, arg: &str, text: impl std::fmt::Display) -> String {
        match (arg.is_empty(), self.mode) {
            (true, mode) => format!("{}: {}: {text}", self.subject, schema_name(mode)),
            (false, Mode::Input) => format!("{}: argument `{arg}`: {text}", self.subject),
            (false, Mode::Output) => format!("{}: output field `{arg}`: {text}", self.subject),
        }
    }

    /// The class of a change that lets more values through.
    fn widened(&self) -> Class {
        self.cap(match self.mode {
            Mode::Input => Class::Compatible,
            Mode::Output => Class::Breaking,
        })
    }

    /// The class of a change that lets fewer values through.
    fn narrowed(&self) -> Class {
        self.cap(match self.mode {
            Mode::Input => Class::Breaking,
            Mode::Output => Class::Compatible,
        })
    }

    fn cap(&self, class: Class) -> Class {
        if self.one_of > 0 && class == Class::Compatible {
            Class::Unknown
        } else {
            class
        }
    }

    /// Equal, with no `$ref` below that could still hide a difference?
    fn same(&self, e: &Value, a: &Value) -> bool {
        json_eq(e, a) && !(self.any_refs && (has_ref(e) || has_ref(a)))
    }
}

/// Does `v` hold a `$ref` anywhere?
fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

/// Compares two schema nodes at `path` (the same in both results), for argument `arg`.
fn node(cx: &mut Cx<'_>, out: &mut Out, arg: &str, path: &str, e: &Value, a: &Value) {
    if cx.same(e, a) {
        return;
    }
    if cx.budget == 0 {
        return; // the differences left are unknown changes of their own
    }
    cx.budget -= 1;
    if cx.budget == 0 {
        out.change(Class::Unknown, cx.say(arg, "too large to compare"), path);
        return;
    }
    match (e, a) {
        (Value::Object(eo), Value::Object(ao)) => {
            if eo.contains_key("$ref") || ao.contains_key("$ref") {
                refs(cx, out, arg, path, eo, ao);
            } else {
                keywords(cx, out, arg, path, eo, ao);
            }
        }
        _ => boolean(cx, out, arg, path, e, a),
    }
}

/// A boolean schema on either side: `true` accepts anything, `false` nothing.
fn boolean(cx: &mut Cx<'_>, out: &mut Out, arg: &str, path: &str, e: &Value, a: &Value) {
    let empty = Map::new();
    let (class, text) = match (e, a) {
        (Value::Bool(false), _) => (cx.widened(), "accepts values again (was `false`)"),
        (_, Value::Bool(false)) => (cx.narrowed(), "accepts no value any more (now `false`)"),
        (Value::Bool(true), Value::Object(ao)) => {
            let start = out.len();
            out.muted_if(true, |out| keywords(cx, out, arg, path, &empty, ao));
            return claim_all(cx, out, arg, path, start);
        }
        (Value::Object(eo), Value::Bool(true)) => {
            let start = out.len();
            out.muted_if(true, |out| keywords(cx, out, arg, path, eo, &empty));
            return claim_all(cx, out, arg, path, start);
        }
        _ => (Class::Unknown, "is not a schema"),
    };
    out.change(class, cx.say(arg, text), path);
}

/// Claims `path` for the most severe change since `start`, or for a cosmetic change when
/// the comparison found none (the same meaning, written differently).
fn claim_all(cx: &Cx<'_>, out: &mut Out, arg: &str, path: &str, start: usize) {
    let id = out.worst_since(start).unwrap_or_else(|| {
        out.note(
            Class::Cosmetic,
            cx.say(arg, "written differently, same meaning"),
            path,
        )
    });
    out.claim(path, id);
}

/// A local `$ref` (`#/$defs/Name`, any JSON pointer) on either side.
fn refs(
    cx: &mut Cx<'_>,
    out: &mut Out,
    arg: &str,
    path: &str,
    eo: &Map<String, Value>,
    ao: &Map<String, Value>,
) {
    let er = eo.get("$ref");
    let ar = ao.get("$ref");
    let et = er.map(|r| resolve(cx.roots[0], cx.root_path, r));
    let at = ar.map(|r| resolve(cx.roots[1], cx.root_path, r));
    if matches!(et, Some(None)) || matches!(at, Some(None)) {
        if !json_eq(&Value::Object(eo.clone()), &Value::Object(ao.clone())) {
            out.change(
                Class::Unknown,
                cx.say(arg, "a `$ref` this version cannot resolve changed"),
                path,
            );
        }
        return;
    }
    let (et, at) = (et.flatten(), at.flatten());
    if let (Some(x), Some(y)) = (&et, &at) {
        if er == ar {
            let pair = (x.pointer.clone(), y.pointer.clone());
            if !cx.stack.contains(&pair) {
                follow(cx, pair, |cx| node(cx, out, arg, &x.path, x.value, y.value));
            }
            let strip = |o: &Map<String, Value>| {
                let mut o = o.clone();
                o.remove("$ref");
                o
            };
            return keywords(cx, out, arg, path, &strip(eo), &strip(ao));
        }
    }
    let pointer = |t: &Option<Target<'_>>| t.as_ref().map_or("-".into(), |t| t.pointer.clone());
    let pair = (pointer(&et), pointer(&at));
    if cx.stack.contains(&pair) {
        return;
    }
    let (e2, a2) = (effective(eo, et.as_ref()), effective(ao, at.as_ref()));
    let start = out.len();
    out.muted_if(true, |out| {
        follow(cx, pair, |cx| node(cx, out, arg, path, &e2, &a2));
    });
    claim_all(cx, out, arg, path, start);
}

/// Runs `f` with the `$ref` pair on the stack, its pointers marked visited.
fn follow<'v>(cx: &mut Cx<'v>, pair: (String, String), f: impl FnOnce(&mut Cx<'v>)) {
    cx.visited[0].insert(pair.0.clone());
    cx.visited[1].insert(pair.1.clone());
    cx.stack.push(pair);
    f(cx);
    cx.stack.pop();
}

/// What a `$ref` points at: the node, its JSON pointer, its path in the results.
struct Target<'v> {
    value: &'v Value,
    pointer: String,
    path: String,
}

/// Resolves a local `$ref` (`#`, `#/$defs/Name`, any JSON pointer) against `root`.
fn resolve<'v>(root: &'v Value, root_path: &str, reference: &Value) -> Option<Target<'v>> {
    let pointer = reference.as_str()?.strip_prefix('#')?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return None; // an anchor (`#name`) is not modelled
    }
    let mut value = root;
    let mut path = root_path.to_owned();
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        match value {
            Value::Object(m) => {
                value = m.get(&token)?;
                push_step(&mut path, PathSegment::Key(&token));
            }
            Value::Array(items) => {
                let i: usize = token.parse().ok()?;
                value = items.get(i)?;
                push_step(&mut path, PathSegment::Index(i));
            }
            _ => return None,
        }
    }
    Some(Target {
        value,
        pointer: pointer.to_owned(),
        path,
    })
}

/// The schema a node with a `$ref` stands for: the target, with the node's other
/// keywords over it.
fn effective(node: &Map<String, Value>, target: Option<&Target<'_>>) -> Value {
    let mut merged = match target.map(|t| t.value) {
        Some(Value::Object(t)) => t.clone(),
        Some(Value::Bool(true)) | None => Map::new(),
        Some(other) => return other.clone(),
    };
    for (k, v) in node {
        if k != "$ref" {
            merged.insert(k.clone(), v.clone());
        }
    }
    Value::Object(merged)
}

/// The keywords that hold subschemas: compared even when equal, for the `$ref`s inside.
const SUBSCHEMAS: [&str; 6] = [
    "properties",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
];

/// Compares two schema objects keyword by keyword.
fn keywords(
    cx: &mut Cx<'_>,
    out: &mut Out,
    arg: &str,
    path: &str,
    eo: &Map<String, Value>,
    ao: &Map<String, Value>,
) {
    let mut keys: Vec<&str> = eo.keys().chain(ao.keys()).map(String::as_str).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut object_done = false;
    for k in keys {
        let (ev, av) = (eo.get(k), ao.get(k));
        let equal = matches!((ev, av), (Some(x), Some(y)) if json_eq(x, y));
        if equal && !(cx.any_refs && SUBSCHEMAS.contains(&k)) {
            continue;
        }
        let p = key(path, k);
        match k {
            "title" | "description" | "examples" | "$comment" | "deprecated" => {
                out.change(
                    Class::Cosmetic,
                    cx.say(arg, format!("{k} {}", verb(ev, av))),
                    &p,
                );
            }
            "properties" | "required" if !object_done => {
                object_done = true;
                object::properties(cx, out, arg, path, eo, ao);
            }
            "properties" | "required" => {}
            "type" => types(cx, out, arg, &p, ev, av),
            "enum" => enums(cx, out, arg, &p, ev, av),
            "const" => constant(cx, out, arg, &p, ev, av),
            "additionalProperties" => additional(cx, out, arg, &p, ev, av),
            "items" => items(cx, out, arg, &p, ev, av),
            "anyOf" | "oneOf" | "allOf" => combinator(cx, out, arg, &p, k, ev, av),
            "$defs" | "definitions" if path == cx.root_path => {} // see `definitions`
            _ => other(cx, out, arg, &p, k, ev, av),
        }
    }
}

/// Bounds, `pattern`, `format`, `uniqueItems`; anything else is unknown.
fn other(
    cx: &mut Cx<'_>,
    out: &mut Out,
    arg: &str,
    p: &str,
    k: &str,
    ev: Option<&Value>,
    av: Option<&Value>,
) {
    const LOWER: [&str; 5] = [
        "minimum",
        "exclusiveMinimum",
        "minLength",
        "minItems",
        "minProperties",
    ];
    const UPPER: [&str; 5] = [
        "maximum",
        "exclusiveMaximum",
        "maxLength",
        "maxItems",
        "maxProperties",
    ];
    let (class, text) = if LOWER.contains(&k) || UPPER.contains(&k) {
        bound(cx, k, LOWER.contains(&k), ev, av)
    } else if let Some(judged) = numeric_format(cx, ev, av).filter(|_| k == "format") {
        judged
    } else if k == "pattern" || k == "format" {
        match (ev, av) {
            (None, Some(v)) => (cx.narrowed(), format!("{k} `{}` added", text_of(v))),
            (Some(_), None) => (cx.widened(), format!("{k} removed")),
            _ => (
                Class::Unknown,
                format!("{k} changed from {} to {}", shown(ev), shown(av)),
            ),
        }
    } else if k == "uniqueItems" {
        let on = |v: Option<&Value>| v.and_then(Value::as_bool).unwrap_or(false);
        match (on(ev), on(av)) {
            (false, true) => (cx.narrowed(), "items must now be unique".to_owned()),
            (true, false) => (cx.widened(), "items need not be unique any more".to_owned()),
            _ => (Class::Unknown, format!("uniqueItems {}", verb(ev, av))),
        }
    } else {
        (Class::Unknown, format!("`{k}` {}", verb(ev, av)))
    };
    out.change(class, cx.say(arg, text), p);
}

/// The range of a numeric `format` (as schemars writes them: `int32`, `uint64`,
/// `double`, ...): lowest, highest, whole numbers only.
fn numeric_range(format: &str) -> Option<(f64, f64, bool)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into(), true),
        "uint8" => (0.0, u8::MAX.into(), true),
        "int16" => (i16::MIN.into(), i16::MAX.into(), true),
        "uint16" => (0.0, u16::MAX.into(), true),
        "int32" => (i32::MIN.into(), i32::MAX.into(), true),
        "uint32" => (0.0, u32::MAX.into(), true),
        "int64" => (i64::MIN as f64, i64::MAX as f64, true),
        "uint64" => (0.0, u64::MAX as f64, true),
        "float" => (f32::MIN.into(), f32::MAX.into(), false),
        "double" => (f64::MIN, f64::MAX, false),
        _ => return None,
    })
}

/// A numeric `format` changed to another (`uint32` to `double`): widened or narrowed.
fn numeric_format(cx: &Cx<'_>, ev: Option<&Value>, av: Option<&Value>) -> Option<(Class, String)> {
    let (e, a) = (ev?.as_str()?, av?.as_str()?);
    let ((emin, emax, eint), (amin, amax, aint)) = (numeric_range(e)?, numeric_range(a)?);
    let within = |(min, max, int): (f64, f64, bool), (bmin, bmax, bint): (f64, f64, bool)| {
        bmin <= min && max <= bmax && (int || !bint)
    };
    let (x, y) = ((emin, emax, eint), (amin, amax, aint));
    let (class, how) = match (within(x, y), within(y, x)) {
        (true, _) => (cx.widened(), "widened"),
        (_, true) => (cx.narrowed(), "narrowed"),
        _ => (Class::Breaking, "changed"),
    };
    Some((class, format!("format {how} from `{e}` to `{a}`")))
}

fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| canonical(v), str::to_owned)
}

/// A lower bound (`minimum`, `minLength`, ...) or an upper one moved, added or removed.
fn bound(
    cx: &Cx<'_>,
    k: &str,
    lower: bool,
    ev: Option<&Value>,
    av: Option<&Value>,
) -> (Class, String) {
    let num = |v: Option<&Value>| v.map(Value::as_f64);
    match (num(ev), num(av)) {
        (None, Some(Some(y))) => (cx.narrowed(), format!("{k} {y} added")),
        (Some(Some(_)), None) => (cx.widened(), format!("{k} removed")),
        (Some(Some(x)), Some(Some(y))) if (y < x) == lower => {
            (cx.widened(), format!("{k} relaxed from {x} to {y}"))
        }
        (Some(Some(x)), Some(Some(y))) => (cx.narrowed(), format!("{k} tightened from {x} to {y}")),
        _ => (
            Class::Unknown,
            format!("{k} changed from {} to {}", shown(ev), shown(av)),
        ),
    }
}

/// A `type`, as a set of type names; `None` inside for no `type` (any value).
fn type_set(v: Option<&Value>) -> Option<Option<BTreeSet<&str>>> {
    match v {
        None => Some(None),
        Some(Value::String(s)) => Some(Some(BTreeSet::from([s.as_str()]))),
        Some(Value::Array(items)) => items
            .iter()
            .map(Value::as_str)
            .collect::<Option<BTreeSet<&str>>>()
            .map(Some),
        Some(_) => None,
    }
}

/// Does every value of type set `small` also fit `big` (`integer` fits `number`)?
fn within(small: &Option<BTreeSet<&str>>, big: &Option<BTreeSet<&str>>) -> bool {
    match (small, big) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(s), Some(b)) => s
            .iter()
            .all(|t| b.contains(t) || (*t == "integer" && b.contains("number"))),
    }
}

fn type_text(set: &Option<BTreeSet<&str>>) -> String {
    match set {
        None => "any".into(),
        Some(s) => format!("`{}`", s.iter().copied().collect::<Vec<_>>().join(" | ")),
    }
}

fn types(cx: &Cx<'_>, out: &mut Out, arg: &str, p: &str, ev: Option<&Value>, av: Option<&Value>) {
    let (Some(e), Some(a)) = (type_set(ev), type_set(av)) else {
        let text = format!("type changed from {} to {}", shown(ev), shown(av));
        out.change(Class::Unknown, cx.say(arg, text), p);
        return;
    };
    let (from, to) = (type_text(&e), type_text(&a));
    let (class, how) = match (within(&e, &a), within(&a, &e)) {
        (true, true) => (Class::Cosmetic, "written differently"),
        (true, false) => (cx.widened(), "widened"),
        (false, true) => (cx.narrowed(), "narrowed"),
        (false, false) => (Class::Breaking, "changed"),
    };
    out.change(
        class,
        cx.say(arg, format!("type {how} from {from} to {to}")),
        p,
    );
}

fn enums(cx: &Cx<'_>, out: &mut Out, arg: &str, p: &str, ev: Option<&Value>, av: Option<&Value>) {
    match (ev, av) {
        (Some(Value::Array(e)), Some(Value::Array(a))) => {
            set_members(out, p, e, a, &mut |out, v, added| {
                let (class, how) = if added {
                    (cx.widened(), "added")
                } else {
                    (cx.narrowed(), "removed")
                };
                let text = format!("enum value `{}` {how}", canonical(v));
                out.note(class, cx.say(arg, text), p)
            });
        }
        (None, Some(Value::Array(a))) => {
            let text = format!("enum added ({})", shown(Some(&Value::Array(a.clone()))));
            out.change(cx.narrowed(), cx.say(arg, text), p);
        }
        (Some(Value::Array(_)), None) => {
            out.change(cx.widened(), cx.say(arg, "enum removed"), p);
        }
        _ => {
            let text = format!("enum changed from {} to {}", shown(ev), shown(av));
            out.change(Class::Unknown, cx.say(arg, text), p);
        }
    }
}

/// Two lists compared as sets of values (enum values, required names, versions):
/// `owner` makes (or finds) the change for a member `added` or removed; the positions
/// are claimed with [`claim_positions`].
pub(super) fn set_members(
    out: &mut Out,
    path: &str,
    e: &[Value],
    a: &[Value],
    owner: &mut dyn FnMut(&mut Out, &Value, bool) -> usize,
) {
    let ek: Vec<String> = e.iter().map(canonical).collect();
    let ak: Vec<String> = a.iter().map(canonical).collect();
    let mut owners = BTreeMap::new();
    for (k, v) in ek.iter().zip(e) {
        if !ak.contains(k) && !owners.contains_key(k) {
            owners.insert(k.clone(), owner(out, v, false));
        }
    }
    for (k, v) in ak.iter().zip(a) {
        if !ek.contains(k) && !owners.contains_key(k) {
            owners.insert(k.clone(), owner(out, v, true));
        }
    }
    claim_positions(out, path, &ek, &ak, &owners, || {
        format!("`{path}`: the same members in another order")
    });
}

fn constant(
    cx: &Cx<'_>,
    out: &mut Out,
    arg: &str,
    p: &str,
    ev: Option<&Value>,
    av: Option<&Value>,
) {
    let (class, text) = match (ev, av) {
        (None, Some(v)) => (cx.narrowed(), format!("const {} added", shown(Some(v)))),
        (Some(_), None) => (cx.widened(), "const removed".to_owned()),
        _ => (
            Class::Breaking,
            format!("const changed from {} to {}", shown(ev), shown(av)),
        ),
    };
    out.change(class, cx.say(arg, text), p);
}

/// `additionalProperties`: absent or `true` (any), `false` (none), or a schema.
fn additional(
    cx: &mut Cx<'_>,
    out: &mut Out,
    arg: &str,
    p: &str,
    ev: Option<&Value>,
    av: Option<&Value>,
) {
    #[derive(PartialEq)]
    enum Extra<'v> {
        Any,
        No,
        Schema(&'v Value),
    }
    fn extra(v: Option<&Value>) -> Option<Extra<'_>> {
        match v {
            None | Some(Value::Bool(true)) => Some(Extra::Any),
            Some(Value::Bool(false)) => Some(Extra::No),
            Some(s @ Value::Object(_)) => Some(Extra::Schema(s)),
            Some(_) => None,
        }
    }
    let (class, text) = match (extra(ev), extra(av)) {
        (Some(Extra::Schema(x)), Some(Extra::Schema(y))) => {
            return node(cx, out, &join(arg, "*"), p, x, y);
        }
        _ if matches!((ev, av), (Some(x), Some(y)) if json_eq(x, y)) => return,
        (Some(Extra::Any), Some(Extra::Any)) => (Class::Cosmetic, "written differently"),
        (Some(Extra::Any), Some(Extra::No)) => (cx.narrowed(), "no longer allowed"),
        (Some(Extra::No), Some(Extra::Any)) => (cx.widened(), "now allowed"),
        (Some(Extra::Any), Some(Extra::Schema(_))) => (cx.narrowed(), "now constrained"),
        (Some(Extra::Schema(_)), Some(Extra::Any)) => (cx.widened(), "no longer constrained"),
        (Some(Extra::No), Some(Extra::Schema(_))) => (cx.widened(), "now allowed, constrained"),
        (Some(Extra::Schema(_)), Some(Extra::No)) => (cx.narrowed(), "no longer allowed"),
        _ => (Class::Unknown, "changed"),
    };
    out.change(class, cx.say(arg, format!("other properties {text}")), p);
}

/// `items` (one schema for every item; the array form is compared as text).
fn items(
    cx: &mut Cx<'_>,
    out: &mut Out,
    arg: &str,
    p: &str,
    ev: Option<&Value>,
    av: Option<&Value>,
) {
    let schema = |v: &Value| v.is_object() || v.is_boolean();
    match (ev, av) {
        (Some(x), Some(y)) if schema(x) && schema(y) => node(cx, out, &format!("{arg}[]"), p, x, y),
        (Some(x), Some(y)) if json_eq(x, y) => {}
        (None, Some(_)) => {
            out.change(cx.narrowed(), cx.say(arg, "items now constrained"), p);
        }
        (Some(_), None) => {
            out.change(cx.widened(), cx.say(arg, "items no longer constrained"), p);
        }
        _ => {
            out.change(Class::Unknown, cx.say(arg, "items changed"), p);
        }
    }
}

/// `anyOf`, `oneOf`, `allOf`: branch by branch when their number is the same; a branch
/// added to or removed from an `anyOf` or `allOf` otherwise; else unknown.
fn combinator(
    cx: &mut Cx<'_>,
    out: &mut Out,
    arg: &str,
    p: &str,
    k: &str,
    ev: Option<&Value>,
    av: Option<&Value>,
) {
    let (Some(Value::Array(e)), Some(Value::Array(a))) = (ev, av) else {
        out.change(
            Class::Unknown,
            cx.say(arg, format!("`{k}` {}", verb(ev, av))),
            p,
        );
        return;
    };
    let has = |list: &[Value], x: &Value| list.iter().any(|y| json_eq(x, y));
    let grown = e.iter().all(|x| has(a, x));
    let shrunk = a.iter().all(|y| has(e, y));
    let same_text = json_eq(&Value::Array(e.clone()), &Value::Array(a.clone()));
    // Equal branches are still walked, for the `$ref`s inside.
    if e.len() == a.len() && (same_text || !(grown && shrunk)) {
        cx.one_of += usize::from(k == "oneOf");
        for (i, (x, y)) in e.iter().zip(a).enumerate() {
            node(cx, out, arg, &index(p, i), x, y);
        }
        cx.one_of -= usize::from(k == "oneOf");
        return;
    }
    let (class, text) = match (k, grown, shrunk) {
        (_, true, true) => (Class::Cosmetic, "the same branches in another order"),
        ("anyOf", true, _) => (cx.widened(), "alternatives added"),
        ("anyOf", _, true) => (cx.narrowed(), "alternatives removed"),
        ("allOf", true, _) => (cx.narrowed(), "conditions added"),
        ("allOf", _, true) => (cx.widened(), "conditions removed"),
        _ => (Class::Unknown, "branches changed"),
    };
    out.change(class, cx.say(arg, format!("`{k}`: {text}")), p);
}

/// `parent.name`, or `name` at the root.
pub(super) fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

/// Claims the differences inside the roots' `$defs` / `definitions`: a definition the
/// comparison followed (through `$ref`s) belongs to what that comparison found; one a
/// `$ref` names but the comparison never followed (under a keyword it does not model) is
/// unknown; one nothing names is unused, so cosmetic.
fn definitions(cx: &Cx<'_>, out: &mut Out, start: usize) {
    let mut refs = Vec::new();
    cx.roots.iter().for_each(|r| collect_refs(r, &mut refs));
    for defs in ["$defs", "definitions"] {
        let empty = Map::new();
        fn side<'v>(r: &'v Value, defs: &str) -> Option<Option<&'v Map<String, Value>>> {
            r.get(defs).map(Value::as_object)
        }
        let (e, a) = match (side(cx.roots[0], defs), side(cx.roots[1], defs)) {
            (Some(None), _) | (_, Some(None)) => continue, // not an object: unknown
            (e, a) => (e.flatten().unwrap_or(&empty), a.flatten().unwrap_or(&empty)),
        };
        let defs_path = key(cx.root_path, defs);
        let mut worst: Option<usize> = None;
        for (name, x, y) in super::claims::differing(e, a) {
            let pointer = format!("/{defs}/{}", name.replace('~', "~0").replace('/', "~1"));
            let id = definition(cx, out, start, &defs_path, name, &pointer, &refs, (x, y));
            out.claim(&key(&defs_path, name), id);
            if worst.is_none_or(|w| out.changes[id].class > out.changes[w].class) {
                worst = Some(id);
            }
        }
        if let Some(id) = worst {
            out.claim(&defs_path, id); // the whole `$defs` is absent on one side
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn definition(
    cx: &Cx<'_>,
    out: &mut Out,
    start: usize,
    defs_path: &str,
    name: &str,
    pointer: &str,
    refs: &[String],
    (x, y): (Option<&Value>, Option<&Value>),
) -> usize {
    let followed = cx.visited.iter().flatten().any(|p| {
        p == pointer
            || pointer
                .strip_prefix(p.as_str())
                .is_some_and(|r| r.starts_with('/'))
    });
    let named = refs.iter().any(|r| {
        r.strip_prefix('#')
            .and_then(|r| r.strip_prefix(pointer))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    });
    let say = |text: String| format!("{}: {}: {text}", cx.subject, schema_name(cx.mode));
    let path = key(defs_path, name);
    if followed {
        out.worst_since(start).unwrap_or_else(|| {
            let text = say("definitions reorganized, same meaning".into());
            out.note(Class::Cosmetic, text, &path)
        })
    } else if named {
        let text = say(format!(
            "definition `{name}` {} where this version does not compare it",
            verb(x, y)
        ));
        out.note(Class::Unknown, text, &path)
    } else {
        let text = say(format!("unused definition `{name}` {}", verb(x, y)));
        out.note(Class::Cosmetic, text, &path)
    }
}

fn collect_refs(v: &Value, refs: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                refs.push(r.clone());
            }
            m.values().for_each(|v| collect_refs(v, refs));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, refs)),
        _ => {}
    }
}
