//! `properties` and `required`, judged together: a property added as required is one
//! change (`required argument `units` added`), not two.

use super::{claim_all, join, node, set_members, Cx, Mode};
use crate::analyses::contract::claims::{key, Out};
use crate::analyses::contract::Class;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Compares the `properties` and `required` of two schema objects at `path`.
pub(super) fn properties(
    cx: &mut Cx<'_>,
    out: &mut Out,
    arg: &str,
    path: &str,
    eo: &Map<String, Value>,
    ao: &Map<String, Value>,
) {
    let empty = Map::new();
    fn props(o: &Map<String, Value>) -> Option<Option<&Map<String, Value>>> {
        match o.get("properties") {
            None => Some(None),
            Some(Value::Object(m)) => Some(Some(m)),
            Some(_) => None,
        }
    }
    let required = |o: &Map<String, Value>| match o.get("required") {
        None => Some(Vec::new()),
        Some(Value::Array(names)) => names
            .iter()
            .map(|n| n.as_str().map(str::to_owned))
            .collect(),
        Some(_) => None,
    };
    let (Some(ep), Some(ap), Some(er), Some(ar)) =
        (props(eo), props(ao), required(eo), required(ao))
    else {
        let text = cx.say(arg, "`properties` or `required` is malformed");
        out.change(Class::Unknown, text, path);
        return;
    };
    let pp = key(path, "properties");
    let start = out.len();
    let mut owners = BTreeMap::new();
    let (epm, apm) = (ep.unwrap_or(&empty), ap.unwrap_or(&empty));
    let mut names: Vec<&String> = epm.keys().chain(apm.keys()).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let child = join(arg, name);
        let cp = key(&pp, name);
        match (epm.get(name), apm.get(name)) {
            (Some(x), Some(y)) => node(cx, out, &child, &cp, x, y),
            (x, _) => {
                let (class, text) = membership(cx, &child, x.is_none(), ar.contains(name));
                let description = format!("{}: {text}", cx.subject);
                owners.insert(name.clone(), out.change(class, description, &cp));
            }
        }
    }
    if ep.is_none() != ap.is_none() && eo.get("properties") != ao.get("properties") {
        claim_all(cx, out, arg, &pp, start); // `properties` absent on one side
    }
    let present = (eo.contains_key("required"), ao.contains_key("required"));
    required_names(
        cx,
        out,
        (arg, path, start),
        (&er, &ar),
        owners,
        (epm, apm),
        present,
    );
}

/// A property added (`added`) or removed: its class and description.
fn membership(cx: &Cx<'_>, child: &str, added: bool, now_required: bool) -> (Class, String) {
    match (cx.mode, added) {
        (Mode::Input, false) => (Class::Breaking, format!("argument `{child}` removed")),
        (Mode::Input, true) if now_required => (
            Class::Breaking,
            format!("required argument `{child}` added"),
        ),
        (Mode::Input, true) => (
            cx.cap(Class::Compatible),
            format!("optional argument `{child}` added"),
        ),
        (Mode::Output, false) => (Class::Breaking, format!("output field `{child}` removed")),
        (Mode::Output, true) => (
            cx.cap(Class::Compatible),
            format!("output field `{child}` added"),
        ),
    }
}

/// The names that entered or left `required`; a property added or removed already has
/// its change (in `owners`), which the name's position in `required` belongs to too.
#[allow(clippy::too_many_arguments)]
fn required_names(
    cx: &Cx<'_>,
    out: &mut Out,
    (arg, path, start): (&str, &str, usize),
    (er, ar): (&[String], &[String]),
    mut owners: BTreeMap<String, usize>,
    (epm, apm): (&Map<String, Value>, &Map<String, Value>),
    present: (bool, bool),
) {
    let rp = key(path, "required");
    let as_values = |names: &[String]| -> Vec<Value> {
        names.iter().map(|n| Value::String(n.clone())).collect()
    };
    set_members(
        out,
        &rp,
        &as_values(er),
        &as_values(ar),
        &mut |out, v, added| {
            let name = v.as_str().unwrap_or_default();
            if let Some(&id) = owners.get(name) {
                if epm.contains_key(name) != apm.contains_key(name) {
                    return id;
                }
            }
            let child = join(arg, name);
            let (class, text) = match (cx.mode, added) {
                (Mode::Input, true) => {
                    (Class::Breaking, format!("argument `{child}` made required"))
                }
                (Mode::Input, false) => (
                    cx.cap(Class::Compatible),
                    format!("argument `{child}` made optional"),
                ),
                (Mode::Output, true) => (
                    cx.cap(Class::Compatible),
                    format!("output field `{child}` made required (always present)"),
                ),
                (Mode::Output, false) => (
                    Class::Breaking,
                    format!("output field `{child}` no longer required"),
                ),
            };
            let id = out.note(class, format!("{}: {text}", cx.subject), &rp);
            owners.insert(name.to_owned(), id);
            id
        },
    );
    if present.0 != present.1 {
        // `required` absent on one side: the difference is at `required` itself.
        claim_all(cx, out, arg, &rp, start);
    }
}
