//! The in-process transport handed to the server under test, and the harness's end of it.

use crate::data::fixture::Direction;
use serde_json::Value;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream, ReadBuf};
use tokio::sync::mpsc;

/// Bytes buffered in each direction of the in-process pipe.
pub(crate) const PIPE_CAPACITY: usize = 64 * 1024;

/// The server's end of an in-process, newline-delimited JSON pipe (MCP's stdio framing).
///
/// It is `AsyncRead + AsyncWrite + Unpin + Send + 'static`, so rmcp's `serve(transport)`
/// takes it as it is. The server reads the fixture's client messages from it and writes
/// its replies to it; when the harness is done it closes its end and the server sees EOF.
#[derive(Debug)]
pub struct Transport {
    inner: DuplexStream,
    /// Read by `process::serve_command` (cargo feature `process`).
    #[cfg_attr(not(feature = "process"), allow(dead_code))]
    stopping: Stopping,
    /// What this end writes is also kept, line by line (a test whose body is the client).
    tap: Option<Tap>,
}

impl Transport {
    /// A connected pair: the server's [`Transport`] and the harness's end of the pipe.
    pub(crate) fn pair() -> (Transport, DuplexStream) {
        let (transport, harness, _) = Transport::pair_stopping(STOP_GRACE);
        (transport, harness)
    }

    /// [`Transport::pair`], and what the server's end tells the harness about how the
    /// server stopped; a child process gets `grace` to exit at each step of its stop.
    pub(crate) fn pair_stopping(grace: Duration) -> (Transport, DuplexStream, Stopping) {
        let (server, harness) = tokio::io::duplex(PIPE_CAPACITY);
        let stopping = Stopping::in_process(grace);
        let transport = Transport {
            inner: server,
            stopping: stopping.clone(),
            tap: None,
        };
        (transport, harness, stopping)
    }

    /// Two ends of one pipe, the server's and the client's, each keeping every line it
    /// writes in `log`: the harness sits between the two without a hop of its own, so a
    /// line costs what it costs between a client and a server connected directly, and a
    /// copy.
    pub(crate) fn tapped_pair(log: &Arc<Mutex<Crossed>>) -> (Transport, Transport) {
        let (server, client) = tokio::io::duplex(PIPE_CAPACITY);
        let end = |inner, direction| Transport {
            inner,
            stopping: Stopping::in_process(STOP_GRACE),
            tap: Some(Tap {
                log: log.clone(),
                direction,
            }),
        };
        (
            end(server, Direction::ServerToClient),
            end(client, Direction::ClientToServer),
        )
    }

    /// What this end shares with the harness about the server's stop.
    #[cfg_attr(not(feature = "process"), allow(dead_code))]
    pub(crate) fn stopping(&self) -> Stopping {
        self.stopping.clone()
    }
}

/// What the server's end of the pipe tells the harness about how the server stops:
/// `process::serve_command` says a child process serves it (the
/// harness then waits for its stop sequence) and whether it needed a signal.
#[derive(Debug, Clone)]
pub(crate) struct Stopping(Arc<Mutex<StopState>>);

#[derive(Debug)]
struct StopState {
    grace: Duration,
    child: bool,
    forced: Option<String>,
    /// The child's last lines on stderr, as `process::serve_command` reads them.
    stderr: std::collections::VecDeque<String>,
}

