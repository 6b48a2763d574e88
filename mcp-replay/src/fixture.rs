//! Fixtures: parsing, validation, request/response correlation and deterministic writing.
//!
//! The format is described in `docs/fixture-format.md`: JSONL, one
//! `{"direction":"client->server"|"server->client","message":{...}}` object per line, with an
//! optional header line `{"mcp_replay":1,...}` first.

use crate::error::{Error, Invalid};
use crate::json::{json_eq, write_canonical, write_message};
use crate::protocol::{meta, Era};
use serde_json::{Map, Value};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The placeholder a fixture writes for a request id when one request is in flight at a time.
pub const REQUEST_ID: &str = "<REQUEST_ID>";

/// Which side sent a fixture message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// A message the client sends: the harness feeds it to the server under test.
    ClientToServer,
    /// A message the server sends: the harness compares it with what the server really sent.
    ServerToClient,
}

impl Direction {
    /// The spelling used in fixture files: `client->server` or `server->client`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client->server",
            Direction::ServerToClient => "server->client",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The three shapes of a JSON-RPC message (MCP has no batches).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// Has `method` and `id`: expects a response.
    Request,
    /// Has `method` and no `id`.
    Notification,
    /// Has `id` and `result` or `error`.
    Response,
}

impl MessageKind {
    /// Classifies a parsed message, or says why it is not a JSON-RPC message.
    pub fn of(message: &Value) -> Result<MessageKind, Invalid> {
        MessageKind::classify(message).map_err(Invalid::new)
    }

    fn classify(message: &Value) -> Result<MessageKind, String> {
        let Some(obj) = message.as_object() else {
            return Err("a JSON-RPC message must be a JSON object".into());
        };
        match obj.get("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            Some(other) => return Err(format!("\"jsonrpc\" must be \"2.0\", not {other}")),
            None => return Err("the message has no \"jsonrpc\":\"2.0\"".into()),
        }
        match (obj.get("method"), obj.get("id")) {
            (Some(Value::String(_)), None) => Ok(MessageKind::Notification),
            (Some(Value::String(_)), Some(id)) if valid_id(id) => Ok(MessageKind::Request),
            (Some(Value::String(_)), Some(id)) => Err(format!(
                "a request id must be a string or an integer, not {id}"
            )),
            (Some(other), _) => Err(format!("\"method\" must be a string, not {other}")),
            (None, Some(_)) => match (obj.get("result"), obj.get("error")) {
                (Some(_), None) | (None, Some(_)) => Ok(MessageKind::Response),
                (Some(_), Some(_)) => {
                    Err("a response has \"result\" or \"error\", not both".into())
                }
                (None, None) => Err("a response needs \"result\" or \"error\"".into()),
            },
            (None, None) => Err(
                "not a JSON-RPC request, notification or response: it needs \"method\", \
                 or \"id\" with \"result\" or \"error\""
                    .into(),
            ),
        }
    }
}

fn valid_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some() || id.as_u64().is_some()
}

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
    /// The message as [`write_message`] writes it.
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
    entries: Vec<Entry>,
}

/// The settings of a fixture's optional first line, `{"mcp_replay":1, ...}`
/// (`docs/fixture-format.md` describes each key).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    /// `"description"`: what the fixture pins, for people.
    pub description: Option<String>,
    /// `"protocol"`: the protocol version to replay in.
    pub protocol: Option<String>,
    /// `"timeout"` or `"timeout_ms"`: how long a replay waits for each message it needs.
    pub timeout: Option<Duration>,
    /// `"pace_ms"`: the mock server's pause between messages written together.
    pub pace: Option<Duration>,
    /// `"rules"`: the version of the default normalization rules the fixture was written with.
    pub rules_version: Option<u64>,
    /// `"unordered"`: methods whose server messages may arrive anywhere, in any order.
    pub unordered: Vec<String>,
    /// `"strict_order"`: every server message in the fixture's order.
    pub strict_order: bool,
    /// `"strict_response_order"`: responses in the fixture's order.
    pub strict_response_order: bool,
    /// `"allow_secrets"`: known false positives of the secret scan.
    pub allow_secrets: Vec<AllowedSecret>,
    /// `"accept"`: contract classes whose changes are not findings (`["cosmetic"]`), as
    /// with [`Rules::accept`](crate::Rules::accept).
    pub accept: Vec<crate::contract::Class>,
    /// `"http_resume"`: fixture lines of progress notifications after which a replay over
    /// Streamable HTTP drops the SSE stream they came on and resumes it with
    /// `Last-Event-ID` (see [`Fixture::resume_points`]); other replays ignore it.
    pub http_resume: Vec<usize>,
    /// `"strict_exit"`: a server that had to be stopped with a signal after its input
    /// closed is a finding, not a note (see `process::stop`, cargo feature `process`).
    pub strict_exit: bool,
    /// `"allow_stray_output"`: lines the server writes on stdout that are not JSON-RPC
    /// messages (a banner, logs) are a note, not a finding (see
    /// `record::StrayLines`).
    pub allow_stray_output: bool,
}

