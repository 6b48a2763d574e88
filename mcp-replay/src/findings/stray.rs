//! Lines a peer wrote on stdio that are not JSON-RPC messages, counted for one finding:
//! what a replay, the mock, `record` and `call` keep alike. Public as
//! `mcp_replay::_support::record::StrayLines`.

/// Lines a peer wrote on its stdio stream that are not JSON-RPC messages: a banner, log
/// lines, a line cut off. MCP's stdio transport carries only messages there, so they are
/// counted for ONE finding (or, where they are allowed, one note) that reads the same
/// under a replay, `mcp-replay serve`, `record` and `call`.
///
/// ```
/// use mcp_replay::_support::record::StrayLines;
///
/// let mut stray = StrayLines::default();
/// stray.push(b"Starting server on stdio");
/// stray.push(b"ready");
/// assert_eq!(
///     stray.describe("the server", "stdout").unwrap(),
///     "the server wrote 2 lines on stdout that are not JSON-RPC messages; the first: \"Starting server on stdio\""
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StrayLines {
    count: usize,
    first: Option<String>,
}

impl StrayLines {
    /// How much of the first line a description shows, in characters.
    const EXCERPT: usize = 100;

    /// Counts one line as the peer wrote it (without its line end); the first is kept
    /// for the description, its start only.
    pub fn push(&mut self, line: &[u8]) {
        self.count += 1;
        if self.first.is_none() {
            // Masked before it is cut: a secret cut in half would not be found.
            let text = String::from_utf8_lossy(line);
            let text = crate::normalize::secrets::mask_text(text.trim());
            let text = text.as_ref();
            self.first = Some(match text.char_indices().nth(Self::EXCERPT) {
                Some((end, _)) => format!("{}…", &text[..end]),
                None => text.to_owned(),
            });
        }
    }

    /// How many lines were counted.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Whether no line was counted.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// `the server wrote 2 lines on stdout that are not JSON-RPC messages; the first:
    /// "Starting…"` (`who` wrote them on `stream`), or `None` when there were none.
    pub fn describe(&self, who: &str, stream: &str) -> Option<String> {
        let first = self.first.as_ref()?;
        Some(match self.count {
            1 => format!("{who} wrote 1 line on {stream} that is not a JSON-RPC message: {first:?}"),
            n => format!(
                "{who} wrote {n} lines on {stream} that are not JSON-RPC messages; the first: {first:?}"
            ),
        })
    }
}
