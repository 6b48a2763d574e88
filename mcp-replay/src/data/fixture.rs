//! Fixtures: parsing, validation, request/response correlation and deterministic writing.
//!
//! The format is described in `docs/fixture-format.md`: JSONL, one
//! `{"direction":"client->server"|"server->client","message":{...}}` object per line, with an
//! optional header line `{"mcp_replay":1,...}` first.
//!
//! Here: the [`Fixture`] and its messages ([`Entry`]), loading and writing. Reading the lines
//! is `parse.rs`, the header line `header.rs`, which request a response answers
//! `correlate.rs`, the `"http_resume"` drop points `resume.rs`, and a fixture recorded message
//! by message `recorder.rs`.

mod bindable;
mod correlate;
mod header;
mod parse;
mod recorder;
mod resume;
#[cfg(test)]
mod tests;

#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub use bindable::Unbindable;
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub use header::AllowedSecret;
pub use header::Header;
pub(crate) use recorder::Recorder;
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub use resume::ResumePoint;

use crate::data::json::write_canonical;
use crate::data::protocol::{meta, Era};
use crate::error::Error;
use header::parse_header;
use parse::Parser;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use crate::data::message::{Direction, MessageKind};
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub use crate::normalize::REQUEST_ID;

/// One message line of a fixture.
///
/// An entry keeps its message as canonical JSON text, not as a parsed tree: a fixture
/// in memory is then about the size of its file (a `serde_json::Value` tree is 10 to 15
/// times the text; see `docs/PERFORMANCE.md`). [`Entry::message`] parses it on demand.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    line: usize,
    direction: Direction,
    kind: MessageKind,
    answers: Option<usize>,
    /// Shared between the entries of one fixture that have the same method.
    method: Option<Arc<str>>,
    id: Option<Value>,
    /// The message as [`write_message`](crate::data::json::write_message) writes it.
    text: Box<str>,
}

impl Entry {
    /// The 1-based line of the fixture file this message is on.
    pub fn line(&self) -> usize {
        self.line
    }
    /// Who sends it.
    pub fn direction(&self) -> Direction {
        self.direction
    }
    /// Request, notification or response.
    pub fn kind(&self) -> MessageKind {
        self.kind
    }
    /// The JSON-RPC message as written in the fixture (ids may be placeholders), parsed
    /// from [`Entry::text`] on each call.
    pub fn message(&self) -> Value {
        serde_json::from_str(&self.text).expect("an entry's text was written from a parsed message")
    }
    /// The message as canonical compact JSON: JSON-RPC keys first, then the others sorted,
    /// as [`Fixture::to_jsonl`] writes it.
    pub fn text(&self) -> &str {
        &self.text
    }
    /// The `method` of a request or notification.
    pub fn method(&self) -> Option<&str> {
        self.method.as_deref()
    }
    /// The `id` label of a request or response.
    pub fn id(&self) -> Option<&Value> {
        self.id.as_ref()
    }
    /// The subscription a message of a `subscriptions/listen` stream belongs to: the id
    /// label of that request ([`meta::SUBSCRIPTION_ID`]).
    pub fn subscription(&self) -> Option<Value> {
        static SUBSCRIPTION: crate::data::needle::Needle =
            crate::data::needle::Needle::new("subscriptionId");
        if !SUBSCRIPTION.is_in(&self.text) {
            return None;
        }
        crate::data::protocol::subscription_of(&self.message()).cloned()
    }
    /// For a response: the index (in [`Fixture::entries`]) of the request it answers.
    pub fn answers(&self) -> Option<usize> {
        self.answers
    }

    /// The method of a request and the tool, prompt or resource it is about, as a report
    /// names it: `tools/call add_note`, `resources/read file:///README`, `tools/list`.
    pub(crate) fn request_name(&self) -> String {
        let method = self.method().unwrap_or("?");
        match (self.direction, item_of(method, &self.message())) {
            (Direction::ClientToServer, Some(item)) => format!("{method} {}", cut(&item, 60)),
            _ => method.to_owned(),
        }
    }
}

/// The tool, prompt or resource a client request is about: the `params.name` of a
/// `tools/call` or `prompts/get`, the `params.uri` of a `resources/read`,
/// `resources/subscribe` or `resources/unsubscribe`.
pub(crate) fn item_of(method: &str, message: &Value) -> Option<String> {
    let field = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    message
        .get("params")?
        .get(field)?
        .as_str()
        .map(str::to_owned)
}

