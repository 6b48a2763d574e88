//! What a session found, as one owner: its findings, the protocol violations the settings
//! make warnings, the result differences the accepted contract classes let through, its
//! notes, and whether what the server did can still be written as a fixture. The replay's
//! and the mock's cores keep theirs in one; no runtime, no clock.

use crate::findings::report::Mismatch;

/// The findings of one session, and the one rule of what spoils its recording: a finding
/// whose kind [spoils a recording](crate::MismatchKind::spoils_recording).
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// Every finding, in the order the session made them.
    pub(crate) mismatches: Vec<Mismatch>,
    /// Protocol violations the settings make warnings, not findings.
    pub(crate) warnings: Vec<Mismatch>,
    /// Result differences whose contract changes are all in accepted classes.
    pub(crate) accepted: Vec<Mismatch>,
    /// What is worth knowing but no finding, one sentence each.
    pub(crate) notes: Vec<String>,
    /// A finding spoiled the recording.
    spoiled: bool,
}

impl Findings {
    /// Adds `mismatch`, noting whether it spoils the recording.
    pub(crate) fn push(&mut self, mismatch: Mismatch) {
        self.spoiled |= mismatch.why_not_rerecorded().is_some();
        self.mismatches.push(mismatch);
    }

    /// Whether what the server did can still be written as a fixture.
    pub(crate) fn recordable(&self) -> bool {
        !self.spoiled
    }

    /// Whether the server did anything other than what the fixture says (a finding, or an
    /// accepted contract change).
    pub(crate) fn changed(&self) -> bool {
        !self.mismatches.is_empty() || !self.accepted.is_empty()
    }
}
