//! An incremental Server-Sent Events parser (the WHATWG HTML "event stream" format), as
//! MCP's Streamable HTTP transport uses it: a POST or GET answered `text/event-stream`
//! carries one JSON-RPC message in each event's data.
//!
//! Feed it byte chunks cut anywhere (inside a line, a UTF-8 sequence or a CRLF pair); it
//! yields the same events whatever the cutting. Lines end in LF, CR or CRLF; `data:` lines
//! are joined with `\n`; a comment (a line starting with `:`) is ignored; a field without
//! a colon has an empty value; a single space after the colon is stripped; an event is
//! dispatched on a blank line, and not at all if it has no data line; `id` persists as the
//! last event id for the events after it; `retry` takes ASCII digits only. A UTF-8 BOM at
//! the very start is skipped, and lines are decoded as UTF-8 with replacement. A line (or
//! an event's data) longer than the limit is an error rather than unbounded memory.

use std::fmt;

/// The default limit on one line and on one event's data, in bytes.
pub const DEFAULT_LIMIT: usize = 16 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type: the last `event:` field's value, `message` when there was none
    /// (borrowed then: most events name no type).
    pub event: std::borrow::Cow<'static, str>,
    /// The `data:` lines' values joined with `\n`.
    pub data: String,
    /// The last event id in force when the event was dispatched (the last `id:` field of
    /// this event or of an earlier one); `None` while none has been set, or after an empty
    /// `id:` reset it.
    pub id: Option<String>,
    /// The reconnection time in milliseconds, if a valid `retry:` field came since the
    /// previous dispatched event.
    pub retry: Option<u64>,
}

/// Why a stream cannot be parsed further.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// A line grew past the limit without ending.
    LineTooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// An event's data grew past the limit before it was dispatched.
    EventTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseError::LineTooLong { limit } => {
                write!(f, "an SSE line is longer than {limit} bytes")
            }
            SseError::EventTooLarge { limit } => {
                write!(f, "an SSE event's data is larger than {limit} bytes")
            }
        }
    }
}

impl std::error::Error for SseError {}

/// The parser's state between chunks.
#[derive(Debug, Clone)]
pub struct SseParser {
    limit: usize,
    /// The bytes of the line being read, without its end.
    line: Vec<u8>,
    /// The previous chunk ended in CR: an LF starting the next one belongs to it.
    after_cr: bool,
    /// No line has been completed yet (where a BOM is skipped).
    first_line: bool,
    event: Option<String>,
    data: String,
    last_id: Option<String>,
    retry: Option<u64>,
    /// A `retry:` since the previous dispatch.
    fresh_retry: Option<u64>,
    failed: Option<SseError>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new()
    }
}

impl SseParser {
    /// A parser with the [`DEFAULT_LIMIT`].
    pub fn new() -> Self {
        Self::with_limit(DEFAULT_LIMIT)
    }

