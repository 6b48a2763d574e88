//! What both halves of the `call` tests (tests/call.rs here, the root's tests/call.rs)
//! use.

use super::{mcp_replay, text};
use std::path::Path;
use std::process::Output;

/// The time limit these tests give a real server (a Python or Node peer) that is not
/// under test for its speed, unless a test sets its own: generous, since a peer that
/// imports its SDK on a loaded machine (the suite's other builds and tests on two cores)
/// takes seconds to answer `initialize`. A healthy run never waits for it.
fn generous(args: &[&str]) -> &'static [&'static str] {
    if args.contains(&"--timeout") || args.iter().any(|a| a.starts_with("--timeout=")) {
        &[]
    } else {
        &["--timeout", "30s"]
    }
}

/// `mcp-replay call -o FIXTURE ARGS... -- SERVER...`.
pub fn call(fixture: &Path, args: &[&str], server: &[String]) -> Output {
    mcp_replay()
        .arg("call")
        .arg("-o")
        .arg(fixture)
        .args(generous(args))
        .args(args)
        .arg("--")
        .args(server)
        .output()
        .unwrap()
}

/// `mcp-replay replay ARGS... FIXTURE -- SERVER...`.
pub fn replay(fixture: &Path, args: &[&str], server: &[String]) -> Output {
    mcp_replay()
        .arg("replay")
        .args(generous(args))
        .args(args)
        .arg(fixture)
        .arg("--")
        .args(server)
        .output()
        .unwrap()
}

/// Asserts that `output` exited 0, with its output in the message.
pub fn assert_ok(output: &Output) {
    let (out, err) = text(output);
    assert!(output.status.success(), "{out}{err}");
}

/// The (direction, method or "response") of each line of the fixture, header left out.
pub fn lines(fixture: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(fixture)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("direction").is_some())
        .collect()
}

/// The methods of the client's requests and notifications, in fixture order.
pub fn client_methods(fixture: &Path) -> Vec<String> {
    lines(fixture)
        .iter()
        .filter(|v| v["direction"] == "client->server")
        .filter_map(|v| v["message"]["method"].as_str().map(str::to_owned))
        .collect()
}
