//! Every value the harness replaces, as one model, tried on generated sessions
//! (`docs/normalization.md`, "Values the harness replaces, in one table").
//!
//! A generated session combines what real sessions combine: customer ids minted per run
//! with a shape (`cus_<hex>`, `note-<hex>`, `ord_<hex>`), resource URIs built around them
//! that the client sends back whole, owners' e-mail addresses (personal data) that the
//! client sends back or not, a log line naming an owner before the result does, progress
//! naming the id, a timestamp, a tool listing in pages behind per-run cursors, and a
//! create that runs as a task (the Tasks extension), polled until it completes. A raw
//! JSON-RPC server plays it in process with new values in every run; a scripted client
//! drives it and writes what it saw as shapes, never values.
//!
//! For each session: the exchange recorded into a fixture holds none of the recorded
//! values; the fixture replays green against the unchanged server (three times, each with
//! new values); re-recording it gives the same bytes; and the mock serves it so that the
//! client writes what it wrote live. A failure shrinks to a minimal session.

use mcp_replay::fixture::Direction;
use mcp_replay::{Fixture, Rules};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

const PREFIXES: [&str; 3] = ["cus_", "note-", "ord_"];
const OWNERS: [&str; 3] = [
    "dana.whitfield@northwind-traders.com",
    "li.wei@contoso-mail.net",
    "ola.nordmann@fjord-post.no",
];
const TOOLS: [&str; 5] = ["create", "get", "by_owner", "archive", "ping"];

/// One customer the session creates, and what the client does with it.
#[derive(Debug, Clone)]
struct Create {
    prefix: usize,
    owner: usize,
    progress: bool,
    log: bool,
    /// Read back by its URI (`crm://customers/<id>`) instead of by id.
    by_uri: bool,
    /// Ask for the owner's customers by the e-mail address the result gave.
    by_owner: bool,
    /// List the tools (in pages) before it.
    list_first: bool,
    /// Create it as a task (the Tasks extension): a task id minted per run, polled with
    /// `tasks/get` until it completes with the result.
    task: bool,
    /// The create answers the id only inside a text, as pmcp's typed tools do (its output
    /// as a JSON text, `{"id":"cus_..."}`), with no `structuredContent` nor link: the
    /// client reads the id out of the text.
    text_only: bool,
    /// The create's answer repeats the owner's e-mail, which `structuredContent` holds,
    /// inside a text beside a telephone number: one value in structure and in text.
    contact: bool,
}

fn create() -> impl Strategy<Value = Create> {
    (
        0..PREFIXES.len(),
        0..OWNERS.len(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(
                prefix,
                owner,
                progress,
                log,
                by_uri,
                by_owner,
                list_first,
                task,
                text_only,
                contact,
            )| {
                Create {
                    prefix,
                    owner,
                    progress,
                    log,
                    // Read back by id from the text: no URI, no owner in the answer.
                    by_uri: by_uri && !text_only,
                    by_owner: by_owner && !text_only,
                    list_first,
                    task,
                    text_only,
                    contact: contact && !text_only,
                }
            },
        )
}

/// New values in every run.
static RUN: AtomicU64 = AtomicU64::new(0x9e37_79b9_7f4a_7c15);

fn hex(len: usize) -> String {
    let mut x = RUN.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed) | 1;
    let mut out = String::new();
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push_str(&format!("{x:016x}"));
    }
    out.truncate(len);
    out
}

