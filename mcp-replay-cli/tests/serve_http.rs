//! `mcp-replay serve --http`: real clients over Streamable HTTP against the fixture's mock.
//! The Python SDK's and the TypeScript SDK's tour clients (`--url`) replay the client
//! matrix's recordings (`tests/fixtures/matrix/<client>.jsonl`, recorded over stdio from a
//! live server-everything) and must print what they printed live (`<client>.observed`),
//! with a clean report (exit 0); a client that asks for something else gets the mock's
//! error, and the report names the mismatch (exit 1). The Python client ends its session
//! with a DELETE, the TypeScript client just goes away (the idle end).
//!
//! Each client runs `MCP_REPLAY_HTTP_RUNS` times in a row (3 unless set). The peers are
//! installed on first use (`mcp_replay_peers`).

mod common;

use common::http::runs;
use common::{temp_dir, text, tour_client, workspace, HttpServe};
use std::process::Command;

fn matrix(name: &str) -> String {
    let path = workspace().join("tests/fixtures/matrix").join(name);
    path.display().to_string()
}

/// Runs `client --url URL` against `serve --http FIXTURE`: the client's exit code and
/// stdout, serve's exit code and stderr.
fn session(client: &[String], fixture: &str) -> (Option<i32>, String, String, Option<i32>, String) {
    let serve = HttpServe::start(&[fixture]);
    let output = Command::new(&client[0])
        .args(&client[1..])
        .args(["--url", &serve.url])
        .output()
        .expect("the client starts");
    let (stdout, client_err) = text(&output);
    let (code, serve_err) = serve.finish();
    (output.status.code(), stdout, client_err, code, serve_err)
}

fn green(which: &str, recording: &str) {
    let client = tour_client(which);
    let fixture = matrix(&format!("{recording}.jsonl"));
    let observed = std::fs::read_to_string(matrix(&format!("{recording}.observed"))).unwrap();
    for run in 1..=runs() {
        let (client_code, stdout, client_err, code, report) = session(&client, &fixture);
        let context =
            format!("run {run} of {which}:\nclient stderr:\n{client_err}\nserve stderr:\n{report}");
        assert_eq!(client_code, Some(0), "{context}");
        assert_eq!(stdout, observed, "{context}");
        assert_eq!(code, Some(0), "{context}");
        assert!(report.contains(": ok"), "{context}");
    }
}

#[test]
fn the_python_sdk_client_replays_green_over_http() {
    green("python-tour-client", "python");
}

#[test]
fn the_typescript_sdk_client_replays_green_over_http() {
    green("ts-tour-client", "ts");
}

#[test]
fn a_client_asking_for_something_else_gets_an_error_and_a_finding() {
    let client = tour_client("python-tour-client");
    let recorded = std::fs::read_to_string(matrix("python.jsonl")).unwrap();
    let changed = recorded.replace("hello from the tour", "hello from the recording");
    assert_ne!(changed, recorded);
    let fixture = temp_dir("serve-http", "red").join("changed.jsonl");
    std::fs::write(&fixture, changed).unwrap();
    let (client_code, _, client_err, code, report) =
        session(&client, &fixture.display().to_string());
    let context = format!("client stderr:\n{client_err}\nserve stderr:\n{report}");
    assert_eq!(client_code, Some(1), "{context}");
    assert!(client_err.contains("mcp-replay:"), "{context}");
    assert_eq!(code, Some(1), "{context}");
    assert!(
        report.contains("did not match next expected tools/call"),
        "{context}"
    );
    assert!(report.contains("hello from the tour"), "{context}");
}

#[test]
fn an_address_in_use_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let fixture = matrix("python.jsonl");
    let output = common::mcp_replay()
        .args(["serve", "--http", &addr, &fixture])
        .output()
        .unwrap();
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );
}

/// A client with no connection open for longer than the idle end (2 s) before it has sent
/// every recorded message may come back (pooled connections close between a person's
/// clicks): the session waits for it (10 s), answers it, and ends 2 s after the last one.
#[test]
fn a_client_that_comes_back_before_the_recording_is_played_is_still_served() {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let dir = temp_dir("serve_http", "comes-back");
    let fixture = dir.join("two.jsonl");
    std::fs::write(
        &fixture,
        concat!(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"server/discover"}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"tiny","version":"1"}}}}"#,
            "\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#,
            "\n",
        ),
    )
    .expect("written");
    let serve = HttpServe::start(&[fixture.to_str().expect("a UTF-8 path")]);
    let address = serve
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    // One request per connection, as a client whose pool has let its connections go.
    let post = |body: &str| {
        let mut stream = std::net::TcpStream::connect(&address).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("a timeout");
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("written");
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    };
    let discovered = post(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#);
    assert!(discovered.contains("supportedVersions"), "{discovered}");
    std::thread::sleep(Duration::from_secs(4));
    let listed = post(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert!(listed.contains(r#""tools":[]"#), "{listed}");
    let began = Instant::now();
    let (code, report) = serve.finish();
    assert_eq!(code, Some(0), "{report}");
    assert!(report.contains(": ok"), "{report}");
    // Played: the idle end's 2 s, not the 10 s an unplayed session waits.
    assert!(
        began.elapsed() < Duration::from_secs(8),
        "{:?}",
        began.elapsed()
    );
}

/// `POST /mcp` of `body` on a connection of its own (with `session` as its
/// `Mcp-Session-Id`): the whole answer, head and body.
fn post(address: &str, session: Option<&str>, body: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).expect("connects");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("a timeout");
    let session = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\n{session}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("written");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

/// The `Mcp-Session-Id` of an answer's head, if it has one.
fn session_of(answer: &str) -> Option<String> {
    answer.lines().take_while(|l| !l.is_empty()).find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_owned())
    })
}

