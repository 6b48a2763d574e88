//! What Streamable HTTP costs (`cargo bench --bench http [-- --quick]`); the results are in
//! `docs/PERFORMANCE.md`, "Streamable HTTP". As in `benches/replay.rs`, every figure is a
//! ratio or difference of two sides measured in this one run, interleaved, median.
//!
//! 1. In process: `fixture.replay().http(..)` of N echo calls against rmcp's
//!    `StreamableHttpService` serving `DemoServer`, against a raw client doing the same
//!    exchange by hand through `StreamableHttpService::handle`.
//! 2. Over sockets: the added latency of the `mcp-replay record --listen` proxy per
//!    request, a session through it against a session straight to `demo-server http`.

mod common;

use common::pair;
use std::path::PathBuf;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Body;
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use mcp_replay::{Fixture, Options, Rules};
use mcp_replay_demo::DemoServer;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// What the harness sends for its session setup (as in `benches/replay.rs`).
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"mcp-replay","version":"0.1.0"},"protocolVersion":"2025-11-25"}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A fixture of `n` one-at-a-time `tools/call echo` exchanges, no handshake (the harness
/// does it), as `echo_fixture` in `benches/replay.rs`.
fn echo_fixture(n: usize) -> String {
    (1..=n).map(|i| format!(
        "{{\"direction\":\"client->server\",\"message\":{{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"hi {i}\"}}}}}}}}\n\
         {{\"direction\":\"server->client\",\"message\":{{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"hi {i}\"}}]}}}}}}\n"
    )).collect()
}

fn echo_call(i: usize) -> Bytes {
    Bytes::from(format!(
        r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi {i}"}}}}}}"#
    ))
}

fn demo_service() -> StreamableHttpService<DemoServer, LocalSessionManager> {
    StreamableHttpService::new(
        || Ok(DemoServer::default()),
        Default::default(),
        StreamableHttpServerConfig::default().with_sse_keep_alive(None),
    )
}

/// A request as a client sends it: Host from `uri`, the session and version once known.
fn request(
    method: Method,
    uri: &Uri,
    session: Option<&HeaderValue>,
    body: Bytes,
) -> Request<Full<Bytes>> {
    let mut request = Request::new(Full::new(body));
    *request.method_mut() = method;
    *request.uri_mut() = uri.clone();
    let headers = request.headers_mut();
    let host = uri.authority().expect("an absolute URI").as_str();
    headers.insert(HOST, HeaderValue::from_str(host).expect("host"));
    headers.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(session) = session {
        headers.insert("mcp-session-id", session.clone());
        headers.insert(
            "mcp-protocol-version",
            HeaderValue::from_static("2025-11-25"),
        );
    }
    request
}

/// Reads an SSE body until an event carries a JSON-RPC message (no JSON parsing), then to
/// the end of the stream (rmcp ends it after the response; a connection is reused only
/// once its body is done). Panics if the stream ends without one.
async fn read_response<B: Body<Data = Bytes> + Unpin>(mut body: B) -> usize
where
    B::Error: std::fmt::Debug,
{
    let (mut seen, mut found) = (Vec::with_capacity(512), false);
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.expect("the SSE body").into_data() {
            seen.extend_from_slice(&data);
            found |= seen.ends_with(b"\n\n") && seen.windows(10).any(|w| w == b"\"jsonrpc\":");
        }
    }
    assert!(found, "no response in {}", String::from_utf8_lossy(&seen));
    seen.len()
}

// ---------------------------------------------------------------------------------------
// 1. In process.

/// What a test runs: compare only.
async fn harness(fixture: &Fixture) {
    let bridge = mcp_replay::_support::bridge::Bridge::new(demo_service());
    let compare = Options::new().without_recording();
    let report = fixture
        .replay()
        .rules(&Rules::default())
        .options(&compare)
        .bridge(bridge)
        .await;
    assert!(report.is_ok(), "the replay failed:\n{report}");
}

/// The same exchange by hand: initialize, initialized, the calls, DELETE.
async fn raw(calls: &[Bytes]) {
    let service = demo_service();
    let uri = Uri::from_static("http://localhost/mcp");
    let init = service
        .handle(request(
            Method::POST,
            &uri,
            None,
            Bytes::from_static(INITIALIZE.as_bytes()),
        ))
        .await;
    assert_eq!(init.status(), StatusCode::OK);
    let session = init
        .headers()
        .get("mcp-session-id")
        .expect("a session")
        .clone();
    read_response(init.into_body()).await;
    let done = service
        .handle(request(
            Method::POST,
            &uri,
            Some(&session),
            Bytes::from_static(INITIALIZED.as_bytes()),
        ))
        .await;
    assert_eq!(done.status(), StatusCode::ACCEPTED);
    for call in calls {
        let answer = service
            .handle(request(Method::POST, &uri, Some(&session), call.clone()))
            .await;
        read_response(answer.into_body()).await;
    }
    let end = service
        .handle(request(Method::DELETE, &uri, Some(&session), Bytes::new()))
        .await;
    assert!(end.status().is_success(), "DELETE: {}", end.status());
}