impl Stopping {
    /// A server in process (until [`Stopping::set_child`] says a child serves the pipe).
    pub(crate) fn in_process(grace: Duration) -> Stopping {
        Stopping(Arc::new(Mutex::new(StopState {
            grace,
            child: false,
            forced: None,
            stderr: std::collections::VecDeque::new(),
        })))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, StopState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long a child process has to exit after its input closed (and after SIGTERM).
    pub(crate) fn grace(&self) -> Duration {
        self.state().grace
    }

    /// A child process serves the pipe: it is stopped within
    /// `process::stop_bound` of its input closing.
    #[cfg_attr(not(feature = "process"), allow(dead_code))]
    pub(crate) fn set_child(&self) {
        self.state().child = true;
    }

    /// Whether a child process serves the pipe.
    pub(crate) fn is_child(&self) -> bool {
        self.state().child
    }

    /// The child did not exit by itself after its input closed: how it was stopped.
    #[cfg_attr(not(feature = "process"), allow(dead_code))]
    pub(crate) fn set_forced(&self, how: String) {
        self.state().forced = Some(how);
    }

    /// How the child was stopped, when it needed a signal.
    pub(crate) fn forced(&self) -> Option<String> {
        self.state().forced.clone()
    }

    /// One more line the child wrote on stderr; the oldest goes past `keep` lines.
    #[cfg_attr(not(feature = "process"), allow(dead_code))]
    pub(crate) fn stderr_line(&self, line: String, keep: usize) {
        let mut state = self.state();
        if state.stderr.len() == keep {
            state.stderr.pop_front();
        }
        state.stderr.push_back(line);
    }

    /// The child's last lines on stderr, oldest first (none for a server in process).
    pub(crate) fn stderr_tail(&self) -> Vec<String> {
        self.state().stderr.iter().cloned().collect()
    }
}

impl AsyncRead for Transport {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Transport {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let Some(tap) = &this.tap else {
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        };
        // The log is held while the bytes go into the pipe: the other side may read them
        // at once (on another thread) and answer, and its answer must be logged after
        // them, as it was caused by them.
        let mut log = tap.log.lock().unwrap_or_else(|e| e.into_inner());
        let written = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &written {
            log.wrote(tap.direction, &buf[..*n]);
        }
        written
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// Where a tapped end keeps what it writes, and which side it is.
#[derive(Debug)]
struct Tap {
    log: Arc<Mutex<Crossed>>,
    direction: Direction,
}

/// The lines written through a [`Transport::tapped_pair`], in the order their last byte
/// was written (the order the other side could read them in), each with the side that
/// wrote it; blank lines are not kept.
#[derive(Debug, Default)]
pub(crate) struct Crossed {
    lines: Vec<(Direction, String)>,
    /// The bytes of each side's line not ended yet (client's, server's).
    partial: [Vec<u8>; 2],
    /// `MCP_REPLAY_TRACE`: each line written to the sink as it ends (stderr), with the
    /// milliseconds since this instant, its side and what it is.
    trace: Option<(std::time::Instant, TraceSink)>,
}

/// Where a [`Crossed`] log's trace goes: stderr, or a buffer a test reads.
pub(crate) struct TraceSink(pub(crate) Box<dyn FnMut(&str) + Send>);

impl std::fmt::Debug for TraceSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TraceSink(..)")
    }
}

impl Crossed {
    /// A log that prints each line on stderr as it passes when `trace` is on.
    pub(crate) fn traced(trace: bool) -> Crossed {
        let stderr = TraceSink(Box::new(|line| eprintln!("{line}")));
        Crossed::traced_to(trace.then_some(stderr))
    }

    /// A log that writes each line to `sink` as it passes, if there is one.
    pub(crate) fn traced_to(sink: Option<TraceSink>) -> Crossed {
        Crossed {
            trace: sink.map(|sink| (std::time::Instant::now(), sink)),
            ..Crossed::default()
        }
    }

    fn wrote(&mut self, direction: Direction, mut bytes: &[u8]) {
        let side = usize::from(direction == Direction::ServerToClient);
        while let Some(end) = bytes.iter().position(|b| *b == b'\n') {
            self.partial[side].extend_from_slice(&bytes[..end]);
            self.end_line(side, direction);
            bytes = &bytes[end + 1..];
        }
        self.partial[side].extend_from_slice(bytes);
    }

