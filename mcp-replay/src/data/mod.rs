//! The data room: what a fixture is and what the protocol says, with no behaviour of a
//! replay. The fixture (parsed, written, correlated), the message shapes and the protocol's
//! eras and keys, JSON equality, diffs and the canonical writer, a fixed text searched in
//! many lines, recorded timing. Nothing here imports the engine, the findings or the
//! harness.
//! (docs/ARCHITECTURE.md, "The runtime, by room".)

pub(crate) mod contract;
pub mod explored;
pub(crate) mod faults;
pub mod fixture;
pub(crate) mod json;
pub(crate) mod message;
pub(crate) mod needle;
pub mod protocol;
pub(crate) mod protocol_check;
pub(crate) mod timing;
