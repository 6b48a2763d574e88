//! `task-client`: an MCP client on rmcp that runs the `research` tool of `demo-server tasks`
//! as a task (the Tasks extension of protocol 2026-07-28, SEP-2663), as an application on
//! rmcp would: it declares the extension, calls the tool, polls `tasks/get` as the task's
//! `pollIntervalMs` says until the task is terminal, and answers an `input_required` status
//! with `tasks/update` (the elicitation accepted, `meaning` = `science`).
//!
//! ```text
//! task-client [--ask] [--cancel] -- <server command> [args...]
//! task-client --refund -- <server command> [args...]
//! task-client --watch -- <server command> [args...]
//! ```
//!
//! `--ask` asks the tool for a clarification; `--cancel` cancels the task right after its
//! creation and reads its status once. `--refund` is another session, of protocol
//! 2026-07-28 only (`server/discover`, no handshake): it calls `refund`, a multi
//! round-trip request that rmcp's client completes by itself (each `input_required`
//! answered by the handler, the sealed `requestState` sent back with the answers under a
//! new id), then `refund_status` of the refund id the answer's text names; every request
//! carries a new random W3C `traceparent` in its `_meta`, as a client with tracing on sends
//! (`mcp_replay_demo::refund::client`). `--watch` is a 2026-07-28 subscription: it listens
//! to `stock://hat`, restocks the cap and the hat, waits for the hat's update, leaves the
//! subscription and restocks the hat again (`mcp_replay_demo::watch::client`).
//! It prints the outcome as one JSON line; exit status 0 on success, 1 on any error (to
//! stderr).

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, InputResponses, TaskPayload, UpdateTaskParams,
};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::json;

type Failure = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let dash = args.iter().position(|a| a == "--");
    let command = match dash {
        Some(at) => args.split_off(at + 1),
        None => Vec::new(),
    };
    let ask = args.iter().any(|a| a == "--ask");
    let cancel = args.iter().any(|a| a == "--cancel");
    let refund = args.iter().any(|a| a == "--refund");
    let watch = args.iter().any(|a| a == "--watch");
    if command.is_empty() {
        eprintln!(
            "usage: task-client [--ask] [--cancel] [--refund] [--watch] -- <server command> [args...]"
        );
        std::process::exit(2);
    }
    let session = async {
        if refund || watch {
            run_session(command, watch).await
        } else {
            run(command, ask, cancel).await
        }
    };
    match tokio::time::timeout(Duration::from_secs(30), session).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            eprintln!("task-client: {e}");
            std::process::exit(1);
        }
        Err(_) => {
            eprintln!("task-client: timed out");
            std::process::exit(1);
        }
    }
}

async fn run(command: Vec<String>, ask: bool, cancel: bool) -> Result<(), Failure> {
    let mut child = tokio::process::Command::new(&command[0]);
    child.args(&command[1..]);
    let transport = TokioChildProcess::new(child)?;
    let config = ClientConfig::new(
        ClientCapabilities::builder().enable_tasks().build(),
        Implementation::new("mcp-replay-task-client", "1.0.0"),
    );
    let client = config.serve(transport).await?;
    let arguments = json!({"topic": "tides", "ask": ask});
    let response = client
        .call_tool_once(
            CallToolRequestParams::new("research")
                .with_arguments(serde_json::from_value(arguments)?),
        )
        .await?;
    let CallToolResponse::Task(created) = response else {
        return Err(format!("not a task: {response:?}").into());
    };
    let task_id = created.task.task_id.clone();
    if cancel {
        client
            .peer()
            .cancel_task(CancelTaskParams::new(task_id.clone()))
            .await?;
        let status = client
            .peer()
            .get_task(GetTaskParams::new(task_id))
            .await?
            .task
            .status();
        println!("{}", json!({"cancelled": format!("{status:?}")}));
        client.cancel().await?;
        return Ok(());
    }
    let interval = Duration::from_millis(created.task.poll_interval_ms.unwrap_or(50));
    let mut answered = false;
    loop {
        tokio::time::sleep(interval).await;
        let got = client
            .peer()
            .get_task(GetTaskParams::new(task_id.clone()))
            .await?;
        match got.task.payload {
            TaskPayload::Working => {}
            TaskPayload::InputRequired { input_requests } => {
                if answered {
                    continue;
                }
                let responses: InputResponses = input_requests
                    .keys()
                    .map(|k| {
                        (
                            k.clone(),
                            json!({"action": "accept", "content": {"meaning": "science"}}),
                        )
                    })
                    .collect();
                client
                    .peer()
                    .update_task(UpdateTaskParams::new(task_id.clone(), responses))
                    .await?;
                answered = true;
            }
            TaskPayload::Completed { result } => {
                let text = result["content"][0]["text"].clone();
                println!("{}", json!({"result": text}));
                break;
            }
            other => return Err(format!("the task ended {other:?}").into()),
        }
    }
    client.cancel().await?;
    Ok(())
}

/// The refund session, or (`watch`) the subscription session, with a child.
async fn run_session(command: Vec<String>, watch: bool) -> Result<(), Failure> {
    let mut child = tokio::process::Command::new(&command[0]);
    child.args(&command[1..]);
    let transport = TokioChildProcess::new(child)?;
    let outcome = match watch {
        true => mcp_replay_demo::watch::client::session(transport).await?,
        false => mcp_replay_demo::refund::client::session(transport).await?,
    };
    println!("{outcome}");
    Ok(())
}