    fn end_line(&mut self, side: usize, direction: Direction) {
        let line = std::mem::take(&mut self.partial[side]);
        let line = trim_newline(&line);
        if !line.iter().all(u8::is_ascii_whitespace) {
            let text = String::from_utf8_lossy(line).into_owned();
            if let Some((start, sink)) = &mut self.trace {
                let ms = start.elapsed().as_secs_f64() * 1000.0;
                let arrow = match direction {
                    Direction::ClientToServer => "->",
                    Direction::ServerToClient => "<-",
                };
                let what = match serde_json::from_str::<serde_json::Value>(&text) {
                    Ok(message) => crate::engine::replay::trace::describe(&message),
                    Err(_) => "a line that is not JSON".to_owned(),
                };
                let shown = crate::normalize::secrets::mask_text(&text);
                (sink.0)(&format!("  {ms:9.1} ms  {arrow} {what}: {shown}"));
            }
            self.lines.push((direction, text));
        }
    }

    /// Every line kept, a last one without its newline included; the log is empty after.
    pub(crate) fn take(&mut self) -> Vec<(Direction, String)> {
        for (side, direction) in [
            (0, Direction::ClientToServer),
            (1, Direction::ServerToClient),
        ] {
            self.end_line(side, direction);
        }
        std::mem::take(&mut self.lines)
    }
}

/// How long a server gets to exit by itself once its input closed, before it is asked to
/// stop (`process::STOP_GRACE` names it for users).
pub(crate) const STOP_GRACE: Duration = Duration::from_secs(2);

/// What the harness reads from the server, one event a line.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A line that parsed as JSON.
    Message(Value),
    /// A response the fast path wrote canonically (see `fast.rs`), not parsed into a tree.
    Response(crate::normalize::fast::FastResponse),
    /// The answer to the harness's own `initialize` (id 0), as the server wrote it: it is
    /// checked, never compared, so it is neither parsed into a tree nor normalized.
    Setup {
        /// The line, as it came.
        text: String,
        /// It has `error`, not `result`.
        is_error: bool,
    },
    /// A line that is not UTF-8 or not JSON.
    Invalid {
        /// 1-based number of the line in the server's output.
        line: usize,
        /// Why it could not be read.
        reason: String,
        /// The start of the line, lossily decoded, for the report.
        excerpt: String,
    },
    /// The server closed its end (or reading failed).
    Closed(Option<String>),
}

/// Reads newline-delimited JSON from `reader` until EOF, sending each line as the event
/// `frame` makes of it (its number and bytes; [`parse_line`] frames a line as JSON). Runs
/// as its own task so a server writing a lot never blocks on the harness. The pipe knows
/// nothing of normalization: the replay's framer takes its fast path for responses here.
pub(crate) async fn read_lines<R: AsyncRead + Unpin>(
    reader: R,
    events: mpsc::UnboundedSender<Incoming>,
    mut frame: impl FnMut(&[u8], usize) -> Incoming,
) {
    let mut lines = LineReader::new(reader);
    loop {
        let event = match lines.next().await {
            Ok(None) => Incoming::Closed(None),
            Ok(Some((number, line))) => frame(line, number),
            Err(e) => Incoming::Closed(Some(e.to_string())),
        };
        let closed = matches!(event, Incoming::Closed(_));
        if events.send(event).is_err() || closed {
            return;
        }
    }
}

/// One line of a server's output as the harness reads it: a JSON value, or why not.
#[cfg(feature = "internals")]
pub(crate) fn frame_line(line: &[u8]) -> Result<Value, crate::error::Invalid> {
    match parse_line(trim_newline(line), 1) {
        Incoming::Message(value) => Ok(value),
        Incoming::Response(response) => {
            Ok(serde_json::from_str(&response.text).expect("the fast path writes JSON"))
        }
        Incoming::Setup { text, .. } => {
            Ok(serde_json::from_str(&text).expect("the framer peeked at JSON"))
        }
        Incoming::Invalid { reason, .. } => Err(crate::error::Invalid::new(reason)),
        Incoming::Closed(_) => Err(crate::error::Invalid::new("closed")),
    }
}

