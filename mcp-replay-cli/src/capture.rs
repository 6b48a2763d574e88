//! A recording's capture (every line that crossed the proxy, with its time) and how it is
//! written: the normalized, secret-checked fixture, and with `record --raw` and
//! `--timing` the raw capture and the time of each message. The stdio proxy (`record`)
//! and the Streamable HTTP one (`record --listen`, [`crate::proxy`]) fill it alike.

use crate::error::{Error, Kind, Outcome};
use mcp_replay::_support::record::{fixture_from_exchange, StrayLines, ALLOW_STRAY_OUTPUT};
use mcp_replay::_support::update::{write_fixture, UpdateMode};
use mcp_replay::fixture::{Direction, MessageKind};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Every complete line that crossed the proxy, in arrival order, both directions, with the
/// time it crossed since the session began.
pub(crate) type Capture = Arc<Mutex<Vec<(Direction, Vec<u8>, Duration)>>>;

/// Where a recording goes: `record`'s `-o`, `--raw`, `--timing` and
/// `--allow-stray-output`.
pub(crate) struct Outputs<'a> {
    /// The fixture.
    pub fixture: &'a Path,
    /// The unredacted capture, owner-only.
    pub raw: Option<&'a Path>,
    /// When each message crossed.
    pub timing: Option<&'a Path>,
    /// Whether the server may write lines that are not JSON-RPC messages (the fixture's
    /// header then says so).
    pub allow_stray: bool,
}

/// Why a recording did not go as it should (its message is already on stderr).
pub(crate) enum Unsaved {
    /// No JSON-RPC message crossed the proxy: the session had nothing to record (a
    /// finding, exit status 1).
    Nothing(String),
    /// The fixture was written, without the lines the server wrote on stdout that are
    /// not JSON-RPC messages: a finding (exit status 1), unless `--allow-stray-output`.
    Stray(String),
    /// The fixture (or the raw capture, or the timing file) could not be written: it
    /// would hold a secret, or an I/O error (exit status 2, as for any refused output).
    Error(String),
}

impl Unsaved {
    /// How the recording ended (its message is already on stderr): nothing to record or
    /// stray lines are findings, a fixture that could not be written an output error.
    pub(crate) fn ended(self) -> Result<Outcome, Error> {
        match self {
            Unsaved::Nothing(_) | Unsaved::Stray(_) => Ok(Outcome::Findings),
            Unsaved::Error(_) => Err(Error::said(Kind::Output)),
        }
    }
}

/// Writes what the capture holds as the fixture (and the raw capture and timing file when
/// asked), saying on stderr what went wrong. Whether all went well: the fixture written,
/// and no line from the server that is not a JSON-RPC message (unless
/// `--allow-stray-output`: then the fixture's header allows them, and its replay too).
/// The recording replayed again against fresh servers (each from `target`: a new child
/// process, a new session at a URL), as often as [`mcp_replay::_support::settle`] needs to
/// find a per-run order or value with its certainty, and what those runs gave otherwise
/// bound or sorted, said on stderr as `who`'s note; the recording as it is when the runs
/// could not tell.
pub(crate) async fn settled<'a>(
    fixture: mcp_replay::Fixture,
    target: impl FnMut() -> mcp_replay::harness::Target<'a> + Send + 'a,
    rules: &mcp_replay::Rules,
    timeout: Option<std::time::Duration>,
    who: &str,
) -> mcp_replay::Fixture {
    let (settled, note) = settled_quietly(fixture, target, rules, timeout).await;
    if let Some(note) = note {
        eprintln!("mcp-replay {who}: note: {note}");
    }
    settled
}

/// [`settled`], its note returned instead of said.
pub(crate) async fn settled_quietly<'a>(
    fixture: mcp_replay::Fixture,
    mut target: impl FnMut() -> mcp_replay::harness::Target<'a> + Send + 'a,
    rules: &mcp_replay::Rules,
    timeout: Option<std::time::Duration>,
) -> (mcp_replay::Fixture, Option<String>) {
    let mut options = mcp_replay::Options::new();
    if let Some(timeout) = timeout {
        options = options.timeout(timeout);
    }
    let mut again = move || Some(target());
    match mcp_replay::_support::settle(&fixture, &mut again, rules, &options).await {
        Ok((settled, note)) => (settled, note),
        Err(why) => (fixture, Some(why.to_string())),
    }
}

