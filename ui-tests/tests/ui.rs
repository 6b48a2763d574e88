//! Compile-time behaviour of `#[mcp_fixture]`.
//!
//! `tests/ui/*.rs` must fail to compile with the errors in their `.stderr`
//! files (regenerate with `TRYBUILD=overwrite cargo test --test ui`, then
//! read every caret); `tests/ui/pass/*.rs` must compile.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}

// trybuild builds pass cases as binaries, where `#[tokio::test]` functions are compiled
// out; the same usages are type-checked and run for real in tests/demo_fixtures.rs.
