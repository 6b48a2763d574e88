//! Every environment variable the runtime reads, read here and nowhere else (as insta's
//! `env.rs`): what each one means is in its constant's documentation, and the functions
//! below are the only calls into `std::env::var` in the crate. The resolve step
//! ([`harness::Plan::prepare`](crate::harness::Plan::prepare), `Options::resolve`) asks
//! them; nothing below it does.

use std::ffi::OsString;
use std::path::PathBuf;

/// The environment variable that decides whether a test re-records its fixture: unset or
/// `auto` (`new` locally, `no` under CI), `no`/`0`, `new`, `1`/`always`, `force`
/// ([`UpdateMode`](crate::lifecycle::update::UpdateMode)).
pub const UPDATE_ENV: &str = "MCP_FIXTURE_UPDATE";

/// The environment variable that turns the trace on (`1`, `true`, `yes`).
pub const TRACE_ENV: &str = "MCP_REPLAY_TRACE";

/// The environment variable naming the folder where `#[mcp_fixture]` tests (and
/// [`Plan::run`](crate::harness::Plan::run)) write the picture of each session:
/// `MCP_REPLAY_HTML=target/replay-html cargo test` writes `target/replay-html/<test>.html`
/// for every replay test, passing or failing, and a failing test's message names its page.
pub const HTML_ENV: &str = "MCP_REPLAY_HTML";

/// The environment variable `mcp-replay test` runs the tests with: a test that writes a
/// pending `NAME.jsonl.new` passes (saying so on stderr) instead of failing, as insta's
/// `INSTA_FORCE_PASS` does, so that cargo's exit status tells the other failures apart.
pub const PENDING_PASSES_ENV: &str = "MCP_REPLAY_PENDING_PASSES";

/// The environment variable naming a values file for every recording and update
/// (`MCP_REPLAY_REDACT_VALUES=secrets/values.txt`), beside `--redact-values` and a rules
/// file's `"redact_values"`.
pub const REDACT_VALUES_ENV: &str = "MCP_REPLAY_REDACT_VALUES";

/// The environment variable naming a deny list that `mcp-replay check` and every replay
/// check fixtures against, beside `--deny-values` and a rules file's `"deny_values"`.
pub const DENY_VALUES_ENV: &str = "MCP_REPLAY_DENY_VALUES";

/// A test hook for crash safety of the atomic write (`error-before-rename`,
/// `abort-before-rename`); read only on that cold path.
pub(crate) const FAILPOINT_ENV: &str = "MCP_REPLAY_FAILPOINT";

/// The value of `name`, if it is set and is Unicode.
fn text(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The value of `name`, if it is set and not empty.
fn named(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// Whether `value` says yes the way a flag variable does: anything but empty, `0`, `false`.
fn is_yes(value: &str) -> bool {
    !matches!(value.trim(), "" | "0" | "false" | "False" | "FALSE")
}

/// [`UPDATE_ENV`]'s value, when it is set.
pub(crate) fn update() -> Option<String> {
    text(UPDATE_ENV)
}

/// Whether this process runs under CI, as insta decides it: `CI` (or `TF_BUILD`, Azure
/// Pipelines' own) is set to something other than empty, `0` or `false`.
pub(crate) fn ci() -> bool {
    ["CI", "TF_BUILD"]
        .iter()
        .any(|name| text(name).is_some_and(|v| is_yes(&v)))
}

/// Whether [`TRACE_ENV`] asks for the trace.
pub(crate) fn trace() -> bool {
    text(TRACE_ENV)
        .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes"))
}

/// The folder [`HTML_ENV`] names, if it is set and not empty.
pub(crate) fn html() -> Option<PathBuf> {
    html_folder(std::env::var_os(HTML_ENV).as_deref())
}

/// The folder a value of [`HTML_ENV`] names: none for an empty or blank one.
pub(crate) fn html_folder(value: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    value
        .filter(|v| !v.to_string_lossy().trim().is_empty())
        .map(PathBuf::from)
}

/// Whether [`PENDING_PASSES_ENV`] is set to something other than empty or `0`.
pub(crate) fn pending_passes() -> bool {
    text(PENDING_PASSES_ENV).is_some_and(|v| !matches!(v.trim(), "" | "0"))
}

/// The values file [`REDACT_VALUES_ENV`] names, if any.
pub(crate) fn redact_values() -> Option<OsString> {
    named(REDACT_VALUES_ENV)
}

/// The deny list [`DENY_VALUES_ENV`] names, if any.
pub fn deny_values() -> Option<OsString> {
    named(DENY_VALUES_ENV)
}

/// [`FAILPOINT_ENV`]'s value, when it is set.
pub(crate) fn failpoint() -> Option<String> {
    text(FAILPOINT_ENV)
}

/// The user's home folder (`HOME`, else `USERPROFILE`).
pub(crate) fn home() -> Option<OsString> {
    std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))
}

/// A color convention's variable (`NO_COLOR`, `CLICOLOR_FORCE`, `CLICOLOR`).
pub(crate) fn color(name: &str) -> Option<String> {
    text(name)
}