pub(crate) fn write_capture(
    capture: &Capture,
    outputs: &Outputs,
    rules: &mcp_replay::Rules,
) -> Result<(), Unsaved> {
    let lines = std::mem::take(&mut *capture.lock().unwrap_or_else(|e| e.into_inner()));
    let output = outputs.fixture.display().to_string();
    let raw = outputs.raw.map(|p| p.display().to_string());
    let allow = outputs.allow_stray;
    let saved = save(&lines, &output, raw.as_deref(), rules, allow).and_then(|saved| {
        if let Some(timing) = outputs.timing {
            write_timing(&timing.display().to_string(), &saved.times).map_err(Unsaved::Error)?;
        }
        Ok(saved.stray)
    });
    let stray = match saved {
        Err(unsaved) => {
            let (Unsaved::Nothing(message) | Unsaved::Stray(message) | Unsaved::Error(message)) =
                &unsaved;
            eprintln!("mcp-replay record: {message}");
            return Err(unsaved);
        }
        Ok(stray) => stray,
    };
    let Some(description) = stray.describe("the server", "stdout") else {
        return Ok(());
    };
    if allow {
        eprintln!(
            "mcp-replay record: note: {description} (left out; allowed: the fixture's header says \"{ALLOW_STRAY_OUTPUT}\": true)"
        );
        return Ok(());
    }
    let message = format!(
        "{description}: MCP's stdio transport carries only JSON-RPC \
         messages on stdout, and a replay of {output} fails on them the same way; they are \
         left out of it. Fix the server, or record with --allow-stray-output (the fixture's \
         header then says \"{ALLOW_STRAY_OUTPUT}\": true); exit status 1"
    );
    eprintln!("mcp-replay record: {message}");
    Err(Unsaved::Stray(message))
}

/// What [`save`] wrote: the fixture line of each message with its time, and the lines
/// from the server that are not JSON-RPC messages (left out).
struct Saved {
    times: Vec<(usize, Duration)>,
    stray: StrayLines,
}

/// The capture read into messages: each JSON-RPC message with its direction and time, the
/// server's lines that are not messages, and the client's acts that are no message (the
/// end of its input, a stream it dropped).
struct Captured {
    messages: Vec<(Direction, Value)>,
    times: Vec<Duration>,
    stray: StrayLines,
    /// After how many messages the client closed its input, if it sent nothing after.
    closed_after: Option<usize>,
    /// Over HTTP, the streams the client dropped: (after how many messages, its request's
    /// id, when).
    dropped: Vec<(usize, Value, Duration)>,
}

/// Reads the capture's `lines` ([`Captured`]).
fn read_capture(lines: &[(Direction, Vec<u8>, Duration)]) -> Captured {
    let mut messages = Vec::new();
    let mut times = Vec::new();
    let mut stray = StrayLines::default();
    // After how many messages the client closed its input (an empty client line: stdin's
    // end, or over HTTP a stream it dropped), if it sent nothing after that.
    let mut closed_after = None;
    // Over HTTP, the streams the client dropped: (after how many messages, its request's id).
    let mut dropped = Vec::new();
    for (i, (direction, bytes, time)) in lines.iter().enumerate() {
        if *direction == Direction::ClientToServer {
            match bytes.first() {
                // stdio: the end of the client's input.
                None => {
                    closed_after = Some(messages.len());
                    continue;
                }
                // HTTP: a stream the client dropped. Only one of a request still without
                // its answer, the first time, is an act of the client's: not the end of a
                // stream whose answer passed (the client went when it had it), nor one of
                // no request.
                Some(&DROPPED) => {
                    let id = bytes
                        .get(1..)
                        .and_then(|id| serde_json::from_slice(id).ok());
                    if let Some(id) = id.filter(|id| left_open(&messages, &dropped, id)) {
                        closed_after = Some(messages.len());
                        dropped.push((messages.len(), id, *time));
                    }
                    continue;
                }
                Some(_) => closed_after = None,
            }
        }
        let text = String::from_utf8_lossy(bytes);
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(v) if MessageKind::of(&v).is_ok() => {
                messages.push((*direction, v));
                times.push(*time);
            }
            _ if *direction == Direction::ServerToClient => stray.push(bytes),
            _ => eprintln!(
                "mcp-replay record: left out line {} ({direction}): not a JSON-RPC message (a cut-off or log line)",
                i + 1
            ),
        }
    }
    Captured {
        messages,
        times,
        stray,
        closed_after,
        dropped,
    }
}