/// `text` cut to `max` characters, with `…` where it was cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// A parsed, validated fixture: one representative MCP exchange.
///
/// ```
/// let fixture = mcp_replay::Fixture::parse(concat!(
///     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#, "\n",
///     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#, "\n",
/// )).unwrap();
/// assert_eq!(fixture.entries().len(), 2);
/// assert_eq!(fixture.entries()[1].answers(), Some(0));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Fixture {
    source: String,
    path: Option<PathBuf>,
    /// The header line as written (kept whole so that writing it back loses nothing).
    raw_header: Option<Map<String, Value>>,
    header: Header,
    /// Shared between clones: a replay's task holds a clone of the fixture it replays
    /// (see `replay::shell::run_spawned`), and a clone must not copy every message.
    entries: Arc<Vec<Entry>>,
}

impl crate::rules::Rules {
    /// These rules as `fixture`'s header shapes them: at the version it pins (`"rules": N`,
    /// what it was written with), which wins over any other, with its `"bind"` and `"pin"`
    /// added, and its `"sort"`. What every replay, mock, re-recording and command of the fixture uses,
    /// however it was started. Here and not in `normalize/rules/`, so that the normalizer
    /// imports no fixture type.
    pub(crate) fn for_fixture(
        &self,
        fixture: &Fixture,
    ) -> std::borrow::Cow<'_, crate::rules::Rules> {
        let header = fixture.header();
        self.as_pinned(
            header.rules_version,
            &header.bind,
            &header.pin,
            &header.sort,
        )
    }
}

impl Fixture {
    /// How long a replay waits for each message it needs unless the fixture header, the
    /// attribute's `timeout_ms` or [`Options::timeout`](crate::Options::timeout) says
    /// otherwise.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

    /// The mock server's pause after each message that another follows at once unless the
    /// header's `pace_ms` or [`Options::pace`](crate::Options::pace) says otherwise.
    pub const DEFAULT_PACE: Duration = Duration::from_millis(2);

