//! `mcp-replay review`: the pending `NAME.jsonl.new` files one at a time, as
//! `cargo insta review` shows snapshots: what changed in the contract the fixture pins
//! (the `diff` view, most severe class first), then the messages that changed, and a key
//! to accept, reject or skip it, or to quit. Without a terminal it lists them (exit 1 when
//! there are any); `--accept` and `--reject` take them without asking.

use crate::args::RulesArg;
use crate::error::{Error, Outcome};
use crate::out::outln;
use crate::pending::{find, take_all, Pending};
use crate::terminal;
use mcp_replay::Fixture;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `mcp-replay review`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Pending files, fixtures or folders: only these are reviewed [default: fixtures/ and
    /// tests/fixtures/]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Accept every pending file below the paths, without asking (for scripts)
    #[arg(long, conflicts_with = "reject")]
    pub accept: bool,
    /// Reject every pending file below the paths, without asking (for scripts)
    #[arg(long)]
    pub reject: bool,
    #[command(flatten)]
    pub rules: RulesArg,
}

/// The examples and exit statuses of `mcp-replay review --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay review\n",
    "  mcp-replay review tests/fixtures/tools.jsonl\n",
    "  mcp-replay review --accept tests/fixtures/tools*.jsonl   (scripts)\n",
    "\n",
    "Keys: a accept (the pending file replaces the fixture, atomically), r reject (it is\n",
    "deleted), s skip (it stays pending), q quit (the rest stay pending). A pending file\n",
    "that does not load as a fixture, holds a secret, or shares its fixture with another\n",
    "pending file can only be rejected or skipped.\n",
    "\n",
    "Exit 0 after a review, or when nothing is pending. Without a terminal, review lists\n",
    "the pending files and exits 1 when there are any. Exit 2 when a PATH does not exist,\n",
    "the terminal is narrower than 60 columns, or --accept could not take a file."
);

/// The narrowest terminal a review is drawn in.
const MIN_WIDTH: usize = 60;

/// `mcp-replay review`.
pub(crate) fn run(args: Args) -> Result<Outcome, Error> {
    let pending = find(&args.paths)?;
    if args.accept {
        return take_all(&pending, Pending::accept);
    }
    if args.reject {
        return take_all(&pending, Pending::reject);
    }
    if pending.is_empty() {
        outln!("no pending .jsonl.new files");
        return Ok(Outcome::Success);
    }
    if !terminal::interactive() {
        return Ok(list(&pending));
    }
    let width = terminal::width();
    if width < MIN_WIDTH {
        return Err(Error::usage(format!(
            "the terminal is {width} columns wide; review needs {MIN_WIDTH}: widen it, or take \
             the files without asking with --accept or --reject PATH"
        )));
    }
    let mut tally = Tally::default();
    for (i, p) in pending.iter().enumerate() {
        outln!("{}", page(p, i, pending.len(), &args.rules, width));
        let refused = p.refusal();
        match ask(refused.is_some()) {
            Choice::Accept => {
                let taken = p.accept();
                tally.note(taken, p, Choice::Accept);
            }
            Choice::Reject => {
                let taken = p.reject();
                tally.note(taken, p, Choice::Reject);
            }
            Choice::Skip => tally.skipped.push(p.file.clone()),
            Choice::Quit => {
                tally
                    .skipped
                    .extend(pending[i..].iter().map(|p| p.file.clone()));
                break;
            }
        }
    }
    outln!("{}", tally.summary());
    Ok(Outcome::Success)
}

/// Without a terminal: the pending files, one a line, and what to run; exit 1.
fn list(pending: &[Pending]) -> Outcome {
    for p in pending {
        outln!(
            "pending: {} (fixture {})",
            p.file.display(),
            p.fixture.display()
        );
    }
    outln!(
        "{} pending: review them in a terminal with `mcp-replay review`, or take them with \
         `mcp-replay review --accept PATH` / `--reject PATH`",
        pending.len()
    );
    Outcome::Findings
}

/// What the person reviewing chose for one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Accept,
    Reject,
    Skip,
    Quit,
}

impl Choice {
    /// The choice a key makes (`None`: the end of input, which quits), if it makes one:
    /// `a`, `r`, `s` (or space), `q` (or Escape, Ctrl-C, Ctrl-D). Accepting is no choice
    /// for a file that cannot be accepted (`refused`).
    fn of(key: Option<u8>, refused: bool) -> Option<Choice> {
        match key {
            None | Some(b'q' | b'Q' | 0x1b | 0x03 | 0x04) => Some(Choice::Quit),
            Some(b'a' | b'A') if !refused => Some(Choice::Accept),
            Some(b'r' | b'R') => Some(Choice::Reject),
            Some(b's' | b'S' | b' ') => Some(Choice::Skip),
            _ => None,
        }
    }
}

