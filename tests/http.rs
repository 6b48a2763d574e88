//! The command over Streamable HTTP against the rmcp demo server (`demo-server http`):
//! `replay --url` with `-- SERVER` started and waited for, `record --listen --upstream` in
//! front of it, and the proxy's answer when it goes. The tests against the external peers
//! are in mcp-replay-cli/tests/http.rs.

mod command;

use command::http::{
    free_port, record_python_session, record_session, replay_over_http, times, url, wait_for, Ran,
};
use command::{demo_server, mcp_replay, temp_dir, text, workspace};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

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

#[test]
fn the_bundled_fixtures_replay_over_http_against_the_rmcp_demo_server_in_each_mode() {
    let fixtures: Vec<std::path::PathBuf> = std::fs::read_dir(workspace().join("fixtures"))
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
    let original = std::fs::read_to_string(workspace().join("fixtures/count_up_progress.jsonl"))
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

/// `replay --url -j 8` against one server gives the verdicts `-j 1` gives: the 7 bundled
/// fixtures and 3 changed copies (a result, an error text, a tool's description), 4 times
/// each (40 sessions at once on one rmcp server). Every fixture's verdict (ok or not, each
/// finding's kind and line) is the same in both runs, and only the changed ones fail.
#[test]
fn replay_url_8_at_once_gives_the_verdicts_of_one_at_a_time() {
    let dir = temp_dir("http", "jobs");
    let bundled = workspace().join("fixtures");
    let mut fixtures: Vec<std::path::PathBuf> = std::fs::read_dir(&bundled)
        .expect("the bundled fixtures")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    for (name, from, to) in [
        ("count_up_progress", "counted to 3", "counted to three"),
        ("divide_by_zero", "division by zero", "division by nought"),
        (
            "handshake_and_tools_list",
            "reporting progress",
            "reporting its progress",
        ),
    ] {
        let text = std::fs::read_to_string(bundled.join(format!("{name}.jsonl"))).expect("read");
        assert!(text.contains(from), "{name}");
        let changed = dir.join(format!("{name}.changed.jsonl"));
        std::fs::write(&changed, text.replace(from, to)).expect("written");
        fixtures.push(changed);
    }
    fixtures.sort();
    let four: Vec<&Path> = fixtures
        .iter()
        .flat_map(|p| std::iter::repeat_n(p.as_path(), 4))
        .collect();
    let verdicts = |jobs: &str| {
        let options = ["-j", jobs, "--format", "json"];
        let (ran, _) = replay_over_http(&four, &options, |port| demo_over_http(port, None));
        let report: serde_json::Value = serde_json::from_str(&ran.out)
            .unwrap_or_else(|e| panic!("-j {jobs}: {e}: {}{}", ran.out, ran.err));
        let each: Vec<(String, bool, Vec<String>)> = report["fixtures"]
            .as_array()
            .expect("fixtures")
            .iter()
            .map(|f| {
                let findings = f["findings"].as_array().expect("findings").iter();
                let findings = findings.map(|m| format!("{} line {}", m["kind"], m["line"]));
                let name = f["fixture"].as_str().expect("a name").to_owned();
                (name, f["ok"] == true, findings.collect())
            })
            .collect();
        each
    };
    let one = verdicts("1");
    let eight = verdicts("8");
    assert_eq!(one.len(), 40);
    assert_eq!(one, eight);
    let failed: Vec<&String> = one.iter().filter(|v| !v.1).map(|v| &v.0).collect();
    assert_eq!(failed.len(), 12, "{one:?}");
    assert!(
        failed.iter().all(|f| f.ends_with(".changed.jsonl")),
        "{one:?}"
    );
}

/// The client methods of a fixture's text, in order (the replay's own handshake left out).
fn client_methods(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["direction"] == "client->server")
        .filter_map(|v| v["message"]["method"].as_str().map(str::to_owned))
        .filter(|m| m != "initialize" && m != "notifications/initialized")
        .collect()
}

/// `record --listen --sessions 32` in front of the rmcp demo server, with 32 clients at
/// once (`replay --url PROXY -j 32` of the 6 bundled fixtures with a session, in turn; the
/// 7th, `discover_and_call`, is stateless: no session id tells its clients apart): 32 fixtures,
/// recorded.jsonl and recorded-2.jsonl to recorded-32.jsonl, each one client's session
/// whole (its calls are exactly one bundled fixture's, and the 32 are the 32 sent), none
/// holding another's messages; all 32 replay green against the server.
/// The fixtures `written` hold, between them, the client calls of the fixtures `sent`:
/// each client's session in one fixture, nothing of one in another's.
fn assert_one_fixture_per_client(written: &[std::path::PathBuf], sent: &[impl AsRef<Path>]) {
    let mut recorded: Vec<Vec<String>> = written
        .iter()
        .map(|p| {
            let text =
                std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            client_methods(&text)
        })
        .collect();
    let mut expected: Vec<Vec<String>> = sent
        .iter()
        .map(|p| client_methods(&std::fs::read_to_string(p.as_ref()).expect("bundled")))
        .collect();
    recorded.sort();
    expected.sort();
    assert_eq!(recorded, expected);
}