    /// Reads and parses a fixture file, and refuses one that holds a secret
    /// ([`Fixture::check_secrets`]) or no message at all ([`Error::Empty`]: it would pin
    /// nothing; client lines alone are fine, re-recording adds the server's). A missing
    /// file is [`Error::MissingFixture`], whose message says how to create one.
    pub fn load(path: impl AsRef<Path>) -> Result<Fixture, Error> {
        use std::io::BufRead;
        let path = path.as_ref();
        let file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::MissingFixture {
                    path: path.to_owned(),
                    test: None,
                })
            }
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        };
        // Line by line: the file's text is never held whole beside the parsed fixture.
        let mut reader = std::io::BufReader::new(file);
        let mut parser = Parser::new(&path.display().to_string(), true);
        let mut line = String::new();
        for line_no in 1.. {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => parser.line(line_no, line.strip_suffix('\n').unwrap_or(&line))?,
                Err(e) => {
                    return Err(Error::io(
                        format!("reading {} (line {line_no})", path.display()),
                        e,
                    ))
                }
            }
        }
        let mut fixture = parser.finish();
        if fixture.entries.is_empty() {
            return Err(Error::Empty {
                file: path.display().to_string(),
            });
        }
        fixture.path = Some(path.to_owned());
        fixture.resume_points()?;
        fixture.read_faults_file(path)?;
        Ok(fixture)
    }

    /// `NAME.faults.json` beside the fixture `NAME.jsonl`, when there is one: the faults its
    /// mock injects (`{"seed": N, "faults": [...]}`, as the header's `"faults"`, which it
    /// overrides). Read into the settings only: a re-recording does not write it into the
    /// fixture. A file that does not parse is an error naming it.
    fn read_faults_file(&mut self, path: &Path) -> Result<(), Error> {
        let faults_path = path.with_extension("faults.json");
        let text = match std::fs::read_to_string(&faults_path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(format!("reading {}", faults_path.display()), e)),
        };
        let invalid = |message: String| Error::Parse {
            file: faults_path.display().to_string(),
            line: 1,
            column: 1,
            message,
        };
        let value: Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        crate::data::faults::Faults::from_json(&value).map_err(invalid)?;
        self.header.faults = Some(value);
        Ok(())
    }

    /// A fixture with no messages whose errors name `source`.
    pub(crate) fn empty(source: &str) -> Fixture {
        Fixture {
            source: source.to_owned(),
            path: None,
            raw_header: None,
            header: Header::default(),
            entries: Arc::default(),
        }
    }

    /// Parses fixture text; errors name the line and column (the file is `<string>`).
    /// Unlike [`Fixture::load`] it does not scan for secrets, and takes a text with no
    /// message (a fixture built in code may start empty).
    pub fn parse(text: &str) -> Result<Fixture, Error> {
        Fixture::parse_named(text, "<string>")
    }

    /// Parses fixture text whose errors should name `source` as the file.
    pub fn parse_named(text: &str, source: &str) -> Result<Fixture, Error> {
        Fixture::parse_impl(text, source, false)
    }

    /// Parses, and with `scan` also refuses a secret (each message is parsed once, so the
    /// scan looks at the tree before it is dropped).
    fn parse_impl(text: &str, source: &str, scan: bool) -> Result<Fixture, Error> {
        let mut parser = Parser::new(source, scan);
        parser
            .fixture
            .entries_mut()
            .reserve_exact(memchr_count(text.as_bytes(), b'\n') + 1);
        for (index, raw) in text.split('\n').enumerate() {
            parser.line(index + 1, raw)?;
        }
        let fixture = parser.finish();
        fixture.resume_points()?;
        Ok(fixture)
    }

    /// The messages, in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The file it was loaded from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The file name used in messages (`<string>` when parsed from text).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The header line's settings (all unset when the fixture has no header).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The protocol era this fixture is in, by its data: the header's `"protocol"` if it
    /// names one, else its first client message: `server/discover` (unless an `initialize`
    /// follows it: the server refused the probe) or a request with the stateless era's
    /// `_meta` identity is stateless, anything else legacy. A replay may be told another
    /// ([`Options::protocol`](crate::Options::protocol)).
    pub fn era(&self) -> Era {
        if let Some(p) = &self.header.protocol {
            return Era::of_version(p);
        }
        let client = || {
            self.entries
                .iter()
                .filter(|e| e.direction() == Direction::ClientToServer)
        };
        let stateless = match client().next() {
            Some(first) if first.method() == Some("server/discover") => {
                !client().any(|e| e.method() == Some("initialize"))
            }
            Some(first) if first.method() == Some("initialize") => false,
            Some(first) => {
                static VERSION_KEY: crate::data::needle::Needle =
                    crate::data::needle::Needle::new(meta::PROTOCOL_VERSION);
                VERSION_KEY.is_in(first.text())
                    && crate::data::protocol::request_version(&first.message()).is_some()
            }
            None => false,
        };
        if stateless {
            Era::Stateless
        } else {
            Era::Legacy
        }
    }

    /// Scans every message for secrets (the rules are listed in `docs/normalization.md`); the header's
    /// `"allow_secrets"` entries let a known false positive through. The error names the
    /// line, the JSON path inside the message and the rule, never the secret.
    pub fn check_secrets(&self) -> Result<(), Error> {
        let allowed = self.allowed_secrets();
        for entry in self.entries.iter() {
            self.refuse_secret(&allowed, entry.line, &entry.message())?;
        }
        Ok(())
    }

    /// The header's `"allow_secrets"`: (rule, optional JSON path) pairs.
    fn allowed_secrets(&self) -> Vec<(String, Option<String>)> {
        self.header
            .allow_secrets
            .iter()
            .map(|a| (a.rule.clone(), a.path.clone()))
            .collect()
    }

    /// The first secret in `message` (on fixture line `line`) that `allowed` does not let
    /// through, as an error.
    fn refuse_secret(
        &self,
        allowed: &[(String, Option<String>)],
        line: usize,
        message: &Value,
    ) -> Result<(), Error> {
        for finding in crate::normalize::secrets::scan(message) {
            let allow = allowed.iter().any(|(rule, path)| {
                *rule == finding.rule && path.as_ref().is_none_or(|p| *p == finding.path)
            });
            if !allow {
                return Err(Error::Secret {
                    file: self.source.clone(),
                    line,
                    path: finding.path,
                    rule: finding.rule,
                    description: finding.description,
                    writing: false,
                });
            }
        }
        Ok(())
    }

    /// Sets `key` of the header line to `value`, as the file will say it (a header line
    /// is added when there is none): checked as a header read from a file is.
    ///
    /// ```
    /// use mcp_replay::Fixture;
    ///
    /// let fixture = Fixture::parse("").unwrap().with_header_key("allow_stray_output", true.into()).unwrap();
    /// assert!(fixture.header().allow_stray_output);
    /// assert_eq!(fixture.to_jsonl(), "{\"mcp_replay\":1,\"allow_stray_output\":true}\n");
    /// ```
    ///
    /// The messages' [`line`](Entry::line)s are those of the file with the header line.
    pub fn with_header_key(mut self, key: &str, value: Value) -> Result<Fixture, Error> {
        let mut raw = self
            .raw_header
            .clone()
            .unwrap_or_else(|| Map::from_iter([("mcp_replay".to_owned(), Value::from(1))]));
        raw.insert(key.to_owned(), value);
        self.header = parse_header(&raw).map_err(|message| Error::Parse {
            file: self.source.clone(),
            line: 1,
            column: 1,
            message,
        })?;
        if self.raw_header.is_none() {
            // A header line is new: every message moves one line down.
            for entry in self.entries_mut() {
                entry.line += 1;
            }
        }
        self.raw_header = Some(raw);
        Ok(self)
    }

    /// What `explore` found, when it wrote this fixture (the header's `"explore"`).
    pub fn explored(&self) -> Option<&crate::data::explored::Explored> {
        self.header.explore.as_ref()
    }

    /// The fixture without header key `key` (unchanged when it has none; the header line
    /// stays, `{"mcp_replay":1}` at least, so that no line moves).
    pub(crate) fn without_header_key(mut self, key: &str) -> Fixture {
        if let Some(raw) = self.raw_header.as_mut() {
            if raw.remove(key).is_some() {
                self.header = parse_header(raw).expect("a header without a key it had still reads");
            }
        }
        self
    }

    /// This recording under `fixture`'s header: every key the fixture's author or an
    /// earlier recording wrote is kept, but `"shapes"`, which is this recording's own (the
    /// values it bound). What a recording made from scratch (a test whose body is the
    /// client) writes over a fixture, so that it never drops a key the user wrote.
    pub(crate) fn under_header_of(self, fixture: &Fixture) -> Result<Fixture, Error> {
        let Some(raw) = fixture.raw_header.as_ref() else {
            return Ok(self);
        };
        let shapes = self
            .raw_header
            .as_ref()
            .and_then(|h| h.get("shapes"))
            .cloned();
        let mut out = self.without_entries();
        out.entries = self.entries.clone();
        out.raw_header = None;
        for entry in out.entries_mut() {
            entry.line -= usize::from(self.raw_header.is_some());
        }
        let mut keys: Vec<(String, Value)> = raw
            .iter()
            .filter(|(k, _)| k.as_str() != "shapes")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        keys.extend(shapes.map(|s| ("shapes".to_owned(), s)));
        for (key, value) in keys {
            out = out.with_header_key(&key, value)?;
        }
        Ok(out)
    }

    /// The fixture with `new` shapes of bound values added to its header's `"shapes"`
    /// (`normalize/shape.rs`); unchanged when there are none.
    pub(crate) fn with_shapes(self, new: Vec<(String, String)>) -> Result<Fixture, Error> {
        if new.is_empty() {
            return Ok(self);
        }
        let map: Map<String, Value> = self
            .header
            .shapes
            .iter()
            .cloned()
            .chain(new)
            .map(|(placeholder, value)| (placeholder, Value::String(value)))
            .collect();
        self.with_header_key("shapes", Value::Object(map))
    }

    /// The fixture with the shapes of the values `found` bound (`(value, placeholder)`
    /// each) and the selectors `sorts` added to its header's `"shapes"` and `"sort"`: what
    /// a recording's second run pinned (`lifecycle/per_run.rs`); `rules`' personal-data
    /// pass reads the shapes.
    pub(crate) fn with_pinned(
        self,
        found: &[(String, String)],
        sorts: &[String],
        rules: &crate::Rules,
    ) -> Result<Fixture, Error> {
        let shapes = crate::normalize::shape::shapes_of(found, &self.header.shapes, rules);
        let mut all = self.header.sort.clone();
        all.extend(sorts.iter().cloned());
        all.sort();
        all.dedup();
        let fixture = self.with_shapes(shapes)?;
        if sorts.is_empty() {
            return Ok(fixture);
        }
        fixture.with_header_key("sort", all.into())
    }

    /// The canonical JSONL text of this fixture: deterministic key order, one message a
    /// line, a trailing newline. Writing a parsed fixture back gives the same bytes.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        self.each_line(|line| {
            out.push_str(line);
            Ok(())
        })
        .expect("writing to a String does not fail");
        out
    }

    /// Calls `f` with each line of [`Fixture::to_jsonl`] (newline included), one at a time:
    /// a large fixture is written or compared without its whole text in memory.
    pub(crate) fn each_line(
        &self,
        mut f: impl FnMut(&str) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut out = String::new();
        if let Some(header) = &self.raw_header {
            out.push_str("{\"mcp_replay\":");
            write_canonical(&mut out, &header["mcp_replay"]);
            let mut rest: Vec<(&String, &Value)> =
                header.iter().filter(|(k, _)| *k != "mcp_replay").collect();
            rest.sort_by(|a, b| a.0.cmp(b.0));
            for (k, v) in rest {
                out.push(',');
                write_canonical(&mut out, &Value::String(k.clone()));
                out.push(':');
                write_canonical(&mut out, v);
            }
            out.push_str("}\n");
            f(&out)?;
        }
        for entry in self.entries.iter() {
            out.clear();
            push_text_line(&mut out, entry.direction, &entry.text);
            f(&out)?;
        }
        Ok(())
    }

    /// The messages, to change: a clone of them first if another fixture shares them.
    fn entries_mut(&mut self) -> &mut Vec<Entry> {
        Arc::make_mut(&mut self.entries)
    }

    /// The same header, source and path, with no messages (cheap: the entries
    /// are not cloned).
    pub(crate) fn without_entries(&self) -> Fixture {
        Fixture {
            source: self.source.clone(),
            path: self.path.clone(),
            raw_header: self.raw_header.clone(),
            header: self.header.clone(),
            entries: Arc::default(),
        }
    }

    /// A copy without the entries at the indexes `left_out` (a request with its answer:
    /// an answer whose request is left out goes too); each entry keeps its line, so that
    /// what is said of it names the line of the file. The progress tokens left are
    /// numbered again in the order they come, as a recording of these entries alone would
    /// number them (`<PROGRESS_TOKEN:n>`).
    pub(crate) fn without(&self, left_out: &[usize]) -> Fixture {
        let mut new_index = vec![None; self.entries.len()];
        let mut entries = Vec::with_capacity(self.entries.len());
        let mut tokens: Vec<String> = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            let answers = match entry.answers {
                Some(r) => match new_index[r] {
                    Some(r) => Some(r),
                    None => continue,
                },
                None => None,
            };
            if left_out.contains(&i) {
                continue;
            }
            new_index[i] = Some(entries.len());
            entries.push(Entry {
                answers,
                text: renumber_tokens(&entry.text, &mut tokens).into(),
                ..entry.clone()
            });
        }
        Fixture {
            entries: Arc::new(entries),
            ..self.without_entries()
        }
    }

    /// A copy with the same header, source and path and the given messages. The new
    /// messages are validated like a parsed file.
    pub(crate) fn with_messages(
        &self,
        messages: impl IntoIterator<Item = (Direction, Value)>,
    ) -> Result<Fixture, Error> {
        let mut recorder = Recorder::new(self);
        for (direction, message) in messages {
            recorder.push(direction, &message);
        }
        recorder.finish()
    }
}