/// Normalizes the capture and writes the fixture (refusing it if a secret remains); with
/// `raw`, also writes the unredacted capture with owner-only permissions; with
/// `allow_stray`, the fixture's header allows lines that are not JSON-RPC messages.
fn save(
    lines: &[(Direction, Vec<u8>, Duration)],
    output: &str,
    raw: Option<&str>,
    rules: &mcp_replay::Rules,
    allow_stray: bool,
) -> Result<Saved, Unsaved> {
    let Captured {
        mut messages,
        mut times,
        stray,
        closed_after,
        dropped,
    } = read_capture(lines);
    if let Some(raw) = raw {
        write_raw(raw, &messages)
            .map_err(|e| Unsaved::Error(format!("writing the raw capture {raw}: {e}")))?;
        eprintln!(
            "mcp-replay record: {raw} holds the UNREDACTED capture (tokens, paths, personal data): keep it private and never commit it"
        );
    }
    cancel_dropped(&mut messages, &mut times, dropped);
    if messages.is_empty() {
        return Err(Unsaved::Nothing(format!(
            "nothing to record: no JSON-RPC message crossed the proxy, {output} not written"
        )));
    }
    let unsaved = |e: mcp_replay::Error| Unsaved::Error(e.to_string());
    let mut fixture = fixture_from_exchange(messages, rules, output).map_err(unsaved)?;
    if allow_stray {
        fixture = fixture
            .with_header_key(ALLOW_STRAY_OUTPUT, Value::Bool(true))
            .map_err(unsaved)?;
    }
    // The server sent more once the client had closed its input: the replay closes the
    // server's there too (a `subscriptions/listen` its client left, answered then).
    if let Some(n) = closed_after
        .filter(|&n| n > 0 && (n < fixture.entries().len() || has_unanswered_request(&fixture)))
    {
        fixture = fixture
            .with_header_key("closes_input_after", Value::from(n))
            .map_err(unsaved)?;
    }
    write_fixture(&fixture, Path::new(output), UpdateMode::Always).map_err(unsaved)?;
    eprintln!(
        "mcp-replay record: wrote {output} ({} messages)",
        fixture.entries().len()
    );
    warn_protocol("record", &fixture, output);
    let times = fixture
        .entries()
        .iter()
        .map(|e| e.line())
        .zip(times)
        .collect();
    Ok(Saved { times, stray })
}

/// Does a client request of `fixture` have no response line (the client left first)?
fn has_unanswered_request(fixture: &mcp_replay::Fixture) -> bool {
    let entries = fixture.entries();
    entries.iter().enumerate().any(|(i, e)| {
        e.direction() == Direction::ClientToServer
            && e.kind() == MessageKind::Request
            && !entries.iter().any(|r| r.answers() == Some(i))
    })
}

/// `record --timing FILE`: when each message of the fixture crossed the proxy, one
/// `{"line": N, "ms": T}` a line (milliseconds since the session began). A file of its
/// own, so that the fixture stays the same bytes from one recording to the next;
/// `serve --timing recorded` plays it back.
fn write_timing(path: &str, times: &[(usize, Duration)]) -> Result<(), String> {
    let mut text = String::new();
    for (line, time) in times {
        let ms = (time.as_secs_f64() * 10_000.0).round() / 10.0;
        text.push_str(&serde_json::json!({"line": line, "ms": ms}).to_string());
        text.push('\n');
    }
    let temp = format!("{path}.tmp");
    std::fs::write(&temp, text)
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| format!("writing the timing file {path}: {e}"))?;
    eprintln!("mcp-replay record: wrote {path} (the time of each message)");
    Ok(())
}

