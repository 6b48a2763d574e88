//! Personal data: e-mail addresses, telephone numbers, IP addresses, payment cards and
//! IBANs found in a fixture's messages, and the values a user names, written as
//! pseudonyms of the same shape; and the deny list that proves none of the originals
//! survived (`docs/normalization.md`, "Personal data").
//!
//! A pseudonym is numbered by the value's first occurrence in the exchange
//! (`alice@corp.com` is `user1@example.invalid` wherever it occurs, also where the client
//! sends it back), so a fixture keeps its meaning and re-recording gives the same bytes.
//! Numbering is stateful, so it is not a rule of [`normalize_server`]: a fixture is
//! written through one `Table` (`record.rs`, the update mode), and a replay keeps one
//! for its session, fed the client messages it sends and applied to what the server sends.
//!
//! - `email.rs`, `phone.rs`, `ip.rs`, `card.rs`, `iban.rs`: one category each: what it
//!   finds, which values are already synthetic (left alone, and counted), its pseudonyms.
//! - `table.rs`: the pass over a message (`Table`) with the user's own values, patterns
//!   and selectors (`Own`).
//! - `values.rs`: the values file ([`Values`]) and the deny-list check ([`DenyList`]).
//!
//! [`normalize_server`]: crate::Rules::normalize_server

mod card;
mod email;
mod iban;
mod ip;
mod phone;
mod table;
mod values;

#[cfg(test)]
mod tests;

pub(crate) use table::{categories_on, is_protocol_member, Own, Scope, Table};
pub(crate) use values::kind_name;
pub use values::Values;
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub use values::{Denied, DenyList};

/// The pseudonym placeholders in `s` that a user's values, patterns and selectors write
/// (`<CUSTOMER:1>`, `<VALUE:2>`), in order, as `(start, end)` byte ranges: `<NAME:n>` of
/// capitals, digits and `_`, but for the harness's own numbered placeholders (request ids,
/// progress tokens and the bound kinds of `normalize/bound.rs`).
pub(crate) fn pseudonyms_in(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    pseudonyms(s, |range| {
        out.push(range);
        true
    });
    out
}

/// Does `s` hold a pseudonym [`pseudonyms_in`] finds? One vectorized search for `<`, no
/// allocation: asked of every fixture line once a replay.
pub(crate) fn has_pseudonym(s: &str) -> bool {
    let mut found = false;
    pseudonyms(s, |_| {
        found = true;
        false
    });
    found
}

/// Calls `each` with the range of each pseudonym in `s`, in order, while it says `true`.
fn pseudonyms(s: &str, mut each: impl FnMut((usize, usize)) -> bool) {
    const OWN: [&str; 3] = ["REQUEST_ID", "SERVER_REQUEST_ID", "PROGRESS_TOKEN"];
    for i in memchr::memchr_iter(b'<', s.as_bytes()) {
        let rest = &s.as_bytes()[i + 1..];
        let name = rest
            .iter()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_')
            .count();
        if name == 0 || !rest[0].is_ascii_uppercase() || rest.get(name) != Some(&b':') {
            continue;
        }
        let digits = rest[name + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || rest.get(name + 1 + digits) != Some(&b'>') {
            continue;
        }
        let kind = &s[i + 1..i + 1 + name];
        if OWN.contains(&kind)
            || crate::normalize::bound::KINDS
                .iter()
                .any(|(k, _)| *k == kind)
        {
            continue;
        }
        if !each((i, i + 1 + name + 1 + digits + 1)) {
            return;
        }
    }
}

/// The categories of personal data, by their rule names: each a default rule that
/// [`Rules::without`](crate::Rules::without) turns off.
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub const CATEGORIES: [&str; 6] = ["email", "phone", "ipv4", "ipv6", "payment-card", "iban"];

/// A category of personal data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Category {
    Email,
    Phone,
    Ipv4,
    Ipv6,
    PaymentCard,
    Iban,
}

