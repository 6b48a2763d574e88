//! The command over Streamable HTTP against real servers: `replay --url` (with `-- SERVER`
//! started and waited for), `record --listen --upstream` with the Python SDK's HTTP
//! client, and the errors of a URL nothing listens on.

mod common;

use common::{demo_dir, demo_server, mcp_replay, peer, temp_dir, text};
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

/// What one run of the command gave: its exit code, stdout and stderr.
struct Ran {
    code: Option<i32>,
    out: String,
    err: String,
}

impl Ran {
    /// Exit 0 and `n passed, 0 failed`.
    fn assert_green(&self, n: usize) {
        assert_eq!(self.code, Some(0), "{}{}", self.out, self.err);
        let summary = format!("{n} passed, 0 failed");
        assert!(self.out.contains(&summary), "{}", self.out);
    }
}

/// `mcp-replay replay FIXTURE... OPTION... --url http://127.0.0.1:PORT/mcp -- SERVER`, with
/// `server(PORT)` started by the command on a free port; the run and the URL.
fn replay_over_http(
    fixtures: &[&Path],
    options: &[&str],
    server: impl FnOnce(u16) -> Vec<String>,
) -> (Ran, String) {
    let port = free_port();
    let output = mcp_replay()
        .arg("replay")
        .args(fixtures)
        .args(options)
        .args(["--url", &url(port), "--"])
        .args(server(port))
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&output);
    let code = output.status.code();
    (Ran { code, out, err }, url(port))
}

/// server-everything in its Streamable HTTP mode on `port`.
fn everything_over_http(everything: &[String], port: u16) -> Vec<String> {
    vec![
        "env".to_owned(),
        format!("PORT={port}"),
        everything[0].clone(),
        everything[1].clone(),
        "streamableHttp".to_owned(),
    ]
}

/// The rmcp demo server mounted with `StreamableHttpService` on `port` (`json`/`stateless`).
fn demo_over_http(port: u16, mode: Option<&str>) -> Vec<String> {
    let mut argv = vec![
        demo_server().display().to_string(),
        "http".to_owned(),
        format!("127.0.0.1:{port}"),
    ];
    argv.extend(mode.map(str::to_owned));
    argv
}

/// The Python SDK tour server over Streamable HTTP on `port`, with `options`.
fn tour_over_http(tour: &[String], port: u16, options: &[&str]) -> Vec<String> {
    let mut argv = tour.to_vec();
    argv.extend(["--http".to_owned(), port.to_string()]);
    argv.extend(options.iter().map(|o| o.to_string()));
    argv
}

/// `fixture` `times` times over: one replay each.
fn times(fixture: &Path, times: usize) -> Vec<&Path> {
    std::iter::repeat_n(fixture, times).collect()
}

/// A Python SDK client over Streamable HTTP that sends an Authorization header and a cookie,
/// lists the tools and calls `tool` with `arguments` (JSON) and a progress token.
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
                async def progress(done, total, message):
                    pass
                result = await session.call_tool(tool, json.loads(arguments), progress_callback=progress)
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
    let python = peer("python-server")[0].clone();
    let fixture = record_session(dir, server, upstream, &[], |url| {
        let mut client = Command::new(&python);
        client.args(["-c", PYTHON_CLIENT, url, tool, arguments]);
        client
    });
    let written = std::fs::read_to_string(&fixture).expect("the fixture is written");
    for secret in ["PROXYSECRET", "COOKIE0123", "Authorization", "Cookie"] {
        assert!(
            !written.contains(secret),
            "{secret} in the fixture:\n{written}"
        );
    }
    fixture
}

/// Records the session `client(url of the proxy)` has through `record --listen` (with
/// `options`) in front of `upstream` (started with `server`), and returns the fixture.
fn record_session(
    dir: &Path,
    server: &[String],
    upstream: u16,
    options: &[&str],
    client: impl FnOnce(&str) -> Command,
) -> std::path::PathBuf {
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
        ])
        .args(options)
        .arg("--")
        .args(server)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-replay runs");
    wait_for(listen, &mut proxy);
    let client = client(&url(listen)).output().expect("the client runs");
    let (out, err) = text(&client);
    assert!(client.status.success(), "the client failed: {out}{err}");
    // The client ends its session with DELETE (or goes, with --idle): the proxy writes the
    // fixture and exits.
    let recorded = proxy.wait_with_output().expect("the proxy ends");
    let (_, err) = text(&recorded);
    assert!(recorded.status.success(), "record failed: {err}");
    assert!(err.contains("wrote"), "{err}");
    fixture
}