    /// A parser whose lines and events' data may not exceed `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        SseParser {
            limit,
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            event: None,
            data: String::new(),
            last_id: None,
            retry: None,
            fresh_retry: None,
            failed: None,
        }
    }

    /// The last event id set by the stream so far (what a reconnection sends as
    /// `Last-Event-ID`).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The reconnection time the stream last asked for, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Whether the stream stopped inside an event (a line or fields not yet dispatched):
    /// at the end of a stream, such an event is discarded, as the standard says.
    pub fn is_mid_event(&self) -> bool {
        !self.line.is_empty() || !self.data.is_empty() || self.event.is_some()
    }

    /// Parses one chunk, appending the events it completes to `out`. After an error the
    /// parser stays failed: every later call returns the same error and parses nothing.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let result = self.feed_inner(chunk, out);
        if let Err(error) = &result {
            self.failed = Some(error.clone());
        }
        result
    }

    fn feed_inner(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', chunk) {
            let rest = &chunk[end + 1..];
            let next = if chunk[end] == b'\r' {
                match rest.first() {
                    Some(b'\n') => &rest[1..],
                    Some(_) => rest,
                    None => {
                        self.after_cr = true;
                        rest
                    }
                }
            } else {
                rest
            };
            if self.line.is_empty() {
                // The whole line is in this chunk: read in place, not copied.
                if end > self.limit {
                    return Err(SseError::LineTooLong { limit: self.limit });
                }
                self.line_ended(&chunk[..end], out)?;
            } else {
                self.push(&chunk[..end])?;
                let line = std::mem::take(&mut self.line);
                self.line_ended(&line, out)?;
                self.line = line;
                self.line.clear();
            }
            chunk = next;
        }
        self.push(chunk)
    }

    /// Appends to the line being read (one a chunk ends inside), within the limit.
    fn push(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        if self.line.len() + bytes.len() > self.limit {
            return Err(SseError::LineTooLong { limit: self.limit });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn line_ended(&mut self, mut line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if std::mem::take(&mut self.first_line) {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"event" => self.event = Some(text(value).into_owned()),
            b"data" => {
                let value = text(value);
                if self.data.len() + value.len() + 1 > self.limit {
                    return Err(SseError::EventTooLarge { limit: self.limit });
                }
                // With room for the `\n` too: most events are one data line, grown once.
                self.data.reserve(value.len() + 1);
                self.data.push_str(&value);
                self.data.push('\n');
            }
            b"id" if !value.contains(&0) => {
                self.last_id = (!value.is_empty()).then(|| text(value).into_owned());
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Digits only: too many of them saturate rather than fail.
                let millis = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(u64::MAX);
                self.retry = Some(millis);
                self.fresh_retry = Some(millis);
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        out.push(SseEvent {
            event: event.map_or(std::borrow::Cow::Borrowed("message"), Into::into),
            data,
            id: self.last_id.clone(),
            retry: self.fresh_retry.take(),
        });
    }
}

/// A field's value as text: as it is when it is UTF-8 (checked by the vectorized
/// validator), else with U+FFFD for each invalid sequence, as the SSE standard decodes.
fn text(value: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(value) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(bytes: &[u8]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        parser.feed(bytes, &mut out).unwrap();
        out
    }

    fn ev(event: &str, data: &str, id: Option<&str>, retry: Option<u64>) -> SseEvent {
        SseEvent {
            event: event.to_owned().into(),
            data: data.into(),
            id: id.map(Into::into),
            retry,
        }
    }

    #[test]
    fn table() {
        let m = |data: &str| ev("message", data, None, None);
        let cases: Vec<(&str, &[u8], Vec<SseEvent>)> = vec![
            ("one event", b"data: {}\n\n", vec![m("{}")]),
            ("no blank line yet", b"data: {}\n", vec![]),
            (
                "data lines joined",
                b"data: a\ndata: b\n\n",
                vec![m("a\nb")],
            ),
            ("CRLF", b"data: a\r\ndata: b\r\n\r\n", vec![m("a\nb")]),
            ("CR", b"data: a\rdata: b\r\r", vec![m("a\nb")]),
            (
                "mixed ends",
                b"data: a\r\ndata: b\rdata: c\n\r\n",
                vec![m("a\nb\nc")],
            ),
            (
                "comment",
                b": keep-alive\ndata: x\n: more\n\n",
                vec![m("x")],
            ),
            ("comment only", b": ping\n\n", vec![]),
            ("no space", b"data:x\n\n", vec![m("x")]),
            ("one space stripped", b"data:  x\n\n", vec![m(" x")]),
            ("field without colon", b"data\n\n", vec![m("")]),
            ("empty data line", b"data:\n\n", vec![m("")]),
            ("two empty data lines", b"data\ndata\n\n", vec![m("\n")]),
            (
                "colon in value",
                b"data: {\"a\":1}\n\n",
                vec![m("{\"a\":1}")],
            ),
            (
                "event type",
                b"event: progress\ndata: 1\n\ndata: 2\n\n",
                vec![ev("progress", "1", None, None), m("2")],
            ),
            (
                "event without data",
                b"event: x\n\ndata: 1\n\n",
                vec![m("1")],
            ),
            (
                "id persists",
                b"id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
                vec![
                    ev("message", "a", Some("7"), None),
                    ev("message", "b", Some("7"), None),
                    m("c"),
                ],
            ),
            (
                "id without data still sets",
                b"id: 3\n\ndata: a\n\n",
                vec![ev("message", "a", Some("3"), None)],
            ),
            (
                "id with NUL ignored",
                b"id: a\0b\ndata: a\n\n",
                vec![m("a")],
            ),
            (
                "retry",
                b"retry: 3000\ndata: a\n\ndata: b\n\n",
                vec![ev("message", "a", None, Some(3000)), m("b")],
            ),
            ("bad retry ignored", b"retry: 3s\ndata: a\n\n", vec![m("a")]),
            (
                "rmcp priming event",
                b"id: 0\nretry: 3000\ndata:\n\n",
                vec![ev("message", "", Some("0"), Some(3000))],
            ),
            ("unknown field", b"foo: bar\ndata: a\n\n", vec![m("a")]),
            ("BOM", b"\xEF\xBB\xBFdata: a\n\n", vec![m("a")]),
            ("BOM only first", b"\n\xEF\xBB\xBFdata: a\n\n", vec![]),
            (
                "unfinished event discarded",
                b"data: a\n\ndata: b",
                vec![m("a")],
            ),
            (
                "invalid UTF-8 replaced",
                b"data: \xFF\n\n",
                vec![m("\u{FFFD}")],
            ),
        ];
        for (name, bytes, want) in cases {
            assert_eq!(parse(bytes), want, "{name}");
        }
    }

    #[test]
    fn state_between_chunks() {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        parser.feed(b"id: 4\nretry: 10\ndata: a", &mut out).unwrap();
        assert!(out.is_empty());
        assert!(parser.is_mid_event());
        assert_eq!(parser.last_event_id(), Some("4"));
        assert_eq!(parser.retry(), Some(10));
        parser.feed(b"\r", &mut out).unwrap();
        parser.feed(b"\n\r", &mut out).unwrap();
        parser.feed(b"\n", &mut out).unwrap();
        assert_eq!(out, vec![ev("message", "a", Some("4"), Some(10))]);
        assert!(!parser.is_mid_event());
    }

    #[test]
    fn limits() {
        let mut parser = SseParser::with_limit(8);
        let mut out = Vec::new();
        parser.feed(b"data: 1\n\n", &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(
            parser.feed(b"data: 123456789", &mut out),
            Err(SseError::LineTooLong { limit: 8 })
        );
        // Failed for good, and says so.
        assert_eq!(
            parser.feed(b"\n\n", &mut out),
            Err(SseError::LineTooLong { limit: 8 })
        );
        assert_eq!(out.len(), 1);

        let mut parser = SseParser::with_limit(10);
        let error = parser.feed(b"data:1234\ndata:5678\ndata:9\n\n", &mut out);
        assert_eq!(error, Err(SseError::EventTooLarge { limit: 10 }));
        assert!(error.unwrap_err().to_string().contains("10 bytes"));
    }

    /// Pieces that make the interesting streams: fields, separators, line ends, a BOM,
    /// multi-byte characters, junk.
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(b"data".to_vec()),
            Just(b"event".to_vec()),
            Just(b"id".to_vec()),
            Just(b"retry".to_vec()),
            Just(b":".to_vec()),
            Just(b": ".to_vec()),
            Just(b" ".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\n\n".to_vec()),
            Just(b"\xEF\xBB\xBF".to_vec()),
            Just("é€😀".as_bytes().to_vec()),
            Just(b"\0".to_vec()),
            Just(b"12".to_vec()),
            proptest::collection::vec(any::<u8>(), 0..4),
        ]
    }

    fn run(bytes: &[u8], cuts: &[usize], limit: usize) -> (Vec<SseEvent>, Option<SseError>) {
        let mut parser = SseParser::with_limit(limit);
        let mut out = Vec::new();
        let mut start = 0;
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        points.sort_unstable();
        points.push(bytes.len());
        for end in points {
            if let Err(error) = parser.feed(&bytes[start..end], &mut out) {
                return (out, Some(error));
            }
            start = end;
        }
        (out, None)
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_events(
            pieces in proptest::collection::vec(piece(), 0..60),
            cuts in proptest::collection::vec(any::<usize>(), 0..12),
            limit in prop_oneof![Just(DEFAULT_LIMIT), 4usize..24],
        ) {
            let bytes = pieces.concat();
            let whole = run(&bytes, &[], limit);
            let chunked = run(&bytes, &cuts, limit);
            prop_assert_eq!(&whole, &chunked);
            let bytewise: Vec<usize> = (0..bytes.len()).collect();
            prop_assert_eq!(whole, run(&bytes, &bytewise, limit));
        }
    }
}
