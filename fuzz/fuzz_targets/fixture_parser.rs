//! `Fixture::parse` on arbitrary text (lossy UTF-8). A fixture that parses must write
//! back canonically: `to_jsonl()` parses again to the same text. `check_secrets()` must
//! not panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_replay::Fixture;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(fixture) = Fixture::parse(&text) else {
        return;
    };
    let _ = fixture.check_secrets();
    let written = fixture.to_jsonl();
    let reparsed = match Fixture::parse(&written) {
        Ok(f) => f,
        Err(e) => panic!("to_jsonl() output does not parse: {e}\n--- written ---\n{written}"),
    };
    let rewritten = reparsed.to_jsonl();
    assert_eq!(
        rewritten, written,
        "to_jsonl() is not a fixed point of parse"
    );
    assert_eq!(reparsed.entries().len(), fixture.entries().len());
});
