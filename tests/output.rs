//! Machine-readable output (`--format json`, `--junit FILE`) of `replay` against the demo
//! server, end to end. `check`'s and `diff`'s are in mcp-replay-cli/tests/output.rs.

mod command;

use command::output::{document, junit};
use command::{demo_server, mcp_replay, text, workspace};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Output;

fn replay_drifted_and_a_passing_fixture(extra: &[&str]) -> Output {
    mcp_replay()
        .current_dir(workspace())
        .args(["replay", "--timeout", "300"])
        .args(extra)
        .args([
            "docs/examples/drifted.jsonl",
            "fixtures/lookup_issue.jsonl",
            "missing/none.jsonl",
            "--",
        ])
        .arg(demo_server())
        .output()
        .unwrap()
}

#[test]
fn replay_format_json_writes_one_document_with_the_schemas_fields() {
    let output = replay_drifted_and_a_passing_fixture(&["--format", "json"]);
    // A fixture that does not exist is an input error: 2 over the drifted one's 1.
    assert_eq!(output.status.code(), Some(2), "{:?}", text(&output));
    let doc = document(&output);
    assert_eq!(doc["mcp_replay_report"], 1);
    assert_eq!(doc["command"], "replay");
    assert_eq!(doc["passed"], 1);
    assert_eq!(doc["failed"], 2);
    let fixtures = doc["fixtures"].as_array().unwrap();
    assert_eq!(fixtures.len(), 3);

    let drifted = &fixtures[0];
    assert_eq!(drifted["fixture"], "docs/examples/drifted.jsonl");
    assert_eq!(drifted["ok"], false);
    assert_eq!(drifted["status"], "failed");
    assert!(drifted["time_ms"].is_u64(), "{drifted}");
    assert_eq!(drifted["error"], Value::Null);
    let advice = drifted["advice"].as_array().unwrap();
    assert_eq!(advice.len(), 2, "{drifted:#}");
    // `divide` now fails where the fixture has it succeed: worse by structure, whatever
    // its words, so no re-recording writes it.
    assert!(
        advice[0].as_str().unwrap().starts_with(
            "The server refused a request it answered when the fixture was recorded.\n    check the server (line 9, `tools/call divide`"
        ),
        "{drifted:#}"
    );
    assert!(
        advice[1].as_str().unwrap().starts_with(
            "If the new behaviour is right, re-record the fixture:\n    mcp-replay replay --update"
        ),
        "{drifted:#}"
    );
    let findings = drifted["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 4, "{drifted:#}");
    for f in findings {
        for key in [
            "kind",
            "line",
            "request_line",
            "summary",
            "expected",
            "actual",
            "differences",
            "class",
            "changes",
        ] {
            assert!(f.get(key).is_some(), "{key} missing in {f:#}");
        }
    }
    let kinds: Vec<&str> = findings
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["notification order", "result", "missing", "result"],
        "{drifted:#}"
    );
    let result = &findings[1];
    assert_eq!(result["line"], 5);
    assert_eq!(result["request_line"], 1);
    assert_eq!(
        result["summary"],
        "the response to `tools/call count_up` (line 1) differs"
    );
    assert_eq!(result["differences"][0]["path"], ".result.content[0].text");
    assert_eq!(result["differences"][0]["expected"], "counted to two");
    assert_eq!(result["differences"][0]["actual"], "counted to 2");
    assert_eq!(
        result["expected"]["result"]["content"][0]["text"],
        "counted to two"
    );
    assert_eq!(result["class"], Value::Null);
    assert_eq!(result["changes"], serde_json::json!([]));
    // A value absent on one side: its key is left out.
    let is_error = &findings[3]["differences"][0];
    assert_eq!(is_error["path"], ".result.isError");
    assert!(is_error.get("expected").is_none(), "{is_error}");
    assert_eq!(is_error["actual"], true);
    // The missing message: expected only.
    assert_eq!(findings[2]["actual"], Value::Null);
    assert_eq!(
        findings[2]["expected"]["method"],
        "notifications/resources/updated"
    );

    assert_eq!(fixtures[1]["ok"], true);
    assert_eq!(fixtures[1]["status"], "ok");
    assert_eq!(fixtures[1]["findings"], serde_json::json!([]));
    // No replay at all: why, in `error`.
    assert_eq!(fixtures[2]["ok"], false);
    assert_eq!(fixtures[2]["status"], "error");
    assert!(
        fixtures[2]["error"]
            .as_str()
            .unwrap()
            .contains("missing/none.jsonl does not exist"),
        "{:#}",
        fixtures[2]
    );
}

#[test]
fn replay_junit_loads_in_a_junit_parser_with_a_failure_per_failing_fixture() {
    let dir = temp_dir("replay-junit");
    let file = dir.join("junit.xml");
    let output = replay_drifted_and_a_passing_fixture(&["--junit", file.to_str().unwrap()]);
    let (out, _) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{out}");
    // The text report is still on stdout.
    assert!(
        out.contains("1 passed, 2 failed, 1 of them not replayed ("),
        "{out}"
    );
    assert!(
        out.contains("mcp-replay: missing/none.jsonl: ERROR ("),
        "{out}"
    );
    let report = junit(&file);
    assert_eq!(report.suites.len(), 1);
    let suite = &report.suites[0];
    assert_eq!(suite.name, "mcp-replay");
    assert_eq!(
        (suite.tests, suite.failures, suite.errors),
        (3, 1, 1),
        "{suite:#?}"
    );
    let names: Vec<&str> = suite
        .cases
        .iter()
        .map(|c| c.original_name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "docs/examples/drifted.jsonl",
            "fixtures/lookup_issue.jsonl",
            "missing/none.jsonl"
        ]
    );
    for case in &suite.cases {
        assert_eq!(case.classname.as_deref(), Some("mcp-replay.replay"));
    }
    let drifted = &suite.cases[0];
    assert!(drifted.time > 0.0, "{drifted:#?}");
    assert!(drifted.status.is_failure(), "{drifted:#?}");
    let failure = drifted.status.failure_as_ref();
    assert_eq!(
        failure.message,
        "4 mismatches (2 result, 1 notification order, 1 missing)"
    );
    assert_eq!(failure.failure_type, "mismatch");
    // The plain report, unescaped by the parser.
    assert!(
        failure
            .text
            .contains("at .result.content[0].text\n      expected: \"counted to two\""),
        "{}",
        failure.text
    );
    assert!(!failure.text.contains('\x1b'));
    assert!(suite.cases[1].status.is_success());
    let error = suite.cases[2].status.error_as_ref();
    assert!(
        error.message.contains("missing/none.jsonl does not exist"),
        "{error:#?}"
    );

    // In color on stdout (CLICOLOR_FORCE), plain in the JUnit file all the same.
    let colored = mcp_replay()
        .current_dir(workspace())
        .env("CLICOLOR_FORCE", "1")
        .args(["replay", "--timeout", "300", "--junit"])
        .arg(&file)
        .args(["docs/examples/drifted.jsonl", "--"])
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(text(&colored).0.contains('\x1b'));
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(!xml.contains('\x1b'), "{xml}");
    assert!(junit(&file).suites[0].cases[0].status.is_failure());
}

