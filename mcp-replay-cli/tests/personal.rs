//! Personal data end to end: `record` writes pseudonyms and the values of a values file as
//! placeholders, a replay against a server that echoes what it gets (and sends real data
//! of its own) stays green, and `check --deny-values` proves no original value survived.

mod common;

use common::cli::{check_in, run_with_input, INITIALIZE};
use common::{cargo_project, mcp_replay, text};
use std::path::{Path, PathBuf};

/// A server that echoes the e-mail address it is asked about and adds real data of its
/// own: a colleague's address, a customer's name, a public IP address.
const ECHO_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "echo", "version": "1.2.3.4"}}
    else:
        who = m["params"]["arguments"]["email"]
        text = "%s works for Acme Corporation with carol@corp.com, last seen from 93.184.216.34" % who
        result = {"content": [{"type": "text", "text": text}]}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}), flush=True)
"#;

/// A `tools/call lookup` about alice.
const LOOKUP: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{"email":"Alice@Corp.com"}}}"#;

fn server() -> [&'static str; 3] {
    ["python3", "-c", ECHO_SERVER]
}

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("personal", name)
}

/// `mcp-replay replay FIXTURE EXTRA... -- SERVER` against the echoing server.
fn replay(
    fixture: impl AsRef<std::ffi::OsStr>,
    extra: &[&std::ffi::OsStr],
) -> std::process::Output {
    mcp_replay()
        .arg("replay")
        .arg(fixture)
        .args(extra)
        .arg("--")
        .args(server())
        .output()
        .unwrap()
}

/// Records the lookup into `dir/lookup.jsonl` with `--redact-values dir/values.txt`.
fn record(dir: &Path) -> String {
    std::fs::write(
        dir.join("values.txt"),
        "# tenant\n[customer]\nacme corporation\n",
    )
    .unwrap();
    let fixture = dir.join("lookup.jsonl");
    let mut command = mcp_replay();
    command
        .arg("record")
        .arg("-o")
        .arg(&fixture)
        .arg("--redact-values")
        .arg(dir.join("values.txt"))
        .arg("--")
        .args(server());
    let output = run_with_input(command, &[INITIALIZE, LOOKUP]);
    assert!(output.status.success(), "{:?}", text(&output));
    std::fs::read_to_string(&fixture).unwrap()
}

