//! `mcp-replay diff OLD NEW`: reads the two fixtures (files, or `REV:PATH` from git) and
//! prints what [`mcp_replay::diff`] finds.

use crate::cli::{DiffArgs, Format};
use crate::out::outln;
use crate::{junit, print_json, Fatal};
use mcp_replay::contract::Class;
use mcp_replay::{harness, output, Error, Fixture};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

pub(crate) fn diff(args: DiffArgs) -> Result<ExitCode, Fatal> {
    let started = Instant::now();
    let threshold = Class::parse(&args.fail_on)
        .ok_or_else(|| Fatal(format!("--fail-on {}: not a class", args.fail_on)))?;
    let (old, _) = load(&args.old)?;
    let (new, new_path) = load(&args.new)?;
    let folder = new_path.parent().unwrap_or(Path::new("."));
    let rules = args.rules.resolve(Some(&new), folder)?;
    let diff = mcp_replay::diff::diff(&old, &new, &rules).with_names(&args.old, &args.new);
    let fails = diff.fails_at(threshold);
    match args.output.format {
        Format::Json => print_json(&output::document("diff", vec![diff.to_json(threshold)]))?,
        Format::Text => {
            if harness::color_wanted(std::io::stdout().is_terminal()) {
                outln!("{diff:#}");
            } else {
                outln!("{diff}");
            }
            if !diff.is_ok() && !fails {
                outln!(
                    "(exit 0: no finding reaches --fail-on {})",
                    threshold.name()
                );
            }
        }
    }
    if let Some(file) = &args.output.junit {
        let outcome = if fails {
            junit::Verdict::Failure {
                message: output::headline(diff.mismatches()),
                kind: diff.class().unwrap_or(Class::Unknown).name().into(),
                text: diff.to_string(),
            }
        } else {
            junit::Verdict::Passed
        };
        let case = junit::Case {
            name: args.new.clone(),
            classname: "mcp-replay.diff",
            time: started.elapsed(),
            outcome,
        };
        junit::write(file, &[case], started.elapsed())?;
    }
    Ok(if fails {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The fixture `spec` names, and its path (in the work tree, for the rules beside it): the
/// file when it exists, else `REV:PATH` through `git show`.
fn load(spec: &str) -> Result<(Fixture, PathBuf), Fatal> {
    let path = Path::new(spec);
    if path.exists() {
        return Ok((Fixture::load(path)?, path.to_owned()));
    }
    // A Windows drive letter, `C:\...`, is a path.
    let drive = |rev: &str, file: &str| rev.len() == 1 && file.starts_with(['\\', '/']);
    let Some((rev, file)) = spec
        .split_once(':')
        .filter(|(rev, file)| !(rev.is_empty() || file.is_empty() || drive(rev, file)))
    else {
        return Err(Fatal(format!(
            "{spec} does not exist (give a fixture file, or REV:PATH to read it from git, e.g. HEAD:{spec})"
        )));
    };
    let output = std::process::Command::new("git")
        .args(["show", &format!("{rev}:{file}")])
        .output()
        .map_err(|e| {
            Fatal(format!(
                "{spec}: no file of that name, and running git failed: {e}"
            ))
        })?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        return Err(Fatal(format!(
            "{spec}: no file of that name, and `git show {rev}:{file}` failed: {}",
            why.trim()
        )));
    }
    let text = String::from_utf8(output.stdout)
        .map_err(|_| Fatal(format!("{spec}: the fixture is not UTF-8 text")))?;
    let fixture = Fixture::parse_named(&text, spec)?;
    // As Fixture::load refuses a file with no message, or one holding a secret.
    if fixture.entries().is_empty() {
        return Err(Error::Empty { file: spec.into() }.into());
    }
    fixture.check_secrets()?;
    Ok((fixture, PathBuf::from(file)))
}
