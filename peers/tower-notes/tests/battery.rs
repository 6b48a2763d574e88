//! The checks every SDK peer passes (peers/battery, docs/sdks.md), against the tower-mcp notes
//! server in process.

use mcp_replay_battery as battery;

fn tower() -> battery::Sdk {
    battery::Sdk::in_process("tower-mcp", |transport, next| async move {
        let _ = mcp_replay_tower_notes_peer::serve_on(transport, next).await;
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_create_is_never_written_but_by_force() {
    battery::a_refused_create_is_never_written_but_by_force(&tower()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_in_per_run_order_recorded_fresh_passes_every_run() {
    battery::a_list_in_per_run_order_recorded_fresh_passes_every_run(&tower(), 20, 10).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_id_only_in_text_binds_on_every_path() {
    battery::an_id_only_in_text_binds_on_every_path(&tower(), 20).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_value_in_structure_and_text_replays_and_rerecords_the_same() {
    battery::a_value_in_structure_and_text_replays_and_rerecords_the_same(&tower(), 20).await;
}
