//! The bundled fixtures, replayed against the bundled demo server with `#[mcp_fixture]`.

use mcp_replay::{mcp_fixture, Transport};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;

/// The seed's two-line fixture: no handshake, so the harness performs the session setup.
#[mcp_fixture("lookup_issue")]
#[tokio::test]
async fn lookup_issue(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

/// A fixture that spells out its own handshake.
#[mcp_fixture("handshake_and_tools_list")]
#[tokio::test]
async fn handshake_and_tools_list(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

/// Progress and log notifications before the response.
#[mcp_fixture("count_up_progress")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn count_up_progress(
    transport: Transport,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let server = DemoServer::default().serve(transport).await?;
    server.waiting().await?;
    Ok(())
}

/// A tool error result (`isError: true`) and a JSON-RPC error.
#[mcp_fixture("divide_by_zero", timeout_ms = 2000)]
#[tokio::test]
async fn divide_by_zero(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

/// Another fixture folder, a name with a subfolder, a `mut` pattern, and two requests in
/// flight whose responses the fixture lists in the other order (matched by id).
#[mcp_fixture("tools/echo", dir = "tests/fixtures", timeout_ms = 3000)]
#[tokio::test]
async fn pipelined_echo_in_another_folder(mut transport: mcp_replay::Transport) {
    tokio::io::AsyncWriteExt::flush(&mut transport)
        .await
        .unwrap();
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

/// A replay against a server that answers at once waits for no timer: no virtual time
/// passes on tokio's paused clock, which moves only when every task waits on one. (The
/// settle step after the last response, a deadline already past, used to be armed on the
/// runtime's timer, which fires at its next millisecond tick at the earliest: a
/// millisecond added to every replay.)
#[tokio::test(start_paused = true)]
async fn a_replay_waits_for_no_timer() {
    let fixture = mcp_replay::Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap();
    // Off the millisecond: a deadline of now is then not on a tick of the timer.
    tokio::time::advance(std::time::Duration::from_micros(500)).await;
    let start = tokio::time::Instant::now();
    let report = fixture
        .replay()
        .run(|transport| async move {
            let server = DemoServer::default().serve(transport).await.unwrap();
            let _ = server.waiting().await;
        })
        .await;
    assert!(report.is_ok(), "{report}");
    assert_eq!(
        start.elapsed(),
        std::time::Duration::ZERO,
        "a timer fired during the replay"
    );
}