fn in_process(quick: bool) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let sizes: &[(usize, usize)] = if quick {
        &[(1, 20), (100, 3)]
    } else {
        &[(1, 200), (100, 30)]
    };
    println!("\n## 1. In process: `replay().http` against a raw client (current-thread runtime, `StreamableHttpService` + `DemoServer`)\n");
    println!("| N calls | harness | raw client | harness per call | raw per call | harness/raw (median of per-run ratios) |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for &(n, reps) in sizes {
        let fixture = Fixture::parse(&echo_fixture(n)).expect("fixture");
        let calls: Vec<Bytes> = (1..=n).map(echo_call).collect();
        let time = |f: &mut dyn FnMut()| {
            let start = Instant::now();
            f();
            start.elapsed()
        };
        let mut h = || time(&mut || rt.block_on(harness(&fixture)));
        let mut r = || time(&mut || rt.block_on(raw(&calls)));
        let p = pair(reps, &mut h, &mut r);
        println!(
            "| {n} | {} | {} | {} | {} | {:.2}x |",
            us(p.a),
            us(p.b),
            us(p.a / n as u32),
            us(p.b / n as u32),
            p.ratio
        );
    }
}

// ---------------------------------------------------------------------------------------
// 2. The recording proxy.

/// A session of a raw hyper client: open (initialize, initialized), time calls, DELETE.
struct Session {
    client: Client<HttpConnector, Full<Bytes>>,
    uri: Uri,
    id: HeaderValue,
}

impl Session {
    async fn open(client: &Client<HttpConnector, Full<Bytes>>, uri: Uri) -> Session {
        let init = client
            .request(request(
                Method::POST,
                &uri,
                None,
                Bytes::from_static(INITIALIZE.as_bytes()),
            ))
            .await
            .expect("initialize");
        assert_eq!(init.status(), StatusCode::OK, "initialize at {uri}");
        let id = init
            .headers()
            .get("mcp-session-id")
            .expect("a session")
            .clone();
        read_response(init.into_body()).await;
        let done = client
            .request(request(
                Method::POST,
                &uri,
                Some(&id),
                Bytes::from_static(INITIALIZED.as_bytes()),
            ))
            .await
            .expect("initialized");
        assert_eq!(done.status(), StatusCode::ACCEPTED);
        done.into_body().collect().await.expect("the body");
        Session {
            client: client.clone(),
            uri,
            id,
        }
    }

    async fn call(&self, body: Bytes) -> Duration {
        let start = Instant::now();
        let answer = self
            .client
            .request(request(Method::POST, &self.uri, Some(&self.id), body))
            .await
            .expect("tools/call");
        read_response(answer.into_body()).await;
        start.elapsed()
    }

    async fn close(self) {
        let end = self
            .client
            .request(request(
                Method::DELETE,
                &self.uri,
                Some(&self.id),
                Bytes::new(),
            ))
            .await
            .expect("DELETE");
        assert!(end.status().is_success(), "DELETE: {}", end.status());
        end.into_body().collect().await.expect("the body");
    }
}

/// Spawns `program args` (stderr piped) and waits for its `listening on http://ADDR/mcp` line.
fn spawn_listening(
    program: &PathBuf,
    args: &[&str],
) -> (Child, std::io::BufReader<ChildStderr>, Uri) {
    use std::io::BufRead;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("read stderr");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("{program:?} said {line:?}"));
    (child, stderr, url.parse().expect("a URL"))
}

