//! `phone`: telephone numbers, international (`+44 20 7946 0958`) or North American
//! (`(415) 555-2671`, `415-555-2671`), written in the fictional range `+1-555-0100` on.

use once_cell::sync::Lazy;
use regex::Regex;

static INTERNATIONAL: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?-u)\+\d{1,3}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,5})){1,6}").expect("valid regex")
});

static NORTH_AMERICAN: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?-u)(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}").expect("valid regex")
});

/// The telephone numbers in `s`.
pub(super) fn find(s: &str, out: &mut Vec<super::Hit>) {
    for (re, international) in [(&*INTERNATIONAL, true), (&*NORTH_AMERICAN, false)] {
        for m in re.find_iter(s) {
            let (start, end) = (m.start(), m.end());
            if !super::bounded(s, start, end, b".-+_/") {
                continue;
            }
            let text = m.as_str();
            let digits: String = text.chars().filter(char::is_ascii_digit).collect();
            if international && !(8..=15).contains(&digits.len()) {
                continue;
            }
            if !international && !consistent(text) {
                continue;
            }
            if out.iter().any(|h| h.start < end && start < h.end) {
                continue;
            }
            let number = numbered(text);
            if number.is_none() && fictional(&digits) {
                continue;
            }
            out.push(super::Hit::new(
                start,
                end,
                super::Category::Phone,
                digits,
                number,
            ));
        }
    }
}

/// `555-123-4567` or `(555) 123-4567`, not `555-123.4567`: one separator throughout.
fn consistent(text: &str) -> bool {
    let seps: Vec<u8> = text
        .bytes()
        .filter(|b| matches!(b, b' ' | b'.' | b'-'))
        .collect();
    if text.starts_with('(') {
        return true;
    }
    seps.windows(2).all(|w| w[0] == w[1])
}

/// The `n` of a pseudonym `+1-555-0100` (1), `+1-555-0101` (2), ...
fn numbered(text: &str) -> Option<u64> {
    let rest = text.strip_prefix("+1-555-")?;
    if rest.len() != 4 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    rest.parse::<u64>().ok()?.checked_sub(99)
}

/// A number in North America's fictional range `555-0100` to `555-0199`.
fn fictional(digits: &str) -> bool {
    let local = &digits[digits.len().saturating_sub(7)..];
    local.starts_with("55501")
}

/// The pseudonym number `n`: `+1-555-0100` on.
pub(super) fn pseudonym(n: u64) -> String {
    format!("+1-555-{:04}", 99 + n)
}
