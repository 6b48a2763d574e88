//! The bookkeeping behind the invariant: every change claims the JSON paths it explains,
//! and each difference between the two results belongs to the change with the most
//! specific claim on it (the first made, on a tie); a difference nobody claims becomes an
//! [`Unknown`](Class::Unknown) change of its own.

use super::{Change, Class};
use crate::data::json::path::{push_step, rendered_path, PathSegment};
use crate::data::json::{compact, json_eq, write_canonical, Difference};
use serde_json::Value;
use std::collections::BTreeMap;

/// The changes found so far and the paths each claims.
#[derive(Default)]
pub(super) struct Out {
    pub(super) changes: Vec<Change>,
    claims: Vec<(String, usize)>,
    /// While set, changes are recorded but claim nothing: an item compared with its
    /// namesake at another index (the raw differences there pair unrelated items).
    muted: bool,
}

impl Out {
    /// Records a change that claims `path` and everything under it; returns its id.
    pub(super) fn change(&mut self, class: Class, description: String, path: &str) -> usize {
        let id = self.note(class, description, path);
        self.claim(path, id);
        id
    }

    /// Records a change at `path` that claims nothing yet; returns its id.
    pub(super) fn note(&mut self, class: Class, description: String, path: &str) -> usize {
        self.changes.push(Change {
            class,
            description,
            path: rendered_path(path).to_owned(),
        });
        self.changes.len() - 1
    }

    /// Lets change `id` claim `path` and everything under it too.
    pub(super) fn claim(&mut self, path: &str, id: usize) {
        if !self.muted {
            self.claims.push((path.to_owned(), id));
        }
    }

    /// Runs `f` with claims muted (see [`Out::muted`]) when `mute` is set.
    pub(super) fn muted_if(&mut self, mute: bool, f: impl FnOnce(&mut Out)) {
        let was = self.muted;
        self.muted |= mute;
        f(self);
        self.muted = was;
    }

    /// The number of changes so far (to find the ones a comparison added).
    pub(super) fn len(&self) -> usize {
        self.changes.len()
    }

    /// The most severe change recorded since `from`, if any.
    pub(super) fn worst_since(&self, from: usize) -> Option<usize> {
        (from..self.changes.len()).max_by_key(|&i| (self.changes[i].class, usize::MAX - i))
    }

    /// Attributes every difference to one change (the longest claim covering its path,
    /// the first on a tie), making an `Unknown` change for each one nobody claims.
    /// Returns the changes and, for each difference, the index of its change.
    pub(super) fn finish(mut self, differences: &[Difference]) -> (Vec<Change>, Vec<usize>) {
        let mut owners = Vec::with_capacity(differences.len());
        for d in differences {
            let path = if d.path == "." { "" } else { d.path.as_str() };
            let owner = self
                .claims
                .iter()
                .filter(|(claim, _)| covers(claim, path))
                .fold(
                    None::<(usize, usize)>,
                    |best, &(ref claim, id)| match best {
                        Some((len, _)) if len >= claim.len() => best,
                        _ => Some((claim.len(), id)),
                    },
                );
            let id = match owner {
                Some((_, id)) => id,
                None => {
                    let description = format!(
                        "`{}` changed from {} to {}",
                        d.path,
                        shown(d.expected.as_ref()),
                        shown(d.actual.as_ref())
                    );
                    self.muted = false;
                    self.change(Class::Unknown, description, path)
                }
            };
            owners.push(id);
        }
        (self.changes, owners)
    }
}

/// Does a claim on `claim` cover a difference at `path` (the same place, or under it)?
fn covers(claim: &str, path: &str) -> bool {
    path.strip_prefix(claim)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// A value in a description: compact JSON, cut short; `(absent)` for none.
pub(super) fn shown(value: Option<&Value>) -> String {
    value.map_or("(absent)".to_owned(), |v| format!("`{}`", compact(v, 60)))
}

/// `path` with `key` appended, in selector form.
pub(super) fn key(path: &str, key: &str) -> String {
    let mut p = path.to_owned();
    push_step(&mut p, PathSegment::Key(key));
    p
}

/// `path` with `[index]` appended.
pub(super) fn index(path: &str, index: usize) -> String {
    let mut p = path.to_owned();
    push_step(&mut p, PathSegment::Index(index));
    p
}

/// A value's canonical JSON text: the identity of an enum value or a set member.
pub(super) fn canonical(value: &Value) -> String {
    let mut s = String::new();
    write_canonical(&mut s, value);
    s
}

/// "added", "removed" or "changed", from which side has a value.
pub(super) fn verb(e: Option<&Value>, a: Option<&Value>) -> &'static str {
    match (e, a) {
        (None, Some(_)) => "added",
        (Some(_), None) => "removed",
        _ => "changed",
    }
}

/// The keys of two objects whose values differ (by meaning: key order and number
/// spelling never count), sorted, with each side's value.
pub(super) fn differing<'v>(
    e: &'v serde_json::Map<String, Value>,
    a: &'v serde_json::Map<String, Value>,
) -> Vec<(&'v str, Option<&'v Value>, Option<&'v Value>)> {
    let mut keys: Vec<&str> = e.keys().chain(a.keys()).map(String::as_str).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|k| (k, e.get(k), a.get(k)))
        .filter(|(_, x, y)| match (x, y) {
            (Some(x), Some(y)) => !json_eq(x, y),
            _ => true,
        })
        .collect()
}

/// Claims the positions of a list whose members are known by key (tools by name, enum
/// values by their JSON): where both lists hold the same key at an index the caller
/// compares the items; elsewhere the raw differences pair unrelated members, and belong
/// to the change about the member expected had there (`owners`: removed or added keys),
/// else the one about actual's, else the first membership change, else a `reordered`
/// change (cosmetic: the same members in another order).
pub(super) fn claim_positions(
    out: &mut Out,
    path: &str,
    expected: &[String],
    actual: &[String],
    owners: &BTreeMap<String, usize>,
    reordered: impl FnOnce() -> String,
) {
    let first = owners.values().min().copied();
    let mut reordered = Some(reordered);
    let mut reorder_id = None;
    for i in 0..expected.len().max(actual.len()) {
        let (e, a) = (expected.get(i), actual.get(i));
        if e.is_some() && e == a {
            continue;
        }
        let owner = e
            .and_then(|k| owners.get(k))
            .or_else(|| a.and_then(|k| owners.get(k)))
            .copied()
            .or(first);
        let id = match (owner, reorder_id) {
            (Some(id), _) | (None, Some(id)) => id,
            (None, None) => {
                let describe = reordered.take().expect("made once");
                let id = out.note(Class::Cosmetic, describe(), path);
                reorder_id = Some(id);
                id
            }
        };
        out.claim(&index(path, i), id);
    }
}
