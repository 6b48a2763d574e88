//! A revision this build does not know yet (2027-03-30, the next after 2026-07-28): its
//! new messages pass through recording, replay and the mock generically. The
//! specification's draft (schema/draft of its repository, last snapshot 2026-08-22) is
//! still 2026-07-28 byte for byte and has no examples of them, so the exchange is written
//! by hand after the changes announced for it: a new method (`groups/list`), a new
//! notification tied to a call by its progress token (`notifications/tools/progress`), a new
//! kind of input request in an `input_required` result, input for a running task
//! (`tasks/input`), and the header-mismatch error (`-32020`). Every request names
//! 2027-03-30 in its `_meta`; the server mints a new `requestState` in every run.
//!
//! Recorded, none of the run's values is kept; replayed against the unchanged server 20
//! times, green and re-recorded byte for byte; served by the mock to the same client 20
//! times, green.

mod common;

use common::{green_times, served_times, write_line, Rerecorded};
use mcp_replay::fixture::Direction;
use mcp_replay::{Fixture, Rules};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

const NEXT: &str = "2027-03-30";

fn fresh() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    (N.fetch_add(1, Ordering::Relaxed) << 40) ^ nanos ^ 0x5851_f42d_4c95_7f2d
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": NEXT,
        "io.modelcontextprotocol/clientInfo": {"name": "next-client", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
}

/// A server of the next revision, one message at a time.
async fn serve(io: impl AsyncRead + AsyncWrite + Send + 'static) {
    let (read, mut out) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    let state = format!("st-{:016x}", fresh());
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        let (Some(id), Some(method)) = (message.get("id").cloned(), message["method"].as_str())
        else {
            continue;
        };
        let params = &message["params"];
        let token = params["_meta"]["progressToken"].clone();
        let mut sent = Vec::new();
        let reply = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
        match (method, params["name"].as_str()) {
            ("server/discover", _) => sent.push(reply(json!({
                "supportedVersions": ["2026-07-28", NEXT],
                "capabilities": {"tools": {}, "groups": {}},
                "cacheScope": "private", "ttlMs": 0, "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "next", "version": "1"}}}))),
            ("groups/list", _) => sent.push(reply(json!({"resultType": "complete", "groups": [
                {"name": "billing", "title": "Billing", "tools": ["refund"]}]}))),
            ("tools/call", Some("refund")) if params.get("requestState").is_none() => {
                sent.push(json!({"jsonrpc": "2.0", "method": "notifications/tools/progress",
                    "params": {"progressToken": token, "stage": "checking", "percent": 50}}));
                sent.push(reply(json!({"resultType": "input_required", "requestState": state,
                    "inputRequests": {
                        "confirm": {"method": "elicitation/create", "params": {
                            "mode": "form", "message": "Refund?",
                            "requestedSchema": {"type": "object",
                                "properties": {"ok": {"type": "boolean"}}}}},
                        "account": {"method": "input/select", "params": {
                            "message": "Which account?", "options": ["main", "savings"]}}}})));
            }
            ("tools/call", Some("refund")) => {
                let fine = params["requestState"] == state.as_str()
                    && params["inputResponses"]["account"]["selected"] == "main";
                sent.push(reply(json!({"resultType": "complete",
                    "content": [{"type": "text", "text": if fine { "refunded" } else { "refused" }}],
                    "structuredContent": {"refunded": fine}})));
            }
            ("tools/call", _) => sent.push(json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32020, "message": "HeaderMismatch: Mcp-Name does not match the body",
                "data": {"header": "Mcp-Name", "body": params["name"]}}})),
            ("tasks/input", _) => sent.push(reply(json!({"resultType": "complete",
                "task": {"taskId": params["taskId"], "status": "working"}}))),
            _ => sent.push(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}})),
        }
        for m in &sent {
            if !write_line(&mut out, m).await {
                return;
            }
        }
    }
}

