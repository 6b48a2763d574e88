//! The classes of a contract change and a change itself ([`Class`], [`Change`]): data the
//! fixture header (`accept`), the rules (`classify`), the findings and the contract diff
//! (`analyses/contract`, which makes them) all read. Public as `mcp_replay::contract`.

use std::fmt;

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
