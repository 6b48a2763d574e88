//! `iban`: International Bank Account Numbers (ISO 13616) whose country and length are
//! right and whose check digits pass mod 97, written as synthetic IBANs of the same
//! country and length, with valid check digits: `DE` + check + zeros + `n`.

use once_cell::sync::Lazy;
use regex::Regex;

static IBAN: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?-u)[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?")
        .expect("valid regex")
});

/// The countries' IBAN lengths (the ISO 13616 registry, the commonest).
const LENGTHS: [(&str, usize); 48] = [
    ("AD", 24),
    ("AE", 23),
    ("AT", 20),
    ("AZ", 28),
    ("BA", 20),
    ("BE", 16),
    ("BG", 22),
    ("BH", 22),
    ("BR", 29),
    ("CH", 21),
    ("CR", 22),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DK", 18),
    ("DO", 28),
    ("EE", 20),
    ("ES", 24),
    ("FI", 18),
    ("FO", 18),
    ("FR", 27),
    ("GB", 22),
    ("GE", 22),
    ("GI", 23),
    ("GL", 18),
    ("GR", 27),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IL", 23),
    ("IS", 26),
    ("IT", 27),
    ("KW", 30),
    ("KZ", 20),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("MC", 27),
    ("MT", 31),
    ("NL", 18),
    ("NO", 15),
    ("PL", 28),
    ("PT", 25),
    ("RO", 24),
    ("SA", 24),
    ("SE", 24),
    ("TR", 26),
];

/// The IBANs in `s`.
pub(super) fn find(s: &str, out: &mut Vec<super::Hit>) {
    for m in IBAN.find_iter(s) {
        let (start, end) = (m.start(), m.end());
        if !super::bounded(s, start, end, b"_-") {
            continue;
        }
        let compact: String = m.as_str().chars().filter(|c| *c != ' ').collect();
        let Some((_, len)) = LENGTHS.iter().find(|(cc, _)| compact.starts_with(cc)) else {
            continue;
        };
        // Seven digits or more, as `may_hold` promises (every registry format has them).
        if compact.len() != *len
            || mod97(&compact) != 1
            || compact.bytes().filter(u8::is_ascii_digit).count() < 7
        {
            continue;
        }
        out.push(super::Hit::new(
            start,
            end,
            super::Category::Iban,
            compact.clone(),
            numbered(&compact),
        ));
    }
}

/// The IBAN's remainder mod 97 (1 when its check digits are right).
fn mod97(compact: &str) -> u32 {
    let (head, tail) = compact.split_at(4);
    tail.chars().chain(head.chars()).fold(0u32, |r, c| {
        let v = c.to_digit(36).unwrap_or(0);
        if v >= 10 {
            (r * 100 + v) % 97
        } else {
            (r * 10 + v) % 97
        }
    })
}

/// The `n` of a pseudonym: the account part zeros then `n` (a bank code of zeros, which
/// no bank has).
fn numbered(compact: &str) -> Option<u64> {
    let bban = &compact[4..];
    let zeros = bban.bytes().take_while(|b| *b == b'0').count();
    (zeros >= bban.len() / 2 && bban.bytes().all(|b| b.is_ascii_digit()))
        .then(|| bban.parse().ok())
        .flatten()
        .filter(|n| *n > 0)
}

/// The pseudonym number `n` in the shape of `original` (its country, length and spaces).
pub(super) fn pseudonym(n: u64, original: &str) -> String {
    let compact: String = original.chars().filter(|c| *c != ' ').collect();
    let country = &compact[..2];
    let width = compact.len() - 4;
    let bban = format!("{n:0width$}");
    let check = 98 - mod97(&format!("{country}00{bban}"));
    let out = format!("{country}{check:02}{bban}");
    let mut next = out.chars();
    original
        .chars()
        .map(|c| {
            if c == ' ' {
                ' '
            } else {
                next.next().unwrap_or('0')
            }
        })
        .collect()
}
