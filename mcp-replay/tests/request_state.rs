//! Multi round-trip requests of 2026-07-28 (`input_required`, `requestState`, the retry
//! under a new id with `inputResponses`), with a client that first retries with a state it
//! made up (the Python SDK's `mrtr` example tampers with the token once). The server's
//! state is bound (`<REQUEST_STATE:1>`: new in every run, sent back live); the client's own
//! is kept as it sent it, so the replay sends it again and the server refuses it again.

mod common;

use common::{green_times, served_times, write_line, Rerecorded};
use mcp_replay::fixture::Direction;
use mcp_replay::{Fixture, Rules};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

const TAMPERED: &str = "state-forged-by-the-client";

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "refunds", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
}

fn done(id: &Value, text: &str, is_error: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": text}], "isError": is_error}})
}

/// `refund` asks for a confirmation first (a state signed with this run's key), refuses a
/// state it did not sign, and completes with the confirmation.
async fn serve(io: impl AsyncRead + AsyncWrite + Send + 'static) {
    static RUN: AtomicU64 = AtomicU64::new(1);
    let key = format!("{:x}", RUN.fetch_add(7919, Ordering::Relaxed) * 104_729);
    let (read, mut out) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let params = &message["params"];
        let signed = format!("refund-42.{key}");
        let answer = match params["requestState"].as_str() {
            None => json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required",
                "requestState": signed,
                "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "Refund order 42?",
                    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}}}}),
            Some(state) if state == signed => {
                let ok = params["inputResponses"]["confirm"]["content"]["ok"] == true;
                done(
                    &id,
                    if ok {
                        "refunded order 42"
                    } else {
                        "kept order 42"
                    },
                    false,
                )
            }
            Some(_) => done(&id, "the request state is not one this server signed", true),
        };
        if !write_line(&mut out, &answer).await {
            return;
        }
    }
}

/// The client: asks, retries with a forged state, then with the server's and a
/// confirmation. Returns the texts it was answered.
async fn client(
    io: impl AsyncRead + AsyncWrite + Unpin,
    mut log: Option<&mut Vec<(Direction, Value)>>,
) -> Vec<String> {
    let (read, mut out) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    let mut seen = Vec::new();
    let mut state = Value::Null;
    for (id, step) in [(1, 0), (2, 1), (3, 2)] {
        let mut params = json!({"_meta": meta(), "name": "refund", "arguments": {"order": 42}});
        match step {
            1 => params["requestState"] = json!(TAMPERED),
            2 => {
                params["requestState"] = state.clone();
                params["inputResponses"] =
                    json!({"confirm": {"action": "accept", "content": {"ok": true}}});
            }
            _ => {}
        }
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        if let Some(log) = log.as_deref_mut() {
            log.push((Direction::ClientToServer, request.clone()));
        }
        write_line(&mut out, &request).await;
        let line = tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line())
            .await
            .expect("an answer within 5 s")
            .unwrap()
            .expect("a line");
        let answer: Value = serde_json::from_str(&line).unwrap();
        if let Some(log) = log.as_deref_mut() {
            log.push((Direction::ServerToClient, answer.clone()));
        }
        if step == 0 {
            state = answer["result"]["requestState"].clone();
        }
        seen.push(
            answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or("input_required")
                .to_owned(),
        );
    }
    seen
}

#[tokio::test]
async fn a_state_the_client_made_is_sent_as_it_was_and_the_servers_is_bound() {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(serve(theirs));
    let mut exchange = Vec::new();
    let live = client(ours, Some(&mut exchange)).await;
    server.abort();
    assert_eq!(
        live,
        [
            "input_required",
            "the request state is not one this server signed",
            "refunded order 42"
        ]
    );

    let recorded =
        mcp_replay::_support::record::fixture_from_exchange(exchange, &Rules::default(), "refund")
            .unwrap();
    let text = recorded.to_jsonl();
    assert!(
        text.contains(&format!(r#""requestState":"{TAMPERED}""#)),
        "{text}"
    );
    assert_eq!(
        text.matches(r#""requestState":"<REQUEST_STATE:1>""#)
            .count(),
        2,
        "{text}"
    );
    assert!(!text.contains("refund-42."), "{text}");

    let fixture = Fixture::parse(&text).unwrap();
    green_times(&fixture, 20, Rerecorded::Same, serve).await;
    served_times(&fixture, 20, &live, |t| client(t, None)).await;
}
