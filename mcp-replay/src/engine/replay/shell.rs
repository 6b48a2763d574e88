//! The replay's I/O shell over the pipe: it reads the server's lines (`Output`, polled
//! beside every wait, so a server writing a lot never blocks on the harness), writes what
//! the session hands out, keeps the one timer, and waits for the server task. Every decision is the session's (`session.rs`); this file
//! only moves bytes, time and the server's outcome between the session and the world.

use super::outcome::ServerError;
use super::session::{Ending, Session, Transmit, WriteError};
use crate::data::fixture::Fixture;
use crate::engine::transport::{parse_line, write_line, Incoming, LineReader, Stopping};
use crate::findings::report::Report;
use crate::options::Settings;
use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// How a server task ended: `Ok` or a description of the failure.
pub(crate) type ServerTask = JoinHandle<Result<(), ServerError>>;

/// The turns of the runtime the settle step gives the server before a passed deadline
/// counts (see `drive`).
const SETTLE_TURNS: usize = 4;

/// Whether a write had to wait for room in the pipe.
struct Waited(bool);

/// How long the shell waits for the server task to say why it ended when its output
/// closed early (a panic is named in the finding).
const OUTCOME_WAIT: Duration = Duration::from_millis(200);

/// Runs one replay over a reader/writer pair connected to the server; `stopping` is what
/// the server's end of the pipe says about how the server stopped.
pub(crate) async fn run<R, W>(
    fixture: &Fixture,
    settings: &Settings<'_>,
    (reader, writer): (R, W),
    server: Option<ServerTask>,
    stopping: Stopping,
) -> Report
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let setup = super::session::needs_setup(fixture, settings);
    let mut shell = Shell {
        output: Output {
            lines: LineReader::new(reader),
            frame: framer(settings, setup),
            read: VecDeque::new(),
            ended: false,
        },
        writer,
        server,
        stopping,
        timer: Box::pin(tokio::time::sleep(settings.timeout)),
        closed_at: None,
        output_closed: false,
    };
    let mut session = Session::new(fixture, settings, now());
    shell.drive(&mut session).await;
    let ending = shell.end(&mut session).await;
    print_trace(&session);
    session.conclude(ending)
}

/// The server's output as the shell reads it: polled in this task, not a reader task of
/// its own (a task and a channel between the server's write and the session were a hop per
/// message). Every wait of the shell polls it, so the server's writes never wait on the
/// harness; what arrives while the shell waits for something else is kept in order.
struct Output<R, F> {
    lines: LineReader<R>,
    frame: F,
    /// What was read and framed but not yet handed to the session.
    read: VecDeque<Incoming>,
    /// The end (or a read error) was read: nothing comes after it.
    ended: bool,
}

impl<R: AsyncRead + Unpin, F: FnMut(&[u8], usize) -> Incoming> Output<R, F> {
    /// The next event, in order: what was kept first, then what the pipe holds.
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Incoming> {
        if let Some(event) = self.read.pop_front() {
            return Poll::Ready(event);
        }
        self.poll_read(cx)
    }

    /// Reads and keeps every line the pipe holds now (while the shell waits for anything
    /// else), so the server is never stuck on a full pipe.
    fn keep_reading(&mut self, cx: &mut Context<'_>) {
        while let Poll::Ready(event) = self.poll_read(cx) {
            self.read.push_back(event);
        }
    }

    fn poll_read(&mut self, cx: &mut Context<'_>) -> Poll<Incoming> {
        if self.ended {
            return Poll::Pending;
        }
        let event = match std::task::ready!(self.lines.poll_line(cx)) {
            Ok(true) => {
                let (number, line) = self.lines.line();
                (self.frame)(line, number)
            }
            Ok(false) => Incoming::Closed(None),
            Err(e) => Incoming::Closed(Some(e.to_string())),
        };
        self.ended = matches!(event, Incoming::Closed(_));
        Poll::Ready(event)
    }

    /// `wait`, reading the server's output meanwhile.
    async fn reading_while<T>(&mut self, wait: impl Future<Output = T>) -> T {
        let mut wait = std::pin::pin!(wait);
        poll_fn(|cx| match wait.as_mut().poll(cx) {
            Poll::Ready(done) => Poll::Ready(done),
            Poll::Pending => {
                self.keep_reading(cx);
                Poll::Pending
            }
        })
        .await
    }
}

struct Shell<R, F, W> {
    output: Output<R, F>,
    writer: W,
    server: Option<ServerTask>,
    stopping: Stopping,
    /// The timer of every wait for the server (see `next_event`).
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    /// When the server's input was closed, and how long the server then has to end.
    closed_at: Option<(Instant, Duration)>,
    /// The close of the server's output was handed over: nothing more can arrive.
    output_closed: bool,
}

