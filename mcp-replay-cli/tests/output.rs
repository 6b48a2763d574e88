//! Machine-readable output (`--format json`, `--junit FILE`) of `check` and `diff`, and
//! `diff`'s exit statuses, end to end. `replay`'s, against the demo server, are in
//! the root's tests/output.rs.

mod common;

use common::output::{document, junit};
use common::{mcp_replay, text, workspace};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[test]
fn check_json_lists_the_problems_per_fixture_and_junit_a_case_per_file() {
    let dir = temp_dir("check");
    common::cargo_project(&dir, &[]);
    let good = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
    std::fs::write(dir.join("good.jsonl"), &good).unwrap();
    std::fs::write(dir.join("good.jsonl.new"), &good).unwrap();
    std::fs::write(dir.join("broken.jsonl"), "{\"direction\":\n").unwrap();
    let junit_file = dir.join("check.xml");
    let output = mcp_replay()
        .current_dir(&dir)
        .args(["check", "--format", "json", "--junit", "check.xml", "."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{:?}", text(&output));
    let doc = document(&output);
    assert_eq!(doc["mcp_replay_report"], 1);
    assert_eq!(doc["command"], "check");
    assert_eq!(
        (doc["checked"].as_u64(), doc["problems"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(doc["warnings"], 1);
    assert_eq!(
        (doc["passed"].as_u64(), doc["failed"].as_u64()),
        (Some(1), Some(2))
    );
    let by_name = |name: &str| -> Value {
        doc["fixtures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["fixture"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name}: {doc:#}"))
            .clone()
    };
    let broken = by_name("/broken.jsonl");
    assert_eq!(broken["ok"], false);
    assert_eq!(broken["findings"][0]["kind"], "invalid");
    assert_eq!(broken["findings"][0]["line"], 1);
    assert_eq!(broken["findings"][0]["problem"], true);
    assert!(broken["findings"][0]["summary"]
        .as_str()
        .unwrap()
        .contains("broken.jsonl:1:13: not valid JSON"));
    assert_eq!(by_name("/good.jsonl.new")["findings"][0]["kind"], "pending");
    // A warning (no --strict) leaves the fixture ok.
    let unreferenced = by_name("/good.jsonl");
    assert_eq!(unreferenced["ok"], true);
    assert_eq!(unreferenced["findings"][0]["kind"], "unreferenced");
    assert_eq!(unreferenced["findings"][0]["problem"], false);

    let suite = &junit(&junit_file).suites[0];
    assert_eq!((suite.tests, suite.failures), (3, 2), "{suite:#?}");
    assert!(suite
        .cases
        .iter()
        .all(|c| c.classname.as_deref() == Some("mcp-replay.check")));
    let broken = suite
        .cases
        .iter()
        .find(|c| c.name.ends_with("/broken.jsonl"))
        .unwrap();
    assert_eq!(broken.status.failure_as_ref().message, "1 problem");
    assert_eq!(broken.status.failure_as_ref().failure_type, "invalid");
}

/// `fixtures/lookup_issue.jsonl` with the tool's answer changed: a finding with no contract
/// class.
fn changed_tool_result(dir: &Path) -> PathBuf {
    let old = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
    let new = dir.join("lookup_issue.jsonl");
    std::fs::write(&new, old.replace("Issue 42: example", "Issue 42: renamed")).unwrap();
    new
}

fn diff(args: &[&str]) -> Output {
    mcp_replay()
        .current_dir(workspace())
        .arg("diff")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn diff_exits_0_without_change_and_1_for_an_unclassified_change_at_every_threshold() {
    let dir = temp_dir("diff");
    let new = changed_tool_result(&dir);
    let new = new.to_str().unwrap();
    let old = "fixtures/lookup_issue.jsonl";
    for fail_on in [
        &[][..],
        &["--fail-on", "cosmetic"],
        &["--fail-on", "compatible"],
        &["--fail-on", "breaking"],
    ] {
        let same = diff(&[fail_on, &[old, old]].concat());
        assert_eq!(
            same.status.code(),
            Some(0),
            "{fail_on:?}: {:?}",
            text(&same)
        );
        assert!(text(&same).0.contains("no change"), "{:?}", text(&same));
        // A changed tools/call result has no contract class: it counts as unknown, which
        // fails at every threshold (docs/cli.md).
        let changed = diff(&[fail_on, &[old, new]].concat());
        assert_eq!(
            changed.status.code(),
            Some(1),
            "{fail_on:?}: {:?}",
            text(&changed)
        );
    }
    let (out, _) = text(&diff(&[old, new]));
    assert!(out.contains("1 mismatch (1 result)"), "{out}");
    assert!(
        out.contains(
            "the response to `tools/call lookup_issue` (line 2) differs\n    at .result.content[0].text"
        ),
        "{out}"
    );

    let json = diff(&["--format", "json", "--fail-on", "breaking", old, new]);
    assert_eq!(json.status.code(), Some(1));
    let doc = document(&json);
    assert_eq!(doc["mcp_replay_report"], 1);
    assert_eq!(doc["command"], "diff");
    assert_eq!(doc["failed"], 1);
    let entry = &doc["fixtures"][0];
    assert_eq!(entry["fixture"], new);
    assert_eq!(entry["old"], old);
    assert_eq!(entry["ok"], false);
    assert_eq!(entry["changed"], true);
    assert_eq!(entry["fail_on"], "breaking");
    assert_eq!(entry["class"], "unknown");
    let finding = &entry["findings"][0];
    assert_eq!(finding["kind"], "result");
    assert_eq!(finding["class"], Value::Null);
    assert_eq!(finding["severity"], "unknown");
    assert_eq!(finding["differences"][0]["actual"], "Issue 42: renamed");

    let junit_file = dir.join("diff.xml");
    let output = diff(&["--junit", junit_file.to_str().unwrap(), old, new]);
    assert_eq!(output.status.code(), Some(1));
    let suite = &junit(&junit_file).suites[0];
    assert_eq!((suite.tests, suite.failures), (1, 1));
    assert_eq!(suite.cases[0].classname.as_deref(), Some("mcp-replay.diff"));
    let failure = suite.cases[0].status.failure_as_ref();
    assert_eq!(failure.message, "1 mismatch (1 result)");
    assert_eq!(failure.failure_type, "unknown");

    // Usage and I/O errors: 2.
    assert_eq!(
        diff(&["--fail-on", "severe", old, new]).status.code(),
        Some(2)
    );
    let missing = diff(&["nowhere.jsonl", new]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing).1.contains("nowhere.jsonl does not exist"),
        "{:?}",
        text(&missing)
    );
    assert_eq!(diff(&[old]).status.code(), Some(2));
}

#[test]
fn diff_reads_rev_path_with_git_show() {
    // A repository of its own, so the test does not depend on how this one was checked out.
    let dir = temp_dir("diff-git");
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("fixtures")).unwrap();
    std::fs::copy(
        workspace().join("fixtures/lookup_issue.jsonl"),
        repo.join("fixtures/lookup_issue.jsonl"),
    )
    .unwrap();
    for args in [
        &["init", "-q"][..],
        &["add", "fixtures/lookup_issue.jsonl"],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.invalid",
            "commit",
            "-qm",
            "f",
        ],
    ] {
        let status = Command::new("git").current_dir(&repo).args(args).status();
        assert!(
            status.as_ref().is_ok_and(|s| s.success()),
            "git {args:?}: {status:?} (the test needs git on the PATH)"
        );
    }
    let diff = |args: &[&str]| {
        mcp_replay()
            .current_dir(&repo)
            .arg("diff")
            .args(args)
            .output()
            .unwrap()
    };
    let new = changed_tool_result(&dir);
    let committed = "HEAD:fixtures/lookup_issue.jsonl";
    let output = diff(&[committed, new.to_str().unwrap()]);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(
        out.starts_with(&format!("mcp-replay diff: {committed} -> ")),
        "{out}"
    );
    assert!(out.contains("\"Issue 42: renamed\""), "{out}");
    // The committed fixture against itself, both from git.
    let same = diff(&[committed, committed]);
    assert_eq!(same.status.code(), Some(0), "{:?}", text(&same));
    let absent = diff(&["HEAD:fixtures/no_such_fixture.jsonl", committed]);
    assert_eq!(absent.status.code(), Some(2));
    assert!(
        text(&absent)
            .1
            .contains("`git show HEAD:fixtures/no_such_fixture.jsonl` failed"),
        "{:?}",
        text(&absent)
    );
}

#[test]
fn diff_of_a_tool_added_to_tools_list() {
    let dir = temp_dir("diff-tools-list");
    let old = workspace().join("fixtures/handshake_and_tools_list.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&old)
        .unwrap()
        .lines()
        .map(|line| {
            let mut entry: Value = serde_json::from_str(line).unwrap();
            if let Some(tools) = entry
                .pointer_mut("/message/result/tools")
                .and_then(Value::as_array_mut)
            {
                tools.push(serde_json::json!({
                    "name": "added",
                    "description": "A tool the new server has.",
                    "inputSchema": {"type": "object"}
                }));
            }
            entry.to_string()
        })
        .collect();
    let new = dir.join("handshake_and_tools_list.jsonl");
    std::fs::write(&new, lines.join("\n") + "\n").unwrap();
    let output = diff(&[
        "--format",
        "json",
        "--fail-on",
        "breaking",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    let doc = document(&output);
    let findings = doc["fixtures"][0]["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{doc:#}");
    let finding = &findings[0];
    assert_eq!(finding["kind"], "result");
    assert_eq!(
        finding["summary"],
        "the response to `tools/list` (line 5) differs"
    );
    assert_eq!(finding["differences"][0]["path"], ".result.tools[5]");
    // The classes themselves are the classifier's tests (contract.rs). Here: the gate
    // follows them. Until the classifier fills `changes`, the finding has no class, counts
    // as unknown and fails `--fail-on breaking`; once it does, a tool added is a compatible
    // change, which `--fail-on breaking` lets through and `--fail-on compatible` does not.
    if finding["changes"].as_array().unwrap().is_empty() {
        assert_eq!(finding["severity"], "unknown");
        assert_eq!(output.status.code(), Some(1));
    } else {
        assert_eq!(finding["class"], "compatible", "{finding:#}");
        assert_eq!(output.status.code(), Some(0), "{doc:#}");
        assert_eq!(doc["fixtures"][0]["ok"], true);
        let strict = diff(&[
            "--fail-on",
            "compatible",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
        ]);
        assert_eq!(strict.status.code(), Some(1));
        assert!(
            text(&strict).0.contains("compatible: "),
            "{:?}",
            text(&strict)
        );
    }
}

#[test]
fn diff_names_breaking_the_most_severe_class_when_an_unknown_change_follows_it() {
    let dir = temp_dir("diff-breaking-unknown");
    let old = workspace().join("fixtures/handshake_and_tools_list.jsonl");
    // `initialize` (line 2) answers another protocol version: breaking; a tool of
    // `tools/list` (line 5) gains `_meta`: unknown. Breaking comes first, unknown last.
    let lines: Vec<String> = std::fs::read_to_string(&old)
        .unwrap()
        .lines()
        .map(|line| {
            let mut entry: Value = serde_json::from_str(line).unwrap();
            if let Some(version) = entry.pointer_mut("/message/result/protocolVersion") {
                *version = "2025-06-18".into();
            }
            if let Some(tool) = entry.pointer_mut("/message/result/tools/0") {
                tool["_meta"] = serde_json::json!({"x": 1});
            }
            entry.to_string()
        })
        .collect();
    let new = dir.join("handshake_and_tools_list.jsonl");
    std::fs::write(&new, lines.join("\n") + "\n").unwrap();
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());

    let output = diff(&["--fail-on", "breaking", old, new]);
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("breaking: protocol version changed"), "{out}");
    assert!(out.contains("unknown: tool `count_up`"), "{out}");
    assert!(out.contains("\nMost severe class: breaking ("), "{out}");

    let json = document(&diff(&["--format", "json", old, new]));
    let entry = &json["fixtures"][0];
    assert_eq!(entry["class"], "breaking", "{json:#}");
    assert_eq!(entry["findings"][0]["severity"], "breaking");
    assert_eq!(entry["findings"][1]["severity"], "unknown");

    let junit_file = dir.join("diff.xml");
    diff(&["--junit", junit_file.to_str().unwrap(), old, new]);
    let suite = &junit(&junit_file).suites[0];
    let failure = suite.cases[0].status.failure_as_ref();
    assert_eq!(failure.failure_type, "breaking");
}

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("output", name)
}
