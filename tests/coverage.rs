//! What the bundled fixtures cover of the demo server, in process: the server's surface
//! asked by `coverage::probe` (in both eras), against `fixtures/*.jsonl`; and
//! `harness::coverage_of`, the one call a test makes: the same figures `mcp-replay coverage
//! -- demo-server` gives for the same fixtures (`tests/cli.rs`), and a folder read as
//! `check` reads it.

use mcp_replay::_support::coverage::{probe, Coverage, Surface};
use mcp_replay::_support::protocol::Era;
use mcp_replay::harness::coverage_of;
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

const FIXTURES: [&str; 6] = [
    "lookup_issue",
    "count_up_progress",
    "divide_by_zero",
    "job_status",
    "list_and_read",
    "handshake_and_tools_list",
];

#[tokio::test]
async fn the_in_process_server_gets_the_coverage_the_command_gives() {
    let paths: Vec<String> = FIXTURES
        .iter()
        .map(|f| format!("{}/fixtures/{f}.jsonl", env!("CARGO_MANIFEST_DIR")))
        .collect();
    let coverage = coverage_of(&paths, serve).await.expect("asked");
    let text = coverage.to_string();
    assert!((coverage.percent() - 71.4).abs() < 0.05, "{text}");
    assert!(text.contains("tools: 4 of 5 called"), "{text}");
    assert!(
        text.trim_end().ends_with("coverage: 71.4% (5 of 7 tools, prompts, resources and resource templates, in 6 fixtures)"),
        "{text}"
    );

    // A folder: its .jsonl fixtures, not its other files.
    let dir = std::env::temp_dir().join(format!("mcp-replay-coverage-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    std::fs::copy(&paths[0], dir.join("lookup_issue.jsonl")).unwrap();
    std::fs::copy(&paths[2], dir.join("nested/divide_by_zero.jsonl")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a fixture").unwrap();
    let folder = coverage_of(&[&dir], serve).await.expect("asked");
    assert!(folder.to_string().contains("in 2 fixtures"), "{folder}");
    let empty = dir.join("nested/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let none = coverage_of(&[&empty], serve).await.expect_err("no fixture");
    assert!(none.contains("no fixture (*.jsonl) there"), "{none}");
    std::fs::remove_dir_all(&dir).unwrap();
}
