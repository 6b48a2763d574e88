//! The checks every SDK peer of mcp-replay passes, whatever the SDK's words, key order or
//! list order (docs/sdks.md). Each SDK serves the same "notes" contract:
//!
//! - `add_note(text, tag)` mints an id per call and answers it only inside a text
//!   (`created note-3f9a...`, or pmcp's JSON text `{"id":"note-3f9a..."}`); its next
//!   release also requires `priority`, and the SDK refuses a call without it in its own
//!   words;
//! - `get_note(id)` answers `TEXT [TAG]`;
//! - `find_customer(name)` answers one e-mail address in `structuredContent` and again
//!   inside a text, beside a telephone number;
//! - `email_customer(email, subject)` takes the address back;
//! - `list_tags()` answers three tags in an order drawn anew each call.
//!
//! A check panics with what went wrong. Each writes its fixtures into a folder of its own.

use mcp_replay::_support::update::UpdateMode;
use mcp_replay::fixture::Fixture;
use mcp_replay::harness::{Failure, Plan, Target, Verdict};
use mcp_replay::Transport;
use serde_json::{json, Value};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

/// What serves one server (`next`: the next release) on a transport.
pub type ServeFn =
    Arc<dyn Fn(Transport, bool) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// An SDK's notes server, as the checks start it.
#[derive(Clone)]
pub struct Sdk {
    /// The SDK, for messages.
    pub name: &'static str,
    serve: ServeFn,
    /// A child process's command line, when the server is one (`None`: in process).
    command: Option<Vec<String>>,
    /// The SDK speaks protocol 2026-07-28 only (rust-mcp-sdk 2.0): no handshake, a
    /// `server/discover` first, the identity in every request's `_meta`.
    stateless: bool,
}

impl Sdk {
    /// A server served in process on the harness's transport by `serve`.
    pub fn in_process<F, Fut>(name: &'static str, serve: F) -> Sdk
    where
        F: Fn(Transport, bool) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Sdk {
            name,
            serve: Arc::new(move |t, next| Box::pin(serve(t, next))),
            command: None,
            stateless: false,
        }
    }

    /// This SDK, speaking protocol 2026-07-28 only: the client lines and the client of a
    /// test body speak it too.
    pub fn stateless(mut self) -> Sdk {
        self.stateless = true;
        self
    }

    /// A server started as a child process by `argv` (`--next` added for the next release).
    pub fn command(name: &'static str, argv: Vec<String>) -> Sdk {
        let line = argv.clone();
        Sdk {
            name,
            serve: Arc::new(move |t, next| {
                let mut command = tokio::process::Command::new(&line[0]);
                command.args(&line[1..]);
                if next {
                    command.arg("--next");
                }
                Box::pin(async move {
                    let _ = mcp_replay::process::serve_command(t, &mut command).await;
                })
            }),
            command: Some(argv),
            stateless: false,
        }
    }

    /// A fresh server (`next`: the next release) as a replay target that starts again for
    /// each run a recording asks for.
    pub fn target(&self, next: bool) -> Target<'static> {
        match &self.command {
            Some(argv) => {
                let mut command = tokio::process::Command::new(&argv[0]);
                command.args(&argv[1..]);
                if next {
                    command.arg("--next");
                }
                Target::command(command, argv.join(" "))
            }
            None => {
                let serve = self.serve.clone();
                Target::serve_each(move |t| serve(t, next))
            }
        }
    }
}

/// A JSON-RPC line of the client's, as a fixture writes it.
fn client(message: Value) -> String {
    json!({"direction": "client->server", "message": message}).to_string()
}

/// The handshake's client lines (2026-07-28: a header naming the protocol, then
/// `server/discover`) and then `calls` (`[name, arguments]` each), one request at a time:
/// what `mcp-replay call --client-only` writes.
fn client_lines(sdk: &Sdk, calls: &[(&str, Value)]) -> String {
    let mut lines = if sdk.stateless {
        vec![
            json!({"mcp_replay": 1, "protocol": "2026-07-28"}).to_string(),
            client(json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "server/discover"})),
        ]
    } else {
        vec![
            client(
                json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "battery", "version": "1"}}}),
            ),
            client(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        ]
    };
    for (name, arguments) in calls {
        let message = match *name {
            "tools/list" => json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/list"}),
            _ => json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}),
        };
        lines.push(client(message));
    }
    lines.join("\n") + "\n"
}