impl<R, F, W> Shell<R, F, W>
where
    R: AsyncRead + Unpin,
    F: FnMut(&[u8], usize) -> Incoming,
    W: AsyncWrite + Unpin,
{
    /// Drives `session` until it is done: writes what it hands out, hands it what arrives,
    /// and tells it when its deadlines pass.
    async fn drive(&mut self, session: &mut Session<'_>) {
        let mut buf = Vec::new();
        // The clock is read after each wait, not at each step: a step that did not wait
        // takes no time the session could tell apart (and a clock read is ~30 ns).
        let mut at = now();
        loop {
            while let Some(transmit) = session.poll_transmit(at, &mut buf) {
                match transmit {
                    Transmit::Line => match self.write(&mut buf, session.timeout()).await {
                        Ok(Waited(false)) => {}
                        Ok(Waited(true)) => at = now(),
                        Err(error) => {
                            if session.wants_server_outcome() {
                                self.learn_outcome(session).await;
                            }
                            at = now();
                            session.handle_write_error(error, at);
                        }
                    },
                    Transmit::CloseInput => {
                        let _ = self.output.reading_while(self.writer.shutdown()).await;
                        let grace = self.stopping.is_child().then(|| self.stopping.grace());
                        at = now();
                        self.closed_at = Some((Instant::from_std(at), session.drain_bound(grace)));
                        session.input_closed(at, grace);
                    }
                }
            }
            print_trace(session);
            if session.is_done() {
                return;
            }
            let Some(deadline) = session.poll_timeout() else {
                return;
            };
            let event = self.next_event(Instant::from_std(deadline), at).await;
            at = now();
            match event {
                Some(event) => at = self.hand_over(session, event, at).await,
                None => {
                    // Before a deadline is declared passed, what the server already wrote
                    // is taken: the server gets to finish what it was writing first.
                    // `SETTLE_TURNS` turns of the runtime, whether or not a turn brought
                    // something: a server task that yields (or is made to by the runtime's
                    // budget) goes on only at the next turn, and a message it sends after
                    // its input closed may be lost (rmcp drops it).
                    for _ in 0..SETTLE_TURNS {
                        // `yield_now`, not a wake of this task by itself: a task that
                        // yielded (rmcp's, or one the runtime's budget stopped) goes on
                        // only when the runtime next polls its driver, and so must this
                        // turn end.
                        tokio::task::yield_now().await;
                    }
                    at = now();
                    while let Some(event) = self.try_next() {
                        at = self.hand_over(session, event, at).await;
                    }
                    session.handle_timeout(at);
                }
            }
        }
    }

    /// Hands one arrival, come at `at`, to the session; before the close of the server's
    /// output, the server's outcome, if the session wants it. Returns the time after.
    async fn hand_over(
        &mut self,
        session: &mut Session<'_>,
        event: Incoming,
        mut at: std::time::Instant,
    ) -> std::time::Instant {
        if matches!(event, Incoming::Closed(_)) && session.wants_server_outcome() {
            self.learn_outcome(session).await;
            at = now();
        }
        session.handle(event, at);
        at
    }

    /// Writes one line and flushes it, within `timeout`.
    async fn write(&mut self, buf: &mut Vec<u8>, timeout: Duration) -> Result<Waited, WriteError> {
        let output = &mut self.output;
        let mut write = std::pin::pin!(write_line(&mut self.writer, buf));
        // Most lines go into the pipe at once: no timer for those (a timer per line was a
        // tenth of the shell's cost per call).
        let first = poll_fn(|cx| Poll::Ready(write.as_mut().poll(cx))).await;
        let waited = Waited(first.is_pending());
        let written = match first {
            Poll::Ready(done) => Ok(done),
            // A full pipe: the server may be waiting for its own writes to be read.
            Poll::Pending => {
                output
                    .reading_while(tokio::time::timeout(timeout, write))
                    .await
            }
        };
        match written {
            Ok(Ok(())) => Ok(waited),
            Ok(Err(e)) => Err(WriteError::Closed(e.to_string())),
            Err(_elapsed) => Err(WriteError::Stuck),
        }
    }

    /// The next event, waiting until `deadline`; `None` when the deadline passed (`at`,
    /// the time of the last step, tells a deadline already past).
    async fn next_event(&mut self, deadline: Instant, at: std::time::Instant) -> Option<Incoming> {
        let event = self.receive(deadline, Instant::from_std(at)).await;
        if matches!(event, Some(Incoming::Closed(_))) {
            self.output_closed = true;
        }
        event
    }

    async fn receive(&mut self, deadline: Instant, at: Instant) -> Option<Incoming> {
        if self.output_closed {
            // The close was handed over once; only the deadline can come now.
            self.timer.as_mut().reset(deadline);
            self.timer.as_mut().await;
            return None;
        }
        let (output, timer) = (&mut self.output, &mut self.timer);
        let mut armed = false;
        poll_fn(|cx| {
            // What already arrived needs no timer.
            if let Poll::Ready(event) = output.poll_event(cx) {
                return Poll::Ready(Some(event));
            }
            if !armed {
                // (`at` first: the settle step's deadline is the instant it was set, no
                // clock read needed.)
                if deadline <= at || deadline <= Instant::now() {
                    // A deadline already past (the settle step): no timer. The runtime's
                    // timer fires at its next millisecond tick at the earliest, a
                    // millisecond added to every replay; `drive` lets the server run and
                    // takes what arrived.
                    return Poll::Ready(None);
                }
                // One timer for the whole replay, moved to each deadline: moving it later
                // does not touch the runtime's timer wheel, a new timer per wait would.
                timer.as_mut().reset(deadline);
                armed = true;
            }
            timer.as_mut().poll(cx).map(|()| None)
        })
        .await
    }

    /// What already arrived, without waiting.
    fn try_next(&mut self) -> Option<Incoming> {
        if self.output_closed {
            return None;
        }
        let waker = std::task::Waker::noop();
        let event = match self.output.poll_event(&mut Context::from_waker(waker)) {
            Poll::Ready(event) => Some(event),
            Poll::Pending => None,
        };
        if matches!(event, Some(Incoming::Closed(_))) {
            self.output_closed = true;
        }
        event
    }

    /// Waits briefly for the server task and tells the session how it ended.
    async fn learn_outcome(&mut self, session: &mut Session<'_>) {
        if let Some(task) = self.server.as_mut() {
            let wait = tokio::time::timeout(OUTCOME_WAIT, task);
            if let Ok(joined) = self.output.reading_while(wait).await {
                self.server = None;
                session.server_ended(joined.map_err(join_error).and_then(|r| r));
            }
        }
    }

    /// After the session: waits for the server to end, within the bound that began when
    /// its input was closed, and says how it ended.
    async fn end(&mut self, session: &mut Session<'_>) -> Ending {
        let (closed_at, bound) = self
            .closed_at
            .unwrap_or_else(|| (Instant::now(), session.timeout()));
        let mut ending = Ending::default();
        if let Some(task) = self.server.take() {
            // What the server still writes is read (and left unread by the session): a
            // server stuck on a full pipe would not end.
            let wait = tokio::time::timeout_at(closed_at + bound, task);
            match self.output.reading_while(wait).await {
                Ok(joined) => session.server_ended(joined.map_err(join_error).and_then(|r| r)),
                Err(_) => ending.stuck = Some(bound),
            }
        }
        ending.forced = self.stopping.forced();
        ending.stderr = self.stopping.stderr_tail();
        ending
    }
}

