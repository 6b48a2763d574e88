//! What the fixtures cover of a live server, in one flow for the command and for a test:
//! the server's surface asked with the probe fixture ([`coverage::probe`], then
//! [`coverage::probe_next`] for each listing still in pages, each round a fresh session of
//! a fresh target), and the fixtures read from files or folders.
//!
//! [`coverage::probe`]: crate::coverage::probe
//! [`coverage::probe_next`]: crate::coverage::probe_next

use super::target::Target;
use crate::analyses::coverage::{client_capabilities, probe, probe_next, Coverage, Surface};
use crate::data::fixture::Fixture;
use crate::data::protocol::Era;
use crate::engine::replay::ServeOutput;
use crate::engine::transport::Transport;
use crate::error::Error;
use crate::options::Options;
use crate::rules::Rules;
use std::future::Future;
use std::path::{Path, PathBuf};

/// The fixtures at `paths`: each file, and the `.jsonl` files below each folder (not in
/// `target`, `node_modules` or `.venv`), in path order, each once. A fixture that does not
/// load is the error; no fixture at all is an error naming the paths.
pub fn load_fixtures(paths: &[impl AsRef<Path>]) -> Result<Vec<Fixture>, Error> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack: Vec<(PathBuf, bool)> = paths
        .iter()
        .map(|p| (p.as_ref().to_path_buf(), true))
        .collect();
    while let Some((path, given)) = stack.pop() {
        if path.is_dir() {
            let skipped = path
                .file_name()
                .is_some_and(|n| n == "target" || n == "node_modules" || n == ".venv");
            if skipped && !given {
                continue;
            }
            let entries = std::fs::read_dir(&path)
                .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
            stack.extend(entries.filter_map(Result::ok).map(|e| (e.path(), false)));
        } else if given || path.extension().is_some_and(|e| e == "jsonl") {
            files.push(path);
        }
    }
    files.sort();
    files.dedup();
    if files.is_empty() {
        let names: Vec<String> = paths
            .iter()
            .map(|p| p.as_ref().display().to_string())
            .collect();
        return Err(Error::io(
            format!("looking for fixtures in {}", names.join(", ")),
            std::io::Error::new(std::io::ErrorKind::NotFound, "no fixture (*.jsonl) there"),
        ));
    }
    files.iter().map(Fixture::load).collect()
}

/// The era to ask a server in for `fixtures`: stateless when one of them is.
pub fn era_of(fixtures: &[&Fixture]) -> Era {
    if fixtures.iter().any(|f| f.era().is_stateless()) {
        Era::Stateless
    } else {
        Era::Legacy
    }
}

/// The live server's surface: the probe (declaring the `fixtures`' client capabilities,
/// in `era`) replayed against `target()` and re-recorded, then again with the next page of
/// each listing in pages, each round a new target (a new session: the cursors are those
/// the server gives in it). `Err`: why the server could not be asked.
pub async fn ask_surface<'a>(
    mut target: impl FnMut() -> Target<'a>,
    fixtures: &[&Fixture],
    era: Era,
    rules: &Rules,
    options: &Options,
) -> Result<Surface, String> {
    let mut fixture = probe(era, &client_capabilities(fixtures));
    let options = options.clone().protocol(era.default_version());
    loop {
        let report = target()
            .replay(&fixture, rules, &options)
            .await
            .map_err(|failure| failure.to_string())?;
        let Some(recorded) = report.recorded() else {
            return Err(format!(
                "could not ask the server for its surface:\n{report}"
            ));
        };
        match probe_next(recorded) {
            Some(next) => fixture = next,
            None => return Ok(Surface::of(&[recorded])),
        }
    }
}

/// What the fixtures at `paths` (files, or folders of `.jsonl` fixtures) exercise of what
/// the server `serve` runs in process advertises: the coverage `mcp-replay coverage`
/// gives, from a test, where an rmcp server lives. `serve` is called once per listing
/// round, a fresh server each time.
///
/// ```no_run
/// use mcp_replay::harness::coverage_of;
/// use mcp_replay::Transport;
///
/// # async fn serve(transport: Transport) {}
/// #[tokio::test]
/// async fn fixtures_cover_the_server() {
///     let coverage = coverage_of(&["fixtures"], serve).await.unwrap();
///     assert!(coverage.percent() >= 80.0, "{coverage}");
/// }
/// ```
pub async fn coverage_of<F, Fut, O>(
    paths: &[impl AsRef<Path>],
    serve: F,
) -> Result<Coverage, String>
where
    F: Fn(Transport) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = O> + Send + 'static,
    O: ServeOutput,
{
    let fixtures = load_fixtures(paths).map_err(|e| e.to_string())?;
    let refs: Vec<&Fixture> = fixtures.iter().collect();
    let surface = ask_surface(
        || Target::serve_each(serve.clone()),
        &refs,
        era_of(&refs),
        &Rules::default(),
        &Options::new(),
    )
    .await?;
    Ok(Coverage::of(&surface, &refs))
}
