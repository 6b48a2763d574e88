//! Matching a selector against a value: one depth-first walk that keeps, for the node it
//! visits, the selector positions still alive (an NFA over the segments), and a concrete
//! path matcher for tests.

use super::{Segment, Selector};
use crate::data::json::path::{push_step, rendered_path, PathSegment};
use serde_json::Value;

impl Selector {
    /// Does this selector match the node at this concrete path? The empty path is the
    /// root.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn matches(&self, path: &[PathSegment<'_>]) -> bool {
        self.alternatives
            .iter()
            .any(|segments| matches_from(segments, path))
    }

    /// Calls `f` on every node of `value` that this selector matches, with the node's
    /// path rendered in selector syntax (`.result.content[0].text`; keys that are not a
    /// bare key are written `["..."]` with JSON string escaping; the root is `.`). A node
    /// that several alternatives match is visited once.
    ///
    /// Order: document order, parents before children, object keys in sorted (byte)
    /// order, array elements by ascending index. `f` runs on a node *before* its children
    /// are looked at, and the children walked are those of the value `f` leaves there:
    /// if `f` replaces an object with a string, nothing below it is visited; if it
    /// replaces a node with another object or array, that replacement's children are
    /// matched and visited like any others. (So a callback that always replaces a node
    /// with a container holding a new match would never finish: don't write one.)
    ///
    /// Subtrees no alternative can match are not entered, and an object key named by
    /// the selector is looked up rather than searched for; the path is built in one
    /// reusable buffer, so walking allocates nothing per node.
    pub fn apply(&self, value: &mut Value, f: &mut dyn FnMut(&mut Value, &str)) {
        self.walk(value, f, true);
    }

    /// [`apply`](Selector::apply), except that nothing below a matched node is visited:
    /// what `f` leaves there is final. For replacing nodes with a fixed value, which may
    /// itself hold nodes the selector matches (`.**` replaced with `{"a": 1}`).
    pub fn apply_outermost(&self, value: &mut Value, f: &mut dyn FnMut(&mut Value, &str)) {
        self.walk(value, f, false);
    }

    /// Deletes every object member and array element of `value` that this selector
    /// matches, in one walk over the value as it was: indexes are those before anything
    /// was deleted, and nothing below a deleted node is looked at. The root is not a
    /// member of anything and is never deleted (`.**` deletes every member of the root).
    ///
    /// Applied twice it deletes nothing more, as long as
    /// [`why_not_removable`](Selector::why_not_removable) has nothing against it.
    pub(crate) fn remove(&self, value: &mut Value) {
        let mut keep = |_: &mut Value, _: &str| {};
        let mut walk = Walk {
            alternatives: &self.alternatives,
            states: Vec::with_capacity(16),
            path: String::with_capacity(64),
            below_matches: false,
            remove: true,
            f: &mut keep,
        };
        for alternative in 0..self.alternatives.len() {
            walk.add(0, alternative, 0);
        }
        walk.visit(value, 0);
    }

    fn walk(&self, value: &mut Value, f: &mut dyn FnMut(&mut Value, &str), below_matches: bool) {
        let mut walk = Walk {
            alternatives: &self.alternatives,
            states: Vec::with_capacity(16),
            path: String::with_capacity(64),
            below_matches,
            remove: false,
            f,
        };
        for alternative in 0..self.alternatives.len() {
            walk.add(0, alternative, 0);
        }
        walk.visit(value, 0);
    }
}