/// How the reader frames the server's lines: with the default rules alone in force (or no
/// rules), a response the rules leave unchanged goes over as its canonical text, not a tree
/// (the fast path, `normalize/fast.rs`); anything else is parsed. With `setup` (the harness
/// sends its own `initialize`), the answer to it goes over as it came (`Incoming::Setup`).
fn framer(
    settings: &Settings<'_>,
    mut setup: bool,
) -> impl FnMut(&[u8], usize) -> Incoming + Send + 'static {
    // A stateless session's responses are checked as the server sent them, before the
    // fast path drops members the 2026-07-28 schema requires (`resultType`, ...).
    let checked_whole = settings.era.is_stateless()
        && settings.protocol_check != crate::analyses::validate::ProtocolCheck::Off;
    let fast = settings.rules.defaults_only().filter(|_| !checked_whole);
    move |line, number| {
        if setup {
            if let Some(answer) = setup_answer(line) {
                setup = false;
                return answer;
            }
        }
        let shortcut = fast.as_ref().and_then(|defaults| {
            let text = std::str::from_utf8(line).ok()?;
            crate::normalize::fast::response(text, defaults.as_ref())
        });
        match shortcut {
            Some(response) => Incoming::Response(response),
            None => parse_line(line, number),
        }
    }
}

/// `line` as [`Incoming::Setup`] when it is a response to id 0 (the harness's own
/// `initialize`): read once to learn its id, never parsed into a tree.
fn setup_answer(line: &[u8]) -> Option<Incoming> {
    use serde::de::IgnoredAny;
    #[derive(serde::Deserialize)]
    struct Peek {
        id: Option<i64>,
        method: Option<IgnoredAny>,
        error: Option<IgnoredAny>,
    }
    let text = std::str::from_utf8(line).ok()?;
    let peek: Peek = serde_json::from_str(text).ok()?;
    (peek.id == Some(super::ledger::SETUP_ID) && peek.method.is_none()).then(|| Incoming::Setup {
        text: text.to_owned(),
        is_error: peek.error.is_some(),
    })
}

