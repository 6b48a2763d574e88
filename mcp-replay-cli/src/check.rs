//! `mcp-replay check`, `accept` and `reject`.

use crate::cli::{CheckArgs, PendingArgs};
use crate::Fatal;
use mcp_replay::Fixture;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The folders used when no path is given.
fn default_roots() -> Vec<PathBuf> {
    ["fixtures", "tests/fixtures"]
        .into_iter()
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect()
}

fn roots(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        default_roots()
    } else {
        paths.to_vec()
    }
}

/// Every file below `roots` (a root may be a file), sorted.
fn walk(roots: &[PathBuf]) -> Vec<PathBuf> {
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
    out
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub(crate) fn check(args: CheckArgs) -> Result<ExitCode, Fatal> {
    let roots = roots(&args.paths);
    if roots.is_empty() {
        return Err(Fatal(
            "no fixtures/ or tests/fixtures/ here: give the paths to check".into(),
        ));
    }
    let files = walk(&roots);
    let sources = rust_sources();
    let (mut checked, mut problems, mut warnings) = (0, 0, 0);
    for path in &files {
        let name = name_of(path);
        if name.ends_with(".jsonl.new") {
            problems += 1;
            println!(
                "{}: pending re-recording: review it, then `mcp-replay accept {}` or `mcp-replay reject {}`",
                path.display(),
                path.display(),
                path.display()
            );
        } else if name.starts_with('.') && name.contains(".jsonl.tmp.") {
            problems += 1;
            println!(
                "{}: a temporary file left by an interrupted write: delete it",
                path.display()
            );
        } else if name.ends_with(".jsonl") {
            checked += 1;
            if let Err(e) = Fixture::load(path) {
                problems += 1;
                println!("{e}");
            } else if !referenced(path, &sources) {
                warnings += 1;
                if args.strict {
                    problems += 1;
                }
                println!(
                    "{}: unreferenced: no .rs file under this folder names it (delete it, or ignore this if a CLI run uses it)",
                    path.display()
                );
            }
        }
    }
    println!("{checked} fixtures checked: {problems} problems, {warnings} warnings");
    Ok(if problems == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The text of every `.rs` file under the current folder (not `target/`).
fn rust_sources() -> String {
    walk(&[PathBuf::from(".")])
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Is the fixture named by some source: as `"name"` (an attribute), `"dir/name"`, or as a
/// path ending in `name.jsonl`?
fn referenced(path: &Path, sources: &str) -> bool {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    [
        format!("\"{stem}\""),
        format!("\"{parent}/{stem}\""),
        format!("{stem}.jsonl"),
    ]
    .iter()
    .any(|needle| sources.contains(needle.as_str()))
}

pub(crate) fn pending(args: PendingArgs, accept: bool) -> Result<ExitCode, Fatal> {
    let mut found = 0;
    for path in walk(&roots(&args.paths)) {
        let name = name_of(&path);
        let pending = if name.ends_with(".jsonl.new") {
            path.clone()
        } else if name.ends_with(".jsonl") {
            let mut p = path.clone().into_os_string();
            p.push(".new");
            PathBuf::from(p)
        } else {
            continue;
        };
        if !pending.is_file() {
            continue;
        }
        found += 1;
        let target = pending.with_extension("");
        if accept {
            std::fs::rename(&pending, &target)
                .map_err(|e| Fatal(format!("accepting {}: {e}", pending.display())))?;
            println!("accepted {} -> {}", pending.display(), target.display());
        } else {
            std::fs::remove_file(&pending)
                .map_err(|e| Fatal(format!("rejecting {}: {e}", pending.display())))?;
            println!("rejected {}", pending.display());
        }
    }
    if found == 0 {
        println!("no pending .jsonl.new files");
    }
    Ok(ExitCode::SUCCESS)
}
