//! Benchmarks of the mcp-replay harness; the results and how to read them are in
//! `docs/PERFORMANCE.md`, `scripts/bench.sh` runs this and the callgrind profile.
//!
//! `cargo bench --bench replay [-- OPTIONS]` runs every case and prints one table. Every
//! figure that has a goal is a ratio or a difference of two sides measured in this one run,
//! interleaved, as the median of several repetitions (the machine may be busy).
//!
//! ```text
//!   --case NAME   all (default) | overhead | fixed | throughput | memory | process
//!                 one side alone, for callgrind (`--toggle-collect='*measured*'`):
//!                 harness (compare-only) | harness-record | harness-auto (records on
//!                 change, the attribute's default outside CI) | raw | fixed-harness | fixed-raw |
//!                 norm-harness | norm-floor | pair (a test whose body is the client: the
//!                 raw client and the server through the pass-through, compared) |
//!                 settle | settle-list (a recording's runs against fresh servers that look
//!                 for values changing between runs: one run, or two after a tools/list) |
//!                 explore (`harness::Explore` of the demo server in process, seed 7, N
//!                 generated calls, each a session of its own)
//!   --n N         tool calls for `harness` / `raw` / `pair` / `settle` (default 100)
//!   --warm        for harness, raw, pair, fixed-harness, fixed-raw: run once before the measured
//!                 run, so that one-time costs (lazy statics) stay out
//!   --repeat R    for harness and raw: the measured run R times over (default 1), so that
//!                 a whole-process counter (`perf stat -e task-clock,page-faults`) sees the
//!                 sessions, not the process's start
//!   --protocol-off  for harness: no protocol check (`ProtocolCheck::Off`), to measure
//!                 what checking each server message costs
//!   --personal-off  for harness and norm-harness: the default rules without the
//!                 categories of personal data, to measure what looking for them costs
//!   --timeline    for harness: keep the session's timeline (`Options::timeline`) and draw
//!                 its page (`Report::to_html`), to measure what `--html` costs
//!   --quick       fewer repetitions and smaller inputs (a smoke run, not for figures)
//! ```
//!
//! Nothing here is a timed assertion: the checks only make sure that each side really did
//! the whole exchange (the replay reports no finding, every response line arrived).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

mod common;

use common::{median, median_f, pair};
use mcp_replay::{Fixture, Options, Rules};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::runtime::Runtime;

// ---------------------------------------------------------------------------------------
// A counting allocator: bytes currently allocated and their peak, while enabled.

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

