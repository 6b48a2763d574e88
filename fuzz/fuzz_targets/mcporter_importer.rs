//! mcporter recordings (NDJSON with `_meta: {dir, server, ts}`): parsing and importing
//! arbitrary text (lossy UTF-8) never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_replay::_support::mcporter;
use mcp_replay::Rules;
use std::sync::OnceLock;

/// Built once: `Rules::default()` looks up this machine's home and temp folders.
static RULES: OnceLock<Rules> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if mcporter::parse(&text, "fuzz").is_err() {
        return;
    }
    let _ = mcporter::import(&text, "fuzz", None, RULES.get_or_init(Rules::default));
});