/// A drop point of the header's `"http_resume"`, as a replay over HTTP recognises it: the
/// stream answering the `request`-th client request (0-based, in fixture order) is dropped
/// after its `progress`-th progress notification (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResumePoint {
    /// The fixture line that was marked.
    pub line: usize,
    /// Which client request's answer (0-based, counting only requests).
    pub request: usize,
    /// After how many progress notifications on that answer's stream (1-based).
    pub progress: usize,
}

/// One `"allow_secrets"` entry of a fixture header: a secret rule let through, anywhere or
/// at one JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedSecret {
    /// The rule id, e.g. `aws-access-key-id`.
    pub rule: String,
    /// The JSON path inside the message (e.g. `.message.result.token`); `None`: anywhere.
    pub path: Option<String>,
}

/// The keys a header line may have.
const HEADER_KEYS: [&str; 15] = [
    "mcp_replay",
    "protocol",
    "timeout",
    "timeout_ms",
    "pace_ms",
    "rules",
    "unordered",
    "strict_order",
    "strict_response_order",
    "allow_secrets",
    "accept",
    "description",
    "http_resume",
    "strict_exit",
    "allow_stray_output",
];

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
        Ok(fixture)
    }

    /// A fixture with no messages whose errors name `source`.
    pub(crate) fn empty(source: &str) -> Fixture {
        Fixture {
            source: source.to_owned(),
            path: None,
            raw_header: None,
            header: Header::default(),
            entries: Vec::new(),
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
            .entries
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

    /// The header's `"http_resume"` lines as drop points: each marked line must be a
    /// progress notification the server sends while the request carrying its progress token
    /// waits for its response (after that request, before the response line). Any other
    /// line is an [`Error::Parse`] naming the file and the marked line.
    pub fn resume_points(&self) -> Result<Vec<ResumePoint>, Error> {
        self.header
            .http_resume
            .iter()
            .map(|&line| self.resume_point(line))
            .collect()
    }

    fn resume_point(&self, line: usize) -> Result<ResumePoint, Error> {
        let err = |message: &str| Error::Parse {
            file: self.source.clone(),
            line,
            column: 1,
            message: format!(
                "\"http_resume\" marks this line, but {message}: a drop point must be a \
                 progress notification the server sends while the request with its progress \
                 token waits for its response"
            ),
        };
        let entries = &self.entries;
        let Some(at) = entries.iter().position(|e| e.line() == line) else {
            return Err(err("it holds no message"));
        };
        let marked = &entries[at];
        if marked.direction() != Direction::ServerToClient {
            return Err(err("it is a client message"));
        }
        let token = |entry: &Entry| -> Option<Value> {
            (entry.direction() == Direction::ServerToClient
                && entry.method() == Some("notifications/progress"))
            .then(|| entry.message().pointer("/params/progressToken").cloned())
            .flatten()
        };
        let Some(wanted) = token(marked) else {
            return Err(err("it is not a progress notification"));
        };
        let answered_after = |request: usize| {
            !entries[request + 1..=at]
                .iter()
                .any(|e| e.direction() == Direction::ServerToClient && e.answers() == Some(request))
        };
        let request = (0..at).rev().find(|&i| {
            let e = &entries[i];
            e.direction() == Direction::ClientToServer
                && e.kind() == MessageKind::Request
                && e.message()
                    .pointer("/params/_meta/progressToken")
                    .is_some_and(|t| json_eq(t, &wanted))
                && answered_after(i)
        });
        let Some(request) = request else {
            return Err(err(
                "no request before it with this progress token is still waiting for its response",
            ));
        };
        let ordinal = entries[..request]
            .iter()
            .filter(|e| {
                e.direction() == Direction::ClientToServer && e.kind() == MessageKind::Request
            })
            .count();
        let progress = entries[request + 1..=at]
            .iter()
            .filter(|e| token(e).is_some_and(|t| json_eq(&t, &wanted)))
            .count();
        Ok(ResumePoint {
            line,
            request: ordinal,
            progress,
        })
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
                first.text().contains(meta::PROTOCOL_VERSION)
                    && crate::protocol::request_version(&first.message()).is_some()
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
        for entry in &self.entries {
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
            for entry in &mut self.entries {
                entry.line += 1;
            }
        }
        self.raw_header = Some(raw);
        Ok(self)
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
        for entry in &self.entries {
            out.clear();
            push_text_line(&mut out, entry.direction, &entry.text);
            f(&out)?;
        }
        Ok(())
    }

    /// The same header, source and path, with no messages (cheap: the entries
    /// are not cloned).
    pub(crate) fn without_entries(&self) -> Fixture {
        Fixture {
            source: self.source.clone(),
            path: self.path.clone(),
            raw_header: self.raw_header.clone(),
            header: self.header.clone(),
            entries: Vec::new(),
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

/// A fixture built message by message, as a replay records what the server really did:
/// each message is validated and correlated like a line of a file as it comes, and the
/// recording never exists as text beside the fixture it becomes.
pub(crate) struct Recorder {
    template: Fixture,
    parser: Parser,
    count: usize,
    /// The first message that did not make a valid fixture line.
    failed: Option<Error>,
    /// The template's `"http_resume"` drop points, to mark the same places in the recording.
    resume: Vec<ResumePoint>,
}

impl Recorder {
    /// A recording with `template`'s header, source, path and settings, sized for as many
    /// messages as `template` has.
    pub(crate) fn new(template: &Fixture) -> Recorder {
        let mut parser = Parser::new(&template.source, false);
        parser.fixture.entries.reserve_exact(template.entries.len());
        Recorder {
            template: template.without_entries(),
            parser,
            count: 0,
            failed: None,
            resume: template.resume_points().unwrap_or_default(),
        }
    }

    /// Records a message.
    pub(crate) fn push(&mut self, direction: Direction, message: &Value) {
        self.count += 1;
        if self.failed.is_none() {
            self.failed = self
                .parser
                .message(self.count, direction, message, None)
                .err();
        }
    }

    /// Records a message that is exactly a fixture's `entry` (its line, not its place).
    pub(crate) fn push_entry(&mut self, entry: &Entry) {
        self.count += 1;
        if self.failed.is_none() {
            self.failed = self.parser.entry(self.count, entry).err();
        }
    }

    /// The recorded fixture, or why the messages do not make a valid one.
    pub(crate) fn finish(self) -> Result<Fixture, Error> {
        if let Some(error) = self.failed {
            return Err(error);
        }
        let mut fixture = self.template;
        fixture.entries = self.parser.finish().entries;
        fixture.relocate_resume_points(&self.resume);
        Ok(fixture)
    }
}

impl Fixture {
    /// Re-marks `"http_resume"` after re-recording: each drop point moves to the line where
    /// the recording has the same progress notification of the same request (lines may have
    /// shifted). A point the recording no longer has keeps its old line, which the next
    /// load then reports.
    fn relocate_resume_points(&mut self, points: &[ResumePoint]) {
        if points.is_empty() {
            return;
        }
        let first_line = 1 + usize::from(self.raw_header.is_some());
        let entries = &self.entries;
        let requests: Vec<usize> = (0..entries.len())
            .filter(|&i| {
                entries[i].direction() == Direction::ClientToServer
                    && entries[i].kind() == MessageKind::Request
            })
            .collect();
        let lines: Vec<usize> = points
            .iter()
            .map(|point| {
                let found = requests.get(point.request).and_then(|&r| {
                    let wanted = entries[r]
                        .message()
                        .pointer("/params/_meta/progressToken")
                        .cloned()?;
                    entries[r + 1..]
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| {
                            e.direction() == Direction::ServerToClient
                                && e.method() == Some("notifications/progress")
                                && e.message()
                                    .pointer("/params/progressToken")
                                    .is_some_and(|t| json_eq(t, &wanted))
                        })
                        .nth(point.progress.checked_sub(1)?)
                        .map(|(i, _)| r + 1 + i + first_line)
                });
                found.unwrap_or(point.line)
            })
            .collect();
        if let Some(header) = &mut self.raw_header {
            header.insert("http_resume".into(), Value::from(lines.clone()));
        }
        self.header.http_resume = lines;
    }
}

/// Parses a fixture line by line (from a string, or streamed from a file by
/// [`Fixture::load`], so the file's text is never held whole beside the fixture).
struct Parser {
    fixture: Fixture,
    correlate: Correlator,
    /// The methods seen so far, shared by the entries that have them.
    methods: Vec<Arc<str>>,
    /// Scan each message for secrets as it is parsed.
    scan: bool,
    /// The header's `allow_secrets`, read at the first message.
    allowed: Option<Vec<(String, Option<String>)>>,
}

impl Parser {
    fn new(source: &str, scan: bool) -> Parser {
        Parser {
            fixture: Fixture::empty(source),
            correlate: Correlator::default(),
            methods: Vec::new(),
            scan,
            allowed: None,
        }
    }

    fn finish(mut self) -> Fixture {
        self.fixture.entries.shrink_to_fit();
        self.fixture
    }

    /// Parses line `line_no` (1-based; a trailing `\r` is ignored).
    fn line(&mut self, line_no: usize, raw: &str) -> Result<(), Error> {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            return Ok(());
        }
        let err = |column: usize, message: String| Error::Parse {
            file: self.fixture.source.clone(),
            line: line_no,
            column,
            message,
        };
        let value: Value = serde_json::from_str(line).map_err(|e| {
            err(
                e.column().max(1),
                format!("not valid JSON: {}", strip_position(&e.to_string())),
            )
        })?;
        let Value::Object(mut obj) = value else {
            return Err(err(1, "a fixture line must be a JSON object".into()));
        };
        if obj.contains_key("mcp_replay") {
            if self.fixture.raw_header.is_some() || !self.fixture.entries.is_empty() {
                return Err(err(
                    1,
                    "the {\"mcp_replay\":...} header may only be the first line".into(),
                ));
            }
            self.fixture.header =
                parse_header(&obj).map_err(|m| err(column_of(line, "mcp_replay"), m))?;
            self.fixture.raw_header = Some(obj);
            return Ok(());
        }
        if let Some(key) = obj.keys().find(|k| *k != "direction" && *k != "message") {
            return Err(err(
                column_of(line, key),
                format!(
                    "unknown key {key:?}: a fixture line has exactly \"direction\" and \"message\" \
                     (a header line starts with {{\"mcp_replay\":1}})"
                ),
            ));
        }
        let direction = match obj.get("direction") {
            Some(Value::String(d)) if d == "client->server" => Direction::ClientToServer,
            Some(Value::String(d)) if d == "server->client" => Direction::ServerToClient,
            Some(other) => {
                return Err(err(
                    column_of(line, "direction"),
                    format!(
                    "\"direction\" must be \"client->server\" or \"server->client\", not {other}"
                ),
                ))
            }
            None => {
                return Err(err(
                    1,
                    "missing \"direction\" (\"client->server\" or \"server->client\")".into(),
                ))
            }
        };
        let Some(message) = obj.remove("message") else {
            return Err(err(1, "missing \"message\" (the JSON-RPC message)".into()));
        };
        self.message(line_no, direction, &message, Some(line))
    }

    /// Adds one message as fixture line `line_no`; `line` is the line's text when the
    /// message came from a file (errors then name the column).
    fn message(
        &mut self,
        line_no: usize,
        direction: Direction,
        message: &Value,
        line: Option<&str>,
    ) -> Result<(), Error> {
        let err = |needle: &str, message: String| Error::Parse {
            file: self.fixture.source.clone(),
            line: line_no,
            column: line.map_or(1, |line| column_of(line, needle)),
            message,
        };
        let kind = MessageKind::of(message).map_err(|m| err("message", m.into()))?;
        let index = self.fixture.entries.len();
        let answers = self
            .correlate
            .add(index, direction, kind, &message["id"])
            .map_err(|m| err("\"id\"", m))?;
        if self.scan {
            let allowed = self
                .allowed
                .get_or_insert_with(|| self.fixture.allowed_secrets());
            self.fixture.refuse_secret(allowed, line_no, message)?;
        }
        let method = message.get("method").and_then(Value::as_str).map(|m| {
            match self.methods.iter().find(|known| &***known == m) {
                Some(known) => known.clone(),
                None => {
                    self.methods.push(Arc::from(m));
                    self.methods[self.methods.len() - 1].clone()
                }
            }
        });
        let mut text = String::with_capacity(line.map_or(128, str::len));
        write_message(&mut text, message);
        self.fixture.entries.push(Entry {
            line: line_no,
            direction,
            kind,
            answers,
            method,
            id: message.get("id").cloned(),
            text: text.into_boxed_str(),
        });
        Ok(())
    }

    /// Adds an entry of a fixture (already validated) as fixture line `line_no`.
    fn entry(&mut self, line_no: usize, entry: &Entry) -> Result<(), Error> {
        let index = self.fixture.entries.len();
        let answers = self
            .correlate
            .add(
                index,
                entry.direction,
                entry.kind,
                entry.id.as_ref().unwrap_or(&Value::Null),
            )
            .map_err(|message| Error::Parse {
                file: self.fixture.source.clone(),
                line: line_no,
                column: 1,
                message,
            })?;
        self.fixture.entries.push(Entry {
            line: line_no,
            answers,
            ..entry.clone()
        });
        Ok(())
    }
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

/// Reads the header line's settings, refusing an unknown key or a value of the wrong shape.
fn parse_header(obj: &Map<String, Value>) -> Result<Header, String> {
    if obj.get("mcp_replay").and_then(Value::as_u64) != Some(1) {
        return Err(format!(
            "unsupported fixture format version {}: this mcp-replay reads version 1",
            obj["mcp_replay"]
        ));
    }
    let mut header = Header::default();
    for (key, v) in obj {
        match key.as_str() {
            "mcp_replay" => {}
            "description" => header.description = Some(string(key, v, "a text")?),
            "protocol" => {
                header.protocol = Some(string(key, v, "a version such as \"2025-11-25\"")?)
            }
            "timeout_ms" | "timeout" => header.timeout = Some(timeout(key, v)?),
            "pace_ms" => match v.as_u64() {
                Some(ms) => header.pace = Some(Duration::from_millis(ms)),
                None => {
                    return Err(format!(
                        "\"pace_ms\" must be a whole number of milliseconds (0 for none), not {v}"
                    ))
                }
            },
            "rules" => match v.as_u64() {
                Some(n) if (1..=crate::rules::RULES_VERSION).contains(&n) => {
                    header.rules_version = Some(n)
                }
                _ => {
                    return Err(format!(
                        "\"rules\" pins the default rules version: 1 to {}, not {v}",
                        crate::rules::RULES_VERSION
                    ))
                }
            },
            "unordered" => {
                header.unordered = string_list(v).ok_or_else(|| {
                    format!("\"unordered\" must be a list of method names, not {v}")
                })?
            }
            "strict_order" => header.strict_order = switch(key, v)?,
            "accept" => header.accept = classes(v)?,
            "strict_response_order" => header.strict_response_order = switch(key, v)?,
            "allow_secrets" => header.allow_secrets = allowed_secrets(v)?,
            "http_resume" => header.http_resume = line_numbers(key, v)?,
            "strict_exit" => header.strict_exit = switch(key, v)?,
            "allow_stray_output" => header.allow_stray_output = switch(key, v)?,
            _ => {
                return Err(format!(
                    "unknown header key {key:?}; valid keys: {}",
                    HEADER_KEYS.join(", ")
                ))
            }
        }
    }
    if obj.contains_key("timeout_ms") && obj.contains_key("timeout") {
        return Err("give \"timeout\" or \"timeout_ms\", not both".into());
    }
    Ok(header)
}

fn string(key: &str, v: &Value, what: &str) -> Result<String, String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("\"{key}\" must be {what}, not {v}"))
}

/// `"http_resume": [9, 14]`: fixture line numbers (positive).
fn line_numbers(key: &str, v: &Value) -> Result<Vec<usize>, String> {
    v.as_array()
        .and_then(|lines| {
            lines
                .iter()
                .map(|l| l.as_u64().filter(|&l| l > 0).map(|l| l as usize))
                .collect()
        })
        .ok_or_else(|| format!("\"{key}\" must be a list of fixture line numbers, not {v}"))
}

fn string_list(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|m| m.as_str().map(str::to_owned))
        .collect()
}

