//! The engine room: what runs a session. The replay (its sans-I/O core and the shell),
//! the mock (the fixture playing the server), the in-process pipe, child processes, and
//! Streamable HTTP (the bridge and the front).
//! (docs/ARCHITECTURE.md, "The runtime, by room".)

#[cfg(feature = "http")]
pub mod http;
pub(crate) mod int_map;
pub mod mock;
pub(crate) mod polls;
pub mod process;
pub(crate) mod replay;
pub(crate) mod transport;
