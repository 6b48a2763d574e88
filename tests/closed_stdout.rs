//! A reader that went away (`mcp-replay call ... | head -1`) must never make the command
//! panic or lose the fixture: every subcommand that prints on stdout runs here with stdout
//! a pipe whose read end is already closed, so its first write fails with `BrokenPipe`.

mod command;

use command::{demo_server, mcp_replay, temp_dir, text, workspace};

use std::path::Path;
use std::process::Command;

/// Runs `command` with stdout a pipe nobody reads (the read end closed before it starts):
/// its exit code and stderr.
fn with_stdout_closed(mut command: Command) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let output = command
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("mcp-replay runs");
    (output.status.code(), text(&output).1)
}

/// One case: what to run, in which folder, the exit code it must end with, and what must
/// be on disk afterwards.
struct Case {
    name: &'static str,
    args: Vec<String>,
    code: i32,
    written: Option<std::path::PathBuf>,
}

fn case(name: &'static str, args: &[&str], code: i32, written: Option<&Path>) -> Case {
    Case {
        name,
        args: args.iter().map(|a| a.to_string()).collect(),
        code,
        written: written.map(Path::to_owned),
    }
}

#[test]
fn a_closed_stdout_ends_the_output_quietly_and_the_command_does_its_job() {
    let dir = temp_dir("closed-stdout", "all");
    let demo = demo_server().display().to_string();
    let good = std::fs::read_to_string(workspace().join("fixtures/lookup_issue.jsonl")).unwrap();
    let drifted = dir.join("drifted.jsonl");
    std::fs::write(
        &drifted,
        good.replace("Issue 42: example", "Issue 42: other"),
    )
    .unwrap();
    let pending = dir.join("pending");
    std::fs::create_dir_all(&pending).unwrap();
    std::fs::write(pending.join("a.jsonl"), &good).unwrap();
    std::fs::write(pending.join("a.jsonl.new"), &good).unwrap();
    let called = dir.join("called.jsonl");
    let imported = dir.join("imported");
    let recording = workspace().join("mcp-replay/tests/fixtures/mcporter/multi-server.ndjson");
    let s = |p: &Path| p.display().to_string();
    let (d, p, r, i) = (s(&drifted), s(&pending), s(&recording), s(&imported));
    let cases = [
        case(
            "call with several answers to print",
            &[
                "call",
                "-o",
                &s(&called),
                "--list-tools",
                "--tool",
                "echo",
                "text=hi",
                "--",
                &demo,
            ],
            0,
            Some(&called),
        ),
        case(
            "replay that passes",
            &["replay", "fixtures/lookup_issue.jsonl", "--", &demo],
            0,
            None,
        ),
        case("replay that fails", &["replay", &d, "--", &demo], 1, None),
        case(
            "replay --format json",
            &[
                "replay",
                "--format",
                "json",
                "fixtures/lookup_issue.jsonl",
                "--",
                &demo,
            ],
            0,
            None,
        ),
        case("check with a problem", &["check", &p], 1, None),
        case(
            "diff with a change",
            &["diff", "fixtures/lookup_issue.jsonl", &d],
            1,
            None,
        ),
        case(
            "import",
            &["import", &r, "-o", &i],
            0,
            Some(&imported.join("everything.jsonl")),
        ),
        // Checked below: the pending file is gone.
        case("accept", &["accept", &p], 0, None),
        case("completions", &["completions", "bash"], 0, None),
    ];
    let mut wrong = Vec::new();
    for case in cases {
        let mut command = mcp_replay();
        command.current_dir(workspace()).args(&case.args);
        let (code, err) = with_stdout_closed(command);
        let lost = case.written.as_ref().filter(|f| !f.is_file());
        if err.contains("panicked") || code != Some(case.code) || lost.is_some() {
            wrong.push(format!(
                "{}: exit {code:?} (want {}){}\n{err}",
                case.name,
                case.code,
                lost.map(|f| format!(", {} not written", f.display()))
                    .unwrap_or_default()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The accept case renamed the pending file over the fixture.
    assert!(!pending.join("a.jsonl.new").exists());
}
