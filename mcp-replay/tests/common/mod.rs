//! Test servers with exact control over every line they write.
#![allow(dead_code)]

use mcp_replay::{Fixture, MismatchKind, Report, Transport};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Serves `transport` by hand: answers `initialize` like a legacy server, ignores
/// notifications, and writes the lines `script` returns for every other request.
pub async fn scripted(transport: Transport, script: impl Fn(&Value) -> Vec<String>) {
    scripted_inner(transport, script, false).await
}

async fn scripted_inner(transport: Transport, script: impl Fn(&Value) -> Vec<String>, all: bool) {
    let (read, mut write) = tokio::io::split(transport);
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("the harness writes JSON");
        let replies = match message["method"].as_str() {
            Some("initialize") => vec![json!({
                "jsonrpc": "2.0",
                "id": message["id"],
                "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "scripted", "version": "0"}}
            })
            .to_string()],
            Some(_) if message.get("id").is_none() && !all => vec![],
            _ => script(&message),
        };
        let mut out = String::new();
        for reply in replies {
            out.push_str(&reply);
            out.push('\n');
        }
        if write.write_all(out.as_bytes()).await.is_err() {
            return;
        }
        let _ = write.flush().await;
    }
}

/// Like [`scripted`], but `script` also sees notifications and responses (everything but
/// `initialize`).
pub async fn scripted_all(transport: Transport, script: impl Fn(&Value) -> Vec<String>) {
    scripted_inner(transport, script, true).await
}

/// A JSON-RPC notification line.
pub fn notification(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// A JSON-RPC result line answering `request`.
pub fn result(request: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string()
}

/// Builds fixture text from (direction, message) pairs.
pub fn fixture(lines: &[(&str, Value)]) -> Fixture {
    let text: String = lines
        .iter()
        .map(|(direction, message)| {
            format!("{}\n", json!({"direction": direction, "message": message}))
        })
        .collect();
    Fixture::parse(&text).expect("test fixture is valid")
}

/// The kinds of a report's findings, in order.
pub fn kinds(report: &Report) -> Vec<MismatchKind> {
    report.mismatches().iter().map(|m| m.kind()).collect()
}

/// The command that starts an external peer server (`everything`: server-everything on
/// Node; `python`, `python-changed`, `tour`: the Python SDK servers in `peers/python/`),
/// installing the peers first if this checkout has not ([`mcp_replay_peers`]). A peer that
/// cannot be installed fails the test.
pub fn peer_server(which: &str) -> tokio::process::Command {
    let argv = match which {
        "everything" => mcp_replay_peers::everything(),
        "python" => mcp_replay_peers::python("server.py"),
        "tour" => mcp_replay_peers::python("tour_server.py"),
        "python-changed" => {
            let mut argv = mcp_replay_peers::python("server.py");
            argv.extend(["--variant".into(), "changed".into()]);
            argv
        }
        other => panic!("unknown peer {other}"),
    };
    let mut command = tokio::process::Command::new(&argv[0]);
    command.args(&argv[1..]);
    command
}

/// A fixture and the [`Options`](mcp_replay::Options) of its replays, kept together as a
/// test builds them (the fixture is data; how it replays is apart from it). The builder
/// methods of [`WithOptions`] start one from a fixture.
#[derive(Clone)]
pub struct Run {
    pub fixture: Fixture,
    pub options: mcp_replay::Options,
}

/// Options set on a fixture in a test: each makes a [`Run`].
pub trait WithOptions: Sized {
    fn run(self) -> Run;
    fn with_timeout(self, timeout: std::time::Duration) -> Run {
        let run = self.run();
        run.with(|o| o.timeout(timeout))
    }
    fn with_trace(self, on: bool) -> Run {
        self.run().with(|o| o.trace(on))
    }
    fn with_protocol(self, version: &str) -> Run {
        self.run().with(|o| o.protocol(version))
    }
    fn with_strict_exit(self, strict: bool) -> Run {
        self.run().with(|o| o.strict_exit(strict))
    }
    fn with_stray_output_allowed(self, allowed: bool) -> Run {
        self.run().with(|o| o.allow_stray_output(allowed))
    }
    fn without_recording(self) -> Run {
        self.run().with(|o| o.without_recording())
    }
    fn on_server_request(
        self,
        handler: impl Fn(&Value) -> Option<Value> + Send + Sync + 'static,
    ) -> Run {
        self.run().with(|o| o.on_server_request(handler))
    }
}

impl WithOptions for Fixture {
    fn run(self) -> Run {
        Run {
            fixture: self,
            options: mcp_replay::Options::new(),
        }
    }
}

impl WithOptions for Run {
    fn run(self) -> Run {
        self
    }
}

impl Run {
    /// With the options `f` makes of the current ones.
    pub fn with(mut self, f: impl FnOnce(mcp_replay::Options) -> mcp_replay::Options) -> Run {
        self.options = f(self.options);
        self
    }

    /// The fixture's [`Fixture::replay`] with these options.
    pub fn replay(&self) -> mcp_replay::Replay<'_> {
        self.fixture.replay().options(&self.options)
    }
}

/// Writes `message` as one line; `false` once the peer is gone.
pub async fn write_line(write: &mut (impl tokio::io::AsyncWrite + Unpin), message: &Value) -> bool {
    let mut line = message.to_string();
    line.push('\n');
    write.write_all(line.as_bytes()).await.is_ok()
}

/// How a re-recording of the unchanged server must compare with the fixture.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Rerecorded {
    /// Byte for byte.
    Same,
    /// The same lines, in any order (a notification may come after a client line the
    /// harness sent without waiting for it).
    SameLines,
}

/// Replays `fixture` `times` times against fresh `serve`s, each green, each re-recording
/// as `rerecorded` says.
pub async fn green_times<S, F>(fixture: &Fixture, times: usize, rerecorded: Rerecorded, serve: S)
where
    S: Fn(Transport) -> F + Clone + Send + 'static,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let text = fixture.to_jsonl();
    let sorted = |t: &str| {
        let mut lines: Vec<String> = t.lines().map(str::to_owned).collect();
        lines.sort();
        lines
    };
    for run in 0..times {
        let report = fixture
            .replay()
            .timeout(std::time::Duration::from_secs(5))
            .run(serve.clone())
            .await;
        assert!(report.is_ok(), "replay {run}:\n{report}\n{text}");
        if let Some(again) = report.recorded() {
            match rerecorded {
                Rerecorded::Same => assert_eq!(again.to_jsonl(), text, "re-recorded, run {run}"),
                Rerecorded::SameLines => assert_eq!(
                    sorted(&again.to_jsonl()),
                    sorted(&text),
                    "re-recorded, run {run}"
                ),
            }
        }
    }
}

/// Serves `fixture` `times` times to a fresh `client`, each run green and the client
/// seeing `live`, what it saw against the real server.
pub async fn served_times<C, F, T>(fixture: &Fixture, times: usize, live: &T, client: C)
where
    C: Fn(Transport) -> F,
    F: std::future::Future<Output = T>,
    T: PartialEq + std::fmt::Debug,
{
    for run in 0..times {
        let (transport, mock) = fixture.mock().server();
        let served = client(transport).await;
        let report = mock.finish().await;
        assert!(
            report.is_ok(),
            "mock {run}:\n{report}\n{}",
            fixture.to_jsonl()
        );
        assert_eq!(&served, live, "served, run {run}");
    }
}
