//! Fault injection against the replay engine: each fault gives one specific, actionable
//! finding, within the timeout, without a panic inside the harness.

mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};

use common::{kinds, notification, result, scripted};
use mcp_replay::{Fixture, MismatchKind, Transport};
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The demo's `lookup_issue.jsonl` (the README's fixture): one call, no handshake.
fn seed() -> Run {
    Fixture::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/lookup_issue.jsonl"
    ))
    .unwrap()
    .with_timeout(Duration::from_millis(500))
}

/// The answer of the raw servers below to the harness's `initialize`.
fn initialized(request: &serde_json::Value) -> String {
    result(
        request,
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "raw", "version": "0"}}),
    )
}

/// The answer of the servers below to the fixture's tool call.
fn looked_up(request: &serde_json::Value) -> String {
    result(
        request,
        json!({"content": [{"type": "text", "text": "Issue 42: example"}]}),
    )
}

/// Writes `line` and its newline, as the raw servers below do.
async fn send_line<W: tokio::io::AsyncWrite + Unpin>(write: &mut W, line: &str) {
    write
        .write_all(format!("{line}\n").as_bytes())
        .await
        .unwrap();
}

/// A server that answers `initialize` and writes `bytes` (raw) for the tool call.
async fn writes_raw(transport: Transport, bytes: Vec<u8>) {
    let (read, mut write) = tokio::io::split(transport);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let m: serde_json::Value = serde_json::from_str(&line).unwrap();
        if m["method"] == "initialize" {
            send_line(&mut write, &initialized(&m)).await;
        } else if m["method"] == "tools/call" {
            write.write_all(&bytes).await.unwrap();
            send_line(&mut write, &looked_up(&m)).await;
        }
    }
}

#[tokio::test]
async fn a_json_line_that_is_not_json_rpc_is_stray_output() {
    let report = seed()
        .replay()
        .run(|t| writes_raw(t, b"{\"hello\":\"world\"}\n".to_vec()))
        .await;
    assert_eq!(kinds(&report), [MismatchKind::StrayOutput], "{report}");
    assert!(
        report.mismatches()[0].summary().contains(
            r#"the server wrote 1 line on stdout that is not a JSON-RPC message: "{\"hello\":\"world\"}""#
        ),
        "{report}"
    );
}

#[tokio::test]
async fn a_line_that_is_not_utf8_is_stray_output() {
    let report = seed()
        .replay()
        .run(|t| writes_raw(t, b"\xff\xfe not text\n".to_vec()))
        .await;
    assert_eq!(kinds(&report), [MismatchKind::StrayOutput], "{report}");
    assert!(
        report.mismatches()[0].summary().contains("not text"),
        "{report}"
    );
}

#[tokio::test]
async fn lines_that_are_not_json_rpc_are_one_finding_and_a_note_where_the_fixture_allows_them() {
    let banner = b"Starting server v1.2\nlistening on stdio\n{\"level\":\"info\"}\n".to_vec();
    let report = seed().replay().run(|t| writes_raw(t, banner.clone())).await;
    assert_eq!(kinds(&report), [MismatchKind::StrayOutput], "{report}");
    assert!(
        report.mismatches()[0].summary().starts_with(
            r#"the server wrote 3 lines on stdout that are not JSON-RPC messages; the first: "Starting server v1.2""#
        ),
        "{report}"
    );
    assert!(
        report.recorded().is_none(),
        "a re-recording must not drop them silently"
    );
    let allowed = seed()
        .with_stray_output_allowed(true)
        .replay()
        .run(|t| writes_raw(t, banner))
        .await;
    assert!(allowed.is_ok(), "{allowed}");
    assert_eq!(allowed.notes().len(), 1, "{allowed:?}");
    assert!(allowed.notes()[0].contains("3 lines"), "{allowed:?}");
}

#[tokio::test]
async fn a_ten_megabyte_line_is_compared_and_reported_briefly() {
    let huge = "x".repeat(10 * 1024 * 1024);
    let started = Instant::now();
    // A generous timeout: moving 10 MB through a debug build on a loaded machine takes a while.
    let report = seed()
        .with_timeout(Duration::from_secs(15))
        .replay()
        .run(move |t| {
            scripted(t, move |m| {
                vec![result(
                    m,
                    json!({"content": [{"type": "text", "text": huge}]}),
                )]
            })
        })
        .await;
    assert_eq!(
        kinds(&report),
        [MismatchKind::Result],
        "{}",
        report.mismatches()[0].summary()
    );
    let text = report.to_string();
    assert!(
        text.len() < 20_000,
        "the report stays readable: {} bytes",
        text.len()
    );
    assert!(text.contains("diff (- expected, + actual)"));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
}

