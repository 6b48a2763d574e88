//! A raw JSON-RPC test client for the demo servers' unit tests: writes lines, reads the
//! lines the server writes, nothing more.

use std::time::Duration;

use rmcp::{ServerHandler, ServiceExt};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

/// A server on one end of an in-memory pipe, this client on the other.
pub(crate) struct RawClient {
    writer: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    server: tokio::task::JoinHandle<()>,
}

impl RawClient {
    /// Serves `server` in a task and connects to it.
    pub(crate) fn start(server: impl ServerHandler) -> Self {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let server = tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let (reader, writer) = tokio::io::split(client_io);
        Self {
            writer,
            lines: BufReader::new(reader).lines(),
            server,
        }
    }

    /// Writes one line.
    pub(crate) async fn send(&mut self, line: &str) {
        println!(">> {line}");
        self.writer
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write to server");
        self.writer.flush().await.expect("flush");
    }

    /// The next line the server writes, or `None` if it writes nothing within `millis`
    /// (or closes the pipe).
    pub(crate) async fn recv(&mut self, millis: u64) -> Option<String> {
        let next = self.lines.next_line();
        let line = tokio::time::timeout(Duration::from_millis(millis), next)
            .await
            .ok()?
            .expect("read from server")?;
        println!("<< {line}");
        Some(line)
    }
}

impl Drop for RawClient {
    fn drop(&mut self) {
        self.server.abort();
    }
}
