//! The values model (`docs/normalization.md`, "Values the harness replaces, in one table"):
//! bindings, shapes and pseudonyms, on a generated session whose server mints values
//! from the input.
//!
//! The input gives a flags byte (the session's shape, which of four customers' names a
//! values rule redacts, whether to replay in process) and then fields separated by
//! `0xff`: a minted id, a cursor, a task id (any text, lossy UTF-8), the local part and
//! the domain of an owner's e-mail address and the start of a GitHub token (these in a
//! fixed alphabet, so that each is what it claims to be).
//! The session: initialize, a tools/list in one or two pages (the cursor), a `create`
//! answered with the id, the owner, the customer and the token in its text and in
//! `structuredContent` (or as a task polled with `tasks/get` until it completes), and a
//! `get` that sends the id (and the owner, if the flags say) back.
//!
//! It is recorded (`_support::record::fixture_from_exchange` with the default rules plus a
//! values rule for the customer), and the fixture text must hold neither the e-mail
//! address nor the customer's name, in any case; where it holds the token, the secret
//! guard must refuse it (`check_secrets`). The fixture must parse back and write the same
//! text; each server message as the server sends it is compared with its entry the way
//! the replay does (`internals::line_matches`, synchronous). A quarter of the inputs (the
//! flags say which; the replay is the slow part) are also replayed against an in-process
//! server that answers with the same raw values: the replay ends within its time limit,
//! and its re-recording, if it makes one, holds no personal value either. The runtime is a
//! current-thread one created once, its clock paused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_replay::fixture::Direction;
use mcp_replay::{Fixture, Rules};
use serde_json::{json, Value};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
}

/// The values the server sends, as raw as the input made them.
#[derive(Debug)]
struct Session {
    minted: String,
    cursor: String,
    task: String,
    email: String,
    customer: String,
    customer_index: usize,
    token: String,
    /// Tools in two pages, behind the cursor.
    paged: bool,
    /// The create runs as a task.
    as_task: bool,
    /// The `get` sends the owner's address back too.
    owner_back: bool,
    /// The token under a sensitive key in `structuredContent` too.
    token_key: bool,
    /// Replayed in process too (a quarter of the inputs: the replay is the slow part).
    replay: bool,
}

/// The customers a values rule redacts: in no key, method or fixed text of the session.
const CUSTOMERS: [&str; 4] = ["Kxacme", "Kx Globex Corp", "KXINITECH", "kx-northwind.io"];

/// The default rules and a values rule for the customer, compiled once each.
fn rules_for(customer: usize) -> &'static Rules {
    static RULES: OnceLock<Vec<Rules>> = OnceLock::new();
    &RULES.get_or_init(|| {
        CUSTOMERS
            .iter()
            .map(|c| Rules::default().redact_value("customer", c))
            .collect()
    })[customer]
}

/// Lower-case letters and digits, from the input's bytes.
fn alnum(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    bytes
        .iter()
        .map(|&b| ALPHABET[usize::from(b) % ALPHABET.len()] as char)
        .collect()
}

impl Session {
    fn of(data: &[u8]) -> Option<Session> {
        let (&flags, rest) = data.split_first()?;
        let mut fields = rest.split(|&b| b == 0xff);
        let mut next = || fields.next().unwrap_or_default();
        let minted = String::from_utf8_lossy(next()).into_owned();
        let cursor = String::from_utf8_lossy(next()).into_owned();
        let task = String::from_utf8_lossy(next()).into_owned();
        let (local, domain) = (next(), next());
        let token = next();
        // `u...@q....com`: never a reserved domain, nor a git@/noreply@ address.
        let email = format!("u{}@q{}.com", alnum(local), alnum(domain));
        let customer_index = usize::from((flags >> 5) & 3);
        // `ghp_` and 36 letters or digits: a GitHub personal access token, up to six of
        // them from the input, the rest fixed: its entropy stays above the rule's 3 bits
        // a character (a `ghp_oooo...` is let through on purpose, as gitleaks does).
        let mut body = alnum(&token[..token.len().min(6)]);
        body.push_str("0a1b2c3d4e5f6g7h8i9jakblcmdnepfqgrhs");
        body.truncate(36);
        Some(Session {
            minted: if minted.is_empty() {
                "cus_7f3a9c21e4b8".into()
            } else {
                minted
            },
            cursor: if cursor.is_empty() {
                "page-2-of-2".into()
            } else {
                cursor
            },
            task: if task.is_empty() {
                "task-0a9d72".into()
            } else {
                task
            },
            email,
            customer: CUSTOMERS[customer_index].to_owned(),
            customer_index,
            token: format!("ghp_{body}"),
            paged: flags & 1 != 0,
            as_task: flags & 2 != 0,
            owner_back: flags & 4 != 0,
            token_key: flags & 8 != 0,
            replay: flags & 0x90 == 0x90,
        })
    }

    fn created(&self) -> Value {
        // Under `id`: personal data under a nested `id` key was written as it came (the
        // test `personal_data_under_a_nested_id_key_is_pseudonymized` in
        // mcp-replay/tests/fuzz_regressions.rs).
        let mut structured = json!({"id": self.minted, "owner": self.email,
            "customer": self.customer});
        if self.token_key {
            structured["token"] = json!(self.token);
        }
        json!({"content": [{"type": "text", "text": format!(
            "created {} for {} ({}), key {}", self.minted, self.email, self.customer, self.token)}],
            "structuredContent": structured})
    }

