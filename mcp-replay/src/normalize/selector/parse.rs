//! The selector grammar: a hand-written recursive-descent parser over the selector's
//! characters, with errors that point at the offending one.

use super::{Segment, Selector, SelectorError};
use crate::data::json::path::is_key_char;

impl Selector {
    /// Parses a selector such as `.result.content[].text`, `.params.**.timestamp` or
    /// `.id, .result["io.modelcontextprotocol/x"]`.
    ///
    /// # Errors
    ///
    /// A [`SelectorError`] pointing at the first character that does not fit the syntax.
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        Parser {
            text,
            chars: text.chars().collect(),
            pos: 0,
        }
        .selectors()
    }
}

/// Hint appended where a bare key ends or cannot start.
const QUOTE_HINT: &str = "keys with other characters are written `[\"...\"]`";

/// A recursive-descent parser over the selector's characters; `pos` counts characters.
struct Parser<'t> {
    text: &'t str,
    chars: Vec<char>,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// `` `c` `` or "the end", for messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end".to_owned(),
            Some(' ') => "a space".to_owned(),
            Some(c) if c.is_control() => format!("`{}`", c.escape_debug()),
            Some(c) => format!("`{c}`"),
        }
    }

    fn error(&self, position: usize, message: impl Into<String>) -> SelectorError {
        SelectorError {
            selector: self.text.to_owned(),
            position,
            message: message.into(),
        }
    }

    fn at_separator(&self) -> bool {
        matches!(self.peek(), None | Some(',')) || self.at_space()
    }

    fn at_space(&self) -> bool {
        matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r'))
    }

    fn skip_spaces(&mut self) {
        while self.at_space() {
            self.pos += 1;
        }
    }

    /// `selectors := alternative ("," alternative)*`, with spaces around.
    fn selectors(mut self) -> Result<Selector, SelectorError> {
        self.skip_spaces();
        if self.peek().is_none() {
            return Err(self.error(
                self.pos,
                "empty selector: expected `.` (the whole message) or a path such as `.result.content[].text`",
            ));
        }
        let mut alternatives = Vec::new();
        let mut texts = Vec::new();
        loop {
            let start = self.pos;
            alternatives.push(self.alternative()?);
            texts.push(self.chars[start..self.pos].iter().collect::<String>());
            self.skip_spaces();
            match self.peek() {
                None => break,
                Some(',') => {
                    self.pos += 1;
                    self.skip_spaces();
                    if self.peek().is_none() {
                        return Err(self.error(
                            self.pos,
                            "expected a selector starting with `.` after `,`, found the end (remove the trailing `,`)",
                        ));
                    }
                }
                Some(_) => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected `,` or the end of the selector, found {} (spaces are only allowed around `,`)",
                            self.found()
                        ),
                    ))
                }
            }
        }
        Ok(Selector {
            text: texts.join(", "),
            alternatives,
        })
    }

    /// `alternative := "." (first step)? (step)*`, ending before a space, `,` or the end.
    fn alternative(&mut self) -> Result<Vec<Segment>, SelectorError> {
        if self.peek() != Some('.') {
            return Err(self.error(
                self.pos,
                format!(
                    "a selector starts with `.` (the whole message), as in `.result`; found {}",
                    self.found()
                ),
            ));
        }
        self.pos += 1;
        let mut segments = Vec::new();
        if self.at_separator() {
            return Ok(segments);
        }
        // Where the last segment starts, its `.` included (the root's for the first).
        let mut start = self.pos - 1;
        if self.peek() == Some('[') {
            self.subscript(&mut segments)?;
        } else {
            self.after_dot(&mut segments)?;
        }
        loop {
            if self.at_separator() {
                return Ok(segments);
            }
            match self.peek() {
                Some('.') => {
                    start = self.pos;
                    self.pos += 1;
                    self.after_dot(&mut segments)?;
                }
                Some('[') => {
                    start = self.pos;
                    self.subscript(&mut segments)?;
                }
                _ => {
                    let written: String = self.chars[start..self.pos].iter().collect();
                    let hint = match segments.last() {
                        Some(Segment::Key(_)) => format!(" ({QUOTE_HINT})"),
                        _ => String::new(),
                    };
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected `.`, `[`, `,` or the end after `{written}`, found {}{hint}",
                            self.found()
                        ),
                    ));
                }
            }
        }
    }

    /// After a `.`: a bare key, `*` or `**`.
    fn after_dot(&mut self, segments: &mut Vec<Segment>) -> Result<(), SelectorError> {
        let start = self.pos;
        match self.peek() {
            Some('*') => {
                self.pos += 1;
                if self.peek() == Some('*') {
                    self.pos += 1;
                    // `.**.**` is `.**`.
                    if segments.last() != Some(&Segment::Deep) {
                        segments.push(Segment::Deep);
                    }
                } else {
                    segments.push(Segment::Any);
                }
                Ok(())
            }
            Some(c) if is_key_char(c) => {
                while self.peek().is_some_and(is_key_char) {
                    self.pos += 1;
                }
                segments.push(Segment::Key(self.chars[start..self.pos].iter().collect()));
                Ok(())
            }
            Some('[') => Err(self.error(
                self.pos,
                "expected a key name, `*` or `**` after `.`, found `[`; a subscript follows its parent directly, as in `.content[0]`",
            )),
            _ => {
                let hint = if self.at_separator() {
                    String::new()
                } else {
                    format!(" ({QUOTE_HINT})")
                };
                Err(self.error(
                    self.pos,
                    format!(
                        "expected a key name, `*` or `**` after `.`, found {}{hint}",
                        self.found()
                    ),
                ))
            }
        }
    }

    /// `[...]`: `[]`, `[n]`, `[a:b]` (either side optional) or `["key"]`.
    fn subscript(&mut self, segments: &mut Vec<Segment>) -> Result<(), SelectorError> {
        let open = self.pos;
        self.pos += 1;
        let segment = match self.peek() {
            Some(']') => Segment::EveryIndex,
            Some('"') => Segment::Key(self.string()?),
            Some(c) if c.is_ascii_digit() || c == ':' || c == '-' => self.range()?,
            _ => {
                return Err(self.error(
                    self.pos,
                    format!(
                        "expected an index like `[0]`, a range like `[1:3]`, a quoted key like `[\"key\"]` or `[]` for every element, found {}",
                        self.found()
                    ),
                ))
            }
        };
        if self.peek() != Some(']') {
            return Err(self.error(
                self.pos,
                format!(
                    "expected `]` to close the `[` at character {}, found {}",
                    open + 1,
                    self.found()
                ),
            ));
        }
        self.pos += 1;
        segments.push(segment);
        Ok(())
    }

    /// `n`, `a:b`, `a:`, `:b` or `:` inside brackets.
    fn range(&mut self) -> Result<Segment, SelectorError> {
        let first = self.pos;
        let start = self.number()?;
        if self.peek() != Some(':') {
            return match start {
                Some(index) if self.peek() == Some(']') => Ok(Segment::Index(index)),
                _ => Err(self.error(
                    self.pos,
                    format!(
                        "expected `]` or `:` after the index, found {}",
                        self.found()
                    ),
                )),
            };
        }
        self.pos += 1;
        let end = self.number()?;
        Ok(match (start.unwrap_or(0), end) {
            (0, None) => Segment::EveryIndex,
            (start, Some(end)) if start > end => {
                return Err(self.error(
                    first,
                    format!(
                        "the range `[{start}:{end}]` starts after its end (the end is exclusive)"
                    ),
                ))
            }
            (start, end) => Segment::Range { start, end },
        })
    }

    /// Decimal digits, if any.
    fn number(&mut self) -> Result<Option<usize>, SelectorError> {
        if self.peek() == Some('-') {
            return Err(self.error(
                self.pos,
                "negative indexes are not supported: write a 0-based index like `[0]`, a range like `[1:3]`, or `[]` for every element",
            ));
        }
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return Ok(None);
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        digits
            .parse()
            .map(Some)
            .map_err(|_| self.error(start, format!("the index {digits} is too large")))
    }

    /// A JSON string literal, starting at its `"`.
    fn string(&mut self) -> Result<String, SelectorError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(self.error(
                        self.pos,
                        format!(
                        "unterminated quoted key: expected a `\"` to close the one at character {}",
                        open + 1
                    ),
                    ))
                }
                Some('"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.pos += 1;
                    out.push(self.escape(open)?);
                }
                Some(c) => {
                    self.pos += 1;
                    out.push(c);
                }
            }
        }
    }

    /// The character of an escape whose `\` was just consumed.
    fn escape(&mut self, open: usize) -> Result<char, SelectorError> {
        let at = self.pos;
        let c = match self.peek() {
            None => {
                return Err(self.error(
                    self.pos,
                    format!(
                        "unterminated quoted key: expected a `\"` to close the one at character {}",
                        open + 1
                    ),
                ))
            }
            Some('"') => '"',
            Some('\\') => '\\',
            Some('/') => '/',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('u') => {
                self.pos += 1;
                let high = self.hex4()?;
                return match high {
                    0xD800..=0xDBFF => {
                        if self.peek() == Some('\\') && self.chars.get(self.pos + 1) == Some(&'u') {
                            self.pos += 2;
                            let low = self.hex4()?;
                            if (0xDC00..=0xDFFF).contains(&low) {
                                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                                Ok(char::from_u32(code).expect("a surrogate pair is a scalar value"))
                            } else {
                                Err(self.error(
                                    self.pos - 4,
                                    format!("`\\u{low:04X}` cannot end a UTF-16 surrogate pair: expected `\\uDC00` to `\\uDFFF`"),
                                ))
                            }
                        } else {
                            Err(self.error(
                                self.pos,
                                format!("`\\u{high:04X}` starts a UTF-16 surrogate pair: expected a `\\uDC00` to `\\uDFFF` escape after it, found {}", self.found()),
                            ))
                        }
                    }
                    0xDC00..=0xDFFF => Err(self.error(
                        at,
                        format!("`\\u{high:04X}` is the second half of a UTF-16 surrogate pair and cannot stand alone"),
                    )),
                    _ => Ok(char::from_u32(high).expect("not a surrogate")),
                };
            }
            Some(c) => {
                return Err(self.error(
                    at,
                    format!(
                        "invalid escape `\\{}` in a quoted key; allowed: `\\\"` `\\\\` `\\/` `\\b` `\\f` `\\n` `\\r` `\\t` `\\uXXXX`",
                        c.escape_debug()
                    ),
                ))
            }
        };
        self.pos += 1;
        Ok(c)
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u32, SelectorError> {
        let mut code = 0;
        for _ in 0..4 {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(digit) => {
                    code = code * 16 + digit;
                    self.pos += 1;
                }
                None => {
                    return Err(self.error(
                        self.pos,
                        format!(
                            "expected four hex digits after `\\u`, found {}",
                            self.found()
                        ),
                    ))
                }
            }
        }
        Ok(code)
    }
}