/// Does `path` match `segments` exactly (to its end)?
#[cfg_attr(not(test), allow(dead_code))]
fn matches_from(segments: &[Segment], path: &[PathSegment<'_>]) -> bool {
    match segments.split_first() {
        None => path.is_empty(),
        Some((Segment::Deep, [])) => true,
        Some((Segment::Deep, rest)) => {
            (0..=path.len()).any(|skip| matches_from(rest, &path[skip..]))
        }
        Some((segment, rest)) => path
            .split_first()
            .is_some_and(|(step, tail)| segment.matches(*step) && matches_from(rest, tail)),
    }
}

/// The state of one [`Selector::apply`]: a depth-first walk that carries, for the node
/// being visited, the set of (alternative, next segment) positions still alive — an NFA
/// over the segments, with `.**` as a self-loop that may also be skipped. The sets of
/// all the nodes on the current branch are stacked in `states`.
struct Walk<'s, 'f> {
    alternatives: &'s [Vec<Segment>],
    /// `(alternative, position)` pairs; each visited node owns a suffix of this stack.
    states: Vec<(usize, usize)>,
    /// The rendered path of the node being visited; empty for the root.
    path: String,
    /// Are the children of a matched node walked?
    below_matches: bool,
    /// Is a matched node deleted from its parent (instead of given to `f`)?
    remove: bool,
    f: &'f mut dyn FnMut(&mut Value, &str),
}

impl<'s> Walk<'s, '_> {
    /// Adds a state to the set starting at `from`, and the states reached from it by
    /// letting `.**` match zero steps.
    fn add(&mut self, from: usize, alternative: usize, mut position: usize) {
        let segments = &self.alternatives[alternative];
        loop {
            if self.states[from..].contains(&(alternative, position)) {
                return;
            }
            self.states.push((alternative, position));
            match segments.get(position) {
                Some(Segment::Deep) => position += 1,
                _ => return,
            }
        }
    }

    /// Visits `value`, whose states are `states[from..]`.
    fn visit(&mut self, value: &mut Value, from: usize) {
        let to = self.states.len();
        let (mut matched, mut alive) = (false, false);
        for &(alternative, position) in &self.states[from..to] {
            if position == self.alternatives[alternative].len() {
                matched = true;
            } else {
                alive = true;
            }
        }
        // Deleting, only the root gets here matched: it is never deleted, and its
        // members are still looked at.
        if matched && !self.remove {
            (self.f)(value, rendered_path(&self.path));
            if !self.below_matches {
                return;
            }
        }
        if !alive {
            return;
        }
        match value {
            Value::Object(map) => {
                if let Some(key) = self.only_key(from, to) {
                    if let Some(child) = map.get_mut(key) {
                        if self.descend(child, PathSegment::Key(key), from, to) {
                            map.remove(key);
                        }
                    }
                } else if map.keys().is_sorted() {
                    // Always so unless serde_json's `preserve_order` feature is on.
                    let mut doomed = Vec::new();
                    for (key, child) in map.iter_mut() {
                        if self.descend(child, PathSegment::Key(key), from, to) {
                            doomed.push(key.clone());
                        }
                    }
                    for key in doomed {
                        map.remove(&key);
                    }
                } else {
                    let mut keys: Vec<String> = map.keys().cloned().collect();
                    keys.sort_unstable();
                    for key in &keys {
                        if let Some(child) = map.get_mut(key) {
                            if self.descend(child, PathSegment::Key(key), from, to) {
                                map.remove(key);
                            }
                        }
                    }
                }
            }
            Value::Array(items) => {
                let mut doomed = Vec::new();
                for (index, child) in items.iter_mut().enumerate() {
                    if self.descend(child, PathSegment::Index(index), from, to) {
                        doomed.push(index);
                    }
                }
                if !doomed.is_empty() {
                    let mut index = 0;
                    items.retain(|_| {
                        index += 1;
                        doomed.binary_search(&(index - 1)).is_err()
                    });
                }
            }
            _ => {}
        }
    }

    /// The one key every live state of `states[from..to]` needs next, if there is one.
    fn only_key(&self, from: usize, to: usize) -> Option<&'s str> {
        let alternatives = self.alternatives;
        let mut only = None;
        for &(alternative, position) in &self.states[from..to] {
            match alternatives[alternative].get(position) {
                None => {}
                Some(Segment::Key(key)) if only.is_none_or(|only| only == key.as_str()) => {
                    only = Some(key.as_str());
                }
                Some(_) => return None,
            }
        }
        only
    }

    /// Steps from a node with states `states[from..to]` to its child at `step`, and
    /// visits the child if any state survives. `true` when deleting and the child matches:
    /// the caller deletes it (unvisited).
    fn descend(
        &mut self,
        child: &mut Value,
        step: PathSegment<'_>,
        from: usize,
        to: usize,
    ) -> bool {
        for i in from..to {
            let (alternative, position) = self.states[i];
            match self.alternatives[alternative].get(position) {
                Some(Segment::Deep) => self.add(to, alternative, position),
                Some(segment) if segment.matches(step) => self.add(to, alternative, position + 1),
                _ => {}
            }
        }
        if self.states.len() == to {
            return false;
        }
        let alternatives = self.alternatives;
        if self.remove
            && self.states[to..]
                .iter()
                .any(|&(alternative, position)| position == alternatives[alternative].len())
        {
            self.states.truncate(to);
            return true;
        }
        let len = self.path.len();
        push_step(&mut self.path, step);
        self.visit(child, to);
        self.path.truncate(len);
        self.states.truncate(to);
        false
    }
}