fn count(delta: isize) {
    if COUNTING.load(Relaxed) {
        let now = CURRENT.fetch_add(delta, Relaxed) + delta;
        PEAK.fetch_max(now, Relaxed);
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; only counters move.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        count(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` with the counters on, from zero: (peak bytes, bytes still held after, result).
/// Memory freed that was allocated before `f` counts negative, so the peak is the highest
/// net growth of the heap during `f`.
fn heap<T>(f: impl FnOnce() -> T) -> (isize, isize, T) {
    CURRENT.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    COUNTING.store(true, Relaxed);
    let out = f();
    COUNTING.store(false, Relaxed);
    (PEAK.load(Relaxed), CURRENT.load(Relaxed), out)
}

// ---------------------------------------------------------------------------------------
// The two sides: the harness replaying a fixture, and a raw client doing the same exchange.

/// What the harness sends for its session setup of a fixture without a handshake.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"mcp-replay","version":"0.1.0"},"protocolVersion":"2025-11-25"}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LOOKUP_ISSUE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}"#;

/// A fixture of `n` one-at-a-time `tools/call echo` exchanges (2n lines).
fn echo_fixture(n: usize) -> String {
    let mut text = String::with_capacity(n * 230);
    for i in 1..=n {
        text.push_str(&format!(
            concat!(
                r#"{{"direction":"client->server","message":{{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi {i}"}}}}}}}}"#,
                "\n",
                r#"{{"direction":"server->client","message":{{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{{"content":[{{"type":"text","text":"hi {i}"}}]}}}}}}"#,
                "\n"
            ),
            i = i
        ));
    }
    text
}

/// The raw client's request lines for the same `n` calls, live ids 1..=n.
fn echo_calls(n: usize) -> Vec<String> {
    (1..=n)
        .map(|i| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi {i}"}}}}}}"#
            )
        })
        .collect()
}

/// Serves a fresh `DemoServer` on the harness's transport until it closes.
async fn serve_demo(transport: mcp_replay::Transport) -> Result<(), String> {
    let running = DemoServer::default()
        .serve(transport)
        .await
        .map_err(|e| e.to_string())?;
    running.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}

/// The harness: replays `fixture` against a fresh `DemoServer`; panics on any finding.
/// `--personal-off`: the default rules without the categories of personal data, to
/// measure what looking for personal data costs.
static PERSONAL_OFF: AtomicBool = AtomicBool::new(false);

/// The rules of the harness cases: the defaults, or with `--personal-off` the defaults
/// without the personal data categories.
fn bench_rules() -> Rules {
    let mut rules = Rules::default();
    if PERSONAL_OFF.load(Relaxed) {
        for category in mcp_replay::personal::CATEGORIES {
            rules = rules.without(category);
        }
    }
    rules
}

/// The recording of the echo session (`list`: after a `tools/list`), as a replay of its
/// client lines writes it.
async fn recording(n: usize, list: bool) -> Fixture {
    let mut lines = String::new();
    if list {
        lines.push_str(r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#);
        lines.push('\n');
    }
    lines.extend(
        echo_fixture(n)
            .lines()
            .filter(|l| l.contains("client->server"))
            .map(|l| format!("{l}\n")),
    );
    let lines = Fixture::parse(&lines).expect("client lines");
    let report = lines.replay().rules(&bench_rules()).run(serve_demo).await;
    report.recorded().expect("a recording").clone()
}

async fn harness_replay(fixture: &Fixture, options: &Options) {
    let report = fixture
        .replay()
        .rules(&bench_rules())
        .options(options)
        .run(serve_demo)
        .await;
    assert!(report.is_ok(), "the replay failed:\n{report}");
    if let Some(page) = report.to_html() {
        black_box(page);
    }
}

async fn send_line<W: AsyncWrite + Unpin>(writer: &mut W, line: &str) {
    writer.write_all(line.as_bytes()).await.expect("write");
    writer.write_all(b"\n").await.expect("write");
    writer.flush().await.expect("flush");
}

/// The floor: a hand-written client on the same kind of pipe (`duplex(64 KiB)`) writes the
/// harness's initialize + initialized, then each call, and reads each response line. No
/// normalization, no comparison. Returns the messages exchanged (both directions).
async fn raw_session(calls: &[String]) -> usize {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(async move {
        let running = DemoServer::default()
            .serve(server_io)
            .await
            .expect("session setup");
        let _ = running.waiting().await;
    });
    let messages = raw_client(client_io, calls).await;
    server.await.expect("server task");
    messages
}

/// The raw client of [`raw_session`] on any stream: initialize, initialized, each call,
/// each response read; then its output closed.
async fn raw_client<S: AsyncRead + AsyncWrite>(client_io: S, calls: &[String]) -> usize {
    let (read, mut write) = tokio::io::split(client_io);
    let mut read = BufReader::new(read);
    let mut line = Vec::with_capacity(1024);
    let mut messages = 0;
    send_line(&mut write, INITIALIZE).await;
    line.clear();
    read.read_until(b'\n', &mut line).await.expect("read");
    assert!(line.ends_with(b"\n"), "no initialize result");
    send_line(&mut write, INITIALIZED).await;
    messages += 3;
    for call in calls {
        send_line(&mut write, call).await;
        line.clear();
        read.read_until(b'\n', &mut line).await.expect("read");
        assert!(line.ends_with(b"\n"), "no response to {call}");
        messages += 2;
    }
    write.shutdown().await.expect("shutdown");
    messages
}

/// A test whose body is the client (`harness::Target::pair`): the raw client of
/// [`raw_session`] and the demo server on the two transports, every line passed through
/// and kept, the exchange compared with `fixture` under the options of a test run
/// (`record_on_change`, `MCP_FIXTURE_UPDATE` unset); it must pass. `None`: the fixture is
/// the echo fixture without the handshake, and the recording comes back, to be the
/// fixture of the measured runs.
async fn pair_session(fixture: &Fixture, calls: &[String], measured: bool) -> Option<Fixture> {
    let calls = calls.to_vec();
    let target = mcp_replay::harness::Target::pair(move |server, client| async move {
        let serving = tokio::spawn(async move {
            let running = DemoServer::default()
                .serve(server)
                .await
                .expect("session setup");
            let _ = running.waiting().await;
        });
        raw_client(client, &calls).await;
        serving.await.expect("server task");
    });
    let options = Options::new().record_on_change();
    let report = target
        .replay(fixture, &bench_rules(), &options)
        .await
        .expect("a pass-through");
    if measured {
        assert!(report.is_ok(), "{report}");
        black_box(report);
        None
    } else {
        report.recorded().cloned()
    }
}

// ---------------------------------------------------------------------------------------
// Timing helpers.

/// The function callgrind collects in (`--toggle-collect='*measured*'`).
#[inline(never)]
fn measured<T>(f: impl FnOnce() -> T) -> T {
    black_box(f())
}

fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let start = Instant::now();
    let out = measured(f);
    (start.elapsed(), out)
}

fn us(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 100_000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else if us >= 100.0 {
        format!("{us:.0} µs")
    } else {
        format!("{us:.1} µs")
    }
}

fn mb(bytes: isize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**NOT met**"
    }
}

fn runtime() -> Runtime {
    // `#[tokio::test]`'s default flavor: everything on one thread, like a test.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The repository's root, where the bundled fixtures are (`fixtures/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the demo is in the workspace")
        .to_owned()
}

fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| "?".into());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    format!("{cpus} CPUs, {model}, load average {}", load.join(" "))
}

