//! The checks every SDK peer passes (peers/battery, docs/sdks.md), against the TypeScript
//! SDK's notes server (peers/node/notes_server.mjs) as a child process: its refusals are
//! worded as neither Rust SDK words them (`MCP error -32602: Input validation error: ...`),
//! and its list comes in an order drawn anew each call. The turbomcp and pmcp peers run the
//! same checks in process, each in its own workspace (`sdks_in_process` below).

use mcp_replay_battery as battery;

fn typescript() -> battery::Sdk {
    battery::Sdk::command("typescript", mcp_replay_peers::node("notes_server.mjs"))
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_a_refused_create_is_never_written_but_by_force() {
    battery::a_refused_create_is_never_written_but_by_force(&typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_a_list_in_per_run_order_recorded_fresh_passes_every_run() {
    battery::a_list_in_per_run_order_recorded_fresh_passes_every_run(&typescript(), 20, 10).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_an_id_only_in_text_binds_on_every_path() {
    battery::an_id_only_in_text_binds_on_every_path(&typescript(), 20).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_a_value_in_structure_and_text_replays_and_rerecords_the_same() {
    battery::a_value_in_structure_and_text_replays_and_rerecords_the_same(&typescript(), 20).await;
}
