//! `mcp-replay`: the command (its code is the library, src/lib.rs).

fn main() -> std::process::ExitCode {
    mcp_replay_cli::main()
}
