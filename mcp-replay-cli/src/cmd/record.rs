//! `mcp-replay record`: a transparent stdio proxy that writes the session as a fixture
//! (`--listen ADDR --upstream URL`: the Streamable HTTP one, [`crate::proxy`]).

use crate::args::{positive_time, RulesArg, ServerArg, StrayArg};
use crate::capture::{write_capture, Capture, Outputs, Unsaved};
use crate::error::{Error, Outcome};
use mcp_replay::fixture::Direction;
use mcp_replay::process::{stop, Stopped, STOP_GRACE};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// `mcp-replay record`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Where to write the fixture
    #[arg(short, long, value_name = "FIXTURE")]
    pub output: PathBuf,
    /// Also keep the unredacted capture, owner-only (0600); never commit it
    #[arg(long, value_name = "FILE")]
    pub raw: Option<PathBuf>,
    /// Also write when each message crossed (ms since the start), for `serve --timing
    /// recorded`; name it like FIXTURE with .timing.jsonl in place of .jsonl and serve finds
    /// it
    #[arg(long, value_name = "FILE")]
    pub timing: Option<PathBuf>,
    /// Record over Streamable HTTP: listen here (e.g. 127.0.0.1:8080; port 0 picks one)
    /// for the client, and forward to --upstream
    #[arg(long, value_name = "ADDR", requires = "upstream")]
    pub listen: Option<std::net::SocketAddr>,
    /// The server's Streamable HTTP URL the proxy forwards to; with `-- SERVER` too, start
    /// it first and wait until the URL answers
    #[arg(long, value_name = "URL", requires = "listen", value_parser = crate::net::parse_url)]
    pub upstream: Option<http::Uri>,
    /// Over HTTP: also end the recording once the client has had no connection open for
    /// TIME (a client that goes without a DELETE, as the TypeScript SDK's close() does)
    /// [default: only on its DELETE, Ctrl-C or SIGTERM]
    #[arg(long, value_name = "TIME", requires = "listen", value_parser = positive_time)]
    pub idle: Option<Duration>,
    /// Over HTTP: how many client sessions to record, at once or one after another, each
    /// to its own fixture (the first to -o, the Kth beside it as NAME-K.jsonl), written as it
    /// ends; `unlimited` records until Ctrl-C, SIGTERM or --idle
    #[arg(long, value_name = "N|unlimited", requires = "listen", default_value = "1", value_parser = crate::args::parse_limit)]
    pub sessions: crate::args::Limit,
    #[command(flatten)]
    pub headers: crate::args::HeaderArgs,
    #[command(flatten)]
    pub stray: StrayArg,
    #[command(flatten)]
    pub rules: RulesArg,
    #[command(flatten)]
    pub server: ServerArg,
}

/// The examples and exit statuses of `mcp-replay record --help`.
pub(crate) const AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  mcp-replay record -o fixtures/echo.jsonl -- node server.js\n",
    "  (configure the client under test to launch this command as its server)\n",
    "\n",
    "Exit status: the server's own when it failed (the client sees what it would have);\n",
    "after a clean exit 0 when the fixture was written, 1 when nothing crossed the proxy,\n",
    "2 when it could not be written (it would hold a secret); 2 when the server could not\n",
    "start."
);

/// Where the recording goes, as `--output`, `--raw`, `--timing` and
/// `--allow-stray-output` say.
fn outputs(args: &Args) -> Outputs<'_> {
    Outputs {
        fixture: &args.output,
        raw: args.raw.as_deref(),
        timing: args.timing.as_deref(),
        allow_stray: args.stray.allow_stray_output,
    }
}

/// Proxies the client on stdio to the server after `--` (or, with `--listen`, over
/// Streamable HTTP) until the session ends, then writes the fixture.
pub(crate) async fn run(args: Args) -> Result<Outcome, Error> {
    let folder = args.output.parent().unwrap_or(Path::new("."));
    if let (Some(listen), Some(upstream)) = (args.listen, &args.upstream) {
        let rules = args
            .headers
            .redacted(Some(args.rules.resolve(None, folder)?))?
            .unwrap_or_default();
        let proxy = crate::proxy::Proxying {
            listen,
            upstream: upstream.clone(),
            idle: args.idle,
            sessions: args.sessions,
            server: &args.server,
            headers: args.headers.resolved()?,
        };
        return proxy.record(&outputs(&args), &rules).await;
    }
    if args.server.is_empty() {
        return Err(Error::usage(
            "record needs a server: `-- SERVER COMMAND` to proxy one on stdio, or \
             --listen ADDR --upstream URL to proxy one over Streamable HTTP",
        ));
    }
    let rules = args.rules.resolve(None, folder)?;
    let mut command = args.server.command();
    let program = args.server.line();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Error::server(format!("could not start the server `{program}`: {e}")))?;
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
    let saved = write_capture(&capture, &outputs(&args), &rules);
    if saved.is_ok() {
        settle_written(&args, &rules).await?;
    }
    match how.describe(STOP_GRACE) {
        // Its status is the signal's: the recording is whole, and how it stopped is a note.
        Some(note) => {
            eprintln!(
                "mcp-replay record: note: {note} (a replay notes it too; `replay --strict-exit` fails it)"
            );
            saved.map_or_else(Unsaved::ended, |()| Ok(Outcome::Success))
        }
        None => outcome_of(status, saved),
    }
}

