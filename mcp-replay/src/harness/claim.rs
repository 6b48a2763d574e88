//! Who re-records a fixture that several tests of one run replay.

use super::outcome::{render, Failure, Verdict};
use crate::findings::report::Report;
use crate::lifecycle::update::UpdateMode;
use std::path::{Path, PathBuf};

/// What a test may do with its fixture in update mode. Several tests of one run may replay
/// one fixture (the same fixture in both protocol eras, over the pipe and over HTTP): the
/// first to come re-records it, and the others wait until it is done, then only compare
/// with the file it left, so they never race for the file, and a recording that one of
/// them would write differently is a finding naming both, never a silent last write.
pub(super) enum Claim {
    /// Compare only (no update mode), or the test that re-records the fixture in this run;
    /// the guard (if any) makes the others wait until it is done.
    Own(Option<tokio::sync::OwnedMutexGuard<()>>),
    /// Another test of this run re-records the fixture (`owner`), and is done: compare
    /// with what it left.
    After { owner: String },
}

/// The claim of `test` on the fixture at `path`, replayed in `mode`; in update mode the first test claiming a
/// fixture owns it, a later one waits until the owner is done.
pub(super) async fn claim_for_update(path: &Path, mode: UpdateMode, test: &str) -> Claim {
    use once_cell::sync::Lazy;
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    type Owners = HashMap<PathBuf, (String, Arc<tokio::sync::Mutex<()>>)>;
    static CLAIMS: Lazy<Mutex<Owners>> = Lazy::new(Default::default);
    if mode == UpdateMode::No {
        return Claim::Own(None);
    }
    let (owner, lock) = {
        let mut claims = CLAIMS.lock().unwrap_or_else(|e| e.into_inner());
        match claims.get(path) {
            Some((owner, lock)) => (owner.clone(), lock.clone()),
            None => {
                // Locked before anyone else can see it: the owner goes first.
                let lock = Arc::new(tokio::sync::Mutex::new(()));
                let guard = lock.clone().try_lock_owned().expect("a new lock is free");
                claims.insert(path.to_owned(), (test.to_owned(), lock));
                return Claim::Own(Some(guard));
            }
        }
    };
    let guard = lock.lock_owned().await;
    if owner == test {
        Claim::Own(Some(guard))
    } else {
        Claim::After { owner }
    }
}

impl Claim {
    /// What this claim replays, set on `path` and `mode`: as they are, or for a test after
    /// the owner, a comparison
    /// with the file the owner left (in `new` mode its pending `NAME.jsonl.new`, if it
    /// wrote one).
    pub(super) fn adjust(&self, path: &mut PathBuf, mode: &mut UpdateMode) {
        if let Claim::After { .. } = self {
            if *mode == UpdateMode::New {
                let pending = crate::lifecycle::update::pending_path(path);
                if pending.is_file() {
                    *path = pending;
                }
            }
            *mode = UpdateMode::No;
        }
    }

    /// The verdict of a finished replay of the fixture at `path`: the owner's is what
    /// `conclude` makes of it (the update mode applied); for a test after the owner, a
    /// difference says that the two tests cannot share the fixture.
    pub(super) fn conclude(
        self,
        conclude: impl FnOnce() -> Result<Verdict, Failure>,
        path: &Path,
        report: &Report,
        test: &str,
    ) -> Result<Verdict, Failure> {
        match self {
            Claim::Own(_guard) => conclude(),
            Claim::After { .. } if report.is_ok() => Ok(Verdict::Passed),
            Claim::After { owner } => Err(Failure::Shared(format!(
                "mcp-replay: {test} replays {path}, which {owner} re-records in this run: replayed \
                 after it, against the file as it left it, {test} gets different answers \
                 (below), so one fixture cannot pin both; give each test its own fixture\n\n{}",
                render(report, false),
                path = path.display(),
            ))),
        }
    }
}