/// `message` as one line of a pipe: its own `text` when that is one line, else
/// re-serialized (a body or an event may span lines; a line may not).
#[cfg(feature = "http")]
pub(crate) fn one_line(text: Option<&[u8]>, message: &Value) -> Vec<u8> {
    match text {
        Some(text) if !text.iter().any(|&b| b == b'\n' || b == b'\r') => text.to_vec(),
        _ => serde_json::to_vec(message).expect("a JSON value serializes"),
    }
}

/// A pipe's lines as bytes, without their line ends, blank ones skipped.
pub(crate) struct LineReader<R> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    /// How many lines were read, blank ones counted.
    number: usize,
    /// `buf` holds a line already handed out: it is cleared before the next read.
    handed_out: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(reader: R) -> Self {
        LineReader {
            reader: BufReader::new(reader),
            buf: Vec::new(),
            number: 0,
            handed_out: false,
        }
    }

    /// The next line that is not blank, with its 1-based number (blank lines counted);
    /// `Ok(None)` at the end.
    pub(crate) async fn next(&mut self) -> io::Result<Option<(usize, &[u8])>> {
        if std::future::poll_fn(|cx| self.poll_line(cx)).await? {
            Ok(Some(self.line()))
        } else {
            Ok(None)
        }
    }

    /// Reads on to the end of the next line that is not blank: `true` when there is one
    /// ([`LineReader::line`]), `false` at the end. Unlike `next`, it can be polled beside
    /// other work and dropped between polls: a line read in part stays in the buffer.
    pub(crate) fn poll_line(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<bool>> {
        use tokio::io::AsyncBufRead;
        loop {
            if std::mem::take(&mut self.handed_out) {
                self.buf.clear();
            }
            let available = std::task::ready!(Pin::new(&mut self.reader).poll_fill_buf(cx))?;
            let (used, whole) = match memchr::memchr(b'\n', available) {
                Some(end) => (end + 1, true),
                // The end: what was read of a last line without a line end is a line.
                None => (available.len(), available.is_empty()),
            };
            self.buf.extend_from_slice(&available[..used]);
            Pin::new(&mut self.reader).consume(used);
            if !whole {
                continue;
            }
            if self.buf.is_empty() {
                return Poll::Ready(Ok(false));
            }
            self.handed_out = true;
            self.number += 1;
            if !trim_newline(&self.buf).iter().all(u8::is_ascii_whitespace) {
                return Poll::Ready(Ok(true));
            }
        }
    }

    /// The line [`LineReader::poll_line`] read last, with its number.
    pub(crate) fn line(&self) -> (usize, &[u8]) {
        (self.number, trim_newline(&self.buf))
    }
}

pub(crate) fn trim_newline(buf: &[u8]) -> &[u8] {
    let buf = buf.strip_suffix(b"\n").unwrap_or(buf);
    buf.strip_suffix(b"\r").unwrap_or(buf)
}

/// One line (without its line end) framed as JSON: a message, or why it is not one.
pub(crate) fn parse_line(line: &[u8], line_no: usize) -> Incoming {
    let invalid = |reason: String| Incoming::Invalid {
        line: line_no,
        reason,
        // Masked before it is cut to 120 characters (a secret cut in half would not be
        // found), from a start long enough for any token that begins in those.
        excerpt: crate::normalize::secrets::mask_text(&String::from_utf8_lossy(
            &line[..line.len().min(4096)],
        ))
        .chars()
        .take(120)
        .collect(),
    };
    match std::str::from_utf8(line) {
        Err(e) => invalid(format!("not UTF-8 ({e})")),
        Ok(text) => match serde_json::from_str(text) {
            Ok(value) => Incoming::Message(value),
            Err(e) => invalid(format!("not JSON ({e})")),
        },
    }
}

