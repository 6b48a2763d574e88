//! Normalization: how a message becomes the form fixtures are compared and written in,
//! and the guard that keeps credentials out of them.
//!
//! What a replay asks of this folder, top to bottom:
//!
//! - `rules/`: [`Rules`](crate::Rules), what a test or a fixture folder's rules file
//!   asks for (public as `mcp_replay::_support::rules`): the default rules at a version, some of
//!   them turned off, then user rules by selector; `rules/file.rs` reads a rules file.
//! - `defaults.rs`: the default rules by name and version, the ones in force for one
//!   replay (`Defaults`), and the data of the rules both paths below apply; `paths.rs`:
//!   this machine's folders for the `paths` rule; `placeholder.rs`: the one grammar of
//!   placeholders.
//! - `general.rs`: the general path, the default rules over a parsed message;
//!   `fast.rs`: the fast path, the same rules over the text of the commonest response,
//!   which must agree with the general path wherever it answers.
//! - `selector/`: the selectors user rules are written with: the syntax (`mod.rs`), the
//!   parser (`parse.rs`), the walk over a value (`walk.rs`).
//! - `personal/`: personal data (e-mail addresses, telephone numbers, IP addresses, cards,
//!   IBANs, the user's own values) written as pseudonyms numbered per fixture, and the deny
//!   list that proves none survived (public as `mcp_replay::personal`).
//! - `secrets/`: the secret guard: a fixture holds no credential, a report shows none. The
//!   rules as data (`patterns.rs`), the scanner (`scan.rs`), masking (`mask.rs`).
//!
//! Data flows one way: the replay, the fixture, the harness and the report call in. What
//! this folder names from the rest of the crate: the JSON helpers and the path type
//! (`crate::data::json`), and, in `rules/` only, the contract classes a rules file may accept
//! (`crate::data::contract::Class`) and the error a rules file fails with (`crate::Error`); and
//! the side of a message (`crate::data::message::Direction`, a leaf). No fixture type: the
//! version a fixture's header pins comes in as a number (`Rules::for_fixture` is in
//! `fixture.rs`).

pub(crate) mod bind;
pub(crate) mod bound;
mod defaults;
pub(crate) mod fast;
mod general;
mod paths;
pub(crate) mod per_run;
pub mod personal;
pub(crate) mod placeholder;
pub mod rules;
pub(crate) mod secrets;
pub(crate) mod selector;
pub(crate) mod shape;

// What the replay and the mock name besides the modules above.
pub(crate) use defaults::{
    IDENTITY_META, SERVED_SERVER_INFO, SERVER_INFO, SERVER_INFO_META, TRACE_META,
};
pub(crate) use paths::FOLDER_PLACEHOLDERS;
pub use placeholder::REQUEST_ID;
pub(crate) use placeholder::{starts_any, starts_either};
