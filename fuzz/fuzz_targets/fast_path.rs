//! The replay's fast path for responses (`mcp-replay/src/normalize/fast.rs`) on arbitrary lines:
//! where it answers, serde_json must accept the line and the general path (parse,
//! normalize, write canonically) must write the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(why) = mcp_replay::internals::fast_path_agrees(line) {
        panic!("{why}");
    }
});
