//! A 2026-07-28 subscription (`subscriptions/listen`): its id is the JSON-RPC id of that
//! request, on every message of the stream (`_meta["io.modelcontextprotocol/subscriptionId"]`),
//! so it is labelled as the request is (`<REQUEST_ID:n>`), never bound as a minted value:
//! replayed, the harness's own live id comes back; served, the client's own.

mod common;

use common::{green_times, served_times, write_line, Rerecorded};
use mcp_replay::fixture::Direction;
use mcp_replay::{Fixture, Rules};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

const SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "listener", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}})
}

/// A server of one resource: `subscriptions/listen` acknowledges with the request's id;
/// `touch` updates the resource (a notification on every open subscription that asked for
/// it); `stop` ends the subscriptions gracefully (each `subscriptions/listen` answered).
async fn serve(io: impl AsyncRead + AsyncWrite + Send + 'static) {
    let (read, mut out) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    let mut open: Vec<Value> = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        let method = message["method"].as_str().unwrap_or_default();
        if method == "notifications/cancelled" {
            open.retain(|id| *id != message["params"]["requestId"]);
            continue;
        }
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let params = &message["params"];
        let mut sent = Vec::new();
        match method {
            "subscriptions/listen" => {
                sent.push(json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                    "params": {"_meta": {SUBSCRIPTION: id}, "notifications": params["notifications"]}}));
                open.push(id);
            }
            "tools/call" if params["name"] == "touch" => {
                for sub in &open {
                    sent.push(
                        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                        "params": {"_meta": {SUBSCRIPTION: sub}, "uri": "file:///config.json"}}),
                    );
                }
                sent.push(json!({"jsonrpc": "2.0", "id": id,
                    "result": {"resultType": "complete", "content": [{"type": "text", "text": "touched"}]}}));
            }
            "tools/call" => {
                for sub in open.drain(..) {
                    sent.push(json!({"jsonrpc": "2.0", "id": sub,
                        "result": {"resultType": "complete", "_meta": {SUBSCRIPTION: sub}}}));
                }
                sent.push(json!({"jsonrpc": "2.0", "id": id,
                    "result": {"resultType": "complete", "content": [{"type": "text", "text": "stopped"}]}}));
            }
            _ => sent.push(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}),
            ),
        }
        for m in &sent {
            if !write_line(&mut out, m).await {
                return;
            }
        }
    }
}

/// A client whose ids start somewhere new in every run: listens, touches, cancels a
/// second subscription, stops. Returns what it saw, ids written as whether they named
/// its own listen request.
async fn client(
    io: impl AsyncRead + AsyncWrite + Unpin,
    mut log: Option<&mut Vec<(Direction, Value)>>,
) -> Vec<String> {
    static START: AtomicI64 = AtomicI64::new(40);
    let first = START.fetch_add(17, Ordering::Relaxed);
    let (read, mut out) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    let (listen, second) = (first, first + 1);
    let mut seen = Vec::new();
    let mut send = Vec::new();
    send.push(json!({"jsonrpc": "2.0", "id": listen, "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"resourceSubscriptions": ["file:///config.json"]}}}));
    send.push(
        json!({"jsonrpc": "2.0", "id": second, "method": "subscriptions/listen",
        "params": {"_meta": meta(), "notifications": {"toolsListChanged": true}}}),
    );
    send.push(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": second}}),
    );
    send.push(
        json!({"jsonrpc": "2.0", "id": first + 2, "method": "tools/call",
        "params": {"_meta": meta(), "name": "touch", "arguments": {}}}),
    );
    send.push(
        json!({"jsonrpc": "2.0", "id": first + 3, "method": "tools/call",
        "params": {"_meta": meta(), "name": "stop", "arguments": {}}}),
    );
    // What each message waits for: the acknowledgement of each listen, the answer of each call.
    let wants = [1, 1, 0, 2, 2];
    let name = |v: &Value| match v.as_i64() {
        Some(id) if id == listen => "listen".to_owned(),
        Some(id) if id == second => "second".to_owned(),
        Some(id) if id > second => "call".to_owned(),
        _ => format!("other {v}"),
    };
    for (message, want) in send.into_iter().zip(wants) {
        if let Some(log) = log.as_deref_mut() {
            log.push((Direction::ClientToServer, message.clone()));
        }
        write_line(&mut out, &message).await;
        for _ in 0..want {
            let line = tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line())
                .await
                .expect("an answer within 5 s")
                .unwrap()
                .expect("a line");
            let m: Value = serde_json::from_str(&line).unwrap();
            if let Some(log) = log.as_deref_mut() {
                log.push((Direction::ServerToClient, m.clone()));
            }
            let sub = m["params"]["_meta"][SUBSCRIPTION]
                .as_i64()
                .or(m["result"]["_meta"][SUBSCRIPTION].as_i64());
            seen.push(format!(
                "{} {} {}",
                m["method"].as_str().unwrap_or("answer"),
                m.get("id").map(name).unwrap_or_default(),
                sub.map(|s| name(&json!(s))).unwrap_or_default()
            ));
        }
    }
    seen
}

#[tokio::test]
async fn a_subscription_id_follows_its_listen_request_replayed_and_served() {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(serve(theirs));
    let mut exchange = Vec::new();
    let live = client(ours, Some(&mut exchange)).await;
    server.abort();
    assert_eq!(
        live,
        [
            "notifications/subscriptions/acknowledged  listen",
            "notifications/subscriptions/acknowledged  second",
            "notifications/resources/updated  listen",
            "answer call ",
            "answer listen listen",
            "answer call ",
        ]
    );

    let recorded =
        mcp_replay::_support::record::fixture_from_exchange(exchange, &Rules::default(), "listen")
            .unwrap();
    let text = recorded.to_jsonl();
    assert!(!text.contains("MINTED"), "{text}");
    assert!(
        text.contains(r#""io.modelcontextprotocol/subscriptionId":"<REQUEST_ID:1>""#),
        "{text}"
    );
    let fixture = Fixture::parse(&text).unwrap();
    // Re-recorded, the same lines: the harness sends the next client line without waiting
    // for a notification, so an acknowledgement may come after it.
    green_times(&fixture, 20, Rerecorded::SameLines, serve).await;
    served_times(&fixture, 20, &live, |t| client(t, None)).await;
}