// ---------------------------------------------------------------------------------------
// 1. In-process overhead per call.

fn overhead(quick: bool) {
    let rt = runtime();
    let sizes: &[(usize, usize)] = if quick {
        &[(1, 20), (100, 5), (1_000, 1)]
    } else {
        &[(1, 200), (100, 30), (10_000, 5)]
    };
    println!("\n## 1. In-process overhead (current-thread runtime, duplex(64 KiB))\n");
    println!("| N calls | harness | raw client | harness per call | raw per call | harness/raw (median of per-run ratios) | goal ≤ 1.2x |");
    println!("|---:|---:|---:|---:|---:|---:|---|");
    let mut big = None;
    let mut recording = None;
    for &(n, reps) in sizes {
        // What a test runs: `#[mcp_fixture]` replays without recording unless re-recording.
        let recorded = Fixture::parse(&echo_fixture(n)).expect("fixture");
        let fixture = recorded.clone();
        let compare = Options::new().without_recording();
        let calls = echo_calls(n);
        let p = pair(
            reps,
            || timed(|| rt.block_on(harness_replay(&fixture, &compare))).0,
            || timed(|| rt.block_on(raw_session(&calls))).0,
        );
        println!(
            "| {n} | {} | {} | {} | {} | {:.2}x | {} |",
            us(p.a),
            us(p.b),
            us(p.a / n as u32),
            us(p.b / n as u32),
            p.ratio,
            verdict(p.ratio <= 1.2)
        );
        if n == 100 {
            let r = pair(
                reps,
                || timed(|| rt.block_on(harness_replay(&recorded, &Options::new()))).0,
                || timed(|| rt.block_on(raw_session(&calls))).0,
            );
            recording = Some((n, r));
        }
        big = Some((n, p));
    }
    if let Some((n, r)) = recording {
        println!(
            "\nA replay that also records (`Fixture::replay` as is, or `MCP_FIXTURE_UPDATE`), N = {n}: \
             {} per call against the raw client's {}: {:.2}x.",
            us(r.a / n as u32),
            us(r.b / n as u32),
            r.ratio
        );
    }
    if let Some((n, p)) = big {
        let messages = (2 * n + 3) as f64;
        let h = messages / p.a.as_secs_f64();
        let r = messages / p.b.as_secs_f64();
        println!(
            "\nN = {n}: {} messages both ways (initialize, its result, initialized, {n} calls, {n} responses): \
             harness **{h:.0} messages/s**, raw client {r:.0} messages/s (goal ≥ 100 000 messages/s: {}).",
            2 * n + 3,
            verdict(h >= 100_000.0)
        );
    }
}

