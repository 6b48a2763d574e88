//! A test whose body is the client, with a task server: the body drives rmcp's client
//! through a `research` task of `TaskServer` (the Tasks extension of 2026-07-28), polling
//! `tasks/get` as the task's interval says until it completes. Every run mints another
//! task id and needs another number of polls (its stages fall on other polls); the
//! fixture holds the task id bound and the comparison judges the polls by the statuses
//! reached, not by their count, as the replay does.

use mcp_replay::_support::update::UpdateMode;
use mcp_replay::harness::Test;
use mcp_replay::Transport;
use mcp_replay_demo::TaskServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
    Implementation, TaskPayload,
};
use rmcp::ServiceExt;
use serde_json::json;
use std::time::Duration;

/// Serves `TaskServer` on `server` and researches `topic` as a task on `client`, polling
/// until the task completes; asserts the result.
async fn research(topic: &'static str, server: Transport, client: Transport) {
    tokio::spawn(async move {
        let running = TaskServer::default().serve(server).await.expect("serves");
        let _ = running.waiting().await;
    });
    let config = ClientConfig::new(
        ClientCapabilities::builder().enable_tasks().build(),
        Implementation::new("pair-task-client", "1.0.0"),
    );
    let client = config.serve(client).await.expect("initializes");
    let arguments = serde_json::from_value(json!({"topic": topic})).unwrap();
    let response = client
        .call_tool_once(CallToolRequestParams::new("research").with_arguments(arguments))
        .await
        .expect("calls");
    let CallToolResponse::Task(created) = response else {
        panic!("not a task: {response:?}");
    };
    let task_id = created.task.task_id.clone();
    let interval = Duration::from_millis(created.task.poll_interval_ms.unwrap_or(50));
    let mut polls = 0;
    loop {
        tokio::time::sleep(interval).await;
        polls += 1;
        let got = client
            .peer()
            .get_task(GetTaskParams::new(task_id.clone()))
            .await
            .expect("polls");
        match got.task.payload {
            TaskPayload::Working => assert!(polls < 100, "the task never completes"),
            TaskPayload::Completed { result } => {
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                assert!(text.contains(topic), "{text}");
                break;
            }
            other => panic!("the task ended {other:?}"),
        }
    }
    client.cancel().await.expect("closes");
}

fn test(dir: &'static str, mode: UpdateMode) -> Test {
    Test::new(
        env!("CARGO_MANIFEST_DIR"),
        "research",
        "pair_tasks::research",
    )
    .dir(dir)
    .mode(mode)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_s_polls_are_judged_by_status_twenty_runs_at_once() {
    let dir = std::env::temp_dir().join(format!("mcp-replay-pair-tasks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dir: &'static str = Box::leak(dir.display().to_string().into_boxed_str());

    test(dir, UpdateMode::Always)
        .pair(|s, c| research("tides", s, c))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    let written = std::fs::read_to_string(format!("{dir}/research.jsonl")).unwrap();
    assert!(written.contains(r#""method":"tasks/get""#), "{written}");
    assert!(
        !written
            .lines()
            .skip(1)
            .any(|l| l.contains(r#""taskId":"0"#) || l.contains("-4")),
        "no live task id in the file: {written}"
    );

    // Twenty runs at once (under load the stages fall on still other polls): all green.
    let runs: Vec<_> = (0..20)
        .map(|_| tokio::spawn(test(dir, UpdateMode::No).pair(|s, c| research("tides", s, c))))
        .collect();
    for (i, run) in runs.into_iter().enumerate() {
        if let Err(f) = run.await.expect("a run") {
            panic!("run {}: {f}", i + 1);
        }
    }

    // A body that researches something else is a `params` finding at the call's line.
    let changed = test(dir, UpdateMode::No)
        .pair(|s, c| research("waves", s, c))
        .await
        .expect_err("another topic")
        .to_string();
    assert!(changed.contains("params"), "{changed}");
    assert!(changed.contains("waves"), "{changed}");
}
