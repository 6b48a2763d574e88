//! Serving [the replay's transport](crate::Transport) through a server that runs as a
//! child process over stdio, so `cargo test` can pin a Node, Python or any other server
//! too; and MCP's stdio shutdown (`stop`), which the `mcp-replay` command follows too.
//!
//! Spawning processes (`serve_command`, `stop`, `start_error`) needs the cargo feature
//! `process` (`mcp-replay = { version = "0.1", features = ["process"] }`): it turns on
//! tokio's `process`, which an in-process test does not need, and which would otherwise
//! rebuild tokio and what depends on it for every user's test build.

#[cfg(feature = "process")]
use crate::engine::transport::Transport;
#[cfg(feature = "process")]
use std::io;
#[cfg(feature = "process")]
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
#[cfg(feature = "process")]
use tokio::io::AsyncWriteExt;
#[cfg(feature = "process")]
use tokio::process::{Child, Command};

/// How long a server has to exit once its input closed before it gets SIGTERM, and then
/// again before SIGKILL (`stop`). A replay uses its timeout instead when that is
/// shorter.
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub const STOP_GRACE: Duration = crate::engine::transport::STOP_GRACE;

/// How long the server's output is still read once the server was reaped: a process it
/// started may hold the pipe open.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

/// How a child process ended once its input was closed (`stop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub enum Stopped {
    /// It exited by itself within the grace period, as MCP's stdio shutdown asks.
    Exited,
    /// It was still running after the grace period: SIGTERM stopped it.
    Terminated,
    /// It was still running after SIGTERM and another grace period: SIGKILL stopped it.
    Killed,
}

impl Stopped {
    /// Whether a signal was needed.
    pub fn forced(self) -> bool {
        self != Stopped::Exited
    }

    /// What happened, for a note or a finding (`None` for [`Stopped::Exited`]): `the
    /// server did not exit within 2000 ms after its input closed: stopped with SIGTERM`.
    pub fn describe(self, grace: Duration) -> Option<String> {
        let waited = format!(
            "the server did not exit within {} ms after its input closed",
            grace.as_millis()
        );
        match self {
            Stopped::Exited => None,
            Stopped::Terminated => Some(format!("{waited}: stopped with SIGTERM")),
            Stopped::Killed if cfg!(unix) => Some(format!(
                "{waited}, nor within {} ms after SIGTERM: stopped with SIGKILL",
                grace.as_millis()
            )),
            Stopped::Killed => Some(format!("{waited}: killed")),
        }
    }
}

#[cfg(feature = "process")]
/// MCP's stdio shutdown of a server whose stdin the caller has just closed: waits `grace`
/// for it to exit; then sends SIGTERM and waits `grace` again; then SIGKILL (on other
/// platforms than Unix, a kill straight after the first `grace`). The child is always
/// reaped. The exit status, and how it ended.
///
/// Bounded: it returns within [`stop_bound`]`(grace)`, an error if even SIGKILL did not
/// end the child by then.
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub async fn stop(child: &mut Child, grace: Duration) -> io::Result<(ExitStatus, Stopped)> {
    if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
        return Ok((status?, Stopped::Exited));
    }
    #[cfg(unix)]
    if let Some(pid) = child.id() {
        // SAFETY: signals our own child, which is not reaped yet (so `pid` is still its).
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGTERM);
        }
        if let Ok(status) = tokio::time::timeout(grace, child.wait()).await {
            return Ok((status?, Stopped::Terminated));
        }
    }
    child.start_kill()?;
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(status) => Ok((status?, Stopped::Killed)),
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "the server did not end within {} ms after SIGKILL",
                grace.as_millis()
            ),
        )),
    }
}

/// The longest `stop` takes with `grace`.
pub(crate) fn stop_bound(grace: Duration) -> Duration {
    grace * 3
}

/// The longest [`serve_command`] takes to return once its transport's input closed.
pub(crate) fn serve_bound(grace: Duration) -> Duration {
    stop_bound(grace) + DRAIN_AFTER_EXIT
}

