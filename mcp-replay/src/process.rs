//! Serving a [`Transport`] through a server that runs as a child process over stdio, so
//! `cargo test` can pin a Node, Python or any other server too.

use crate::transport::Transport;
use std::io;
use std::process::Stdio;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

/// Starts `command` as the server under test and connects its stdin/stdout to `transport`
/// (stderr passes through). Returns when the server exits: `Ok` on a zero exit status,
/// otherwise an error that names the status or the signal.
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
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("could not start the server {program}: {e}"),
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
