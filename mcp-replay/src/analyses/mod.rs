//! The analyses room: what is read from fixtures without a replay. Contract changes
//! (breaking to cosmetic), the contract diff of two fixtures, a server's coverage (feature
//! `command`), and protocol validity.
//! (docs/ARCHITECTURE.md, "The runtime, by room".)

pub mod contract;
#[cfg(feature = "command")]
pub mod coverage;
pub mod diff;
#[cfg(feature = "explore")]
pub(crate) mod explore;
pub mod validate;