/// With one session (the default), a second client's `initialize` is refused with 503
/// while the first session runs: it is not handed the first client's `Mcp-Session-Id`
/// (as it was when one front served every request), and the first session goes on clean.
#[test]
fn a_second_client_of_a_one_session_serve_is_refused_not_given_the_first_session() {
    let dir = temp_dir("serve_http", "second-client");
    let fixture = dir.join("handshake.jsonl");
    std::fs::write(
        &fixture,
        concat!(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"tiny","version":"1"}}}}"#,
            "\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
            "\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#,
            "\n",
        ),
    )
    .expect("written");
    let serve = HttpServe::start(&[fixture.to_str().expect("a UTF-8 path")]);
    let address = serve
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let first = post(&address, None, initialize);
    let ours = session_of(&first).expect("the first client has a session");
    let second = post(&address, None, initialize);
    assert!(second.starts_with("HTTP/1.1 503"), "{second}");
    assert_eq!(session_of(&second), None, "{second}");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert!(post(&address, Some(&ours), initialized).starts_with("HTTP/1.1 202"));
    let listed = post(
        &address,
        Some(&ours),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert!(listed.contains(r#""tools":[]"#), "{listed}");
    let (code, report) = serve.finish();
    assert_eq!(code, Some(0), "{report}");
    assert!(report.contains(": ok"), "{report}");
}

/// `serve --http --sessions 300` against 300 replays of the same fixture, 32 at a time
/// (`replay --url -j 32`: each its own `initialize`, session id, request ids and progress
/// tokens): every replay gets exactly its own session's answers and every session is clean.
#[test]
fn many_clients_at_once_each_walk_their_own_session() {
    let fixture = workspace().join("fixtures/count_up_progress.jsonl");
    let fixture = fixture.to_str().expect("a UTF-8 path");
    let serve = HttpServe::start(&["--sessions", "300", fixture]);
    let replayed = common::mcp_replay()
        .args(["replay", "--url", &serve.url, "-j", "32"])
        .args(std::iter::repeat_n(fixture, 300))
        .output()
        .expect("replay runs");
    let (out, err) = text(&replayed);
    let (code, report) = serve.finish();
    assert!(out.contains("300 passed, 0 failed"), "{out}{err}\n{report}");
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.contains("300 sessions: 300 ok, 0 with findings"),
        "{report}"
    );
}

/// Bad peers against `serve --http --sessions unlimited` while 16 replays run 8 at a time:
/// 1,000 connections that send nothing, a 100 MB body, a body cut mid-JSON, a body that is
/// not JSON, a session id no session has, a `Last-Event-ID` its session never sent. Each
/// gets a clear status (413, 400, 400, 404, 400) or is dropped (the silent connections,
/// within the 10 s a request's head may take), no bad peer but the last starts a session
/// (it has the one finding, and the exit status is 1), and the 16 sessions are all clean
/// on both sides.
#[test]
fn bad_peers_get_a_clear_answer_and_the_other_sessions_go_on() {
    use std::io::{Read, Write};
    use std::net::{Shutdown, TcpStream};
    use std::time::Duration;
    let fixture = matrix("python.jsonl");
    let serve = HttpServe::start(&["--sessions", "unlimited", &fixture]);
    let address = serve
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let (silent, opened) = common::http::silent_connections(&address);
    let replays = {
        let url = serve.url.clone();
        let fixture = fixture.clone();
        std::thread::spawn(move || {
            common::mcp_replay()
                .args(["replay", "--url", &url, "-j", "8"])
                .args(std::iter::repeat_n(&fixture, 16))
                .output()
                .expect("replay runs")
        })
    };
    let head = |length: usize, session: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{session}Content-Length: {length}\r\n\r\n"
        )
    };
    let answer_of = |mut stream: TcpStream| {
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("a timeout");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    };

    // 100 MB: refused once 16 MiB have come, long before the rest is sent.
    let mut big = TcpStream::connect(&address).expect("connects");
    big.write_all(head(100 << 20, "").as_bytes())
        .expect("a head");
    let writer = {
        let mut big = big.try_clone().expect("a clone");
        std::thread::spawn(move || {
            let chunk = vec![b' '; 1 << 20];
            (0..100)
                .take_while(|_| big.write_all(&chunk).is_ok())
                .count()
        })
    };
    let answer = answer_of(big);
    let sent = writer.join().expect("the writer");
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(sent < 100, "all 100 MB were taken before the refusal");

    // A body cut mid-JSON: its writer closed its side after half of it.
    let mut cut = TcpStream::connect(&address).expect("connects");
    let part = r#"{"jsonrpc":"2.0","id":1,"method":"initia"#;
    cut.write_all(format!("{}{part}", head(2 * part.len(), "")).as_bytes())
        .expect("written");
    cut.shutdown(Shutdown::Write).expect("half closed");
    let answer = answer_of(cut);
    assert!(
        answer.starts_with("HTTP/1.1 400") || answer.is_empty(),
        "{answer}"
    );

    // Whole, but not JSON; and a session id no session has.
    let mut garbage = TcpStream::connect(&address).expect("connects");
    garbage
        .write_all(format!("{}{part}", head(part.len(), "")).as_bytes())
        .expect("written");
    let answer = answer_of(garbage);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("not JSON"), "{answer}");
    let mut foreign = TcpStream::connect(&address).expect("connects");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    foreign
        .write_all(
            format!(
                "{}{list}",
                head(list.len(), "Mcp-Session-Id: 0123456789abcdef\r\n")
            )
            .as_bytes(),
        )
        .expect("written");
    let answer = answer_of(foreign);
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");

    // A session of its own, then a GET resuming after an event it was never sent: 400.
    let raw = |request: String| {
        let mut stream = TcpStream::connect(&address).expect("connects");
        stream.write_all(request.as_bytes()).expect("written");
        answer_of(stream)
    };
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let answer = raw(format!(
        "{}{init}",
        head(init.len(), "Connection: close\r\n")
    ));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let session = answer
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_owned)
        })
        .expect("a session id");
    let answer = raw(format!(
        "GET /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\n\
         Mcp-Session-Id: {}\r\nLast-Event-ID: 999999\r\nConnection: close\r\n\r\n",
        session.trim()
    ));
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("Last-Event-ID 999999 names no event of this session"),
        "{answer}"
    );

    let replayed = replays.join().expect("the replays");
    let (out, err) = text(&replayed);
    assert!(out.contains("16 passed, 0 failed"), "{out}{err}");

    // The silent connections are closed by the server once a request's head has had 10 s.
    common::http::assert_dropped(silent, 100, opened);
    let (code, report) = serve.stop();
    assert_eq!(code, Some(1), "{report}");
    // The 16 replays' sessions are clean; the one the bad GET went to has its finding.
    assert!(
        report.contains("17 sessions: 16 ok, 1 with findings"),
        "{report}"
    );
    assert!(
        report.contains("names no event of this session"),
        "{report}"
    );
}