/// The client of the next revision: discovers, lists groups, calls `refund` (answering
/// its input requests and retrying with the state), sends a call the server refuses,
/// gives a task input. Returns what it saw, in order.
async fn client(
    io: impl AsyncRead + AsyncWrite + Unpin,
    mut log: Option<&mut Vec<(Direction, Value)>>,
) -> Vec<String> {
    let (read, mut out) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    let mut seen = Vec::new();
    let mut state = Value::Null;
    for id in 1..=6 {
        let (method, mut params) = match id {
            1 => ("server/discover", json!({})),
            2 => ("groups/list", json!({})),
            3 => (
                "tools/call",
                json!({"name": "refund", "arguments": {"order": "A-1"}}),
            ),
            4 => (
                "tools/call",
                json!({"name": "refund", "arguments": {"order": "A-1"},
                "requestState": state,
                "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}},
                    "account": {"selected": "main"}}}),
            ),
            5 => ("tools/call", json!({"name": "other"})),
            _ => (
                "tasks/input",
                json!({"taskId": "task-7",
                "inputResponses": {"account": {"selected": "savings"}}}),
            ),
        };
        params["_meta"] = meta();
        if method == "tools/call" {
            params["_meta"]["progressToken"] = json!(format!("call-{id}"));
        }
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Some(log) = log.as_deref_mut() {
            log.push((Direction::ClientToServer, request.clone()));
        }
        write_line(&mut out, &request).await;
        loop {
            let line = tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line())
                .await
                .expect("an answer within 5 s")
                .unwrap()
                .expect("a line");
            let m: Value = serde_json::from_str(&line).unwrap();
            if let Some(log) = log.as_deref_mut() {
                log.push((Direction::ServerToClient, m.clone()));
            }
            if let Some(method) = m["method"].as_str() {
                seen.push(format!("{method} {}", m["params"]["stage"]));
                continue;
            }
            let result = &m["result"];
            seen.push(match (result["resultType"].as_str(), &m["error"]) {
                (Some("input_required"), _) => {
                    state = result["requestState"].clone();
                    "input_required".to_owned()
                }
                (_, Value::Null) => compact(result),
                (_, error) => format!("error {}", error["code"]),
            });
            break;
        }
    }
    seen
}

/// A result as the client saw it, without what changes from run to run, its keys sorted
/// (a workspace build may keep serde_json's keys in the order they came).
fn compact(result: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let mut result = sorted(result);
    if let Some(meta) = result.get_mut("_meta") {
        *meta = json!("..");
    }
    result.to_string()
}

#[tokio::test]
async fn the_next_revisions_messages_record_replay_and_serve_generically() {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(serve(theirs));
    let mut exchange = Vec::new();
    let live = client(ours, Some(&mut exchange)).await;
    server.abort();
    assert!(live.contains(&r#"{"content":[{"text":"refunded","type":"text"}],"resultType":"complete","structuredContent":{"refunded":true}}"#.to_owned()), "{live:?}");
    assert!(live.contains(&"error -32020".to_owned()), "{live:?}");

    let recorded = mcp_replay::_support::record::fixture_from_exchange(
        exchange.clone(),
        &Rules::default(),
        "next",
    )
    .unwrap();
    let text = recorded.to_jsonl();
    let state = exchange
        .iter()
        .find_map(|(_, m)| m["result"]["requestState"].as_str().map(str::to_owned))
        .expect("an input_required result");
    assert!(
        !text.contains(&state),
        "the run's state is in the fixture:\n{text}"
    );
    assert!(
        text.contains(r#""requestState":"<REQUEST_STATE:1>""#),
        "{text}"
    );
    assert!(
        text.contains(r#""method":"notifications/tools/progress""#),
        "{text}"
    );
    assert!(text.contains(r#""method":"input/select""#), "{text}");
    // Replayed in the revision it was recorded in, not the era's default.
    assert!(
        text.starts_with(r#"{"mcp_replay":1,"protocol":"2027-03-30"}"#),
        "{text}"
    );
    let fixture = Fixture::parse(&text).unwrap();
    // Checked against the newest schema this build holds, the new kind of input request
    // breaks it: a warning that says so, not a finding.
    let report = fixture.replay().run(serve).await;
    assert!(report.is_ok(), "{report}");
    let warnings: Vec<&str> = report.warnings().iter().map(|w| w.summary()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(".result.inputRequests.account"),
        "{warnings:?}"
    );
    assert!(
        warnings[0].ends_with("(checked against 2026-07-28, the newest revision this build knows; 2027-03-30 may allow it)"),
        "{warnings:?}"
    );
    green_times(&fixture, 20, Rerecorded::Same, serve).await;
    served_times(&fixture, 20, &live, |t| client(t, None)).await;
}
