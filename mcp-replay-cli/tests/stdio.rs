//! How the command ends a session with a server on stdio, and what it makes of what the
//! server does at the edges of one: a response written twice, a server that does not
//! exit when its input closes (or ignores SIGTERM too), a banner on stdout. The server is
//! `tests/servers/edge_server.py` (python3, standard library only).

mod common;

use common::{mcp_replay, temp_dir, text, workspace};

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LOOKUP: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}"#;

/// No test may hang: a command still running after this long fails its test.
const LIMIT: Duration = Duration::from_secs(30);

/// `python3 tests/servers/edge_server.py ARGS`, as the words after `--`.
fn edge(args: &[&str]) -> Vec<String> {
    let script = workspace().join("tests/servers/edge_server.py");
    ["python3".to_owned(), script.display().to_string()]
        .into_iter()
        .chain(args.iter().map(|a| a.to_string()))
        .collect()
}

fn seed() -> PathBuf {
    workspace().join("fixtures/lookup_issue.jsonl")
}

/// Runs `command` with `input` written line by line (with small pauses, as a client
/// would), stdin then closed; its output and how long it took. Killed (and the test
/// failed) after [`LIMIT`].
fn run(mut command: Command, input: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in input {
        writeln!(stdin, "{line}").unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(stdin);
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = out.read_to_end(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = err.read_to_end(&mut text);
        text
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the command still ran after {LIMIT:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    (output, started.elapsed())
}

/// A file for the server's process id (`--pid-file`).
struct PidFile(PathBuf);

impl PidFile {
    fn new(dir: &Path) -> PidFile {
        PidFile(dir.join("server.pid"))
    }

    fn arg(&self) -> String {
        self.0.display().to_string()
    }

    /// Whether the process still exists (a zombie counts: it was not reaped).
    #[cfg(target_os = "linux")]
    fn alive(&self) -> bool {
        let pid = std::fs::read_to_string(&self.0).expect("the server wrote its pid");
        Path::new(&format!("/proc/{}", pid.trim())).exists()
    }
}

fn replay(args: &[&str], server: &[String]) -> Command {
    let mut command = mcp_replay();
    command
        .arg("replay")
        .args(args)
        .arg(seed())
        .arg("--")
        .args(server);
    command
}

#[test]
fn replay_reports_a_response_written_twice_every_time() {
    let mut command = mcp_replay();
    command.args(["replay", "--timeout", "2s"]);
    for _ in 0..40 {
        command.arg(seed());
    }
    command.arg("--").args(edge(&["--twice"]));
    let (output, _) = run(command, &[]);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    let caught = out.matches(": 1 mismatch (1 id)\n").count();
    assert_eq!(
        caught, 40,
        "the duplicate was reported in {caught} of 40: {out}"
    );
    assert!(out.contains("0 passed, 40 failed"), "{out}");
}

#[test]
fn replay_stops_a_server_that_does_not_exit_with_sigterm_and_notes_it() {
    let dir = temp_dir("stdio", "sigterm");
    let pid = PidFile::new(&dir);
    let command = replay(
        &["--timeout", "1500ms"],
        &edge(&["--ignore-eof", "--pid-file", &pid.arg()]),
    );
    let (output, took) = run(command, &[]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(
        out.contains(": ok (")
            && out.contains(
                "\n    note: the server did not exit within 1500 ms after its input closed: \
                 stopped with SIGTERM\n"
            ),
        "{out}"
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
    #[cfg(target_os = "linux")]
    assert!(!pid.alive(), "the server is still there");

    // --strict-exit makes it a finding; --format json carries the note otherwise.
    let (output, _) = run(
        replay(
            &["--timeout", "1500ms", "--strict-exit"],
            &edge(&["--ignore-eof"]),
        ),
        &[],
    );
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("1 mismatch (1 server failure)") && out.contains("stopped with SIGTERM"),
        "{out}"
    );
    let (output, _) = run(
        replay(
            &["--timeout", "1500ms", "--format", "json"],
            &edge(&["--ignore-eof"]),
        ),
        &[],
    );
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let notes = &document["fixtures"][0]["notes"];
    assert!(
        notes[0].as_str().unwrap().ends_with("stopped with SIGTERM"),
        "{document:#}"
    );
}

#[test]
fn replay_kills_a_server_that_ignores_sigterm_too() {
    let dir = temp_dir("stdio", "sigkill");
    let pid = PidFile::new(&dir);
    let command = replay(
        &["--timeout", "1500ms"],
        &edge(&["--ignore-term", "--pid-file", &pid.arg()]),
    );
    let (output, took) = run(command, &[]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(
        out.contains("nor within 1500 ms after SIGTERM: stopped with SIGKILL"),
        "{out}"
    );
    assert!(took < Duration::from_secs(8), "took {took:?}");
    #[cfg(target_os = "linux")]
    assert!(!pid.alive(), "the server is still there");
}

#[test]
fn record_ends_when_the_client_leaves_even_if_the_server_does_not_exit() {
    let dir = temp_dir("stdio", "record");
    let pid = PidFile::new(&dir);
    let fixture = dir.join("lookup.jsonl");
    let mut command = mcp_replay();
    command
        .arg("record")
        .arg("-o")
        .arg(&fixture)
        .arg("--")
        .args(edge(&["--ignore-term", "--pid-file", &pid.arg()]));
    let (output, took) = run(command, &[INITIALIZE, INITIALIZED, LOOKUP]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(out.contains("Issue 42: example"), "{out}");
    assert!(
        err.contains(
            "note: the server did not exit within 2000 ms after its input closed, nor within \
             2000 ms after SIGTERM: stopped with SIGKILL"
        ),
        "{err}"
    );
    // Two grace periods of 2 s, and the client's pauses.
    assert!(took < Duration::from_secs(10), "took {took:?}");
    #[cfg(target_os = "linux")]
    assert!(!pid.alive(), "the server is still there");
    assert_eq!(
        std::fs::read_to_string(&fixture).unwrap().lines().count(),
        5
    );
}

#[test]
fn call_stops_a_server_that_does_not_exit_and_notes_it() {
    let dir = temp_dir("stdio", "call");
    let pid = PidFile::new(&dir);
    let fixture = dir.join("lookup.jsonl");
    let mut command = mcp_replay();
    command
        .args(["call", "--timeout", "1500ms", "-o"])
        .arg(&fixture)
        .args(["--tool", "lookup_issue", "--"])
        .args(edge(&["--ignore-eof", "--pid-file", &pid.arg()]));
    let (output, took) = run(command, &[]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(
        err.contains("note: the server did not exit within 1500 ms after its input closed: stopped with SIGTERM"),
        "{err}"
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
    #[cfg(target_os = "linux")]
    assert!(!pid.alive(), "the server is still there");
    // Its replay says the same: a note, and a pass.
    let replay = mcp_replay()
        .args(["replay", "--timeout", "1500ms"])
        .arg(&fixture)
        .arg("--")
        .args(edge(&["--ignore-eof"]))
        .output()
        .unwrap();
    let (out, err) = text(&replay);
    assert!(replay.status.success(), "{out}{err}");
    assert!(out.contains("note: the server did not exit"), "{out}");
}

const BANNER: &str = "Edge server 1.0 listening on stdio";

#[test]
fn replay_fails_on_a_banner_on_stdout_unless_allowed() {
    let server = edge(&["--banner", BANNER]);
    let (output, _) = run(replay(&[], &server), &[]);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("1 mismatch (1 stray output)")
            && out.contains(&format!(
                "stray output: the server wrote 1 line on stdout that is not a JSON-RPC message: \"{BANNER}\""
            )),
        "{out}"
    );
    let (output, _) = run(replay(&["--allow-stray-output"], &server), &[]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(
        out.contains("note: the server wrote 1 line on stdout that is not a JSON-RPC message"),
        "{out}"
    );
    // --update refuses without the opt-in, and says how to opt in.
    let dir = temp_dir("stdio", "update");
    let copy = dir.join("lookup.jsonl");
    std::fs::copy(seed(), &copy).unwrap();
    let mut update = mcp_replay();
    update
        .args(["replay", "--update"])
        .arg(&copy)
        .arg("--")
        .args(&server);
    let (output, _) = run(update, &[]);
    let (out, _) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(out.contains("\"allow_stray_output\": true"), "{out}");
}

#[test]
fn record_fails_on_a_banner_unless_allowed_and_then_the_fixture_allows_it_too() {
    let dir = temp_dir("stdio", "record-banner");
    let server = edge(&["--banner", BANNER]);
    let record = |fixture: &Path, allow: bool| {
        let mut command = mcp_replay();
        command.arg("record").arg("-o").arg(fixture);
        if allow {
            command.arg("--allow-stray-output");
        }
        command.arg("--").args(&server);
        run(command, &[INITIALIZE, INITIALIZED, LOOKUP]).0
    };
    let strict = dir.join("strict.jsonl");
    let output = record(&strict, false);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(out.starts_with(BANNER), "the client got every byte: {out}");
    assert!(
        err.contains(&format!(
            "the server wrote 1 line on stdout that is not a JSON-RPC message: \"{BANNER}\""
        )) && err.contains("--allow-stray-output"),
        "{err}"
    );
    // Written, and its replay fails the same way.
    let (output, _) = run(
        {
            let mut c = mcp_replay();
            c.arg("replay").arg(&strict).arg("--").args(&server);
            c
        },
        &[],
    );
    assert_eq!(output.status.code(), Some(1), "{:?}", text(&output));
    assert!(text(&output).0.contains("stray output"));

    let allowed = dir.join("allowed.jsonl");
    let output = record(&allowed, true);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(err.contains("note: the server wrote 1 line"), "{err}");
    let written = std::fs::read_to_string(&allowed).unwrap();
    assert!(
        written.starts_with("{\"mcp_replay\":1,\"allow_stray_output\":true}\n"),
        "{written}"
    );
    let mut again = mcp_replay();
    again.arg("replay").arg(&allowed).arg("--").args(&server);
    let (output, _) = run(again, &[]);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(out.contains("note: the server wrote 1 line"), "{out}");
}

#[test]
fn call_fails_on_a_banner_unless_allowed_and_then_the_fixture_allows_it_too() {
    let dir = temp_dir("stdio", "call-banner");
    let server = edge(&["--banner", BANNER]);
    let call = |fixture: &Path, allow: bool| {
        let mut command = mcp_replay();
        command.arg("call").arg("-o").arg(fixture);
        if allow {
            command.arg("--allow-stray-output");
        }
        command.args(["--tool", "lookup_issue", "--"]).args(&server);
        run(command, &[]).0
    };
    let strict = dir.join("strict.jsonl");
    let output = call(&strict, false);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains(&format!(
            "mcp-replay call: the server wrote 1 line on stdout that is not a JSON-RPC message: \"{BANNER}\""
        )) && err.contains("--allow-stray-output"),
        "{err}"
    );
    assert!(strict.exists(), "written: it pins what the server did");

    let allowed = dir.join("allowed.jsonl");
    let output = call(&allowed, true);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    let written = std::fs::read_to_string(&allowed).unwrap();
    assert!(
        written.starts_with("{\"mcp_replay\":1,\"allow_stray_output\":true}\n"),
        "{written}"
    );
    let mut again = mcp_replay();
    again.arg("replay").arg(&allowed).arg("--").args(&server);
    let (output, _) = run(again, &[]);
    assert!(output.status.success(), "{:?}", text(&output));
}

#[test]
fn serve_fails_on_a_client_line_that_is_not_json_rpc_unless_allowed() {
    let call = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}"#;
    let input = ["client 2.0 starting", call];
    let mut strict = mcp_replay();
    strict.arg("serve").arg(seed());
    let (output, _) = run(strict, &input);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains(r#""code":-32700"#),
        "a parse error answers it: {out}"
    );
    assert!(out.contains("Issue 42: example"), "{out}");
    assert!(
        err.contains(
            "stray output: the client wrote 1 line on the server's stdin that is not a JSON-RPC message: \"client 2.0 starting\""
        ),
        "{err}"
    );
    let mut allowed = mcp_replay();
    allowed.args(["serve", "--allow-stray-output"]).arg(seed());
    let (output, _) = run(allowed, &input);
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(!out.contains("-32700"), "{out}");
    assert!(err.contains("note: the client wrote 1 line"), "{err}");
}
