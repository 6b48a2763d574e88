//! The files `check`, `accept` and `reject` look at: the paths given (or the default
//! fixture folders), walked.

use crate::error::Error;
use std::path::{Path, PathBuf};

/// The folders used when no path is given.
fn default_roots() -> Vec<PathBuf> {
    ["fixtures", "tests/fixtures"]
        .into_iter()
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect()
}

/// The paths given, or the default folders; a path that does not exist is an error
/// (exit status 2: there is nothing to look at, unlike a file with a problem).
pub(crate) fn roots(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        return Err(Error::input(format!(
            "{} does not exist (give fixtures or folders of fixtures)",
            missing.display()
        )));
    }
    Ok(if paths.is_empty() {
        default_roots()
    } else {
        paths.to_vec()
    })
}

/// Every file below `roots` (a root may be a file), sorted, each once: `check a.jsonl .`
/// or `check ./a.jsonl a.jsonl` names the same file twice (compared as canonical paths).
pub(crate) fn walk(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            if path
                .file_name()
                .is_some_and(|n| n == "target" || n == "node_modules" || n == ".venv")
            {
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.filter_map(Result::ok).map(|e| e.path()));
            }
        } else {
            out.push(path);
        }
    }
    out.sort();
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
    out
}

/// The file name of `path`, as text.
pub(crate) fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
