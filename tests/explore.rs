//! `explore` against an rmcp 3.11 server in process with planted defects, each tool one:
//! `divide` panics when `b` is 0 (rmcp runs each request in a task of its own, so the
//! panic leaves the request unanswered: a hang, seen from outside), `stats` answers an empty list with `structuredContent`
//! that breaks its own `outputSchema`, `search` never answers a query over 10,000
//! characters, `token` answers with a GitHub token in its text, and every tool answers
//! invalid arguments with a JSON-RPC error (rmcp's own way, where the specification lists
//! input validation among the tool execution errors).
//! For a fixed seed each defect is found within a stated number of calls, shrunk, and
//! written as `NAME.jsonl.new`; each written fixture is red against the defective server
//! and green against the fixed one. The same seed gives the same report.

use mcp_replay::_support::explored::Rule;
use mcp_replay::harness::Explore;
use mcp_replay::{Fixture, Transport};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The server; `fixed`: every defect mended.
#[derive(Clone, Copy)]
struct Planted {
    fixed: bool,
}

fn schema(v: Value) -> Arc<Map<String, Value>> {
    Arc::new(v.as_object().unwrap().clone())
}

impl ServerHandler for Planted {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("planted", "1.0.0"))
    }

    /// Two pages: `divide` and `stats`, then `search` and `token` (every page is read).
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let second = request
            .and_then(|r| r.cursor)
            .is_some_and(|c| c == "page-2");
        let divide = schema(json!({"type": "object", "additionalProperties": false,
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}));
        let stats = schema(json!({"type": "object",
            "properties": {"values": {"type": "array", "items": {"type": "number"}}}, "required": ["values"]}));
        let mean = schema(json!({"type": "object",
            "properties": {"mean": {"type": "number"}}, "required": ["mean"]}));
        let search = schema(json!({"type": "object",
            "properties": {"query": {"type": "string"}}, "required": ["query"]}));
        if second {
            let token = schema(json!({"type": "object", "properties": {}}));
            return Ok(ListToolsResult::with_all_items(vec![
                Tool::new("search", "Searches.", search),
                Tool::new("token", "Who am I.", token),
            ]));
        }
        let mut first = ListToolsResult::with_all_items(vec![
            Tool::new("divide", "a / b", divide),
            Tool::new("stats", "The mean of the values.", stats).with_raw_output_schema(mean),
        ]);
        first.next_cursor = Some("page-2".into());
        Ok(first)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.clone().unwrap_or_default();
        let refuse = |why: &str| -> Result<CallToolResponse, ErrorData> {
            if self.fixed {
                Ok(CallToolResult::error(vec![ContentBlock::text(why.to_owned())]).into())
            } else {
                Err(ErrorData::invalid_params(why.to_owned(), None))
            }
        };
        let text = |t: String| Ok(CallToolResult::success(vec![ContentBlock::text(t)]).into());
        match request.name.as_ref() {
            "divide" => {
                let (Some(a), Some(b)) = (
                    args.get("a").and_then(Value::as_i64),
                    args.get("b").and_then(Value::as_i64),
                ) else {
                    return refuse("a and b must be integers");
                };
                if args.len() > 2 {
                    return refuse("only a and b");
                }
                if b == 0 && self.fixed {
                    return Ok(
                        CallToolResult::error(vec![ContentBlock::text("b must not be 0")]).into(),
                    );
                }
                text(format!("{}", a.checked_div(b).expect("division by zero")))
            }
            "stats" => {
                let Some(values) = args.get("values").and_then(Value::as_array) else {
                    return refuse("values must be a list of numbers");
                };
                let Some(values) = values
                    .iter()
                    .map(Value::as_f64)
                    .collect::<Option<Vec<f64>>>()
                else {
                    return refuse("values must be numbers");
                };
                let mean = match values.len() {
                    0 if self.fixed => json!(0.0),
                    0 => json!("none"),
                    n => json!(values.iter().sum::<f64>() / n as f64),
                };
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(mean.to_string())]);
                result.structured_content = Some(json!({"mean": mean}));
                Ok(result.into())
            }
            "search" => {
                let Some(query) = args.get("query").and_then(Value::as_str) else {
                    return refuse("query must be a string");
                };
                if query.len() > 10_000 {
                    if self.fixed {
                        return refuse("the query is too long");
                    }
                    std::future::pending::<()>().await;
                }
                text(format!("0 results for {}", query.len()))
            }
            "token" if self.fixed => text("signed in as demo, token [redacted]".to_owned()),
            // A token of the GitHub form, made up here (the scanner's `github-pat`).
            "token" => text(format!(
                "signed in as demo, token ghp_{}",
                "a1B2c3D4e5".repeat(4)[..36].to_owned()
            )),
            _ => Err(ErrorData::invalid_params("no such tool", None)),
        }
    }
}

