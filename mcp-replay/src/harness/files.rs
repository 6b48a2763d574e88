//! One test per fixture file (cargo feature `files`): a test target with `harness = false`
//! whose `main` names a folder of fixtures and the server, once; each `.jsonl` file below
//! the folder is a test of its own, named from its path (`issues/lookup.jsonl` is
//! `issues::lookup`), replayed against a fresh server, in `cargo test` and in `cargo nextest
//! list` alike (libtest-mimic speaks libtest's command line). A new file is a new test at
//! the next run, without touching code. Each test goes through [`Plan`], the one flow of a
//! replay: the folder's rules file, the update modes, the pending files, the page.
//!
//! ```toml
//! [dev-dependencies]
//! mcp-replay = { version = "0.1", features = ["files"] }
//!
//! [[test]]
//! name = "fixtures"
//! harness = false
//! ```
//!
//! ```no_run
//! // tests/fixtures.rs
//! use mcp_replay::harness::Files;
//!
//! # async fn serve(transport: mcp_replay::Transport) {}
//! fn main() -> std::process::ExitCode {
//!     Files::new(env!("CARGO_MANIFEST_DIR"), "fixtures").serve(serve).run()
//! }
//! ```

use super::plan::Plan;
use super::target::Target;
use crate::engine::replay::ServeOutput;
use crate::engine::transport::Transport;
use crate::lifecycle::update::UpdateMode;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// The serve closure every file's test calls, a fresh server each time.
type Factory = Arc<
    dyn Fn(
            Transport,
        )
            -> std::pin::Pin<Box<dyn Future<Output = Result<(), crate::ServerError>> + Send>>
        + Send
        + Sync,
>;

/// A folder of fixtures as one test per file: see the module's text.
#[must_use = "nothing runs until `run`"]
pub struct Files {
    root: PathBuf,
    folder: PathBuf,
    factory: Option<Factory>,
}

impl Files {
    /// The fixtures below `folder` (relative to `manifest_dir`,
    /// `env!("CARGO_MANIFEST_DIR")`).
    pub fn new(manifest_dir: &str, folder: impl AsRef<Path>) -> Files {
        let root = PathBuf::from(manifest_dir);
        Files {
            folder: root.join(folder),
            root,
            factory: None,
        }
    }

    /// The server each file replays against: `serve` serves a fresh one on each
    /// transport (for rmcp: `server.serve(transport).await?.waiting().await`).
    pub fn serve<F, Fut, O>(mut self, serve: F) -> Files
    where
        F: Fn(Transport) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.factory = Some(Arc::new(move |transport| {
            let serving = Box::pin(serve(transport));
            Box::pin(async move { serving.await.into_outcome() })
        }));
        self
    }

    /// The fixture files, each with its test's name: `.jsonl` files below the folder
    /// (not `.jsonl.new`), in path order, named by their path from the folder without the
    /// extension, `::` between folders.
    pub fn tests(&self) -> Vec<(String, PathBuf)> {
        let mut files = Vec::new();
        let mut stack = vec![self.folder.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let relative = path.strip_prefix(&self.folder).unwrap_or(&path);
                let name = relative
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("::");
                (name, path)
            })
            .collect()
    }

    /// Runs the tests libtest's command line asks for (`cargo test`, `cargo nextest`) and
    /// returns the exit code: one test per file; a folder with no fixture is an error.
    pub fn run(self) -> ExitCode {
        let args = libtest_mimic::Arguments::from_args();
        let tests = self.tests();
        if tests.is_empty() {
            eprintln!(
                "mcp-replay: no fixture (*.jsonl) below {}",
                self.folder.display()
            );
            return ExitCode::from(2);
        }
        let Some(factory) = self.factory else {
            eprintln!("mcp-replay: Files::run needs a server: call .serve(..) first");
            return ExitCode::from(2);
        };
        let root = self.root;
        let trials = tests
            .into_iter()
            .map(|(name, path)| {
                let factory = factory.clone();
                let root = root.clone();
                let test_name = name.clone();
                libtest_mimic::Trial::test(name, move || {
                    replay_file(&root, &path, &test_name, factory).map_err(Into::into)
                })
            })
            .collect();
        libtest_mimic::run(&args, trials).exit_code()
    }
}

/// One file's test: its plan in the update mode `MCP_FIXTURE_UPDATE` says, against a
/// fresh server, on a runtime of its own.
fn replay_file(root: &Path, path: &Path, name: &str, factory: Factory) -> Result<(), String> {
    let mode = UpdateMode::from_env().map_err(|e| e.to_string())?;
    let mut plan = Plan::new(path, mode);
    plan.workspace = super::resolve::workspace_root(root);
    plan.test = Some(name.to_owned());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("a runtime for the test: {e}"))?;
    let target = Target::serve_each(move |transport| factory(transport));
    runtime
        .block_on(plan.run_target(target))
        .map(|_| ())
        .map_err(|failure| failure.to_string())
}
