//! The findings room: what a session found and how it is shown. A finding and its kinds,
//! the report and its advice, the timeline and its picture (HTML), the command's output
//! formats, excerpts and terminal helpers.
//! (docs/ARCHITECTURE.md, "The runtime, by room".)

pub(crate) mod advice;
pub(crate) mod excerpt;
pub(crate) mod found;
pub(crate) mod html;
pub(crate) mod kind;
pub(crate) mod mismatch;
pub mod output;
pub(crate) mod report;
pub(crate) mod stray;
pub(crate) mod timeline;