// ---------------------------------------------------------------------------------------
// 2. Per-test fixed cost.

/// One `#[mcp_fixture]` runtime path run of `lookup_issue` (load, rules, replay, finish).
fn macro_once(rt: &Runtime) -> Duration {
    timed(|| {
        rt.block_on(async {
            mcp_replay::harness::Test::new(
                concat!(env!("CARGO_MANIFEST_DIR"), "/.."),
                "lookup_issue",
                "bench::lookup_issue",
            )
            .mode(mcp_replay::_support::update::UpdateMode::No)
            .serve(serve_demo)
            .await
            .expect("lookup_issue replays green")
        })
    })
    .0
}

/// One raw-client run of the same exchange.
fn raw_once(rt: &Runtime) -> Duration {
    timed(|| rt.block_on(raw_session(&[LOOKUP_ISSUE.to_owned()]))).0
}

/// The first run of each side in a fresh process (`--case first-macro` / `first-raw` of
/// this binary), `reps` processes each, alternating: what every test pays under
/// `cargo nextest`, which runs each test in its own process. Medians.
fn first_runs(reps: usize) -> (Duration, Duration) {
    let exe = std::env::current_exe().expect("the bench binary's path");
    let run = |case: &str| {
        let out = std::process::Command::new(&exe)
            .args(["--case", case])
            .output()
            .expect("run the bench binary");
        assert!(out.status.success(), "{case}: {out:?}");
        let nanos: u64 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("nanoseconds");
        Duration::from_nanos(nanos)
    };
    let (mut m, mut r) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        m.push(run("first-macro"));
        r.push(run("first-raw"));
    }
    (median(m), median(r))
}

fn fixed(quick: bool) {
    let rt = runtime();
    let path = root().join("fixtures/lookup_issue.jsonl");
    let reps = if quick { 20 } else { 300 };

    let load_and_replay = || {
        timed(|| {
            rt.block_on(async {
                let fixture = Fixture::load(&path).expect("fixture");
                harness_replay(&fixture, &Options::new()).await;
            })
        })
        .0
    };
    let raw = || raw_once(&rt);
    let macro_path = || macro_once(&rt);
    let (first_macro, first_raw) = first_runs(if quick { 3 } else { 21 });
    let m = pair(reps, macro_path, raw);
    let p = pair(reps, load_and_replay, raw);
    let runtime_build = median((0..reps.min(100)).map(|_| timed(runtime).0).collect());
    let extra = p.a.saturating_sub(p.b);
    let extra_macro = m.a.saturating_sub(m.b);
    println!("\n## 2. Per-test fixed cost (fixtures/lookup_issue.jsonl: session setup + 1 call)\n");
    println!(
        "| side | median (warm) | first run in a fresh process (median of separate processes) |"
    );
    println!("|---|---:|---:|");
    println!(
        "| raw client (initialize, initialized, 1 call) | {} | {} |",
        us(p.b),
        us(first_raw)
    );
    println!("| `Fixture::load` + `replay` | {} | (warm) |", us(p.a),);
    println!(
        "| `#[mcp_fixture]` path (`harness::Test`: load, rules, replay, conclude) | {} | {} |",
        us(m.a),
        us(first_macro)
    );
    println!(
        "| (for scale) building the test's current-thread runtime | {} | |",
        us(runtime_build)
    );
    println!(
        "\nHarness beyond the raw client: load + replay **{}** ({:.2}x), macro path **{}** ({:.2}x); \
         goal ≤ 200 µs: {}.",
        us(extra),
        p.ratio,
        us(extra_macro),
        m.ratio,
        verdict(extra_macro <= Duration::from_micros(200))
    );
    let extra_first = first_macro.saturating_sub(first_raw);
    println!(
        "First run in a fresh process (every test under `cargo nextest`): macro path **{}** beyond \
         the raw client's first run; goal ≤ 200 µs: {}.",
        us(extra_first),
        verdict(extra_first <= Duration::from_micros(200))
    );
}

