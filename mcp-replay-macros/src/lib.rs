//! The `#[mcp_fixture]` attribute of [mcp-replay](https://docs.rs/mcp-replay).
//!
//! Use it through `mcp_replay::mcp_fixture`: the expansion is a chain of
//! calls on `::mcp_replay::harness::Test`, a public builder, so this crate does nothing
//! on its own. It only parses and validates the attribute and rewrites the test
//! function. Its documentation and examples live in the `mcp-replay` crate, which
//! keeps this crate free of a dependency on it (and publishable).

mod expand;
mod parse;

use proc_macro::TokenStream;

/// Turns an `async fn` test taking one `Transport` (or two, the server's and the
/// client's, when the body is the client) into a replay test of the
/// fixture `<dir>/<name>.jsonl`. Documented, with compiled examples, where users
/// meet it: `mcp_replay::mcp_fixture`.
#[proc_macro_attribute]
pub fn mcp_fixture(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::mcp_fixture(args.into(), item.into()).into()
}
