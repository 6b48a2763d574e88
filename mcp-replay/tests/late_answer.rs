//! A server that acts on an answer's absence: it asks the client for its roots when the
//! session starts, and a tool that finds none yet says so and asks again (as
//! server-everything's `get-roots-list` does). A client that answered late (after its own
//! call) is recorded asking twice; the replay holds the recorded answer until the server
//! lines recorded before it have come, so the unchanged server asks again as it did live.

mod common;

use common::{green_times, write_line, Rerecorded};
use mcp_replay::fixture::Direction;
use mcp_replay::{Fixture, Rules};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;

/// Handles each message in a task of its own, as SDK servers do; the tool reads the roots
/// after a little work (5 ms), so an answer that comes meanwhile is seen.
async fn serve(io: impl AsyncRead + AsyncWrite + Send + 'static) {
    let (read, mut write) = tokio::io::split(io);
    let (out, mut outgoing) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        while let Some(message) = outgoing.recv().await {
            if !write_line(&mut write, &message).await {
                return;
            }
        }
    });
    let roots: Arc<Mutex<Option<usize>>> = Arc::new(Mutex::new(None));
    let mut asked = 0;
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let (out, roots) = (out.clone(), roots.clone());
        if method.is_empty() {
            // An answer to our roots/list.
            if let Some(list) = message["result"]["roots"].as_array() {
                *roots.lock().unwrap() = Some(list.len());
            }
            continue;
        }
        if method == "notifications/initialized" {
            asked += 1;
            let _ = out.send(json!({"jsonrpc": "2.0", "id": asked, "method": "roots/list"}));
            continue;
        }
        let id = message["id"].clone();
        let ask_again = asked + 1;
        let result = match method.as_str() {
            "initialize" => json!({"protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "roots", "version": "1"}}),
            "tools/call" => {
                asked += 1;
                tokio::spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    let known = *roots.lock().unwrap();
                    let text = match known {
                        Some(n) => format!("{n} roots"),
                        None => {
                            let _ = out.send(json!({"jsonrpc": "2.0", "id": ask_again,
                                "method": "roots/list"}));
                            "no roots yet; asked the client again".to_owned()
                        }
                    };
                    let _ = out.send(json!({"jsonrpc": "2.0", "id": id,
                        "result": {"content": [{"type": "text", "text": text}]}}));
                });
                continue;
            }
            _ => json!({}),
        };
        let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }
    drop(out);
    let _ = writer.await;
}

/// Logs `message` as the client's and writes it.
async fn emit(
    write: &mut (impl AsyncWrite + Unpin),
    log: &mut Vec<(Direction, Value)>,
    message: Value,
) {
    log.push((Direction::ClientToServer, message.clone()));
    write_line(write, &message).await;
}

/// The late client: answers the server's `roots/list` only after its own call's answer.
async fn late_client(
    io: impl AsyncRead + AsyncWrite + Unpin,
    log: &mut Vec<(Direction, Value)>,
) -> String {
    let (read, mut write) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    emit(
        &mut write,
        log,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
        "clientInfo": {"name": "late", "version": "1"}}}),
    )
    .await;
    emit(
        &mut write,
        log,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let mut server_requests = Vec::new();
    let mut text = String::new();
    let mut called = false;
    while text.is_empty() {
        let line = tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line())
            .await
            .expect("a line within 5 s")
            .unwrap()
            .expect("a line");
        let m: Value = serde_json::from_str(&line).unwrap();
        log.push((Direction::ServerToClient, m.clone()));
        if m["method"] == "roots/list" {
            server_requests.push(m["id"].clone());
        } else if m["id"] == 2 {
            text = m["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned();
        }
        // Once initialized and asked for its roots, it calls its tool first.
        if !called
            && server_requests.len() == 1
            && log.iter().any(|(d, m)| {
                *d == Direction::ServerToClient && m["id"] == 1 && m.get("result").is_some()
            })
        {
            called = true;
            emit(
                &mut write,
                log,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get-roots-list", "arguments": {}}}),
            )
            .await;
        }
    }
    for id in server_requests {
        emit(
            &mut write,
            log,
            json!({"jsonrpc": "2.0", "id": id,
            "result": {"roots": [{"uri": "file:///project", "name": "project"}]}}),
        )
        .await;
    }
    text
}

#[tokio::test]
async fn an_answer_recorded_late_is_given_late_and_the_server_asks_again() {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(serve(theirs));
    let mut exchange = Vec::new();
    let text = late_client(ours, &mut exchange).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    server.abort();
    assert_eq!(text, "no roots yet; asked the client again");
    let asks = exchange
        .iter()
        .filter(|(_, m)| m["method"] == "roots/list")
        .count();
    assert_eq!(asks, 2, "{exchange:#?}");

    let fixture =
        mcp_replay::_support::record::fixture_from_exchange(exchange, &Rules::default(), "late")
            .unwrap()
            .to_jsonl();
    let fixture = Fixture::parse(&fixture).unwrap();
    green_times(&fixture, 20, Rerecorded::Same, serve).await;
}
