//! Two differing strings as a report shows them: the region around their first
//! difference, cut with `…` where the string goes on, and a caret line under the
//! characters that differ, so that a difference late in a long string (a `+14.0h` at the
//! end of a time zone answer, a `modified:` date) is seen without color, in a CI log.
//!
//! ```text
//!       expected: …Kolkata is 2025-01-01 10:30 (UTC+5.5h)"
//!                                                   ^^^
//!       actual:   …Kolkata is 2025-01-01 10:30 (UTC+14.0h)"
//!                                                   ^^^^
//! ```
//!
//! A string is written as JSON writes it (`\n`, `\"`, `\u0007`), between quotes; where it
//! is cut, `…` stands in place of the quote. The carets mark the span of each side between
//! the longest common start and the longest common end of the two; where one side only
//! lacks characters (an insertion), one caret marks the place. Both excerpts start at the
//! same character, so the common start lines up. Characters are never split, and the
//! caret column counts wide characters (CJK, emoji) as two columns and combining marks as
//! none.

/// Characters of each string shown when the strings are cut (about as many as a report's
/// other values).
pub(crate) const WIDTH: usize = 100;

/// How many characters before the first difference an excerpt keeps, when it must cut
/// (at most a third of the width).
const CONTEXT: usize = 30;

/// One side of a pair of differing strings, as a report writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Excerpt {
    /// The string as JSON, between quotes, or cut with `…`.
    pub text: String,
    /// Spaces, then a caret under each column of the differing span.
    pub marks: String,
}

/// The two strings around their first difference, each at most `width` characters (plus
/// its quotes or `…`).
pub(crate) fn excerpts(expected: &str, actual: &str, width: usize) -> [Excerpt; 2] {
    let e: Vec<char> = expected.chars().collect();
    let a: Vec<char> = actual.chars().collect();
    let common_start = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let room = e.len().min(a.len()) - common_start;
    let common_end = e
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    let longest = e.len().max(a.len());
    let start = if longest <= width {
        0
    } else {
        // Some context before the difference, and the rest of the width after it (all of
        // it, when the difference is near the end).
        common_start
            .saturating_sub(CONTEXT.min(width / 3))
            .min(longest.saturating_sub(width))
    };
    let show = |chars: &[char]| {
        let span = common_start..chars.len() - common_end;
        excerpt(chars, start, (start + width).min(chars.len()), span)
    };
    [show(&e), show(&a)]
}

/// `chars[from..to]` between quotes (or `…` where cut), with carets under `span`.
fn excerpt(chars: &[char], from: usize, to: usize, span: std::ops::Range<usize>) -> Excerpt {
    let mut text = String::from(if from > 0 { '…' } else { '"' });
    // Columns: the quote (or `…`) is one.
    let mut column = 1;
    let (mut mark_from, mut mark_to) = (None, None);
    for (i, &c) in chars.iter().enumerate().take(to).skip(from) {
        if i == span.start {
            mark_from = Some(column);
        }
        if i == span.end {
            mark_to = Some(column);
        }
        let before = text.len();
        push_escaped(&mut text, c);
        let written = text.len() - before;
        column += if written > c.len_utf8() {
            written // an escape, ASCII
        } else {
            columns(c)
        };
    }
    let cut = to < chars.len();
    text.push(if cut { '…' } else { '"' });
    // A span that starts or ends where the excerpt does: at the closing quote or `…`.
    let mark_from = mark_from.unwrap_or(column);
    let mark_to = match mark_to {
        Some(to) => to,
        // The span goes on past the cut: through the `…`.
        None if cut && span.end > to => column + 1,
        None => column,
    };
    let carets = mark_to.saturating_sub(mark_from).max(1);
    let marks = format!("{}{}", " ".repeat(mark_from), "^".repeat(carets));
    Excerpt { text, marks }
}

/// `c` as it is inside a JSON string.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push(c),
    }
}

