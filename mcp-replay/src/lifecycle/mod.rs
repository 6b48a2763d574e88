//! The fixture lifecycle room: how fixtures are written. Update modes and atomic writes,
//! recordings turned into fixtures, and imports from other tools' recordings (feature
//! `command`).
//! (docs/ARCHITECTURE.md, "The runtime, by room".)

#[cfg(feature = "command")]
pub mod mcporter;
pub(crate) mod per_run;
pub mod record;
pub mod update;
