//! `mcp-replay record`: a transparent stdio proxy that writes the session as a fixture.

use crate::cli::RecordArgs;
use crate::Fatal;
use mcp_replay::fixture::{Direction, MessageKind};
use mcp_replay::process::{stop, Stopped, STOP_GRACE};
use mcp_replay::record::{fixture_from_exchange, StrayLines, ALLOW_STRAY_OUTPUT};
use mcp_replay::update::{write_fixture, UpdateMode};
use serde_json::Value;
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Every complete line that crossed the proxy, in arrival order, both directions, with the
/// time it crossed since the session began.
pub(crate) type Capture = Arc<Mutex<Vec<(Direction, Vec<u8>, Duration)>>>;

pub(crate) async fn record(args: RecordArgs) -> Result<ExitCode, Fatal> {
    if let (Some(listen), Some(upstream)) = (args.listen, &args.upstream) {
        return crate::proxy::record_http(&args, listen, upstream.clone()).await;
    }
    if args.server.is_empty() {
        return Err(Fatal(
            "record needs a server: `-- SERVER COMMAND` to proxy one on stdio, or \
             --listen ADDR --upstream URL to proxy one over Streamable HTTP"
                .into(),
        ));
    }
    let folder = args.output.parent().unwrap_or(Path::new("."));
    let rules = args.rules.resolve(None, folder)?;
    let mut command = args.server.command();
    let program = args.server.line();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Fatal(format!("could not start the server `{program}`: {e}")))?;
    let capture: Capture = Arc::default();
    let start = Instant::now();
    let to_server = child.stdin.take().expect("stdin is piped");
    let from_server = child.stdout.take().expect("stdout is piped");
    let client_to_server = tokio::spawn(pump(
        tokio::io::stdin(),
        to_server,
        (capture.clone(), start),
        Direction::ClientToServer,
    ));
    let server_to_client = tokio::spawn(pump(
        from_server,
        tokio::io::stdout(),
        (capture.clone(), start),
        Direction::ServerToClient,
    ));

    let mut client_to_server = client_to_server;
    let ended = wait_forwarding_signals(&mut child, &mut client_to_server).await;
    // A server that exited by itself leaves our stdin unread: nothing more goes to it.
    client_to_server.abort();
    let (status, how) = ended?;
    // The server's output is complete once it was reaped, unless a process it started
    // holds the pipe: then a moment more, not a hang.
    let mut server_to_client = server_to_client;
    if tokio::time::timeout(Duration::from_millis(500), &mut server_to_client)
        .await
        .is_err()
    {
        server_to_client.abort();
    }
    let saved = write_capture(&capture, &args, &rules);
    Ok(match how.describe(STOP_GRACE) {
        // Its status is the signal's: the recording is whole, and how it stopped is a note.
        Some(note) => {
            eprintln!(
                "mcp-replay record: note: {note} (a replay notes it too; `replay --strict-exit` fails it)"
            );
            match saved {
                Ok(()) => ExitCode::SUCCESS,
                Err(unsaved) => ExitCode::from(unsaved.exit_code()),
            }
        }
        None => exit_like(status, saved),
    })
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
    /// The command's exit status for it (docs/cli.md, "Exit status").
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Unsaved::Nothing(_) | Unsaved::Stray(_) => 1,
            Unsaved::Error(_) => 2,
        }
    }
}

