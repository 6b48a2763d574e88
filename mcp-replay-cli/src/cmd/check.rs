//! `mcp-replay check`: lints fixtures (format, secrets, pending and temporary files,
//! fixtures no test names).

use crate::args::{Format, OutputArgs};
use crate::error::{Error, Outcome};
use crate::files::{name_of, roots, walk};
use crate::junit;
use crate::out::{outln, print_json};
use mcp_replay::_support::output;
use mcp_replay::personal::{self, DenyList};
use mcp_replay::Fixture;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `mcp-replay check`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Fixtures or folders [default: fixtures/ and tests/fixtures/ when they exist]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// What to do with a fixture no .rs file of its Cargo project names: warn (the
    /// default), reject (a problem, exit 1), or delete it (and its pending file). Only where
    /// the tests can be searched: a fixture outside a Cargo project is never unreferenced
    #[arg(long, value_name = "WHAT", value_enum, default_value_t = Unreferenced::Warn)]
    pub unreferenced: Unreferenced,
    /// The same as --unreferenced=reject
    #[arg(long, conflicts_with = "unreferenced")]
    pub strict: bool,
    /// Report what the server sends that is not valid MCP (the specification's schema of
    /// its era's revision, and each tool's own outputSchema) as warnings, not problems: for
    /// a server you cannot fix
    #[arg(long)]
    pub protocol_warnings: bool,
    /// Fail when a fixture holds any value listed in FILE (one a line; `[kind]` headers and
    /// `#` comments are skipped), in any case, percent-encoded or JSON-escaped; the findings
    /// name line and path, never the value. Also MCP_REPLAY_DENY_VALUES
    #[arg(long, value_name = "FILE")]
    pub deny_values: Vec<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// What `check` does with an unreferenced fixture (`--unreferenced`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Unreferenced {
    /// A warning: listed, exit status unchanged
    Warn,
    /// A problem: exit 1
    Reject,
    /// Deleted, with its pending NAME.jsonl.new if any; listed as deleted
    Delete,
}

/// The examples and exit statuses of `mcp-replay check --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay check\n",
    "  mcp-replay check --unreferenced=reject tests/fixtures\n",
    "  mcp-replay check --unreferenced=delete\n",
    "  mcp-replay check --deny-values sensitive.txt   (CI: no original value survived)\n",
    "  mcp-replay check --format json --junit check.xml   (CI)\n",
    "\n",
    "Exit 1 when a file has a problem (invalid, empty, a secret, a denied value, pending,\n",
    "temporary, a server message that is not valid MCP unless --protocol-warnings, a client\n",
    "placeholder such as <MINTED:1> that nothing before it can bind;\n",
    "unreferenced with\n",
    "--unreferenced=reject): finding those is check's job. --unreferenced=delete deletes\n",
    "each fixture no test names (searched in the .rs files of its Cargo project) and its\n",
    "pending file, and lists it. Exit 2 when a PATH does not exist, or a file could not be\n",
    "deleted."
);

/// One thing `check` found about one file.
struct Problem {
    /// `invalid`, `secret`, `unreadable`, `pending`, `temporary`, `unreferenced`,
    /// `deleted` (an unreferenced fixture `--unreferenced=delete` deleted), `protocol`,
    /// `unbindable` (a client placeholder nothing before it binds), `personal`, `denied`.
    kind: &'static str,
    /// The line of the fixture it is on, when it is on one.
    line: Option<usize>,
    /// The sentence printed for it.
    summary: String,
    /// A problem (exit 1), or a warning only (`unreferenced` without
    /// `--unreferenced=reject`, `deleted`).
    problem: bool,
}

/// `mcp-replay check`: lints every fixture under the paths (or the default folders),
/// reports what it found as text or JSON, and as JUnit when asked; exit 1 on a problem.
pub(crate) fn run(args: Args) -> Result<Outcome, Error> {
    let started = Instant::now();
    let roots = roots(&args.paths)?;
    if roots.is_empty() {
        return Err(Error::usage(
            "no fixtures/ or tests/fixtures/ here: give the paths to check",
        ));
    }
    let files = walk(&roots);
    let deny = deny_lists(&args.deny_values)?;
    let mut sources = Sources::default();
    let unreferenced = if args.strict {
        Unreferenced::Reject
    } else {
        args.unreferenced
    };
    let mut found = Found::gather(
        &files,
        &mut sources,
        unreferenced == Unreferenced::Reject,
        !args.protocol_warnings,
    );
    found.add_denied(&deny);
    if unreferenced == Unreferenced::Delete {
        found.delete_unreferenced()?;
    }
    match args.output.format {
        Format::Text => found.print_text(),
        Format::Json => print_json(&found.to_json())?,
        Format::Sarif => print_json(&found.to_sarif())?,
    }
    if let Some(file) = &args.output.junit {
        junit::write(file, &found.junit_cases(), started.elapsed())?;
    }
    Ok(if found.problems() == 0 {
        Outcome::Success
    } else {
        Outcome::Findings
    })
}

