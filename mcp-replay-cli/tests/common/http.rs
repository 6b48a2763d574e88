//! What both halves of the Streamable HTTP tests (tests/http.rs here, the root's
//! tests/http.rs) use.

use super::{mcp_replay, peer, text};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A port nothing listens on right now, for a server this test starts next.
///
/// Not the OS's pick (`bind 127.0.0.1:0`): that comes from the ephemeral range, which every
/// outgoing connection of a concurrent test draws from too, and the OS hands the same port
/// to the next `bind 0` once the probe is dropped; two tests (or a test's own client) then
/// meet on one port, and a replay fails with `ECONNREFUSED` or `fetch failed`. This takes
/// ports below the ephemeral range (Linux's starts at 32768, macOS's at 49152), from a
/// per-process start, each one once per process, and probes each before handing it out.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const LOW: u32 = 20_000;
    const SPAN: u32 = 12_000;
    static NEXT: AtomicU32 = AtomicU32::new(u32::MAX);
    let _ = NEXT.compare_exchange(
        u32::MAX,
        std::process::id().wrapping_mul(7919) % SPAN,
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
    for _ in 0..SPAN {
        let port = (LOW + NEXT.fetch_add(1, Ordering::SeqCst) % SPAN) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in {LOW}..{}", LOW + SPAN)
}

/// How many times a test runs each client or replay: `MCP_REPLAY_HTTP_RUNS`, 3 unless set
/// (the 20-in-a-row figures in the docs are `MCP_REPLAY_HTTP_RUNS=20`).
pub fn runs() -> usize {
    std::env::var("MCP_REPLAY_HTTP_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3)
}

pub fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/mcp")
}

/// Waits until something accepts connections on `port` (the proxy), or panics.
pub fn wait_for(port: u16, child: &mut Child) {
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
pub struct Ran {
    pub code: Option<i32>,
    pub out: String,
    pub err: String,
}

impl Ran {
    /// Exit 0 and `n passed, 0 failed`.
    pub fn assert_green(&self, n: usize) {
        assert_eq!(self.code, Some(0), "{}{}", self.out, self.err);
        let summary = format!("{n} passed, 0 failed");
        assert!(self.out.contains(&summary), "{}", self.out);
    }
}

/// `mcp-replay replay FIXTURE... OPTION... --url http://127.0.0.1:PORT/mcp -- SERVER`, with
/// `server(PORT)` started by the command on a free port; the run and the URL.
pub fn replay_over_http(
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

/// `fixture` `times` times over: one replay each.
pub fn times(fixture: &Path, times: usize) -> Vec<&Path> {
    std::iter::repeat_n(fixture, times).collect()
}

/// A Python SDK client over Streamable HTTP that sends an Authorization header and a cookie,
/// lists the tools and calls `tool` with `arguments` (JSON) and a progress token.
pub const PYTHON_CLIENT: &str = r#"
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
pub fn record_python_session(
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

/// 1,000 connections to `address` that send nothing, and when they were opened.
pub fn silent_connections(address: &str) -> (Vec<std::net::TcpStream>, Instant) {
    let opened = Instant::now();
    let silent = (0..1000)
        .map(|i| {
            std::net::TcpStream::connect(address).unwrap_or_else(|e| panic!("connection {i}: {e}"))
        })
        .collect();
    (silent, opened)
}

/// Every `step`th of `silent` is closed by the other side (read within 15 s each), and
/// all within 30 s of `opened`.
pub fn assert_dropped(silent: Vec<std::net::TcpStream>, step: usize, opened: Instant) {
    use std::io::Read;
    for mut stream in silent.into_iter().step_by(step) {
        stream
            .set_read_timeout(Some(Duration::from_secs(15)))
            .expect("a timeout");
        let mut byte = [0u8; 1];
        let read = stream.read(&mut byte);
        let dropped = match &read {
            Ok(n) => *n == 0,
            Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
        };
        assert!(dropped, "a silent connection still open: {read:?}");
    }
    let waited = opened.elapsed();
    assert!(waited < Duration::from_secs(30), "{waited:?}");
}

/// Records the session `client(url of the proxy)` has through `record --listen` (with
/// `options`) in front of `upstream` (started with `server`), and returns the fixture.
pub fn record_session(
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
