//! The conformance suite's server scenarios recorded against the rmcp demo server
//! (`demo-server http ADDR`, by `scripts/conformance-corpus.sh` into
//! `mcp-replay-cli/tests/fixtures/conformance/demo/`): every recording the corpus kept
//! replays green against a fresh demo server. The rest of the corpus (the other servers,
//! the mock against the suite, the clients) is tested by `mcp-replay-cli/tests/conformance.rs`.

mod command;

use command::http::replay_over_http;
use command::{demo_server, workspace};
use std::path::{Path, PathBuf};

#[test]
fn the_demo_server_recordings_of_the_conformance_suite_replay_green() {
    let corpus = workspace().join("mcp-replay-cli/tests/fixtures/conformance");
    let results = std::fs::read_to_string(corpus.join("results.tsv")).expect("results.tsv");
    let mut fixtures: Vec<PathBuf> = results
        .lines()
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .filter(|cells| cells.len() == 6 && cells[0] == "demo" && cells[5].starts_with("kept"))
        .map(|cells| corpus.join("demo").join(format!("{}.jsonl", cells[1])))
        .collect();
    fixtures.sort();
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("demo"))
        .expect("the demo recordings")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert_eq!(
        files, fixtures,
        "the fixtures are the kept rows of results.tsv"
    );
    assert!(!fixtures.is_empty());
    let paths: Vec<&Path> = fixtures.iter().map(PathBuf::as_path).collect();
    let (ran, _) = replay_over_http(&paths, &[], |port| {
        vec![
            demo_server().display().to_string(),
            "http".into(),
            format!("127.0.0.1:{port}"),
        ]
    });
    ran.assert_green(paths.len());
}