impl Category {
    /// Every category, in [`CATEGORIES`]' order.
    pub(crate) const ALL: [Category; 6] = [
        Category::Email,
        Category::Phone,
        Category::Ipv4,
        Category::Ipv6,
        Category::PaymentCard,
        Category::Iban,
    ];

    /// Its rule name in [`CATEGORIES`].
    pub(crate) fn name(self) -> &'static str {
        CATEGORIES[self as usize]
    }

    /// The pseudonym numbered `n` for a value written `original`.
    fn pseudonym(self, n: u64, original: &str) -> String {
        match self {
            Category::Email => email::pseudonym(n),
            Category::Phone => phone::pseudonym(n),
            Category::Ipv4 => ip::pseudonym_v4(n),
            Category::Ipv6 => ip::pseudonym_v6(n),
            Category::PaymentCard => card::pseudonym(n, original),
            Category::Iban => iban::pseudonym(n, original),
        }
    }
}

/// One value found in a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Its byte range in the string.
    pub start: usize,
    pub end: usize,
    pub category: Category,
    /// Its canonical form: the same value however it is written (lower case, digits only).
    pub canonical: String,
    /// `Some(n)` when it is already the pseudonym numbered `n`.
    pub number: Option<u64>,
}

impl Hit {
    fn new(
        start: usize,
        end: usize,
        category: Category,
        canonical: String,
        number: Option<u64>,
    ) -> Hit {
        Hit {
            start,
            end,
            category,
            canonical,
            number,
        }
    }
}

/// What finds one category's values in a string.
type Finder = fn(&str, &mut Vec<Hit>);

/// The personal data in `s` of the categories `on` (indexed as [`Category::ALL`]), in
/// order, without overlaps: pseudonyms (with their number) and real values alike.
/// Loopback, private and documentation addresses, reserved e-mail domains, fictional
/// telephone numbers and published test cards are not found at all.
pub(crate) fn find(s: &str, on: &[bool; 6]) -> Vec<Hit> {
    let mut hits = Vec::new();
    if !may_hold(s) || looks_like_a_blob(s) {
        return hits;
    }
    // The more particular shapes first: an IBAN or a card is not also a telephone number.
    let finders: [(Category, Finder); 6] = [
        (Category::Email, email::find),
        (Category::Iban, iban::find),
        (Category::PaymentCard, card::find),
        (Category::Ipv6, ip::find_v6),
        (Category::Ipv4, ip::find_v4),
        (Category::Phone, phone::find),
    ];
    for (category, finder) in finders {
        if !on[category as usize] {
            continue;
        }
        let mut found = Vec::new();
        finder(s, &mut found);
        for hit in found {
            if !hits
                .iter()
                .any(|h: &Hit| h.start < hit.end && hit.start < h.end)
            {
                hits.push(hit);
            }
        }
    }
    hits.sort_by_key(|h| h.start);
    hits
}

/// One place a message holds what looks like personal data, by path and category, never
/// by value: what `mcp-replay check` warns about in a fixture written by hand or by an
/// older version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub struct Finding {
    /// The JSON path (`.result.content[0].text`).
    pub path: String,
    /// The category, a name of [`CATEGORIES`].
    pub category: &'static str,
}

