//! Replays the bundled fixtures against the bundled demo server and prints the report.
//!
//! ```text
//! cargo run --example demo                      # every fixtures/*.jsonl
//! cargo run --example demo -- path/to/x.jsonl   # the named fixtures
//! ```
//!
//! Exits 0 only when every fixture passes.

use mcp_replay::{Fixture, Rules};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let mut paths: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        // The bundled fixtures, at the repository's root.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the demo is in the workspace")
            .join("fixtures");
        match std::fs::read_dir(&dir) {
            Ok(entries) => paths = entries.filter_map(Result::ok).map(|e| e.path()).collect(),
            Err(e) => {
                eprintln!("cannot read {}: {e}", dir.display());
                return ExitCode::FAILURE;
            }
        }
        paths.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
        paths.sort();
    }
    let (mut passed, mut failed) = (0, 0);
    for path in &paths {
        let fixture = match Fixture::load(path) {
            Ok(fixture) => fixture,
            Err(e) => {
                println!("{e}\n");
                failed += 1;
                continue;
            }
        };
        // The default rules plus the fixture folder's rules file, as the tests use them.
        let folder = path.parent().unwrap_or(std::path::Path::new("."));
        let rules = match Rules::load_folder(folder) {
            Ok(Some(file)) => Rules::default().merge(&file),
            Ok(None) => Rules::default(),
            Err(e) => {
                println!("{e}\n");
                failed += 1;
                continue;
            }
        };
        let report = fixture
            .replay()
            .rules(&rules)
            .run(|transport| async move {
                let server = DemoServer::default().serve(transport).await?;
                server.waiting().await?;
                Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
            })
            .await
            .with_rerecord_command("MCP_FIXTURE_UPDATE=1 cargo test --test demo_fixtures");
        if report.is_ok() {
            passed += 1;
            let n = fixture.entries().len();
            println!("{report} ({n} messages)");
        } else {
            failed += 1;
            println!("{report}\n");
        }
    }
    println!("\n{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