/// A folder of its own for one check of one SDK, emptied.
pub fn folder(sdk: &Sdk, check: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-replay-battery-{}-{}-{check}",
        sdk.name,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// Replays `path` against `target` in `mode`.
async fn replay(path: &Path, mode: UpdateMode, target: Target<'_>) -> Result<Verdict, Failure> {
    Plan::new(path, mode).run_target(target).await
}

/// Records the server's side of the client lines at `path` (`MCP_FIXTURE_UPDATE=1`), then
/// replays it `times` times (compare only), each against a fresh server: all green.
async fn record_then_replay(sdk: &Sdk, path: &Path, times: usize) -> String {
    if let Err(failure) = replay(path, UpdateMode::Always, sdk.target(false)).await {
        panic!(
            "{}: recording {} failed:\n{}",
            sdk.name,
            path.display(),
            failure.message()
        );
    }
    let written = std::fs::read_to_string(path).expect("the recording");
    for run in 1..=times {
        if let Err(failure) = replay(path, UpdateMode::No, sdk.target(false)).await {
            panic!(
                "{}: run {run} of {times} of {} failed:\n{}\nfixture:\n{written}",
                sdk.name,
                path.display(),
                failure.message()
            );
        }
    }
    written
}

/// A refused create over a recorded success: a fixture recorded against the server
/// (`add_note` then `get_note` of the id it minted, read out of its text), replayed against
/// the next release, which refuses the create in the SDK's own words. No update mode but
/// `force` writes it; each names the create's answer as the first cause, and the read
/// after it as following from it; `force` writes it, saying so.
pub async fn a_refused_create_is_never_written_but_by_force(sdk: &Sdk) {
    let dir = folder(sdk, "refused");
    let path = dir.join("create.jsonl");
    let lines = client_lines(
        sdk,
        &[
            ("add_note", json!({"text": "milk", "tag": "home"})),
            ("get_note", json!({"id": "<MINTED:1>"})),
        ],
    );
    std::fs::write(&path, lines).unwrap();
    let recorded = record_then_replay(sdk, &path, 3).await;
    assert!(
        recorded.contains("<MINTED:1>"),
        "{}: the id is bound:\n{recorded}",
        sdk.name
    );
    assert!(
        recorded.contains("milk [home]"),
        "{}:\n{recorded}",
        sdk.name
    );
    // The create is line 4 (after the header, initialize's two lines and initialized),
    // its answer line 5, the read line 6.
    let create = recorded
        .lines()
        .position(|l| l.contains("\"add_note\""))
        .expect("the create")
        + 1;
    for mode in [UpdateMode::No, UpdateMode::New, UpdateMode::Always] {
        let failure = replay(&path, mode, sdk.target(true))
            .await
            .expect_err("the next release refuses the create");
        let text = failure.message();
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            after, recorded,
            "{}: {mode:?} wrote over the fixture:\n{text}",
            sdk.name
        );
        assert!(
            !dir.join("create.jsonl.new").exists(),
            "{}: {mode:?} wrote a pending file:\n{text}",
            sdk.name
        );
        assert!(
            text.contains(&format!("line {create} (`tools/call add_note`:")),
            "{}: {mode:?}: the advice names the create's line {create}:\n{text}",
            sdk.name
        );
        assert!(
            text.contains(&format!("follows from line {}", create + 1))
                || text.contains(&format!("follow from line {}", create + 1)),
            "{}: {mode:?}: the read follows from the create's answer:\n{text}",
            sdk.name
        );
        if mode != UpdateMode::No {
            assert!(
                text.contains(&format!(
                    "The fixture was NOT re-recorded: line {} (the answer to `tools/call add_note`, line {create})",
                    create + 1
                )),
                "{}: {mode:?}: the first cause:\n{text}",
                sdk.name
            );
            assert!(
                !text.contains("MCP_FIXTURE_UPDATE=1 cargo test"),
                "{}: {mode:?}: never advises the command that runs:\n{text}",
                sdk.name
            );
        }
    }
    let forced = replay(&path, UpdateMode::Force, sdk.target(true)).await;
    assert!(
        matches!(forced, Ok(Verdict::Rerecorded(_))),
        "{}: force writes it: {:?}",
        sdk.name,
        forced.map_err(|f| f.message().into_owned())
    );
    assert_ne!(std::fs::read_to_string(&path).unwrap(), recorded);
}

