//! `mcp-replay serve`: the fixture's mock server for a client under test, on stdio or, with
//! `--http ADDR`, over Streamable HTTP on a socket for `--sessions` client sessions, each
//! its own walk of the fixture (the runtime's [`Front`] on hyper, one per session; which
//! session a request belongs to: `serve/sessions.rs`).

use crate::args::{positive_time, RulesArg, StrayArg};
use crate::error::{Error, Outcome};
use crate::net::{Connections, Open};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Either, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::StatusCode;
use hyper_util::rt::{TokioIo, TokioTimer};
use mcp_replay::_support::bridge::SESSION_ID;
use mcp_replay::_support::front::{Front, HttpMock};
use mcp_replay::_support::mcporter;
use mcp_replay::_support::parse_duration;
use mcp_replay::fixture::{Direction, MessageKind};
use mcp_replay::mock::Timing;
use mcp_replay::{Fixture, Options, Report, Rules};
use sessions::{Asked, Limit, Route, Table};
use std::convert::Infallible;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

mod sessions;

/// `mcp-replay serve`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The fixture, or an mcporter recording (over HTTP, several: each at /mcp/NAME, NAME
    /// its file name without .jsonl)
    #[arg(value_name = "FIXTURE|RECORDING", required = true, num_args = 1..)]
    pub fixtures: Vec<PathBuf>,
    /// Serve over Streamable HTTP at http://ADDR/mcp instead of stdio (ADDR is host:port,
    /// e.g. 127.0.0.1:0)
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Over HTTP: end the session once the client has had no connection open for TIME
    /// after it sent every recorded message (it went without a DELETE); before that, 10s
    /// (or TIME if longer): it may come back
    #[arg(long, value_name = "TIME", requires = "http", default_value = "2s", value_parser = positive_time)]
    pub idle: Duration,
    /// Over HTTP: how many client sessions to serve (of each fixture), each its own walk of
    /// the fixture and its own Mcp-Session-Id, at once or one after another; `unlimited`
    /// serves until Ctrl-C or SIGTERM
    #[arg(long, value_name = "N|unlimited", requires = "http", default_value = "1", value_parser = crate::args::parse_limit)]
    pub sessions: Limit,
    /// The server of a multi-server mcporter recording
    #[arg(long, value_name = "NAME")]
    pub server: Option<String>,
    /// The pause between messages written together: 2ms, 0.1s, or milliseconds; 0 writes
    /// them back to back [default: the header's pace_ms, else 2ms]
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub pace: Option<Duration>,
    /// How long to wait for the client's answer to a server request: 700ms, 2s, or
    /// milliseconds [default: the header's timeout, else 5s]
    #[arg(long, value_name = "TIME", value_parser = positive_time)]
    pub timeout: Option<Duration>,
    /// `recorded`: play each server message after its recorded pause (`record --timing`);
    /// `scaled:F`: that pause times F; `none`: paced only
    #[arg(long, value_name = "MODE", default_value = "none", value_parser = timing_scale)]
    pub timing: TimingScale,
    /// The recorded times [default: FIXTURE with .timing.jsonl in place of .jsonl]
    #[arg(long, value_name = "FILE")]
    pub timing_file: Option<PathBuf>,
    #[command(flatten)]
    pub stray: StrayArg,
    #[command(flatten)]
    pub rules: RulesArg,
}

/// `--timing recorded|scaled:F|none`: the factor the recorded pauses are played at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimingScale(pub Option<f64>);

fn timing_scale(mode: &str) -> Result<TimingScale, String> {
    match mode {
        "none" => Ok(TimingScale(None)),
        "recorded" => Ok(TimingScale(Some(1.0))),
        other => match other.strip_prefix("scaled:").map(str::parse::<f64>) {
            Some(Ok(f)) if f.is_finite() && f >= 0.0 => Ok(TimingScale(Some(f))),
            _ => Err("give `recorded`, `scaled:F` (e.g. scaled:0.5) or `none`".into()),
        },
    }
}

