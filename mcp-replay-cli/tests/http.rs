//! The command over Streamable HTTP against real servers: `replay --url` (with `-- SERVER`
//! started and waited for), `record --listen --upstream` with the Python SDK's HTTP
//! client, and the errors of a URL nothing listens on.

mod common;

use common::{demo_server, mcp_replay, peer, temp_dir, text, workspace};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A port nothing listens on right now (the OS picks it; the test's server takes it next).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/mcp")
}

/// Waits until something accepts connections on `port` (the proxy), or panics.
fn wait_for(port: u16, child: &mut Child) {
    let began = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the process exited ({status}) before listening on {port}");
        }
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "nothing listens on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The fixture `path` written `times` times on one command line: one replay each.
fn replay_args(path: &Path, times: usize) -> Vec<String> {
    let mut args = vec!["replay".to_owned()];
    args.extend(std::iter::repeat_n(path.display().to_string(), times));
    args
}

/// A Python SDK client over Streamable HTTP that sends an Authorization header and a cookie,
/// lists the tools and calls `tool` with `arguments` (JSON).
const PYTHON_CLIENT: &str = r#"
import asyncio, json, sys, httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def main(url, tool, arguments):
    headers = {"Authorization": "Bearer sk-live-PROXYSECRET0123456789", "Cookie": "session=COOKIE0123456789"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                tools = await session.list_tools()
                result = await session.call_tool(tool, json.loads(arguments))
                print(len(tools.tools), result.content[0].text)

asyncio.run(main(*sys.argv[1:]))
"#;

/// Records one session of the Python client through `record --listen` in front of
/// `upstream` (started with `server`), and returns the fixture.
fn record_python_session(
    dir: &Path,
    server: &[String],
    upstream: u16,
    tool: &str,
    arguments: &str,
) -> std::path::PathBuf {
    let python = peer("python-server").expect("checked by the caller")[0].clone();
    let fixture = dir.join("recorded.jsonl");
    let listen = free_port();
    let mut proxy = mcp_replay()
        .args(["record", "-o"])
        .arg(&fixture)
        .args([
            "--listen",
            &format!("127.0.0.1:{listen}"),
            "--upstream",
            &url(upstream),
            "--",
        ])
        .args(server)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-replay runs");
    wait_for(listen, &mut proxy);
    let client = Command::new(&python)
        .args(["-c", PYTHON_CLIENT, &url(listen), tool, arguments])
        .output()
        .expect("python runs");
    let (out, err) = text(&client);
    assert!(client.status.success(), "the client failed: {out}{err}");
    // The client ends its session with DELETE: the proxy writes the fixture and exits.
    let recorded = proxy.wait_with_output().expect("the proxy ends");
    let (_, err) = text(&recorded);
    assert!(recorded.status.success(), "record failed: {err}");
    assert!(err.contains("wrote"), "{err}");
    let written = std::fs::read_to_string(&fixture).expect("the fixture is written");
    for secret in ["PROXYSECRET", "COOKIE0123", "Authorization", "Cookie"] {
        assert!(
            !written.contains(secret),
            "{secret} in the fixture:\n{written}"
        );
    }
    fixture
}

#[test]
fn one_fixture_replays_over_stdio_and_over_http_against_server_everything() {
    let Some(everything) = peer("everything") else {
        return;
    };
    let dir = temp_dir("http", "everything");
    let fixture = dir.join("everything.jsonl");
    let call = mcp_replay()
        .args(["call", "-o"])
        .arg(&fixture)
        .args(["--list-tools", "--tool", "echo", "message=hello", "--"])
        .args(&everything)
        .output()
        .expect("mcp-replay runs");
    assert!(call.status.success(), "{:?}", text(&call));

    let stdio = mcp_replay()
        .args(replay_args(&fixture, 3))
        .arg("--")
        .args(&everything)
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&stdio);
    assert!(stdio.status.success(), "{out}{err}");
    assert!(out.contains("3 passed, 0 failed"), "{out}");

    let port = free_port();
    let http = mcp_replay()
        .args(replay_args(&fixture, 5))
        .args(["--url", &url(port), "--", "env", &format!("PORT={port}")])
        .args([&everything[0], &everything[1], "streamableHttp"])
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&http);
    assert!(http.status.success(), "{out}{err}");
    assert!(out.contains("5 passed, 0 failed"), "{out}");
}

#[test]
fn the_bundled_fixtures_replay_over_http_against_the_rmcp_demo_server_in_each_mode() {
    let fixtures: Vec<String> = std::fs::read_dir(workspace().join("fixtures"))
        .expect("the bundled fixtures")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(fixtures.len(), 6);
    for mode in [None, Some("json"), Some("stateless")] {
        let port = free_port();
        let output = mcp_replay()
            .arg("replay")
            .args(&fixtures)
            .args(["--url", &url(port), "--"])
            .arg(demo_server())
            .args(["http", &format!("127.0.0.1:{port}")])
            .args(mode)
            .output()
            .expect("mcp-replay runs");
        let (out, err) = text(&output);
        assert!(output.status.success(), "mode {mode:?}: {out}{err}");
        assert!(out.contains("6 passed, 0 failed"), "mode {mode:?}: {out}");
    }
}

