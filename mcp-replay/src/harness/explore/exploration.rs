//! What an exploration found ([`Exploration`]): its findings, each with the call that shows
//! it, the answer shapes it kept, and the kept failures replayed again; written for people.

use super::*;

/// What a run found.
#[derive(Debug, Clone)]
pub struct Exploration {
    pub(super) seed: u64,
    pub(super) calls: usize,
    pub(super) stopped_by_time: bool,
    /// Calls whose session failed before the call, each try.
    pub(super) not_made: Vec<String>,
    pub(super) findings: Vec<Finding>,
    pub(super) shapes: Vec<Shape>,
    pub(super) kept: Vec<Kept>,
}

/// A rule of the specification a call broke.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// The tool called.
    pub tool: String,
    /// What kind of arguments the first failing call had (`valid`, `edge: high`,
    /// ``invalid: `a` (required) left out``).
    pub what: String,
    /// The smallest arguments found that still break the rule.
    pub arguments: Value,
    /// How the answer breaks it.
    pub detail: String,
    /// Which call of the run found it (1 for the first).
    pub found_at: usize,
    /// The calls shrinking took.
    pub shrink_calls: usize,
    /// The fixture written for it (`NAME.jsonl.new`), if any.
    pub fixture: Option<PathBuf>,
}

/// A shape of answer a tool gave, and the fixture proposed for it.
#[derive(Debug, Clone)]
pub(super) struct Shape {
    pub(super) tool: String,
    pub(super) shape: String,
    pub(super) what: String,
    pub(super) fixture: Option<PathBuf>,
}

/// A fixture `explore` wrote earlier, replayed first.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    pub(super) path: PathBuf,
    pub(super) rule: Rule,
    pub(super) tool: String,
    pub(super) broken: bool,
}

impl Exploration {
    pub(super) fn new(seed: u64) -> Exploration {
        Exploration {
            seed,
            calls: 0,
            stopped_by_time: false,
            not_made: Vec::new(),
            findings: Vec::new(),
            shapes: Vec::new(),
            kept: Vec::new(),
        }
    }

    /// The rules broken, one finding for each tool and rule, in the order found.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The seed of the run.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How many generated calls were made (shrinking not counted).
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// The calls not made: their session failed before the call, every try (a server
    /// that did not start within the limit).
    pub fn not_made(&self) -> &[String] {
        &self.not_made
    }

    /// The kept failures (fixtures with `"explore"` in their header) that still fail.
    pub fn still_failing(&self) -> usize {
        self.kept.iter().filter(|k| k.broken).count()
    }
}

impl fmt::Display for Exploration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "explore: seed {}, {} calls{}",
            self.seed,
            self.calls,
            if self.stopped_by_time {
                " (stopped by the time limit)"
            } else {
                ""
            }
        )?;
        for why in &self.not_made {
            writeln!(f, "  NOT MADE: {why}")?;
        }
        for k in &self.kept {
            let state = if k.broken {
                "still fails"
            } else {
                "passes now"
            };
            writeln!(
                f,
                "  kept {}: `{}` {} {state}",
                k.path.display(),
                k.tool,
                k.rule.name()
            )?;
        }
        for x in &self.findings {
            writeln!(
                f,
                "  FOUND {}: `{}` ({}), call {}, shrunk in {} calls",
                x.rule.name(),
                x.tool,
                x.what,
                x.found_at,
                x.shrink_calls
            )?;
            writeln!(f, "    arguments: {}", cut(&x.arguments.to_string()))?;
            writeln!(f, "    {}", x.detail)?;
            writeln!(
                f,
                "    the specification: {} ({})",
                x.rule.says(),
                x.rule.link()
            )?;
            if let Some(p) = &x.fixture {
                writeln!(f, "    written: {}", p.display())?;
            }
        }
        for s in &self.shapes {
            let written = s
                .fixture
                .as_ref()
                .map(|p| format!(": {}", p.display()))
                .unwrap_or_default();
            writeln!(f, "  shape: `{}` {} ({}){written}", s.tool, s.shape, s.what)?;
        }
        write!(
            f,
            "{} finding(s); replay with --seed {}",
            self.findings.len(),
            self.seed
        )
    }
}

/// `text`, cut to 200 characters.
pub(super) fn cut(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}… ({} characters)", &text[..at], text.chars().count()),
        None => text.to_owned(),
    }
}