// ---------------------------------------------------------------------------------------
// 3. Normalization + comparison throughput.

/// The lines of two bundled fixtures, repeated to at least `target` bytes.
fn realistic_text(target: usize) -> String {
    let mut base = String::new();
    for name in ["handshake_and_tools_list", "count_up_progress"] {
        let text = std::fs::read_to_string(root().join(format!("fixtures/{name}.jsonl")))
            .expect("bundled fixture");
        base.push_str(text.trim_end());
        base.push('\n');
    }
    let mut text = String::with_capacity(target + base.len());
    while text.len() < target {
        text.push_str(&base);
    }
    text
}

/// What a server would send for each server line of `fixture`: the message with its id
/// an integer (a live id), keys in the server's own order.
fn server_lines(fixture: &Fixture) -> Vec<(usize, String)> {
    fixture
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.direction() == mcp_replay::fixture::Direction::ServerToClient)
        .map(|(i, e)| {
            let mut message = e.message();
            if let Some(id) = message.get_mut("id") {
                *id = Value::from(i);
            }
            (i, serde_json::to_string(&message).expect("serializes"))
        })
        .collect()
}

fn throughput(quick: bool) {
    let text = realistic_text(if quick { 1_000_000 } else { 10_000_000 });
    let reps = if quick { 3 } else { 7 };
    let rules = Rules::default();
    let bytes = text.len() as f64;
    let lines = text.lines().count();
    let fixture = Fixture::parse(&text).expect("fixture");
    let served = server_lines(&fixture);
    let served_bytes: usize = served.iter().map(|(_, l)| l.len()).sum();
    let entries = fixture.entries();

    // The floor: parse each line and write it back.
    let floor_of = |lines: &mut dyn Iterator<Item = &str>| {
        timed(|| {
            let mut out = 0;
            for line in lines {
                let v: Value = serde_json::from_str(line).expect("json");
                out += serde_json::to_string(&v).expect("serializes").len();
            }
            out
        })
        .0
    };
    let (mut t_load, mut t_compare, mut t_floor, mut t_served_floor) =
        (vec![], vec![], vec![], vec![]);
    let (mut ratios, mut load_ratios) = (vec![], vec![]);
    for _ in 0..reps {
        let floor = floor_of(&mut text.lines());
        let served_floor = floor_of(&mut served.iter().map(|(_, l)| l.as_str()));
        // The harness: load the fixture (parse, validate, correlate, keep canonical text),
        // then compare every server message a server sends with its fixture line, as the
        // replay does.
        let (load, parsed) = timed(|| Fixture::parse(&text).expect("fixture"));
        drop(parsed);
        let (compare, equal) = timed(|| {
            served
                .iter()
                .all(|(i, line)| mcp_replay::internals::line_matches(&rules, &entries[*i], line))
        });
        assert!(equal, "every server line matches its fixture line");
        ratios.push(served_floor.as_secs_f64() / compare.as_secs_f64());
        load_ratios.push(floor.as_secs_f64() / load.as_secs_f64());
        t_load.push(load);
        t_compare.push(compare);
        t_floor.push(floor);
        t_served_floor.push(served_floor);
    }
    let (load, compare, floor, served_floor) = (
        median(t_load),
        median(t_compare),
        median(t_floor),
        median(t_served_floor),
    );
    let served_mbs = |d: Duration| served_bytes as f64 / 1e6 / d.as_secs_f64();
    let mbs = |d: Duration| bytes / 1e6 / d.as_secs_f64();
    let ratio = median_f(ratios);
    println!(
        "\n## 3. Normalization + comparison throughput ({:.1} MB, {lines} lines of handshake_and_tools_list + count_up_progress)\n",
        bytes / 1e6
    );
    println!("| bytes | step | median | MB/s | / floor |");
    println!("|---|---|---:|---:|---:|");
    println!(
        "| the {} server messages as a server sends them ({:.1} MB) | **normalize + compare** with their fixture lines (the replay's per-message work) | {} | {:.0} | **{ratio:.2}x** |",
        served.len(),
        served_bytes as f64 / 1e6,
        us(compare),
        served_mbs(compare)
    );
    println!(
        "| the same | floor: `serde_json::from_str::<Value>` + `to_string`, line by line | {} | {:.0} | |",
        us(served_floor),
        served_mbs(served_floor)
    );
    println!(
        "| the fixture ({:.1} MB) | `Fixture::parse` (JSON parse, validation, id correlation, canonical text), once per test | {} | {:.0} | {:.2}x |",
        bytes / 1e6,
        us(load),
        mbs(load),
        median_f(load_ratios)
    );
    println!("| the same | floor | {} | {:.0} | |", us(floor), mbs(floor));
    println!(
        "\nNormalization + comparison / floor on the same bytes: **{ratio:.2}x** (median of per-run ratios; \
         goal ≥ 0.5x: {}). Loading the fixture and comparing together: {:.0} MB/s of fixture.",
        verdict(ratio >= 0.5),
        mbs(load + compare)
    );
}