#[cfg(feature = "process")]
/// Where a child server's stderr goes ([`serve_command_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ServerStderr {
    /// Read line by line and written with `eprintln!`, which `cargo test` captures: a
    /// passing test is quiet, a failing one shows the server's lines with its output; the
    /// command's output is the terminal's. The last lines are kept for the report. The
    /// default of [`serve_command`].
    #[default]
    Captured,
    /// The caller's stderr, as the process has it (written straight to the terminal,
    /// around `cargo test`'s capture); no lines are kept.
    Inherit,
    /// Discarded, but the last lines are kept for the report.
    Quiet,
}

#[cfg(feature = "process")]
/// How many of the server's last stderr lines a failure carries, each cut at
/// [`TAIL_LINE`] bytes.
const TAIL_LINES: usize = 20;

#[cfg(feature = "process")]
/// The longest stderr line a failure carries, in bytes.
const TAIL_LINE: usize = 400;

#[cfg(feature = "process")]
/// Starts `command` as the server under test and connects its stdin/stdout to `transport`;
/// its stderr is [`ServerStderr::Captured`] ([`serve_command_with`] chooses another).
/// Returns when the server exits: `Ok` on a zero exit status, otherwise an error that
/// names the status or the signal and holds the last lines the server wrote on stderr
/// (what says why: `error: ISSUES_API_KEY is not set`). A server that could not be
/// started at all is an error holding a [`CouldNotStart`] ([`start_error`] finds it).
///
/// When the harness closes the transport, the server's stdin is closed and the server has
/// [`STOP_GRACE`] (or the replay's timeout, if shorter) to exit, as MCP's stdio shutdown
/// asks; then it gets SIGTERM, and after as long again SIGKILL ([`stop`]). A server that
/// needed a signal is a note in the report, or a finding with the fixture header's
/// `"strict_exit": true`; its exit status is then not a failure. If this future is
/// dropped, the child is killed.
///
/// ```no_run
/// use mcp_replay::process::serve_command;
/// use mcp_replay::{mcp_fixture, Transport};
/// use tokio::process::Command;
/// # // `#[tokio::test]` as `#[tokio::main]`, so that the test function is type-checked.
/// # mod tokio { pub use ::tokio::{main as test, process, runtime}; }
///
/// #[mcp_fixture("everything/echo")]
/// #[tokio::test]
/// async fn everything_echo(transport: Transport) -> std::io::Result<()> {
///     serve_command(transport, Command::new("npx").args(["@modelcontextprotocol/server-everything", "stdio"])).await
/// }
/// ```
pub async fn serve_command(transport: Transport, command: &mut Command) -> io::Result<()> {
    serve_command_with(transport, command, ServerStderr::Captured).await
}

#[cfg(feature = "process")]
/// [`serve_command`] with the server's stderr where `stderr` says.
pub async fn serve_command_with(
    transport: Transport,
    command: &mut Command,
    stderr: ServerStderr,
) -> io::Result<()> {
    let program = format!("{:?}", command.as_std().get_program());
    let stopping = transport.stopping();
    let grace = stopping.grace();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(match stderr {
            ServerStderr::Inherit => Stdio::inherit(),
            ServerStderr::Captured | ServerStderr::Quiet => Stdio::piped(),
        })
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| {
            io::Error::new(
                source.kind(),
                CouldNotStart {
                    program: program.clone(),
                    source,
                },
            )
        })?;
    stopping.set_child();
    let tail = child.stderr.take().map(|from| {
        tokio::spawn(read_stderr(
            from,
            stderr == ServerStderr::Captured,
            stopping.clone(),
        ))
    });
    let ended = serve_child(&mut child, transport, grace).await;
    let tail = match tail {
        Some(task) => match tokio::time::timeout(DRAIN_AFTER_EXIT, task).await {
            Ok(Ok(lines)) => lines,
            _ => Vec::new(),
        },
        None => Vec::new(),
    };
    let (status, how) = ended?;
    if let Some(note) = how.describe(grace) {
        // Its status is the signal's: how it stopped is the news, a note or a finding.
        stopping.set_forced(note);
        return Ok(());
    }
    if status.success() {
        return Ok(());
    }
    let mut message = describe_exit(&program, status);
    if !tail.is_empty() {
        message.push_str(&format!(
            "; its last lines on stderr:\n    {}",
            tail.join("\n    ")
        ));
    }
    Err(io::Error::other(message))
}

