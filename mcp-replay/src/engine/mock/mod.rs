//! Replay for clients: the fixture plays the server. Requests must arrive in recorded
//! order with the same method and (normalized) params; each is answered with the recorded
//! messages that follow it, under the client's live id, each as its own flushed write.

mod session;

pub(crate) use crate::data::faults::Injected;
pub use crate::data::faults::{Fault, Faults};
use crate::data::fixture::Fixture;
pub use crate::data::timing::Timing;
use crate::engine::transport::{parse_line, read_lines, write_line, Incoming, Transport};
use crate::findings::report::Report;
use crate::options::{Options, Settings};
use crate::rules::Rules;
#[cfg(feature = "http")]
pub(crate) use session::FAULT_KEY;
use session::{Mock as Core, Wake};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

/// The JSON-RPC error code of a request the recording does not have next.
pub const MISMATCH_CODE: i64 = -32600;

/// A running mock server; [`finish`](MockServer::finish) stops it and returns the report.
#[derive(Debug)]
pub struct MockServer {
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Report>,
    played: watch::Receiver<bool>,
}

impl MockServer {
    /// Resolves once the client has sent every message the recording holds (what is left
    /// are the server's last messages, if any): a client that goes away after that has
    /// played the whole session.
    pub async fn played(&self) {
        let mut played = self.played.clone();
        let _ = played.wait_for(|played| *played).await;
    }

    /// Whether the client has sent every message the recording holds.
    pub fn is_played(&self) -> bool {
        *self.played.borrow()
    }

    /// Stops the mock (if the client has not closed the transport yet) and reports every
    /// finding: requests that did not match, answers that differ from the recording, and
    /// recorded requests the client never made.
    pub async fn finish(mut self) -> Report {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.await {
            Ok(report) => report,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
}

impl Fixture {
    /// Plays the server of this fixture for a client under test: set what differs from
    /// the defaults ([`rules`](Mock::rules), [`options`](Mock::options)), then take the
    /// client's end of an in-process [`server`](Mock::server), [`serve`](Mock::serve) a
    /// reader/writer pair, or [`http`](Mock::http).
    ///
    /// ```
    /// use mcp_replay::Fixture;
    /// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let fixture = Fixture::parse(concat!(
    ///     r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#, "\n",
    ///     r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#, "\n",
    /// )).unwrap();
    /// let (transport, mock) = fixture.mock().server();
    ///
    /// // The client under test (here by hand) asks with its own id and gets the recording.
    /// let (read, mut write) = tokio::io::split(transport);
    /// write.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/list\"}\n").await.unwrap();
    /// let reply = BufReader::new(read).lines().next_line().await.unwrap().unwrap();
    /// assert_eq!(reply, r#"{"jsonrpc":"2.0","id":41,"result":{"tools":[]}}"#);
    ///
    /// assert!(mock.finish().await.is_ok());
    /// # }
    /// ```
    pub fn mock(&self) -> Mock<'_> {
        Mock {
            fixture: self,
            rules: None,
            options: Options::new(),
        }
    }
}

/// A mock server of one fixture, being set up: what [`Fixture::mock`] returns.
#[derive(Debug, Clone)]
#[must_use = "a mock does nothing until it serves"]
pub struct Mock<'f> {
    fixture: &'f Fixture,
    rules: Option<&'f Rules>,
    pub(crate) options: Options,
}

impl<'f> Mock<'f> {
    /// Normalization [`Rules`] of your own instead of the defaults.
    pub fn rules(mut self, rules: &'f Rules) -> Self {
        self.rules = Some(rules);
        self
    }

    /// [`Options`] (the pace, recorded timing, stray lines allowed, the time a client gets
    /// to answer a server request).
    pub fn options(mut self, options: &Options) -> Self {
        self.options = options.clone();
        self
    }

    /// The fixture it plays.
    #[cfg(feature = "http")]
    pub(crate) fn fixture(&self) -> &'f Fixture {
        self.fixture
    }

    fn rules_or_default(&self) -> Rules {
        self.rules.cloned().unwrap_or_default()
    }

    /// Plays the server in process: the client's [`Transport`] and the [`MockServer`]
    /// whose `finish().await` gives the [`Report`].
    pub fn server(self) -> (Transport, MockServer) {
        let (client, mock_end) = Transport::pair();
        let (reader, writer) = tokio::io::split(mock_end);
        let (stop, stopped) = oneshot::channel();
        let fixture = self.fixture.clone();
        let rules = self.rules_or_default();
        let options = self.options;
        let played = watch::Sender::new(false);
        let watching = played.subscribe();
        let task = tokio::spawn(async move {
            let settings = options.resolve(&fixture, &rules);
            run(&fixture, &settings, reader, writer, stopped, &played).await
        });
        (
            client,
            MockServer {
                stop: Some(stop),
                task,
                played: watching,
            },
        )
    }

    /// Plays the server on any reader/writer pair (for example a process's stdin and
    /// stdout) until the client closes its side, then reports.
    pub async fn serve<R, W>(self, reader: R, writer: W) -> Report
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin,
    {
        let (_keep, never) = oneshot::channel::<()>();
        let rules = self.rules_or_default();
        let settings = self.options.resolve(self.fixture, &rules);
        let played = watch::Sender::new(false);
        run(self.fixture, &settings, reader, writer, never, &played).await
    }
}

/// Serves the fixture's server side on a reader/writer pair until the client closes it
/// or `stop` fires; `played` turns true once the client has sent every recorded message.
/// The I/O shell of the mock's core ([`Mock`]): it writes each line when the core says it is
/// due (and reads nothing while a batch is being written, as a server answering one
/// request does), hands the core what the client sends, and keeps the one timer.
pub(crate) async fn run<R, W>(
    fixture: &Fixture,
    settings: &Settings<'_>,
    reader: R,
    mut writer: W,
    mut stop: oneshot::Receiver<()>,
    played: &watch::Sender<bool>,
) -> Report
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin,
{
    let (tx, mut events) = mpsc::unbounded_channel();
    let reader_task = tokio::spawn(read_lines(reader, tx, parse_line));
    let mut mock = Core::new(fixture, settings, now());
    let mut buf = Vec::new();
    let timer = tokio::time::sleep(settings.timeout);
    tokio::pin!(timer);
    'session: loop {
        loop {
            while mock.poll_transmit(now(), &mut buf) {
                if write_line(&mut writer, &mut buf).await.is_err() {
                    break 'session;
                }
                mock.line_written(now());
                tokio::task::yield_now().await;
            }
            match mock.poll_timeout() {
                Wake::Write(at) => tokio::time::sleep_until(at.into()).await,
                _ => break,
            }
        }
        if mock.is_done() {
            break;
        }
        let answer = match mock.poll_timeout() {
            Wake::Answer(at) => {
                timer.as_mut().reset(at.into());
                true
            }
            _ => false,
        };
        let event = tokio::select! {
            event = events.recv() => event,
            _ = &mut stop => None,
            () = &mut timer, if answer => {
                mock.handle_timeout(now());
                continue;
            }
        };
        match event {
            None | Some(Incoming::Closed(_)) => break,
            Some(event) => mock.handle(event, now()),
        }
        played.send_replace(mock.played());
    }
    reader_task.abort();
    let _ = writer.shutdown().await;
    mock.conclude()
}

/// The mock's instant: the runtime's clock (paused in tests that pause it).
fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}
