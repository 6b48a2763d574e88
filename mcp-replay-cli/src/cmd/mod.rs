//! One file per subcommand: its arguments (`Args`, clap derive), its examples and exit
//! statuses for `--help` (`AFTER_HELP`), and its `run`, which ends in an
//! [`Outcome`](crate::error::Outcome) or an [`Error`](crate::error::Error). A subcommand
//! imports no other; what several share is in the modules beside `cmd/`.

pub(crate) mod call;
pub(crate) mod check;
pub(crate) mod completions;
pub(crate) mod coverage;
pub(crate) mod diff;
pub(crate) mod explore;
pub(crate) mod import;
pub(crate) mod pending;
pub(crate) mod record;
pub(crate) mod replay;
pub(crate) mod review;
pub(crate) mod serve;
pub(crate) mod test;
