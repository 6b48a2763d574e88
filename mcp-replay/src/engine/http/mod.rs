//! MCP over Streamable HTTP (cargo feature `http`, off by default).
//!
//! The replay engine speaks newline-delimited JSON-RPC over an in-process pipe; a
//! fixture is about MCP messages, not transports. [`bridge`] connects that pipe to an
//! HTTP service (any tower `Service<http::Request<_>>`, e.g. rmcp's
//! `StreamableHttpService`; the bounds are named once by [`HttpService`]), so the same
//! engine and fixtures replay over Streamable HTTP; [`sse`] parses the Server-Sent
//! Events streams the service answers with.
//!
//! [`Replay::http`](crate::Replay::http) replays a fixture through the bridge; what the transport did
//! wrong is reported as [`MismatchKind::Http`] findings beside the MCP ones.
//!
//! `#[mcp_fixture("name", http)]` is the attribute form. A fixture header's
//! `"http_resume"` marks progress notifications after which the bridge drops the SSE stream
//! and resumes it with `Last-Event-ID` (`docs/http.md`, "Resumability").
//!
//! The other way round, [`front`] serves a line-speaking server (a fixture's mock server,
//! [`Mock::http`](crate::engine::mock::Mock::http)) to a client under test over Streamable HTTP; `mcp-replay serve
//! --http ADDR` mounts it on a socket.

#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub mod bridge;
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub mod front;
mod headers;
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub mod sse;

use crate::data::fixture::{Direction, MessageKind};
use crate::findings::report::{Mismatch, MismatchKind, Report};
use crate::options::Settings;
use crate::{Fixture, Options, Rules};
use bridge::Bridge;
use bytes::Bytes;
use http::{Request, Response};
use http_body::Body;
use http_body_util::Full;
use std::fmt::Display;
use std::future::Future;
use tower_service::Service;

/// A Streamable HTTP service the [`Bridge`] can replay against: a tower
/// `Service<http::Request<Full<Bytes>>>` answering `http::Response`s, with a future that
/// can cross threads and an error that can be shown, whose response bodies yield `Send`
/// data and displayable errors; e.g. rmcp's `StreamableHttpService`.
///
/// Implemented for every such service (a blanket impl): there is nothing to implement,
/// the trait only names these bounds once. In generic code, `S: HttpService` gives
/// `S::ResBody` for the type of the response bodies.
pub trait HttpService:
    Service<
        Request<Full<Bytes>>,
        Response = Response<Self::ResBody>,
        Future: Send,
        Error: Display + Send,
    > + Send
    + 'static
{
    /// The body of the service's responses.
    type ResBody: Body<Data: Send, Error: Display> + Send + 'static;
}

impl<S, B> HttpService for S
where
    S: Service<Request<Full<Bytes>>, Response = Response<B>> + Send + 'static,
    S::Future: Send,
    S::Error: Display + Send,
    B: Body<Data: Send, Error: Display> + Send + 'static,
{
    type ResBody = B;
}

impl<'f> crate::Replay<'f> {
    /// Replays against a Streamable HTTP service in process (any tower
    /// `Service<http::Request<Full<Bytes>>>`, e.g. rmcp's `StreamableHttpService`): the
    /// same engine and findings as over the pipe, plus an
    /// [`Http`](crate::MismatchKind::Http) finding for each thing the transport did wrong
    /// (cargo feature `http`).
    pub fn http<S: HttpService>(self, service: S) -> impl Future<Output = Report> + Send + 'f {
        self.bridge(Bridge::new(service))
    }

    /// Replays through a configured [`Bridge`](Bridge) (endpoint, time
    /// limit, body limit).
    pub fn bridge<S: HttpService>(
        self,
        bridge: Bridge<S>,
    ) -> impl Future<Output = Report> + Send + 'f {
        self.bridge_erased(bridge.erase())
    }

    async fn bridge_erased(self, bridge: Bridge<DynService>) -> Report {
        let (fixture, rules, options) = self.parts();
        fixture.replay_erased_bridge(&rules, options, bridge).await
    }
}