fn proxy(quick: bool) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.parent()?.to_owned()));
    let target = std::env::var_os("CARGO_TARGET_DIR").map(|d| PathBuf::from(d).join("release"));
    let Some(bin) = [exe_dir, target, Some(root.join("../target/release"))]
        .into_iter()
        .flatten()
        .find(|d| d.join("mcp-replay").exists() && d.join("demo-server").exists())
    else {
        println!("\n## 2. The recording proxy: SKIPPED, build the binaries first: cargo build --release --bin mcp-replay --bin demo-server");
        return;
    };
    let dir = std::env::temp_dir().join(format!("mcp-replay-http-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let fixture = dir.join("fixture.jsonl");
    let (mut server, _server_err, direct) =
        spawn_listening(&bin.join("demo-server"), &["http", "127.0.0.1:0"]);
    let (mut recorder, mut recorder_err, proxied) = spawn_listening(
        &bin.join("mcp-replay"),
        &[
            "record",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            &direct.to_string(),
            "-o",
            fixture.to_str().expect("path"),
        ],
    );
    let m = if quick { 20 } else { 200 };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (d, p, added) = rt.block_on(async {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client = Client::builder(hyper_util::rt::TokioExecutor::new()).build(connector);
        let (a, b) = (
            Session::open(&client, direct).await,
            Session::open(&client, proxied).await,
        );
        // Warm-up, then alternate which side goes first.
        a.call(echo_call(1)).await;
        b.call(echo_call(1)).await;
        let (mut d, mut p, mut added) = (vec![], vec![], vec![]);
        for i in 1..=m {
            let (x, y) = if i % 2 == 0 {
                let x = a.call(echo_call(i)).await;
                (x, b.call(echo_call(i)).await)
            } else {
                let y = b.call(echo_call(i)).await;
                (a.call(echo_call(i)).await, y)
            };
            added.push(y.as_secs_f64() - x.as_secs_f64());
            d.push(x);
            p.push(y);
        }
        a.close().await;
        b.close().await;
        (d, p, added)
    });
    let status = recorder.wait().expect("the proxy ends");
    let mut said = String::new();
    std::io::Read::read_to_string(&mut recorder_err, &mut said).expect("stderr");
    assert!(
        status.success(),
        "mcp-replay record exited with {status}: {said}"
    );
    let lines = std::fs::read_to_string(&fixture)
        .expect("the fixture is written")
        .lines()
        .count();
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let q = |v: &[f64], at: f64| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * at).round() as usize]
    };
    let secs = |v: &[Duration]| v.iter().map(Duration::as_secs_f64).collect::<Vec<_>>();
    println!("\n## 2. The recording proxy: {m} `tools/call echo` round trips each, interleaved (hyper client, loopback, POST + SSE body)\n");
    println!("| per request | median | p95 |");
    println!("|---|---:|---:|");
    println!(
        "| straight to `demo-server http` | {:.1} µs | {:.1} µs |",
        q(&secs(&d), 0.5) * 1e6,
        q(&secs(&d), 0.95) * 1e6
    );
    println!(
        "| through `mcp-replay record --listen` | {:.1} µs | {:.1} µs |",
        q(&secs(&p), 0.5) * 1e6,
        q(&secs(&p), 0.95) * 1e6
    );
    println!(
        "| **added by the proxy** (per-pair difference) | **{:.1} µs** | {:.1} µs |",
        q(&added, 0.5) * 1e6,
        q(&added, 0.95) * 1e6
    );
    println!("\nThe proxy exited 0 after the DELETE and wrote {lines} fixture lines.");
}

// ---------------------------------------------------------------------------------------

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = info
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("?", str::trim)
        .to_owned();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    format!("{cpus} CPUs, {model}, load average {}", load.join(" "))
}

/// The function callgrind collects in (`--toggle-collect='*measured*'`).
#[inline(never)]
fn measured<T>(f: impl FnOnce() -> T) -> T {
    std::hint::black_box(f())
}

/// `--case harness|raw --n N [--warm] [--repeat R]`: one side of case 1 alone, once (or `R`
/// times, for a sampling profiler) inside `measured` (after one unmeasured run with
/// `--warm`), for callgrind:
/// `valgrind --tool=callgrind --toggle-collect='*measured*' BENCH --case harness --n 100 --warm`.
fn one_side(case: &str, n: usize, warm: bool, repeat: usize) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let fixture = Fixture::parse(&echo_fixture(n)).expect("fixture");
    let calls: Vec<Bytes> = (1..=n).map(echo_call).collect();
    let run = || match case {
        "harness" => rt.block_on(harness(&fixture)),
        "raw" => rt.block_on(raw(&calls)),
        other => panic!("unknown case {other:?}: harness or raw"),
    };
    if warm {
        run();
    }
    measured(|| (0..repeat).for_each(|_| run()));
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut case, mut n, mut warm, mut repeat) = (None, 100, false, 1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--case" => case = args.next(),
            "--n" => n = args.next().and_then(|v| v.parse().ok()).expect("--n N"),
            "--warm" => warm = true,
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--repeat R")
            }
            _ => {}
        }
    }
    if let Some(case) = case {
        return one_side(&case, n, warm, repeat);
    }
    let quick = std::env::args().any(|a| a == "--quick");
    println!(
        "# mcp-replay over Streamable HTTP{}\n",
        if quick {
            " (--quick: smoke run, not for figures)"
        } else {
            ""
        }
    );
    println!("Machine at start: {}", machine());
    in_process(quick);
    proxy(quick);
    println!("\nMachine at end: {}", machine());
}