/// The examples and exit statuses of `mcp-replay serve --help`.
pub(crate) const AFTER_HELP: &str = concat!(
        "Examples:\n",
        "  mcp-replay serve fixtures/echo.jsonl          (the client launches this as its server)\n",
        "  mcp-replay serve --pace 0 fixtures/echo.jsonl (stress: messages back to back)\n",
        "  mcp-replay serve --http 127.0.0.1:8931 fixtures/echo.jsonl\n",
        "                                                (the client connects to http://127.0.0.1:8931/mcp)\n",
        "  mcp-replay serve --http 127.0.0.1:8931 --sessions unlimited fixtures/a.jsonl fixtures/b.jsonl\n",
        "                                                (at /mcp/a and /mcp/b, for a parallel client suite)\n",
        "\n",
        "With --http, `listening on http://HOST:PORT/mcp` goes to stderr once the port is\n",
        "bound (port 0 picks a free one; several fixtures: one line each, at /mcp/NAME).\n",
        "One client session is served (--sessions N for N, of each fixture;\n",
        "`unlimited` until stopped), each its own walk of the fixture and its own\n",
        "Mcp-Session-Id; another client's initialize past N gets 503. A session ends with the\n",
        "client's DELETE, 2 s (--idle) after its last request finished, or on Ctrl-C or SIGTERM.\n",
        "With one session, its report goes to stderr; with more, each one with findings and a\n",
        "line of counts.\n",
        "\n",
        "The report goes to stderr when the session ends. Exit 0 when the client did what\n",
        "the recording did, 1 on findings, 2 on a usage or input error (a fixture that does\n",
        "not exist, is invalid or holds a secret; an address that cannot be bound)."
    );

/// Plays the fixture's server side to the client on stdio (or over HTTP, each of the
/// fixtures), then prints the report on stderr; findings if the client did not do what the
/// recording did.
pub(crate) async fn run(args: Args) -> Result<Outcome, Error> {
    if args.fixtures.len() > 1 && args.http.is_none() {
        return Err(Error::usage(
            "serve plays one fixture on stdio; several are served over HTTP only (--http \
             ADDR: each at /mcp/NAME)",
        ));
    }
    if args.fixtures.len() > 1 && args.timing_file.is_some() {
        return Err(Error::usage(
            "--timing-file names the times of one fixture; with several, each FIXTURE's \
             .timing.jsonl beside it is read",
        ));
    }
    let mut served = Vec::with_capacity(args.fixtures.len());
    for path in &args.fixtures {
        served.push(load(&args, path)?);
    }
    for (i, one) in served.iter().enumerate() {
        if served[..i].iter().any(|other| other.name == one.name) {
            return Err(Error::usage(format!(
                "two fixtures are named {} (served at /mcp/NAME): rename one",
                one.name
            )));
        }
    }
    let clean = match &args.http {
        Some(addr) => serve_http(served, addr, args.idle, args.sessions).await?,
        None => {
            let Served {
                fixture,
                rules,
                options,
                ..
            } = served.remove(0);
            let report = fixture
                .mock()
                .rules(&rules)
                .options(&options)
                .serve(tokio::io::stdin(), tokio::io::stdout())
                .await;
            print_report(&report);
            report.is_ok()
        }
    };
    Ok(if clean {
        Outcome::Success
    } else {
        Outcome::Findings
    })
}

/// A fixture as `serve` plays it: its name (the file name without `.jsonl`), the fixture,
/// its rules and the options.
struct Served {
    name: String,
    fixture: Fixture,
    rules: Rules,
    options: Options,
}

