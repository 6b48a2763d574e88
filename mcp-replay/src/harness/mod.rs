//! What `#[mcp_fixture]` runs and what the `mcp-replay` command runs: the one flow of a
//! replay. A [`Plan`] resolves a fixture file (its rules, its time limit, its era, the
//! update mode); [`Plan::replay`] claims the fixture for the update mode, prepares it,
//! replays it against a [`Target`] (a serve closure, a Streamable HTTP service, a child
//! process, a client under test), names the test, writes the page of the session and
//! concludes: a pass, a re-recording or a [`Failure`]. The attribute, [`Plan::run`] and
//! every subcommand of the command that replays go through it, so a fixture replays the
//! same way under `cargo test` and under `mcp-replay replay`: the same defaults at the
//! version the fixture header pins, the same workspace root for `<WORKSPACE>`, the same
//! rules file beside the fixture.
//!
//! ```no_run
//! use mcp_replay::harness::{Plan, Target, Verdict};
//! use mcp_replay::_support::update::UpdateMode;
//!
//! # async fn demo() -> Result<(), mcp_replay::harness::Failure> {
//! let plan = Plan::new("fixtures/lookup_issue.jsonl", UpdateMode::from_env()?);
//! let replayed = plan
//!     .replay(Target::serve(|transport| async move { drop(transport) }))
//!     .await;
//! match replayed.verdict? {
//!     Verdict::Passed => println!("ok"),
//!     Verdict::Rerecorded(path) => println!("re-recorded {}", path.display()),
//! }
//! # Ok(()) }
//! ```

mod attribute;
mod claim;
#[cfg(feature = "command")]
pub(crate) mod coverage;
#[cfg(feature = "explore")]
mod explore;
#[cfg(feature = "files")]
mod files;
mod outcome;
pub(crate) mod page;
mod pair;
pub(crate) mod plan;
pub(crate) mod resolve;
mod target;

pub use attribute::Test;
#[cfg(feature = "command")]
pub use coverage::coverage_of;
#[cfg(feature = "explore")]
pub use explore::{Exploration, Explore, Finding};
#[cfg(feature = "files")]
pub use files::Files;
pub use outcome::{Failure, Verdict};
pub use pair::Pair;
pub use plan::{Plan, Replayed};
pub use target::Target;

#[cfg(test)]
mod tests;