/// What `check` found: how many fixtures it checked, and every fixture, pending or
/// temporary file with its problems, in path order.
struct Found<'a> {
    checked: usize,
    files: Vec<(&'a PathBuf, Vec<Problem>)>,
}

impl<'a> Found<'a> {
    /// Looks at each of `files` by its name: pending, temporary, or a fixture to load and
    /// look for in `sources`; other files are skipped.
    fn gather(
        files: &'a [PathBuf],
        sources: &mut Sources,
        strict: bool,
        protocol_problems: bool,
    ) -> Found<'a> {
        let mut found = Found {
            checked: 0,
            files: Vec::new(),
        };
        for path in files {
            let name = name_of(path);
            let problems = if name.ends_with(".jsonl.new") {
                vec![pending_problem(path)]
            } else if name.starts_with('.') && name.contains(".jsonl.tmp.") {
                vec![temporary_problem(path)]
            } else if name.ends_with(".jsonl") {
                found.checked += 1;
                fixture_problems(path, sources, strict, protocol_problems)
            } else {
                continue;
            };
            found.files.push((path, problems));
        }
        found
    }

    /// Deletes every unreferenced fixture and its pending file; the finding says so. A file
    /// that cannot be deleted is an error (exit 2), after the ones deleted before it.
    fn delete_unreferenced(&mut self) -> Result<(), Error> {
        for (path, problems) in &mut self.files {
            let Some(problem) = problems.iter_mut().find(|p| p.kind == "unreferenced") else {
                continue;
            };
            for file in [
                mcp_replay::_support::update::pending_path(path),
                path.to_path_buf(),
            ] {
                match std::fs::remove_file(&file) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(Error::output(format!("deleting {}: {e}", file.display())))
                    }
                    _ => {}
                }
            }
            problem.kind = "deleted";
            problem.summary = format!(
                "{}: deleted: no .rs file of its Cargo project names it",
                path.display()
            );
        }
        // A deleted pending file is no longer a problem of its own.
        self.files
            .retain(|(path, _)| path.exists() || !name_of(path).ends_with(".jsonl.new"));
        Ok(())
    }

    /// The `denied` problems of every fixture and pending file: where it holds a value of
    /// the deny lists.
    fn add_denied(&mut self, deny: &[DenyList]) {
        if deny.is_empty() {
            return;
        }
        for (path, problems) in &mut self.files {
            let path: &Path = path.as_path();
            let name = name_of(path);
            if !(name.ends_with(".jsonl") || name.ends_with(".jsonl.new")) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            for denied in deny.iter().flat_map(|d| d.check(&text)) {
                problems.push(Problem {
                    kind: "denied",
                    line: Some(denied.line),
                    summary: format!("{}: {denied}", path.display()),
                    problem: true,
                });
            }
        }
    }

    /// Every problem and warning, file by file.
    fn all(&self) -> impl Iterator<Item = &Problem> {
        self.files.iter().flat_map(|(_, p)| p)
    }

    /// How many problems (what makes `check` exit 1).
    fn problems(&self) -> usize {
        self.all().filter(|p| p.problem).count()
    }

    /// How many warnings: findings that are not problems (`unreferenced` without
    /// `--strict`). A finding counts once, as a problem or as a warning.
    fn warnings(&self) -> usize {
        self.all()
            .filter(|p| !p.problem && p.kind != "deleted")
            .count()
    }

    /// How many unreferenced fixtures `--unreferenced=delete` deleted.
    fn deleted(&self) -> usize {
        self.all().filter(|p| p.kind == "deleted").count()
    }

    /// The text report: each finding's sentence, then the counts.
    fn print_text(&self) {
        for p in self.all() {
            outln!("{}", p.summary);
        }
        let deleted = match self.deleted() {
            0 => String::new(),
            n => format!(", {n} deleted"),
        };
        outln!(
            "{} fixtures checked: {} problems, {} warnings{deleted}",
            self.checked,
            self.problems(),
            self.warnings()
        );
    }

    /// The JSON report: an [`output::document`] with a fixture per file, and the counts.
    fn to_json(&self) -> Value {
        let fixtures = self
            .files
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
        document["checked"] = self.checked.into();
        document["problems"] = self.problems().into();
        document["warnings"] = self.warnings().into();
        document["deleted"] = self.deleted().into();
        document
    }

    /// The SARIF 2.1.0 log: each problem an error, each warning a warning, at its file
    /// and line.
    fn to_sarif(&self) -> Value {
        use mcp_replay::_support::output::sarif::{self, Finding, Level};
        let findings: Vec<Finding> = self
            .files
            .iter()
            .flat_map(|(path, found)| {
                found.iter().map(move |p| Finding {
                    rule: p.kind,
                    level: if p.problem {
                        Level::Error
                    } else {
                        Level::Warning
                    },
                    message: p.summary.clone(),
                    file: path.display().to_string(),
                    line: p.line,
                })
            })
            .collect();
        sarif::log(&findings)
    }

    /// A JUnit test case per file.
    fn junit_cases(&self) -> Vec<junit::Case> {
        self.files
            .iter()
            .map(|(path, found)| junit_case(path, found))
            .collect()
    }
}

