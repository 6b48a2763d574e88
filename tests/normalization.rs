//! Normalization and the secret guard against the demo server: dynamic values become
//! placeholders, recordings are byte-identical, secrets are never written or loaded.

// The runtime's scripted test servers (mcp-replay/tests/common), shared with its own tests.
#[path = "../mcp-replay/tests/common/mod.rs"]
mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};

use common::{fixture, kinds, notification, result, scripted};
use mcp_replay::_support::update::UpdateMode;
use mcp_replay::harness::Test;
use mcp_replay::{mcp_fixture, Fixture, MismatchKind, Rules, Transport};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

const JOB_STATUS: &str = r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"job_status","arguments":{}}}}
"#;

fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("normalization-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("fixtures")).unwrap();
    dir
}

fn spec(dir: &Path, name: &'static str) -> Test {
    Test::new(
        Box::leak(dir.display().to_string().into_boxed_str()),
        name,
        "normalization::job_status",
    )
}

async fn serve(server: DemoServer, transport: Transport) {
    let running = server.serve(transport).await.unwrap();
    let _ = running.waiting().await;
}

#[tokio::test]
async fn recording_a_dynamic_tool_twice_gives_the_same_bytes_and_no_raw_value() {
    let mut recordings = Vec::new();
    for run in ["a", "b"] {
        let dir = temp_dir(&format!("twice-{run}"));
        let path = dir.join("fixtures/job.jsonl");
        std::fs::write(&path, JOB_STATUS).unwrap();
        spec(&dir, "job")
            .mode(UpdateMode::Always)
            .serve(|t| serve(DemoServer::default(), t))
            .await
            .unwrap();
        recordings.push(std::fs::read_to_string(&path).unwrap());
        // The recording now passes as it is.
        spec(&dir, "job")
            .mode(UpdateMode::No)
            .serve(|t| serve(DemoServer::default(), t))
            .await
            .unwrap();
    }
    assert_eq!(recordings[0], recordings[1]);
    let text = &recordings[0];
    assert!(
        text.contains(
            r#""text":"job <UUID> started at <TIMESTAMP>, log at <TMP>/mcp-replay-demo/<UUID>.log""#
        ),
        "{text}"
    );
    let tmp = std::env::temp_dir().display().to_string();
    assert!(!text.contains(&tmp), "a temp path leaked: {text}");
    assert!(
        !text.contains("T0") && !text.contains("T1") && !text.contains("T2"),
        "a timestamp leaked: {text}"
    );
    let bundled = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/job_status.jsonl"
    ))
    .unwrap();
    assert_eq!(text, &bundled, "the bundled fixture is this recording");
}

#[tokio::test]
async fn a_recording_that_holds_a_token_is_refused_and_the_old_file_stays() {
    let dir = temp_dir("leaky");
    let path = dir.join("fixtures/job.jsonl");
    std::fs::write(&path, JOB_STATUS).unwrap();
    let failure = spec(&dir, "job")
        .mode(UpdateMode::Always)
        .serve(|t| serve(DemoServer::leaky(), t))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        failure.starts_with(&format!(
            "refusing to write {}: line 2: .result.content[0].text holds",
            path.display()
        )),
        "{failure}"
    );
    assert!(failure.contains("rule github-pat"), "{failure}");
    assert!(
        failure.contains("The previous file is unchanged."),
        "{failure}"
    );
    assert!(
        !failure.contains("ghp_"),
        "the error must not print the secret: {failure}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), JOB_STATUS);
    let leftovers = std::fs::read_dir(dir.join("fixtures")).unwrap().count();
    assert_eq!(leftovers, 1, "no temp file left behind");
}

