//! Contract drift: what a change to a listed item (a tool, prompt, resource, resource
//! template, a capability) means for the clients that depend on it, in classes a team can
//! gate CI on: breaking, compatible, cosmetic, or unknown when it cannot be judged.
//! `docs/contract.md` lists every class with an example.

use crate::data::json::{differences, json_eq, Difference};
use serde_json::Value;
use std::cmp::Reverse;
use std::fmt;

mod claims;
mod items;
mod schema;
#[cfg(test)]
mod tests;

/// What a change means for a client that depends on the contract. Ordered by severity:
/// `Cosmetic < Compatible < Unknown < Breaking`. This order (the derived `Ord`) is the one
/// definition of "most severe" that the replay's report, `mcp-replay diff`'s summary, its
/// JSON `class`, its JUnit failure `type` and `--fail-on` (through [`Class::reaches`]) use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Text for people only: a title, a description, annotation hints, icons.
    Cosmetic,
    /// A client keeps working: a tool added, an optional argument added, a type widened.
    Compatible,
    /// A change this version cannot judge (a schema construct it does not model): never
    /// taken for compatible.
    Unknown,
    /// A client may break: an item removed, a required argument added, a type narrowed.
    Breaking,
}

impl Class {
    /// The class's name: `breaking`, `compatible`, `cosmetic` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Cosmetic => "cosmetic",
            Class::Compatible => "compatible",
            Class::Unknown => "unknown",
            Class::Breaking => "breaking",
        }
    }

    /// Every class, least severe first (the order of `Ord`).
    pub const ALL: [Class; 4] = [
        Class::Cosmetic,
        Class::Compatible,
        Class::Unknown,
        Class::Breaking,
    ];

    /// The class named `name`, as [`Class::name`] spells it.
    pub fn parse(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Does a change of this class reach the gate `threshold` (`--fail-on`)? A class at
    /// or above it in the severity order does, and [`Class::Unknown`] reaches every gate:
    /// a change that cannot be judged may be breaking. So `breaking` fails on breaking and
    /// unknown changes, `compatible` also on compatible ones, `cosmetic` on every change.
    pub fn reaches(self, threshold: Class) -> bool {
        self == Class::Unknown || self >= threshold
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One named change to the contract, e.g. `breaking: tool `forecast`: required argument
/// `units` added`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// What it means for a client.
    pub class: Class,
    /// What changed, for people: `tool `forecast`: required argument `units` added`.
    pub description: String,
    /// Where, as a JSON path into the result (`.tools[0].inputSchema.required`), in the
    /// form the selector grammar reads back: into the actual result, or into the expected
    /// one for something removed.
    pub path: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class, self.description)
    }
}

/// The methods whose results describe a contract: their differences are classified.
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