/// The server: raw JSON-RPC lines, a customer store, tools in pages of two.
async fn serve(io: impl AsyncRead + AsyncWrite + Send + 'static, page: usize) {
    let (read, mut write) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    let mut customers: Vec<Value> = Vec::new();
    let mut cursors: Vec<(String, usize)> = Vec::new();
    // Tasks: id, polls so far, the result it completes with (at its second poll).
    let mut tasks: Vec<(String, u32, Value)> = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
            continue;
        };
        let params = &message["params"];
        let mut out = Vec::new();
        let result = match method {
            "initialize" => json!({"protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}, "resources": {}, "logging": {},
                    "extensions": {"io.modelcontextprotocol/tasks": {}}},
                "serverInfo": {"name": "generated-crm", "version": "1.0.0"}}),
            "tools/list" => {
                let start = match params["cursor"].as_str() {
                    None => 0,
                    Some(c) => match cursors.iter().position(|(k, _)| k == c) {
                        Some(i) => cursors.remove(i).1,
                        None => {
                            out.push(json!({"jsonrpc": "2.0", "id": id,
                                "error": {"code": -32602, "message": format!("stale cursor {c}")}}));
                            send(&mut write, &out).await;
                            continue;
                        }
                    },
                };
                let tools: Vec<Value> = TOOLS[start..(start + page).min(TOOLS.len())]
                    .iter()
                    .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
                    .collect();
                let mut result = json!({"tools": tools});
                if start + page < TOOLS.len() {
                    let cursor = hex(16);
                    cursors.push((cursor.clone(), start + page));
                    result["nextCursor"] = json!(cursor);
                }
                result
            }
            "tasks/get" => {
                let task_id = params["taskId"].as_str().unwrap_or_default();
                match tasks.iter_mut().find(|(t, _, _)| t == task_id) {
                    Some((task, polls, done)) => {
                        *polls += 1;
                        let mut status = json!({"taskId": task, "pollIntervalMs": 10,
                            "ttlMs": 60000, "status": "working"});
                        if *polls >= 2 {
                            status["status"] = json!("completed");
                            status["result"] = done.clone();
                        }
                        status
                    }
                    None => {
                        out.push(json!({"jsonrpc": "2.0", "id": id,
                            "error": {"code": -32602, "message": format!("no task {task_id}")}}));
                        send(&mut write, &out).await;
                        continue;
                    }
                }
            }
            "resources/read" => {
                let uri = params["uri"].as_str().unwrap_or_default();
                match customers.iter().find(|c| c["uri"] == uri) {
                    Some(c) => json!({"contents": [{"uri": uri, "mimeType": "application/json",
                        "text": c.to_string()}]}),
                    None => json!({"contents": []}),
                }
            }
            "tools/call" => {
                let args = &params["arguments"];
                match params["name"].as_str() {
                    Some("create") => {
                        let prefix = args["prefix"].as_str().unwrap_or("cus_");
                        let cid = format!("{prefix}{}", hex(12));
                        // The server assigns the owner: the client never sent the address.
                        let owner =
                            OWNERS[args["team"].as_u64().unwrap_or(0) as usize % OWNERS.len()];
                        let customer = json!({"id": cid, "uri": format!("crm://customers/{cid}"),
                            "owner": owner, "createdAt": "2026-12-05T01:02:03Z"});
                        if args["log"] == true {
                            out.push(json!({"jsonrpc": "2.0", "method": "notifications/message",
                                "params": {"level": "info", "data": format!("{cid} assigned to {owner}")}}));
                        }
                        if let Some(token) = params.pointer("/_meta/progressToken") {
                            out.push(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                                "params": {"progressToken": token, "progress": 1, "message": format!("indexed {cid}")}}));
                        }
                        customers.push(customer.clone());
                        let mut done = json!({"content": [{"type": "text", "text": format!("created {cid}")},
                            {"type": "resource_link", "uri": customer["uri"], "name": "customer"}],
                            "structuredContent": customer});
                        if args["text_only"] == true {
                            done = json!({"content": [{"type": "text",
                                "text": json!({"id": cid}).to_string()}]});
                        } else if args["contact"] == true {
                            done["content"]
                                .as_array_mut()
                                .unwrap()
                                .push(json!({"type": "text",
                                "text": format!("contact {owner} (+49 30 1234567)")}));
                        }
                        if args["task"] == true {
                            let task = format!("task-{}", hex(8));
                            tasks.push((task.clone(), 0, done));
                            json!({"taskId": task, "status": "working", "resultType": "task",
                                "pollIntervalMs": 10, "ttlMs": 60000})
                        } else {
                            done
                        }
                    }
                    Some("get") => match customers.iter().find(|c| c["id"] == args["id"]) {
                        Some(c) => json!({"content": [{"type": "text",
                            "text": format!("{} owned by {}", c["id"].as_str().unwrap(), c["owner"].as_str().unwrap())}]}),
                        None => {
                            json!({"content": [{"type": "text", "text": format!("no customer {}", args["id"])}], "isError": true})
                        }
                    },
                    Some("by_owner") => {
                        let ids: Vec<&Value> = customers
                            .iter()
                            .filter(|c| c["owner"] == args["owner"])
                            .map(|c| &c["id"])
                            .collect();
                        json!({"content": [{"type": "text", "text": format!("{} customers", ids.len())}],
                            "structuredContent": {"customers": ids}})
                    }
                    _ => json!({"content": [], "isError": true}),
                }
            }
            _ => {
                out.push(json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": "no such method"}}));
                send(&mut write, &out).await;
                continue;
            }
        };
        out.push(json!({"jsonrpc": "2.0", "id": id, "result": result}));
        send(&mut write, &out).await;
    }
}

