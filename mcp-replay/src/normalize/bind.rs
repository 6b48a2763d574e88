//! The live values of a session's bound placeholders (`<TASK_ID:n>`, `<CURSOR:n>`,
//! `<MINTED:n>`; `normalize/bound.rs`). Pure: a placeholder is bound where the server first
//! sends it, in the message the fixture expects there; every later client message gets
//! the live value in its place; a later server message is compared against it.

use crate::data::message::{Direction, MessageKind};
use crate::normalize::bound::bound_in;
use serde_json::Value;

/// The placeholders bound so far, with their live values.
#[derive(Debug, Default)]
pub(crate) struct Bindings {
    live: Vec<(String, String)>,
    /// Other spellings of a live value that a message may already hold: the pseudonym the
    /// session gave a personal value before it was bound (an e-mail address the server
    /// logged before it returned it), so that [`unbind`](Bindings::unbind) writes it back
    /// as its placeholder too.
    aliases: Vec<(String, String)>,
    /// Binds the pseudonyms of a user's values (`<CUSTOMER:1>`) instead of the bound
    /// placeholders ([`Bindings::pseudonyms`]).
    pseudonyms: bool,
}

impl Bindings {
    /// The bindings a session starts with, playing `side` of `entries`: each bound
    /// placeholder whose first occurrence is in a message of `side` (for the client, in
    /// its answer to a server request) is that side's own value (a task the client runs
    /// for the server, its id minted by the client), so the
    /// player mints it: it is bound at once to the fixed value
    /// [`served`](crate::normalize::bound::served) gives it, and the other side's echo is
    /// compared against that.
    ///
    /// `shapes`: the fixture header's shapes of its bound values; a placeholder that has
    /// one is bound to it (a value of the recorded value's shape), the others to the
    /// plain served form. `messages`: the text, direction and kind of each entry that
    /// holds a bound placeholder, in order.
    pub(crate) fn minted_by<'a>(
        messages: impl Iterator<Item = (&'a str, Direction, MessageKind)>,
        side: Direction,
        shapes: &[(String, String)],
    ) -> Bindings {
        let mut seen: Vec<&str> = Vec::new();
        let mut live = Vec::new();
        for (text, direction, kind) in messages {
            for (start, end) in bound_in(text) {
                let placeholder = &text[start..end];
                if seen.contains(&placeholder) {
                    continue;
                }
                seen.push(placeholder);
                // A client mints values in its answers (the task it runs for the server);
                // one its request sends first was the server's, sent before it came.
                let mints = direction == side
                    && (side == Direction::ServerToClient || kind == MessageKind::Response);
                if mints {
                    let value = match shapes.iter().find(|(p, _)| p == placeholder) {
                        Some((_, shape)) => shape.clone(),
                        None => crate::normalize::bound::served(placeholder)
                            .expect("a bound placeholder"),
                    };
                    live.push((placeholder.to_owned(), value));
                }
            }
        }
        Bindings {
            live,
            ..Bindings::default()
        }
    }

    /// Bindings of the pseudonyms a user's values, patterns and selectors wrote
    /// (`<CUSTOMER:1>`, `<VALUE:2>`; `normalize/personal/`): a replay without the values
    /// file (or with it, before its own pass) binds each to the value the server sends
    /// where the fixture has it, so the comparison holds, a re-recording writes the
    /// pseudonym again and never the value, and a client line that sends it back sends
    /// the live value. One the server has not sent is sent as written.
    pub(crate) fn pseudonyms() -> Bindings {
        Bindings {
            pseudonyms: true,
            ..Bindings::default()
        }
    }

    /// The placeholders of this kind of binding in `s`.
    fn placeholders_in(&self, s: &str) -> Vec<(usize, usize)> {
        if self.pseudonyms {
            crate::normalize::personal::pseudonyms_in(s)
        } else {
            bound_in(s)
        }
    }

    /// How many placeholders are bound.
    pub(crate) fn len(&self) -> usize {
        self.live.len()
    }

    /// The bindings made after the first `from` of them: `(placeholder, live value)`.
    pub(crate) fn since(&self, from: usize) -> impl Iterator<Item = (&str, &str)> {
        self.live[from.min(self.live.len())..]
            .iter()
            .map(|(p, v)| (p.as_str(), v.as_str()))
    }

    /// `alias` is another spelling of `placeholder`'s live value in the session's messages
    /// (its pseudonym): [`unbind`](Bindings::unbind) writes it back as the placeholder too.
    pub(crate) fn alias(&mut self, placeholder: &str, alias: String) {
        if !self.aliases.iter().any(|(_, a)| *a == alias) {
            self.aliases.push((placeholder.to_owned(), alias));
        }
    }