#[test]
fn one_fixture_replays_over_stdio_and_over_http_against_server_everything() {
    let everything = peer("everything");
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
        .arg("replay")
        .args(times(&fixture, 3))
        .arg("--")
        .args(&everything)
        .output()
        .expect("mcp-replay runs");
    let (out, err) = text(&stdio);
    assert!(stdio.status.success(), "{out}{err}");
    assert!(out.contains("3 passed, 0 failed"), "{out}");

    let (http, _) = replay_over_http(&times(&fixture, 5), &[], |port| {
        everything_over_http(&everything, port)
    });
    http.assert_green(5);
}

#[test]
fn the_bundled_fixtures_replay_over_http_against_the_rmcp_demo_server_in_each_mode() {
    let fixtures: Vec<std::path::PathBuf> = std::fs::read_dir(demo_dir().join("fixtures"))
        .expect("the bundled fixtures")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    let fixtures: Vec<&Path> = fixtures.iter().map(|p| p.as_path()).collect();
    assert_eq!(fixtures.len(), 7);
    for mode in [None, Some("json"), Some("stateless")] {
        let (ran, _) = replay_over_http(&fixtures, &[], |port| demo_over_http(port, mode));
        ran.assert_green(7);
    }
}

#[test]
fn a_changed_answer_over_http_is_a_result_finding_and_exit_1() {
    let dir = temp_dir("http", "changed");
    let original = std::fs::read_to_string(demo_dir().join("fixtures/count_up_progress.jsonl"))
        .expect("the bundled fixture");
    let changed = dir.join("count_up_progress.jsonl");
    std::fs::write(
        &changed,
        original.replace("counted to 3", "counted to three"),
    )
    .expect("written");
    let (ran, url) = replay_over_http(&[&changed], &[], |port| demo_over_http(port, None));
    let Ran { code, out, err } = ran;
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("1 mismatch (1 result)"), "{out}");
    assert!(out.contains(r#"expected: "counted to three""#), "{out}");
    assert!(
        out.contains(&format!("--url {url}")),
        "the re-record command: {out}"
    );
}

#[test]
fn a_url_nothing_listens_on_is_exit_2_naming_it() {
    let port = free_port();
    let output = mcp_replay()
        .args(["replay"])
        .arg(demo_dir().join("fixtures/count_up_progress.jsonl"))
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
    let everything = peer("everything");
    let dir = temp_dir("http", "proxy-everything");
    let upstream = free_port();
    let server = everything_over_http(&everything, upstream);
    let fixture = record_python_session(&dir, &server, upstream, "echo", r#"{"message":"hi"}"#);
    let written = std::fs::read_to_string(&fixture).expect("written");
    assert!(written.contains(r#""text":"Echo: hi""#), "{written}");

    let (ran, _) = replay_over_http(&times(&fixture, 5), &[], |port| {
        everything_over_http(&everything, port)
    });
    ran.assert_green(5);
}

#[test]
fn the_python_client_recorded_through_the_proxy_replays_green_against_the_python_sdk_server() {
    let tour = peer("python-tour");
    let dir = temp_dir("http", "proxy-python");
    let upstream = free_port();
    let server = tour_over_http(&tour, upstream, &[]);
    let fixture = record_python_session(&dir, &server, upstream, "echo", r#"{"text":"hi"}"#);

    for options in [&[][..], &["--json"][..]] {
        let (ran, _) = replay_over_http(&times(&fixture, 5), &[], |port| {
            tour_over_http(&tour, port, options)
        });
        ran.assert_green(5);
    }
}

#[test]
fn the_python_client_recorded_through_the_proxy_replays_green_against_the_rmcp_demo_server() {
    let dir = temp_dir("http", "proxy-rmcp");
    let upstream = free_port();
    let server = demo_over_http(upstream, None);
    let fixture = record_python_session(&dir, &server, upstream, "echo", r#"{"text":"hi"}"#);
    let (ran, _) = replay_over_http(&times(&fixture, 5), &[], |port| demo_over_http(port, None));
    ran.assert_green(5);
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

/// The Python SDK's tour client (roots, sampling, elicitation, a progress callback) on
/// `tour` through the proxy at `url`.
fn tour_client(tour: &str, url: &str) -> Command {
    let mut argv = common::tour_client("python-tour-client");
    let at = argv
        .iter()
        .position(|a| a == "everything")
        .expect("the tour argument");
    argv[at] = tour.to_owned();
    let mut client = Command::new(&argv[0]);
    client.args(&argv[1..]).args(["--url", url]);
    client
}

/// The TypeScript SDK's client ends with `close()`, which sends no DELETE: with `--idle` the
/// proxy ends the recording once the client's connections are gone, and the session (roots,
/// sampling, elicitation, progress) replays green against server-everything.
#[test]
fn the_typescript_client_recorded_with_idle_replays_green_against_server_everything() {
    let everything = peer("everything");
    let dir = temp_dir("http", "proxy-ts-idle");
    let upstream = free_port();
    let server = everything_over_http(&everything, upstream);
    let argv = common::tour_client("ts-tour-client");
    let began = Instant::now();
    let fixture = record_session(&dir, &server, upstream, &["--idle", "1s"], |url| {
        let mut client = Command::new(&argv[0]);
        client.args(&argv[1..]).args(["--url", url]);
        client
    });
    assert!(
        began.elapsed() < Duration::from_secs(60),
        "{:?}",
        began.elapsed()
    );
    let written = std::fs::read_to_string(&fixture).expect("written");
    for method in [
        "roots/list",
        "sampling/createMessage",
        "notifications/progress",
    ] {
        assert!(
            written.contains(method),
            "{method} not recorded:\n{written}"
        );
    }
    let (ran, _) = replay_over_http(&times(&fixture, 5), &[], |port| {
        everything_over_http(&everything, port)
    });
    ran.assert_green(5);
}

/// The 2026-07-28 era with the Python SDK on both sides (`peers/python/modern_*.py`): the
/// client discovers, lists and calls a tool whose `region` argument the schema mirrors into
/// an `Mcp-Param-Region` header, which the SDK's server requires (HTTP 400, -32020, without
/// it). Recorded through the proxy (the stateless client sends no DELETE: `--idle`), the
/// session replays green against that server (the bridge sends the header from the
/// recorded schema), and `serve --http` and stdio `serve` play it back to the same client
/// (the front checks the client's headers; the mock puts back the `resultType` the
/// recording dropped as the default, which this client requires).
#[test]
fn the_stateless_era_records_replays_and_serves_with_the_python_sdk_on_both_sides() {
    let (server, client) = (peer("python-modern-server"), peer("python-modern-client"));
    let on = |port: u16| {
        let mut argv = server.clone();
        argv.push(port.to_string());
        argv
    };
    let client_at = |args: &[&str]| {
        let mut command = Command::new(&client[0]);
        command.args(&client[1..]).args(args);
        command
    };
    let dir = temp_dir("http", "modern");
    let upstream = free_port();
    let fixture = record_session(&dir, &on(upstream), upstream, &["--idle", "1s"], |url| {
        client_at(&["--url", url])
    });
    let written = std::fs::read_to_string(&fixture).expect("written");
    for part in [
        "server/discover",
        r#""x-mcp-header":"Region""#,
        "ran select 1 in eu-west",
    ] {
        assert!(written.contains(part), "{part} not recorded:\n{written}");
    }

    let (ran, _) = replay_over_http(&times(&fixture, 5), &[], on);
    ran.assert_green(5);

    let expected = "2026-07-28 1 ran select 1 in eu-west";
    let serve = common::HttpServe::start(&[fixture.to_str().expect("a UTF-8 path")]);
    let over_http = client_at(&["--url", &serve.url])
        .output()
        .expect("the client runs");
    let (out, err) = text(&over_http);
    assert!(over_http.status.success(), "{out}{err}");
    assert_eq!(out.trim(), expected);
    let (code, report) = serve.finish();
    assert_eq!(code, Some(0), "{report}");
    assert!(report.contains(": ok"), "{report}");

    let mut over_stdio = client_at(&["--"]);
    over_stdio
        .arg(env!("CARGO_BIN_EXE_mcp-replay"))
        .arg("serve")
        .arg(&fixture);
    let over_stdio = over_stdio.output().expect("the client runs");
    let (out, err) = text(&over_stdio);
    assert!(over_stdio.status.success(), "{out}{err}");
    assert_eq!(out.trim(), expected);
    assert!(err.contains(": ok"), "{err}");
}

/// `fixture` with a header marking its `nth` progress notification (1-based) as a drop
/// point, written beside it.
fn mark_resume(fixture: &Path, nth: usize) -> std::path::PathBuf {
    let text = std::fs::read_to_string(fixture).expect("the fixture");
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(r#""method":"notifications/progress""#))
        .nth(nth - 1)
        .map(|(i, _)| i + 2) // 1-based, and the header goes first
        .expect("enough progress notifications");
    let marked = fixture.with_file_name("resume.jsonl");
    let header = format!("{{\"mcp_replay\":1,\"http_resume\":[{line}]}}\n");
    std::fs::write(&marked, header + &text).expect("written");
    marked
}

#[test]
fn resumption_with_last_event_id_against_the_python_sdk_server_with_and_without_an_event_store() {
    let tour = peer("python-tour");
    let dir = temp_dir("http", "resume-python");
    let upstream = free_port();
    let server = tour_over_http(&tour, upstream, &["--event-store"]);
    let fixture = record_session(&dir, &server, upstream, &[], |url| {
        tour_client("python", url)
    });
    let marked = mark_resume(&fixture, 2);

    // With a store: dropped after the second progress, resumed, everything redelivered once.
    let (ran, _) = replay_over_http(&times(&marked, 3), &[], |port| {
        tour_over_http(&tour, port, &["--event-store"])
    });
    ran.assert_green(3);

    // Without: the SDK's default. Its events carry no id: nothing can be resumed.
    let (ran, _) = replay_over_http(&[&marked], &[], |port| tour_over_http(&tour, port, &[]));
    let Ran { code, out, err } = ran;
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("1 mismatch (1 http)"), "{out}");
    assert!(
        out.contains(
            "the server keeps no event store: its SSE events carry no id, so the stream \
             cannot be resumed"
        ),
        "{out}"
    );
}

#[test]
fn resumption_against_server_everything_loses_the_rest_of_the_stream() {
    let everything = peer("everything");
    let dir = temp_dir("http", "resume-everything");
    let server = |port: u16| everything_over_http(&everything, port);
    // A long call (a progress notification a second, four of them): the drop comes after
    // the first, and the client is back a second later, before the rest.
    let upstream = free_port();
    let fixture = record_python_session(
        &dir,
        &server(upstream),
        upstream,
        "trigger-long-running-operation",
        r#"{"duration":4,"steps":4}"#,
    );
    let (plain, _) = replay_over_http(&[&fixture], &["--timeout", "10s"], server);
    plain.assert_green(1);

    // server-everything's own event store answers the resuming GET, but returns an event id
    // where the TypeScript SDK expects the stream's id: what the server sends after the
    // client is back goes nowhere.
    let marked = mark_resume(&fixture, 1);
    let (ran, _) = replay_over_http(&[&marked], &["--timeout", "4s"], server);
    let Ran { code, out, err } = ran;
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("had not delivered the response to request")
            && out.contains("the server did not redeliver it"),
        "{out}"
    );
}

/// POSTs `body` to `port` over a raw HTTP/1.1 connection that closes after the answer:
/// the whole answer, status line and headers included.
fn raw_post(port: u16, session: Option<&str>, body: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    let session = session
        .map(|s| format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-11-25\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{session}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("written");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

#[test]
#[cfg(unix)]
fn the_proxy_answers_502_for_a_gone_upstream_and_writes_the_fixture_on_sigterm() {
    let dir = temp_dir("http", "proxy-term");
    let fixture = dir.join("term.jsonl");
    let upstream = free_port();
    let mut server = Command::new(demo_server())
        .args(["http", &format!("127.0.0.1:{upstream}"), "json"])
        .stderr(Stdio::null())
        .spawn()
        .expect("demo-server runs");
    wait_for(upstream, &mut server);
    let listen = free_port();
    let mut proxy = mcp_replay()
        .args(["record", "-o"])
        .arg(&fixture)
        .args(["--listen", &format!("127.0.0.1:{listen}")])
        .args(["--upstream", &url(upstream)])
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcp-replay runs");
    wait_for(listen, &mut proxy);

    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let answer = raw_post(listen, None, initialize);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let session = answer
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_owned)
        })
        .expect("a session id");

    // The upstream goes away: a 502 naming it, and the message is not recorded.
    server.kill().expect("killed");
    let _ = server.wait();
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let answer = raw_post(listen, Some(session.trim()), initialized);
    assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
    assert!(
        answer.contains(&format!("the upstream {} failed", url(upstream))),
        "{answer}"
    );

    let pid = proxy.id().to_string();
    let term = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(term.success());
    let ended = proxy.wait_with_output().expect("the proxy ends");
    let (_, err) = text(&ended);
    assert_eq!(ended.status.code(), Some(0), "{err}");
    assert!(err.contains("wrote"), "{err}");
    let written = std::fs::read_to_string(&fixture).expect("the fixture is written");
    assert_eq!(
        written.lines().count(),
        2,
        "initialize and its result:\n{written}"
    );
    assert!(!written.contains("notifications/initialized"), "{written}");
}
