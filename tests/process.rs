//! Servers that run as child processes over stdio (`serve_command`), including the
//! failures only a process has: an exit status and a signal.

#[path = "../mcp-replay/tests/common/mod.rs"]
mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};
use mcp_replay::process::{serve_command, start_error};
use mcp_replay::{mcp_fixture, Fixture, MismatchKind, Transport};
use std::time::Duration;
use tokio::process::Command;

fn demo_server() -> Command {
    Command::new(env!("CARGO_BIN_EXE_demo-server"))
}

#[mcp_fixture("count_up_progress")]
#[tokio::test]
async fn a_server_in_a_child_process(transport: Transport) -> std::io::Result<()> {
    serve_command(transport, &mut demo_server()).await
}

#[mcp_fixture("protocol/legacy", dir = "tests/fixtures")]
#[tokio::test]
async fn server_requests_through_a_child_process(transport: Transport) -> std::io::Result<()> {
    serve_command(transport, demo_server().arg("protocol")).await
}

fn seed() -> Run {
    Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap()
    .with_timeout(Duration::from_millis(2000))
}

#[tokio::test]
async fn a_server_that_exits_with_a_status_is_a_server_failure_naming_it() {
    let report = seed()
        .replay()
        .run(|t| async move {
            serve_command(t, Command::new("sh").args(["-c", "read line; exit 3"])).await
        })
        .await;
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::ServerFailure], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("exited with status 3"),
        "{report}"
    );
}

/// A server that dies at start says why on stderr (`error: ISSUES_API_KEY is not set`):
/// the finding holds its last lines, so the report (JSON, JUnit, the page) says it too.
#[tokio::test]
async fn a_server_that_fails_at_start_carries_its_last_stderr_lines_in_the_finding() {
    let script = "for i in $(seq 1 30); do echo \"starting $i\" >&2; done; \
                  echo 'error: ISSUES_API_KEY is not set' >&2; exit 3";
    let report = seed()
        .replay()
        .run(
            move |t| async move { serve_command(t, Command::new("sh").args(["-c", script])).await },
        )
        .await;
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::ServerFailure], "{report}");
    let summary = report.mismatches()[0].summary();
    assert!(
        summary.contains("exited with status 3; its last lines on stderr:"),
        "{summary}"
    );
    assert!(
        summary.contains("error: ISSUES_API_KEY is not set"),
        "{summary}"
    );
    // The last twenty lines only.
    assert!(
        summary.contains("starting 30") && summary.contains("starting 12"),
        "{summary}"
    );
    assert!(!summary.contains("starting 11\n"), "{summary}");
}

/// A server that never answers says why on stderr and hangs: the timeout finding names
/// the message waited for and carries those lines, in the report and its JSON.
#[tokio::test]
async fn a_server_that_hangs_carries_its_last_stderr_lines_in_the_timeout() {
    let script = "echo 'waiting for the database at db:5432' >&2; sleep 30";
    let report = seed()
        .with_timeout(Duration::from_millis(500))
        .replay()
        .run(
            move |t| async move { serve_command(t, Command::new("sh").args(["-c", script])).await },
        )
        .await;
    let timeout = report
        .mismatches()
        .iter()
        .find(|m| m.kind() == MismatchKind::Timeout)
        .unwrap_or_else(|| panic!("a timeout: {report}"));
    assert!(
        timeout.summary().contains(
            "the server's last lines on stderr:\n    waiting for the database at db:5432"
        ),
        "{report}"
    );
    let json = report.to_json().to_string();
    assert!(json.contains("waiting for the database"), "{json}");
}

/// The caller chooses where the server's stderr goes; `Quiet` still keeps its last lines.
#[tokio::test]
async fn a_quiet_server_still_says_why_it_failed() {
    use mcp_replay::process::{serve_command_with, ServerStderr};
    let report = seed()
        .replay()
        .run(|t| async move {
            serve_command_with(
                t,
                Command::new("sh").args(["-c", "echo 'no config' >&2; exit 2"]),
                ServerStderr::Quiet,
            )
            .await
        })
        .await;
    assert!(
        report.mismatches()[0].summary().contains("no config"),
        "{report}"
    );
}

