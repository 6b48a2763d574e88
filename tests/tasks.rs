//! MCP Tasks on rmcp (the Tasks extension of protocol 2026-07-28, SEP-2663): the fixtures
//! under `fixtures/tasks/` were recorded by `mcp-replay record` between rmcp's own client
//! (`task-client`) and `TaskServer` (`demo-server tasks`). Every run of the server mints a
//! new task id (a UUID) and its stages fall on other polls, so these replay only because
//! the task id is a bound placeholder and the polls are judged by meaning. Each replays 20
//! times, twenty at once (under load), in process over the pipe and over Streamable HTTP (with sessions, and
//! without in the stateless era), as a child process, and in both eras; a changed server
//! gives exactly the finding it should.

mod command;
mod mock_client;

use mcp_replay::{mcp_fixture, Fixture, MismatchKind, Options, Report, Rules, Transport};
use mcp_replay_demo::TaskServer;
use rmcp::ServiceExt;
use std::path::PathBuf;
use std::sync::Arc;

const FIXTURES: [&str; 3] = ["research_plain", "research_ask", "research_cancel"];

fn fixture(name: &str) -> Fixture {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/tasks/{name}.jsonl"));
    Fixture::load(path).unwrap()
}

async fn serve(server: TaskServer, transport: Transport) {
    let server = server.serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

/// How often each fixture replays in each setting, all at once.
const RUNS: usize = 20;

/// `runs` replays, each made by `replay` and all running at once on the test's runtime
/// (one after the other, the 180 replays of this file took 68 s, each waiting out the
/// server's task stages); their reports in the order they were started.
async fn at_once<F, Fut>(runs: usize, replay: F) -> Vec<Report>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Report> + Send + 'static,
{
    let runs: Vec<_> = (0..runs).map(|_| tokio::spawn(replay())).collect();
    let mut reports = Vec::new();
    for run in runs {
        reports.push(run.await.expect("a replay task"));
    }
    reports
}

fn options(protocol: Option<&str>) -> Options {
    let mut options = Options::new();
    if let Some(p) = protocol {
        options = options.protocol(p);
    }
    options
}

/// `runs` replays of `fixture` in `protocol` against a fresh `TaskServer` each, in process,
/// all at once.
async fn replay_in_process(fixture: &Fixture, protocol: Option<&str>, runs: usize) -> Vec<Report> {
    let (fixture, options) = (Arc::new(fixture.clone()), Arc::new(options(protocol)));
    at_once(runs, || {
        let (fixture, options) = (fixture.clone(), options.clone());
        async move {
            fixture
                .replay()
                .rules(&Rules::default())
                .options(&options)
                .run(|t| serve(TaskServer::default(), t))
                .await
        }
    })
    .await
}

fn assert_all_ok(what: &str, reports: &[Report]) {
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| !r.is_ok())
        .map(|r| r.to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "{what}: {} of {} failed; the first:\n{}",
        failed.len(),
        reports.len(),
        failed[0]
    );
}

#[mcp_fixture("tasks/research_ask")]
#[tokio::test]
async fn a_task_with_an_input_request_replays_with_mcp_fixture(transport: Transport) {
    serve(TaskServer::default(), transport).await;
}

