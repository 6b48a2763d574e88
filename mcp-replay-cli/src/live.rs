//! What the command replays against, as the runtime's [`Target`]: what `replay` and
//! `coverage` share.

use crate::args::ServerArg;
use mcp_replay::_support::bridge::Bridge;
use mcp_replay::harness::Target;

/// The server at `url` (`--url`), through the command's HTTP client, every request with
/// `headers` (`--header`); else `server` (the command after `--`) started as a child
/// process on stdio.
pub(crate) fn target(
    url: Option<&http::Uri>,
    server: &ServerArg,
    headers: &[(http::HeaderName, http::HeaderValue)],
) -> Target<'static> {
    match url {
        Some(url) => {
            let bridge = Bridge::new(crate::net::HttpClient::new()).endpoint(url.clone());
            let bridge = headers.iter().fold(bridge, |b, (name, value)| {
                b.header(name.clone(), value.clone())
            });
            Target::bridge(bridge)
        }
        None => Target::command(server.command(), server.line()),
    }
}