    /// Drops `alias`, once no message of the session still holds it and its number is
    /// free for another value.
    pub(crate) fn forget_alias(&mut self, alias: &str) {
        self.aliases.retain(|(_, a)| a != alias);
    }

    /// Binds `placeholder` to `live` (a value a client line's placeholder was found to
    /// stand for), unless it is bound already.
    pub(crate) fn bind(&mut self, placeholder: &str, live: String) {
        if self.get(placeholder).is_none() {
            self.live.push((placeholder.to_owned(), live));
        }
    }

    /// Is `value` the live value of a bound placeholder?
    pub(crate) fn is_live(&self, value: &str) -> bool {
        self.live.iter().any(|(_, v)| v == value)
    }

    /// The live value of `placeholder`, once bound.
    pub(crate) fn get(&self, placeholder: &str) -> Option<&str> {
        self.live
            .iter()
            .find(|(p, _)| p == placeholder)
            .map(|(_, v)| v.as_str())
    }

    /// Walks the expected message and the server's actual one side by side: where an
    /// expected string holds bound placeholders and the actual string has the same text
    /// around them, each placeholder is bound to the live value there (if it is not bound
    /// yet), and the actual string is written as the expected one, so that it compares
    /// equal. A live value other than the one already bound is left in place: the
    /// comparison reports it.
    pub(crate) fn bind_from(&mut self, expected: &Value, actual: &mut Value) {
        match (expected, actual) {
            (Value::String(e), Value::String(a)) => {
                let Some(mut values) = match_template_at(&self.placeholders_in(e), e, a) else {
                    return;
                };
                // A placeholder the actual string holds already (a value bound before,
                // written back as its placeholder) stands for itself.
                values.retain(|(p, v)| p != v || self.get(p).is_none());
                // Each placeholder stands for one value: bound already, or the same
                // wherever the template holds it.
                let agrees = values.iter().all(|(p, v)| {
                    self.get(p).is_none_or(|bound| bound == v)
                        && values.iter().all(|(q, w)| q != p || w == v)
                });
                if !agrees {
                    return;
                }
                for (p, v) in values {
                    if self.get(&p).is_none() {
                        self.live.push((p, v));
                    }
                }
                *a = e.clone();
            }
            (Value::Array(e), Value::Array(a)) => {
                for (e, a) in e.iter().zip(a.iter_mut()) {
                    self.bind_from(e, a);
                }
            }
            (Value::Object(e), Value::Object(a)) => {
                for (key, e) in e {
                    if let Some(a) = a.get_mut(key) {
                        self.bind_from(e, a);
                    }
                }
            }
            _ => {}
        }
    }