// ---------------------------------------------------------------------------------------
// 4. Memory.

fn memory(quick: bool) {
    let messages = if quick { 10_000 } else { 100_000 };
    let calls = messages / 2;
    let text = echo_fixture(calls);
    let size = text.len() as isize;
    let rt = runtime();

    let (parse_peak, parse_held, fixture) = heap(|| Fixture::parse(&text).expect("fixture"));
    let file = std::env::temp_dir().join(format!("mcp-replay-bench-{}.jsonl", std::process::id()));
    std::fs::write(&file, &text).expect("write the fixture file");
    let (load_peak, load_held, loaded) = heap(|| Fixture::load(&file).expect("load"));
    let _ = std::fs::remove_file(&file);
    assert_eq!(loaded.entries().len(), messages);
    drop(loaded);
    let (values_peak, _, values) = heap(|| {
        text.lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("json"))
            .collect::<Vec<_>>()
    });
    drop(values);
    let compare_only = Options::new().without_recording();
    let (compare_peak, _, ()) = heap(|| rt.block_on(harness_replay(&fixture, &compare_only)));
    // What `#[mcp_fixture]` does by default outside CI (`MCP_FIXTURE_UPDATE` unset, `auto`):
    // it records, but a passing replay makes no recorded fixture.
    let on_change = Options::new().record_on_change();
    let (on_change_peak, _, ()) = heap(|| rt.block_on(harness_replay(&fixture, &on_change)));
    let (replay_peak, _, ()) = heap(|| rt.block_on(harness_replay(&fixture, &Options::new())));
    // The whole re-recording: the replay, its recorded fixture, and writing it (secret
    // scan, canonical text, temp file + rename).
    let out =
        std::env::temp_dir().join(format!("mcp-replay-bench-rec-{}.jsonl", std::process::id()));
    let (rerecord_peak, _, ()) = heap(|| {
        let report = rt.block_on(fixture.replay().run(serve_demo));
        let recorded = report.recorded().expect("a green replay records");
        mcp_replay::_support::update::write_fixture(
            recorded,
            &out,
            mcp_replay::_support::update::UpdateMode::Always,
        )
        .expect("write the recording");
    });
    let _ = std::fs::remove_file(&out);
    let lines = echo_calls(calls);
    let (raw_peak, _, _) = heap(|| rt.block_on(raw_session(&lines)));
    let x = |b: isize| b as f64 / size as f64;
    println!(
        "\n## 4. Memory ({messages} messages = {calls} echo calls; fixture text {})\n",
        mb(size)
    );
    println!("| what | peak heap | × fixture size | goal ≤ 2x |");
    println!("|---|---:|---:|---|");
    // One row: what, its peak, and (for the measures the goal is about) the verdict.
    let row = |what: &str, bytes: isize, goal: bool| {
        let verdict = if goal { verdict(x(bytes) <= 2.0) } else { "" };
        println!("| {what} | {} | {:.2}x | {verdict} |", mb(bytes), x(bytes));
    };
    row(
        &format!("`Fixture::parse` (held after: {})", mb(parse_held)),
        parse_peak,
        true,
    );
    row(
        &format!(
            "`Fixture::load` of the same text from a file (held after: {})",
            mb(load_held)
        ),
        load_peak,
        true,
    );
    row(
        "(floor: one `serde_json::Value` per line)",
        values_peak,
        false,
    );
    row(
        "compare-only `replay` (`without_recording`, what `#[mcp_fixture]` does under CI), beyond the parsed fixture",
        compare_peak,
        false,
    );
    row(
        "passing `replay` that records on change (`record_on_change`, what `#[mcp_fixture]` does outside CI), beyond the parsed fixture",
        on_change_peak,
        false,
    );
    row(
        "`replay` that also records (`Report::recorded`, re-recording), beyond the parsed fixture",
        replay_peak,
        false,
    );
    row(
        &format!("(raw client + DemoServer, same {calls} calls)"),
        raw_peak,
        false,
    );
    row(
        "**a test**: the loaded fixture + its compare-only replay",
        load_held + compare_peak,
        true,
    );
    row(
        "**a test outside CI**: the loaded fixture + its replay that records on change",
        load_held + on_change_peak,
        true,
    );
    row(
        "a replay that records: the parsed fixture + the replay",
        parse_held + replay_peak,
        true,
    );
    row(
        "a whole re-recording: the parsed fixture + the replay, `Report::recorded` and `write_fixture`",
        parse_held + rerecord_peak,
        true,
    );
}