#[cfg(feature = "process")]
/// Reads the server's stderr to its end, each line written with `eprintln!` when `echo`;
/// the last [`TAIL_LINES`] lines, each cut at [`TAIL_LINE`] bytes, also kept as they come
/// in `stopping`, for the report of a server that hangs (and is stopped) rather than exits.
async fn read_stderr(
    from: tokio::process::ChildStderr,
    echo: bool,
    stopping: crate::engine::transport::Stopping,
) -> Vec<String> {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(from).split(b'\n');
    let mut tail: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    while let Ok(Some(line)) = lines.next_segment().await {
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches('\r');
        if echo {
            eprintln!("{line}");
        }
        let mut end = line.len().min(TAIL_LINE);
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line[..end].to_owned());
        stopping.stderr_line(line[..end].to_owned(), TAIL_LINES);
    }
    tail.into()
}

#[cfg(feature = "process")]
/// Pipes `transport` to the child's stdin and its stdout back, until it ends by itself
/// or by the stop sequence once the harness closed its side; its output is read all
/// along, and for a moment after it was reaped. Its exit status, and how it ended.
async fn serve_child(
    child: &mut Child,
    transport: Transport,
    grace: Duration,
) -> io::Result<(ExitStatus, Stopped)> {
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let (mut from_harness, mut to_harness) = tokio::io::split(transport);
    let to_server = async {
        let _ = tokio::io::copy(&mut from_harness, &mut stdin).await;
        // The harness is done: closing stdin tells the server to end.
        let _ = stdin.shutdown().await;
        drop(stdin);
    };
    let from_server = async {
        let _ = tokio::io::copy(&mut stdout, &mut to_harness).await;
        let _ = to_harness.shutdown().await;
    };
    // The child ends by itself (before its input closed), or by the stop sequence after.
    let ended = async {
        tokio::select! {
            status = child.wait() => status.map(|status| (status, Stopped::Exited)),
            () = to_server => stop(child, grace).await,
        }
    };
    tokio::pin!(ended, from_server);
    let mut drained = false;
    let ended = loop {
        tokio::select! {
            ended = &mut ended => break ended,
            () = &mut from_server, if !drained => drained = true,
        }
    };
    if !drained {
        let _ = tokio::time::timeout(DRAIN_AFTER_EXIT, &mut from_server).await;
    }
    ended
}

#[cfg(feature = "process")]
/// `the server "node" exited with status 3` or `... was killed by signal 9 (SIGKILL)`.
pub(crate) fn describe_exit(program: &str, status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            return format!("the server {program} was killed by signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("the server {program} exited with status {code}"),
        None => format!("the server {program} ended: {status}"),
    }
}

#[cfg(feature = "process")]
/// Why [`serve_command`] could not start the server (the program was not found, is not
/// executable, ...): inside the `io::Error` it returns, so that a runner can tell a server
/// that never ran from one that ran and failed. Its `Display` is `could not start the
/// server "PROGRAM": ERROR`.
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub struct CouldNotStart {
    program: String,
    source: io::Error,
}

#[cfg(feature = "process")]
/// As its message, quoted: inside an `io::Error`'s `Debug` (what a test returning
/// `io::Result` shows) it reads as the message did before it had a type.
impl std::fmt::Debug for CouldNotStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

#[cfg(feature = "process")]
impl CouldNotStart {
    /// The error of the spawn itself, e.g. `No such file or directory (os error 2)`.
    pub fn spawn_error(&self) -> &io::Error {
        &self.source
    }
}

#[cfg(feature = "process")]
impl std::fmt::Display for CouldNotStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "could not start the server {}: {}",
            self.program, self.source
        )
    }
}

#[cfg(feature = "process")]
impl std::error::Error for CouldNotStart {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

#[cfg(feature = "process")]
/// The [`CouldNotStart`] inside an error of [`serve_command`], when the server could not
/// be started; `None` when it started (and then failed, or the error is another).
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub fn start_error(error: &io::Error) -> Option<&CouldNotStart> {
    error.get_ref()?.downcast_ref::<CouldNotStart>()
}
