//! JSON helpers: numeric-aware equality, structural differences with paths, the canonical
//! (deterministic) serialization fixtures are written in, and renderings for reports.
//!
//! - `eq.rs`: [`json_eq`], equality as fixtures mean it.
//! - `path.rs`: concrete paths ([`path::PathSegment`]) and their one rendering in selector
//!   form, which differences, secret findings and selector walks share.
//! - `diff.rs`: [`Difference`]s between two values, listing items paired by name.
//! - `write.rs`: the canonical writer (and its float writer) over any [`Tree`].
//! - `pretty.rs`: pretty lines for the report's diffs and a compact one-line form.
//!
//! Nothing here knows normalization, selectors or the replay: they use these helpers.

#[cfg(test)]
pub(crate) mod arbitrary;
mod diff;
mod eq;
pub(crate) mod path;
mod pretty;
#[cfg(test)]
mod tests;
mod write;

pub use diff::Difference;
pub(crate) use diff::{differences, differences_in, listing_of, pair_items, Listing};
pub(crate) use eq::json_eq;
pub(crate) use pretty::{compact, pretty_lines, Line};
pub(crate) use write::{
    needs_escape, write_canonical, write_members, write_message, write_message_with_id, Shape,
    Tree, MESSAGE_KEY_ORDER,
};

/// The members of `map` in key order, whatever serde_json's `preserve_order` feature
/// (which a user's SDK may turn on for the whole test build: tower-mcp, pmcp, turbomcp)
/// makes its iteration order: where the walk decides an order that is written (the
/// numbers of bound placeholders and pseudonyms, by first occurrence), it must not follow
/// the server's key order, which may change from run to run. Without `preserve_order` the
/// map iterates in key order already, and nothing is sorted.
pub(crate) fn members(
    map: &serde_json::Map<String, serde_json::Value>,
) -> Vec<(&String, &serde_json::Value)> {
    let mut members: Vec<(&String, &serde_json::Value)> = map.iter().collect();
    if !members.is_sorted_by(|a, b| a.0 <= b.0) {
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
    }
    members
}

/// [`members`] for a walk that changes the values.
pub(crate) fn members_mut(
    map: &mut serde_json::Map<String, serde_json::Value>,
) -> Vec<(&String, &mut serde_json::Value)> {
    let mut members: Vec<(&String, &mut serde_json::Value)> = map.iter_mut().collect();
    if !members.is_sorted_by(|a, b| a.0 <= b.0) {
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
    }
    members
}

/// A member reached through objects by key, as `Value::pointer("/a/b")` is, without its
/// cost: `pointer` unescapes each token into a new `String`, a few hundred instructions
/// per lookup, on paths the replay and the bridge look up for every message.
pub(crate) trait At {
    /// The value at `keys`, one object member after another; `None` where one is missing
    /// or a value on the way is not an object.
    fn at(&self, keys: &[&str]) -> Option<&serde_json::Value>;
}

impl At for serde_json::Value {
    fn at(&self, keys: &[&str]) -> Option<&serde_json::Value> {
        keys.iter().try_fold(self, |value, key| value.get(*key))
    }
}
