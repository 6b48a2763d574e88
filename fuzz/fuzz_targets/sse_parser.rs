//! The SSE parser (`_support::sse::SseParser`) fed one stream cut in different ways: whole,
//! in two chunks at a few cut points the first input bytes choose, in chunks of sizes
//! they choose, and one byte at a time; with the default limit and with a small one (the
//! third byte) so that the limits' errors are reached too. Never panics, and every cutting
//! gives the same events (type, data, id, retry), the same error or none, the same last
//! event id and retry time, and (without an error) the same "stopped mid-event".
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_replay::_support::sse::{SseError, SseEvent, SseParser, DEFAULT_LIMIT};

/// What a parser made of a stream fed in `chunks`.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<SseEvent>,
    error: Option<SseError>,
    last_event_id: Option<String>,
    retry: Option<u64>,
    mid_event: Option<bool>,
}

fn parse<'a>(limit: usize, chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    let mut parser = SseParser::with_limit(limit);
    let mut events = Vec::new();
    let mut error = None;
    for chunk in chunks {
        match parser.feed(chunk, &mut events) {
            Ok(()) => {}
            Err(e) => {
                // A failed parser stays failed: the same error again, nothing parsed.
                let before = events.len();
                assert_eq!(parser.feed(b"data: x\n\n", &mut events), Err(e.clone()));
                assert_eq!(events.len(), before);
                error = Some(e);
                break;
            }
        }
    }
    Outcome {
        mid_event: error.is_none().then(|| parser.is_mid_event()),
        last_event_id: parser.last_event_id().map(str::to_owned),
        retry: parser.retry(),
        events,
        error,
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let (choice, stream) = data.split_at(3);
    let small = 4 + usize::from(choice[2] % 61);
    for limit in [DEFAULT_LIMIT, small] {
        let whole = parse(limit, [stream]);
        if let Some(e) = &whole.error {
            // The error's limit is the parser's.
            match e {
                SseError::LineTooLong { limit: l } | SseError::EventTooLarge { limit: l } => {
                    assert_eq!(*l, limit)
                }
            }
        }
        let n = stream.len();
        // Two chunks, at cut points from the first two bytes (and the ends).
        let a = usize::from(choice[0]);
        let b = usize::from(choice[1]);
        let cuts = [
            0,
            n,
            a % (n + 1),
            b % (n + 1),
            (a * 256 + b) % (n + 1),
            n.saturating_sub(a % 8),
            n / 2,
        ];
        for cut in cuts {
            let (x, y) = stream.split_at(cut);
            let split = parse(limit, [x, y]);
            assert_eq!(split, whole, "cut at {cut} of {n} (limit {limit})");
        }
        // Chunks of sizes 1..=8 taken from the choice bytes, with empty chunks between.
        let mut chunks: Vec<&[u8]> = Vec::new();
        let mut at = 0;
        let mut k = 0usize;
        while at < n {
            let size = 1 + usize::from((choice[k % 3] >> (k % 5)) & 7);
            let end = (at + size).min(n);
            chunks.push(&stream[at..end]);
            chunks.push(&[]);
            at = end;
            k += 1;
        }
        assert_eq!(parse(limit, chunks), whole, "chunks (limit {limit})");
        // One byte at a time.
        let bytes = parse(limit, stream.chunks(1));
        assert_eq!(bytes, whole, "byte by byte (limit {limit})");
    }
});