// ---------------------------------------------------------------------------------------
// 5. Whole process: `replay/process.rs`.

#[cfg(unix)]
#[path = "replay/process.rs"]
mod process;
#[cfg(unix)]
use process::whole_process;

#[cfg(not(unix))]
fn whole_process(_quick: bool) {
    println!("\n## 5. Whole process: SKIPPED (needs wait4, unix only)");
}

// ---------------------------------------------------------------------------------------

fn main() {
    let mut case = "all".to_owned();
    let mut n = 100usize;
    let mut quick = false;
    let mut warm = false;
    let mut repeat = 1usize;
    let mut protocol_off = false;
    let mut timeline = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--case" => case = args.next().expect("--case NAME"),
            "--n" => n = args.next().and_then(|v| v.parse().ok()).expect("--n N"),
            "--quick" => quick = true,
            "--warm" => warm = true,
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--repeat R")
            }
            "--protocol-off" => protocol_off = true,
            "--timeline" => timeline = true,
            "--personal-off" => PERSONAL_OFF.store(true, Relaxed),
            "--bench" => {} // what `cargo bench` passes
            other => panic!("unknown argument {other:?}; see the top of benches/replay.rs"),
        }
    }
    match case.as_str() {
        // One side alone, run once, for callgrind: the work is inside `measured`.
        "harness" | "harness-record" | "harness-auto" => {
            let rt = runtime();
            let fixture = Fixture::parse(&echo_fixture(n)).expect("fixture");
            let mut options = Options::new();
            if case == "harness" {
                options = options.without_recording();
            }
            if case == "harness-auto" {
                options = options.record_on_change();
            }
            if protocol_off {
                options = options.protocol_check(mcp_replay::ProtocolCheck::Off);
            }
            if timeline {
                options = options.timeline(true);
            }
            if warm {
                rt.block_on(harness_replay(&fixture, &options));
            }
            measured(|| {
                for _ in 0..repeat {
                    rt.block_on(harness_replay(&fixture, &options));
                }
            });
        }
        "raw" => {
            let rt = runtime();
            let calls = echo_calls(n);
            if warm {
                rt.block_on(raw_session(&calls));
            }
            measured(|| {
                for _ in 0..repeat {
                    rt.block_on(raw_session(&calls));
                }
            });
        }
        // Exploring the demo server in process: N calls, each a fresh server and session.
        "explore" => {
            let rt = runtime();
            let explore = mcp_replay::harness::Explore::new().seed(7).calls(n);
            let run = || {
                let found = rt
                    .block_on(explore.serve(serve_demo))
                    .expect("the demo lists its tools");
                assert!(found.findings().is_empty(), "{found}");
                black_box(found);
            };
            if warm {
                run();
            }
            measured(|| {
                for _ in 0..repeat {
                    run();
                }
            });
        }
        // The pass-through of a test whose body is the client, for callgrind.
        "pair" => {
            let rt = runtime();
            let calls = echo_calls(n);
            let fixture = Fixture::parse(&echo_fixture(n)).expect("fixture");
            let fixture = rt
                .block_on(pair_session(&fixture, &calls, false))
                .expect("a recording");
            if warm {
                rt.block_on(pair_session(&fixture, &calls, true));
            }
            measured(|| {
                for _ in 0..repeat {
                    rt.block_on(pair_session(&fixture, &calls, true));
                }
            });
        }
        // A recording's runs that look for values changing between runs
        // (`harness::settle`), for callgrind: the echo session alone (no list: one run),
        // or after a `tools/list` (the demo's five tools: two runs).
        "settle" | "settle-list" => {
            let rt = runtime();
            let recorded = rt.block_on(recording(n, case == "settle-list"));
            let settle = || async {
                let mut again = || Some(mcp_replay::harness::Target::serve_each(serve_demo));
                let (settled, note) = mcp_replay::_support::settle(
                    &recorded,
                    &mut again,
                    &bench_rules(),
                    &Options::new(),
                )
                .await
                .expect("the runs");
                assert!(note.is_none(), "the demo server mints nothing: {note:?}");
                black_box(settled);
            };
            if warm {
                rt.block_on(settle());
            }
            measured(|| {
                for _ in 0..repeat {
                    rt.block_on(settle());
                }
            });
        }
        "first-macro" => println!("{}", macro_once(&runtime()).as_nanos()),
        "first-raw" => println!("{}", raw_once(&runtime()).as_nanos()),
        "fixed-harness" => {
            let rt = runtime();
            let path = root().join("fixtures/lookup_issue.jsonl");
            let once = || {
                rt.block_on(async {
                    let fixture = Fixture::load(&path).expect("fixture");
                    harness_replay(&fixture, &Options::new()).await;
                })
            };
            if warm {
                once();
            }
            measured(once);
        }
        // Case 3 for callgrind: normalization + comparison of the server lines of 1 MB of
        // fixture, and the floor on the same server lines.
        "norm-harness" => {
            let text = realistic_text(1_000_000);
            let rules = bench_rules();
            let fixture = Fixture::parse(&text).expect("fixture");
            let served = server_lines(&fixture);
            let entries = fixture.entries();
            let equal = measured(|| {
                served.iter().all(|(i, line)| {
                    mcp_replay::internals::line_matches(&rules, &entries[*i], line)
                })
            });
            assert!(equal);
        }
        "norm-floor" => {
            let text = realistic_text(1_000_000);
            let served = server_lines(&Fixture::parse(&text).expect("fixture"));
            measured(|| {
                let mut out = 0;
                for (_, line) in &served {
                    let v: Value = serde_json::from_str(line).expect("json");
                    out += serde_json::to_string(&v).expect("serializes").len();
                }
                out
            });
        }
        "fixed-raw" => {
            let rt = runtime();
            let calls = vec![LOOKUP_ISSUE.to_owned()];
            if warm {
                rt.block_on(raw_session(&calls));
            }
            measured(|| {
                for _ in 0..repeat {
                    rt.block_on(raw_session(&calls));
                }
            });
        }
        "all" | "overhead" | "fixed" | "throughput" | "memory" | "process" => {
            println!(
                "# mcp-replay benchmarks{}\n",
                if quick {
                    " (--quick: smoke run, not for figures)"
                } else {
                    ""
                }
            );
            println!("Machine at start: {}", machine());
            let all = case == "all";
            // Whole processes first, while this process is small (its RSS at spawn time is
            // a floor of the children's ru_maxrss); the fixed cost next, so that its first
            // run pays the process-wide one-time costs as a test binary's first test does.
            if all || case == "process" {
                whole_process(quick);
            }
            if all || case == "fixed" {
                fixed(quick);
            }
            if all || case == "overhead" {
                overhead(quick);
            }
            if all || case == "throughput" {
                throughput(quick);
            }
            if all || case == "memory" {
                memory(quick);
            }
            println!("\nMachine at end: {}", machine());
        }
        other => panic!("unknown case {other:?}; see the top of benches/replay.rs"),
    }
}
