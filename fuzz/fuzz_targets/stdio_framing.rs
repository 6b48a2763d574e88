//! The stdio framing of one line a server writes: never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = mcp_replay::internals::frame_line(data);
});
