//! Contract drift: what a change to a listed item (a tool, prompt, resource, resource
//! template, a capability) means for the clients that depend on it, in classes a team can
//! gate CI on: breaking, compatible, cosmetic, or unknown when it cannot be judged.
//! `docs/contract.md` lists every class with an example.

pub use crate::data::contract::{Change, Class};
use crate::data::json::{differences, json_eq, Difference};
use serde_json::Value;
use std::cmp::Reverse;

mod claims;
mod items;
mod schema;
#[cfg(test)]
mod tests;

/// The methods whose results describe a contract: their differences are classified.
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub const CONTRACT_METHODS: [&str; 6] = [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "initialize",
    "server/discover",
];

/// The contract changes from `expected` to `actual`, two results of a `method` request
/// (one of [`CONTRACT_METHODS`]; any other method gives none), most severe first. Every
/// difference between the two results belongs to exactly one change; a difference the
/// classifier cannot attribute is an [`Class::Unknown`] change, never dropped. Key order
/// and number spelling (`1` and `1.0`) never make a change.
///
/// ```
/// use mcp_replay::contract::{changes, Class};
/// use serde_json::json;
///
/// let before = json!({"tools": [{"name": "forecast", "inputSchema": {"type": "object",
///     "properties": {"city": {"type": "string"}}, "required": ["city"]}}]});
/// let after = json!({"tools": [{"name": "forecast", "inputSchema": {"type": "object",
///     "properties": {"city": {"type": "string"}, "units": {"type": "string"}},
///     "required": ["city", "units"]}}]});
/// let found = changes("tools/list", &before, &after);
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].class, Class::Breaking);
/// assert_eq!(found[0].to_string(), "breaking: tool `forecast`: required argument `units` added");
/// ```
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub fn changes(method: &str, expected: &Value, actual: &Value) -> Vec<Change> {
    classify(method, expected, actual).changes
}

/// The changes between two results and, for each of their differences, its change.
#[derive(Debug)]
pub(crate) struct Classified {
    /// The changes, most severe first.
    pub(crate) changes: Vec<Change>,
    /// Every difference between the two results ([`differences`]).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) differences: Vec<Difference>,
    /// For each difference, the index in `changes` of the change it belongs to.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) owners: Vec<usize>,
}

/// [`changes`], with the attribution of every difference to its change.
pub(crate) fn classify(method: &str, expected: &Value, actual: &Value) -> Classified {
    let mut out = claims::Out::default();
    let contract = CONTRACT_METHODS.contains(&method);
    if !contract || json_eq(expected, actual) {
        return Classified {
            changes: Vec::new(),
            differences: Vec::new(),
            owners: Vec::new(),
        };
    }
    if let (Value::Object(e), Value::Object(a)) = (expected, actual) {
        let resources = |noun, field| items::Resources { noun, field };
        match method {
            "tools/list" => items::listing(&mut out, e, a, "tools", &items::Tools),
            "prompts/list" => items::listing(&mut out, e, a, "prompts", &items::Prompts),
            "resources/list" => {
                items::listing(&mut out, e, a, "resources", &resources("resource", "uri"))
            }
            "resources/templates/list" => items::listing(
                &mut out,
                e,
                a,
                "resourceTemplates",
                &resources("resource template", "uriTemplate"),
            ),
            "initialize" => items::initialize(&mut out, e, a),
            _ => items::discover(&mut out, e, a),
        }
    }
    let differences = differences(expected, actual);
    let (changes, owners) = out.finish(&differences);
    let (changes, moved) = most_severe_first(changes);
    Classified {
        changes,
        owners: owners.into_iter().map(|o| moved[o]).collect(),
        differences,
    }
}

/// The changes sorted most severe first (stably), each found once (a definition reached
/// twice by the same way is judged twice); and where each old index went.
fn most_severe_first(changes: Vec<Change>) -> (Vec<Change>, Vec<usize>) {
    let mut order: Vec<usize> = (0..changes.len()).collect();
    order.sort_by_key(|&i| Reverse(changes[i].class));
    let mut moved = vec![0; changes.len()];
    let mut sorted: Vec<Change> = Vec::with_capacity(changes.len());
    for old in order {
        moved[old] = match sorted.iter().position(|c| *c == changes[old]) {
            Some(same) => same,
            None => {
                sorted.push(changes[old].clone());
                sorted.len() - 1
            }
        };
    }
    (sorted, moved)
}
