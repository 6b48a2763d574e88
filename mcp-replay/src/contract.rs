//! Contract drift: what a change to a listed item (a tool, prompt, resource, resource
//! template, a capability) means for the clients that depend on it, in classes a team can
//! gate CI on: breaking, compatible, cosmetic, or unknown when it cannot be judged.
//! `docs/contract.md` lists every class with an example.

use serde_json::Value;
use std::fmt;

/// What a change means for a client that depends on the contract. Ordered by severity:
/// `Cosmetic < Compatible < Unknown < Breaking`.
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

    /// The class named `name`, as [`Class::name`] spells it.
    pub fn parse(name: &str) -> Option<Class> {
        [
            Class::Cosmetic,
            Class::Compatible,
            Class::Unknown,
            Class::Breaking,
        ]
        .into_iter()
        .find(|c| c.name() == name)
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
    /// form the selector grammar reads back.
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
/// (one of [`CONTRACT_METHODS`]; any other method gives none). Every difference between the
/// two results belongs to exactly one change; a difference the classifier cannot attribute
/// is an [`Class::Unknown`] change, never dropped.
pub fn changes(method: &str, expected: &Value, actual: &Value) -> Vec<Change> {
    let _ = (method, expected, actual);
    Vec::new()
}
