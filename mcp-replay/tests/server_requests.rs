//! Server-to-client requests (legacy era): matched, answered with the fixture's recorded
//! client response under the server's own id; ids are tracked per direction.

mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};

use common::{fixture, kinds, scripted};
use mcp_replay::MismatchKind;
use serde_json::{json, Value};
use std::time::Duration;

/// The server asks the client for its roots (server id 0, while the client's request is
/// live id 1), then answers the tool call with what the client said.
fn roots_server(message: &Value) -> Vec<String> {
    if message["method"] == "tools/call" {
        return vec![json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}).to_string()];
    }
    if message["id"] == 0 && message.get("result").is_some() {
        let roots = message["result"]["roots"].clone();
        return vec![json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": roots.to_string()}]}}).to_string()];
    }
    vec![]
}

fn roots_fixture(answer: &str) -> Run {
    fixture(&[
        ("client->server", json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "roots"}})),
        ("server->client", json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"})),
        ("client->server", json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"uri": "file:///demo", "name": "demo"}]}})),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": 0, "result": {"content": [{"type": "text", "text": answer}]}}),
        ),
    ])
    .with_timeout(Duration::from_millis(500))
}

#[tokio::test]
async fn a_server_request_is_answered_with_the_recorded_client_response() {
    let report = roots_fixture(r#"[{"name":"demo","uri":"file:///demo"}]"#)
        .replay()
        .run(|t| scripted(t, roots_server))
        .await;
    assert!(report.is_ok(), "{report}");
    let recorded = report.recorded().unwrap().to_jsonl();
    assert_eq!(recorded.lines().count(), 4);
    assert!(
        recorded
            .lines()
            .nth(1)
            .unwrap()
            .contains(r#""id":0,"method":"roots/list""#),
        "{recorded}"
    );
}

#[tokio::test]
async fn a_server_request_with_other_params_is_a_params_finding() {
    let report = roots_fixture("whatever")
        .replay().run(|t| {
            scripted(t, |m| {
                let mut out = roots_server(m);
                if m["method"] == "tools/call" {
                    out = vec![json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list", "params": {"cursor": "x"}}).to_string()];
                }
                out
            })
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::Params, MismatchKind::Result]);
}

#[tokio::test]
async fn an_unexpected_server_request_is_refused_so_the_server_does_not_hang() {
    let fixture = fixture(&[
        ("client->server", json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "roots"}})),
        ("server->client", json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"content": []}})),
    ])
    .with_timeout(Duration::from_millis(300));
    // The server asks for roots, and answers the call once the client refused.
    let report = fixture
        .replay()
        .run(|t| {
            scripted(t, |m| {
                if m["method"] == "tools/call" {
                    vec![json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}).to_string()]
                } else if m["id"] == 0 && m["error"]["code"] == -32601 {
                    vec![json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}).to_string()]
                } else {
                    vec![]
                }
            })
        })
        .await;
    assert_eq!(kinds(&report), [MismatchKind::Unexpected], "{report}");
}

#[tokio::test]
async fn a_recorded_answer_naming_a_temp_folder_is_sent_with_this_machines_folder() {
    // The client answered `roots/list` with a folder under the temp directory; the
    // recording says `<TMP>`, and the server under test must get a real path back (it
    // may validate it as a URI). Its result names the path, normalized to `<TMP>` again.
    let fixture = fixture(&[
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "roots"}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        ),
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"uri": "file://<TMP>/project", "name": "project"}]}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": 0, "result": {"content": [{"type": "text", "text": "file://<TMP>/project"}]}}),
        ),
    ]);
    let report = fixture
        .replay().run(move |t| {
            scripted(t, move |m| {
                if m["method"] == "tools/call" {
                    return vec![json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}).to_string()];
                }
                let uri = m["result"]["roots"][0]["uri"].as_str().unwrap_or_default();
                assert!(!uri.contains('<'), "the server got a placeholder: {uri}");
                vec![json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": uri}]}}).to_string()]
            })
        })
        .await;
    assert!(report.is_ok(), "{report}");
}
