//! What the command's tests in this package share: the helpers of the command's own tests
//! (mcp-replay-cli/tests/common, `mcp_replay()` there runs this package's
//! `mcp-replay-for-tests`), and the demo server's binary.

#[path = "../../mcp-replay-cli/tests/common/mod.rs"]
mod shared;

pub use shared::*;

/// The `demo-server` binary of this package.
pub fn demo_server() -> std::path::PathBuf {
    env!("CARGO_BIN_EXE_demo-server").into()
}
