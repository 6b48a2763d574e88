//! What a fixture replays with, resolved from its folder: the rules (the defaults, the
//! folder's rules file, the test's own, the values files the environment names), the deny
//! lists checked, and the workspace root `<WORKSPACE>` stands for.

use crate::data::fixture::Fixture;
use crate::error::Error;
use crate::rules::Rules;
use std::path::{Path, PathBuf};

/// The rules of one replay, in order: the defaults (with `workspace` as `<WORKSPACE>`),
/// then `folder`'s rules file ([`RULES_FILE`](crate::rules::RULES_FILE)), then `own`. The
/// version of the defaults is the one `fixture`'s header pins (`"rules": N`, what the
/// fixture was written with), else the one `own` pins, else the rules file's, else the
/// newest.
pub fn rules_for(
    fixture: Option<&Fixture>,
    folder: &Path,
    workspace: &Path,
    own: Option<&Rules>,
) -> Result<Rules, Error> {
    let mut rules = Rules::default().workspace(workspace);
    if let Some(file) = Rules::load_folder(folder)? {
        rules = rules.merge(&file);
    }
    if let Some(own) = own {
        rules = rules.merge(own);
    }
    if let Some(fixture) = fixture {
        rules = rules.for_fixture(fixture).into_owned();
    }
    personal_from_env(rules)
}

/// `rules` with the values file of [`REDACT_VALUES_ENV`] and the deny list of
/// [`DENY_VALUES_ENV`], when they are set (and not empty).
///
/// [`REDACT_VALUES_ENV`]: crate::env::REDACT_VALUES_ENV
/// [`DENY_VALUES_ENV`]: crate::env::DENY_VALUES_ENV
fn personal_from_env(mut rules: Rules) -> Result<Rules, Error> {
    use crate::env::{DENY_VALUES_ENV, REDACT_VALUES_ENV};
    use crate::personal::{DenyList, Values};
    if let Some(file) = crate::env::redact_values() {
        rules = rules.redact_values(&Values::load(Path::new(&file)).map_err(|e| Error::Rules {
            file: REDACT_VALUES_ENV.into(),
            message: e.to_string(),
        })?);
    }
    if let Some(file) = crate::env::deny_values() {
        rules = rules.deny_values(DenyList::load(Path::new(&file)).map_err(|e| Error::Rules {
            file: DENY_VALUES_ENV.into(),
            message: e.to_string(),
        })?);
    }
    Ok(rules)
}

/// Fails when `fixture` holds a value of the deny lists of `rules` (its file's text as it
/// is, when it has a file), naming lines and paths, never the values.
pub fn check_denied(fixture: &Fixture, rules: &Rules) -> Result<(), Error> {
    if !rules.has_deny_lists() {
        return Ok(());
    }
    let text = fixture
        .path()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .unwrap_or_else(|| fixture.to_jsonl());
    let denied = rules.denied(&text);
    if denied.is_empty() {
        return Ok(());
    }
    Err(Error::Denied {
        file: fixture.source().to_owned(),
        places: denied.iter().map(ToString::to_string).collect(),
    })
}

/// The folder `<WORKSPACE>` stands for, seen from `start` (a fixture's folder): the
/// nearest folder at or above it whose `Cargo.toml` declares a `[workspace]`, else the
/// nearest with a `Cargo.toml` (a crate of its own), else the nearest holding `.git` (a
/// project in another language), else `start` itself. It never depends on the current
/// folder, so a fixture recorded in one folder replays from any other.
pub fn workspace_root(start: &Path) -> PathBuf {
    let start = absolute(start);
    let manifest = |d: &Path| std::fs::read_to_string(d.join("Cargo.toml")).ok();
    let found = start
        .ancestors()
        .find(|d| manifest(d).is_some_and(|t| t.lines().any(|l| l.trim() == "[workspace]")))
        .or_else(|| start.ancestors().find(|d| d.join("Cargo.toml").is_file()))
        .or_else(|| start.ancestors().find(|d| d.join(".git").exists()));
    found.map_or_else(|| start.clone(), Path::to_owned)
}

pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_owned())
    }
}
