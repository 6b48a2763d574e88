//! `mcp-replay diff OLD NEW`: reads the two fixtures (files, or `REV:PATH` from git) and
//! prints what [`mcp_replay::_support::diff`] finds.

use crate::args::{Format, OutputArgs, RulesArg};
use crate::error::{Error, Outcome};
use crate::junit;
use crate::out::{outln, print_json};
use mcp_replay::_support::output;
use mcp_replay::contract::Class;
use mcp_replay::Fixture;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `mcp-replay diff`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The fixture as it was: a file, or REV:PATH (e.g. HEAD:fixtures/tools.jsonl)
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The fixture as it is: a file, or REV:PATH
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Exit 1 only when a finding is of this class or more severe (a finding with no
    /// contract class counts as unknown, which fails at every threshold)
    #[arg(long, value_name = "CLASS", default_value = "cosmetic",
          value_parser = ["breaking", "compatible", "cosmetic"])]
    pub fail_on: String,
    #[command(flatten)]
    pub rules: RulesArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The examples and exit statuses of `mcp-replay diff --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay diff HEAD:fixtures/tools.jsonl fixtures/tools.jsonl\n",
    "  mcp-replay diff --fail-on breaking main:fixtures/tools.jsonl fixtures/tools.jsonl\n",
    "  mcp-replay diff --format json old.jsonl new.jsonl\n",
    "\n",
    "OLD and NEW are files, or REV:PATH read with `git show REV:PATH` (PATH from the\n",
    "repository's root, or ./PATH from the current folder) when no such file exists.\n",
    "Both are normalized with NEW's rules first. Requests pair by method (and tool,\n",
    "prompt or resource) in order, responses by the request they answer, notifications\n",
    "and server requests by method in order.\n",
    "\n",
    "--fail-on CLASS: exit 1 when a finding is of that class or more severe. A finding\n",
    "with no contract class (a changed tools/call result, a message gone or added) counts\n",
    "as unknown, and unknown fails at every threshold: breaking fails on breaking and\n",
    "unknown findings, compatible also on compatible ones, cosmetic (the default) on any.\n",
    "Exit 0 when no finding reaches it, 2 on a usage or input error (a fixture that does\n",
    "not exist, is invalid or empty, or holds a secret)."
);

/// Compares OLD with NEW (both normalized with NEW's rules) and prints the findings;
/// findings that reach `--fail-on` are the outcome.
pub(crate) fn run(args: Args) -> Result<Outcome, Error> {
    let started = Instant::now();
    let threshold = Class::parse(&args.fail_on)
        .ok_or_else(|| Error::usage(format!("--fail-on {}: not a class", args.fail_on)))?;
    let (old, _) = load(&args.old)?;
    let (new, new_path) = load(&args.new)?;
    let folder = new_path.parent().unwrap_or(Path::new("."));
    let rules = args.rules.resolve(Some(&new), folder)?;
    let diff =
        mcp_replay::_support::diff::diff(&old, &new, &rules).with_names(&args.old, &args.new);
    let fails = diff.fails_at(threshold);
    args.output.format.refuse_sarif("diff")?;
    match args.output.format {
        Format::Json => print_json(&output::document("diff", vec![diff.to_json(threshold)]))?,
        Format::Sarif => unreachable!("refused above"),
        Format::Text => {
            if mcp_replay::_support::color_wanted(std::io::stdout().is_terminal()) {
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
        Outcome::Findings
    } else {
        Outcome::Success
    })
}

/// The fixture `spec` names, and its path (in the work tree, for the rules beside it): the
/// file when it exists, else `REV:PATH` through `git show`.
fn load(spec: &str) -> Result<(Fixture, PathBuf), Error> {
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
        return Err(Error::input(format!(
            "{spec} does not exist (give a fixture file, or REV:PATH to read it from git, e.g. HEAD:{spec})"
        )));
    };
    let output = std::process::Command::new("git")
        .args(["show", &format!("{rev}:{file}")])
        .output()
        .map_err(|e| {
            Error::input(format!(
                "{spec}: no file of that name, and running git failed: {e}"
            ))
        })?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        return Err(Error::input(format!(
            "{spec}: no file of that name, and `git show {rev}:{file}` failed: {}",
            why.trim()
        )));
    }
    let text = String::from_utf8(output.stdout)
        .map_err(|_| Error::input(format!("{spec}: the fixture is not UTF-8 text")))?;
    let fixture = Fixture::parse_named(&text, spec)?;
    // As Fixture::load refuses a file with no message, or one holding a secret.
    if fixture.entries().is_empty() {
        return Err(mcp_replay::Error::Empty { file: spec.into() }.into());
    }
    fixture.check_secrets()?;
    Ok((fixture, PathBuf::from(file)))
}