#[tokio::test]
async fn a_committed_fixture_with_a_planted_aws_key_fails_naming_rule_and_path() {
    let dir = temp_dir("planted");
    let key = format!("AKIA{}", "Q7WZ3PLMX4NB2RTY");
    let planted = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/lookup_issue.jsonl"
    ))
    .unwrap()
    .replace("Issue 42: example", &format!("Issue 42: deploy with {key}"));
    std::fs::write(dir.join("fixtures/lookup.jsonl"), &planted).unwrap();
    let failure = spec(&dir, "lookup")
        .mode(UpdateMode::No)
        .serve(|t| serve(DemoServer::default(), t))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        failure.contains("lookup.jsonl:2: .result.content[0].text holds what looks like a secret"),
        "{failure}"
    );
    assert!(failure.contains("rule aws-access-key-id"), "{failure}");
    assert!(!failure.contains(&key), "{failure}");

    // A known false positive is allowed by the header, for that rule and path only.
    let allowed = format!(
        "{{\"mcp_replay\":1,\"allow_secrets\":[{{\"rule\":\"aws-access-key-id\",\"path\":\".result.content[0].text\"}}]}}\n{planted}"
    );
    std::fs::write(dir.join("fixtures/lookup.jsonl"), &allowed).unwrap();
    assert!(Fixture::load(dir.join("fixtures/lookup.jsonl")).is_ok());
    let wrong_path = allowed.replace(".result.content[0].text", ".result.other");
    std::fs::write(dir.join("fixtures/lookup.jsonl"), wrong_path).unwrap();
    assert!(Fixture::load(dir.join("fixtures/lookup.jsonl")).is_err());
}

fn swapped_logs() -> (Run, fn(&serde_json::Value) -> Vec<String>) {
    let f = fixture(&[
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "w"}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "a"}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "b"}}),
        ),
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"content": []}}),
        ),
    ]);
    let script: fn(&serde_json::Value) -> Vec<String> = |r| {
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}).to_string(),
            notification(
                "notifications/message",
                json!({"level": "info", "data": "b"}),
            ),
            notification(
                "notifications/message",
                json!({"level": "info", "data": "a"}),
            ),
            result(r, json!({"content": []})),
        ]
    };
    (f.with_timeout(Duration::from_millis(300)), script)
}

#[tokio::test]
async fn unordered_methods_may_arrive_in_any_order_while_the_rest_stays_strict() {
    let (f, script) = swapped_logs();
    let strict = f.replay().run(move |t| scripted(t, script)).await;
    assert_eq!(kinds(&strict), [MismatchKind::NotificationOrder]);

    // The two log messages swapped places: still strict when only list_changed is free.
    let rules = Rules::default().unordered("notifications/tools/list_changed");
    let report = f
        .replay()
        .rules(&rules)
        .run(move |t| scripted(t, script))
        .await;
    assert_eq!(
        kinds(&report),
        [MismatchKind::NotificationOrder],
        "{report}"
    );

    let rules = Rules::default().unordered("notifications/message");
    let report = f
        .replay()
        .rules(&rules)
        .run(move |t| scripted(t, script))
        .await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn the_header_can_name_unordered_methods_too() {
    let (f, script) = swapped_logs();
    let text = format!(
        "{{\"mcp_replay\":1,\"unordered\":[\"notifications/message\",\"notifications/tools/list_changed\"]}}\n{}",
        f.fixture.to_jsonl()
    );
    let report = Fixture::parse(&text)
        .unwrap()
        .with_timeout(Duration::from_millis(300))
        .replay()
        .run(move |t| scripted(t, script))
        .await;
    assert!(report.is_ok(), "{report}");
}

/// Pins the text of every result: the echo fixture below passes whatever is echoed.
fn any_text() -> Rules {
    Rules::default().replace(".result.content[].text", "<TEXT>")
}

#[mcp_fixture("echo_any_text", dir = "tests/fixtures", rules = any_text)]
#[tokio::test]
async fn a_test_can_loosen_a_field_with_one_line(transport: Transport) {
    serve(DemoServer::default(), transport).await;
}

/// `tests/fixtures/ruled/mcp-replay.rules.json` applies to every fixture of that folder.
#[mcp_fixture("divide", dir = "tests/fixtures/ruled")]
#[tokio::test]
async fn a_folder_rules_file_applies_to_its_fixtures(transport: Transport) {
    serve(DemoServer::default(), transport).await;
}

/// The bundled job_status fixture passes although every run has a new id and time.
#[mcp_fixture("job_status")]
#[tokio::test]
async fn job_status(transport: Transport) {
    serve(DemoServer::default(), transport).await;
}