/// The written fixture replayed again against fresh servers, with what those runs gave
/// otherwise pinned ([`crate::capture::settled`]), written again when that changed it.
async fn settle_written(args: &Args, rules: &mcp_replay::Rules) -> Result<(), Error> {
    let Ok(fixture) = mcp_replay::Fixture::load(&args.output) else {
        return Ok(());
    };
    let target = || crate::live::target(None, &args.server, &[]);
    // A client that launched the proxy may stop it once it closed its input (the Python
    // SDK signals the process group 2 s later): then the runs' servers die with it, and
    // what those runs saw says nothing of the server.
    let stopped = signalled();
    let (settled, note) =
        crate::capture::settled_quietly(fixture.clone(), target, rules, None).await;
    if stopped.load(std::sync::atomic::Ordering::SeqCst) {
        eprintln!(
            "mcp-replay record: note: stopped by a signal while the fixture was replayed to \
             find per-run values (a client may stop its server soon after closing its input); \
             the fixture is written as recorded: `mcp-replay replay --update {} -- SERVER` \
             runs that check",
            args.output.display()
        );
        return Ok(());
    }
    if let Some(note) = note {
        eprintln!("mcp-replay record: note: {note}");
    }
    if settled.to_jsonl() != fixture.to_jsonl() {
        mcp_replay::_support::update::write_fixture(
            &settled,
            &args.output,
            mcp_replay::_support::update::UpdateMode::Always,
        )
        .map_err(Error::output)?;
    }
    Ok(())
}

/// A flag that SIGTERM, SIGINT or SIGHUP sets from now on (and no longer ends the process).
#[cfg(unix)]
fn signalled() -> Arc<std::sync::atomic::AtomicBool> {
    use tokio::signal::unix::{signal, SignalKind};
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    for kind in [
        SignalKind::terminate(),
        SignalKind::interrupt(),
        SignalKind::hangup(),
    ] {
        if let Ok(mut stream) = signal(kind) {
            let flag = flag.clone();
            tokio::spawn(async move {
                if stream.recv().await.is_some() {
                    flag.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            });
        }
    }
    flag
}

#[cfg(not(unix))]
fn signalled() -> Arc<std::sync::atomic::AtomicBool> {
    Arc::default()
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
    let mut ended = false;
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) => {
                ended = true;
                break;
            }
            Err(_) => break,
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
    if ended && direction == Direction::ClientToServer {
        // The client closed its input here: an empty line marks it (`capture::save`).
        capture.lock().unwrap_or_else(|e| e.into_inner()).push((
            direction,
            Vec::new(),
            start.elapsed(),
        ));
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
) -> Result<(std::process::ExitStatus, Stopped), Error> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt()).map_err(Error::server)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(Error::server)?;
    let mut hangup = signal(SignalKind::hangup()).map_err(Error::server)?;
    let pid = child.id().map(|p| p as libc::pid_t);
    loop {
        let forward = tokio::select! {
            status = child.wait() => return Ok((status.map_err(Error::server)?, Stopped::Exited)),
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
    stop(child, STOP_GRACE).await.map_err(Error::server)
}

#[cfg(not(unix))]
async fn wait_forwarding_signals(
    child: &mut tokio::process::Child,
    client_done: &mut tokio::task::JoinHandle<()>,
) -> Result<(std::process::ExitStatus, Stopped), Error> {
    tokio::select! {
        status = child.wait() => return Ok((status?, Stopped::Exited)),
        _ = client_done => {}
    }
    stop(child, STOP_GRACE).await.map_err(Error::server)
}

/// How the recording ended when the server exited by itself: as the server did when it
/// failed (the client that launched the proxy sees what the server's status would have
/// been; a server killed by a signal makes the command end by the same signal); after a
/// clean exit, as the recording went: nothing to record or stray lines on stdout are
/// findings, a fixture that could not be written (a secret, an I/O error) an error.
fn outcome_of(
    status: std::process::ExitStatus,
    saved: Result<(), Unsaved>,
) -> Result<Outcome, Error> {
    if !status.success() {
        return Ok(Outcome::ServerFailed(status));
    }
    saved.map_or_else(Unsaved::ended, |()| Ok(Outcome::Success))
}
