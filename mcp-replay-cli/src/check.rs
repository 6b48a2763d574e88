//! `mcp-replay check`, `accept` and `reject`.

use crate::cli::{CheckArgs, Format, PendingArgs};
use crate::{junit, print_json, Fatal};
use mcp_replay::{output, Error, Fixture};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

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

/// One thing `check` found about one file.
struct Problem {
    /// `invalid`, `secret`, `unreadable`, `pending`, `temporary`, `unreferenced`.
    kind: &'static str,
    /// The line of the fixture it is on, when it is on one.
    line: Option<usize>,
    /// The sentence printed for it.
    summary: String,
    /// A problem (exit 1), or a warning only (`unreferenced` without `--strict`).
    problem: bool,
}

pub(crate) fn check(args: CheckArgs) -> Result<ExitCode, Fatal> {
    let started = Instant::now();
    let roots = roots(&args.paths);
    if roots.is_empty() {
        return Err(Fatal(
            "no fixtures/ or tests/fixtures/ here: give the paths to check".into(),
        ));
    }
    let files = walk(&roots);
    let sources = rust_sources();
    let mut checked = 0;
    // Every fixture, pending or temporary file, with what was found about it.
    let mut found: Vec<(&PathBuf, Vec<Problem>)> = Vec::new();
    for path in &files {
        let name = name_of(path);
        let mut problems = Vec::new();
        if name.ends_with(".jsonl.new") {
            problems.push(Problem {
                kind: "pending",
                line: None,
                summary: format!(
                    "{}: pending re-recording: review it, then `mcp-replay accept {}` or `mcp-replay reject {}`",
                    path.display(),
                    path.display(),
                    path.display()
                ),
                problem: true,
            });
        } else if name.starts_with('.') && name.contains(".jsonl.tmp.") {
            problems.push(Problem {
                kind: "temporary",
                line: None,
                summary: format!(
                    "{}: a temporary file left by an interrupted write: delete it",
                    path.display()
                ),
                problem: true,
            });
        } else if name.ends_with(".jsonl") {
            checked += 1;
            if let Err(e) = Fixture::load(path) {
                let (kind, line) = match &e {
                    Error::Parse { line, .. } => ("invalid", Some(*line)),
                    Error::Secret { line, .. } => ("secret", Some(*line)),
                    _ => ("unreadable", None),
                };
                problems.push(Problem {
                    kind,
                    line,
                    summary: e.to_string(),
                    problem: true,
                });
            } else if !referenced(path, &sources) {
                problems.push(Problem {
                    kind: "unreferenced",
                    line: None,
                    summary: format!(
                        "{}: unreferenced: no .rs file under this folder names it (delete it, or ignore this if a CLI run uses it)",
                        path.display()
                    ),
                    problem: args.strict,
                });
            }
        } else {
            continue;
        }
        found.push((path, problems));
    }
    let all = || found.iter().flat_map(|(_, p)| p);
    let problems = all().filter(|p| p.problem).count();
    let warnings = all().filter(|p| p.kind == "unreferenced").count();
    match args.output.format {
        Format::Text => {
            for p in all() {
                println!("{}", p.summary);
            }
            println!("{checked} fixtures checked: {problems} problems, {warnings} warnings");
        }
        Format::Json => {
            let fixtures = found
                .iter()
                .map(|(path, found)| {
                    json!({
                        "fixture": path.display().to_string(),
                        "ok": !found.iter().any(|p| p.problem),
                        "findings": found.iter().map(|p| json!({
                            "kind": p.kind,
                            "line": p.line,
                            "summary": p.summary,
                            "problem": p.problem,
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let mut document = output::document("check", fixtures);
            document["checked"] = checked.into();
            document["problems"] = problems.into();
            document["warnings"] = warnings.into();
            print_json(&document)?;
        }
    }
    if let Some(file) = &args.output.junit {
        let cases: Vec<junit::Case> = found
            .iter()
            .map(|(path, found)| {
                let failing: Vec<&Problem> = found.iter().filter(|p| p.problem).collect();
                let outcome = match failing.first() {
                    None => junit::Verdict::Passed,
                    Some(first) => junit::Verdict::Failure {
                        message: format!(
                            "{} problem{}",
                            failing.len(),
                            if failing.len() == 1 { "" } else { "s" }
                        ),
                        kind: first.kind.into(),
                        text: failing
                            .iter()
                            .map(|p| p.summary.as_str())
                            .collect::<Vec<_>>()
                            .join("\n"),
                    },
                };
                junit::Case {
                    name: path.display().to_string(),
                    classname: "mcp-replay.check",
                    time: Duration::ZERO,
                    outcome,
                }
            })
            .collect();
        junit::write(file, &cases, started.elapsed())?;
    }
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