impl Fixture {
    /// The replay over Streamable HTTP ([`Replay::bridge`](crate::Replay::bridge)),
    /// compiled once here: the service comes erased ([`DynService`]), so a test crate
    /// instantiates none of the bridge.
    pub(crate) async fn replay_erased_bridge(
        &self,
        rules: &Rules,
        options: &Options,
        bridge: Bridge<DynService>,
    ) -> Report {
        let problems = bridge.problems();
        let bridge = bridge
            .listen_early(announces_at_start(self))
            .listed_tools(&listed_tools(self));
        // Validated when the fixture was read; a fixture built in code may still be wrong.
        let bridge = match self.resume_points() {
            Ok(points) => bridge.resume_at(points),
            Err(error) => {
                push_problem(&problems, format!("the fixture's \"http_resume\": {error}"));
                bridge
            }
        };
        let settings = options.resolve(self, rules).across_streams(self);
        let mut report = replay_bridged(self, settings, bridge).await;
        let found = std::mem::take(&mut *problems.lock().unwrap_or_else(|e| e.into_inner()));
        // A server that wants credentials answered nothing: what the session then missed is
        // its doing, and the one finding says so and what to pass.
        if found.iter().any(|p| p.contains(bridge::WANTS_CREDENTIALS)) {
            report.mismatches.clear();
        }
        report.mismatches.extend(
            found
                .into_iter()
                .map(|problem| Mismatch::new(MismatchKind::Http, None, problem)),
        );
        report
    }
}

/// The replay over `bridge`: the client's lines go to it over a pipe, its lines come
/// back over a channel the replay reads itself (no writer task and no second pipe
/// between them, a task hop fewer for every server message).
async fn replay_bridged(
    fixture: &Fixture,
    settings: Settings<'_>,
    bridge: Bridge<DynService>,
) -> Report {
    let (to_bridge, from_harness) = tokio::io::duplex(crate::engine::transport::PIPE_CAPACITY);
    let (lines, from_bridge) = tokio::sync::mpsc::unbounded_channel();
    // Boxed, as a serve closure's future is (see `replay::Serve`).
    let serving = Box::pin(bridge.run_lines(from_harness, lines));
    let server = tokio::spawn(async move {
        serving.await;
        Ok(())
    });
    let pipe = (bridge::ChannelLines::new(from_bridge), to_bridge);
    let grace = crate::engine::transport::STOP_GRACE.min(settings.timeout);
    let stopping = crate::engine::transport::Stopping::in_process(grace);
    crate::engine::replay::run(fixture, &settings, pipe, Some(server), stopping).await
}

/// A Streamable HTTP service with its types erased: what the bridge runs on, so that the
/// bridge is compiled once, in this crate, whatever service a test hands it. Its errors
/// are their messages; its bodies yield [`Bytes`].
pub struct DynService(Box<dyn ErasedService>);

/// The body of a [`DynService`]'s responses.
#[doc(hidden)] // for the command and this repository's tests: not a test author's API
pub type DynBody = http_body_util::combinators::UnsyncBoxBody<Bytes, String>;

/// The future of a [`DynService`]'s call.
type DynFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response<DynBody>, String>> + Send>>;

impl DynService {
    /// Erases `service`.
    pub fn new<S: HttpService>(service: S) -> DynService {
        DynService(Box::new(service))
    }
}

impl std::fmt::Debug for DynService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DynService(..)")
    }
}

/// The object-safe face of an [`HttpService`].
trait ErasedService: Send {
    fn ready(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), String>>;
    fn call_erased(&mut self, request: Request<Full<Bytes>>) -> DynFuture;
}

impl<S: HttpService> ErasedService for S {
    fn ready(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), String>> {
        Service::poll_ready(self, cx).map_err(|e| e.to_string())
    }