#[test]
fn record_writes_pseudonyms_in_both_directions_and_the_values_as_placeholders() {
    let dir = temp_dir("record");
    let written = record(&dir);
    let lower = written.to_lowercase();
    for original in ["alice@corp.com", "carol@corp.com", "acme", "93.184.216.34"] {
        assert!(!lower.contains(original), "{original} survived:\n{written}");
    }
    assert!(
        written.contains(r#""arguments":{"email":"user1@example.invalid"}"#),
        "{written}"
    );
    assert!(
        written.contains("user1@example.invalid works for <CUSTOMER:1> with user2@example.invalid, last seen from 192.0.2.1"),
        "{written}"
    );
    // The server's version is not an address.
    assert!(written.contains(r#""version":"1.2.3.4""#), "{written}");
    // Re-recording gives the same bytes (each request goes once the one before is answered).
    assert_eq!(record(&temp_dir("record-again")), written);
}

#[test]
fn a_replay_against_a_server_that_echoes_the_pseudonyms_stays_green() {
    let dir = temp_dir("replay");
    record(&dir);
    // The folder's rules file names the values file, so the replay writes the server's
    // own "Acme Corporation" as the fixture does.
    std::fs::write(
        dir.join("mcp-replay.rules.json"),
        r#"{"redact_values": "values.txt"}"#,
    )
    .unwrap();
    let output = replay(dir.join("lookup.jsonl"), &[]);
    assert!(output.status.success(), "{:?}", text(&output));
    // Without the values, green too: the fixture's `<CUSTOMER:1>` is bound to the name the
    // server sends where the fixture has it (docs/normalization.md, "Values the harness
    // replaces"), and a re-recording writes the pseudonym again, never the name.
    std::fs::remove_file(dir.join("mcp-replay.rules.json")).unwrap();
    let output = replay(dir.join("lookup.jsonl"), &[]);
    assert!(output.status.success(), "{:?}", text(&output));
    let output = replay(
        dir.join("lookup.jsonl"),
        &[std::ffi::OsStr::new("--update")],
    );
    assert!(output.status.success(), "{:?}", text(&output));
    let rewritten = std::fs::read_to_string(dir.join("lookup.jsonl")).unwrap();
    assert!(!rewritten.contains("Acme"), "{rewritten}");
    assert!(rewritten.contains("<CUSTOMER:1>"), "{rewritten}");
    // With them on the command line, green again.
    let output = replay(
        dir.join("lookup.jsonl"),
        &[
            std::ffi::OsStr::new("--redact-values"),
            dir.join("values.txt").as_ref(),
        ],
    );
    assert!(output.status.success(), "{:?}", text(&output));
}

#[test]
fn check_deny_values_fails_on_any_form_of_a_listed_value_and_never_shows_it() {
    let dir = temp_dir("deny");
    cargo_project(&dir, &["clean", "leaky"]);
    std::fs::create_dir_all(dir.join("fixtures")).unwrap();
    let clean = record(&dir);
    std::fs::write(dir.join("fixtures/clean.jsonl"), &clean).unwrap();
    std::fs::remove_file(dir.join("lookup.jsonl")).unwrap();
    std::fs::write(
        dir.join("deny.txt"),
        "# what the recording saw\nalice@corp.com\nCarol@Corp.com\nAcme Corporation\n93.184.216.34\n",
    )
    .unwrap();
    let (code, out) = check_in(&dir, &["--deny-values", "deny.txt"]);
    assert_eq!(code, Some(0), "{out}");

    let leaky = [
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"lookup","arguments":{"email":"ALICE@corp.com"}}}}"#,
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"see https://x.test/?q=carol%40corp.com and acme\u0020corporation"}]}}}"#,
    ];
    std::fs::write(dir.join("fixtures/leaky.jsonl"), leaky.join("\n") + "\n").unwrap();
    let (code, out) = check_in(&dir, &["--deny-values", "deny.txt"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("leaky.jsonl: line 1: .message.params.arguments.email holds a denied value (deny.txt line 2)"),
        "{out}"
    );
    assert!(
        out.contains("leaky.jsonl: line 2: .message.result.content[0].text holds a denied value (deny.txt line 3)"),
        "{out}"
    );
    for original in ["alice", "carol", "acme", "93.184"] {
        assert!(!out.to_lowercase().contains(original), "{original}:\n{out}");
    }
    // The same list from the environment, in JSON.
    let output = mcp_replay()
        .current_dir(&dir)
        .env("MCP_REPLAY_DENY_VALUES", "deny.txt")
        .args(["check", "--format", "json"])
        .output()
        .unwrap();
    let json = text(&output).0;
    assert_eq!(output.status.code(), Some(1), "{json}");
    assert!(json.contains(r#""kind": "denied""#), "{json}");
    // And personal data in a hand-written line is a warning of its own.
    assert!(json.contains(r#""kind": "personal""#), "{json}");

    // A deny list that cannot be read, or holds nothing, is a mistake: exit 2.
    let (code, _) = check_in(&dir, &["--deny-values", "missing.txt"]);
    assert_eq!(code, Some(2));
    std::fs::write(dir.join("empty.txt"), "# nothing\n").unwrap();
    let output = mcp_replay()
        .current_dir(&dir)
        .args(["check", "--deny-values", "empty.txt"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output).1.contains("the deny list holds no value"),
        "{:?}",
        text(&output)
    );
}

#[test]
fn check_warns_about_personal_data_without_failing() {
    let dir = temp_dir("warn");
    cargo_project(&dir, &["old"]);
    std::fs::create_dir_all(dir.join("fixtures")).unwrap();
    let old = [
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"lookup","arguments":{}}}}"#,
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"call +44 20 7946 0958 or mail bob@corp.com"}]}}}"#,
    ];
    std::fs::write(dir.join("fixtures/old.jsonl"), old.join("\n") + "\n").unwrap();
    let (code, out) = check_in(&dir, &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("old.jsonl:2: personal: .result.content[0].text holds what looks like personal data (email)"),
        "{out}"
    );
    assert!(out.contains("(phone)"), "{out}");
    assert!(!out.contains("bob@"), "{out}");
}

#[test]
fn a_fixture_recorded_before_the_personal_data_rules_still_replays() {
    let dir = temp_dir("old");
    // Written as an older version wrote it: the addresses as they were.
    let old = [
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{},"clientInfo":"<CLIENT_INFO>","protocolVersion":"<PROTOCOL_VERSION>"}}}"#,
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"echo","version":"1.2.3.4"}}}}"#,
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"arguments":{"email":"alice@corp.com"},"name":"lookup"}}}"#,
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"text":"alice@corp.com works for Acme Corporation with carol@corp.com, last seen from 93.184.216.34","type":"text"}]}}}"#,
    ];
    std::fs::write(dir.join("old.jsonl"), old.join("\n") + "\n").unwrap();
    let output = replay(dir.join("old.jsonl"), &[]);
    assert!(output.status.success(), "{:?}", text(&output));
}

#[test]
fn serve_plays_a_recording_to_a_client_that_sends_its_real_data_again() {
    let dir = temp_dir("serve");
    record(&dir);
    let mut command = mcp_replay();
    command.arg("serve").arg(dir.join("lookup.jsonl"));
    let output = run_with_input(command, &[INITIALIZE, LOOKUP]);
    assert!(output.status.success(), "{:?}", text(&output));
    // The client gets the recording's pseudonyms.
    assert!(
        text(&output)
            .0
            .contains("user1@example.invalid works for <CUSTOMER:1>"),
        "{:?}",
        text(&output)
    );
}