async fn send(write: &mut (impl AsyncWrite + Unpin), messages: &[Value]) {
    for m in messages {
        let mut line = m.to_string();
        line.push('\n');
        if write.write_all(line.as_bytes()).await.is_err() {
            return;
        }
    }
    let _ = write.flush().await;
}

/// A value written as its shape: runs of six or more hex digits as `<N hex>`.
fn shape(s: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    for c in s.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_hexdigit() && !c.is_ascii_uppercase() {
            run.push(c);
            continue;
        }
        if run.len() >= 6 {
            out.push_str(&format!("<{} hex>", run.len()));
        } else {
            out.push_str(&run);
        }
        run.clear();
        out.push(c);
    }
    out.pop();
    out
}

fn is_email(s: &str) -> bool {
    s.split_once('@')
        .is_some_and(|(l, d)| !l.is_empty() && d.contains('.') && !d.contains('@'))
}

/// The client: runs the session on `io`, and returns what it saw, as shapes; `log`, if
/// given, gets every message in wire order (for the recording).
async fn client(
    io: impl AsyncRead + AsyncWrite + Unpin,
    session: &[Create],
    mut log: Option<&mut Vec<(Direction, Value)>>,
) -> Vec<String> {
    let (read, mut write) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    let mut next_id = 0;
    let mut seen = Vec::new();
    let mut call = |method: &str, params: Value| {
        next_id += 1;
        json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
    };
    // Sends `request` and reads until its answer; notifications go to `notes`.
    macro_rules! ask {
        ($request:expr, $notes:expr) => {{
            let request: Value = $request;
            if let Some(log) = log.as_deref_mut() {
                log.push((Direction::ClientToServer, request.clone()));
            }
            send(&mut write, std::slice::from_ref(&request)).await;
            loop {
                let line = lines.next_line().await.expect("read").expect("an answer");
                let m: Value = serde_json::from_str(&line).expect("JSON");
                if let Some(log) = log.as_deref_mut() {
                    log.push((Direction::ServerToClient, m.clone()));
                }
                if m.get("id") == request.get("id") {
                    break m;
                }
                $notes.push(m);
            }
        }};
    }
    let mut notes: Vec<Value> = Vec::new();
    ask!(
        call(
            "initialize",
            json!({"protocolVersion": "2025-11-25",
            "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "clientInfo": {"name": "generated", "version": "1"}})
        ),
        notes
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    if let Some(log) = log.as_deref_mut() {
        log.push((Direction::ClientToServer, initialized.clone()));
    }
    send(&mut write, &[initialized]).await;
    for c in session {
        if c.list_first {
            let mut names = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let params = match &cursor {
                    Some(c) => json!({"cursor": c}),
                    None => json!({}),
                };
                let page = ask!(call("tools/list", params), notes);
                for t in page["result"]["tools"].as_array().into_iter().flatten() {
                    names.push(t["name"].as_str().unwrap_or_default().to_owned());
                }
                match page["result"]["nextCursor"].as_str() {
                    Some(next) => cursor = Some(next.to_owned()),
                    None => break,
                }
            }
            seen.push(format!("tools {names:?}"));
        }
        let mut params = json!({"name": "create", "arguments": {"prefix": PREFIXES[c.prefix],
            "team": c.owner, "log": c.log, "task": c.task, "text_only": c.text_only,
            "contact": c.contact}});
        if c.progress {
            params["_meta"] = json!({"progressToken": format!("p{}", seen.len())});
        }
        notes.clear();
        let mut created = ask!(call("tools/call", params), notes);
        if created["result"]["resultType"] == "task" {
            let task = created["result"]["taskId"].clone();
            let mut polls = 0;
            let done = loop {
                polls += 1;
                let status = ask!(call("tasks/get", json!({"taskId": task})), notes);
                if status["result"]["status"] == "completed" || polls > 10 {
                    break status;
                }
            };
            seen.push(format!(
                "task {} polled {polls} times",
                shape(task.as_str().unwrap_or_default())
            ));
            created = json!({"result": done["result"]["result"].clone()});
        }
        let mut customer = created["result"]["structuredContent"].clone();
        if c.text_only {
            let text = created["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            customer = serde_json::from_str(text).unwrap_or_default();
        }
        let (id, uri, owner) = (
            customer["id"].as_str().unwrap_or_default().to_owned(),
            customer["uri"].as_str().unwrap_or_default().to_owned(),
            customer["owner"].as_str().unwrap_or_default().to_owned(),
        );
        let heard: Vec<String> = notes
            .iter()
            .map(|n| {
                let text = n["params"]["data"]
                    .as_str()
                    .or(n["params"]["message"].as_str())
                    .unwrap_or_default();
                // An owner the client was not told (the id came in a text) is any
                // address: the mock serves its pseudonym.
                let text: Vec<&str> = text
                    .split(' ')
                    .map(|w| {
                        if w == owner || (owner.is_empty() && is_email(w)) {
                            "OWNER"
                        } else {
                            w
                        }
                    })
                    .collect();
                shape(&text.join(" "))
            })
            .collect();
        seen.push(format!(
            "created {} {} owner-is-email={} uri-names-id={} heard {heard:?}",
            shape(&id),
            shape(&uri),
            is_email(&owner),
            uri.ends_with(&id)
        ));
        if c.by_uri {
            let read = ask!(call("resources/read", json!({"uri": uri})), notes);
            let text = read["result"]["contents"][0]["text"]
                .as_str()
                .unwrap_or_default();
            let record: Value = serde_json::from_str(text).unwrap_or_default();
            seen.push(format!("read same-id={}", record["id"] == id.as_str()));
        } else {
            let got = ask!(
                call(
                    "tools/call",
                    json!({"name": "get", "arguments": {"id": id}})
                ),
                notes
            );
            let text = got["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            seen.push(format!(
                "got names-owner={} error={}",
                text.contains(&owner),
                got["result"]["isError"] == true
            ));
        }
        if c.by_owner {
            let mine = ask!(
                call(
                    "tools/call",
                    json!({"name": "by_owner", "arguments": {"owner": owner}})
                ),
                notes
            );
            let ids = mine["result"]["structuredContent"]["customers"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            seen.push(format!(
                "owned {} includes-it={}",
                ids.len(),
                ids.contains(&json!(id))
            ));
        }
    }
    seen
}

/// The whole property for one session, in a runtime of its own.
fn check(session: Vec<Create>, page: usize) -> Result<(), TestCaseError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        // Live: the client against the server, every message kept in wire order.
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let server = tokio::spawn(serve(theirs, page));
        let mut exchange = Vec::new();
        let live = client(ours, &session, Some(&mut exchange)).await;
        server.abort();

        let recorded = mcp_replay::_support::record::fixture_from_exchange(
            exchange.clone(),
            &Rules::default(),
            "generated",
        )
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let text = recorded.to_jsonl();
        for owner in OWNERS {
            prop_assert!(
                !text.contains(owner),
                "the recorded e-mail {} is in the fixture:\n{}",
                owner,
                text
            );
        }
        for id in PREFIXES.iter().flat_map(|p| text.match_indices(p)) {
            let rest = &text[id.0 + id.1.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
            prop_assert!(
                digits.len() < 12 || digits.trim_start_matches('0').len() <= 3,
                "a recorded id is in the fixture:\n{text}"
            );
        }
        let fixture = Fixture::parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;

        // Replayed against the unchanged server, with new values each time.
        for _ in 0..3 {
            let report = fixture
                .replay()
                .timeout(std::time::Duration::from_secs(5))
                .run(move |t| serve(t, page))
                .await;
            prop_assert!(report.is_ok(), "replay:\n{report}\nfixture:\n{text}");
            // A re-recording of the unchanged server writes the same bytes.
            if let Some(again) = report.recorded() {
                prop_assert_eq!(again.to_jsonl(), text.clone(), "re-recorded");
            }
        }

        // Served by the mock, the client writes what it wrote live.
        let (transport, mock) = fixture.mock().server();
        let served = client(transport, &session, None).await;
        let report = mock.finish().await;
        prop_assert!(report.is_ok(), "mock:\n{report}\nfixture:\n{text}");
        prop_assert_eq!(served, live, "the client served, against live:\n{}", text);
        Ok(())
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_sessions_replay_green_rerecord_the_same_and_serve_what_was_live(
        session in prop::collection::vec(create(), 1..4),
        page in 2usize..4,
    ) {
        check(session, page)?;
    }
}
