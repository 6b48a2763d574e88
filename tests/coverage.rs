//! What the bundled fixtures cover of the demo server, in process: the server's surface
//! asked by `coverage::probe` (in both eras), against `fixtures/*.jsonl`.

use mcp_replay::coverage::{probe, Coverage, Surface};
use mcp_replay::protocol::Era;
use mcp_replay::{Fixture, Transport};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;

async fn serve(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

fn bundled() -> Vec<Fixture> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    paths.sort();
    paths.iter().map(|p| Fixture::load(p).unwrap()).collect()
}

async fn surface(era: Era) -> Surface {
    let report = probe(era, &serde_json::json!({})).replay().run(serve).await;
    let recorded = report.recorded().expect("the probe's exchange is recorded");
    Surface::of(&[recorded])
}

#[tokio::test]
async fn the_bundled_fixtures_cover_the_demo_servers_tools_in_both_eras() {
    let fixtures = bundled();
    let refs: Vec<&Fixture> = fixtures.iter().collect();
    for era in [Era::Legacy, Era::Stateless] {
        let surface = surface(era).await;
        let names: Vec<&str> = surface.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["count_up", "divide", "echo", "job_status", "lookup_issue"],
            "{era}"
        );
        assert!(surface.capabilities.contains("tools"), "{era}");
        let coverage = Coverage::of(&surface, &refs);
        let called: Vec<(&str, usize)> = coverage
            .tools
            .iter()
            .map(|t| (t.name.as_str(), t.calls))
            .collect();
        assert!(called.iter().all(|(_, n)| *n > 0), "{era}: {coverage}");
        // divide_by_zero.jsonl answers with an error result.
        let divide = coverage.tools.iter().find(|t| t.name == "divide").unwrap();
        assert!(divide.errors > 0, "{coverage}");
        assert!(coverage.methods.contains("tools/call"));
        assert!(coverage
            .notifications
            .contains("server->client notifications/progress"));
        // Five tools called and one of two resources read: `demo://tools` never.
        assert_eq!(coverage.counts(), (6, 7), "{coverage}");
        assert_eq!(coverage.percent(), 85.7);
        let unread: Vec<&str> = coverage
            .resources
            .iter()
            .filter(|r| r.reads == 0)
            .map(|r| r.uri.as_str())
            .collect();
        assert_eq!(unread, ["demo://tools"]);
        assert!(coverage.not_advertised.contains("tools/call no_such_tool"));
        println!("{era}:\n{coverage}\n");
    }
}
