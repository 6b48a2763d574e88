//! The pending `NAME.jsonl.new` files a test run left beside their fixtures, as `accept`,
//! `reject`, `review` and `test` find them and take them: found below the paths given,
//! each once; accepted only when the file is a fixture that loads (no parse error, no
//! secret) and no other pending file claims the same fixture, by a rename over the
//! fixture (atomic, on one file system), so that a fixture is never lost or half
//! written.

use crate::error::{Error, Kind, Outcome};
use crate::files::{name_of, roots, walk};
use crate::out::outln;
use mcp_replay::Fixture;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One pending re-recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pending {
    /// The `NAME.jsonl.new` file.
    pub file: PathBuf,
    /// The fixture it would replace (`NAME.jsonl`), which may no longer exist.
    pub fixture: PathBuf,
    /// Another pending file for the same fixture file (the same file reached through a
    /// symbolic link): neither is accepted until one is rejected.
    pub rival: Option<PathBuf>,
}

/// Every pending file below `paths` (or the default fixture folders), in path order: a
/// `.jsonl.new` given or found, or the pending file of a `.jsonl` given or found.
pub(crate) fn find(paths: &[PathBuf]) -> Result<Vec<Pending>, Error> {
    let mut found: Vec<Pending> = Vec::new();
    for path in walk(&roots(paths)?) {
        let name = name_of(&path);
        let file = if name.ends_with(".jsonl.new") {
            path
        } else if name.ends_with(".jsonl") {
            mcp_replay::_support::update::pending_path(&path)
        } else {
            continue;
        };
        if file.is_file() && !found.iter().any(|p| same_file(&p.file, &file)) {
            let fixture = file.with_extension("");
            found.push(Pending {
                file,
                fixture,
                rival: None,
            });
        }
    }
    mark_rivals(&mut found);
    Ok(found)
}

/// Two pending files for one fixture file: each names the other.
fn mark_rivals(found: &mut [Pending]) {
    let mut first: HashMap<PathBuf, usize> = HashMap::new();
    for i in 0..found.len() {
        let target = target(&found[i].fixture);
        match first.get(&target) {
            Some(&j) => {
                found[i].rival = Some(found[j].file.clone());
                if found[j].rival.is_none() {
                    found[j].rival = Some(found[i].file.clone());
                }
            }
            None => {
                first.insert(target, i);
            }
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// The file an accepted recording goes to: the fixture itself, through any symbolic
/// link (a link stays a link), or where it would be when it no longer exists.
fn target(fixture: &Path) -> PathBuf {
    if let Ok(real) = fixture.canonicalize() {
        return real;
    }
    match (fixture.parent(), fixture.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map(|d| d.join(name))
            .unwrap_or_else(|_| fixture.to_owned()),
        _ => fixture.to_owned(),
    }
}

impl Pending {
    /// Why this file cannot be accepted, if it cannot: it does not load as a fixture
    /// (where it fails, with file, line and column), holds a secret, or another pending
    /// file claims the same fixture.
    pub(crate) fn refusal(&self) -> Option<String> {
        // A rival rejected since is none.
        if let Some(rival) = self.rival.as_ref().filter(|r| r.exists()) {
            return Some(format!(
                "{} and {} are both pending for the fixture {}: reject the one you do not want \
                 first",
                self.file.display(),
                rival.display(),
                target(&self.fixture).display()
            ));
        }
        Fixture::load(&self.file).err().map(|e| e.to_string())
    }

    /// Replaces the fixture with this file (see the [module](self)); what was done, for
    /// the listing. A refused file ([`Pending::refusal`]) is left as it is.
    pub(crate) fn accept(&self) -> Result<String, String> {
        if let Some(why) = self.refusal() {
            return Err(format!("{} not accepted: {why}", self.file.display()));
        }
        let target = target(&self.fixture);
        let new = !target.exists();
        std::fs::rename(&self.file, &target)
            .map_err(|e| format!("accepting {}: {e}", self.file.display()))?;
        Ok(format!(
            "accepted {} -> {}{}",
            self.file.display(),
            self.fixture.display(),
            if new { " (a new fixture)" } else { "" }
        ))
    }

    /// Deletes this file; what was done, for the listing.
    pub(crate) fn reject(&self) -> Result<String, String> {
        std::fs::remove_file(&self.file)
            .map_err(|e| format!("rejecting {}: {e}", self.file.display()))?;
        Ok(format!("rejected {}", self.file.display()))
    }
}

/// Accepts or rejects each of `pending` (`take`), listing what was done on stdout and
/// what could not be on stderr; anything refused makes the command exit 2, after the
/// rest was done.
pub(crate) fn take_all(
    pending: &[Pending],
    take: fn(&Pending) -> Result<String, String>,
) -> Result<Outcome, Error> {
    if pending.is_empty() {
        outln!("no pending .jsonl.new files");
    }
    let mut refused = 0;
    for p in pending {
        match take(p) {
            Ok(done) => outln!("{done}"),
            Err(why) => {
                refused += 1;
                eprintln!("mcp-replay: {why}");
            }
        }
    }
    if refused > 0 {
        return Err(Error::said(Kind::Input));
    }
    Ok(Outcome::Success)
}