/// Several fixtures over HTTP, each at `/mcp/NAME`: 20 replays of each at once (8 at a time
/// per fixture) against `--sessions 20`, every session of each clean; `/mcp` alone is 404
/// naming the endpoints; on stdio, several fixtures are a usage error.
#[test]
fn several_fixtures_are_served_each_at_its_own_path() {
    let tour = matrix("python.jsonl");
    let count = workspace().join("fixtures/count_up_progress.jsonl");
    let count = count.to_str().expect("a UTF-8 path").to_owned();
    let serve = HttpServe::start(&["--sessions", "20", &tour, &count]);
    let base = serve.url.trim_end_matches("/python").to_owned();
    assert!(base.ends_with("/mcp"), "{}", serve.url);
    let replays: Vec<_> = [
        ("python", tour.clone()),
        ("count_up_progress", count.clone()),
    ]
    .into_iter()
    .map(|(name, fixture)| {
        let url = format!("{base}/{name}");
        std::thread::spawn(move || {
            common::mcp_replay()
                .args(["replay", "--url", &url, "-j", "8"])
                .args(std::iter::repeat_n(&fixture, 20))
                .output()
                .expect("replay runs")
        })
    })
    .collect();
    let address = base
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let bare = post(
        &address,
        None,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    );
    assert!(bare.starts_with("HTTP/1.1 404"), "{bare}");
    assert!(
        bare.contains("/mcp/python, /mcp/count_up_progress"),
        "{bare}"
    );
    for replay in replays {
        let replayed = replay.join().expect("a replay");
        let (out, err) = text(&replayed);
        assert!(out.contains("20 passed, 0 failed"), "{out}{err}");
    }
    let (code, report) = serve.finish();
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.contains("40 sessions: 40 ok, 0 with findings"),
        "{report}"
    );

    let stdio = common::mcp_replay()
        .args(["serve", &tour, &count])
        .output()
        .expect("serve runs");
    assert_eq!(stdio.status.code(), Some(2));
    assert!(text(&stdio).1.contains("several are served over HTTP only"));
}