/// Asks until a key makes a choice.
fn ask(refused: bool) -> Choice {
    let keys = if refused {
        "r reject · s skip · q quit (it cannot be accepted)"
    } else {
        "a accept · r reject · s skip · q quit"
    };
    loop {
        crate::out::write(format_args!("{keys} > "));
        let key = terminal::read_key();
        if let Some(choice) = Choice::of(key, refused) {
            outln!();
            return choice;
        }
        outln!();
    }
}

/// What a review did.
#[derive(Default)]
struct Tally {
    accepted: Vec<PathBuf>,
    rejected: Vec<PathBuf>,
    skipped: Vec<PathBuf>,
    failed: Vec<PathBuf>,
}

impl Tally {
    /// Says what accepting or rejecting `p` did (`how`), and counts it; a file that
    /// could not be taken stays pending.
    fn note(&mut self, taken: Result<String, String>, p: &Pending, how: Choice) {
        let file = p.file.clone();
        match taken {
            Ok(done) => {
                outln!("{done}");
                match how {
                    Choice::Accept => self.accepted.push(file),
                    _ => self.rejected.push(file),
                }
            }
            Err(why) => {
                outln!("mcp-replay: {why}");
                self.failed.push(file);
            }
        }
    }

    /// The last line: how many of each, and what is still pending.
    fn summary(&self) -> String {
        let mut text = format!(
            "review: {} accepted, {} rejected, {} skipped",
            self.accepted.len(),
            self.rejected.len(),
            self.skipped.len() + self.failed.len()
        );
        for file in self.skipped.iter().chain(&self.failed) {
            let _ = write!(text, "\n  still pending: {}", file.display());
        }
        text
    }
}

/// One file's page: a header naming it, then what changed in the contract (most severe
/// first) and the messages that changed; or why it cannot be accepted, or that its
/// fixture no longer exists.
fn page(p: &Pending, index: usize, count: usize, rules: &RulesArg, width: usize) -> String {
    let title = format!(" {}/{count} {} ", index + 1, p.fixture.display());
    let mut text = format!(
        "\n━━{title}{}\n",
        "━".repeat(width.saturating_sub(title.chars().count() + 2))
    );
    if let Some(why) = p.refusal() {
        let _ = write!(text, "{} cannot be accepted: {why}", p.file.display());
        return text;
    }
    let new = match Fixture::load(&p.file) {
        Ok(new) => new,
        Err(e) => return text + &e.to_string(),
    };
    if !p.fixture.exists() {
        let _ = write!(
            text,
            "{} no longer exists: accepting makes the pending recording ({} messages) the \
             fixture again",
            p.fixture.display(),
            new.entries().len()
        );
        return text;
    }
    let old = match Fixture::load(&p.fixture) {
        Ok(old) => old,
        Err(e) => {
            let _ = write!(
                text,
                "the fixture does not load ({e}): accepting replaces it"
            );
            return text;
        }
    };
    let folder = p.fixture.parent().unwrap_or(Path::new("."));
    let rules = match rules.resolve(Some(&new), folder) {
        Ok(rules) => rules,
        Err(e) => return text + &format!("the rules do not load: {e}"),
    };
    let diff = mcp_replay::_support::diff::diff(&old, &new, &rules)
        .with_names(
            p.fixture.display().to_string(),
            p.file.display().to_string(),
        )
        .most_severe_first();
    if mcp_replay::_support::color_wanted(true) {
        let _ = write!(text, "{diff:#}");
    } else {
        let _ = write!(text, "{diff}");
    }
    text.push_str("\n\nThe messages (- fixture, + pending):\n");
    text.push_str(&message_diff(&p.fixture, &p.file));
    text
}

/// The lines of the two files that differ, with one line of context, `-` for the
/// fixture's and `+` for the pending file's.
fn message_diff(old: &Path, new: &Path) -> String {
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let (old, new) = (read(old), read(new));
    let diff = similar::TextDiff::from_lines(&old, &new);
    let mut out = String::new();
    for group in diff.grouped_ops(1) {
        for op in group {
            for change in diff.iter_changes(&op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                let line = change
                    .old_index()
                    .or(change.new_index())
                    .map_or(0, |i| i + 1);
                let _ = write!(out, "{sign}{line:>4} {}", change.value());
                if change.missing_newline() {
                    out.push('\n');
                }
            }
        }
        out.push_str("     ⋯\n");
    }
    out
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn take_a_choice_from_a_key_and_refuse_accepting_what_cannot_be() {
        assert_eq!(Choice::of(Some(b'a'), false), Some(Choice::Accept));
        assert_eq!(Choice::of(Some(b'a'), true), None);
        assert_eq!(Choice::of(Some(b'r'), true), Some(Choice::Reject));
        assert_eq!(Choice::of(Some(b's'), false), Some(Choice::Skip));
        assert_eq!(Choice::of(Some(b' '), false), Some(Choice::Skip));
        for quit in [Some(b'q'), Some(0x03), Some(0x04), Some(0x1b), None] {
            assert_eq!(Choice::of(quit, false), Some(Choice::Quit));
        }
        assert_eq!(Choice::of(Some(b'x'), false), None);
        assert_eq!(Choice::of(Some(b'\n'), false), None);
    }
}
