//! W3C trace context in `_meta` (the `trace-context` default rule, `docs/normalization.md`):
//! a client with OpenTelemetry on sends a new `traceparent` (and a `tracestate`, a
//! `baggage`) in every request, and a traced server names its own span in its results.
//! Recorded, none of those values is kept; replayed against the unchanged server, the
//! harness sends a valid `traceparent` of its own, 20 times green; served by the mock, the
//! same client with new values each run is green 20 times, and gets a valid one back.

mod common;

use common::{green_times, served_times, write_line, Rerecorded};
use mcp_replay::fixture::Direction;
use mcp_replay::{Fixture, Rules};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

/// A fresh value every call: the trace ids of one run are never those of another.
fn fresh() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed) + 1;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    (n << 32) ^ nanos ^ 0x9e37_79b9_7f4a_7c15
}

fn traceparent() -> String {
    format!("00-{:016x}{:016x}-{:016x}-01", fresh(), fresh(), fresh())
}

/// Is `s` a W3C `traceparent` (version 00, ids in lowercase hex, neither all zeros)?
fn is_traceparent(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let hex = |p: &str, n: usize| {
        p.len() == n
            && p.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            && p.bytes().any(|b| b != b'0')
    };
    parts.len() == 4
        && parts[0] == "00"
        && hex(parts[1], 32)
        && hex(parts[2], 16)
        && hex(parts[3], 2)
}

/// A traced server: `traced` answers whether the call carried a valid `traceparent`, and
/// names its own span in the result's `_meta`.
async fn serve(io: impl AsyncRead + AsyncWrite + Send + 'static) {
    let (read, mut write) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
            continue;
        };
        let params = &message["params"];
        let result = match method {
            "initialize" => json!({"protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "traced", "version": "1.0.0"}}),
            "tools/call" => {
                let carried = params["_meta"]["traceparent"]
                    .as_str()
                    .is_some_and(is_traceparent);
                json!({"content": [{"type": "text",
                        "text": if carried { "traced" } else { "untraced" }}],
                    "_meta": {"traceparent": traceparent(), "tracestate": "srv=1"}})
            }
            _ => json!({}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if !write_line(&mut write, &answer).await {
            return;
        }
    }
}

/// A traced client: each request carries a new trace context. Returns what it saw of the
/// call's answer (its text, and whether the answer's `traceparent` is valid).
async fn client(
    io: impl AsyncRead + AsyncWrite + Unpin,
    mut log: Option<&mut Vec<(Direction, Value)>>,
) -> (String, bool) {
    let (read, mut write) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    let meta = || json!({"traceparent": traceparent(), "tracestate": format!("vendor={:x}", fresh()), "baggage": format!("user.id={:x}", fresh())});
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "traced-client", "version": "1"}, "_meta": meta()}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "traced", "arguments": {}, "_meta": meta()}}),
    ];
    let mut seen = (String::new(), false);
    for message in messages {
        if let Some(log) = log.as_deref_mut() {
            log.push((Direction::ClientToServer, message.clone()));
        }
        write_line(&mut write, &message).await;
        if message.get("id").is_none() {
            continue;
        }
        let line = lines.next_line().await.unwrap().expect("an answer");
        let answer: Value = serde_json::from_str(&line).unwrap();
        if let Some(log) = log.as_deref_mut() {
            log.push((Direction::ServerToClient, answer.clone()));
        }
        if message["id"] == 2 {
            seen = (
                answer["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                answer["result"]["_meta"]["traceparent"]
                    .as_str()
                    .is_some_and(is_traceparent),
            );
        }
    }
    seen
}

#[tokio::test]
async fn trace_context_is_recorded_as_placeholders_replayed_and_served_fresh() {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(serve(theirs));
    let mut exchange = Vec::new();
    let live = client(ours, Some(&mut exchange)).await;
    server.abort();
    assert_eq!(live, ("traced".to_owned(), true));

    let recorded = mcp_replay::_support::record::fixture_from_exchange(
        exchange.clone(),
        &Rules::default(),
        "traced",
    )
    .unwrap();
    let text = recorded.to_jsonl();
    for (_, message) in &exchange {
        for key in ["traceparent", "tracestate", "baggage"] {
            for member in ["params", "result"] {
                if let Some(value) = message[member]["_meta"][key].as_str() {
                    assert!(!text.contains(value), "{value} is in the fixture:\n{text}");
                }
            }
        }
    }
    assert!(text.contains(r#""traceparent":"<TRACEPARENT>""#), "{text}");
    assert!(text.contains(r#""baggage":"<BAGGAGE>""#), "{text}");
    let fixture = Fixture::parse(&text).unwrap();
    green_times(&fixture, 20, Rerecorded::Same, serve).await;
    served_times(&fixture, 20, &live, |t| client(t, None)).await;
}

/// Pinned to the rules before `trace-context` (`"rules": 4`), a fixture keeps comparing
/// trace context as data: the recorded value is stale at once.
#[tokio::test]
async fn a_fixture_pinned_before_the_rule_compares_trace_context_as_data() {
    let text = concat!(
        r#"{"mcp_replay": 1, "rules": 4}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"traced","arguments":{}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"untraced"}],"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01","tracestate":"srv=1"}}}}"#,
        "\n",
    );
    let fixture = Fixture::parse(text).unwrap();
    let report = fixture.replay().run(serve).await;
    assert!(!report.is_ok(), "{report}");
    assert!(report.to_string().contains("_meta.traceparent"), "{report}");
}