/// Writes one message as one line and flushes it: each message is its own write.
pub(crate) async fn write_line<W: AsyncWrite + Unpin>(
    writer: &mut W,
    line: &mut Vec<u8>,
) -> io::Result<()> {
    line.push(b'\n');
    writer.write_all(line).await?;
    writer.flush().await
}

#[cfg(test)]
mod crossed {
    use super::*;

    /// `MCP_REPLAY_TRACE` in a test whose body is the client: each line as it passes,
    /// with its side and what it is, secrets masked.
    #[test]
    fn a_traced_log_says_each_line_as_it_passes() {
        let said = Arc::new(Mutex::new(Vec::<String>::new()));
        let into = said.clone();
        let mut log = Crossed::traced_to(Some(TraceSink(Box::new(move |line: &str| {
            into.lock().unwrap().push(line.to_owned())
        }))));
        log.wrote(
            Direction::ClientToServer,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"token\":\"ghp_0123456789abcdefghijklmnopqrstuvwxyz\"}}\n",
        );
        log.wrote(Direction::ServerToClient, b"{\"jsonrpc\":\"2.0\",");
        assert_eq!(said.lock().unwrap().len(), 1, "a line is said once it ends");
        log.wrote(Direction::ServerToClient, b"\"id\":1,\"result\":{}}\n");
        let said = said.lock().unwrap();
        assert!(
            said[0].contains("-> request `tools/call` id 1: "),
            "{said:?}"
        );
        assert!(!said[0].contains("ghp_0123"), "masked: {said:?}");
        assert!(said[1].contains("<- response 1: "), "{said:?}");
        assert!(
            said[1].ends_with(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            "{said:?}"
        );
    }

    /// An answer the other side writes on another thread as soon as it reads a request
    /// is logged after that request: the log is held while the request's bytes go into
    /// the pipe (turbomcp answers so; a log taken after the write showed the answer
    /// first, a recording then failed to pair them).
    #[test]
    fn an_answer_on_another_thread_is_logged_after_its_request() {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async {
            let log = Arc::new(Mutex::new(Crossed::default()));
            let (server, mut client) = Transport::tapped_pair(&log);
            let echo = tokio::spawn(async move {
                let (read, mut write) = tokio::io::split(server);
                let mut lines = BufReader::new(read).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    if write
                        .write_all(format!("{line}!\n").as_bytes())
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
            });
            for n in 0..2000 {
                client.write_all(format!("{n}\n").as_bytes()).await.unwrap();
                tokio::task::yield_now().await;
            }
            client.shutdown().await.unwrap();
            drop(client);
            let _ = echo.await;
            let lines = log.lock().unwrap().take();
            let mut asked = std::collections::HashSet::new();
            for (direction, line) in lines {
                match direction {
                    Direction::ClientToServer => {
                        asked.insert(line);
                    }
                    Direction::ServerToClient => {
                        let request = line.trim_end_matches('!').to_owned();
                        assert!(asked.contains(&request), "{line} logged before {request}");
                    }
                }
            }
        });
    }

    /// Lines come whole in the order their last byte was written, whatever the writes
    /// cut them into and however the two sides interleave; blank lines are not kept, a
    /// last line without its newline is.
    #[test]
    fn lines_are_kept_whole_in_the_order_they_end() {
        let (c, s) = (Direction::ClientToServer, Direction::ServerToClient);
        let mut log = Crossed::default();
        log.wrote(c, b"{\"a\":");
        log.wrote(s, b"{\"n\":1}\r\n\n  \n{\"n\"");
        log.wrote(c, b"1}\n{\"b\":2}\n");
        log.wrote(s, b":2}");
        let lines = log.take();
        let expected = [
            (s, "{\"n\":1}"),
            (c, "{\"a\":1}"),
            (c, "{\"b\":2}"),
            (s, "{\"n\":2}"),
        ];
        assert_eq!(lines, expected.map(|(d, l)| (d, l.to_owned())).to_vec());
        assert!(log.take().is_empty(), "taken once");
    }
}