fn write_raw(path: &str, messages: &[(Direction, Value)]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    if let Some(dir) = Path::new(path)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    for (direction, message) in messages {
        writeln!(
            file,
            "{}",
            serde_json::json!({"direction": direction.as_str(), "message": message})
        )?;
    }
    file.sync_all()
}

/// Says what the server sent that is not valid MCP (`mcp_replay::_support::validate`), as written
/// into `output`: the recording keeps it, and a replay fails on it unless the fixture's
/// header says `"protocol_check": "warn"`.
pub(crate) fn warn_protocol(command: &str, fixture: &mcp_replay::Fixture, output: &str) {
    let violations = mcp_replay::_support::validate::fixture(fixture);
    for (line, violation) in &violations {
        eprintln!("mcp-replay {command}: warning: {output}:{line}: protocol: {violation}");
    }
    if !violations.is_empty() {
        let n = violations.len();
        let (s, is, them) = if n == 1 {
            ("", "is", "it")
        } else {
            ("s", "are", "them")
        };
        let consequence = if command == "serve" {
            format!("served as recorded, {them} may mislead the client under test")
        } else {
            format!(
                "a replay fails on {them} (a protocol finding) until the server is fixed, or \
                 the fixture's header says \"protocol_check\": \"warn\""
            )
        };
        eprintln!(
            "mcp-replay {command}: {n} server message{s} {is} not valid MCP: {consequence} \
             (docs/protocol.md, \"Protocol validity\")"
        );
    }
}

/// Whether the stream of request `id`, dropped by the client, left that request open: no
/// answer to it among `messages` yet, and not dropped before.
fn left_open(
    messages: &[(Direction, Value)],
    dropped: &[(usize, Value, Duration)],
    id: &Value,
) -> bool {
    let answered = messages.iter().any(|(d, m)| {
        *d == Direction::ServerToClient && m.get("method").is_none() && m.get("id") == Some(id)
    });
    !answered && !dropped.iter().any(|(_, d, _)| d == id)
}

/// The first byte of the client line the HTTP proxy captures where the client dropped the
/// SSE stream of a request's answer before the server ended it; the request's id follows.
pub(crate) const DROPPED: u8 = 0;

/// From 2026-07-28 on, a client that closes the SSE stream of a request it has no answer to
/// cancels that request (the specification's cancellation over Streamable HTTP; over stdio
/// the same act is a `notifications/cancelled`). Where it then went on sending, the
/// fixture holds that act in its transport-neutral form, the `notifications/cancelled` a
/// stdio client sends: a replay over stdio sends it, one over HTTP closes the stream
/// instead, and the mock over HTTP takes the closed stream for it. A stream dropped last
/// is the client closing its input (`closes_input_after`), left as it is.
fn cancel_dropped(
    messages: &mut Vec<(Direction, Value)>,
    times: &mut Vec<Duration>,
    dropped: Vec<(usize, Value, Duration)>,
) {
    for (at, id, time) in dropped.into_iter().rev() {
        let client_after = messages[at..]
            .iter()
            .any(|(d, _)| *d == Direction::ClientToServer);
        let request = messages[..at].iter().rev().find(|(d, m)| {
            *d == Direction::ClientToServer && m.get("method").is_some() && m.get("id") == Some(&id)
        });
        let stateless = request.is_some_and(|(_, m)| {
            mcp_replay::_support::protocol::request_version(m)
                .is_some_and(|v| mcp_replay::_support::protocol::Era::of_version(v).is_stateless())
        });
        let answered = messages[..at].iter().any(|(d, m)| {
            *d == Direction::ServerToClient && m.get("method").is_none() && m.get("id") == Some(&id)
        });
        if client_after && stateless && !answered {
            let cancel = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id}});
            messages.insert(at, (Direction::ClientToServer, cancel));
            times.insert(at, time);
        }
    }
}
