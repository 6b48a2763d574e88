//! JSON for people: the lines of a pretty-printed value, tagged by the listing item they
//! belong to, for the report's diffs, and a short one-line rendering.

use super::diff::Listing;
use super::write::{write_canonical, write_message, write_string, SortedMembers};
use serde_json::Value;

/// One line of a pretty-printed value (two spaces an indent, keys sorted): the key of the
/// listing item it belongs to, if any, and its text.
pub(crate) type Line = (Option<String>, String);

/// The lines of `value` pretty-printed, each with the key of the listing item it belongs to
/// (`listing`); the listing's items in the order of `order` (indices into the array, every
/// one once), else as they are.
pub(crate) fn pretty_lines(
    value: &Value,
    listing: Option<Listing>,
    order: Option<&[usize]>,
) -> Vec<Line> {
    let mut out = Vec::new();
    let at = listing.map(|l| (l.path, l.key, order));
    lines_into(&mut out, value, 0, String::new(), "", None, at);
    out
}

type At<'a> = Option<(&'a [&'a str], &'a str, Option<&'a [usize]>)>;

fn lines_into(
    out: &mut Vec<Line>,
    value: &Value,
    indent: usize,
    prefix: String,
    suffix: &str,
    tag: Option<&str>,
    at: At<'_>,
) {
    let tag_of = |t: Option<&str>| t.map(str::to_owned);
    let pad = |n: usize| "  ".repeat(n);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push((tag_of(tag), format!("{prefix}{{")));
            let n = map.len();
            for (i, (k, v)) in SortedMembers::of(map).enumerate() {
                let mut key = String::new();
                write_string(&mut key, k);
                let below = match at {
                    Some(([first, rest @ ..], key, order)) if *first == k => {
                        Some((rest, key, order))
                    }
                    _ => None,
                };
                let comma = if i + 1 < n { "," } else { "" };
                let prefix = format!("{}{key}: ", pad(indent + 1));
                lines_into(out, v, indent + 1, prefix, comma, tag, below);
            }
            out.push((tag_of(tag), format!("{}}}{suffix}", pad(indent))));
        }
        Value::Array(items) if !items.is_empty() => {
            out.push((tag_of(tag), format!("{prefix}[")));
            let listing = match at {
                Some(([], key, order)) => Some((key, order)),
                _ => None,
            };
            let natural: Vec<usize> = (0..items.len()).collect();
            let order = match listing {
                Some((_, Some(order))) if order.len() == items.len() => order,
                _ => &natural,
            };
            for (place, &i) in order.iter().enumerate() {
                let item = &items[i];
                let own = listing.and_then(|(key, _)| item.get(key)?.as_str());
                let comma = if place + 1 < order.len() { "," } else { "" };
                lines_into(
                    out,
                    item,
                    indent + 1,
                    pad(indent + 1),
                    comma,
                    own.or(tag),
                    None,
                );
            }
            out.push((tag_of(tag), format!("{}]{suffix}", pad(indent))));
        }
        other => {
            let mut text = prefix;
            write_canonical(&mut text, other);
            text.push_str(suffix);
            out.push((tag_of(tag), text));
        }
    }
}

/// A short one-line rendering of a value for reports, cut at `max` characters.
pub fn compact(value: &Value, max: usize) -> String {
    let mut s = String::new();
    if value.get("jsonrpc").is_some() {
        write_message(&mut s, value);
    } else {
        write_canonical(&mut s, value);
    }
    if s.chars().count() > max {
        let cut: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        s
    }
}