/// `"accept": ["cosmetic", ...]`: contract class names.
fn classes(v: &Value) -> Result<Vec<crate::contract::Class>, String> {
    string_list(v)
        .and_then(|names| names.iter().map(|n| crate::contract::Class::parse(n)).collect())
        .ok_or_else(|| {
            format!(
                "\"accept\" must be a list of contract classes (\"cosmetic\", \"compatible\", \"unknown\", \"breaking\"), not {v}"
            )
        })
}

fn switch(key: &str, v: &Value) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("\"{key}\" must be true or false, not {v}"))
}

/// `"timeout_ms": 700`, or `"timeout": "700ms"` / `"2s"` / `700`: positive.
fn timeout(key: &str, v: &Value) -> Result<Duration, String> {
    let parsed = match v {
        Value::Number(n) => n.as_u64().map(Duration::from_millis).ok_or(()),
        Value::String(text) if key == "timeout" => {
            crate::timing::parse_duration(text).map_err(|_| ())
        }
        _ => Err(()),
    };
    match parsed {
        Ok(d) if !d.is_zero() => Ok(d),
        _ if key == "timeout" => Err(format!(
            "\"timeout\" must be a positive time such as \"700ms\", \"2s\" or 700 (milliseconds), not {v}"
        )),
        _ => Err(format!(
            "\"timeout_ms\" must be a positive integer, not {v}"
        )),
    }
}