/// Every place in `value` that holds personal data of a category (pseudonyms and the
/// values the categories leave alone are not found), in document order; the protocol's
/// own fields (the envelope, versions, media types, progress tokens, cursors) are not
/// looked at.
///
/// ```
/// use mcp_replay::personal::scan;
///
/// let found = scan(&serde_json::json!({"result": {"text": "mail alice@corp.com"}}));
/// assert_eq!((found[0].path.as_str(), found[0].category), (".result.text", "email"));
/// let synthetic = serde_json::json!({"result": {"text": "user1@example.invalid, 10.0.0.1"}});
/// assert!(scan(&synthetic).is_empty());
/// ```
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub fn scan(value: &serde_json::Value) -> Vec<Finding> {
    fn walk(value: &serde_json::Value, path: &mut String, out: &mut Vec<Finding>) {
        use crate::data::json::path::{push_step, rendered_path, PathSegment};
        use serde_json::Value;
        match value {
            Value::String(s) => {
                for hit in find(s, &[true; 6]) {
                    if hit.number.is_none() {
                        out.push(Finding {
                            path: rendered_path(path).to_owned(),
                            category: hit.category.name(),
                        });
                    }
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = path.len();
                    push_step(path, PathSegment::Index(i));
                    walk(item, path, out);
                    path.truncate(len);
                }
            }
            Value::Object(map) => {
                for (key, item) in crate::data::json::members(map) {
                    if table::is_protocol_member(key, path.is_empty()) {
                        continue;
                    }
                    let len = path.len();
                    push_step(path, PathSegment::Key(key));
                    walk(item, path, out);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut String::new(), &mut out);
    out
}

/// A cheap test before any pattern runs: could `s` hold personal data at all? An `@`,
/// seven digits, a dotted quad's three dots and four digits, or `::`. `false` means
/// [`find`] finds nothing (the replay's fast path relies on it). Counts, not a state
/// machine: each is one vectorized pass.
pub(crate) fn may_hold(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 6 {
        return false;
    }
    if memchr::memchr(b'@', b).is_some() {
        return true;
    }
    // Generic, not a `fn` pointer, and counted in bytes, 255 at a time: inlined, each
    // count is one vectorized pass of sixteen or more bytes a step.
    fn count(b: &[u8], f: impl Fn(u8) -> bool) -> u32 {
        b.chunks(255)
            .map(|chunk| {
                u32::from(
                    chunk
                        .iter()
                        .fold(0u8, |n, &c| n.wrapping_add(u8::from(f(c)))),
                )
            })
            .sum()
    }
    static TWO_COLONS: crate::data::needle::Needle = crate::data::needle::Needle::new("::");
    let digits = count(b, |c| c.is_ascii_digit());
    digits >= 7 || (digits >= 4 && count(b, |c| c == b'.') >= 3) || TWO_COLONS.is_in(s)
}

/// [`may_hold`] for the JSON text of a whole message: what it says of the text holds for
/// every string in it, but for escapes, so a `\u` escape (which may hide an `@`) counts
/// too. `false` means no string of the message holds anything [`find`] finds.
pub(crate) fn may_hold_line(text: &str) -> bool {
    // A backslash is rare in a line: one `memchr` pass finds none in most.
    let b = text.as_bytes();
    may_hold(text) || memchr::memchr_iter(b'\\', b).any(|i| b.get(i + 1) == Some(&b'u'))
}

/// A string of 64 or more characters with no space, all of base64's alphabet (and at
/// least one digit): a payload, not text, whatever digits it happens to hold.
pub(crate) fn looks_like_a_blob(s: &str) -> bool {
    s.len() >= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_'))
}

/// Is `s[start..end]` a value of its own: the byte before and the byte after are not
/// letters or digits, nor any of `extra`? A full stop that ends a sentence (followed by
/// no letter or digit) is not part of the value.
fn bounded(s: &str, start: usize, end: usize, extra: &[u8]) -> bool {
    let b = s.as_bytes();
    let apart = |c: u8| !c.is_ascii_alphanumeric() && !extra.contains(&c);
    let full_stop = |i: usize| {
        b[i] == b'.'
            && b.get(i + 1)
                .is_none_or(|n| !n.is_ascii_alphanumeric() && *n != b'.')
    };
    (start == 0 || apart(b[start - 1])) && (end == b.len() || apart(b[end]) || full_stop(end))
}

/// The `n` of `<prefix><n>` (digits, no leading zero).
fn number_after(text: &str, prefix: &str) -> Option<u64> {
    let digits = text.strip_prefix(prefix)?;
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}
