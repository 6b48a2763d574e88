//! `mcp-replay serve`: the fixture's mock server for a client under test, on stdio or, with
//! `--http ADDR`, over Streamable HTTP on a socket for one client session (the runtime's
//! [`Front`](mcp_replay::_support::front::Front) on hyper).

use crate::args::{positive_time, RulesArg, StrayArg};
use crate::error::{Error, Outcome};
use crate::net::Connections;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mcp_replay::_support::front::HttpMock;
use mcp_replay::_support::mcporter;
use mcp_replay::_support::parse_duration;
use mcp_replay::mock::Timing;
use mcp_replay::{Fixture, Options, Report, Rules};
use std::convert::Infallible;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// `mcp-replay serve`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The fixture, or an mcporter recording
    #[arg(value_name = "FIXTURE|RECORDING")]
    pub fixture: PathBuf,
    /// Serve over Streamable HTTP at http://ADDR/mcp instead of stdio (ADDR is host:port,
    /// e.g. 127.0.0.1:0)
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Over HTTP: end the session once the client has had no connection open for TIME
    /// after it sent every recorded message (it went without a DELETE); before that, 10s
    /// (or TIME if longer): it may come back
    #[arg(long, value_name = "TIME", requires = "http", default_value = "2s", value_parser = positive_time)]
    pub idle: Duration,
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
        "\n",
        "With --http, `listening on http://HOST:PORT/mcp` goes to stderr once the port is\n",
        "bound (port 0 picks a free one); one client session is served, and it ends with the\n",
        "client's DELETE, 2 s after the client's last connection closed, or on Ctrl-C or SIGTERM.\n",
        "\n",
        "The report goes to stderr when the session ends. Exit 0 when the client did what\n",
        "the recording did, 1 on findings, 2 on a usage or input error (a fixture that does\n",
        "not exist, is invalid or holds a secret; an address that cannot be bound)."
    );

/// Plays the fixture's server side to the client on stdio (or over HTTP), then prints the
/// report on stderr; findings if the client did not do what the recording did.
pub(crate) async fn run(args: Args) -> Result<Outcome, Error> {
    let path = args.fixture.display().to_string();
    let text = std::fs::read_to_string(&args.fixture)
        .map_err(|e| Error::input(format!("reading {path}: {e}")))?;
    let folder = args.fixture.parent().unwrap_or(Path::new("."));
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
        Fixture::load(&args.fixture)?
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
    let report = match &args.http {
        Some(addr) => serve_http(&fixture, &rules, &options, addr, args.idle).await?,
        None => {
            fixture
                .mock()
                .rules(&rules)
                .options(&options)
                .serve(tokio::io::stdin(), tokio::io::stdout())
                .await
        }
    };
    if mcp_replay::_support::color_wanted(std::io::stderr().is_terminal()) {
        eprintln!("{report:#}");
    } else {
        eprintln!("{report}");
    }
    Ok(if report.is_ok() {
        Outcome::Success
    } else {
        Outcome::Findings
    })
}

/// How long the session waits for a client that went away before it sent every recorded
/// message (unless `--idle` is longer): it may come back (a client whose pooled connections
/// time out between a person's clicks has no connection open for a while).
const UNPLAYED_IDLE: Duration = Duration::from_secs(10);
/// How long the end waits for the client to close its connections (so that the answer to
/// its DELETE reaches it) before the report.
const DRAIN: Duration = Duration::from_secs(1);

/// Serves `fixture` at `http://ADDR/mcp` until the session ends (the client's DELETE, the
/// client without a connection open for `idle` after it sent every recorded message, or for
/// [`UNPLAYED_IDLE`] before, or Ctrl-C or SIGTERM), and returns the mock's report.
async fn serve_http(
    fixture: &Fixture,
    rules: &Rules,
    options: &Options,
    addr: &str,
    idle: Duration,
) -> Result<Report, Error> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| Error::network(format!("serve --http: cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::network(format!("serve --http: {e}")))?;
    eprintln!("mcp-replay serve: listening on http://{local}/mcp");
    let (front, mock) = fixture.mock().rules(rules).options(options).http();
    let connections = Arc::new(Connections::default());
    let mut served = false;
    let mut stop = crate::net::Stop::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        eprintln!("mcp-replay serve: accepting a connection failed: {e}");
                        continue;
                    }
                };
                // Each SSE event as its own small write: not held back waiting for an ACK.
                let _ = stream.set_nodelay(true);
                served = true;
                let open = connections.open();
                let front = front.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                        let front = front.clone();
                        async move {
                            if local.ip().is_loopback() && !loopback_host(request.headers()) {
                                return Ok::<_, Infallible>(rebinding_refusal());
                            }
                            Ok(front.handle(request).await.map(BodyExt::boxed))
                        }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                    drop(open);
                });
            }
            () = mock.ended() => break,
            () = client_gone(&connections, &mock, idle), if served => break,
            () = stop.wait() => break,
        }
    }
    let drained = tokio::time::timeout(DRAIN, connections.idle_for(Duration::ZERO));
    let (report, _) = tokio::join!(mock.finish(), drained);
    Ok(report)
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
fn rebinding_refusal() -> hyper::Response<BoxBody<bytes::Bytes, std::io::Error>> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000,
        "message": "Forbidden: the Host is not a loopback name, and this mock listens on a \
                    loopback address (DNS rebinding)"}});
    let mut response = hyper::Response::new(
        Full::new(bytes::Bytes::from(body.to_string()))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = hyper::StatusCode::FORBIDDEN;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

/// Resolves once the client has had no connection open for `idle` after it sent every
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