#[mcp_fixture("tasks/research_plain", protocol = "2026-07-28")]
#[tokio::test]
async fn a_task_replays_with_mcp_fixture_in_the_stateless_era(transport: Transport) {
    serve(TaskServer::default(), transport).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_task_fixture_replays_20_times_in_process_in_both_eras() {
    for name in FIXTURES {
        let fixture = fixture(name);
        for protocol in [None, Some("2026-07-28")] {
            let reports = replay_in_process(&fixture, protocol, RUNS).await;
            assert_all_ok(&format!("{name} in {protocol:?}"), &reports);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_task_fixture_replays_20_times_over_streamable_http() {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    for name in FIXTURES {
        let fixture = fixture(name);
        // With sessions in both eras; without sessions only in the stateless era (a legacy
        // handshake has nowhere to keep the client's capabilities).
        for (stateless, protocol) in [
            (false, None),
            (false, Some("2026-07-28")),
            (true, Some("2026-07-28")),
        ] {
            let (fixture, options) = (Arc::new(fixture.clone()), Arc::new(options(protocol)));
            let reports = at_once(RUNS, || {
                let (fixture, options) = (fixture.clone(), options.clone());
                let mut config = StreamableHttpServerConfig::default();
                if stateless {
                    config.legacy_session_mode = false;
                    config.json_response = true;
                }
                // One task manager across the requests: a task outlives the request that
                // made it.
                let shared = TaskServer::default();
                let service: StreamableHttpService<TaskServer, LocalSessionManager> =
                    StreamableHttpService::new(
                        move || Ok(shared.clone()),
                        Default::default(),
                        config,
                    );
                let bridge = mcp_replay::_support::bridge::Bridge::new(service);
                async move {
                    fixture
                        .replay()
                        .rules(&Rules::default())
                        .options(&options)
                        .bridge(bridge)
                        .await
                }
            })
            .await;
            assert_all_ok(
                &format!("{name} over HTTP (stateless server {stateless}, {protocol:?})"),
                &reports,
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_task_fixture_replays_20_times_against_the_server_as_a_child_process() {
    for name in FIXTURES {
        let fixture = fixture(name);
        let fixture = Arc::new(fixture);
        let reports = at_once(RUNS, || {
            let fixture = fixture.clone();
            async move {
                fixture
                    .replay()
                    .rules(&Rules::default())
                    .options(&Options::new())
                    .run(|transport| async move {
                        let mut command = tokio::process::Command::new(command::demo_server());
                        command.arg("tasks");
                        mcp_replay::process::serve_command(transport, &mut command).await
                    })
                    .await
            }
        })
        .await;
        assert_all_ok(&format!("{name} over the pipe"), &reports);
    }
}

/// A server whose report text changed: exactly one *result* finding, at the poll that
/// carries the result, and nothing about the task id or the number of polls.
#[tokio::test]
async fn a_changed_result_is_one_result_finding_nothing_about_ids_or_polls() {
    let text = fixture("research_plain").to_jsonl().replace(
        "report on tides: 3 stages done",
        "report on tides: 2 stages done",
    );
    let changed = Fixture::parse(&text).unwrap();
    for protocol in [None, Some("2026-07-28")] {
        let reports = replay_in_process(&changed, protocol, 3).await;
        for report in reports {
            let kinds: Vec<MismatchKind> = report.mismatches().iter().map(|m| m.kind()).collect();
            assert_eq!(kinds, [MismatchKind::Result], "{report}");
            let finding = &report.mismatches()[0];
            assert!(finding.summary().contains("tasks/get"), "{report}");
            assert!(
                !report.to_string().contains("TASK_ID"),
                "no finding about the id: {report}"
            );
        }
    }
}

/// A client line that sends a task id before the server sent it (a hand-edited fixture):
/// a *missing* finding naming the line and the placeholder, and no hang.
#[tokio::test]
async fn a_task_id_used_before_it_is_bound_is_a_finding_naming_the_placeholder() {
    let text = fixture("research_plain").to_jsonl().replacen(
        "\"name\":\"research\"",
        "\"name\":\"research\",\"after\":\"<TASK_ID:7>\"",
        1,
    );
    let fixture = Fixture::parse(&text).unwrap();
    let report = &replay_in_process(&fixture, None, 1).await[0];
    let missing = report
        .mismatches()
        .iter()
        .find(|m| m.kind() == MismatchKind::Missing)
        .unwrap_or_else(|| panic!("{report}"));
    assert!(missing.summary().contains("<TASK_ID:7>"), "{report}");
    assert!(missing.summary().contains("line 4"), "{report}");
}

/// The mirror image: each fixture served (`mcp-replay serve`) to rmcp's task client, which
/// polls the served task every 50 ms, answers its input request and reads its result, 5
/// times each.
#[test]
fn each_task_fixture_is_served_back_to_rmcps_task_client() {
    let path = |name: &str| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/tasks/{name}.jsonl"))
    };
    for (name, flag, says) in [
        ("research_plain", None, "report on tides: 3 stages done"),
        (
            "research_ask",
            Some("--ask"),
            "report on tides (science): 3 stages done",
        ),
        ("research_cancel", Some("--cancel"), "Cancelled"),
    ] {
        for _ in 0..5 {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_task-client"))
                .args(flag)
                .arg("--")
                .arg(command::MCP_REPLAY)
                .arg("serve")
                .arg(path(name))
                .output()
                .expect("task-client runs");
            let (out, err) = command::text(&output);
            assert!(output.status.success(), "{name}: {out}{err}");
            assert!(out.contains(says), "{name}: {out}");
            assert!(err.contains(": ok"), "{name}: {err}");
        }
    }
}

/// `task-client FLAG -- mcp-replay record -o DIR/NAME.jsonl -- demo-server SERVER`: what the
/// client printed, the fixture and its text.
fn record_rmcp_session(
    flag: &str,
    server: &str,
    dir: &std::path::Path,
) -> (String, PathBuf, String) {
    let fixture = dir.join(format!("{server}.jsonl"));
    let recorded = std::process::Command::new(env!("CARGO_BIN_EXE_task-client"))
        .args([flag, "--", command::MCP_REPLAY, "record", "-o"])
        .arg(&fixture)
        .arg("--")
        .arg(command::demo_server())
        .arg(server)
        .output()
        .expect("task-client runs");
    let (out, err) = command::text(&recorded);
    assert!(recorded.status.success(), "{out}{err}");
    let written = std::fs::read_to_string(&fixture).expect("written");
    (out.trim().to_owned(), fixture, written)
}

/// `mcp-replay replay OPTIONS FIXTURE×RUNS -- demo-server SERVER` (`http`: `Some(MODE)`
/// over Streamable HTTP, `demo-server http ADDR MODE SERVER`): all green.
fn replay_rmcp_session(
    fixture: &std::path::Path,
    server: &str,
    http: Option<&str>,
    options: &[&str],
) {
    let twenty: Vec<&std::path::Path> = std::iter::repeat_n(fixture, RUNS).collect();
    let mut replay = command::mcp_replay();
    replay.arg("replay").args(options);
    let mut argv = vec![server.to_owned()];
    if let Some(mode) = http {
        let port = command::http::free_port();
        replay.args(["--url", &command::http::url(port)]);
        argv = [
            "http".to_owned(),
            format!("127.0.0.1:{port}"),
            mode.to_owned(),
            server.to_owned(),
        ]
        .to_vec();
    }
    let replayed = replay
        .args(&twenty)
        .arg("--")
        .arg(command::demo_server())
        .args(&argv)
        .output()
        .expect("replay runs");
    let (out, err) = command::text(&replayed);
    assert!(out.contains("20 passed, 0 failed"), "{http:?}: {out}{err}");
}

/// `fixture` served RUNS times to `task-client FLAG` over stdio and RUNS times to the same
/// client's `session` over Streamable HTTP (the mock in process, on a Unix socket): each
/// saw `says`, each report clean.
fn serve_rmcp_session<
    F: std::future::Future<Output = Result<String, mcp_replay_demo::refund::client::Failure>>,
>(
    fixture: &std::path::Path,
    flag: &str,
    says: &str,
    session: impl Fn(mock_client::RmcpHttp) -> F,
) {
    for _ in 0..RUNS {
        let served = std::process::Command::new(env!("CARGO_BIN_EXE_task-client"))
            .args([flag, "--", command::MCP_REPLAY, "serve"])
            .arg(fixture)
            .output()
            .expect("task-client runs");
        let (out, err) = command::text(&served);
        assert!(served.status.success(), "{out}{err}");
        assert_eq!(out.trim(), says, "{err}");
        assert!(err.contains(": ok"), "{err}");
    }
    let loaded = Fixture::load(fixture).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for n in 0..RUNS {
        runtime.block_on(async {
            let (front, mock) = loaded.mock().http();
            let path = mock_client::socket_path(&format!("{}-{n}", flag.trim_start_matches('-')));
            mock_client::serve_on_unix_socket(front, &path);
            let saw = session(mock_client::rmcp_http_client(&path)).await;
            assert_eq!(saw.expect("the session over HTTP"), says);
            let report = mock.finish().await;
            assert!(report.is_ok(), "{report}");
        });
    }
}

/// `mcp-replay replay CHANGED -- demo-server SERVER`, `changed` holding `written` with `was`
/// replaced by `now`: exit 1 and the report.
fn replay_changed(
    dir: &std::path::Path,
    written: &str,
    [was, now]: [&str; 2],
    server: &str,
) -> String {
    let changed = dir.join("changed.jsonl");
    let edited = written.replace(was, now);
    assert_ne!(edited, written);
    std::fs::write(&changed, edited).unwrap();
    let red = command::mcp_replay()
        .arg("replay")
        .arg(&changed)
        .arg("--")
        .arg(command::demo_server())
        .arg(server)
        .output()
        .expect("replay runs");
    let (out, err) = command::text(&red);
    assert_eq!(red.status.code(), Some(1), "{out}{err}");
    out
}

/// A multi round-trip request of 2026-07-28 (SEP-2322) with rmcp 3.11 on both sides, in
/// one session with a minted refund id read back from a text and a new W3C `traceparent` on
/// every request: `task-client --refund` recorded through `mcp-replay record` with
/// `demo-server tasks`, whose `refund` tool seals its state with a key drawn for each
/// process (`mcp_replay_demo::refund`). The fixture keeps no state, no trace id and no
/// refund id; it replays 20 times against the server as a child and over Streamable HTTP
/// (stateless, and with sessions), is served to the same client 20 times over stdio and
/// over HTTP, and a changed answer is the first cause of what follows from it.
#[test]
fn an_rmcp_multi_round_trip_refund_records_replays_and_is_served() {
    let dir = command::temp_dir("tasks", "refund");
    let (_, fixture, written) = record_rmcp_session("--refund", "tasks", &dir);
    let says = r#"{"refund":"refunded 42.50 to order A-1001 (damaged) as R-?","status":"refund R-?: settled"}"#;
    // The retry sends back the state the server sealed, bound; no run's value is kept.
    assert_eq!(
        written
            .matches(r#""requestState":"<REQUEST_STATE:1>""#)
            .count(),
        2,
        "{written}"
    );
    assert_eq!(
        written.matches(r#""traceparent":"<TRACEPARENT>""#).count(),
        4,
        "{written}"
    );
    assert!(!written.contains("\"00-"), "{written}");
    assert!(
        written.contains(r#""shapes":{"<MINTED:1>":"R-00000001"}"#),
        "{written}"
    );
    assert!(written.contains(r#""refund":"<MINTED:1>""#), "{written}");

    replay_rmcp_session(&fixture, "tasks", None, &[]);
    replay_rmcp_session(&fixture, "tasks", Some("stateless"), &[]);
    replay_rmcp_session(&fixture, "tasks", Some("sse"), &[]);
    serve_rmcp_session(
        &fixture,
        "--refund",
        says,
        mcp_replay_demo::refund::client::session,
    );

    let out = replay_changed(&dir, &written, ["(damaged) as", "(late) as"], "tasks");
    // The changed text binds no refund id, so the status call cannot name it: the report
    // says those findings follow from the first.
    assert!(
        out.contains("the response to `tools/call refund` (line 8) differs"),
        "{out}"
    );
    assert!(out.contains("lines 10, 11 follow from line 9"), "{out}");
}

/// A 2026-07-28 subscription as rmcp 3.11 speaks it on both sides (`demo-server watch`,
/// `task-client --watch`: `subscriptions/listen` of `stock://hat`, two restocks, the hat's
/// update on the subscription, the client leaving it, a restock no one hears of). Recorded
/// through `record`, the subscription id is the listen request's label; it replays 20
/// times against the server as a child and over Streamable HTTP (sessionless, the listen an
/// SSE stream the client closes), is served 20 times to the same client over stdio and over
/// HTTP, and a changed update is a finding.
#[test]
fn an_rmcp_subscription_records_replays_and_is_served() {
    let dir = command::temp_dir("tasks", "watch");
    let (said, fixture, written) = record_rmcp_session("--watch", "watch", &dir);
    let says = r#"{"restocked":["restocked cap","restocked hat","restocked hat"],"updated":"stock://hat"}"#;
    assert_eq!(said, says);
    let of_the_listen = r#""io.modelcontextprotocol/subscriptionId":"<REQUEST_ID:2>""#;
    assert_eq!(written.matches(of_the_listen).count(), 2, "{written}");
    assert!(
        written.contains(
            r#""method":"notifications/cancelled","params":{"requestId":"<REQUEST_ID:2>"}"#
        ),
        "{written}"
    );

    replay_rmcp_session(&fixture, "watch", None, &[]);
    // One at a time over HTTP: the server tells every open subscription of a restock, so
    // two sessions at once would each hear of the other's, as two real clients would.
    replay_rmcp_session(&fixture, "watch", Some("modern"), &["-j", "1"]);
    serve_rmcp_session(
        &fixture,
        "--watch",
        says,
        mcp_replay_demo::watch::client::session,
    );

    let changed = [r#""uri":"stock://hat""#, r#""uri":"stock://cap""#];
    let out = replay_changed(&dir, &written, changed, "watch");
    assert!(out.contains("1 mismatch (1 params)"), "{out}");
    assert!(
        out.contains("`notifications/resources/updated` has other params"),
        "{out}"
    );
}