/// `text` with each `<PROGRESS_TOKEN:n>` written as the number its token has in `seen`
/// (the tokens in the order first met; a new one is added).
fn renumber_tokens(text: &str, seen: &mut Vec<String>) -> String {
    const OPEN: &str = "<PROGRESS_TOKEN:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some(end) = after
            .find('>')
            .filter(|&e| after[..e].bytes().all(|b| b.is_ascii_digit()))
        else {
            out.push_str(&rest[..at + OPEN.len()]);
            rest = after;
            continue;
        };
        let token = &after[..end];
        let n = match seen.iter().position(|t| t == token) {
            Some(n) => n + 1,
            None => {
                seen.push(token.to_owned());
                seen.len()
            }
        };
        out.push_str(&rest[..at + OPEN.len()]);
        out.push_str(&n.to_string());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Appends one fixture line of a message written canonically:
/// `{"direction":...,"message":...}` and a newline.
fn push_text_line(out: &mut String, direction: Direction, message: &str) {
    out.push_str("{\"direction\":\"");
    out.push_str(direction.as_str());
    out.push_str("\",\"message\":");
    out.push_str(message);
    out.push_str("}\n");
}

/// How many times `byte` occurs in `bytes`.
fn memchr_count(bytes: &[u8], byte: u8) -> usize {
    bytes.iter().filter(|&&b| b == byte).count()
}