    /// Writes each bound live value in `message`'s strings back as its placeholder (for a
    /// server message the fixture's place for is not known yet: a notification, a server
    /// request). A value of fewer than 8 characters only where it is a whole string: a
    /// short one may be in other text by chance.
    pub(crate) fn unbind(&self, message: &mut Value) {
        if self.live.is_empty() {
            return;
        }
        match message {
            Value::String(s) => {
                for (placeholder, live) in self.live.iter().chain(&self.aliases) {
                    if s == live {
                        *s = placeholder.clone();
                        return;
                    }
                    if live.chars().count() >= 8 && s.contains(live.as_str()) {
                        *s = s.replace(live.as_str(), placeholder);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.unbind(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.unbind(v)),
            _ => {}
        }
    }

    /// Writes the live value of every bound placeholder in `message`'s strings; the
    /// placeholders not bound yet, in order.
    pub(crate) fn substitute(&self, message: &mut Value) -> Vec<String> {
        let mut unbound = Vec::new();
        self.substitute_into(message, &mut unbound);
        unbound
    }

    fn substitute_into(&self, value: &mut Value, unbound: &mut Vec<String>) {
        match value {
            Value::String(s) => {
                let found = self.placeholders_in(s);
                if found.is_empty() {
                    return;
                }
                let mut out = String::with_capacity(s.len());
                let mut at = 0;
                for (start, end) in found {
                    out.push_str(&s[at..start]);
                    let placeholder = &s[start..end];
                    match self.get(placeholder) {
                        Some(live) => out.push_str(live),
                        None => {
                            out.push_str(placeholder);
                            if !unbound.iter().any(|u| u == placeholder) {
                                unbound.push(placeholder.to_owned());
                            }
                        }
                    }
                    at = end;
                }
                out.push_str(&s[at..]);
                *s = out;
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|v| self.substitute_into(v, unbound)),
            Value::Object(map) => map
                .values_mut()
                .for_each(|v| self.substitute_into(v, unbound)),
            _ => {}
        }
    }
}

/// The values the placeholders of `template` (at `found`) take in `actual`, when `actual` is the
/// template with each placeholder replaced by a non-empty value: `None` when the template
/// has no bound placeholder or the text around them differs. Each value runs to the first
/// place the literal text after it matches.
fn match_template_at(
    found: &[(usize, usize)],
    template: &str,
    actual: &str,
) -> Option<Vec<(String, String)>> {
    if found.is_empty() {
        return None;
    }
    let mut values = Vec::new();
    let mut rest = actual.strip_prefix(&template[..found[0].0])?;
    for (k, &(start, end)) in found.iter().enumerate() {
        let literal = match found.get(k + 1) {
            Some(&(next, _)) => &template[end..next],
            None => &template[end..],
        };
        let (value, after) = if k + 1 == found.len() {
            let value = rest.strip_suffix(literal)?;
            (value, "")
        } else {
            let cut = rest.find(literal).filter(|_| !literal.is_empty())?;
            (&rest[..cut], &rest[cut + literal.len()..])
        };
        if value.is_empty() {
            return None;
        }
        values.push((template[start..end].to_owned(), value.to_owned()));
        rest = after;
    }
    Some(values)
}

/// [`match_template_at`] of the bound placeholders of `template`.
#[cfg(test)]
fn match_template(template: &str, actual: &str) -> Option<Vec<(String, String)>> {
    match_template_at(&bound_in(template), template, actual)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bind_where_the_server_first_sends_a_value_then_substitute_it() {
        let mut b = Bindings::default();
        let expected = json!({"result": {"nextCursor": "<CURSOR:1>", "content": [{"text": "created <MINTED:1>!"}]}});
        let mut actual =
            json!({"result": {"nextCursor": "c-93", "content": [{"text": "created n-7!"}]}});
        b.bind_from(&expected, &mut actual);
        assert_eq!(actual, expected, "the actual message now compares equal");
        assert_eq!(b.get("<CURSOR:1>"), Some("c-93"));
        assert_eq!(b.get("<MINTED:1>"), Some("n-7"));
        let mut call =
            json!({"params": {"cursor": "<CURSOR:1>", "q": "note <MINTED:1> and <TASK_ID:1>"}});
        assert_eq!(b.substitute(&mut call), ["<TASK_ID:1>"]);
        assert_eq!(
            call,
            json!({"params": {"cursor": "c-93", "q": "note n-7 and <TASK_ID:1>"}})
        );
    }

    #[test]
    fn another_live_value_later_is_left_for_the_comparison() {
        let mut b = Bindings::default();
        let expected = json!({"taskId": "<TASK_ID:1>"});
        b.bind_from(&expected, &mut json!({"taskId": "t-1"}));
        let mut other = json!({"taskId": "t-2"});
        b.bind_from(&expected, &mut other);
        assert_eq!(other, json!({"taskId": "t-2"}));
        assert_eq!(b.get("<TASK_ID:1>"), Some("t-1"));
        // Other text around the placeholder binds nothing.
        let mut b = Bindings::default();
        b.bind_from(&json!("id <MINTED:1>"), &mut json!("no id"));
        assert_eq!(b.get("<MINTED:1>"), None);
    }

    #[test]
    fn a_bound_value_in_a_later_notification_is_its_placeholder_again() {
        let mut b = Bindings::default();
        b.bind_from(&json!("<TASK_ID:1>"), &mut json!("task-abc-123"));
        b.bind_from(&json!("<CURSOR:1>"), &mut json!("2"));
        let mut status = json!({"params": {"taskId": "task-abc-123", "note": "task task-abc-123 at 2", "n": "2"}});
        b.unbind(&mut status);
        assert_eq!(
            status,
            json!({"params": {"taskId": "<TASK_ID:1>", "note": "task <TASK_ID:1> at 2", "n": "<CURSOR:1>"}})
        );
    }

    #[test]
    fn match_templates_with_several_placeholders() {
        assert_eq!(
            match_template("<MINTED:1>/<MINTED:2>.json", "a1/b2.json"),
            Some(vec![
                ("<MINTED:1>".into(), "a1".into()),
                ("<MINTED:2>".into(), "b2".into())
            ])
        );
        assert_eq!(match_template("x <MINTED:1>", "y 1"), None);
        assert_eq!(match_template("<MINTED:1>", ""), None);
        assert_eq!(match_template("plain", "plain"), None);
    }
}
