//! The fixture's messages as the comparison needs them: normalized trees built on demand,
//! and a comparison that tries canonical text first.

use super::strip_json;
use crate::data::fixture::Entry;
use crate::data::json::json_eq;
use crate::normalize::fast::{FastResponse, HEAD};
use crate::normalize::personal::{Scope, Table};
use crate::rules::Rules;
use serde_json::Value;
use std::cell::RefCell;

/// The expected messages of a fixture, parsed from their text and normalized only when a
/// comparison needs the tree.
pub(crate) struct Expected<'a> {
    entries: &'a [Entry],
    rules: &'a Rules,
    /// Boxed: most entries are never normalized as trees (the fast path compares text),
    /// and an empty cell is then one word, not a whole `Value`.
    messages: Vec<once_cell::unsync::OnceCell<Box<Value>>>,
    /// Reused for the canonical text of actual messages.
    text: RefCell<String>,
    /// The session's pseudonyms (`normalize/personal/`): fed the client messages sent,
    /// applied to the server's, and to the fixture's lines (an older fixture may hold the
    /// values themselves).
    pseudonyms: RefCell<Table>,
    /// What that pass rewrites, under `rules`.
    scope: Scope<'a>,
}

impl<'a> Expected<'a> {
    pub fn new(entries: &'a [Entry], rules: &'a Rules) -> Self {
        Expected {
            entries,
            rules,
            messages: entries.iter().map(|_| Default::default()).collect(),
            text: RefCell::new(String::new()),
            pseudonyms: RefCell::new(Table::default()),
            scope: rules.personal_scope(),
        }
    }

    /// The fixture's entries.
    pub fn entries(&self) -> &'a [Entry] {
        self.entries
    }

    /// Writes the personal data of a message the server sent as the session's pseudonyms.
    pub fn pseudonymize(&self, message: &mut Value) {
        if !self.scope.is_empty() {
            self.pseudonyms
                .borrow_mut()
                .apply(message, self.scope, true);
        }
    }

    /// The pseudonym the session has given `value` already, if it is personal data that a
    /// message before now held (a probe on a copy of the session's table, which numbers
    /// nothing): the spelling a message that came before `value` was bound holds it in.
    pub fn pseudonym_of(&self, value: &str) -> Option<String> {
        if self.scope.is_empty() || !self.scope.may_touch(value) {
            return None;
        }
        let table = self.pseudonyms.borrow();
        let mut probe_table = table.clone();
        let mut probe = Value::String(value.to_owned());
        probe_table.apply(&mut probe, self.scope, true);
        // A value the session had not numbered yet got a new number in the probe: no
        // message holds that pseudonym for it.
        if probe_table != *table {
            return None;
        }
        match probe {
            Value::String(s) if s != value => Some(s),
            _ => None,
        }
    }

    /// Gives back the pseudonym number of `value`, which the session has bound since it
    /// numbered it, if nothing was numbered after it ([`Table::release`]).
    pub fn release(&self, value: &str) -> bool {
        !self.scope.is_empty() && self.pseudonyms.borrow_mut().release(value, self.scope)
    }

    /// Counts the pseudonyms of a client message the harness sent (and numbers the
    /// values an older fixture's message holds), so that the server's next value gets the
    /// number the recording gave it.
    pub fn sent(&self, entry: &Entry) {
        if self.scope.may_touch(entry.text()) {
            let mut message = entry.message();
            self.pseudonyms
                .borrow_mut()
                .apply(&mut message, self.scope, true);
        }
    }

    /// The normalized message of entry `e`: the expected side meets the actual side as
    /// placeholders, so both are normalized.
    pub fn message(&self, e: usize) -> &Value {
        self.messages[e].get_or_init(|| {
            let mut message = self.entries[e].message();
            self.rules.normalize_server(&mut message);
            if self.scope.may_touch(self.entries[e].text()) {
                self.pseudonyms
                    .borrow_mut()
                    .apply(&mut message, self.scope, false);
            }
            Box::new(message)
        })
    }

    /// [`matches`](Expected::matches) for a fast-path response (its id replaced by the
    /// entry's own label): the fixture line after its id is the response's text after
    /// its id.
    pub fn matches_text(&self, e: usize, actual: &FastResponse) -> bool {
        let entry = &self.entries[e];
        let rest = entry
            .text()
            .strip_prefix(HEAD)
            .and_then(|rest| strip_json(rest, entry.id()?));
        rest == Some(&actual.text[actual.id_end..])
    }

    /// Is `actual` (normalized), with its id written as `label`, what entry `e` expects?
    ///
    /// First as text: when the canonical text of `actual` is the fixture line's, they are
    /// equal once the line is normalized too, because normalization is idempotent (the
    /// default rules are, by property test; a rule that is not would make the fixture fail
    /// on every re-recording). Only otherwise is the line parsed and compared as JSON
    /// (which also equates `1` and `1.0`).
    pub fn matches(&self, e: usize, actual: &Value, label: Option<&Value>) -> bool {
        let same_text = {
            let mut text = self.text.borrow_mut();
            text.clear();
            crate::data::json::write_message_with_id(&mut text, actual, label);
            *text == *self.entries[e].text()
        };
        same_text || eq_relabelled(self.message(e), actual, label)
    }
}

/// `json_eq(expected, &with_id(actual, label))`, without the copy.
fn eq_relabelled(expected: &Value, actual: &Value, label: Option<&Value>) -> bool {
    match (expected.as_object(), actual.as_object(), label) {
        (Some(e), Some(a), Some(label)) if a.contains_key("id") => {
            e.len() == a.len()
                && e.iter().all(|(k, v)| match a.get(k) {
                    Some(_) if k == "id" => json_eq(v, label),
                    Some(other) => json_eq(v, other),
                    None => false,
                })
        }
        _ => json_eq(expected, actual),
    }
}