/// Reads one FIXTURE|RECORDING argument with the options the arguments give.
fn load(args: &Args, fixture_path: &Path) -> Result<Served, Error> {
    let path = fixture_path.display().to_string();
    let text = std::fs::read_to_string(fixture_path)
        .map_err(|e| Error::input(format!("reading {path}: {e}")))?;
    let folder = fixture_path.parent().unwrap_or(Path::new("."));
    let is_mcporter = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .is_some_and(|v| v.get("_meta").is_some_and(|m| m.get("dir").is_some()));
    let fixture = if is_mcporter {
        let rules = args.rules.resolve(None, folder)?;
        let mut fixtures = mcporter::import(&text, &path, args.server.as_deref(), &rules)?;
        if fixtures.len() > 1 {
            let names: Vec<&str> = fixtures.iter().map(|(n, _)| n.as_str()).collect();
            return Err(Error::usage(format!(
                "{path} holds several servers ({}): pick one with --server",
                names.join(", ")
            )));
        }
        fixtures.remove(0).1
    } else {
        Fixture::load(fixture_path)?
    };
    // What the mock will send: a client served an invalid message learns nothing good.
    crate::capture::warn_protocol("serve", &fixture, &path);
    let rules = args.rules.resolve(Some(&fixture), folder)?;
    let mut options = Options::new().allow_stray_output(args.stray.allow_stray_output);
    if let Some(pace) = args.pace {
        options = options.pace(pace);
    }
    if let Some(timeout) = args.timeout {
        options = options.timeout(timeout);
    }
    if let TimingScale(Some(scale)) = args.timing {
        let file = match &args.timing_file {
            Some(file) => file.clone(),
            None => PathBuf::from(path.strip_suffix(".jsonl").unwrap_or(&path))
                .with_extension("timing.jsonl"),
        };
        let timing = Timing::load(&file).map_err(|e| {
            Error::input(format!(
                "{e} (record it with `mcp-replay record --timing {}`, or name it with --timing-file)",
                file.display()
            ))
        })?;
        options = options.timing(timing, scale);
    }
    let name = fixture_path
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.strip_suffix(".jsonl").unwrap_or(n).to_owned())
        .unwrap_or_else(|| "fixture".to_owned());
    Ok(Served {
        name,
        fixture,
        rules,
        options,
    })
}

/// How long a session waits for a client that went away before it sent every recorded
/// message (unless `--idle` is longer): it may come back (a client whose pooled connections
/// time out between a person's clicks has no request open for a while).
const UNPLAYED_IDLE: Duration = Duration::from_secs(10);
/// How long a session's end waits for the client's open requests to finish (so that the
/// answer to its DELETE reaches it) before the report.
const DRAIN: Duration = Duration::from_secs(1);
/// The largest body of a POST without a session id, read here to tell an `initialize`
/// (the front's own limit).
const BODY_LIMIT: usize = 16 * 1024 * 1024;

/// What `serve --http` keeps for a live session: its front, and its open requests (each
/// until its response body is done: an SSE stream keeps the session open).
#[derive(Clone)]
struct Shell {
    front: Front,
    open: Arc<Connections>,
}

/// One fixture's endpoint: its path, its sessions, and how a new one starts.
struct Endpoint {
    /// `/mcp`, or with several fixtures `/mcp/NAME`.
    path: String,
    table: Mutex<Table<Shell>>,
    /// A new session's front and mock, on the fixture.
    start: Box<dyn Fn() -> (Front, HttpMock) + Send + Sync>,
}

/// Everything a connection needs to route its requests and start sessions.
struct Sessions {
    endpoints: Vec<Endpoint>,
    /// Each ended session's endpoint, number and report, to the main loop.
    ended: mpsc::UnboundedSender<(usize, u64, Report)>,
    /// Set on Ctrl-C or SIGTERM: every live session ends.
    stop: watch::Sender<bool>,
    idle: Duration,
    loopback: bool,
}

