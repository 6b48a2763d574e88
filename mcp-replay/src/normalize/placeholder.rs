//! The one grammar of placeholders, `<NAME>` or `<NAME:n>`: what the normalization rules
//! write, what they never rewrite, and what the secret guard never takes for a secret.

/// `<NAME>` or `<NAME:n>`: a placeholder, never rewritten by a rule and never taken for
/// a secret. The one grammar of placeholders: `<[A-Z][A-Z0-9_]*(:[A-Za-z0-9_.-]+)?>`.
pub fn is_placeholder(s: &str) -> bool {
    placeholder_prefix(s) == Some(s.len())
}

/// Does a placeholder occur anywhere in `s` (`Bearer <TOKEN>`)?
pub(crate) fn contains_placeholder(s: &str) -> bool {
    memchr::memchr_iter(b'<', s.as_bytes()).any(|i| placeholder_prefix(&s[i..]).is_some())
}

/// `s` with each placeholder in it spelled as plain text, its name in lower case then its
/// tag (`<CUSTOMER:1>` is `customer1`, `<TMP>` is `tmp`): for a synthetic value, which
/// must hold none.
pub(crate) fn spelled_out(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match placeholder_prefix(rest) {
            Some(len) => {
                let inner = &rest[1..len - 1];
                out.extend(
                    inner
                        .chars()
                        .filter(|&c| c != ':')
                        .map(|c| c.to_ascii_lowercase()),
                );
                rest = &rest[len..];
            }
            None => {
                out.push('<');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The placeholder a fixture writes for a request id when one request is in flight at a
/// time (`fixture::REQUEST_ID`; defined here, where every placeholder's grammar is).
pub const REQUEST_ID: &str = "<REQUEST_ID>";

/// Does a `<` in `text` start any of `starts` (each beginning with `<`)? One vectorized
/// search for `<`, the texts compared only where one is: the per-line scan for the
/// placeholders the replay fills in or binds.
pub(crate) fn starts_any(text: &str, starts: &[&str]) -> bool {
    starts_either(text, starts, &[]).0
}

/// [`starts_any`] of `first` and of `second`, in one scan of `text`.
pub(crate) fn starts_either(text: &str, first: &[&str], second: &[&str]) -> (bool, bool) {
    let b = text.as_bytes();
    let (mut one, mut two) = (false, second.is_empty());
    for i in memchr::memchr_iter(b'<', b) {
        let at = &b[i..];
        // Most `<`s start the request id's placeholder, which none of them is.
        if at.starts_with(REQUEST_ID.as_bytes()) {
            continue;
        }
        one = one || first.iter().any(|s| at.starts_with(s.as_bytes()));
        two = two || second.iter().any(|s| at.starts_with(s.as_bytes()));
        if one && two {
            break;
        }
    }
    (one, two && !second.is_empty())
}

/// The length of the placeholder `s` starts with, if it starts with one. The grammar of
/// [`is_placeholder`] by hand, not as a regex: it runs on every string.
fn placeholder_prefix(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.first() != Some(&b'<') || !b.get(1).is_some_and(u8::is_ascii_uppercase) {
        return None;
    }
    let name = |c: &u8| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_';
    let tag = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    let mut i = 2;
    while b.get(i).is_some_and(name) {
        i += 1;
    }
    if b.get(i) == Some(&b':') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(tag) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    (b.get(i) == Some(&b'>')).then_some(i + 1)
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn spelled_out_placeholders_are_plain_text() {
        assert_eq!(
            spelled_out("a <CUSTOMER:1> in <TMP>/x, <b> and <QD:3>"),
            "a customer1 in tmp/x, <b> and qd3"
        );
        assert!(!contains_placeholder(&spelled_out("<<X:1>>")));
    }
    use regex::Regex;

    proptest::proptest! {
        #[test]
        fn recognize_placeholders_as_the_documented_pattern_does(s in "<?[A-Za-z0-9_:.<>é-]{0,8}>?") {
            let pattern = r"<[A-Z][A-Z0-9_]*(:[A-Za-z0-9_.-]+)?>";
            let whole = Regex::new(&format!("^{pattern}$")).unwrap();
            proptest::prop_assert_eq!(is_placeholder(&s), whole.is_match(&s), "{:?}", s);
            let inside = Regex::new(pattern).unwrap();
            let text = format!("a{s}<{s}");
            proptest::prop_assert_eq!(contains_placeholder(&text), inside.is_match(&text), "{:?}", text);
        }

        #[test]
        fn find_starts_as_contains_does(s in "(<REQUEST_ID>|<TASK_ID:|<CURSOR|<TMP>|<|a|:){0,6}") {
            let (first, second) = (["<TASK_ID:", "<CURSOR:"], ["<TMP>", "<CURSOR"]);
            let naive = |starts: &[&str]| starts.iter().any(|p| s.contains(p));
            proptest::prop_assert_eq!(starts_either(&s, &first, &second), (naive(&first), naive(&second)), "{:?}", s);
            proptest::prop_assert_eq!(starts_any(&s, &second), naive(&second), "{:?}", s);
        }
    }
}
