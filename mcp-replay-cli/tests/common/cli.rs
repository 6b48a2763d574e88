//! What both halves of the end-to-end tests (tests/cli.rs here, the root's tests/cli.rs)
//! use.

use super::{mcp_replay, text};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `command` with `input` on stdin, as a client would: each request waits for its
/// answer on stdout (up to 30 s) before the next line goes, so the exchange has one order
/// however loaded the machine is; a notification goes on at once. Returns the output.
pub fn run_with_input(mut command: Command, input: &[&str]) -> Output {
    use std::io::BufRead;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines, answers) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        for line in std::io::BufReader::new(stdout)
            .split(b'\n')
            .map_while(Result::ok)
        {
            let _ = lines.send(String::from_utf8_lossy(&line).into_owned());
            all.extend_from_slice(&line);
            all.push(b'\n');
        }
        all
    });
    for line in input {
        writeln!(stdin, "{line}").unwrap();
        let request: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
        let (Some(id), true) = (request.get("id"), request.get("method").is_some()) else {
            continue;
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            let Ok(answer) = answers.recv_timeout(left) else {
                break;
            };
            let answer: serde_json::Value = serde_json::from_str(&answer).unwrap_or_default();
            if answer.get("method").is_none() && answer.get("id") == Some(id) {
                break;
            }
        }
    }
    drop(stdin);
    let stdout = reader.join().unwrap();
    let mut output = child.wait_with_output().unwrap();
    output.stdout = stdout;
    output
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