    fn call_erased(&mut self, request: Request<Full<Bytes>>) -> DynFuture {
        use bytes::Buf as _;
        use http_body_util::BodyExt as _;
        let answer = Service::call(self, request);
        Box::pin(async move {
            let response = answer.await.map_err(|e| e.to_string())?;
            Ok(response.map(|body| {
                body.map_frame(|frame| {
                    frame.map_data(|mut data| data.copy_to_bytes(data.remaining()))
                })
                .map_err(|e| e.to_string())
                .boxed_unsync()
            }))
        })
    }
}

impl Service<Request<Full<Bytes>>> for DynService {
    type Response = Response<DynBody>;
    type Error = String;
    type Future = DynFuture;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), String>> {
        self.0.ready(cx)
    }

    fn call(&mut self, request: Request<Full<Bytes>>) -> DynFuture {
        self.0.call_erased(request)
    }
}

/// Whether the server announced a list change while the session started: a
/// `notifications/.../list_changed` after `notifications/initialized` and before the first
/// response that follows it. Over HTTP only a client that listens early sees it
/// ([`Bridge::listen_early`]); a session recorded from an SDK client over HTTP does not have it.
fn announces_at_start(fixture: &Fixture) -> bool {
    let mut entries = fixture.entries().iter();
    if !entries.any(|e| e.method() == Some("notifications/initialized")) {
        return false;
    }
    for entry in entries {
        if entry.direction() != Direction::ServerToClient {
            continue;
        }
        match entry.kind() {
            MessageKind::Response => return false,
            MessageKind::Notification
                if entry.method().is_some_and(|m| m.ends_with("list_changed")) =>
            {
                return true
            }
            _ => {}
        }
    }
    false
}

/// The recorded `tools/list` results (the server's responses that list tools).
fn listed_tools(fixture: &Fixture) -> Vec<serde_json::Value> {
    fixture
        .entries()
        .iter()
        .filter(|e| e.direction() == Direction::ServerToClient && e.kind() == MessageKind::Response)
        .filter(|e| e.text().contains("\"tools\""))
        .map(|e| e.message())
        .collect()
}

fn push_problem(problems: &bridge::Problems, problem: String) {
    problems
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(problem);
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: &str = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"count_up","arguments":{"to":1}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"<PROGRESS_TOKEN>","progress":1}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"counted"}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#,
        "\n",
    );

    /// Over HTTP a log may come on another stream than the progress it followed: it is
    /// checked unordered, progress is not; a strict fixture keeps its one order.
    #[test]
    fn notifications_but_progress_are_unordered_across_streams() {
        let fixture = Fixture::parse(CALL).unwrap();
        let rules = Rules::default();
        let settings = Options::new()
            .resolve(&fixture, &rules)
            .across_streams(&fixture);
        assert!(settings.is_unordered("notifications/message"));
        assert!(!settings.is_unordered("notifications/progress"));

        let strict = Fixture::parse(&format!(
            "{{\"mcp_replay\":1,\"strict_order\":true}}\n{CALL}"
        ))
        .unwrap();
        let settings = Options::new()
            .resolve(&strict, &rules)
            .across_streams(&strict);
        assert!(!settings.is_unordered("notifications/message"));
    }

    /// A subscription's acknowledgement travels on its `subscriptions/listen` stream: tied
    /// to that request by the id it names (so the next client line waits for it), not
    /// unordered as a message of any stream.
    #[test]
    fn a_subscription_acknowledgement_stays_tied_to_its_listen_stream() {
        let fixture = Fixture::parse(concat!(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID:1>","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"<REQUEST_ID:1>"}}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}}"#,
            "\n",
        ))
        .unwrap();
        let rules = Rules::default();
        let settings = Options::new()
            .resolve(&fixture, &rules)
            .across_streams(&fixture);
        assert!(!settings.is_unordered("notifications/subscriptions/acknowledged"));
        assert!(settings.is_unordered("notifications/message"));
    }
}