/// Serves each fixture at `http://ADDR/mcp` (several: `/mcp/NAME`) to `limit` client
/// sessions (each its own walk of the fixture, see `sessions.rs`), each ending with the
/// client's DELETE or the client without a request open for `idle` after it sent every
/// recorded message (for [`UNPLAYED_IDLE`] before), until they have all ended or on Ctrl-C
/// or SIGTERM. Prints the reports; whether every session was clean.
async fn serve_http(
    served: Vec<Served>,
    addr: &str,
    idle: Duration,
    limit: Limit,
) -> Result<bool, Error> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| Error::network(format!("serve --http: cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::network(format!("serve --http: {e}")))?;
    let several = served.len() > 1;
    let endpoints: Vec<Endpoint> = served
        .into_iter()
        .map(|one| endpoint(one, several, limit))
        .collect();
    for endpoint in &endpoints {
        eprintln!(
            "mcp-replay serve: listening on http://{local}{}",
            endpoint.path
        );
    }
    let (ended, mut reports) = mpsc::unbounded_channel();
    let sessions = Arc::new(Sessions {
        endpoints,
        ended,
        stop: watch::Sender::new(false),
        idle,
        loopback: local.ip().is_loopback(),
    });
    let mut tally = Tally::new(limit, several);
    let mut stop = crate::net::Stop::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => serve_connection(stream, sessions.clone()),
                Err(e) => eprintln!("mcp-replay serve: accepting a connection failed: {e}"),
            },
            Some((e, n, report)) = reports.recv() => {
                sessions.table(e).close(n);
                tally.add(n, &report);
                if (0..sessions.endpoints.len()).all(|e| sessions.table(e).done()) {
                    break;
                }
            }
            () = stop.wait() => break,
        }
    }
    sessions.stop.send_replace(true);
    for (e, endpoint) in sessions.endpoints.iter().enumerate() {
        if sessions.table(e).started() == 0 {
            // Stopped before any client came: the report says what it never sent.
            let (_, mock) = (endpoint.start)();
            tally.add(1, &mock.finish().await);
        }
    }
    while (0..sessions.endpoints.len()).any(|e| sessions.table(e).live() > 0) {
        let Some((e, n, report)) = reports.recv().await else {
            break;
        };
        sessions.table(e).close(n);
        tally.add(n, &report);
    }
    Ok(tally.finish())
}

/// The endpoint of one fixture: at `/mcp`, or `/mcp/NAME` when there are `several`.
fn endpoint(served: Served, several: bool, limit: Limit) -> Endpoint {
    let Served {
        name,
        fixture,
        rules,
        options,
    } = served;
    let stateless = fixture
        .entries()
        .iter()
        .find(|e| e.direction() == Direction::ClientToServer && e.kind() == MessageKind::Request)
        .and_then(|e| e.method())
        .is_some_and(|method| method != "initialize");
    Endpoint {
        path: match several {
            true => format!("/mcp/{name}"),
            false => "/mcp".to_owned(),
        },
        table: Mutex::new(Table::new(limit, stateless)),
        start: Box::new(move || fixture.mock().rules(&rules).options(&options).http()),
    }
}

impl Sessions {
    fn table(&self, e: usize) -> std::sync::MutexGuard<'_, Table<Shell>> {
        let table = &self.endpoints[e].table;
        table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the session of endpoint `e` its table just reserved: its mock, and the task
    /// that ends it.
    fn open(&self, e: usize, table: &mut Table<Shell>, n: u64) -> Shell {
        let (front, mock) = (self.endpoints[e].start)();
        let shell = Shell {
            front,
            open: Arc::default(),
        };
        table.open(shell.clone());
        let open = shell.open.clone();
        let (ended, idle, mut stop) = (self.ended.clone(), self.idle, self.stop.subscribe());
        tokio::spawn(async move {
            tokio::select! {
                () = mock.ended() => {}
                () = client_gone(&open, &mock, idle) => {}
                _ = stop.wait_for(|stop| *stop) => {}
            }
            let drained = tokio::time::timeout(DRAIN, open.idle_for(Duration::ZERO));
            let (report, _) = tokio::join!(mock.finish(), drained);
            let _ = ended.send((e, n, report));
        });
        shell
    }

