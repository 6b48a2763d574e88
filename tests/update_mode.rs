//! Re-recording (`MCP_FIXTURE_UPDATE`) in temporary folders: recording from client lines,
//! determinism, `new` files, refusals, missing and malformed fixtures.

// The runtime's scripted test servers (mcp-replay/tests/common), shared with its own tests.
#[path = "../mcp-replay/tests/common/mod.rs"]
mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};

use mcp_replay::_support::update::{write_fixture, UpdateMode, Written};
use mcp_replay::harness::Test;
use mcp_replay::{Fixture, Transport};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;
use std::path::{Path, PathBuf};

/// A fresh folder under the target directory (no extra dev-dependency needed).
fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("update_mode-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn spec(dir: &Path, name: &'static str, timeout_ms: Option<u64>) -> Test {
    spec_of(dir, name, timeout_ms, "update_mode::some_test")
}

fn spec_of(dir: &Path, name: &'static str, timeout_ms: Option<u64>, test: &'static str) -> Test {
    let test = Test::new(
        Box::leak(dir.display().to_string().into_boxed_str()),
        name,
        test,
    );
    match timeout_ms {
        Some(ms) => test.timeout_ms(ms),
        None => test,
    }
}

async fn serve_demo(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

/// The client lines of the bundled count_up fixture.
fn client_lines(bundled: &str) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(bundled),
    )
    .unwrap();
    text.lines()
        .filter(|l| l.contains("\"client->server\""))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn put(dir: &Path, file: &str, text: &str) -> PathBuf {
    let path = dir.join("fixtures").join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test]
async fn a_fixture_with_no_message_fails_naming_the_file_in_every_mode() {
    let dir = temp_dir("empty");
    for (name, text) in [("empty", ""), ("header", "{\"mcp_replay\":1}\n")] {
        let path = put(&dir, &format!("{name}.jsonl"), text);
        for mode in [UpdateMode::No, UpdateMode::Always, UpdateMode::New] {
            let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
            let failure = spec(&dir, name, None)
                .mode(mode)
                .serve(serve_demo)
                .await
                .expect_err("an empty fixture pins nothing: it must not pass");
            assert!(
                failure
                    .to_string()
                    .starts_with(&format!("{}: the fixture holds no message", path.display())),
                "{mode:?}: {failure}"
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "untouched");
        }
    }
    // A fixture of client lines only is what re-recording starts from.
    let path = put(&dir, "client.jsonl", &client_lines("lookup_issue.jsonl"));
    spec(&dir, "client", None)
        .mode(UpdateMode::Always)
        .serve(serve_demo)
        .await
        .unwrap();
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("\"server->client\""));
}

#[tokio::test]
async fn always_records_from_client_lines_and_twice_gives_the_same_bytes() {
    let bundled = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/count_up_progress.jsonl"
    ))
    .unwrap();
    let mut recordings = Vec::new();
    for run in ["a", "b"] {
        let dir = temp_dir(&format!("always-{run}"));
        let path = put(
            &dir,
            "count.jsonl",
            &client_lines("count_up_progress.jsonl"),
        );
        spec(&dir, "count", None)
            .mode(UpdateMode::Always)
            .serve(serve_demo)
            .await
            .unwrap();
        recordings.push(std::fs::read_to_string(&path).unwrap());
    }
    assert_eq!(recordings[0], recordings[1], "two recordings differ");
    assert_eq!(
        recordings[0], bundled,
        "the recording is the bundled fixture"
    );
    assert!(recordings[0].ends_with('\n'));
}

#[tokio::test]
async fn always_leaves_an_unchanged_fixture_untouched() {
    let dir = temp_dir("unchanged");
    let bundled = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/divide_by_zero.jsonl"
    ))
    .unwrap();
    let path = put(&dir, "divide.jsonl", &bundled);
    let fixture = Fixture::load(&path).unwrap();
    let report = fixture.replay().run(serve_demo).await;
    assert!(report.is_ok(), "{report}");
    let written = write_fixture(report.recorded().unwrap(), &path, UpdateMode::Always).unwrap();
    assert_eq!(written, Written::Unchanged(path.clone()));
}

