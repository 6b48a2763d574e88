//! Section 5 of `benches/replay.rs`, the whole process: the release binaries spawned,
//! driven over their stdio and reaped with `wait4` for their CPU time and peak RSS. Unix
//! only; its own file to keep the bench's main file short.

use super::*;
use std::io::{BufRead, Read, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

pub type Stdout = std::io::BufReader<ChildStdout>;

pub struct Run {
    pub wall: Duration,
    pub answered: Duration,
    pub cpu: Duration,
    /// `ru_maxrss` from `wait4`: the process's peak (and its reaped children's), but
    /// never less than the spawner's RSS at spawn time (Linux keeps the high-water
    /// mark of the memory that `exec` replaced).
    pub max_rss_kb: i64,
    /// `VmHWM` of `/proc/PID/status` right after the answer: the peak RSS of this
    /// process alone so far, not inflated by the spawner.
    pub hwm_kb: Option<i64>,
}

/// A `kB` field of `/proc/PID/status` (`VmHWM:`, `VmRSS:`).
pub fn status_kb(pid: &str, field: &str) -> Option<i64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Spawns `cmd`, lets `talk` drive its stdin/stdout (`true`: it got its answer and the
/// process is still running), closes stdin, drains stdout and reaps it with `wait4`.
#[expect(
    clippy::zombie_processes,
    reason = "reaped with libc::wait4, which also gives its rusage"
)]
pub fn run(cmd: &mut Command, talk: impl FnOnce(&mut ChildStdin, &mut Stdout) -> bool) -> Run {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let talked = talk(&mut stdin, &mut stdout);
    let answered = start.elapsed();
    let hwm_kb = if talked {
        status_kb(&child.id().to_string(), "VmHWM:")
    } else {
        None
    };
    drop(stdin);
    let mut rest = Vec::new();
    let _ = stdout.read_to_end(&mut rest);
    let mut status = 0;
    // SAFETY: rusage is plain data; the pid is our child, reaped exactly once, here.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(reaped, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed (status {status}); output: {}",
        String::from_utf8_lossy(&rest)
    );
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Run {
        wall,
        answered,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        max_rss_kb: usage.ru_maxrss as i64,
        hwm_kb,
    }
}

pub fn line(stdin: &mut ChildStdin, text: &str) {
    stdin.write_all(text.as_bytes()).expect("write");
    stdin.write_all(b"\n").expect("write");
    stdin.flush().expect("flush");
}

pub fn answer(stdout: &mut Stdout) -> String {
    let mut answer = String::new();
    stdout.read_line(&mut answer).expect("read");
    assert!(answer.ends_with('\n'), "no answer line");
    answer
}

/// Medians of wall, until-the-answer and CPU; median `ru_maxrss`; median `VmHWM`.
pub struct Summary {
    pub wall: Duration,
    pub answered: Duration,
    pub cpu: Duration,
    pub max_rss_kb: i64,
    pub hwm_kb: Option<i64>,
}

pub fn summary(runs: &[Run]) -> Summary {
    let mid = |mut v: Vec<i64>| {
        v.sort();
        v[v.len() / 2]
    };
    let hwm: Vec<i64> = runs.iter().filter_map(|r| r.hwm_kb).collect();
    Summary {
        wall: median(runs.iter().map(|r| r.wall).collect()),
        answered: median(runs.iter().map(|r| r.answered).collect()),
        cpu: median(runs.iter().map(|r| r.cpu).collect()),
        max_rss_kb: mid(runs.iter().map(|r| r.max_rss_kb).collect()),
        hwm_kb: (!hwm.is_empty()).then(|| mid(hwm)),
    }
}

