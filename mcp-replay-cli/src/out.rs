//! Everything the command prints on stdout goes through here: a reader that went away
//! (`mcp-replay call ... | head -1`) stops the printing, never the command. `println!`
//! panics on a closed pipe (exit 101, and a fixture still to write is lost); here a
//! `BrokenPipe` ends the output quietly, as other Unix tools do, and the command goes on:
//! the fixture is written and the exit status is what it would have been.
//!
//! Any other write error (a full disk behind `> report.txt`) also stops the printing, is
//! said once on stderr, and makes the exit status 2 (an I/O error, see [`failed`]).

use crate::error::Error;
use std::fmt;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Set once stdout cannot take more: nothing more is written there.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// The first write error that was not a closed pipe.
static FAILED: OnceLock<String> = OnceLock::new();

/// `println!` for the command's stdout: [`write()`] with a newline.
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;

/// Writes `text` to stdout and flushes it, unless stdout is closed; a write error closes
/// it (see the [module](self)).
pub(crate) fn write(text: fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        close(e);
    }
}

/// Writes `bytes` as they are (a JSON document, a completion script), as [`write()`] does.
pub(crate) fn write_bytes(bytes: &[u8]) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        close(e);
    }
}

fn close(e: std::io::Error) {
    CLOSED.store(true, Ordering::Relaxed);
    if e.kind() != std::io::ErrorKind::BrokenPipe && FAILED.set(e.to_string()).is_ok() {
        eprintln!("mcp-replay: writing to stdout failed: {e}; nothing more is printed there");
    }
}

/// The write error that stopped the output, when it was not a reader that went away: the
/// command then exits 2.
pub(crate) fn failed() -> Option<&'static str> {
    FAILED.get().map(String::as_str)
}

/// Writes `document` to stdout, pretty, as the one thing there.
pub(crate) fn print_json(document: &serde_json::Value) -> Result<(), Error> {
    let mut text = serde_json::to_string_pretty(document).map_err(Error::output)?;
    text.push('\n');
    write_bytes(text.as_bytes());
    Ok(())
}
