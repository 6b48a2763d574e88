//! The `#[mcp_fixture]` attribute of [mcp-replay](https://docs.rs/mcp-replay).
//!
//! Use it through `mcp_replay::mcp_fixture`: the expansion calls into
//! `::mcp_replay::__private`, so this crate does nothing on its own. It only
//! parses and validates the attribute and rewrites the test function.

mod expand;
mod parse;

use proc_macro::TokenStream;

/// Turns an `async fn` test taking one [`Transport`] into a replay test of the
/// fixture `<dir>/<name>.jsonl`.
///
/// Write it **above** `#[tokio::test]` (attributes expand top to bottom):
///
/// ```no_run
/// use mcp_replay::{mcp_fixture, Transport};
/// use rmcp::ServiceExt;
/// # #[derive(Default)]
/// # struct DemoServer;
/// # impl rmcp::ServerHandler for DemoServer {}
///
/// #[mcp_fixture("lookup_issue")]
/// #[tokio::test]
/// async fn lookup_issue(transport: Transport) {
///     let server = DemoServer::default().serve(transport).await.unwrap();
///     let _ = server.waiting().await;
/// }
///
/// // Options: a subfolder in the name, another fixture folder, a time limit.
/// #[mcp_fixture("issues/lookup", dir = "tests/fixtures", timeout_ms = 500)]
/// #[tokio::test(flavor = "multi_thread")]
/// async fn lookup_in_subfolder(transport: Transport) -> Result<(), String> {
///     let server = DemoServer::default().serve(transport).await.map_err(|e| e.to_string())?;
///     let _ = server.waiting().await;
///     Ok(())
/// }
/// # fn main() {}
/// ```
///
/// - The first argument is the fixture name: the file name relative to the
///   fixture folder, without `.jsonl`; `/` separates subfolders.
/// - `dir = "..."`: the fixture folder, relative to the crate root
///   (`CARGO_MANIFEST_DIR`); default `"fixtures"`.
/// - `timeout_ms = N`: a time limit in milliseconds (greater than 0).
///
/// The function may return `()` or `Result<(), E>` with `E: Debug` (an `Err` is reported as a server failure); it
/// must not be generic. The test becomes a parameterless `async fn` whose
/// body is a single call to `mcp_replay`'s runtime, with the original body as
/// the serve closure; all other attributes are kept as written.
///
/// [`Transport`]: https://docs.rs/mcp-replay/latest/mcp_replay/struct.Transport.html
#[proc_macro_attribute]
pub fn mcp_fixture(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::mcp_fixture(args.into(), item.into()).into()
}
