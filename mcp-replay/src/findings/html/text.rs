//! The text of the page: a message as a row and its details show it (masked, cut), the
//! label of its arrow, HTML escaping, durations.

use crate::data::json::compact;
use crate::normalize::secrets::{mask_text, mask_value};
use serde_json::Value;
use std::fmt::Write as _;
use std::time::Duration;

/// How much of a message a row shows (the rest is a click away).
pub(super) const ROW_TEXT: usize = 400;

/// How much of a message its details show.
pub(super) const WHOLE_TEXT: usize = 64 * 1024;

/// A message as the page shows it: masked, in a row and whole.
pub(super) struct Shown {
    /// The method (and the tool, prompt or resource) or the id.
    pub(super) label: String,
    /// One line, cut at [`ROW_TEXT`].
    pub(super) line: String,
    /// Pretty-printed, cut at [`WHOLE_TEXT`].
    pub(super) whole: String,
}

pub(super) fn shown(text: &str) -> Shown {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => {
            // Every string and key masked: what is written of the value holds no secret.
            let value = mask_value(&value);
            let whole = serde_json::to_string_pretty(&value).unwrap_or_default();
            Shown {
                label: label_of(&value),
                line: compact(&value, ROW_TEXT),
                whole: cut(&whole, WHOLE_TEXT),
            }
        }
        Err(_) => {
            let text = mask_text(text);
            Shown {
                label: String::new(),
                line: cut(&text, ROW_TEXT),
                whole: cut(&text, WHOLE_TEXT),
            }
        }
    }
}

/// `text` cut at `max` characters, saying so.
pub(super) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!(
            "{}… ({} more characters)",
            &text[..at],
            text[at..].chars().count()
        ),
        None => text.to_owned(),
    }
}

/// What an arrow is labelled with: `tools/call count_up · id 2`, `response 2`,
/// `notifications/progress`.
pub(super) fn label_of(message: &Value) -> String {
    let id = message.get("id").map(|id| compact(id, 24));
    match message.get("method").and_then(Value::as_str) {
        Some(method) => {
            let params = message.get("params");
            let item = ["name", "uri"]
                .iter()
                .find_map(|k| params.and_then(|p| p.get(*k)).and_then(Value::as_str));
            let mut label = match item {
                Some(item) => format!("{method} {}", cut(item, 40)),
                None => method.to_owned(),
            };
            if let Some(id) = id {
                let _ = write!(label, " · id {id}");
            }
            label
        }
        None => {
            let word = if message.get("error").is_some() {
                "error"
            } else {
                "response"
            };
            match id {
                Some(id) => format!("{word} {id}"),
                None => word.to_owned(),
            }
        }
    }
}

/// `text` for HTML, in an element or an attribute. Control characters (which a page
/// cannot hold) are written as `\u{..}`.
pub(super) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

pub(super) fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms >= 10_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        format!("{ms:.1} ms")
    }
}
