//! The shape of a bound value: what a fixture keeps of a value it replaced by a bound
//! placeholder, so that whoever plays the side that minted it (the mock, for a server's
//! values; a replay, for the client's) gives the other side a value of the same shape.
//!
//! A fixture's header maps each such placeholder to a synthetic value (`"shapes":
//! {"<MINTED:1>": "cus_000000000001"}`), made here from the recorded value when the
//! fixture is written and never holding it: an e-mail address becomes
//! `minted1@example.invalid`, a UUID a UUID numbered 1, and any other value keeps its
//! punctuation, its short lowercase words (`cus_`, `crm://customers/`) and its upper-case
//! words of up to four letters (`ORD-`, `R-`) while each run of
//! digits, hex digits or other letters becomes the number, padded to the run's length
//! (`at-5caaf2fb` -> `at-00000001`). A placeholder with no shape is served as
//! `mcp-replay-minted-1` (`normalize/bound.rs`).

use super::bound::{bound_in, KINDS};

/// The kinds whose values have a shape a client may check: a cursor and a request state
/// are opaque by the protocol, so they keep the plain served form.
const SHAPED: [&str; 2] = ["TASK_ID", "MINTED"];

/// The shapes of the values `found` replaced, `(value, placeholder)` each: `(placeholder,
/// synthetic value)`, one per placeholder of a [`SHAPED`] kind, every synthetic value
/// distinct from the others and from those `taken` already holds. What a shape keeps of
/// its value's words goes through `rules`' personal-data pass, as a message's text does:
/// a minted id that holds `for bob@acme.com` keeps short lowercase words, an address among
/// them (value_model's find, `fuzz/README.md`). A placeholder that leaves (a values rule's
/// `<CUSTOMER:1>`, or text of the value that looks like one) is spelled out (`customer1`):
/// a shape holds none.
pub(crate) fn shapes_of(
    found: &[(String, String)],
    taken: &[(String, String)],
    rules: &crate::Rules,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (value, placeholder) in found {
        let Some((kind, n)) = parse(placeholder) else {
            continue;
        };
        if !SHAPED.contains(&kind) || taken.iter().chain(&out).any(|(p, _)| p == placeholder) {
            continue;
        }
        // Numbered by the placeholder's number; a clash with another kind's value (a task
        // id and a minted id, both UUIDs, both 1) takes the next free thousand.
        let mut salt = 0;
        let shape = loop {
            let shape = super::placeholder::spelled_out(
                &rules.pseudonymized(synthetic(value, n + salt * 1000)),
            );
            if !taken.iter().chain(&out).any(|(_, s)| *s == shape) {
                break shape;
            }
            salt += 1;
        };
        out.push((placeholder.clone(), shape));
    }
    out
}

/// `<KIND:n>` as its kind and number, for a whole bound placeholder.
fn parse(placeholder: &str) -> Option<(&'static str, u64)> {
    if bound_in(placeholder) != [(0, placeholder.len())] {
        return None;
    }
    let (name, n) = placeholder[1..placeholder.len() - 1].split_once(':')?;
    let kind = KINDS.iter().find(|(k, _)| *k == name)?.0;
    Some((kind, n.parse().ok()?))
}

/// A synthetic value of `original`'s shape, numbered `n` (see the module's text).
pub(crate) fn synthetic(original: &str, n: u64) -> String {
    if is_email(original) {
        return format!("minted{n}@example.invalid");
    }
    if is_uuid(original) {
        let uuid = format!("00000000-0000-4000-8000-{n:012x}");
        return if original.bytes().any(|b| b.is_ascii_uppercase()) {
            uuid.to_ascii_uppercase()
        } else {
            uuid
        };
    }
    let mut out = String::with_capacity(original.len());
    let mut run = String::new();
    for c in original.chars() {
        if c.is_ascii_alphanumeric() {
            run.push(c);
            continue;
        }
        push_run(&mut out, &run, n);
        run.clear();
        // Punctuation stays; any other character (a letter of another script) is a letter.
        out.push(if c.is_ascii() { c } else { 'x' });
    }
    push_run(&mut out, &run, n);
    out
}