#[tokio::test]
async fn a_replay_without_recording_compares_the_same_and_records_nothing() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/count_up_progress.jsonl"
    );
    let fixture = Fixture::load(path).unwrap();
    let recorded = fixture.replay().run(serve_demo).await;
    assert!(recorded.is_ok(), "{recorded}");
    assert_eq!(
        recorded.recorded().unwrap().to_jsonl(),
        std::fs::read_to_string(path).unwrap()
    );
    let compared = fixture.without_recording().replay().run(serve_demo).await;
    assert!(compared.is_ok(), "{compared}");
    assert!(compared.recorded().is_none());

    // A difference is found just the same.
    let drifted = std::fs::read_to_string(path)
        .unwrap()
        .replace("\"progress\":2", "\"progress\":20");
    let report = Fixture::parse(&drifted)
        .unwrap()
        .without_recording()
        .replay()
        .run(serve_demo)
        .await;
    assert_eq!(report.mismatches().len(), 1, "{report}");
    assert!(report.recorded().is_none());
}

#[tokio::test]
async fn always_rewrites_a_drifted_fixture_and_the_test_passes() {
    let dir = temp_dir("drifted");
    let drifted = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap()
    .replace("Issue 42: example", "Issue 42: old text");
    let path = put(&dir, "lookup.jsonl", &drifted);
    let failure = spec(&dir, "lookup", None)
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .unwrap_err()
        .to_string();
    assert!(failure.contains("1 mismatch (1 result)"), "{failure}");
    assert!(
        failure.ends_with("MCP_FIXTURE_UPDATE=1 cargo test some_test"),
        "{failure}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        drifted,
        "compare mode never writes"
    );

    spec(&dir, "lookup", None)
        .mode(UpdateMode::Always)
        .serve(serve_demo)
        .await
        .unwrap();
    let rewritten = std::fs::read_to_string(&path).unwrap();
    assert!(rewritten.contains("Issue 42: example") && !rewritten.contains("old text"));
    spec(&dir, "lookup", None)
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .unwrap();
}

#[tokio::test]
async fn new_writes_a_pending_file_beside_the_fixture_and_fails_with_the_accept_command() {
    let dir = temp_dir("new");
    let lines = client_lines("divide_by_zero.jsonl");
    let path = put(&dir, "divide.jsonl", &lines);
    let failure = spec(&dir, "divide", None)
        .mode(UpdateMode::New)
        .serve(serve_demo)
        .await
        .unwrap_err()
        .to_string();
    let pending = dir.join("fixtures/divide.jsonl.new");
    assert!(
        failure.contains(&format!("\n    mcp-replay accept {}\n", pending.display())),
        "{failure}"
    );
    assert!(
        failure.ends_with(&format!("\n    mcp-replay reject {}", pending.display())),
        "{failure}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        lines,
        "the fixture itself is untouched"
    );
    assert!(std::fs::read_to_string(&pending)
        .unwrap()
        .contains("division by zero"));
}

/// An unchanged server writes nothing in any mode: `new` neither writes `NAME.jsonl.new`
/// nor fails, and a pending file left by an earlier run is gone once the server gives what
/// the fixture says again.
#[tokio::test]
async fn an_unchanged_server_writes_nothing_in_every_mode() {
    let dir = temp_dir("unchanged-every-mode");
    let bundled = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/divide_by_zero.jsonl"
    ))
    .unwrap();
    let path = put(&dir, "divide.jsonl", &bundled);
    let pending = dir.join("fixtures/divide.jsonl.new");
    std::fs::write(&pending, "stale\n").unwrap();
    for mode in [UpdateMode::No, UpdateMode::Always, UpdateMode::New] {
        let outcome = spec(&dir, "divide", None)
            .mode(mode)
            .serve(serve_demo)
            .await;
        assert!(outcome.is_ok(), "{mode:?}: {outcome:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), bundled, "{mode:?}");
        if mode == UpdateMode::New {
            assert!(!pending.exists(), "the stale pending file is gone");
        }
    }
    // Through the writer itself too.
    let report = Fixture::load(&path).unwrap().replay().run(serve_demo).await;
    let written = write_fixture(report.recorded().unwrap(), &path, UpdateMode::New).unwrap();
    assert_eq!(written, Written::Unchanged(path.clone()));
    assert!(!pending.exists());
}

#[tokio::test]
async fn a_replay_that_timed_out_is_never_written() {
    let dir = temp_dir("timeout");
    let lines = client_lines("lookup_issue.jsonl");
    let path = put(&dir, "silent.jsonl", &lines);
    let failure = spec(&dir, "silent", Some(100))
        .mode(UpdateMode::Always)
        .serve(|t| common::scripted(t, |_| vec![]))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        failure.contains("timeout at fixture line") || failure.contains("timeout:"),
        "{failure}"
    );
    assert!(failure.contains("NOT re-recorded"), "{failure}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), lines);
}

