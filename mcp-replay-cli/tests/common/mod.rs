//! What the command's integration tests share: the binaries, temporary folders, output
//! text and the external peers.
#![allow(dead_code)] // Each test file uses its own part.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `mcp-replay` binary under test.
pub fn mcp_replay() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-replay"))
}

/// `target/<profile>/demo-server`, built on demand (it belongs to the root package).
pub fn demo_server() -> PathBuf {
    let dir = Path::new(env!("CARGO_BIN_EXE_mcp-replay"))
        .parent()
        .expect("the binary is in a folder")
        .to_owned();
    let path = dir.join("demo-server");
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args([
                "build",
                "-q",
                "-p",
                "mcp-replay-demo",
                "--bin",
                "demo-server",
            ])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building demo-server failed");
    }
    path
}

/// The repository's root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate is in the workspace")
        .to_owned()
}

/// A fresh, empty folder for one test (`prefix-name-pid`).
pub fn temp_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// stdout and stderr as text.
pub fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Program and arguments of an external peer (`python-server`, `python-client`,
/// `python-tour`, `everything`), or `None` (with a notice) when `bash peers/install.sh` has
/// not run; under CI a missing peer fails the test instead.
pub fn peer(which: &str) -> Option<Vec<String>> {
    let peers = workspace().join("peers");
    let python = peers.join("python/.venv/bin/python");
    let everything =
        peers.join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let script = |name: &str| {
        vec![
            python.display().to_string(),
            peers.join("python").join(name).display().to_string(),
        ]
    };
    let (check, argv): (&Path, Vec<String>) = match which {
        "python-server" => (&python, script("server.py")),
        "python-client" => (&python, script("client.py")),
        "python-tour" => (&python, script("tour_server.py")),
        "everything" => (
            &everything,
            vec![
                "node".into(),
                everything.display().to_string(),
                "stdio".into(),
            ],
        ),
        other => panic!("unknown peer {other}"),
    };
    if check.exists() {
        return Some(argv);
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    assert!(
        !ci,
        "the {which} peer is not installed: CI must run `bash peers/install.sh` first"
    );
    eprintln!("SKIPPED: the {which} peer is not installed; run `bash peers/install.sh`");
    None
}