#[tokio::test]
async fn a_server_killed_by_a_signal_is_a_server_failure_naming_it() {
    let report = seed()
        .replay()
        .run(|t| async move {
            serve_command(t, Command::new("sh").args(["-c", "read line; kill -9 $$"])).await
        })
        .await;
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::ServerFailure], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("killed by signal 9 (SIGKILL)"),
        "{report}"
    );
}

#[tokio::test]
async fn a_server_that_cannot_start_is_a_server_failure() {
    let report = seed()
        .replay()
        .run(
            |t| async move { serve_command(t, &mut Command::new("/nonexistent/mcp-server")).await },
        )
        .await;
    assert_eq!(
        report.mismatches()[0].kind(),
        MismatchKind::ServerFailure,
        "{report}"
    );
    assert!(
        report.to_string().contains("could not start the server"),
        "{report}"
    );
}

#[tokio::test]
async fn start_error_tells_a_server_that_never_ran_from_one_that_failed() {
    let outcome = |command: &'static str, args: &'static [&'static str]| async move {
        let (tx, rx) = tokio::sync::oneshot::channel();
        seed()
            .replay()
            .run(move |t| async move {
                let ended = serve_command(t, Command::new(command).args(args)).await;
                let _ = tx.send(ended);
            })
            .await;
        rx.await.expect("the server ran to its end")
    };
    let never = outcome("/nonexistent/mcp-server", &[]).await.unwrap_err();
    let start = start_error(&never).expect("a server that could not start");
    assert_eq!(start.spawn_error().kind(), std::io::ErrorKind::NotFound);
    assert_eq!(
        never.to_string(),
        format!(
            "could not start the server \"/nonexistent/mcp-server\": {}",
            start.spawn_error()
        )
    );
    // Its Debug (what a test returning io::Result shows) is the message, quoted.
    assert!(
        format!("{never:?}").contains("error: \"could not start the server"),
        "{never:?}"
    );
    let failed = outcome("sh", &["-c", "exit 3"]).await.unwrap_err();
    assert!(start_error(&failed).is_none(), "{failed}");
}

/// `tests/servers/edge_server.py` with `args`, on python3.
fn edge_server(args: &[&str]) -> Command {
    let mut command = Command::new("python3");
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/servers/edge_server.py"
        ))
        .args(args);
    command
}

/// A file for the server's process id, and a way to read it once the replay is over.
struct PidFile(std::path::PathBuf);

impl PidFile {
    fn new(name: &str) -> PidFile {
        let path =
            std::env::temp_dir().join(format!("mcp-replay-{name}-{}.pid", std::process::id()));
        let _ = std::fs::remove_file(&path);
        PidFile(path)
    }

    fn arg(&self) -> String {
        self.0.display().to_string()
    }

    /// Whether the process that wrote the file still exists (a zombie counts: it was not
    /// reaped).
    #[cfg(target_os = "linux")]
    fn alive(&self) -> bool {
        let pid = std::fs::read_to_string(&self.0).expect("the server wrote its pid");
        std::path::Path::new(&format!("/proc/{}", pid.trim())).exists()
    }
}

impl Drop for PidFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Replays `fixture` against the edge server with `args`; the report and how long it took.
async fn replay_edge(fixture: Run, args: Vec<String>) -> (mcp_replay::Report, Duration) {
    let started = std::time::Instant::now();
    let report = fixture
        .replay()
        .run(|t| async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            serve_command(t, &mut edge_server(&args)).await
        })
        .await;
    (report, started.elapsed())
}

/// The seed with a timeout of 1.5 s: the stop grace is 1.5 s too (the shorter of 2 s and
/// the timeout), and python3 starts well within it on a loaded machine.
fn quick_seed() -> Run {
    seed().with_timeout(Duration::from_millis(1500))
}

