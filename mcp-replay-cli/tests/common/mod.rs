//! What the command's integration tests share: the binary, temporary folders, output
//! text and the external peers; and, one module each, what the two halves of a test file
//! share (`call`, `cli`, `http`, `output`): the tests of the command that need the demo
//! server are in the root package's tests (the repository's tests/), which include this
//! module from there (tests/command/mod.rs).
#![allow(dead_code)] // Each test file uses its own part.

pub mod call;
pub mod cli;
pub mod http;
pub mod output;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `mcp-replay` binary under test: this package's own, or the same command as the root
/// package builds it for its tests (`mcp-replay-for-tests`; its source is in demo/src/bin/).
pub fn mcp_replay() -> Command {
    Command::new(MCP_REPLAY)
}

/// Where [`mcp_replay`] is: cargo tells a package's integration tests where its own
/// binaries are (`CARGO_BIN_EXE_<name>`), and only those.
pub const MCP_REPLAY: &str = match option_env!("CARGO_BIN_EXE_mcp-replay") {
    Some(path) => path,
    None => match option_env!("CARGO_BIN_EXE_mcp-replay-for-tests") {
        Some(path) => path,
        None => panic!("no mcp-replay binary in this package"),
    },
};

/// The repository's root: the bundled fixtures (`fixtures/`), the test fixtures
/// (`tests/fixtures/`) and the test servers (`tests/servers/`). It is this package's folder
/// for the root package's tests and its parent for the command's (mcp-replay-cli/).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
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

/// Makes `dir` a Cargo project of its own: a `[workspace]` manifest and one test source
/// that names each of `fixtures` as `#[mcp_fixture("name")]` would. `check` then searches
/// that source, not the repository's (which names the test fixtures' files too), for the
/// fixtures below `dir`.
pub fn cargo_project(dir: &Path, fixtures: &[&str]) {
    std::fs::write(dir.join("Cargo.toml"), "[workspace]\n").expect("a manifest");
    std::fs::create_dir_all(dir.join("tests")).expect("a tests folder");
    let source: String = fixtures
        .iter()
        .map(|name| format!("#[mcp_fixture(\"{name}\")]\n"))
        .collect();
    std::fs::write(dir.join("tests/fixtures.rs"), source).expect("a test source");
}

/// stdout and stderr as text.
pub fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Program and arguments of an external peer (`python-server`, `python-client`,
/// `python-tour`, `python-modern-server`, `python-modern-client`, `python-notes-server`,
/// `python-notes-client`, `python-listen-server`, `python-listen-client`,
/// `python-otel-client`, `python-late-roots-client`, `everything`), installing
/// the peers first if this checkout has not ([`mcp_replay_peers`]). A peer that cannot be
/// installed fails the test.
pub fn peer(which: &str) -> Vec<String> {
    match which {
        "python-server" => mcp_replay_peers::python("server.py"),
        "python-client" => mcp_replay_peers::python("client.py"),
        "python-tour" => mcp_replay_peers::python("tour_server.py"),
        "python-modern-server" => mcp_replay_peers::python("modern_server.py"),
        "python-protected-server" => mcp_replay_peers::python("protected_server.py"),
        "python-modern-client" => mcp_replay_peers::python("modern_client.py"),
        "python-notes-server" => mcp_replay_peers::python("notes_server.py"),
        "python-notes-client" => mcp_replay_peers::python("notes_client.py"),
        "python-listen-server" => mcp_replay_peers::python("listen_server.py"),
        "python-listen-client" => mcp_replay_peers::python("listen_client.py"),
        "python-otel-client" => mcp_replay_peers::python("otel_client.py"),
        "python-late-roots-client" => mcp_replay_peers::python("late_roots_client.py"),
        "python-crm-server" => mcp_replay_peers::python("crm_server.py"),
        "python-crm-client" => mcp_replay_peers::python("crm_client.py"),
        "tower-server" => mcp_replay_peers::tower(),
        "ts-crm-client" => mcp_replay_peers::node("crm_client.mjs"),
        "python-order-server" => mcp_replay_peers::python("order_server.py"),
        "python-order-client" => mcp_replay_peers::python("order_client.py"),
        "everything" => mcp_replay_peers::everything(),
        other => panic!("unknown peer {other}"),
    }
}

/// Program and arguments of a tour client (`python-tour-client`: the Python SDK's
/// `peers/python/tour_client.py`, `ts-tour-client`: the TypeScript SDK's
/// `peers/node/tour_client.mjs`), with `--tour everything`, installing the peers first if
/// needed.
pub fn tour_client(which: &str) -> Vec<String> {
    let mut argv = match which {
        "python-tour-client" => mcp_replay_peers::python("tour_client.py"),
        "ts-tour-client" => mcp_replay_peers::node("tour_client.mjs"),
        other => panic!("unknown tour client {other}"),
    };
    argv.extend(["--tour".into(), "everything".into()]);
    argv
}

/// A running `mcp-replay serve --http 127.0.0.1:0 FIXTURE`, its URL read from the line it
/// prints once it listens.
pub struct HttpServe {
    child: std::process::Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The rest of its stderr, read to the end.
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Drop for HttpServe {
    /// A test that fails before it ends the command does not leave it running.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl HttpServe {
    /// Starts `mcp-replay serve --http 127.0.0.1:0` with `args` (options and the fixture)
    /// and waits for its `listening on` line (10 s at most).
    pub fn start(args: &[&str]) -> HttpServe {
        use std::io::{BufRead, BufReader, Read};
        let mut child = mcp_replay()
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("mcp-replay starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut first = String::new();
            let _ = stderr.read_line(&mut first);
            let _ = tx.send(first.clone());
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            first + &rest
        });
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .unwrap_or_default();
        let Some(url) = line
            .trim()
            .strip_prefix("mcp-replay serve: listening on ")
            .map(str::to_owned)
        else {
            let _ = child.kill();
            panic!("serve --http printed no `listening on` line: {line:?}");
        };
        HttpServe {
            child,
            url,
            stderr: Some(reader),
        }
    }

    /// Ends the command with SIGTERM (as a person's Ctrl-C: the reports are written), then
    /// [`finish`](HttpServe::finish)es it.
    pub fn stop(self) -> (Option<i32>, String) {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        self.finish()
    }

    /// Waits (60 s at most, else kills it and fails) for the command to end: its exit
    /// code and its whole stderr.
    pub fn finish(mut self) -> (Option<i32>, String) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("waiting works") {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                let stderr = self.stderr();
                panic!("serve --http did not end within 60 s; stderr:\n{stderr}");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        (status.code(), self.stderr())
    }

    /// Its whole stderr, once it has ended.
    fn stderr(&mut self) -> String {
        let reader = self.stderr.take().expect("read once");
        reader.join().unwrap_or_default()
    }
}
