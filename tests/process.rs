//! Servers that run as child processes over stdio (`serve_command`), including the
//! failures only a process has: an exit status and a signal.

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

fn seed() -> Fixture {
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
        .replay(|t| async move {
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

#[tokio::test]
async fn a_server_killed_by_a_signal_is_a_server_failure_naming_it() {
    let report = seed()
        .replay(|t| async move {
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
        .replay(
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
            .replay(move |t| async move {
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