fn allowed_secrets(v: &Value) -> Result<Vec<AllowedSecret>, String> {
    let one = |item: &Value| -> Option<AllowedSecret> {
        let obj = item.as_object()?;
        let rule = obj.get("rule")?.as_str()?;
        let path = match obj.get("path") {
            None => None,
            Some(p) => Some(p.as_str()?.to_owned()),
        };
        let known = crate::normalize::secrets::rule_ids().contains(&rule)
            && obj.keys().all(|k| k == "rule" || k == "path");
        known.then(|| AllowedSecret {
            rule: rule.to_owned(),
            path,
        })
    };
    v.as_array()
        .and_then(|a| a.iter().map(one).collect())
        .ok_or_else(|| {
            format!(
                "\"allow_secrets\" must be a list of {{\"rule\": RULE, \"path\": \".json.path\"}} with a known \
                 rule ({}), not {v}",
                crate::normalize::secrets::rule_ids().join(", ")
            )
        })
}

/// Links each response to the request it answers. Ids are labels, tracked per direction:
/// a response answers the latest still-unanswered request (sent the other way) with an
/// equal label, so `<REQUEST_ID>` repeated down a file pairs each reply with the latest
/// request, and numbered or concrete labels correlate several in flight.
#[derive(Default)]
struct Correlator {
    /// Unanswered requests sent client->server, then server->client: (entry index, label).
    open: [Vec<(usize, Value)>; 2],
}

