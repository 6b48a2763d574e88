//! The command over Streamable HTTP against real servers: `replay --url` (with `-- SERVER`
//! started and waited for), `record --listen --upstream` with the Python SDK's HTTP
//! client, and the errors of a URL nothing listens on. The tests against the rmcp demo
//! server are in the root's tests/http.rs.

mod common;

use common::http::{
    free_port, record_python_session, record_session, replay_over_http, runs, times, url, Ran,
};
use common::{mcp_replay, peer, temp_dir, text, workspace};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

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

/// The Python SDK tour server over Streamable HTTP on `port`, with `options`.
fn tour_over_http(tour: &[String], port: u16, options: &[&str]) -> Vec<String> {
    let mut argv = tour.to_vec();
    argv.extend(["--http".to_owned(), port.to_string()]);
    argv.extend(options.iter().map(|o| o.to_string()));
    argv
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

/// A 2026-07-28 subscription over Streamable HTTP with the Python SDK on both sides
/// (`peers/python/listen_*.py`): the `subscriptions/listen` answer is an SSE stream that
/// the client leaves by closing it, with no answer. The proxy records where it closed it
/// (`"closes_input_after"`), so the replay does not wait for an answer that never comes:
/// 20 replays green; `serve --http` plays it to the same client.
#[test]
fn a_subscription_the_client_closes_over_http_replays_and_is_served() {
    let (server, client) = (peer("python-listen-server"), peer("python-listen-client"));
    let on = |port: u16| {
        let mut argv = server.clone();
        argv.extend(["--http".to_owned(), port.to_string()]);
        argv
    };
    let client_at = |url: &str| {
        let mut command = Command::new(&client[0]);
        command.args(&client[1..]).args(["--url", url]);
        command
    };
    let dir = temp_dir("http", "listen");
    let upstream = free_port();
    let fixture = record_session(&dir, &on(upstream), upstream, &["--idle", "1s"], |url| {
        client_at(url)
    });
    let written = std::fs::read_to_string(&fixture).expect("written");
    assert!(
        written.starts_with(r#"{"mcp_replay":1,"closes_input_after":"#),
        "{written}"
    );
    assert!(
        written.contains(r#""io.modelcontextprotocol/subscriptionId":"<REQUEST_ID:2>""#),
        "{written}"
    );

    // One at a time: the server notifies every open subscription of a change, so two
    // sessions at once each see the other's update too, as two real clients would.
    let (ran, _) = replay_over_http(&times(&fixture, 20), &["-j", "1"], on);
    ran.assert_green(20);

    let serve = common::HttpServe::start(&[fixture.to_str().expect("a UTF-8 path")]);
    let served = client_at(&serve.url).output().expect("the client runs");
    let (out, err) = text(&served);
    assert!(served.status.success(), "{out}{err}");
    assert!(out.contains(r#""kind":"ResourceUpdated""#), "{out}");
    let (code, report) = serve.finish();
    assert_eq!(code, Some(0), "{report}");
    assert!(report.contains(": ok"), "{report}");
}

/// The Python SDK's own 2026-07-28 example stories (`examples/stories` of the mcp 2.3
/// sdist; `peers/install.sh` takes them): the multi round-trip retries of `mrtr` (whose
/// client retries once with a token it forged) and `refund_desk` (six round trips, an order
/// id the client names), `streaming` (progress and logs, then a call the client cancels
/// by closing its stream once the first progress came), and the `subscriptions` client,
/// which leaves its listen stream by closing it and goes on. Each is recorded through `record --listen` from the SDK's own
/// client, replayed `runs()` times, each against a fresh server (the stories keep their
/// state per process), and served `runs()` times to the same client, which checks every
/// answer itself and says `OK:` (on stderr). An answer changed in the recording (as a
/// server that answered otherwise would give) is one `result` finding.
#[test]
fn the_python_sdks_own_2026_07_28_stories_record_replay_and_are_served_over_http() {
    // Each story, a line its recording must hold, and an answer of its server to change.
    let stories = [
        // The retry with the token the client forged keeps it, as the client sent it.
        (
            "mrtr",
            r#""requestState":"v1."#,
            ["staging cancelled", "staging done"],
        ),
        (
            "refund_desk",
            r#""resultType":"input_required""#,
            ["item 'mystery-hat'", "item 'mystery-cap'"],
        ),
        // A call the client cancels after its first progress: the server's steps until it
        // noticed the closed stream are recorded, and a replay's own late ones ignored.
        (
            "streaming",
            r#""method":"notifications/cancelled""#,
            [r#""completed":1,"#, r#""completed":7,"#],
        ),
        // Where the client closed its listen stream and went on: the cancel it stands for.
        (
            "subscriptions",
            r#""method":"notifications/cancelled""#,
            ["search is live", "search is down"],
        ),
    ];
    for (story, recorded, [was, now]) in stories {
        let (server, client) = mcp_replay_peers::python_story(story);
        let on = |port: u16| {
            let mut argv = server.clone();
            argv.extend(["--port".to_owned(), port.to_string()]);
            argv
        };
        let client_at = |url: &str| {
            let mut command = Command::new(&client[0]);
            command.args(&client[1..]).args(["--http", url]);
            command
        };
        let dir = temp_dir("http-story", story);
        let upstream = free_port();
        let fixture = record_session(&dir, &on(upstream), upstream, &["--idle", "1s"], |url| {
            client_at(url)
        });
        let written = std::fs::read_to_string(&fixture).expect("written");
        assert!(written.contains(recorded), "{story}: {written}");
        for run in 1..=runs() {
            let (ran, _) = replay_over_http(&[&fixture], &[], on);
            assert_eq!(
                ran.code,
                Some(0),
                "{story}, replay {run}: {}{}",
                ran.out,
                ran.err
            );
        }
        let changed = dir.join("changed.jsonl");
        std::fs::write(&changed, server_lines_changed(&written, was, now)).expect("written");
        let (ran, _) = replay_over_http(&[&changed], &[], on);
        assert_eq!(
            ran.code,
            Some(1),
            "{story}, changed: {}{}",
            ran.out,
            ran.err
        );
        assert!(
            ran.out.contains("(1 result)"),
            "{story}, changed: {}",
            ran.out
        );
        let fixture = fixture.to_str().expect("a UTF-8 path");
        for run in 1..=runs() {
            let serve = common::HttpServe::start(&[fixture]);
            let served = client_at(&serve.url).output().expect("the client runs");
            let (out, err) = text(&served);
            assert!(served.status.success(), "{story}, served {run}: {out}{err}");
            assert!(
                err.contains(&format!("OK: {story}")),
                "{story}, served {run}: {err}"
            );
            let (code, report) = serve.finish();
            assert_eq!(code, Some(0), "{story}, served {run}: {report}");
        }
    }
}

/// `fixture` with `was` replaced by `now` in what its server sent (as if the server
/// answered otherwise), or a panic if no server line holds `was`.
fn server_lines_changed(fixture: &str, was: &str, now: &str) -> String {
    let changed: String = fixture
        .lines()
        .map(|line| match line.starts_with(r#"{"direction":"server->client""#) {
            true => line.replace(was, now),
            false => line.to_owned(),
        } + "\n")
        .collect();
    assert_ne!(changed, fixture, "no server line holds {was:?}");
    changed
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
    // One session at a time: the Python SDK names a POST's stream in the event store by its
    // JSON-RPC request id (`request_stream_id = target_request_id`), which sessions at once
    // share, so resuming one session's stream 4 replays another's events too.
    let (ran, _) = replay_over_http(&times(&marked, 3), &["-j", "1"], |port| {
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

/// A server behind bearer-token auth (the Python SDK's own token verification,
/// `peers/python/protected_server.py`): without a credential, one `http` finding at once
/// with the 401, its `WWW-Authenticate` challenge, the protected-resource metadata URL and
/// the flag to pass; with `--header 'Authorization: Bearer ${TOKEN}'` (read from the
/// environment) the fixture records and replays green, and the token is in no output and
/// no file; an unset variable is a usage error naming it, never a value.
#[test]
fn a_server_behind_auth_is_told_at_once_and_replays_with_a_header_from_the_environment() {
    let token = "tok-7f3c9e1a5b2d4c6e8f0a";
    let port = free_port();
    let mut argv = peer("python-protected-server");
    argv.extend([port.to_string(), token.to_owned()]);
    let mut server = Command::new(&argv[0]).args(&argv[1..]).spawn().unwrap();
    common::http::wait_for(port, &mut server);
    let url = common::http::url(port);
    let dir = temp_dir("http", "auth");
    let fixture = dir.join("issues.jsonl").display().to_string();
    let run = |args: &[&str], with_token: bool| {
        let mut command = mcp_replay();
        command.args(args);
        if with_token {
            command.env("TOKEN", token);
        } else {
            command.env_remove("TOKEN");
        }
        command.output().unwrap()
    };
    let lines = run(
        &[
            "call",
            "-o",
            &fixture,
            "--client-only",
            "--tool",
            "list_issues",
            "limit:=2",
        ],
        false,
    );
    assert!(lines.status.success(), "{}", text(&lines).1);

    let began = Instant::now();
    let refused = run(&["replay", "--url", &url, &fixture], false);
    let (out, err) = text(&refused);
    assert_eq!(refused.status.code(), Some(1), "{out}{err}");
    assert!(
        began.elapsed() < Duration::from_secs(4),
        "at once, not after the timeout"
    );
    assert!(out.contains("1 mismatch (1 http)"), "{out}");
    assert!(
        out.contains("the server wants credentials: HTTP 401"),
        "{out}"
    );
    assert!(out.contains("resource_metadata="), "{out}");
    assert!(
        out.contains(&format!("its protected-resource metadata: http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp")),
        "{out}"
    );
    assert!(
        out.contains("--header 'Authorization: Bearer ${TOKEN}'"),
        "{out}"
    );

    let header = "Authorization: Bearer ${TOKEN}";
    let recorded = run(
        &[
            "replay", "--update", "--url", &url, "--header", header, &fixture,
        ],
        true,
    );
    let (out, err) = text(&recorded);
    assert!(recorded.status.success(), "{out}{err}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(written.contains("issue 1\\nissue 2"), "{written}");
    for args in [
        vec!["replay", "--url", &url, "--header", header, &fixture],
        vec![
            "replay", "--format", "json", "--url", &url, "--header", header, &fixture,
        ],
        vec![
            "replay", "--format", "sarif", "--url", &url, "--header", header, &fixture,
        ],
        vec!["coverage", "--url", &url, "--header", header, &fixture],
    ] {
        let ran = run(&args, true);
        let (out, err) = text(&ran);
        assert!(ran.status.success(), "{args:?}: {out}{err}");
        assert!(
            !out.contains(token) && !err.contains(token),
            "{args:?}: {out}{err}"
        );
    }
    assert!(!written.contains(token));

    // The command as the client over Streamable HTTP: `call --url ... --header` writes the
    // whole exchange, which replays green; the token is in neither.
    let called = dir.join("called.jsonl").display().to_string();
    let call = run(
        &[
            "call",
            "-o",
            &called,
            "--url",
            &url,
            "--header",
            header,
            "--list-tools",
            "--tool",
            "list_issues",
            "limit:=2",
        ],
        true,
    );
    let (out, err) = text(&call);
    assert!(call.status.success(), "{out}{err}");
    assert!(!out.contains(token) && !err.contains(token), "{out}{err}");
    let whole = std::fs::read_to_string(&called).unwrap();
    assert!(
        whole.contains(r#""method":"initialize""#) && !whole.contains(token),
        "{whole}"
    );
    let again = run(
        &[
            "replay", "--url", &url, "--header", header, &called, &called,
        ],
        true,
    );
    let (out, err) = text(&again);
    assert!(again.status.success(), "{out}{err}");
    let refused = run(
        &[
            "call",
            "-o",
            &called,
            "--url",
            &url,
            "--tool",
            "list_issues",
            "limit:=1",
        ],
        false,
    );
    let (out, err) = text(&refused);
    assert_eq!(refused.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains("the server wants credentials: HTTP 401"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&called).unwrap(),
        whole,
        "not written over"
    );

    let unset = run(
        &[
            "replay",
            "--url",
            &url,
            "--header",
            "Authorization: Bearer ${NOT_SET_HERE}",
            &fixture,
        ],
        false,
    );
    let (out, err) = text(&unset);
    assert_eq!(unset.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("${NOT_SET_HERE}"), "{err}");
    let _ = server.kill();
    let _ = server.wait();
}
