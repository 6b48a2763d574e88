//! A fixed text searched for in many lines, with its searcher made once.
//!
//! `str::contains(&str)` builds a two-way searcher on every call: for the short lines of a
//! session that setup costs more than the search (measured with callgrind). A [`Needle`]
//! in a `static` builds a vectorized `memmem` searcher the first time it is used and
//! keeps it. (Searching for the needle's rarest byte with `memchr` and comparing where it
//! is was measured too: slower, the bytes of these needles are common in JSON.)

use memchr::memmem::Finder;
use once_cell::sync::OnceCell;

/// A text to search for, as a `static`: `static TASK: Needle = Needle::new("\"task\":");`.
pub(crate) struct Needle {
    text: &'static str,
    finder: OnceCell<Finder<'static>>,
}

impl Needle {
    /// The needle `text` (its searcher is made on first use).
    pub(crate) const fn new(text: &'static str) -> Needle {
        Needle {
            text,
            finder: OnceCell::new(),
        }
    }

    /// Does `haystack` hold the needle? The same as `haystack.contains(text)`.
    pub(crate) fn is_in(&self, haystack: &str) -> bool {
        self.is_in_bytes(haystack.as_bytes())
    }

    /// [`is_in`](Self::is_in) for bytes (a line not known to be UTF-8).
    pub(crate) fn is_in_bytes(&self, haystack: &[u8]) -> bool {
        self.finder
            .get_or_init(|| Finder::new(self.text))
            .find(haystack)
            .is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn it_agrees_with_contains() {
        static N: Needle = Needle::new("::");
        static T: Needle = Needle::new("\"task\":");
        for text in [
            "",
            ":",
            "::",
            "a::b",
            "a:b:c",
            "é::",
            "ab",
            "{\"task\":1}",
            "\"task\"",
        ] {
            assert_eq!(N.is_in(text), text.contains("::"), "{text:?}");
            assert_eq!(T.is_in(text), text.contains("\"task\":"), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn it_agrees_with_contains_anywhere(hay in "[a-cT:\"\\\\u]{0,24}", needle in "[a-cT:\"\\\\u]{1,4}") {
            let n = Needle {
                text: Box::leak(needle.clone().into_boxed_str()),
                finder: OnceCell::new(),
            };
            prop_assert_eq!(n.is_in(&hay), hay.contains(&needle), "{:?} in {:?}", needle, hay);
        }
    }
}