#[tokio::test]
async fn a_missing_fixture_says_how_to_create_and_record_it() {
    let dir = temp_dir("missing");
    let failure = spec(&dir, "nothing_here", None)
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        failure.contains("nothing_here.jsonl does not exist"),
        "{failure}"
    );
    assert!(
        failure.contains("A fixture starts from its client lines"),
        "{failure}"
    );
    assert!(
        failure.contains("MCP_FIXTURE_UPDATE=1 cargo test some_test"),
        "{failure}"
    );
    let failure = spec(&dir, "nothing_here", None)
        .mode(UpdateMode::Always)
        .serve(serve_demo)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        failure.contains("A fixture starts from its client lines"),
        "{failure}"
    );
}

#[tokio::test]
async fn a_malformed_fixture_names_file_line_and_column() {
    let dir = temp_dir("malformed");
    let path = put(
        &dir,
        "bad.jsonl",
        &format!(
            "{}{{\"direction\":\"client->server\",\"message\":{{\"jsonrpc\":\"2.0\",}}}}\n",
            client_lines("lookup_issue.jsonl")
        ),
    );
    let failure = spec(&dir, "bad", None)
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        failure,
        format!("{}:2:58: not valid JSON: trailing comma", path.display())
    );
}

#[test]
fn a_failed_write_leaves_the_old_content_and_no_temp_file() {
    let dir = temp_dir("failed-write");
    let fixture = Fixture::parse(&client_lines("lookup_issue.jsonl")).unwrap();
    // The target is a non-empty folder: the final rename fails after the temp file was written.
    let target = dir.join("fixtures/blocked.jsonl");
    std::fs::create_dir_all(target.join("keep")).unwrap();
    let err = write_fixture(&fixture, &target, UpdateMode::Always).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("writing {}", target.display())),
        "{err}"
    );
    assert!(
        target.join("keep").is_dir(),
        "the old content is still there"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("fixtures"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers,
        [std::ffi::OsString::from("blocked.jsonl")],
        "no temp file is left behind"
    );
}

/// Two tests of one run that replay the same fixture (in two eras, over two transports):
/// the first re-records it, the second waits for it, then compares with what it wrote
/// and passes without writing. Run at once, as `cargo test` runs them.
#[tokio::test]
async fn two_tests_of_one_fixture_re_record_it_once() {
    let dir = temp_dir("same");
    let path = put(
        &dir,
        "shared.jsonl",
        &client_lines("count_up_progress.jsonl"),
    );
    let first = spec_of(&dir, "shared", None, "update_mode::first");
    let second = spec_of(&dir, "shared", None, "update_mode::second");
    let (a, b) = tokio::join!(
        first.mode(UpdateMode::Always).serve(serve_demo),
        second.mode(UpdateMode::Always).serve(serve_demo),
    );
    a.unwrap();
    b.unwrap();
    let bundled = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/count_up_progress.jsonl"
    ))
    .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), bundled);
}

/// Two tests of one fixture whose servers answer differently cannot both be pinned by it:
/// the second, replayed against what the first wrote, fails naming both tests, and the
/// file stays as the first wrote it (no last write wins). In `new` mode the second
/// compares with the first one's pending recording.
#[tokio::test]
async fn two_tests_of_one_fixture_that_get_different_answers_are_a_clear_error() {
    async fn serve_other(transport: Transport) {
        let server = mcp_replay_demo::ProtocolServer::default()
            .serve(transport)
            .await
            .unwrap();
        let _ = server.waiting().await;
    }
    for mode in [UpdateMode::Always, UpdateMode::New] {
        let dir = temp_dir(&format!("different-{mode:?}"));
        let path = put(&dir, "shared.jsonl", &client_lines("lookup_issue.jsonl"));
        let first = spec_of(&dir, "shared", None, "update_mode::first");
        let second = spec_of(&dir, "shared", None, "update_mode::second");
        let owner = first.mode(mode).serve(serve_demo).await;
        assert_eq!(owner.is_ok(), mode == UpdateMode::Always, "{owner:?}");
        let written = std::fs::read_to_string(&path).unwrap();
        let failure = second
            .mode(mode)
            .serve(serve_other)
            .await
            .unwrap_err()
            .to_string();
        let compared = match mode {
            UpdateMode::New => format!("{}.new", path.display()),
            _ => path.display().to_string(),
        };
        assert!(
            failure.starts_with(&format!(
                "mcp-replay: update_mode::second replays {compared}, which update_mode::first re-records in this run"
            )),
            "{mode:?}: {failure}"
        );
        assert!(
            failure.contains("give each test its own fixture"),
            "{failure}"
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            written,
            "untouched"
        );
    }
}

