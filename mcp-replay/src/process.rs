//! Serving a [`Transport`] through a server that runs as a child process over stdio, so
//! `cargo test` can pin a Node, Python or any other server too.

use crate::transport::Transport;
use std::io;
use std::process::Stdio;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

/// Starts `command` as the server under test and connects its stdin/stdout to `transport`
/// (stderr passes through). Returns when the server exits: `Ok` on a zero exit status,
/// otherwise an error that names the status or the signal. A server that could not be
/// started at all is an error holding a [`CouldNotStart`] ([`start_error`] finds it).
///
/// When the harness closes the transport, the server's stdin is closed (an MCP server over
/// stdio ends then). If this future is dropped, the child is killed.
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
    let program = format!("{:?}", command.as_std().get_program());
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
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
    // The server's end decides: once it exited and its output is drained, stop feeding it.
    let done = async { tokio::join!(child.wait(), from_server) };
    tokio::pin!(to_server, done);
    let mut fed = false;
    let status = loop {
        tokio::select! {
            (status, ()) = &mut done => break status?,
            () = &mut to_server, if !fed => fed = true,
        }
    };
    if status.success() {
        return Ok(());
    }
    Err(io::Error::other(describe_exit(&program, status)))
}

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

/// Why [`serve_command`] could not start the server (the program was not found, is not
/// executable, ...): inside the `io::Error` it returns, so that a runner can tell a server
/// that never ran from one that ran and failed. Its `Display` is `could not start the
/// server "PROGRAM": ERROR`.
pub struct CouldNotStart {
    program: String,
    source: io::Error,
}

/// As its message, quoted: inside an `io::Error`'s `Debug` (what a test returning
/// `io::Result` shows) it reads as the message did before it had a type.
impl std::fmt::Debug for CouldNotStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

impl CouldNotStart {
    /// The error of the spawn itself, e.g. `No such file or directory (os error 2)`.
    pub fn spawn_error(&self) -> &io::Error {
        &self.source
    }
}

impl std::fmt::Display for CouldNotStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "could not start the server {}: {}",
            self.program, self.source
        )
    }
}

impl std::error::Error for CouldNotStart {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The [`CouldNotStart`] inside an error of [`serve_command`], when the server could not
/// be started; `None` when it started (and then failed, or the error is another).
pub fn start_error(error: &io::Error) -> Option<&CouldNotStart> {
    error.get_ref()?.downcast_ref::<CouldNotStart>()
}
