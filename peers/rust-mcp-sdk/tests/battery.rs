//! The checks every SDK peer passes (peers/battery, docs/sdks.md), against the rust-mcp-sdk
//! notes server in process. rust-mcp-sdk 2.0 speaks protocol 2026-07-28 only: the client
//! lines open with `server/discover` under a header naming that protocol, and the test
//! body's rmcp client discovers instead of initializing.

use mcp_replay_battery as battery;

fn rust_mcp_sdk() -> battery::Sdk {
    battery::Sdk::in_process("rust-mcp-sdk", |transport, next| async move {
        let _ = mcp_replay_rust_mcp_sdk_peer::serve_on(transport, next).await;
    })
    .stateless()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_create_is_never_written_but_by_force() {
    battery::a_refused_create_is_never_written_but_by_force(&rust_mcp_sdk()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_in_per_run_order_recorded_fresh_passes_every_run() {
    battery::a_list_in_per_run_order_recorded_fresh_passes_every_run(&rust_mcp_sdk(), 20, 10).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_id_only_in_text_binds_on_every_path() {
    battery::an_id_only_in_text_binds_on_every_path(&rust_mcp_sdk(), 20).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_value_in_structure_and_text_replays_and_rerecords_the_same() {
    battery::a_value_in_structure_and_text_replays_and_rerecords_the_same(&rust_mcp_sdk(), 20)
        .await;
}