impl Correlator {
    fn add(
        &mut self,
        index: usize,
        direction: Direction,
        kind: MessageKind,
        id: &Value,
    ) -> Result<Option<usize>, String> {
        let side = |d: Direction| match d {
            Direction::ClientToServer => 0,
            Direction::ServerToClient => 1,
        };
        match kind {
            MessageKind::Notification => Ok(None),
            MessageKind::Request => {
                let open = &mut self.open[side(direction)];
                if id.as_str() != Some(REQUEST_ID)
                    && open.iter().any(|(_, label)| json_eq(label, id))
                {
                    return Err(format!(
                        "request id {id} is already waiting for a response; give each request in \
                         flight its own id, e.g. \"<REQUEST_ID:2>\""
                    ));
                }
                open.push((index, id.clone()));
                Ok(None)
            }
            MessageKind::Response => {
                let requester = match direction {
                    Direction::ServerToClient => Direction::ClientToServer,
                    Direction::ClientToServer => Direction::ServerToClient,
                };
                let open = &mut self.open[side(requester)];
                match open.iter().rposition(|(_, label)| json_eq(label, id)) {
                    Some(pos) => Ok(Some(open.remove(pos).0)),
                    None => Err(format!(
                        "response id {id} answers no earlier {requester} request that is still \
                         waiting for a response"
                    )),
                }
            }
        }
    }
}

fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}