#[test]
fn thirty_two_clients_at_once_are_recorded_each_to_its_own_fixture() {
    let dir = temp_dir("http", "record-32");
    let bundled: Vec<std::path::PathBuf> = {
        let mut all: Vec<_> = std::fs::read_dir(workspace().join("fixtures"))
            .expect("the bundled fixtures")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        all.retain(|p| !p.ends_with("discover_and_call.jsonl"));
        all.sort();
        all
    };
    assert_eq!(bundled.len(), 6);
    let sent: Vec<&Path> = bundled
        .iter()
        .cycle()
        .take(32)
        .map(|p| p.as_path())
        .collect();
    let upstream = free_port();
    let server = demo_over_http(upstream, None);
    let first = record_session(&dir, &server, upstream, &["--sessions", "32"], |proxy| {
        let mut replay = mcp_replay();
        replay
            .args(["replay", "--url", proxy, "-j", "32"])
            .args(&sent);
        replay
    });
    let mut written: Vec<std::path::PathBuf> = vec![first];
    written.extend((2..=32).map(|k| dir.join(format!("recorded-{k}.jsonl"))));
    assert_one_fixture_per_client(&written, &sent);
    let written: Vec<&Path> = written.iter().map(|p| p.as_path()).collect();
    let (ran, _) = replay_over_http(&written, &["-j", "8"], |port| demo_over_http(port, None));
    ran.assert_green(32);
}

/// 1,000 connections that send nothing, opened against `record --listen` while 8 clients
/// record through it, 8 at a time: the proxy closes each within the 10 s a connection's
/// first byte may take (while it still runs: it ends on SIGTERM), and each of the 8
/// sessions is written to its own fixture, whole.
#[test]
#[cfg(unix)]
fn silent_connections_to_the_proxy_are_closed_and_the_recordings_go_on() {
    use std::io::Read;
    let dir = temp_dir("http", "record-silent");
    let fixture = dir.join("recorded.jsonl");
    let sent: Vec<std::path::PathBuf> = ["lookup_issue", "count_up_progress", "list_and_read"]
        .iter()
        .cycle()
        .take(8)
        .map(|name| workspace().join("fixtures").join(format!("{name}.jsonl")))
        .collect();
    let upstream = free_port();
    /// A child a failing test does not leave running (nor holding the test's stdout).
    struct Running(std::process::Child);
    impl Drop for Running {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut server = Running(
        Command::new(demo_server())
            .args(["http", &format!("127.0.0.1:{upstream}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("demo-server runs"),
    );
    wait_for(upstream, &mut server.0);
    let listen = free_port();
    let mut proxy = Running(
        mcp_replay()
            .args(["record", "-o"])
            .arg(&fixture)
            .args(["--listen", &format!("127.0.0.1:{listen}")])
            .args(["--upstream", &url(upstream), "--sessions", "unlimited"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-replay runs"),
    );
    wait_for(listen, &mut proxy.0);

    let (silent, opened) = command::http::silent_connections(&format!("127.0.0.1:{listen}"));
    let replayed = mcp_replay()
        .args(["replay", "--url", &url(listen), "-j", "8"])
        .args(&sent)
        .output()
        .expect("replay runs");
    let (out, err) = text(&replayed);
    assert!(out.contains("8 passed, 0 failed"), "{out}{err}");
    command::http::assert_dropped(silent, 50, opened);
    assert!(
        proxy.0.try_wait().expect("a status").is_none(),
        "the proxy closed them, not its end"
    );

    let pid = proxy.0.id().to_string();
    let term = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(term.success());
    let mut err = String::new();
    let _ = proxy
        .0
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut err);
    let ended = proxy.0.wait().expect("the proxy ends");
    assert_eq!(ended.code(), Some(0), "{err}");
    let mut written = vec![fixture];
    written.extend((2..=8).map(|k| dir.join(format!("recorded-{k}.jsonl"))));
    assert_one_fixture_per_client(&written, &sent);
}