async fn serve(server: Planted, transport: Transport) {
    if let Ok(running) = server.serve(transport).await {
        let _ = running.waiting().await;
    }
}

fn explore() -> Explore {
    Explore::new()
        .seed(7)
        .calls(40)
        .hang(Duration::from_millis(500))
}

/// The rules a run found, by tool.
fn found(run: &mcp_replay::harness::Exploration) -> Vec<(String, Rule)> {
    let mut out: Vec<(String, Rule)> = run
        .findings()
        .iter()
        .map(|f| (f.tool.clone(), f.rule))
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_planted_defect_is_found_shrunk_and_kept_as_a_fixture_red_until_fixed() {
    let dir = tempdir("explore-planted");
    let run = explore()
        .write_to(&dir)
        .serve(|t| serve(Planted { fixed: false }, t))
        .await
        .unwrap();
    let text = run.to_string();
    assert_eq!(
        found(&run),
        [
            ("divide".to_owned(), Rule::InvalidArgumentsAsError),
            ("divide".to_owned(), Rule::Hang),
            ("search".to_owned(), Rule::InvalidArgumentsAsError),
            ("search".to_owned(), Rule::Hang),
            ("stats".to_owned(), Rule::OutputSchema),
            ("stats".to_owned(), Rule::InvalidArgumentsAsError),
            ("token".to_owned(), Rule::Secret),
        ],
        "{text}"
    );
    assert!(
        !text.contains("ghp_a1B2"),
        "a report never shows a secret: {text}"
    );
    for f in run.findings() {
        assert!(f.found_at <= 16, "found late: {text}");
        match (f.tool.as_str(), f.rule) {
            ("divide", Rule::Hang) => assert_eq!(f.arguments, json!({"a": 0, "b": 0}), "{text}"),
            ("stats", Rule::OutputSchema) => {
                assert_eq!(f.arguments, json!({"values": []}), "{text}")
            }
            ("search", Rule::Hang) => {
                let len = f.arguments["query"].as_str().unwrap().len();
                assert!((10_001..=10_200).contains(&len), "{len}: {text}");
            }
            _ => {}
        }
    }
    // Each written fixture: red against the defective server, green against the fixed.
    for f in run.findings() {
        let written = f
            .fixture
            .as_ref()
            .unwrap_or_else(|| panic!("not written: {text}"));
        let fixture = Fixture::load(written).unwrap();
        assert_eq!(fixture.header().explore.as_ref().unwrap().rule, f.rule);
        let red = fixture
            .replay()
            .timeout(Duration::from_millis(500))
            .run(|t| serve(Planted { fixed: false }, t))
            .await;
        assert!(
            !red.is_ok(),
            "{} passed against the defective server",
            written.display()
        );
        let green = fixture
            .replay()
            .run(|t| serve(Planted { fixed: true }, t))
            .await;
        assert!(
            green.is_ok(),
            "{} against the fixed server:\n{green}",
            written.display()
        );
        // Re-recorded against the fixed server, the call's answer is pinned from then on.
        let pinned = green.recorded().expect("a recording");
        assert!(pinned.header().explore.is_none(), "{}", pinned.to_jsonl());
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains("ghp_a1B2"), "a secret written:\n{text}");
    }
    // A second run replays the kept failures first: all of them still fail.
    let again = explore()
        .write_to(&dir)
        .serve(|t| serve(Planted { fixed: false }, t))
        .await
        .unwrap();
    assert_eq!(again.still_failing(), run.findings().len(), "{again}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seed_gives_the_same_calls_and_the_same_report() {
    let first = explore()
        .serve(|t| serve(Planted { fixed: false }, t))
        .await
        .unwrap()
        .to_string();
    for _ in 0..2 {
        let again = explore()
            .serve(|t| serve(Planted { fixed: false }, t))
            .await
            .unwrap()
            .to_string();
        assert_eq!(again, first);
    }
    assert!(first.contains("seed 7"), "{first}");
    let fixed = explore()
        .serve(|t| serve(Planted { fixed: true }, t))
        .await
        .unwrap();
    assert!(fixed.findings().is_empty(), "{fixed}");
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    assert!(Path::new(&dir).is_dir());
    dir
}

/// A child process: `argv`, with `--fixed` when `fixed`.
fn child(argv: &[String], fixed: bool) -> mcp_replay::harness::Target<'static> {
    let mut command = tokio::process::Command::new(&argv[0]);
    command.args(&argv[1..]);
    if fixed {
        command.arg("--fixed");
    }
    mcp_replay::harness::Target::command(command, argv.join(" "))
}