/// Both pipes full at once: the server writes 200 KB of log messages before it reads on,
/// while the harness writes a 200 KB call right after `notifications/initialized`. The
/// harness reads while it writes, so neither waits on the other.
#[tokio::test]
async fn a_server_writing_while_the_harness_writes_a_long_line_is_read_meanwhile() {
    use common::{fixture, notification, scripted_all};
    let log = |i: usize| json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": format!("line {i} {}", "x".repeat(2000))}});
    let big = "y".repeat(200 * 1024);
    let mut lines = vec![
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "scripted", "version": "0"}}}),
        ),
        (
            "client->server",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ),
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "take", "arguments": {"text": big}}}),
        ),
    ];
    lines.extend((0..100).map(|i| ("server->client", log(i))));
    lines.push(("server->client", json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"content": [{"type": "text", "text": "taken"}]}})));
    let report = fixture(&lines)
        .with_timeout(Duration::from_secs(5))
        .replay()
        .run(|t| {
            scripted_all(t, move |m| match m["method"].as_str() {
                Some("notifications/initialized") => (0..100)
                    .map(|i| notification("notifications/message", log(i)["params"].clone()))
                    .collect(),
                Some("tools/call") => {
                    vec![result(
                        m,
                        json!({"content": [{"type": "text", "text": "taken"}]}),
                    )]
                }
                _ => vec![],
            })
        })
        .await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn a_panic_in_the_middle_of_a_window_is_named() {
    let report = seed()
        .replay()
        .run(|t| {
            scripted(t, |m| {
                if m["method"] == "tools/call" {
                    panic!("lookup failed halfway");
                }
                vec![]
            })
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("the server panicked: lookup failed halfway"),
        "{report}"
    );
}

#[tokio::test]
async fn a_server_that_ignores_its_closed_input_is_reported_and_the_replay_still_ends() {
    let started = Instant::now();
    let report = seed()
        .replay()
        .run(|t| async move {
            let answered = scripted(t, |m| vec![looked_up(m)]);
            answered.await;
            // ... then hangs instead of ending.
            std::future::pending::<()>().await;
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure], "{report}");
    assert!(
        report.mismatches()[0]
            .summary()
            .contains("did not stop within 500 ms"),
        "{report}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_server_refusing_the_session_setup_is_a_server_failure_naming_its_error() {
    // The replay's fast path reads this error response without a tree: the refusal must
    // still be seen, with the server's error in the finding.
    let report = seed()
        .replay().run(|t| async move {
            let (read, mut write) = tokio::io::split(t);
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let m: serde_json::Value = serde_json::from_str(&line).unwrap();
                if m["method"] == "initialize" {
                    let refusal = json!({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32602, "message": "unsupported protocol version"}});
                    send_line(&mut write, &refusal.to_string()).await;
                }
            }
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::ServerFailure], "{report}");
    let finding = &report.mismatches()[0];
    assert!(
        finding
            .summary()
            .contains("refused the harness's `initialize`")
            && finding.summary().contains("unsupported protocol version"),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_written_twice_is_an_id_finding_every_time() {
    // The second copy follows the first in the same write: whether the replay has read it
    // when the last expected message came must not matter.
    let mut caught = 0;
    for _ in 0..40 {
        let report = seed()
            .replay()
            .run(|t| {
                scripted(t, |m| {
                    let answer = looked_up(m);
                    vec![answer.clone(), answer]
                })
            })
            .await;
        if kinds(&report) == [MismatchKind::Id] {
            caught += 1;
        }
    }
    assert_eq!(
        caught, 40,
        "the duplicate was reported in {caught} of 40 replays"
    );
}

#[tokio::test]
async fn a_message_a_server_sends_a_few_turns_after_its_answer_is_caught_before_its_input_closes() {
    // A server that answers, yields twice (its handler awaits something that is not ready
    // at once), then sends a notification, unless its input has closed by then: a server
    // that drops what it would send after its input closed, as rmcp does. The settle step
    // gives it those turns before the replay closes its input.
    let report = seed()
        .replay()
        .run(|t| async move {
            let (read, mut write) = tokio::io::split(t);
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let m: serde_json::Value = serde_json::from_str(&line).unwrap();
                if m["method"] == "initialize" {
                    send_line(&mut write, &initialized(&m)).await;
                } else if m["method"] == "tools/call" {
                    send_line(&mut write, &looked_up(&m)).await;
                    tokio::task::yield_now().await;
                    tokio::task::yield_now().await;
                    // The input's end, if it came: nothing more is sent then.
                    let closed = at_end_now(lines.get_mut()).await;
                    if !closed {
                        let late = notification(
                            "notifications/message",
                            json!({"level": "info", "data": "late"}),
                        );
                        send_line(&mut write, &late).await;
                    }
                }
            }
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::Unexpected], "{report}");
}

/// Whether `reader` is at its end now (a read that is ready with nothing), without waiting.
async fn at_end_now<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R) -> bool {
    std::future::poll_fn(|cx| {
        let end = match std::pin::Pin::new(&mut *reader).poll_fill_buf(cx) {
            std::task::Poll::Ready(Ok(buf)) => buf.is_empty(),
            std::task::Poll::Ready(Err(_)) => true,
            std::task::Poll::Pending => false,
        };
        std::task::Poll::Ready(end)
    })
    .await
}

#[tokio::test]
async fn a_replay_dropped_midway_closes_the_servers_input_at_once() {
    // The replay's drive runs as a task of its own: when the test stops awaiting the
    // replay (its own timeout, a select), the task goes too and the server's input closes,
    // not only at the fixture's 30 s timeout.
    let (closed, input_closed) = tokio::sync::oneshot::channel();
    let run = seed().with_timeout(Duration::from_secs(30));
    let replay = run.replay().run(|t| async move {
        // Answers `initialize`, never the tool call; returns when its input ends.
        scripted(t, |_| Vec::new()).await;
        let _ = closed.send(());
    });
    let stopped = tokio::time::timeout(Duration::from_millis(300), replay).await;
    assert!(
        stopped.is_err(),
        "the replay should still wait for the answer"
    );
    tokio::time::timeout(Duration::from_secs(5), input_closed)
        .await
        .expect("the server's input closes once the replay is dropped")
        .expect("the server saw its input close");
}
