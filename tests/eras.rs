//! The same fixtures in both protocol eras: the legacy handshake (2025-11-25) and the
//! stateless 2026-07-28 revision, where every request carries its identity in `_meta`.

use mcp_replay::{mcp_fixture, Fixture, MismatchKind, Transport};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;

async fn serve(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

/// The seed's two-line fixture, unchanged, against a server in the stateless era: the
/// harness adds the `_meta` identity and sends no handshake; `resultType: "complete"`
/// is the era's default and normalized away.
#[mcp_fixture("lookup_issue", protocol = "2026-07-28")]
#[tokio::test]
async fn the_seed_fixture_passes_in_the_stateless_era(transport: Transport) {
    serve(transport).await;
}

#[mcp_fixture("count_up_progress", protocol = "2026-07-28")]
#[tokio::test]
async fn progress_passes_in_the_stateless_era(transport: Transport) {
    serve(transport).await;
}

/// A fixture that starts with `server/discover` is in the stateless era by itself.
#[mcp_fixture("discover_and_call")]
#[tokio::test]
async fn discover_then_call(transport: Transport) {
    serve(transport).await;
}

#[tokio::test]
async fn a_changed_discovery_result_is_a_result_finding() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/discover_and_call.jsonl"
    );
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("\"cacheScope\":\"private\"", "\"cacheScope\":\"public\"");
    let report = Fixture::parse(&text).unwrap().replay(serve).await;
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::Result], "{report}");
    assert_eq!(
        report.mismatches()[0].differences()[0].path,
        ".result.cacheScope"
    );
}