/// Section 5: the release binaries as whole processes (`mcp-replay serve`, `mcp-replay
/// replay … -- demo-server`, `demo-server` alone), wall time, CPU and peak RSS.
pub fn whole_process(quick: bool) {
    let bin_dir = std::env::current_exe()
        .expect("exe")
        .parent()
        .and_then(Path::parent)
        .expect("target/release")
        .to_owned();
    let replay_bin = bin_dir.join("mcp-replay");
    let demo_bin = bin_dir.join("demo-server");
    if !replay_bin.exists() || !demo_bin.exists() {
        println!(
            "\n## 5. Whole process: SKIPPED, build them first: \
             cargo build --release --bin mcp-replay --bin demo-server"
        );
        return;
    }
    let spawner_kb = status_kb("self", "VmRSS:").unwrap_or(0);
    let fixture = root().join("fixtures/lookup_issue.jsonl");
    let reps = if quick { 3 } else { 25 };
    let serve = || {
        run(
            Command::new(&replay_bin).arg("serve").arg(&fixture),
            |i, o| {
                line(i, LOOKUP_ISSUE);
                let a = answer(o);
                assert!(a.contains("Issue 42"), "serve answered {a}");
                true
            },
        )
    };
    let replay = || {
        run(
            Command::new(&replay_bin)
                .arg("replay")
                .arg(&fixture)
                .arg("--")
                .arg(&demo_bin),
            |_, _| false,
        )
    };
    let demo = || {
        run(&mut Command::new(&demo_bin), |i, o| {
            line(i, INITIALIZE);
            answer(o);
            line(i, INITIALIZED);
            line(i, LOOKUP_ISSUE);
            let a = answer(o);
            assert!(a.contains("Issue 42"), "demo-server answered {a}");
            true
        })
    };
    // Warm the page cache, then interleave.
    serve();
    replay();
    demo();
    let (mut s, mut r, mut d) = (vec![], vec![], vec![]);
    for _ in 0..reps {
        s.push(serve());
        r.push(replay());
        d.push(demo());
    }
    let (s, r, d) = (summary(&s), summary(&r), summary(&d));
    let mbk = |kb: i64| format!("{:.1} MB", kb as f64 / 1024.0);
    let hwm = |kb: Option<i64>| kb.map_or_else(|| "n/a".to_owned(), mbk);
    println!(
        "\n## 5. Whole process (release binaries, fixtures/lookup_issue.jsonl, {reps} interleaved runs)\n"
    );
    println!("| process | wall | until the answer | CPU user+sys | peak RSS: own VmHWM | peak RSS: wait4 ru_maxrss |");
    println!("|---|---:|---:|---:|---:|---:|");
    println!(
        "| (a) `mcp-replay serve` answering one `tools/call` | {} | {} | {} | {} | {} |",
        us(s.wall),
        us(s.answered),
        us(s.cpu),
        hwm(s.hwm_kb),
        mbk(s.max_rss_kb)
    );
    println!(
        "| (b) `mcp-replay replay … -- demo-server` (CPU of both; RSS the larger) | {} | | {} | | {} |",
        us(r.wall),
        us(r.cpu),
        mbk(r.max_rss_kb)
    );
    println!(
        "| (c) `demo-server` alone: initialize, initialized, the call | {} | {} | {} | {} | {} |",
        us(d.wall),
        us(d.answered),
        us(d.cpu),
        hwm(d.hwm_kb),
        mbk(d.max_rss_kb)
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let serve_kb = s.hwm_kb.unwrap_or(s.max_rss_kb);
    println!(
        "\nMedians. `ru_maxrss` is never below the spawner's RSS at spawn time (this process: {}). \
         Harness share of (b): {} wall, {} CPU beyond (c).\n\
         Against `mcporter replay` (280-340 ms, 96 MB): serve is {:.0}-{:.0}x faster \
         (goal ≥ 20x, ≤ ~15 ms: {}), peak RSS {} (goal ≤ 10 MB: {}); replay is {:.0}-{:.0}x faster.",
        mbk(spawner_kb),
        us(r.wall.saturating_sub(d.wall)),
        us(r.cpu.saturating_sub(d.cpu)),
        280.0 / ms(s.wall),
        340.0 / ms(s.wall),
        verdict(ms(s.wall) <= 15.0),
        mbk(serve_kb),
        verdict(serve_kb <= 10 * 1024),
        280.0 / ms(r.wall),
        340.0 / ms(r.wall),
    );
}
