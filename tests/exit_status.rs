//! The exit-status rule of `docs/cli.md` ("Exit status") as one table: every subcommand
//! against each kind of outcome (success, a finding, a missing file, a malformed file, a
//! file holding a secret, a server that cannot start, a server that exits at once, a usage
//! error), with the exit status and the line that says why.
//!
//! 0 is success; 1 a finding (what was tested did not do what was expected); 2 a usage or
//! input error (the command could not do its job). `check` reports problems in files as
//! findings (1); `record` passes a failed server's own status through.

mod command;

use command::{demo_server, mcp_replay, temp_dir, workspace};

use std::io::Write as _;
use std::path::Path;
use std::process::Stdio;

/// Where the line that says why is, and how it begins.
#[derive(Debug, Clone, Copy)]
enum Says {
    /// The first line of stdout.
    Out(&'static str),
    /// The first line of stderr.
    Err(&'static str),
    /// A line of stderr: for `call` and `record`, which tell what they do on stderr first.
    ErrLine(&'static str),
}

/// One row: a subcommand in one situation.
struct Row {
    /// `subcommand: situation`, for the failure message.
    name: &'static str,
    args: Vec<String>,
    /// Lines written to stdin (a client), with a pause after each.
    input: &'static [&'static str],
    code: i32,
    says: Says,
}

fn row(
    name: &'static str,
    args: &[&str],
    input: &'static [&'static str],
    code: i32,
    says: Says,
) -> Row {
    Row {
        name,
        args: args.iter().map(|a| a.to_string()).collect(),
        input,
        code,
        says,
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const JOB: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job_status","arguments":{}}}"#;
/// The request `fixtures/lookup_issue.jsonl` records, and one it does not.
const LOOKUP: &str = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}"#;
const LOOKUP_OTHER: &str = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":43}}}"#;

/// A program no `PATH` holds.
const NO_SERVER: &str = "no-such-server-mcp-replay";

/// A GitHub token as the secret guard knows it (`ghp_` and 36 letters or digits), built
/// here so that no source file holds one.
fn token() -> String {
    format!("ghp_{}", "a1B2c3D4e5".repeat(4).split_at(36).0)
}

/// The files the rows read, in `dir`.
fn files(dir: &Path) {
    let good = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
    let put = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    put("good.jsonl", &good);
    put(
        "drifted.jsonl",
        &good.replace("Issue 42: example", "Issue 42: other"),
    );
    put("malformed.jsonl", "{\"direction\":\n");
    put("empty.jsonl", "");
    put(
        "secret.jsonl",
        &good.replace("Issue 42: example", &format!("key {}", token())),
    );
    put("bad.rules.json", "{");
    let echo =
        std::fs::read_to_string(workspace().join("mcp-replay/tests/fixtures/mcporter/echo.ndjson"))
            .unwrap();
    put("echo.ndjson", &echo);
    put(
        "secret.ndjson",
        &echo.replace("\"text\":\"Echo: ", &format!("\"text\":\"{} ", token())),
    );
    // check: each case in a Cargo project of its own whose test names its fixture, so
    // that no fixture is unreferenced.
    for (folder, name) in [("check-ok", "good"), ("check-pending", "good")] {
        put(&format!("{folder}/{name}.jsonl"), &good);
        command::cargo_project(&dir.join(folder), &[name]);
    }
    put("check-pending/good.jsonl.new", &good);
    put("pending/a.jsonl", &good);
    put("pending/a.jsonl.new", &good);
    put("rejected/a.jsonl", &good);
    put("rejected/a.jsonl.new", &good);
    put("broken/a.jsonl", &good);
    put("broken/a.jsonl.new", "{\"direction\":\n");
    put("leaky/a.jsonl", &good);
    put(
        "leaky/a.jsonl.new",
        &good.replace("Issue 42: example", &format!("key {}", token())),
    );
    put("reviewed/a.jsonl", &good);
    put("reviewed/a.jsonl.new", &good);
    std::fs::create_dir_all(dir.join("out")).unwrap();
}

fn rows(demo: &str) -> Vec<Row> {
    use Says::{Err, ErrLine, Out};
    vec![
        // replay. Every server case applies: it starts the server.
        row("replay: success", &["replay", "good.jsonl", "--", demo], &[], 0, Out("mcp-replay: good.jsonl: ok (")),
        row("replay: finding", &["replay", "drifted.jsonl", "--", demo], &[], 1, Out("mcp-replay: drifted.jsonl: FAILED (")),
        row("replay: missing file", &["replay", "missing.jsonl", "--", demo], &[], 2, Out("mcp-replay: missing.jsonl: ERROR (")),
        row("replay: malformed file", &["replay", "malformed.jsonl", "--", demo], &[], 2, Out("mcp-replay: malformed.jsonl: ERROR (")),
        row("replay: empty file", &["replay", "empty.jsonl", "--", demo], &[], 2, Out("mcp-replay: empty.jsonl: ERROR (")),
        row("replay: secret in the file", &["replay", "secret.jsonl", "--", demo], &[], 2, Out("mcp-replay: secret.jsonl: ERROR (")),
        row("replay: a missing file among others", &["replay", "drifted.jsonl", "missing.jsonl", "--", demo], &[], 2, Out("mcp-replay: drifted.jsonl: FAILED (")),
        row("replay: server that cannot start", &["replay", "good.jsonl", "--", NO_SERVER], &[], 2,
            Err("mcp-replay: could not start the server `no-such-server-mcp-replay`: No such file or directory")),
        row("replay: server that exits at once", &["replay", "good.jsonl", "--", "false"], &[], 1, Out("mcp-replay: good.jsonl: FAILED (")),
        row("replay: server that exits at once with 3", &["replay", "good.jsonl", "--", "sh", "-c", "exit 3"], &[], 1, Out("mcp-replay: good.jsonl: FAILED (")),
        row("replay: usage error", &["replay", "--no-such-option", "good.jsonl", "--", demo], &[], 2, Err("error: unexpected argument '--no-such-option' found")),

        // serve: the fixture plays the server, so no server case applies.
        row("serve: success", &["serve", "good.jsonl"], &[LOOKUP], 0, Out(r#"{"jsonrpc":"2.0","id":9,"result":"#)),
        row("serve: finding", &["serve", "good.jsonl"], &[LOOKUP_OTHER], 1, Out(r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"#)),
        row("serve: missing file", &["serve", "missing.jsonl"], &[], 2, Err("mcp-replay: reading missing.jsonl: No such file or directory")),
        row("serve: malformed file", &["serve", "malformed.jsonl"], &[], 2, Err("mcp-replay: malformed.jsonl:1:13: not valid JSON")),
        row("serve: empty file", &["serve", "empty.jsonl"], &[], 2, Err("mcp-replay: empty.jsonl: the fixture holds no message")),
        row("serve: secret in the file", &["serve", "secret.jsonl"], &[], 2, Err("mcp-replay: secret.jsonl:2: .result.content[0].text holds what looks like a secret")),
        row("serve: usage error", &["serve"], &[], 2, Err("error: the following required arguments were not provided:")),

        // diff compares two files: no server case applies.
        row("diff: success", &["diff", "good.jsonl", "good.jsonl"], &[], 0, Out("mcp-replay diff: good.jsonl -> good.jsonl: no change")),
        row("diff: finding", &["diff", "good.jsonl", "drifted.jsonl"], &[], 1, Out("mcp-replay diff: good.jsonl -> drifted.jsonl: 1 mismatch (1 result)")),
        row("diff: missing file", &["diff", "missing.jsonl", "good.jsonl"], &[], 2, Err("mcp-replay: missing.jsonl does not exist")),
        row("diff: malformed file", &["diff", "good.jsonl", "malformed.jsonl"], &[], 2, Err("mcp-replay: malformed.jsonl:1:13: not valid JSON")),
        row("diff: empty file", &["diff", "good.jsonl", "empty.jsonl"], &[], 2, Err("mcp-replay: empty.jsonl: the fixture holds no message")),
        row("diff: secret in the file", &["diff", "good.jsonl", "secret.jsonl"], &[], 2, Err("mcp-replay: secret.jsonl:2: .result.content[0].text holds what looks like a secret")),
        row("diff: usage error", &["diff", "good.jsonl"], &[], 2, Err("error: the following required arguments were not provided:")),

        // check: a problem in a file is what it reports (1); a path that does not exist is
        // an input error (2). No server.
        row("check: success", &["check", "check-ok"], &[], 0, Out("1 fixtures checked: 0 problems, 0 warnings")),
        row("check: finding", &["check", "check-pending"], &[], 1, Out("check-pending/good.jsonl.new: pending re-recording")),
        row("check: missing file", &["check", "missing.jsonl"], &[], 2, Err("mcp-replay: missing.jsonl does not exist")),
        row("check: malformed file", &["check", "malformed.jsonl"], &[], 1, Out("malformed.jsonl:1:13: not valid JSON")),
        row("check: empty file", &["check", "empty.jsonl"], &[], 1, Out("empty.jsonl: the fixture holds no message")),
        row("check: secret in the file", &["check", "secret.jsonl"], &[], 1, Out("secret.jsonl:2: .result.content[0].text holds what looks like a secret")),
        row("check: usage error", &["check", "--output", "x"], &[], 2, Err("error: unexpected argument '--output' found")),

        // call: its input files are --rules; the secret is in what the server sent.
        row("call: success", &["call", "-o", "out/call.jsonl", "--tool", "echo", "text=hi", "--", demo], &[], 0, Out("{")),
        row("call: finding", &["call", "-o", "out/unknown.jsonl", "--tool", "no_such_tool", "--", demo], &[], 1,
            ErrLine("mcp-replay call: step 1 (`tools/call no_such_tool`) got a JSON-RPC error")),
        row("call: missing file", &["call", "--rules", "missing.rules.json", "-o", "out/x.jsonl", "--list-tools", "--", demo], &[], 2,
            Err("mcp-replay: reading missing.rules.json: No such file or directory")),
        row("call: malformed file", &["call", "--rules", "bad.rules.json", "-o", "out/x.jsonl", "--list-tools", "--", demo], &[], 2,
            Err("mcp-replay: bad.rules.json: ")),
        row("call: secret in the recording", &["call", "-o", "out/leak.jsonl", "--tool", "job_status", "--", demo, "leaky"], &[], 2,
            ErrLine("mcp-replay: refusing to write out/leak.jsonl: line ")),
        row("call: server that cannot start", &["call", "-o", "out/x.jsonl", "--list-tools", "--", NO_SERVER], &[], 2,
            Err("mcp-replay: could not start the server `no-such-server-mcp-replay`: No such file or directory")),
        row("call: server that exits at once", &["call", "-o", "out/x.jsonl", "--list-tools", "--", "false"], &[], 1,
            Err("mcp-replay call: the server `false` exited with status 1 before answering `initialize`: out/x.jsonl not written")),
        row("call: server that exits at once with 3", &["call", "-o", "out/x.jsonl", "--list-tools", "--", "sh", "-c", "exit 3"], &[], 1,
            Err("mcp-replay call: the server `sh -c 'exit 3'` exited with status 3 before answering `initialize`")),
        row("call: usage error", &["call", "-o", "out/x.jsonl", "--", demo], &[], 2, Err("mcp-replay: no step to run")),

        // record: a transparent proxy; its finding is a session with nothing to record, and
        // a server that failed gives its own status.
        row("record: success", &["record", "-o", "out/rec.jsonl", "--", demo], &[INITIALIZE, INITIALIZED, JOB], 0,
            ErrLine("mcp-replay record: wrote out/rec.jsonl (")),
        row("record: finding", &["record", "-o", "out/none.jsonl", "--", "cat"], &[], 1,
            Err("mcp-replay record: nothing to record: no JSON-RPC message crossed the proxy")),
        row("record: missing file", &["record", "--rules", "missing.rules.json", "-o", "out/x.jsonl", "--", demo], &[], 2,
            Err("mcp-replay: reading missing.rules.json: No such file or directory")),
        row("record: malformed file", &["record", "--rules", "bad.rules.json", "-o", "out/x.jsonl", "--", demo], &[], 2,
            Err("mcp-replay: bad.rules.json: ")),
        row("record: secret in the recording", &["record", "-o", "out/leak.jsonl", "--", demo, "leaky"], &[INITIALIZE, INITIALIZED, JOB], 2,
            ErrLine("mcp-replay record: refusing to write out/leak.jsonl: line ")),
        row("record: server that cannot start", &["record", "-o", "out/x.jsonl", "--", NO_SERVER], &[], 2,
            Err("mcp-replay: could not start the server `no-such-server-mcp-replay`: No such file or directory")),
        row("record: server that exits at once", &["record", "-o", "out/x.jsonl", "--", "false"], &[], 1,
            Err("mcp-replay record: nothing to record")),
        row("record: server that exits at once with 3", &["record", "-o", "out/x.jsonl", "--", "sh", "-c", "exit 3"], &[], 3,
            Err("mcp-replay record: nothing to record")),
        row("record: usage error", &["record", "--", demo], &[], 2, Err("error: the following required arguments were not provided:")),

        // import converts a recording: no finding, no server.
        row("import: success", &["import", "echo.ndjson", "-o", "out/imported"], &[], 0, Out("mcp-replay: imported everything (")),
        row("import: missing file", &["import", "missing.ndjson", "-o", "out/imported"], &[], 2, Err("mcp-replay: reading missing.ndjson: No such file or directory")),
        row("import: malformed file", &["import", "malformed.jsonl", "-o", "out/imported"], &[], 2, Err("mcp-replay: malformed.jsonl:1:13: not valid JSON")),
        row("import: secret in the file", &["import", "secret.ndjson", "-o", "out/leaked"], &[], 2, Err("mcp-replay: refusing to write out/leaked/everything.jsonl: line ")),
        row("import: usage error", &["import", "echo.ndjson"], &[], 2, Err("error: the following required arguments were not provided:")),

        // accept reads a pending file before it renames it over the fixture: one that does
        // not load or holds a secret is not accepted. reject deletes without reading.
        row("accept: success", &["accept", "pending"], &[], 0, Out("accepted pending/a.jsonl.new -> pending/a.jsonl")),
        row("accept: malformed file", &["accept", "broken"], &[], 2, Err("mcp-replay: broken/a.jsonl.new not accepted: broken/a.jsonl.new:1:")),
        row("accept: secret in the file", &["accept", "leaky"], &[], 2, Err("mcp-replay: leaky/a.jsonl.new not accepted: ")),
        row("accept: missing file", &["accept", "nowhere"], &[], 2, Err("mcp-replay: nowhere does not exist")),
        row("accept: usage error", &["accept", "--strict"], &[], 2, Err("error: unexpected argument '--strict' found")),
        row("reject: success", &["reject", "rejected"], &[], 0, Out("rejected rejected/a.jsonl.new")),
        row("reject: missing file", &["reject", "nowhere"], &[], 2, Err("mcp-replay: nowhere does not exist")),
        row("reject: usage error", &["reject", "--strict"], &[], 2, Err("error: unexpected argument '--strict' found")),

        // review without a terminal lists (a finding: something is pending); with
        // --accept it takes the files as accept does.
        row("review: finding", &["review", "reviewed"], &[], 1, Out("pending: reviewed/a.jsonl.new (fixture reviewed/a.jsonl)")),
        row("review: success", &["review", "out"], &[], 0, Out("no pending .jsonl.new files")),
        row("review: missing file", &["review", "nowhere"], &[], 2, Err("mcp-replay: nowhere does not exist")),
        row("review: malformed file", &["review", "--accept", "broken"], &[], 2, Err("mcp-replay: broken/a.jsonl.new not accepted: broken/a.jsonl.new:1:")),
        row("review: usage error", &["review", "--accept", "--reject"], &[], 2, Err("error: the argument '--accept' cannot be used with '--reject'")),
    ]
}

/// Runs `row` in `dir`: exit code, stdout, stderr.
fn run(dir: &Path, row: &Row) -> (Option<i32>, String, String) {
    let mut child = mcp_replay()
        .current_dir(dir)
        .args(&row.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-replay starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    for line in row.input {
        // A client writes, then waits for its answer.
        let _ = writeln!(stdin, "{line}");
        std::thread::sleep(std::time::Duration::from_millis(150));
    }
    drop(stdin);
    let output = child.wait_with_output().expect("mcp-replay ends");
    let (out, err) = command::text(&output);
    (output.status.code(), out, err)
}

#[test]
fn every_subcommand_follows_the_one_exit_status_rule() {
    let dir = temp_dir("exit-status", "table");
    files(&dir);
    let demo = demo_server().display().to_string();
    let mut wrong = Vec::new();
    for row in rows(&demo) {
        let (code, out, err) = run(&dir, &row);
        let first = |text: &str| text.lines().next().unwrap_or_default().to_owned();
        let said = match row.says {
            Says::Out(prefix) => first(&out).starts_with(prefix),
            Says::Err(prefix) => first(&err).starts_with(prefix),
            Says::ErrLine(prefix) => err.lines().any(|l| l.starts_with(prefix)),
        };
        if code != Some(row.code) || !said || err.contains("panicked") {
            wrong.push(format!(
                "{}: exit {code:?} (want {}), want {:?}\n  stdout: {}\n  stderr: {}",
                row.name,
                row.code,
                row.says,
                out.trim_end().replace('\n', "\n          "),
                err.trim_end().replace('\n', "\n          ")
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n\n"));
}
