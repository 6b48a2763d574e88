//! The `mcp-replay` command (mcp-replay-cli) under another file name, a binary of the root
//! package: its tests (the repository's tests/) that run the command against the demo
//! server get it from cargo, as `CARGO_BIN_EXE_mcp-replay-for-tests`, beside
//! `CARGO_BIN_EXE_demo-server` (cargo tells a package's tests where its own binaries are,
//! and only those). Its help and messages say `mcp-replay`, as the command's do.

fn main() -> std::process::ExitCode {
    mcp_replay_cli::main()
}