/// `demo-server leaky` answers `job_status` with a (fake, random-looking) GitHub token, and
/// here it also prints it on stdout before it starts: a failing replay must not print it
/// into the CI log, in any output (the stray line is in the trace and in a finding).
#[cfg(unix)]
#[test]
fn a_token_the_server_leaks_is_masked_in_the_text_the_json_the_junit_and_the_trace() {
    let dir = temp_dir("masked");
    let file = dir.join("junit.xml");
    let token = ["ghp_", "a1B2c3D4e5F6g7H8i9J0", "kLmNoPqRsTuVwXyZ"].concat();
    let replay = |format: &str| {
        mcp_replay()
            .current_dir(workspace())
            .args(["replay", "--trace", "--format", format, "--junit"])
            .arg(&file)
            .args(["fixtures/job_status.jsonl", "--", "sh", "-c"])
            .arg(format!("echo 'starting with {token}'; exec \"$0\" leaky"))
            .arg(demo_server())
            .output()
            .unwrap()
    };
    for format in ["text", "json"] {
        let output = replay(format);
        let (out, err) = text(&output);
        assert_eq!(output.status.code(), Some(1), "{out}{err}");
        let xml = std::fs::read_to_string(&file).unwrap();
        for (what, shown) in [("stdout", &out), ("the trace", &err), ("JUnit", &xml)] {
            assert!(
                !shown.contains(&token[4..16]),
                "{format}: {what} shows the token: {shown}"
            );
        }
        assert!(out.contains("ghp_…[masked: github-pat]"), "{out}");
        assert!(err.contains("ghp_…[masked: github-pat]"), "{err}");
        assert!(xml.contains("ghp_…[masked: github-pat]"), "{xml}");
    }
}

fn temp_dir(name: &str) -> PathBuf {
    command::temp_dir("output", name)
}