#[tokio::test]
async fn a_server_that_keeps_running_after_its_input_closed_is_stopped_with_sigterm_and_noted() {
    let pid = PidFile::new("ignores-eof");
    let args = vec!["--ignore-eof".into(), "--pid-file".into(), pid.arg()];
    let (report, took) = replay_edge(quick_seed(), args).await;
    assert!(report.is_ok(), "{report}");
    assert_eq!(
        report.notes(),
        ["the server did not exit within 1500 ms after its input closed: stopped with SIGTERM"],
        "{report}"
    );
    assert!(
        report.to_string().contains("note: the server did not exit"),
        "{report}"
    );
    // One grace, not the 5 s of a hang bounded by the timeout; generous for a loaded machine.
    assert!(took < Duration::from_secs(5), "took {took:?}");
    #[cfg(target_os = "linux")]
    assert!(!pid.alive(), "the server is still there");
}

#[tokio::test]
async fn a_server_that_ignores_sigterm_too_is_stopped_with_sigkill_and_noted() {
    let pid = PidFile::new("ignores-term");
    let args = vec!["--ignore-term".into(), "--pid-file".into(), pid.arg()];
    let (report, took) = replay_edge(quick_seed(), args).await;
    assert!(report.is_ok(), "{report}");
    assert_eq!(report.notes().len(), 1, "{report}");
    assert!(
        report.notes()[0].ends_with("nor within 1500 ms after SIGTERM: stopped with SIGKILL"),
        "{report}"
    );
    assert!(took < Duration::from_secs(7), "took {took:?}");
    #[cfg(target_os = "linux")]
    assert!(!pid.alive(), "the server is still there");
}

#[tokio::test]
async fn with_strict_exit_a_server_that_needed_a_signal_is_a_finding() {
    let header = concat!(
        r#"{"mcp_replay":1,"strict_exit":true,"timeout":"1500ms"}"#,
        "\n"
    );
    let text = format!(
        "{header}{}",
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/lookup_issue.jsonl"
        ))
        .unwrap()
    );
    let strict = Fixture::parse(&text).unwrap();
    let (report, _) = replay_edge(strict.run(), vec!["--ignore-eof".into()]).await;
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::ServerFailure], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("stopped with SIGTERM"),
        "{report}"
    );
    assert!(report.notes().is_empty(), "{report}");
    // The same asked for in code.
    let (report, _) = replay_edge(
        quick_seed().with_strict_exit(true),
        vec!["--ignore-eof".into()],
    )
    .await;
    assert!(!report.is_ok(), "{report}");
}

#[tokio::test]
async fn a_server_that_exits_when_its_input_closes_is_not_signalled() {
    let (report, _) = replay_edge(quick_seed(), vec![]).await;
    assert!(report.is_ok(), "{report}");
    assert!(report.notes().is_empty(), "{report}");
}

#[tokio::test]
async fn a_child_that_answers_twice_is_an_id_finding_every_time() {
    for run in 0..10 {
        let (report, _) = replay_edge(quick_seed(), vec!["--twice".into()]).await;
        let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
        assert_eq!(kinds, [MismatchKind::Id], "run {run}: {report}");
    }
}

#[tokio::test]
async fn a_child_that_prints_a_banner_is_stray_output_unless_the_fixture_allows_it() {
    let banner = vec!["--banner".into(), "Edge server 1.0 on stdio".into()];
    let (report, _) = replay_edge(quick_seed(), banner.clone()).await;
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::StrayOutput], "{report}");
    assert!(
        report.mismatches()[0].summary().contains(
            r#"1 line on stdout that is not a JSON-RPC message: "Edge server 1.0 on stdio""#
        ),
        "{report}"
    );
    let (report, _) = replay_edge(quick_seed().with_stray_output_allowed(true), banner).await;
    assert!(report.is_ok(), "{report}");
    assert_eq!(report.notes().len(), 1, "{report}");
}

#[mcp_fixture("lookup_issue", allow_stray_output)]
#[tokio::test]
async fn the_attribute_allows_a_banner_when_asked(transport: Transport) -> std::io::Result<()> {
    serve_command(
        transport,
        &mut edge_server(&["--banner", "Edge server 1.0 on stdio"]),
    )
    .await
}
