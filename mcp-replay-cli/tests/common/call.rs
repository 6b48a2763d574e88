//! What both halves of the `call` tests (tests/call.rs here, demo/tests/call.rs) use.

use super::{mcp_replay, text};
use std::path::Path;
use std::process::Output;

/// `mcp-replay call -o FIXTURE ARGS... -- SERVER...`.
pub fn call(fixture: &Path, args: &[&str], server: &[String]) -> Output {
    mcp_replay()
        .arg("call")
        .arg("-o")
        .arg(fixture)
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