/// The same planted defects on the Python SDK (in both eras) and the TypeScript SDK (each
/// its low-level server, which checks neither arguments nor results), as child processes on
/// stdio:
/// `divide` exits there, a crash. Each defect found within 15 calls, written, red against
/// the server and green against `--fixed`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planted_defects_are_found_on_the_python_and_typescript_sdks_as_child_processes() {
    use mcp_replay::{Options, Rules};
    for (sdk, argv, protocol) in [
        (
            "python",
            mcp_replay_peers::python("planted_server.py"),
            "2025-11-25",
        ),
        // The Python SDK serves both eras: the stateless one too.
        (
            "python-stateless",
            mcp_replay_peers::python("planted_server.py"),
            "2026-07-28",
        ),
        (
            "typescript",
            mcp_replay_peers::node("planted_server.mjs"),
            "2025-11-25",
        ),
    ] {
        let dir = tempdir(&format!("explore-planted-{sdk}"));
        let run = Explore::new()
            .protocol(protocol)
            .seed(7)
            .calls(40)
            .hang(Duration::from_secs(2))
            .shrink_calls(16)
            .write_to(&dir)
            .run(|| child(&argv, false))
            .await
            .unwrap();
        let text = run.to_string();
        assert_eq!(
            found(&run),
            [
                ("divide".to_owned(), Rule::InvalidArgumentsAsError),
                ("divide".to_owned(), Rule::Crash),
                ("search".to_owned(), Rule::InvalidArgumentsAsError),
                ("search".to_owned(), Rule::Hang),
                ("stats".to_owned(), Rule::OutputSchema),
                ("stats".to_owned(), Rule::InvalidArgumentsAsError),
            ],
            "{sdk}: {text}"
        );
        assert!(run.not_made().is_empty(), "{sdk}: {text}");
        let options = Options::new().timeout(Duration::from_secs(2));
        for f in run.findings() {
            assert!(f.found_at <= 15, "{sdk}: found late: {text}");
            let written = f
                .fixture
                .as_ref()
                .unwrap_or_else(|| panic!("{sdk}: not written: {text}"));
            let fixture = Fixture::load(written).unwrap();
            let red = child(&argv, false)
                .replay(&fixture, &Rules::default(), &options)
                .await
                .unwrap();
            assert!(
                !red.is_ok(),
                "{sdk}: {} passed against the defective server",
                written.display()
            );
            let green = child(&argv, true)
                .replay(&fixture, &Rules::default(), &options)
                .await
                .unwrap();
            assert!(
                green.is_ok(),
                "{sdk}: {} against the fixed server:\n{green}",
                written.display()
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[allow(dead_code)]
mod command;

/// `mcp-replay explore`: the demo server on stdio and over Streamable HTTP (`--url`) gives
/// the same report (nothing found; one fixture proposed for each answer shape with `-o`);
/// a defect is exit 1; no server is a usage error, exit 2.
#[test]
fn the_command_explores_a_child_process_and_a_url_alike() {
    use command::{demo_server, mcp_replay, text};
    use std::process::{Command, Stdio};
    let dir = tempdir("explore-command");
    let stdio = mcp_replay()
        .args(["explore", "--seed", "3", "--calls", "30", "-o"])
        .arg(&dir)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    let (out, err) = text(&stdio);
    assert_eq!(stdio.status.code(), Some(0), "{out}{err}");
    assert!(out.starts_with("explore: seed 3, 30 calls\n"), "{out}");
    assert!(
        out.ends_with("0 finding(s); replay with --seed 3\n"),
        "{out}"
    );
    let proposed = std::fs::read_dir(&dir).unwrap().count();
    assert!(
        proposed >= 5,
        "one fixture for each tool's success at least: {out}"
    );

    let port = command::http::free_port();
    let mut server = Command::new(demo_server())
        .args(["http", &format!("127.0.0.1:{port}")])
        .stderr(Stdio::null())
        .spawn()
        .expect("demo-server runs");
    command::http::wait_for(port, &mut server);
    let http = mcp_replay()
        .args([
            "explore",
            "--seed",
            "3",
            "--calls",
            "30",
            "--url",
            &command::http::url(port),
        ])
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let (http_out, err) = text(&http);
    assert_eq!(http.status.code(), Some(0), "{http_out}{err}");
    // The same calls and answers; only the -o paths are not there.
    let without_paths: String = out
        .lines()
        .map(|l| l.split(": /").next().unwrap_or(l).to_owned() + "\n")
        .collect();
    assert_eq!(http_out, without_paths);

    let planted = mcp_replay()
        .args(["explore", "--calls", "6", "--"])
        .args(mcp_replay_peers::node("planted_server.mjs"))
        .output()
        .unwrap();
    let (out, err) = text(&planted);
    assert_eq!(planted.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("FOUND output-schema: `stats`"), "{out}");

    let neither = mcp_replay().args(["explore"]).output().unwrap();
    assert_eq!(neither.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