/// The columns a character takes in a terminal: 2 for East Asian wide characters and
/// emoji, 0 for combining marks and zero-width characters, else 1.
fn columns(c: char) -> usize {
    match c as u32 {
        0x0300..=0x036F | 0x200B..=0x200F | 0xFE00..=0xFE0F | 0x20D0..=0x20FF => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod should {
    use super::*;

    /// The two excerpts as the four lines a report writes (without their labels).
    fn shown(expected: &str, actual: &str, width: usize) -> [String; 4] {
        let [e, a] = excerpts(expected, actual, width);
        [e.text, e.marks, a.text, a.marks]
    }

    #[test]
    fn mark_a_difference_at_the_start() {
        assert_eq!(
            shown("hello world", "jello world", 100),
            [r#""hello world""#, " ^", r#""jello world""#, " ^"]
        );
    }

    #[test]
    fn mark_a_difference_in_the_middle() {
        assert_eq!(
            shown("counted to three", "counted to 3", 100),
            [
                r#""counted to three""#,
                "            ^^^^^",
                r#""counted to 3""#,
                "            ^",
            ]
        );
    }

    #[test]
    fn mark_a_difference_at_the_end_of_a_long_string_and_cut_before_it() {
        let stem = "The time in Asia/Kolkata is 2025-01-01T10:30:00, ".repeat(3);
        let expected = format!("{stem}an offset of +5.5h");
        let actual = format!("{stem}an offset of +14.0h");
        let [e, em, a, am] = shown(&expected, &actual, 40);
        assert_eq!(e, "…2025-01-01T10:30:00, an offset of +5.5h\"");
        assert_eq!(a, "…2025-01-01T10:30:00, an offset of +14.0h\"");
        // The common start lines up; the carets sit under what differs.
        assert_eq!(&e[..e.find('+').unwrap()], &a[..a.find('+').unwrap()]);
        assert_eq!(em.trim_start(), "^^^");
        assert_eq!(am.trim_start(), "^^^^");
        let column = |text: &str| text[..text.find('+').unwrap()].chars().count() + 1;
        assert_eq!(em.len() - 3, column(&e));
        assert_eq!(am.len() - 4, column(&a));
    }

    #[test]
    fn keep_the_width_and_cut_both_sides_around_a_difference_in_the_middle() {
        let expected = format!("{}X{}", "a".repeat(200), "b".repeat(200));
        let actual = format!("{}Y{}", "a".repeat(200), "b".repeat(200));
        let [e, em, a, am] = shown(&expected, &actual, 100);
        assert!(e.starts_with('…') && e.ends_with('…'), "{e}");
        assert_eq!(e.chars().count(), 102, "100 characters and two ellipses");
        assert_eq!(e.chars().position(|c| c == 'X'), Some(1 + CONTEXT));
        assert_eq!(em, format!("{}^", " ".repeat(1 + CONTEXT)));
        assert_eq!((a.replace('Y', "X"), am), (e, em));
    }

    #[test]
    fn mark_strings_of_different_lengths() {
        // An insertion: one caret where the other side's characters go.
        assert_eq!(
            shown("Issue 42", "Issue 42: example", 100),
            [
                r#""Issue 42""#,
                "         ^",
                r#""Issue 42: example""#,
                "         ^^^^^^^^^"
            ]
        );
        assert_eq!(
            shown("abc", "abXc", 100),
            [r#""abc""#, "   ^", r#""abXc""#, "   ^"]
        );
        assert_eq!(shown("", "x", 100), [r#""""#, " ^", r#""x""#, " ^"]);
        // A long addition is cut, its carets going through the `…`.
        let [e, em, a, am] = shown("start", &format!("start{}", "z".repeat(300)), 50);
        assert_eq!((e.as_str(), em.as_str()), (r#""start""#, "      ^"));
        assert!(a.starts_with("\"start") && a.ends_with('…'), "{a}");
        assert_eq!(am, format!("      {}", "^".repeat(46)));
    }

    #[test]
    fn never_split_a_character_and_count_columns_as_a_terminal_does() {
        let stem = "é日本語🙂".repeat(40);
        let expected = format!("{stem}→ 完了");
        let actual = format!("{stem}→ 失敗");
        let [e, em, a, am] = shown(&expected, &actual, 40);
        // Cut on characters: the excerpts are valid text and keep their ends whole.
        assert!(
            e.ends_with("→ 完了\"") && a.ends_with("→ 失敗\""),
            "{e} {a}"
        );
        assert_eq!(e.chars().count(), 42);
        // The carets sit under the two wide characters that differ: four columns.
        assert_eq!(em.trim_start(), "^^^^");
        assert_eq!(am, em);
        let before: String = e.chars().take_while(|&c| c != '完').collect();
        assert_eq!(em.len() - 4, before.chars().map(columns).sum::<usize>());
        // Combining marks take no column.
        let [_, marks, _, _] = shown("e\u{301}a", "e\u{301}b", 100);
        assert_eq!(marks, "  ^");
    }

    #[test]
    fn write_escapes_as_json_does_and_count_their_columns() {
        assert_eq!(
            shown("a\"b\nc", "a\"b\nd", 100),
            [r#""a\"b\nc""#, "       ^", r#""a\"b\nd""#, "       ^"]
        );
    }
}
