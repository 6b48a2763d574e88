//! What both halves of the end-to-end tests (tests/cli.rs here, demo/tests/cli.rs) use.

use super::{mcp_replay, text};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `command` with `input` on stdin (written line by line with small pauses, as a
/// client would), and returns its output.
pub fn run_with_input(mut command: Command, input: &[&str]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in input {
        writeln!(stdin, "{line}").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150));
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// A client's `initialize`, as a line on stdin.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}"#;

/// A `tools/call job_status` request, as a line on stdin.
pub const JOB: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job_status","arguments":{}}}"#;

/// `check ARGS` in `dir`: exit code and stdout.
pub fn check_in(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = mcp_replay()
        .current_dir(dir)
        .arg("check")
        .args(args)
        .output()
        .unwrap();
    (output.status.code(), text(&output).0)
}