/// The session's instant: the runtime's clock (paused in tests that pause it).
fn now() -> std::time::Instant {
    Instant::now().into_std()
}

/// Prints what the session's trace wrote since the last call.
fn print_trace(session: &Session<'_>) {
    let text = session.take_trace();
    if !text.is_empty() {
        eprint!("{text}");
    }
}

/// [`run`] as a task of its own, on a clone of `fixture` (its messages are shared, not
/// copied) and `settings` with rules of their own; waits for its report. (The drive as the
/// runtime's `block_on` future made the runtime poll its I/O driver at every wake.)
/// A panic in the drive goes on in the caller; the task is aborted if the caller is dropped.
pub(crate) async fn run_spawned<R, W>(
    fixture: &Fixture,
    settings: Settings<'_>,
    pipe: (R, W),
    server: Option<ServerTask>,
    stopping: Stopping,
) -> Report
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    struct AbortOnDrop(JoinHandle<Report>);
    impl Drop for AbortOnDrop {
        fn drop(&mut self) {
            self.0.abort();
        }
    }
    let owned = fixture.clone();
    let settings = settings.into_owned();
    // Boxed: the drive's future is a few kilobytes, and each move of it unboxed (into the
    // task, into its cell) copies all of it.
    let drive = Box::pin(async move { run(&owned, &settings, pipe, server, stopping).await });
    let mut task = AbortOnDrop(tokio::spawn(drive));
    match (&mut task.0).await {
        Ok(report) => report,
        Err(e) => match e.try_into_panic() {
            Ok(payload) => std::panic::resume_unwind(payload),
            // Only a runtime shutting down cancels it (this future is then rarely polled).
            Err(e) => cancelled(fixture.source(), &e),
        },
    }
}

/// The report of a replay whose task the runtime cancelled: one finding that says so.
fn cancelled(source: &str, error: &tokio::task::JoinError) -> Report {
    let finding = crate::findings::mismatch::Mismatch::new(
        crate::findings::mismatch::MismatchKind::ServerFailure,
        None,
        format!(
            "the replay did not finish: its task was cancelled ({error}; the runtime shut down)"
        ),
    );
    Report {
        source: source.to_owned(),
        test: None,
        rerecord: None,
        mismatches: vec![finding],
        accepted: Vec::new(),
        warnings: Vec::new(),
        notes: Vec::new(),
        recorded: None,
        rerecording: false,
        pinned: false,
        timeline: None,
    }
}

fn join_error(e: tokio::task::JoinError) -> ServerError {
    match e.try_into_panic() {
        Ok(payload) => {
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string payload".into());
            ServerError::new(format!("the server panicked: {text}"))
        }
        Err(e) => ServerError::new(format!("the server task was cancelled: {e}")),
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn report_a_replay_whose_task_was_cancelled_as_a_finding_not_a_panic() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let error = runtime.block_on(async {
            let task = tokio::spawn(std::future::pending::<()>());
            task.abort();
            task.await.unwrap_err()
        });
        let report = cancelled("f.jsonl", &error);
        assert_eq!(report.mismatches().len(), 1, "{report}");
        let finding = &report.mismatches()[0];
        assert_eq!(finding.kind(), crate::MismatchKind::ServerFailure);
        assert!(finding.summary().contains("task was cancelled"), "{report}");
    }

    #[test]
    fn take_the_answer_to_id_0_as_it_came_and_nothing_else() {
        let line = br#"{ "id" : 0, "jsonrpc": "2.0", "result": {"serverInfo": {"name": "s"}} }"#;
        match setup_answer(line) {
            Some(Incoming::Setup { text, is_error }) => {
                assert_eq!(text.as_bytes(), line);
                assert!(!is_error);
            }
            _ => panic!("the setup answer"),
        }
        let refused = br#"{"jsonrpc":"2.0","id":0,"error":{"code":1,"message":"m"}}"#;
        assert!(matches!(
            setup_answer(refused),
            Some(Incoming::Setup { is_error: true, .. })
        ));
        for other in [
            &br#"{"jsonrpc":"2.0","id":1,"result":{}}"#[..],
            br#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":"0","result":{}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
            b"not json",
        ] {
            assert!(
                setup_answer(other).is_none(),
                "{}",
                String::from_utf8_lossy(other)
            );
        }
    }
}