/// The JUnit test case of one file: passed, or failed with its problems (warnings left
/// out), the first one's kind as the failure's type.
fn junit_case(path: &Path, found: &[Problem]) -> junit::Case {
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
}

/// A `.jsonl.new` file: a re-recording waiting to be accepted or rejected.
fn pending_problem(path: &Path) -> Problem {
    let quoted = mcp_replay::_support::shell_quote(&path.display().to_string());
    Problem {
        kind: "pending",
        line: None,
        summary: format!(
            "{}: pending re-recording: `mcp-replay review {quoted}`, or `mcp-replay accept \
             {quoted}` or `mcp-replay reject {quoted}`",
            path.display(),
        ),
        problem: true,
    }
}

/// A `.NAME.jsonl.tmp.*` file: what an interrupted write left behind.
fn temporary_problem(path: &Path) -> Problem {
    Problem {
        kind: "temporary",
        line: None,
        summary: format!(
            "{}: a temporary file left by an interrupted write: delete it",
            path.display()
        ),
        problem: true,
    }
}

/// What is wrong with a fixture: it does not load (invalid, a secret, unreadable), or no
/// Rust source of the Cargo project it is in names it (a problem only when `strict`; not
/// looked for outside a Cargo project, where the tests that use it cannot be searched);
/// `None` when nothing is.
/// A fixture's problems: why it does not load, or what its server sends that is not valid
/// MCP (`protocol_problems`: problems, else warnings) and whether a test names it.
fn fixture_problems(
    path: &Path,
    sources: &mut Sources,
    strict: bool,
    protocol_problems: bool,
) -> Vec<Problem> {
    let loaded = Fixture::load(path);
    let mut found: Vec<Problem> = match &loaded {
        Ok(fixture) => mcp_replay::_support::validate::fixture(fixture)
            .into_iter()
            .map(|(line, v)| Problem {
                kind: "protocol",
                line: Some(line),
                summary: format!(
                    "{}:{line}: protocol: {v} (checked against the specification's schema \
                     of {})",
                    path.display(),
                    mcp_replay::_support::validate::revision_of(fixture.era())
                ),
                problem: protocol_problems,
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    if let Ok(fixture) = &loaded {
        found.extend(fixture.unbindable().into_iter().map(|u| Problem {
            kind: "unbindable",
            line: Some(u.line),
            summary: format!(
                "{}:{}: unbindable: line {} sends {}, but {}",
                path.display(),
                u.line,
                u.line,
                u.placeholder,
                u.why
            ),
            problem: true,
        }));
        found.extend(personal_warnings(path, fixture));
    }
    found.extend(fixture_problem(path, &loaded, sources, strict));
    found
}

/// The places where a fixture holds what looks like personal data (one written by hand,
/// or by a version before the personal data rules): warnings, one a line and category.
fn personal_warnings(path: &Path, fixture: &Fixture) -> Vec<Problem> {
    let mut out = Vec::new();
    for entry in fixture.entries() {
        let found = personal::scan(&entry.message());
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for f in &found {
            if seen.contains(&(f.path.as_str(), f.category)) {
                continue;
            }
            seen.push((f.path.as_str(), f.category));
            out.push(Problem {
                kind: "personal",
                line: Some(entry.line()),
                summary: format!(
                    "{}:{}: personal: {} holds what looks like personal data ({}); re-record \
                     the fixture to write it as a pseudonym, or turn the category off \
                     (\"without\": [\"{}\"] in the rules file) if it is not",
                    path.display(),
                    entry.line(),
                    f.path,
                    f.category,
                    f.category
                ),
                problem: false,
            });
        }
    }
    out
}

/// The deny lists of `--deny-values` and `MCP_REPLAY_DENY_VALUES`, read; a list that
/// cannot be read or holds no value is an error (exit 2).
fn deny_lists(files: &[PathBuf]) -> Result<Vec<DenyList>, Error> {
    let mut files: Vec<PathBuf> = files.to_vec();
    if let Some(env) = mcp_replay::_support::env::deny_values() {
        files.push(PathBuf::from(env));
    }
    files
        .iter()
        .map(|file| DenyList::load(file).map_err(|e| Error::input(format!("the deny list: {e}"))))
        .collect()
}

/// Why the fixture at `path` did not load (`loaded`), or that no test names it.
fn fixture_problem(
    path: &Path,
    loaded: &Result<Fixture, mcp_replay::Error>,
    sources: &mut Sources,
    strict: bool,
) -> Option<Problem> {
    if let Err(e) = loaded {
        let (kind, line) = match &e {
            mcp_replay::Error::Parse { line, .. } => ("invalid", Some(*line)),
            mcp_replay::Error::Secret { line, .. } => ("secret", Some(*line)),
            mcp_replay::Error::Empty { .. } => ("invalid", None),
            _ => ("unreadable", None),
        };
        Some(Problem {
            kind,
            line,
            summary: e.to_string(),
            problem: true,
        })
    } else {
        let (project, text) = sources.of(path)?;
        (!referenced(path, text)).then(|| Problem {
            kind: "unreferenced",
            line: None,
            summary: format!(
                "{}: unreferenced: no .rs file of the Cargo project {} names it (delete it, or \
                 ignore this if a CLI run uses it)",
                path.display(),
                project.display()
            ),
            problem: strict,
        })
    }
}

/// The Rust sources that may name a fixture, read once per Cargo project.
#[derive(Default)]
struct Sources {
    /// The text of every `.rs` file of each project read so far (`None`: it has none).
    projects: std::collections::HashMap<PathBuf, Option<String>>,
}

impl Sources {
    /// The Cargo project `fixture` belongs to and the text of its `.rs` files (not
    /// `target/`): the nearest folder above it whose `Cargo.toml` declares a `[workspace]`,
    /// else the nearest with a `Cargo.toml`. `None` outside a Cargo project, or in one with
    /// no `.rs` file: then no test can be searched for the fixture's name.
    fn of(&mut self, fixture: &Path) -> Option<(PathBuf, &str)> {
        let project = cargo_project(fixture)?;
        let text = self.projects.entry(project.clone()).or_insert_with(|| {
            let texts: Vec<String> = walk(std::slice::from_ref(&project))
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "rs"))
                .filter_map(|p| std::fs::read_to_string(p).ok())
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        });
        Some((project, text.as_deref()?))
    }
}

/// The Cargo project above `path`: the nearest folder whose `Cargo.toml` declares a
/// `[workspace]`, else the nearest folder with a `Cargo.toml`, else `None`.
fn cargo_project(path: &Path) -> Option<PathBuf> {
    let path = std::path::absolute(path).ok()?;
    let manifest = |d: &Path| std::fs::read_to_string(d.join("Cargo.toml")).ok();
    let workspace = path
        .ancestors()
        .find(|d| manifest(d).is_some_and(|t| t.lines().any(|l| l.trim() == "[workspace]")));
    workspace
        .or_else(|| path.ancestors().find(|d| d.join("Cargo.toml").is_file()))
        .map(Path::to_owned)
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

#[cfg(test)]
mod tests {
    /// Every rule the command writes into a SARIF log has its help: each literal kind of
    /// `check`'s problems and each `rule:` of the commands' findings, read from their
    /// sources, is a kind of finding or one of the log's own rules. A new one without help
    /// fails here instead of getting "See docs/cli.md." in silence.
    #[test]
    fn every_rule_the_command_writes_has_its_help() {
        // check's problems (`kind`), the other commands' findings (`rule`); the tests
        // below the code left out.
        let code = |source: &'static str| source.split("#[cfg(test)]").next().unwrap();
        let sources = [
            (
                code(include_str!("check.rs")),
                ["kind: \"", "kind = \"", "=> (\""],
            ),
            (code(include_str!("coverage.rs")), ["rule: \""; 3]),
            (code(include_str!("replay.rs")), ["rule: \""; 3]),
        ];
        let mut named = Vec::new();
        for (source, patterns) in sources {
            for pattern in patterns {
                for (at, _) in source.match_indices(pattern) {
                    let rest = &source[at + pattern.len()..];
                    named.push(rest[..rest.find('"').unwrap()].to_owned());
                }
            }
        }
        named.sort();
        named.dedup();
        assert!(named.len() >= 12, "{named:?}");
        let missing: Vec<_> = named
            .iter()
            .filter(|r| mcp_replay::_support::output::sarif::help(r).is_none())
            .collect();
        assert!(missing.is_empty(), "rules without help: {missing:?}");
    }
}
