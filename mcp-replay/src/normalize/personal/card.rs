//! `payment-card`: card numbers of 13 to 19 digits (alone, or in groups split by spaces or
//! dashes) that start as a card network's do and pass the Luhn check, written as Luhn-valid
//! numbers of the same length and grouping from the test prefix `400000`.

use once_cell::sync::Lazy;
use regex::Regex;

static CARD: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"(?-u)\d(?:[ -]?\d){12,18}").expect("valid regex"));

/// The prefix of every pseudonym (a test range no issuer uses).
const PREFIX: &str = "400000";

/// Card numbers the networks publish for tests: already synthetic.
const TEST_NUMBERS: [&str; 8] = [
    "4111111111111111",
    "4242424242424242",
    "4012888888881881",
    "5555555555554444",
    "5105105105105100",
    "378282246310005",
    "371449635398431",
    "6011111111111117",
];

/// The card numbers in `s`.
pub(super) fn find(s: &str, out: &mut Vec<super::Hit>) {
    for m in CARD.find_iter(s) {
        let (start, end) = (m.start(), m.end());
        if !super::bounded(s, start, end, b".-_/:+") {
            continue;
        }
        let text = m.as_str();
        let seps: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_digit()).collect();
        if seps.windows(2).any(|w| w[0] != w[1]) {
            continue;
        }
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        if !network(&digits) || !luhn_valid(&digits) {
            continue;
        }
        let number = numbered(&digits);
        if number.is_none() && TEST_NUMBERS.contains(&digits.as_str()) {
            continue;
        }
        out.push(super::Hit::new(
            start,
            end,
            super::Category::PaymentCard,
            digits,
            number,
        ));
    }
}

/// Does the number start as Visa, Mastercard, American Express, Discover, JCB, Diners
/// Club or UnionPay numbers do?
fn network(d: &str) -> bool {
    let two: u32 = d[..2].parse().unwrap_or(0);
    let four: u32 = d[..4].parse().unwrap_or(0);
    d.starts_with('4')
        || (51..=55).contains(&two)
        || (2221..=2720).contains(&four)
        || two == 34
        || two == 37
        || d.starts_with("6011")
        || two == 65
        || two == 35
        || two == 36
        || two == 30
        || two == 62
}

/// The Luhn check (ISO/IEC 7812).
pub(super) fn luhn_valid(digits: &str) -> bool {
    luhn_sum(digits, false).is_multiple_of(10)
}

/// The Luhn sum of `digits`; `check_to_come`: a check digit is still to be appended.
fn luhn_sum(digits: &str, check_to_come: bool) -> u32 {
    digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            let double = (i % 2 == 1) != check_to_come;
            if double {
                let d = d * 2;
                if d > 9 {
                    d - 9
                } else {
                    d
                }
            } else {
                d
            }
        })
        .sum()
}

/// The `n` of a pseudonym: `400000`, zeros, `n`, the check digit.
fn numbered(digits: &str) -> Option<u64> {
    let body = digits.strip_prefix(PREFIX)?;
    let body = &body[..body.len().checked_sub(1)?];
    body.parse::<u64>().ok().filter(|n| *n > 0)
}

/// The pseudonym number `n` in the shape of `original` (its length and separators).
pub(super) fn pseudonym(n: u64, original: &str) -> String {
    let len = original.bytes().filter(u8::is_ascii_digit).count();
    let width = len - PREFIX.len() - 1;
    let mut digits = format!("{PREFIX}{n:0width$}");
    let check = (10 - luhn_sum(&digits, true) % 10) % 10;
    digits.push(char::from(b'0' + check as u8));
    let mut next = digits.chars();
    original
        .chars()
        .map(|c| {
            if c.is_ascii_digit() {
                next.next().unwrap_or('0')
            } else {
                c
            }
        })
        .collect()
}