    /// Answers one request: routed to its session (a new one for an `initialize` without a
    /// session id), or refused here when no session is the client's.
    async fn handle(&self, request: hyper::Request<Incoming>) -> hyper::Response<Body> {
        if self.loopback && !loopback_host(request.headers()) {
            return rebinding_refusal();
        }
        let path = request.uri().path();
        let Some(e) = self.endpoints.iter().position(|p| p.path == path) else {
            let paths: Vec<&str> = self.endpoints.iter().map(|p| p.path.as_str()).collect();
            let reason = format!("Not Found: the MCP endpoints are {}", paths.join(", "));
            return refusal(StatusCode::NOT_FOUND, &reason);
        };
        let (mut parts, body) = request.into_parts();
        // Each fixture's front serves its session at `/mcp`.
        parts.uri = front_uri(&parts.uri);
        let session = parts.headers.get(SESSION_ID).cloned();
        let post = parts.method == hyper::Method::POST;
        let (body, read) = if post && session.is_none() {
            match Limited::new(body, BODY_LIMIT).collect().await {
                Ok(collected) => {
                    let bytes = collected.to_bytes();
                    let read = serde_json::from_slice::<serde_json::Value>(&bytes)
                        .map(|m| m["method"] == "initialize");
                    (Either::Left(Full::new(bytes)), Some(read))
                }
                Err(e) if e.is::<LengthLimitError>() => {
                    return refusal(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "Payload Too Large: a body over 16 MiB",
                    )
                }
                Err(_) => {
                    return refusal(StatusCode::BAD_REQUEST, "Bad Request: the body ended early")
                }
            }
        } else {
            (Either::Right(body), None)
        };
        let initialize = matches!(read, Some(Ok(true)));
        let asked = Asked {
            session: session.as_ref().map(|id| id.as_bytes()),
            post,
            initialize,
        };
        let shell = {
            let mut table = self.table(e);
            match table.route(asked) {
                Route::Start(n) => Some((n, self.open(e, &mut table, n))),
                Route::To(n) => table.shell(n).map(|shell| (n, shell)),
                // A body that is not JSON is refused as that, unless a session takes it.
                Route::Refuse(..) if matches!(read, Some(Err(_))) => {
                    return refusal(StatusCode::BAD_REQUEST, "Parse error: the body is not JSON")
                }
                Route::Refuse(status, reason) => return refusal(status, reason),
            }
        };
        let Some((n, shell)) = shell else {
            return refusal(StatusCode::NOT_FOUND, "Not Found: the session has ended");
        };
        let open = shell.open.open();
        let response = shell
            .front
            .handle(hyper::Request::from_parts(parts, body))
            .await;
        if initialize {
            if let Some(id) = response.headers().get(SESSION_ID) {
                self.table(e).name(n, id.as_bytes());
            }
        }
        response.map(|body| Held { body, _open: open }.boxed())
    }
}

/// `uri` with the path a fixture's front serves, `/mcp` (the query kept).
fn front_uri(uri: &hyper::Uri) -> hyper::Uri {
    let mut parts = uri.clone().into_parts();
    let path = match uri.query() {
        Some(query) => format!("/mcp?{query}"),
        None => "/mcp".to_owned(),
    };
    parts.path_and_query = path.parse().ok();
    hyper::Uri::from_parts(parts).unwrap_or_else(|_| uri.clone())
}

/// Serves one client connection's requests (HTTP/1.1, kept alive).
fn serve_connection(stream: tokio::net::TcpStream, sessions: Arc<Sessions>) {
    // Each SSE event as its own small write: not held back waiting for an ACK.
    let _ = stream.set_nodelay(true);
    tokio::spawn(async move {
        let service = service_fn(move |request| {
            let sessions = sessions.clone();
            async move { Ok::<_, Infallible>(sessions.handle(request).await) }
        });
        let _ = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(crate::net::HEAD_WAIT)
            .serve_connection(TokioIo::new(stream), service)
            .await;
    });
}