/// One run of ASCII letters and digits, as [`synthetic`] writes it.
fn push_run(out: &mut String, run: &str, n: u64) {
    if run.is_empty() {
        return;
    }
    let width = run.len();
    let bytes = run.as_bytes();
    let digits = bytes.iter().all(u8::is_ascii_digit);
    let has_digit = bytes.iter().any(u8::is_ascii_digit);
    let letters = !has_digit;
    if digits {
        out.push_str(&format!("{n:0width$}"));
    } else if has_digit
        && width >= 4
        && bytes.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        out.push_str(&format!("{n:0width$x}"));
    } else if has_digit
        && width >= 4
        && bytes.iter().all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F'))
    {
        out.push_str(&format!("{n:0width$X}"));
    } else if letters
        && (width <= 12 && run.bytes().all(|b| b.is_ascii_lowercase())
            || width <= 4 && run.bytes().all(|b| b.is_ascii_uppercase()))
    {
        // A word: a prefix (`cus`, `ORD`, `R`), a scheme (`crm`), a path's folder
        // (`customers`). A client may check it (`starts_with("R-")`).
        out.push_str(run);
    } else {
        let number = n.to_string();
        out.push_str(&"x".repeat(width.saturating_sub(number.len())));
        out.push_str(&number);
    }
}

/// `local@domain.tld`, nothing around it.
fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !s.chars().any(char::is_whitespace)
        && !domain.contains('@')
        && domain
            .rsplit_once('.')
            .is_some_and(|(host, tld)| !host.is_empty() && tld.len() >= 2)
}

/// `8-4-4-4-12` hex digits.
fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, len)| p.len() == len && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_synthetic_value_keeps_the_shape_and_drops_the_value() {
        assert_eq!(synthetic("cus_8f3a2c1d9e0b", 1), "cus_000000000001");
        assert_eq!(
            synthetic("crm://customers/cus_8f3a2c1d9e0b", 12),
            "crm://customers/cus_00000000000c"
        );
        assert_eq!(synthetic("at-5caaf2fb", 3), "at-00000003");
        assert_eq!(
            synthetic("dana.whitfield@northwind.com", 2),
            "minted2@example.invalid"
        );
        assert_eq!(
            synthetic("5B1E0C4A-9D3F-4E2B-8C7A-1F2E3D4C5B6A", 1),
            "00000000-0000-4000-8000-000000000001"
        );
        // A short upper-case prefix is a word too: a client may check it.
        assert_eq!(synthetic("ORD-2026-000417", 7), "ORD-0007-000007");
        assert_eq!(synthetic("R-5CAAF2FB", 1), "R-00000001");
        assert_eq!(synthetic("NORTHWIND-7", 2), "xxxxxxxx2-2");
        // Mixed letters and digits (a base64 token) keep their length, not their letters.
        assert_eq!(synthetic("Zk9vYmFy_x1Q", 4), "xxxxxxx4_xx4");
        assert_eq!(synthetic("Ünïcode-42", 5), "xnxcode-05");
    }

    #[test]
    fn shapes_are_distinct_and_only_for_values_a_client_may_check() {
        let found = [
            (
                "5b1e0c4a-9d3f-4e2b-8c7a-1f2e3d4c5b6a".to_owned(),
                "<TASK_ID:1>".to_owned(),
            ),
            (
                "9c2e0c4a-9d3f-4e2b-8c7a-1f2e3d4c5b6a".to_owned(),
                "<MINTED:1>".to_owned(),
            ),
            ("eyJwYWdlIjoyfQ".to_owned(), "<CURSOR:1>".to_owned()),
        ];
        let shapes = shapes_of(&found, &[], &crate::Rules::default());
        assert_eq!(
            shapes,
            [
                (
                    "<TASK_ID:1>".to_owned(),
                    "00000000-0000-4000-8000-000000000001".to_owned()
                ),
                (
                    "<MINTED:1>".to_owned(),
                    "00000000-0000-4000-8000-0000000003e9".to_owned()
                ),
            ]
        );
        // A placeholder that has a shape keeps it.
        assert!(shapes_of(&found[..1], &shapes, &crate::Rules::default()).is_empty());
    }

    #[test]
    fn a_shape_keeps_no_personal_data_its_words_spell() {
        let rules = crate::Rules::default().redact_value("customer", "kx-northwind.io");
        let found = [(
            "csu_g for u@q.com (kx-northwind.io), key 4f2a".to_owned(),
            "<MINTED:1>".to_owned(),
        )];
        let shapes = shapes_of(&found, &[], &rules);
        assert_eq!(
            shapes[0].1,
            "csu_g for user1@example.invalid (customer1), key 0001"
        );
        // Without a values rule the customer's words stay: nothing says they are personal.
        let shapes = shapes_of(&found, &[], &crate::Rules::default());
        assert_eq!(
            shapes[0].1,
            "csu_g for user1@example.invalid (kx-northwind.io), key 0001"
        );
    }
}