/// A list in per-run order (`list_tags`, and pmcp's `tools/list`) recorded `fresh` times
/// from the same client lines: every fixture passes `runs` plain runs against fresh servers.
pub async fn a_list_in_per_run_order_recorded_fresh_passes_every_run(
    sdk: &Sdk,
    fresh: usize,
    runs: usize,
) {
    let dir = folder(sdk, "tags");
    let lines = client_lines(sdk, &[("tools/list", json!({})), ("list_tags", json!({}))]);
    for n in 1..=fresh {
        let path = dir.join(format!("tags{n}.jsonl"));
        std::fs::write(&path, &lines).unwrap();
        let written = record_then_replay(sdk, &path, runs).await;
        assert!(
            written.contains(".result.structuredContent.tags"),
            "{}: recording {n} sorts the tags:\n{written}",
            sdk.name
        );
        // A text that repeats them as JSON is sorted too, and still compared.
        assert!(
            !written.contains(r#""text":"<MINTED"#),
            "{}: recording {n} binds a whole text:\n{written}",
            sdk.name
        );
    }
}

/// An id only in text on every authoring path: client lines with a placeholder that the
/// answer before it binds (what `call --client-only` writes), then a test whose body is
/// rmcp's client, which reads the id out of the text and sends it back; each replays
/// `runs` times green against fresh servers, and the mock serves the body's client.
pub async fn an_id_only_in_text_binds_on_every_path(sdk: &Sdk, runs: usize) {
    let dir = folder(sdk, "text-id");
    let path = dir.join("lines.jsonl");
    let lines = client_lines(
        sdk,
        &[
            ("add_note", json!({"text": "milk", "tag": "home"})),
            ("get_note", json!({"id": "<MINTED:1>"})),
        ],
    );
    std::fs::write(&path, lines).unwrap();
    record_then_replay(sdk, &path, runs).await;

    let written = body_records_then_replays(sdk, &dir.join("body.jsonl"), Flow::Note, runs).await;
    // The header holds the id's shape (`note-0000000000000001`), no message the live id.
    let messages: String = written
        .lines()
        .filter(|l| l.contains("direction"))
        .collect();
    assert!(
        messages.contains(r#""id":"<MINTED:1>""#) && !messages.contains("note-"),
        "{}: the body's id is bound, on both sides:\n{written}",
        sdk.name
    );
}

/// One value in structure and in text (an e-mail address in `structuredContent`, again in
/// a text beside a telephone number), which the client sends back: from client lines and
/// from a body, it replays `runs` times green and re-records byte for byte.
pub async fn a_value_in_structure_and_text_replays_and_rerecords_the_same(sdk: &Sdk, runs: usize) {
    let dir = folder(sdk, "contact");
    let path = dir.join("lines.jsonl");
    let lines = client_lines(
        sdk,
        &[
            ("find_customer", json!({"name": "Alice"})),
            (
                "email_customer",
                json!({"email": "alice.martin@example.com", "subject": "hi"}),
            ),
        ],
    );
    std::fs::write(&path, lines).unwrap();
    let written = record_then_replay(sdk, &path, runs).await;
    for value in ["alice.martin@example.com", "+49 30 1234567"] {
        assert!(
            !written.contains(value),
            "{}: {value} is in the fixture:\n{written}",
            sdk.name
        );
    }
    for _ in 0..3 {
        let again = replay(&path, UpdateMode::Always, sdk.target(false)).await;
        assert!(
            again.is_ok(),
            "{}: {:?}",
            sdk.name,
            again.map_err(|f| f.message().into_owned())
        );
        let now = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            now, written,
            "{}: the re-recording is byte-identical",
            sdk.name
        );
    }

    let written =
        body_records_then_replays(sdk, &dir.join("body.jsonl"), Flow::Contact, runs).await;
    assert!(
        !written.contains("alice.martin@"),
        "{}:\n{written}",
        sdk.name
    );
}

/// A test whose body is rmcp's client through `flow`: its first run writes the fixture at
/// `path` (`MCP_FIXTURE_UPDATE=1`), which then replays `runs` times green, each against a
/// fresh server, and the mock serves the same client what it saw live. The fixture.
async fn body_records_then_replays(sdk: &Sdk, path: &Path, flow: Flow, runs: usize) -> String {
    let first = Plan::new(path, UpdateMode::Always)
        .run_target(Target::pair(pair_body(sdk.clone(), flow)))
        .await;
    assert!(
        first.is_ok(),
        "{}: the first run writes: {:?}",
        sdk.name,
        first.map_err(|f| f.message().into_owned())
    );
    let written = std::fs::read_to_string(path).unwrap();
    for run in 1..=runs {
        let body = pair_body(sdk.clone(), flow);
        if let Err(f) = Plan::new(path, UpdateMode::No)
            .run_target(Target::pair(body))
            .await
        {
            panic!(
                "{}: body run {run} of {runs}:\n{}\n{written}",
                sdk.name,
                f.message()
            );
        }
    }
    served_to_the_client(sdk, path, flow).await;
    written
}

/// What a test body's client does.
#[derive(Clone, Copy, Debug)]
enum Flow {
    /// `add_note`, then `get_note` of the id read out of its text.
    Note,
    /// `find_customer`, then `email_customer` of the address in its `structuredContent`.
    Contact,
}

/// A test body: serves the SDK's server on the first transport, and runs rmcp's client on
/// the second through `flow`.
fn pair_body(
    sdk: Sdk,
    flow: Flow,
) -> impl FnOnce(Transport, Transport) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>> {
    move |server, client| {
        tokio::spawn((sdk.serve)(server, false));
        Box::pin(run_client(client, flow, sdk.stateless))
    }
}

/// rmcp's client through `flow` on `transport` (`stateless`: in protocol 2026-07-28).
async fn run_client(transport: Transport, flow: Flow, stateless: bool) -> Result<(), String> {
    client_flow(transport, flow, stateless).await.map(|_| ())
}

/// rmcp's client through `flow` on `transport`: what it saw, as shapes.
async fn client_flow(
    transport: Transport,
    flow: Flow,
    stateless: bool,
) -> Result<Vec<String>, String> {
    use rmcp::model::{CallToolRequestParams, ProtocolVersion};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let lifecycle = if stateless {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    let client = ().serve_with_lifecycle(transport, lifecycle).await.map_err(|e| e.to_string())?;
    let call = |name: &str, arguments: Value| {
        CallToolRequestParams::new(name.to_owned())
            .with_arguments(arguments.as_object().cloned().unwrap_or_default())
    };
    let text_of = |r: &rmcp::model::CallToolResult| -> String {
        let value = serde_json::to_value(r).unwrap_or_default();
        value["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let mut seen = Vec::new();
    match flow {
        Flow::Note => {
            let created = client
                .call_tool(call("add_note", json!({"text": "milk", "tag": "home"})))
                .await
                .map_err(|e| e.to_string())?;
            let text = text_of(&created);
            let id = id_in(&text).ok_or_else(|| format!("no id in {text:?}"))?;
            let got = client
                .call_tool(call("get_note", json!({"id": id})))
                .await
                .map_err(|e| e.to_string())?;
            seen.push(text_of(&got));
        }
        Flow::Contact => {
            let found = client
                .call_tool(call("find_customer", json!({"name": "Alice"})))
                .await
                .map_err(|e| e.to_string())?;
            let email = found
                .structured_content
                .as_ref()
                .and_then(|s| s["email"].as_str())
                .ok_or("no email in structuredContent")?
                .to_owned();
            seen.push(format!("email has @: {}", email.contains('@')));
            let sent = client
                .call_tool(call(
                    "email_customer",
                    json!({"email": email, "subject": "hi"}),
                ))
                .await
                .map_err(|e| e.to_string())?;
            seen.push(text_of(&sent));
        }
    }
    let _ = client.cancel().await;
    Ok(seen)
}

/// The note id in a text: the word that starts `note-`, inside JSON or a sentence.
fn id_in(text: &str) -> Option<String> {
    let at = text.find("note-")?;
    let id: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    Some(id)
}

/// The fixture at `path` served by the mock to rmcp's client through `flow`: the client
/// completes its flow (the mock's values bind where the live ones did), and the mock
/// reports nothing.
async fn served_to_the_client(sdk: &Sdk, path: &Path, flow: Flow) {
    let fixture = Fixture::load(path).expect("the fixture");
    let (transport, mock) = fixture.mock().server();
    let seen = client_flow(transport, flow, sdk.stateless).await;
    let report = mock.finish().await;
    assert!(report.is_ok(), "{}: the mock:\n{report}", sdk.name);
    let seen = seen.unwrap_or_else(|e| panic!("{}: the client against the mock: {e}", sdk.name));
    match flow {
        Flow::Note => assert_eq!(seen, ["milk [home]"], "{}", sdk.name),
        Flow::Contact => assert_eq!(
            seen,
            ["email has @: true", "queued 1 message"],
            "{}",
            sdk.name
        ),
    }
}