#[tokio::test]
async fn concurrent_re_recordings_of_different_fixtures_do_not_interfere() {
    let dir = temp_dir("concurrent");
    let names: Vec<&'static str> = vec!["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"];
    for name in &names {
        put(
            &dir,
            &format!("{name}.jsonl"),
            &client_lines("count_up_progress.jsonl"),
        );
    }
    let runs = names.iter().map(|name| {
        let test = Box::leak(format!("update_mode::{name}").into_boxed_str());
        spec_of(&dir, name, None, test)
            .mode(UpdateMode::Always)
            .serve(serve_demo)
    });
    for outcome in futures_join_all(runs).await {
        outcome.unwrap();
    }
    let bundled = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/count_up_progress.jsonl"
    ))
    .unwrap();
    for name in &names {
        assert_eq!(
            std::fs::read_to_string(dir.join(format!("fixtures/{name}.jsonl"))).unwrap(),
            bundled
        );
    }
}

/// Runs futures concurrently on this task (no extra dependency).
async fn futures_join_all<F: std::future::Future>(
    futures: impl IntoIterator<Item = F>,
) -> Vec<F::Output> {
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    let mut out: Vec<Option<F::Output>> = (0..set.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in set.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(|o| o.unwrap()).collect()
}

/// The attribute's path (`harness::Test`, what `#[mcp_fixture]` expands to) and the API's
/// (`harness::Plan::run`) give the same result on the same fixture folder: the folder's
/// rules file applies to both (the bare `Fixture::replay` reads none), a drifted server
/// fails both with the same text, and update mode re-records through both.
#[tokio::test]
async fn the_attribute_and_plan_run_behave_the_same_on_one_folder() {
    use mcp_replay::harness::{Plan, Verdict};
    let dir = temp_dir("parity");
    let pinned = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"<TEXT>"}]}}}"#,
        "\n"
    );
    let path = put(&dir, "issue.jsonl", pinned);
    put(
        &dir,
        "mcp-replay.rules.json",
        r#"{"replace": [{"selector": ".result.content[].text", "with": "<TEXT>"}]}"#,
    );
    let plan = |mode| {
        let mut plan = Plan::new(&path, mode);
        plan.test = Some("update_mode::some_test".into());
        plan
    };
    // The folder's rules file pins the text to <TEXT>: green both ways.
    spec(&dir, "issue", None)
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .unwrap();
    assert_eq!(
        plan(UpdateMode::No).run(serve_demo).await.unwrap(),
        Verdict::Passed
    );
    // The bare replay reads no rules file: the text differs.
    let bare = Fixture::load(&path).unwrap().replay().run(serve_demo).await;
    assert!(!bare.is_ok(), "{bare}");

    // Without the rules file a changed text fails both, with the same report.
    std::fs::remove_file(dir.join("fixtures/mcp-replay.rules.json")).unwrap();
    let attribute = spec(&dir, "issue", None)
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .unwrap_err();
    let api = plan(UpdateMode::No).run(serve_demo).await.unwrap_err();
    assert_eq!(attribute.message(), api.message());
    assert!(
        api.message()
            .contains("MCP_FIXTURE_UPDATE=1 cargo test some_test"),
        "{api}"
    );

    // And update mode re-records through the API as through the attribute.
    let verdict = plan(UpdateMode::Always).run(serve_demo).await.unwrap();
    assert_eq!(verdict, Verdict::Rerecorded(path.clone()));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("Issue 42: example"));
    spec(&dir, "issue", None)
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .unwrap();
}

/// `MCP_FIXTURE_UPDATE=force` rewrites a fixture the server still answers as it says: one
/// written by hand (keys in another order, spaces) comes out in the canonical form, where
/// `always` leaves a passing fixture as it is.
#[tokio::test]
async fn force_rewrites_a_passing_fixture_in_the_canonical_form_and_always_does_not() {
    use mcp_replay::harness::{Plan, Verdict};
    let dir = temp_dir("force");
    let by_hand = concat!(
        r#"{"message": {"method":"tools/call","id":"<REQUEST_ID>","jsonrpc":"2.0","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}, "direction":"client->server"}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"Issue 42: example"}]}}}"#,
        "\n"
    );
    let path = put(&dir, "issue.jsonl", by_hand);
    assert_eq!(
        Plan::new(&path, UpdateMode::Always)
            .run(serve_demo)
            .await
            .unwrap(),
        Verdict::Passed
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), by_hand);
    assert_eq!(
        Plan::new(&path, UpdateMode::Force)
            .run(serve_demo)
            .await
            .unwrap(),
        Verdict::Rerecorded(path.clone())
    );
    let canonical = std::fs::read_to_string(&path).unwrap();
    assert!(
        canonical.starts_with(r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call""#),
        "{canonical}"
    );
    // And the canonical form replays green.
    assert_eq!(
        Plan::new(&path, UpdateMode::No)
            .run(serve_demo)
            .await
            .unwrap(),
        Verdict::Passed
    );
}