#[test]
fn a_changed_answer_over_http_is_a_result_finding_and_exit_1() {
    let dir = temp_dir("http", "changed");
    let original = std::fs::read_to_string(workspace().join("fixtures/count_up_progress.jsonl"))
        .expect("the bundled fixture");
    let changed = dir.join("count_up_progress.jsonl");
    std::fs::write(
        &changed,
        original.replace("counted to 3", "counted to three"),
    )
    .expect("written");
    let port = free_port();
    let output = mcp_replay()
        .arg("replay")
        .arg(&changed)
        .args(["--url", &url(port), "--"])
        .arg(demo_server())
        .args(["http", &format!("127.0.0.1:{port}")])
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("1 mismatch (1 result)"), "{out}");
    assert!(out.contains(r#"expected: "counted to three""#), "{out}");
    assert!(
        out.contains(&format!("--url {}", url(port))),
        "the re-record command: {out}"
    );
}

#[test]
fn a_url_nothing_listens_on_is_exit_2_naming_it() {
    let port = free_port();
    let output = mcp_replay()
        .args(["replay"])
        .arg(workspace().join("fixtures/count_up_progress.jsonl"))
        .args(["--url", &url(port)])
        .output()
        .expect("mcp-replay runs");
    let (_, err) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("cannot connect to {}", url(port))),
        "{err}"
    );
    assert!(err.to_lowercase().contains("refused"), "{err}");

    let https = mcp_replay()
        .args(["replay", "f.jsonl", "--url", "https://example.test/mcp"])
        .output()
        .expect("mcp-replay runs");
    assert_eq!(https.status.code(), Some(2));
    assert!(
        text(&https).1.contains("https is not supported yet"),
        "{:?}",
        text(&https)
    );

    let neither = mcp_replay()
        .args(["replay", "f.jsonl"])
        .output()
        .expect("mcp-replay runs");
    assert_eq!(neither.status.code(), Some(2));
    assert!(
        text(&neither).1.contains("--url URL"),
        "{:?}",
        text(&neither)
    );
}

#[test]
fn the_python_client_recorded_through_the_proxy_replays_green_against_server_everything() {
    let Some(everything) = peer("everything") else {
        return;
    };
    if peer("python-server").is_none() {
        return;
    }
    let dir = temp_dir("http", "proxy-everything");
    let upstream = free_port();
    let server = vec![
        "env".to_owned(),
        format!("PORT={upstream}"),
        everything[0].clone(),
        everything[1].clone(),
        "streamableHttp".to_owned(),
    ];
    let fixture = record_python_session(&dir, &server, upstream, "echo", r#"{"message":"hi"}"#);
    let written = std::fs::read_to_string(&fixture).expect("written");
    assert!(written.contains(r#""text":"Echo: hi""#), "{written}");

    let port = free_port();
    let output = mcp_replay()
        .args(replay_args(&fixture, 5))
        .args(["--url", &url(port), "--", "env", &format!("PORT={port}")])
        .args([&everything[0], &everything[1], "streamableHttp"])
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(out.contains("5 passed, 0 failed"), "{out}");
}

#[test]
fn the_python_client_recorded_through_the_proxy_replays_green_against_the_python_sdk_server() {
    let Some(tour) = peer("python-tour") else {
        return;
    };
    let dir = temp_dir("http", "proxy-python");
    let upstream = free_port();
    let mut server = tour.clone();
    server.extend(["--http".to_owned(), upstream.to_string()]);
    let fixture = record_python_session(&dir, &server, upstream, "echo", r#"{"text":"hi"}"#);

    for json in [false, true] {
        let port = free_port();
        let mut server = tour.clone();
        server.extend(["--http".to_owned(), port.to_string()]);
        if json {
            server.push("--json".to_owned());
        }
        let output = mcp_replay()
            .args(replay_args(&fixture, 5))
            .args(["--url", &url(port), "--"])
            .args(&server)
            .output()
            .expect("mcp-replay runs");
        let (out, err) = text(&output);
        assert!(output.status.success(), "json answers {json}: {out}{err}");
        assert!(out.contains("5 passed, 0 failed"), "{out}");
    }
}

#[test]
fn the_python_client_recorded_through_the_proxy_replays_green_against_the_rmcp_demo_server() {
    if peer("python-server").is_none() {
        return;
    }
    let dir = temp_dir("http", "proxy-rmcp");
    let upstream = free_port();
    let server = vec![
        demo_server().display().to_string(),
        "http".to_owned(),
        format!("127.0.0.1:{upstream}"),
    ];
    let fixture = record_python_session(&dir, &server, upstream, "echo", r#"{"text":"hi"}"#);
    let port = free_port();
    let output = mcp_replay()
        .args(replay_args(&fixture, 5))
        .args(["--url", &url(port), "--"])
        .arg(demo_server())
        .args(["http", &format!("127.0.0.1:{port}")])
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    assert!(out.contains("5 passed, 0 failed"), "{out}");
    // The same fixture over stdio: a fixture is about messages, not transports.
    let stdio = mcp_replay()
        .arg("replay")
        .arg(&fixture)
        .arg("--")
        .arg(demo_server())
        .output()
        .expect("mcp-replay runs");
    assert!(stdio.status.success(), "{:?}", text(&stdio));
}
