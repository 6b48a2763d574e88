//! Masking for reports: what the scanner would refuse, shown as its first characters and
//! the rule (`ghp_…[masked: github-pat]`).

use super::patterns::SENSITIVE_KEY;
use super::scan::{credential_like, is_sensitive_key, strip_scheme, token_spans};
use serde_json::Value;

/// How many characters of a secret a masked report shows (`ghp_…[masked: github-pat]`).
pub(super) const SHOWN: usize = 4;

/// `secret` as a masked report shows it: its first characters and the rule,
/// `ghp_…[masked: github-pat]`.
fn masked(secret: &str, rule: &str) -> String {
    let shown: String = secret.chars().take(SHOWN).collect();
    format!("{shown}…[masked: {rule}]")
}

/// `text` with every secret the token rules find masked (see [`masked`]); borrowed when
/// it holds none. For report outputs: a report prints live messages, and CI logs are read
/// by many.
pub(crate) fn mask_text(text: &str) -> std::borrow::Cow<'_, str> {
    let spans = token_spans(text);
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, rule) in spans {
        out.push_str(&text[at..range.start]);
        out.push_str(&masked(&text[range.clone()], rule));
        at = range.end;
    }
    out.push_str(&text[at..]);
    std::borrow::Cow::Owned(out)
}

/// `value` with every secret the scanner would refuse masked: tokens in any string or
/// key ([`mask_text`]), and the value of a credential-named key (`sensitive-key`) as
/// `Bearer …[masked: sensitive-key]` (its authorization scheme kept).
pub(crate) fn mask_value(value: &Value) -> Value {
    mask_under(None, value)
}

/// [`mask_value`] of `value`, found under the object key `key` (the key-name rule judges
/// a string by the key it is under).
pub(crate) fn mask_under(key: Option<&str>, value: &Value) -> Value {
    match value {
        Value::String(text) => {
            if let Some(key) = key {
                if token_spans(text).is_empty()
                    && is_sensitive_key(key)
                    && credential_like(key, text)
                {
                    let bare = strip_scheme(text.trim());
                    let scheme = text.trim().strip_suffix(bare).unwrap_or_default();
                    return Value::String(format!("{scheme}…[masked: {SENSITIVE_KEY}]"));
                }
            }
            Value::String(mask_text(text).into_owned())
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| mask_under(None, v)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (mask_text(k).into_owned(), mask_under(Some(k), v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