/// The response body `serve --http` sends.
type Body = BoxBody<bytes::Bytes, std::io::Error>;

/// A response body that keeps its session's request open until it is done or dropped.
struct Held<B> {
    body: B,
    _open: Open,
}

impl<B: hyper::body::Body + Unpin> hyper::body::Body for Held<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<B::Data>, B::Error>>> {
        std::pin::Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// What the sessions came to: with one session, its report as it is; with more, each one
/// with findings, then a line of counts.
struct Tally {
    /// One session of one fixture: its report as it is.
    one: bool,
    ok: u64,
    failed: u64,
}

impl Tally {
    fn new(limit: Limit, several: bool) -> Self {
        Tally {
            one: limit == Limit(Some(1)) && !several,
            ok: 0,
            failed: 0,
        }
    }

    fn add(&mut self, n: u64, report: &Report) {
        if report.is_ok() {
            self.ok += 1;
        } else {
            self.failed += 1;
        }
        if self.one {
            print_report(report);
        } else if !report.is_ok() {
            eprintln!("mcp-replay serve: session {n}:");
            print_report(report);
        }
    }

    /// Prints the counts (more than one session); whether every session was clean.
    fn finish(self) -> bool {
        if !self.one {
            let n = self.ok + self.failed;
            let sessions = if n == 1 { "session" } else { "sessions" };
            eprintln!(
                "mcp-replay serve: {n} {sessions}: {} ok, {} with findings",
                self.ok, self.failed
            );
        }
        self.failed == 0
    }
}

/// The report on stderr, in color where wanted.
fn print_report(report: &Report) {
    if mcp_replay::_support::color_wanted(std::io::stderr().is_terminal()) {
        eprintln!("{report:#}");
    } else {
        eprintln!("{report}");
    }
}

/// Whether a request's `Host` (when it has one) names a loopback address or `localhost`.
/// On a loopback address, `serve --http` answers only those, as the SDKs' servers do
/// against DNS rebinding: a page whose name resolves to 127.0.0.1 sends its own name as
/// `Host` and `Origin` alike, which the front's `Origin` rule (this host or loopback) lets
/// through. The conformance suite's `dns-rebinding-protection` sends exactly that.
fn loopback_host(headers: &hyper::HeaderMap) -> bool {
    let Some(host) = headers.get(hyper::header::HOST) else {
        return true;
    };
    let Some((name, _)) = crate::net::host_of(host) else {
        return false;
    };
    match name.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => name == "localhost",
    }
}

/// 403 with a JSON-RPC error, for a foreign `Host` (not part of the session: no finding).
fn rebinding_refusal() -> hyper::Response<Body> {
    refusal(
        StatusCode::FORBIDDEN,
        "Forbidden: the Host is not a loopback name, and this mock listens on a loopback \
         address (DNS rebinding)",
    )
}

/// `status` with a JSON-RPC error saying `reason`: a request no session takes.
fn refusal(status: StatusCode, reason: &str) -> hyper::Response<Body> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000,
        "message": reason}});
    let mut response = hyper::Response::new(
        Full::new(bytes::Bytes::from(body.to_string()))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// Resolves once the client has had no request open for `idle` after it sent every
/// recorded message, or for [`UNPLAYED_IDLE`] (at least `idle`) before that.
async fn client_gone(connections: &Connections, mock: &HttpMock, idle: Duration) {
    let played = async {
        mock.played().await;
        connections.idle_for(idle).await;
    };
    tokio::select! {
        () = played => {}
        () = connections.idle_for(idle.max(UNPLAYED_IDLE)) => {}
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn read_timing_modes() {
        assert_eq!(timing_scale("recorded").unwrap().0, Some(1.0));
        assert_eq!(timing_scale("scaled:0.5").unwrap().0, Some(0.5));
        assert_eq!(timing_scale("none").unwrap().0, None);
        assert!(timing_scale("scaled:-1").is_err());
        assert!(timing_scale("fast").is_err());
    }
}