/// A server that now refuses a call the fixture has a success for (here, the client line
/// names a tool the server does not have): a re-recording would pin the refusal, so no
/// mode but `force` writes it, and the failure says why and what to do.
#[tokio::test]
async fn a_refusal_over_a_recorded_success_is_never_written_but_with_force() {
    let dir = temp_dir("refusal");
    let stale = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap()
    .replace(r#""name":"lookup_issue""#, r#""name":"lookup_issues""#);
    let path = put(&dir, "stale.jsonl", &stale);
    for mode in [UpdateMode::Always, UpdateMode::New] {
        let failure = spec(&dir, "stale", None)
            .mode(mode)
            .serve(serve_demo)
            .await
            .unwrap_err()
            .to_string();
        assert!(failure.contains("NOT re-recorded"), "{failure}");
        assert!(
            failure.contains("pin the failure over the recorded success"),
            "{failure}"
        );
        // The first cause, by its line.
        assert!(
            failure.contains(
                "NOT re-recorded: line 2 (the answer to `tools/call lookup_issues`, line 1)"
            ),
            "{failure}"
        );
        assert!(failure.contains("MCP_FIXTURE_UPDATE=force"), "{failure}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), stale, "{mode:?}");
        assert!(!dir.join("stale.jsonl.new").exists(), "{mode:?}");
    }
    spec(&dir, "stale", None)
        .mode(UpdateMode::Force)
        .serve(serve_demo)
        .await
        .unwrap();
    let forced = std::fs::read_to_string(&path).unwrap();
    assert!(
        forced.contains(r#""error""#),
        "force writes the refusal: {forced}"
    );
}

/// Client lines that send a minted value's placeholder no server line binds: the server
/// gets the placeholder itself, and what it answers to it is no recording of the session.
#[tokio::test]
async fn a_placeholder_sent_as_written_is_never_recorded() {
    let dir = temp_dir("placeholder");
    let lines =
        client_lines("lookup_issue.jsonl").replace(r#""repo":"sample""#, r#""repo":"<MINTED:1>""#);
    let path = put(&dir, "unbound.jsonl", &lines);
    let failure = spec(&dir, "unbound", None)
        .mode(UpdateMode::Always)
        .serve(serve_demo)
        .await
        .unwrap_err()
        .to_string();
    assert!(failure.contains("sent as written"), "{failure}");
    assert!(failure.contains("NOT re-recorded"), "{failure}");
    assert!(failure.contains("\"bind\" selector"), "{failure}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), lines);
}

/// A server that speaks protocol 2026-07-28 only refuses a fixture's own `initialize` with
/// -32601, and every call after it as a session never started: a first recording from
/// client lines writes none of it, and says which era to write the lines in.
#[tokio::test]
async fn a_first_recording_whose_handshake_the_server_refused_is_not_written() {
    let dir = temp_dir("handshake");
    let lines = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"add_note","arguments":{}}}}"#,
        "\n",
    );
    let path = put(&dir, "modern.jsonl", lines);
    let refuse_all = |transport: Transport| async move {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let (read, mut write) = tokio::io::split(transport);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let request: serde_json::Value = serde_json::from_str(&line).unwrap();
            if let Some(id) = request.get("id") {
                let refusal = serde_json::json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": "No handler is implemented for custom requests."}});
                let _ = write.write_all(format!("{refusal}\n").as_bytes()).await;
            }
        }
    };
    let failure = spec(&dir, "modern", None)
        .mode(UpdateMode::Always)
        .serve(refuse_all)
        .await
        .unwrap_err()
        .to_string();
    assert!(failure.contains("NOT re-recorded"), "{failure}");
    assert!(
        failure.contains("the server refused the fixture's `initialize`"),
        "{failure}"
    );
    assert!(
        failure.contains("\"protocol\": \"2026-07-28\""),
        "{failure}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), lines);
}