/// 1-based column of the first occurrence of `needle` as a JSON key (or text), else 1.
fn column_of(line: &str, needle: &str) -> usize {
    let quoted = if needle.starts_with('"') {
        needle.to_owned()
    } else {
        format!("\"{needle}\"")
    };
    line.find(&quoted)
        .map(|byte| line[..byte].chars().count() + 1)
        .unwrap_or(1)
}

#[cfg(test)]
mod should {
    use super::*;
    use pretty_assertions::assert_eq;

    const SEED: &str = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"lookup_issue","arguments":{"owner":"demo","repo":"sample","number":42}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"Issue 42: example"}]}}}"#,
        "\n"
    );

    fn parse_err(text: &str) -> String {
        Fixture::parse(text).unwrap_err().to_string()
    }

    /// The seed in canonical form: envelope keys in JSON-RPC order, nested keys sorted.
    const SEED_CANONICAL: &str = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"arguments":{"number":42,"owner":"demo","repo":"sample"},"name":"lookup_issue"}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"text":"Issue 42: example","type":"text"}]}}}"#,
        "\n"
    );

    #[test]
    fn refuse_to_load_a_file_with_no_message_and_load_one_of_client_lines() {
        let dir = std::env::temp_dir().join(format!("mcp-replay-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let client_line = SEED.lines().next().unwrap();
        for (name, text) in [
            ("empty.jsonl", ""),
            ("blank.jsonl", "\n\n"),
            ("header.jsonl", "{\"mcp_replay\":1}\n"),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            let e = Fixture::load(&path).unwrap_err();
            assert!(matches!(e, Error::Empty { .. }), "{name}: {e:?}");
            assert!(
                e.to_string().starts_with(&format!(
                    "{}: the fixture holds no message, so it pins nothing.",
                    path.display()
                )),
                "{e}"
            );
        }
        // Client lines alone are a fixture to re-record.
        let path = dir.join("client.jsonl");
        std::fs::write(&path, format!("{{\"mcp_replay\":1}}\n{client_line}\n")).unwrap();
        assert_eq!(Fixture::load(&path).unwrap().entries().len(), 1);
        // Text in code may start empty.
        assert!(Fixture::parse("").unwrap().entries().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn parse_the_seed_fixture_and_write_it_canonically() {
        let fixture = Fixture::parse(SEED).unwrap();
        assert_eq!(fixture.entries().len(), 2);
        assert_eq!(fixture.entries()[0].kind(), MessageKind::Request);
        assert_eq!(fixture.entries()[1].answers(), Some(0));
        assert_eq!(fixture.to_jsonl(), SEED_CANONICAL);
        let again = Fixture::parse(SEED_CANONICAL).unwrap();
        assert_eq!(again.to_jsonl(), SEED_CANONICAL);
    }

    #[test]
    fn pair_repeated_request_id_placeholders_with_the_latest_request() {
        let text = [
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"a"}}"#,
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{}}}"#,
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"b"}}"#,
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{}}}"#,
        ]
        .join("\n");
        let f = Fixture::parse(&text).unwrap();
        assert_eq!(f.entries()[1].answers(), Some(0));
        assert_eq!(f.entries()[3].answers(), Some(2));
    }

    #[test]
    fn correlate_numbered_ids_out_of_order_and_track_directions_apart() {
        let text = [
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID:1>","method":"a"}}"#,
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":0,"method":"b"}}"#,
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":0,"method":"roots/list"}}"#,
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}}"#,
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":0.0,"result":{}}}"#,
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID:1>","result":{}}}"#,
        ]
        .join("\n");
        let f = Fixture::parse(&text).unwrap();
        let answers: Vec<_> = f.entries().iter().map(Entry::answers).collect();
        assert_eq!(answers, [None, None, None, Some(2), Some(1), Some(0)]);
    }

    #[test]
    fn name_file_line_and_column_of_invalid_json() {
        let text = format!(
            "{}\n\n{{\"direction\": oops}}\n",
            SEED.lines().next().unwrap()
        );
        assert_eq!(
            Fixture::parse_named(&text, "fixtures/x.jsonl")
                .unwrap_err()
                .to_string(),
            "fixtures/x.jsonl:3:15: not valid JSON: expected value"
        );
    }

    #[test]
    fn explain_structural_mistakes() {
        assert_eq!(
            parse_err(r#"{"direction":"up","message":{}}"#),
            r#"<string>:1:2: "direction" must be "client->server" or "server->client", not "up""#
        );
        assert_eq!(
            parse_err(r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":1}}"#),
            "<string>:1:31: a response needs \"result\" or \"error\""
        );
        assert_eq!(
            parse_err(r#"{"direction":"client->server","message":{"id":1,"method":"x"}}"#),
            "<string>:1:31: the message has no \"jsonrpc\":\"2.0\""
        );
        assert!(parse_err(r#"{"direction":"client->server","msg":{}}"#)
            .starts_with("<string>:1:31: unknown key \"msg\""));
        assert!(parse_err("[1]").contains("must be a JSON object"));
    }

    #[test]
    fn refuse_a_response_that_answers_nothing() {
        let err = parse_err(
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{}}}"#,
        );
        assert!(
            err.contains("answers no earlier client->server request"),
            "{err}"
        );
    }

    #[test]
    fn refuse_two_requests_in_flight_with_the_same_concrete_id() {
        let text = [
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":7,"method":"a"}}"#,
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":7,"method":"b"}}"#,
        ]
        .join("\n");
        assert!(parse_err(&text).contains("<string>:2:"));
        assert!(parse_err(&text).contains("already waiting"));
    }

    #[test]
    fn read_the_header_and_refuse_unknown_versions_and_keys() {
        let text = format!(
            "{{\"mcp_replay\":1,\"timeout_ms\":250,\"protocol\":\"2025-11-25\"}}\n{SEED_CANONICAL}"
        );
        let f = Fixture::parse(&text).unwrap();
        assert_eq!(f.header().timeout, Some(Duration::from_millis(250)));
        assert_eq!(f.header().protocol.as_deref(), Some("2025-11-25"));
        assert_eq!(
            f.to_jsonl(),
            text.replace(
                r#"{"mcp_replay":1,"timeout_ms":250,"protocol":"2025-11-25"}"#,
                r#"{"mcp_replay":1,"protocol":"2025-11-25","timeout_ms":250}"#
            )
        );
        assert!(parse_err(r#"{"mcp_replay":2}"#).contains("unsupported fixture format version 2"));
        assert!(
            parse_err(r#"{"mcp_replay":1,"speed":1}"#).contains("valid keys: mcp_replay, protocol")
        );
        assert!(parse_err(r#"{"mcp_replay":1,"accept":["nice"]}"#)
            .contains("\"accept\" must be a list of contract classes"));
        assert!(parse_err(r#"{"mcp_replay":1,"strict_order":"yes"}"#)
            .contains("\"strict_order\" must be true or false"));
        assert!(parse_err(r#"{"mcp_replay":1,"pace_ms":-1}"#).contains("\"pace_ms\" must be"));
        let paced = Fixture::parse(concat!(
            r#"{"mcp_replay":1,"pace_ms":0,"strict_order":true}"#,
            "\n"
        ))
        .unwrap();
        assert_eq!(paced.header().pace, Some(Duration::ZERO));
        assert!(paced.header().strict_order);
        assert_eq!(Fixture::parse("").unwrap().header().pace, None);
        assert!(
            parse_err(&format!("{SEED}{{\"mcp_replay\":1}}")).contains("only be the first line")
        );
    }

    #[test]
    fn type_the_header_and_take_times_as_people_type_them() {
        let f = Fixture::parse(concat!(
            r#"{"mcp_replay":1,"timeout":"1.5s","rules":1,"unordered":["notifications/message"],"#,
            r#""allow_secrets":[{"rule":"jwt"}],"description":"d"}"#,
            "\n"
        ))
        .unwrap();
        let h = f.header();
        assert_eq!(h.timeout, Some(Duration::from_millis(1500)));
        assert_eq!(h.rules_version, Some(1));
        assert_eq!(h.unordered, ["notifications/message"]);
        assert_eq!(h.allow_secrets[0].rule, "jwt");
        assert_eq!(h.allow_secrets[0].path, None);
        assert_eq!(h.description.as_deref(), Some("d"));
        assert_eq!(Fixture::parse("").unwrap().header(), &Header::default());
        assert_eq!(
            Fixture::parse("{\"mcp_replay\":1,\"timeout\":700}\n")
                .unwrap()
                .header()
                .timeout,
            Some(Duration::from_millis(700))
        );
        for bad in [
            r#""timeout":"soon""#,
            r#""timeout":"0s""#,
            r#""timeout":true"#,
        ] {
            let e = parse_err(&format!("{{\"mcp_replay\":1,{bad}}}"));
            assert!(
                e.contains("\"timeout\" must be a positive time such as \"700ms\""),
                "{e}"
            );
        }
        assert!(parse_err(r#"{"mcp_replay":1,"timeout_ms":"2s"}"#)
            .contains("\"timeout_ms\" must be a positive integer"));
        assert!(
            parse_err(r#"{"mcp_replay":1,"timeout_ms":5,"timeout":"2s"}"#).contains("not both")
        );
    }

    #[test]
    fn read_the_switches_of_how_a_session_ends() {
        let f = Fixture::parse(concat!(
            r#"{"mcp_replay":1,"strict_exit":true,"allow_stray_output":true}"#,
            "\n"
        ))
        .unwrap();
        assert!(f.header().strict_exit && f.header().allow_stray_output);
        assert!(parse_err(r#"{"mcp_replay":1,"strict_exit":"yes"}"#)
            .contains("\"strict_exit\" must be true or false"));
    }

    #[test]
    fn add_a_header_line_that_is_written_and_moves_the_messages_down() {
        let f = Fixture::parse(SEED).unwrap();
        assert_eq!(f.entries()[0].line(), 1);
        let f = f
            .with_header_key("allow_stray_output", Value::Bool(true))
            .unwrap();
        assert!(f.header().allow_stray_output);
        assert_eq!(f.entries()[0].line(), 2);
        let text = f.to_jsonl();
        assert!(text.starts_with("{\"mcp_replay\":1,\"allow_stray_output\":true}\n"));
        assert_eq!(Fixture::parse(&text).unwrap().entries()[0].line(), 2);
        // A second key keeps the lines where they are, and a bad value is refused.
        let f = f.with_header_key("strict_exit", Value::Bool(true)).unwrap();
        assert_eq!(f.entries()[0].line(), 2);
        let e = f
            .with_header_key("strict_exit", Value::from(1))
            .unwrap_err();
        assert!(e.to_string().contains("must be true or false"), "{e}");
    }

    #[test]
    fn accept_crlf_and_blank_lines() {
        let f = Fixture::parse(&SEED.replace('\n', "\r\n\r\n")).unwrap();
        assert_eq!(f.entries()[1].line(), 3);
    }

    #[test]
    fn load_a_file_line_by_line_like_parse_and_name_the_line_of_bad_bytes() {
        let dir = std::env::temp_dir().join(format!("mcp-replay-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("seed.jsonl");
        let text = SEED.replace('\n', "\r\n\r\n");
        std::fs::write(&path, &text).unwrap();
        let loaded = Fixture::load(&path).unwrap();
        assert_eq!(loaded.entries(), Fixture::parse(&text).unwrap().entries());
        assert_eq!(loaded.to_jsonl(), Fixture::parse(SEED).unwrap().to_jsonl());

        let mut bytes = SEED.as_bytes().to_vec();
        bytes.extend_from_slice(b"{\"direction\":\"client->server\",\"message\":\"\xff\"}\n");
        std::fs::write(&path, bytes).unwrap();
        let err = Fixture::load(&path).unwrap_err().to_string();
        assert!(err.contains("seed.jsonl (line 3)"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn keep_each_message_as_canonical_text() {
        let f = Fixture::parse(SEED).unwrap();
        let first = &f.entries()[0];
        assert_eq!(
            first.text(),
            crate::json::compact(&first.message(), usize::MAX)
        );
        assert_eq!(first.method(), Some("tools/call"));
        assert_eq!(first.id(), Some(&Value::from(REQUEST_ID)));
    }

    /// A tools/call with a progress token, two progress notifications and the result,
    /// under a header marking `marks`.
    fn resumable(marks: &str) -> String {
        format!(
            "{{\"mcp_replay\":1,\"http_resume\":{marks}}}\n{}\n{}\n{}\n{}\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"slow"}}}"#,
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>"}}}"#,
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2,"progressToken":"<PROGRESS_TOKEN>"}}}"#,
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{}}}"#,
        )
    }

    #[test]
    fn read_http_resume_as_drop_points() {
        let fixture = Fixture::parse(&resumable("[3, 4]")).unwrap();
        assert_eq!(fixture.header().http_resume, [3, 4]);
        assert_eq!(
            fixture.resume_points().unwrap(),
            [
                ResumePoint {
                    line: 3,
                    request: 0,
                    progress: 1
                },
                ResumePoint {
                    line: 4,
                    request: 0,
                    progress: 2
                },
            ]
        );
    }

    #[test]
    fn refuse_a_drop_point_that_is_not_a_progress_notification_of_a_pending_request() {
        let because = |marks: &str| parse_err(&resumable(marks));
        assert!(because("[2]").starts_with(
            "<string>:2:1: \"http_resume\" marks this line, but it is a client message: a drop \
             point must be a progress notification"
        ), "{}", because("[2]"));
        assert!(because("[5]").contains(
            ":5:1: \"http_resume\" marks this line, but it is not a progress notification"
        ));
        assert!(because("[9]")
            .contains(":9:1: \"http_resume\" marks this line, but it holds no message"));
        assert!(because("[1]")
            .contains(":1:1: \"http_resume\" marks this line, but it holds no message"));
        // A progress notification after its request's response is not inside the answer.
        let late = resumable("[6]")
            + r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":3,"progressToken":"<PROGRESS_TOKEN>"}}}"#;
        let err = parse_err(&late);
        assert!(err.contains(":6:1: \"http_resume\" marks this line, but no request before it with this progress token is still waiting for its response"), "{err}");
        for bad in ["9", "[0]", "[\"9\"]"] {
            let err = parse_err(&resumable(bad));
            assert!(
                err.contains("\"http_resume\" must be a list of fixture line numbers"),
                "{err}"
            );
        }
    }

    #[test]
    fn keep_http_resume_on_the_same_message_when_re_recorded() {
        let template = Fixture::parse(&resumable("[4]")).unwrap();
        let log = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}});
        let messages: Vec<(Direction, Value)> = template
            .entries()
            .iter()
            .map(|e| (e.direction(), e.message()))
            .collect();
        // The server now logs before its progress: the second progress moves to line 5.
        let mut recorded = messages.clone();
        recorded.insert(1, (Direction::ServerToClient, log));
        let fixture = template.with_messages(recorded).unwrap();
        assert_eq!(fixture.header().http_resume, [5]);
        let text = fixture.to_jsonl();
        assert!(
            text.starts_with("{\"mcp_replay\":1,\"http_resume\":[5]}\n"),
            "{text}"
        );
        let reread = Fixture::parse(&text).unwrap();
        assert_eq!(reread.resume_points().unwrap()[0].progress, 2);
    }
}
