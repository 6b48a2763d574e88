//! A failing `#[mcp_fixture]` test panics at the test function's own file and line (its
//! name), not inside mcp-replay: that is where an editor or CI jumps.

use mcp_replay::{mcp_fixture, Transport};
use std::panic::Location;
use std::sync::Mutex;

#[mcp_fixture("no_such_fixture", dir = "tests/fixtures")]
#[tokio::test]
#[should_panic(expected = "no_such_fixture.jsonl does not exist")]
async fn a_missing_fixture_fails(transport: Transport) {
    drop(transport);
}

/// The line of `async fn a_missing_fixture_fails` above.
const TEST_LINE: u32 = 11;

#[test]
fn the_panic_points_at_the_test_function() {
    static SEEN: Mutex<Vec<(std::thread::ThreadId, String, u32)>> = Mutex::new(Vec::new());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        if let Some(at) = info.location() {
            let seen = (std::thread::current().id(), at.file().to_owned(), at.line());
            SEEN.lock().unwrap_or_else(|e| e.into_inner()).push(seen);
        }
    }));
    let outcome = std::panic::catch_unwind(a_missing_fixture_fails);
    std::panic::set_hook(previous);
    assert!(outcome.is_err(), "the test should have failed");
    let me = std::thread::current().id();
    let seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let (_, file, line) = seen
        .iter()
        .find(|(thread, ..)| *thread == me)
        .expect("a panic on this thread");
    assert_eq!(
        (file.as_str(), *line),
        (Location::caller().file(), TEST_LINE),
        "{seen:?}"
    );
}