    /// The server's answer to `request`; `None` for a notification.
    fn answer(&self, request: &Value) -> Option<Value> {
        let id = request.get("id")?.clone();
        let params = &request["params"];
        let result = match request["method"].as_str()? {
            "initialize" => json!({"protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
                "serverInfo": {"name": "values", "version": "1.0.0"}}),
            "tools/list" => {
                let schema = json!({"type": "object"});
                if self.paged && params.get("cursor").is_none() {
                    json!({"tools": [{"name": "create", "inputSchema": schema}],
                        "nextCursor": self.cursor})
                } else if self.paged {
                    json!({"tools": [{"name": "get", "inputSchema": schema}]})
                } else {
                    json!({"tools": [{"name": "create", "inputSchema": schema},
                        {"name": "get", "inputSchema": schema}]})
                }
            }
            "tasks/get" => json!({"taskId": params["taskId"], "status": "completed",
                "pollIntervalMs": 10, "ttlMs": 60000, "result": self.created()}),
            "tools/call" => match params["name"].as_str() {
                Some("create") if self.as_task => json!({"taskId": self.task,
                    "status": "working", "resultType": "task", "pollIntervalMs": 10,
                    "ttlMs": 60000}),
                Some("create") => self.created(),
                _ => json!({"content": [{"type": "text", "text": format!(
                    "{} owned by {}", self.minted, self.email)}]}),
            },
            _ => json!({}),
        };
        Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    /// The exchange as the client saw it, in wire order.
    fn exchange(&self) -> Vec<(Direction, Value)> {
        let mut out = Vec::new();
        let mut next_id = 0;
        let mut ask = |out: &mut Vec<(Direction, Value)>, method: &str, params: Value| {
            next_id += 1;
            let request =
                json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params});
            let answer = self.answer(&request).unwrap();
            out.push((Direction::ClientToServer, request));
            out.push((Direction::ServerToClient, answer.clone()));
            answer
        };
        ask(
            &mut out,
            "initialize",
            json!({"protocolVersion": "2025-11-25",
                "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
                "clientInfo": {"name": "fuzz", "version": "1"}}),
        );
        out.push((
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ));
        let page = ask(&mut out, "tools/list", json!({}));
        if let Some(cursor) = page["result"]["nextCursor"].as_str() {
            ask(&mut out, "tools/list", json!({"cursor": cursor}));
        }
        let created = ask(
            &mut out,
            "tools/call",
            json!({"name": "create", "arguments": {"team": 1}}),
        );
        if let Some(task) = created["result"]["taskId"].as_str() {
            ask(&mut out, "tasks/get", json!({"taskId": task}));
        }
        let mut arguments = json!({"id": self.minted});
        if self.owner_back {
            arguments["owner"] = json!(self.email);
        }
        ask(
            &mut out,
            "tools/call",
            json!({"name": "get", "arguments": arguments}),
        );
        out
    }

    /// The written fixture holds no personal value, and a token only where the guard
    /// refuses it.
    fn check_written(&self, fixture: &Fixture, what: &str) {
        let text = fixture.to_jsonl();
        let lower = text.to_lowercase();
        assert!(
            !lower.contains(&self.email),
            "{what}: the owner's address {} is in the fixture:\n{text}",
            self.email
        );
        assert!(
            !lower.contains(&self.customer.to_lowercase()),
            "{what}: the customer {} is in the fixture:\n{text}",
            self.customer
        );
        if text.contains(&self.token) {
            assert!(
                fixture.check_secrets().is_err(),
                "{what}: the token {} is in the fixture and the secret guard lets it pass:\n{text}",
                self.token
            );
        }
    }
}

/// The server, in process: raw JSON-RPC lines, answered with the session's raw values.
async fn serve(io: impl AsyncRead + AsyncWrite + Send + 'static, session: Arc<Session>) {
    let (read, mut write) = tokio::io::split(io);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(answer) = session.answer(&request) {
            let mut line = answer.to_string();
            line.push('\n');
            if write.write_all(line.as_bytes()).await.is_err() {
                return;
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(session) = Session::of(data) else {
        return;
    };
    let rules = rules_for(session.customer_index);
    let Ok(recorded) =
        mcp_replay::_support::record::fixture_from_exchange(session.exchange(), &rules, "fuzz")
    else {
        return;
    };
    session.check_written(&recorded, "recorded");
    let text = recorded.to_jsonl();
    if std::env::var_os("VALUE_MODEL_PRINT").is_some() {
        eprintln!("{session:?}\n{text}");
    }
    let fixture = match Fixture::parse(&text) {
        Ok(f) => f,
        Err(e) => panic!("the recorded fixture does not parse: {e}\n{text}"),
    };
    assert_eq!(
        fixture.to_jsonl(),
        text,
        "the recorded fixture reads back otherwise"
    );

    // The replay's comparison of each server message, as the server sends it (an integer
    // id), with its entry, outside a session (`internals::line_matches`): never panics.
    let servers = fixture
        .entries()
        .iter()
        .filter(|e| e.direction() == Direction::ServerToClient);
    let sent = session
        .exchange()
        .into_iter()
        .filter(|(d, _)| *d == Direction::ServerToClient);
    for (entry, (_, message)) in servers.zip(sent) {
        let _ = mcp_replay::internals::line_matches(rules, entry, &message.to_string());
    }
    if !session.replay {
        return;
    }
    let session = Arc::new(session);
    RUNTIME.with(|rt| {
        rt.block_on(async {
            let server = session.clone();
            let replay = fixture
                .replay()
                .rules(rules)
                .timeout(Duration::from_millis(500))
                .run(move |t| serve(t, server));
            let report = tokio::time::timeout(Duration::from_secs(120), replay)
                .await
                .expect("the replay ends within 120 s");
            if let Some(again) = report.recorded() {
                session.check_written(again, "re-recorded");
            }
        });
    });
});
