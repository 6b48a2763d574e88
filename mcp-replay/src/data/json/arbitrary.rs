//! Strategies for property tests of paths: keys of every kind, concrete paths, JSON values.

use super::path::PathSegment;
use proptest::prelude::*;
use serde_json::Value;

/// A step of a concrete path, owned.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

impl Step {
    pub(crate) fn borrowed(&self) -> PathSegment<'_> {
        match self {
            Step::Key(k) => PathSegment::Key(k),
            Step::Index(i) => PathSegment::Index(*i),
        }
    }
}

/// Object keys: bare ones, empty, and ones with quotes, backslashes, control
/// characters, selector punctuation and non-ASCII characters.
pub(crate) fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z0-9_/-]{1,6}",
        "[\"\\\\.\\[\\]*:, a-z\u{0}-\u{1f}\u{7f}é😀]{0,5}",
        "\\PC{0,5}",
    ]
}

/// A concrete path of up to 6 steps.
pub(crate) fn path() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            key().prop_map(Step::Key),
            prop_oneof![0..20usize, any::<usize>()].prop_map(Step::Index),
        ],
        0..6,
    )
}

/// A JSON value of a few levels.
pub(crate) fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z\"]{0,4}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(key(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