/// Writes what the capture holds as the fixture (and the raw capture and timing file when
/// asked), saying on stderr what went wrong. Whether all went well: the fixture written,
/// and no line from the server that is not a JSON-RPC message (unless
/// `--allow-stray-output`: then the fixture's header allows them, and its replay too).
pub(crate) fn write_capture(
    capture: &Capture,
    args: &RecordArgs,
    rules: &mcp_replay::Rules,
) -> Result<(), Unsaved> {
    let lines = std::mem::take(&mut *capture.lock().unwrap_or_else(|e| e.into_inner()));
    let output = args.output.display().to_string();
    let raw = args.raw.as_ref().map(|p| p.display().to_string());
    let allow = args.stray.allow_stray_output;
    let saved = save(&lines, &output, raw.as_deref(), rules, allow).and_then(|saved| {
        if let Some(timing) = &args.timing {
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

/// Copies bytes unchanged, flushing each read, and tees complete lines into the capture.
async fn pump<R, W>(
    mut from: R,
    mut to: W,
    (capture, start): (Capture, Instant),
    direction: Direction,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf = vec![0u8; 64 * 1024];
    let mut line = Vec::new();
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        // Capture before forwarding: the peer can only react to a line after it got it, so
        // the capture's order is the causal order of the session.
        let mut rest = &buf[..n];
        while let Some(end) = rest.iter().position(|b| *b == b'\n') {
            line.extend_from_slice(&rest[..end]);
            capture.lock().unwrap_or_else(|e| e.into_inner()).push((
                direction,
                std::mem::take(&mut line),
                start.elapsed(),
            ));
            rest = &rest[end + 1..];
        }
        line.extend_from_slice(rest);
        if to.write_all(&buf[..n]).await.is_err() || to.flush().await.is_err() {
            break;
        }
    }
    if !line.is_empty() {
        // A message cut off mid-line (the peer went away): kept, reported when saving.
        capture
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((direction, line, start.elapsed()));
    }
    // Closing the server's stdin when the client's side ended is what ends the server.
    let _ = to.shutdown().await;
}

/// Waits for the server while it runs, forwarding SIGINT, SIGTERM and SIGHUP to it; once
/// the client closed the proxy's stdin (`client_done`: the server's stdin is closed then
/// too), MCP's stdio shutdown ([`stop`]). Its exit status, and how it ended.
#[cfg(unix)]
async fn wait_forwarding_signals(
    child: &mut tokio::process::Child,
    client_done: &mut tokio::task::JoinHandle<()>,
) -> Result<(std::process::ExitStatus, Stopped), Fatal> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    let pid = child.id().map(|p| p as libc::pid_t);
    loop {
        let forward = tokio::select! {
            status = child.wait() => return Ok((status?, Stopped::Exited)),
            _ = &mut *client_done => break,
            _ = interrupt.recv() => libc::SIGINT,
            _ = terminate.recv() => libc::SIGTERM,
            _ = hangup.recv() => libc::SIGHUP,
        };
        if let Some(pid) = pid {
            // SAFETY: sending a signal to our own child process id.
            unsafe {
                libc::kill(pid, forward);
            }
        }
    }
    Ok(stop(child, STOP_GRACE).await?)
}

#[cfg(not(unix))]
async fn wait_forwarding_signals(
    child: &mut tokio::process::Child,
    client_done: &mut tokio::task::JoinHandle<()>,
) -> Result<(std::process::ExitStatus, Stopped), Fatal> {
    tokio::select! {
        status = child.wait() => return Ok((status?, Stopped::Exited)),
        _ = client_done => {}
    }
    Ok(stop(child, STOP_GRACE).await?)
}

/// The server's exit status as ours (the client that launched the proxy sees what the
/// server's would have been); a server killed by a signal makes us end by the same signal.
/// After a clean exit, a recording that did not go well decides: 1 when there was nothing
/// to record or the server wrote stray lines on stdout, 2 when it could not be written (a
/// secret, an I/O error).
fn exit_like(status: std::process::ExitStatus, saved: Result<(), Unsaved>) -> ExitCode {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            // SAFETY: restoring the default action and raising the signal at ourselves.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
            return ExitCode::from(128u8.saturating_add(signal as u8));
        }
    }
    match (status.code(), saved) {
        (Some(0), Err(unsaved)) => ExitCode::from(unsaved.exit_code()),
        (Some(code), _) => ExitCode::from(code.clamp(0, 255) as u8),
        (None, _) => ExitCode::from(1),
    }
}

/// What [`save`] wrote: the fixture line of each message with its time, and the lines
/// from the server that are not JSON-RPC messages (left out).
struct Saved {
    times: Vec<(usize, Duration)>,
    stray: StrayLines,
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
    let mut messages = Vec::new();
    let mut times = Vec::new();
    let mut stray = StrayLines::default();
    for (i, (direction, bytes, time)) in lines.iter().enumerate() {
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
    if let Some(raw) = raw {
        write_raw(raw, &messages)
            .map_err(|e| Unsaved::Error(format!("writing the raw capture {raw}: {e}")))?;
        eprintln!(
            "mcp-replay record: {raw} holds the UNREDACTED capture (tokens, paths, personal data): keep it private and never commit it"
        );
    }
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
    write_fixture(&fixture, Path::new(output), UpdateMode::Always).map_err(unsaved)?;
    eprintln!(
        "mcp-replay record: wrote {output} ({} messages)",
        fixture.entries().len()
    );
    let times = fixture
        .entries()
        .iter()
        .map(|e| e.line())
        .zip(times)
        .collect();
    Ok(Saved { times, stray })
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
