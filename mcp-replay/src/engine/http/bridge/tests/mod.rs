//! The bridge against rmcp's Streamable HTTP service and canned services: round trips,
//! the replay engine over HTTP, HTTP-level problems, the GET stream, time limits.

use super::outgoing::Outgoing;
use super::*;
use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use http::{Method, Request, Response};
use http_body::Body;
use http_body_util::Full;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tower_service::Service;

/// Resumption: dropping a stream at a drop point and resuming it with `Last-Event-ID`.
mod resume;

/// A tiny server with one tool, `echo`, which reports two steps of progress first when
/// the call has a progress token (several events in one SSE stream).
#[derive(Clone)]
struct Tiny;

impl ServerHandler for Tiny {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "echo",
            "Echoes its text.",
            schema,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(token) = context.meta.get_progress_token() {
            for step in [1.0, 2.0] {
                let mut progress = ProgressNotificationParam::new(token.clone(), step);
                progress.total = Some(2.0);
                let _ = context.peer.notify_progress(progress).await;
            }
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// The harness's end of a pipe whose other end a bridge serves.
struct Harness {
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    write: tokio::io::WriteHalf<DuplexStream>,
}

impl Harness {
    async fn send(&mut self, message: Value) {
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        self.write.write_all(&line).await.unwrap();
    }

    async fn receive(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a line within 10 s")
            .unwrap()
            .expect("a line, not the end");
        serde_json::from_str(&line).unwrap()
    }
}

fn start<S: HttpService>(bridge: Bridge<S>) -> (Harness, tokio::task::JoinHandle<()>) {
    let (server_end, harness_end) = tokio::io::duplex(64 * 1024);
    let task = tokio::spawn(bridge.run(server_end));
    let (read, write) = tokio::io::split(harness_end);
    let harness = Harness {
        lines: BufReader::new(read).lines(),
        write,
    };
    (harness, task)
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bridge-test", "version": "0"}
    }})
}

async fn round_trip(config: StreamableHttpServerConfig) -> Vec<String> {
    let service = StreamableHttpService::new(
        || Ok(Tiny),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let bridge = Bridge::new(service);
    let problems = bridge.problems();
    let (mut harness, task) = start(bridge);

    harness.send(initialize(0)).await;
    let answer = harness.receive().await;
    assert_eq!(answer["id"], json!(0), "{answer}");
    assert_eq!(
        answer["result"]["protocolVersion"],
        json!("2025-06-18"),
        "{answer}"
    );

    harness
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    harness
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let answer = harness.receive().await;
    assert_eq!(answer["id"], json!(1), "{answer}");
    assert_eq!(
        answer["result"]["tools"][0]["name"],
        json!("echo"),
        "{answer}"
    );

    harness
        .send(
            json!({"jsonrpc": "2.0", "id": "two", "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "over HTTP"}}}),
        )
        .await;
    let answer = harness.receive().await;
    assert_eq!(answer["id"], json!("two"), "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("over HTTP"),
        "{answer}"
    );

    // The engine closes its end: the bridge ends the session and closes the pipe.
    harness.write.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("the bridge ends when the pipe closes")
        .unwrap();
    assert_eq!(harness.lines.next_line().await.unwrap(), None);
    let problems = problems.lock().unwrap().clone();
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_round_trip_over_sse() {
    let config = StreamableHttpServerConfig::default().with_sse_keep_alive(None);
    assert_eq!(round_trip(config).await, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_round_trip_stateless_json() {
    let config = StreamableHttpServerConfig::default()
        .with_sse_keep_alive(None)
        .with_legacy_session_mode(false)
        .with_json_response(true);
    // No session at all, which every era allows: no problem.
    assert_eq!(round_trip(config).await, Vec::<String>::new());
}

/// The replay engine itself, over the bridge: the same kind of fixture as over the pipe.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_engine_over_http() {
    const TEXT: &str = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":"<CLIENT_CAPABILITIES>","clientInfo":"<CLIENT_INFO>","protocolVersion":"<PROTOCOL_VERSION>"}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"rmcp","version":"3.11.0"}}}}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"description":"Echoes its text.","inputSchema":{"properties":{"text":{"type":"string"}},"type":"object"},"name":"echo"}]}}}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"hi"}],"isError":false}}}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"echo","arguments":{"text":"slow"}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":"<PROGRESS_TOKEN>","total":2.0}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2.0,"progressToken":"<PROGRESS_TOKEN>","total":2.0}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"slow"}],"isError":false}}}"#,
        "\n",
    );
    let fixture = crate::Fixture::parse(TEXT).unwrap();
    let service = StreamableHttpService::new(
        || Ok(Tiny),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_sse_keep_alive(None),
    );
    let bridge = Bridge::new(service);
    let problems = bridge.problems();
    let report = fixture
        .replay()
        .run(|transport| bridge.run(transport))
        .await;
    assert!(report.is_ok(), "{report}");
    assert_eq!(*problems.lock().unwrap(), Vec::<String>::new());

    // A wrong expectation is a finding as over the pipe.
    let wrong = TEXT.replace(
        r#""type":"text","text":"hi""#,
        r#""type":"text","text":"ho""#,
    );
    let wrong = crate::Fixture::parse(&wrong).unwrap();
    let service = StreamableHttpService::new(
        || Ok(Tiny),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_sse_keep_alive(None),
    );
    let report = wrong
        .replay()
        .run(|transport| Bridge::new(service).run(transport))
        .await;
    assert_eq!(report.mismatches().len(), 1, "{report}");
    assert_eq!(report.mismatches()[0].kind(), crate::MismatchKind::Result);
}

/// A service in front of another that answers a notification with 200 instead of 202:
/// an HTTP-level fault under correct MCP messages.
#[derive(Clone)]
struct OkForAccepted<S>(S);

impl<S, B> Service<Request<Full<Bytes>>> for OkForAccepted<S>
where
    S: Service<Request<Full<Bytes>>, Response = Response<B>> + Send,
    S::Future: Send + 'static,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<B>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Full<Bytes>>) -> Self::Future {
        let answer = self.0.call(request);
        Box::pin(async move {
            let mut response = answer.await?;
            if response.status() == http::StatusCode::ACCEPTED {
                *response.status_mut() = http::StatusCode::OK;
            }
            Ok(response)
        })
    }
}

/// `Fixture::replay_http`: green against the service, and an `http` finding (beside no
/// MCP finding) when the transport misbehaves under correct messages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_http_reports_what_the_transport_did_wrong_as_http_findings() {
    let fixture = crate::Fixture::parse(concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"hi"}]}}}"#,
        "\n",
    ))
    .unwrap();
    let service = || {
        StreamableHttpService::new(
            || Ok(Tiny),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default().with_sse_keep_alive(None),
        )
    };
    let green = fixture.replay().http(service()).await;
    assert!(green.is_ok(), "{green}");

    let faulty = fixture.replay().http(OkForAccepted(service())).await;
    let kinds: Vec<_> = faulty.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [crate::MismatchKind::Http], "{faulty}");
    let text = faulty.to_string();
    assert!(
        text.contains("1. http: POST #2 (notification notifications/initialized): answered HTTP 200 OK instead of 202 Accepted"),
        "{text}"
    );
}

/// How a [`Canned`] service answers a request.
/// `None` leaves the request without an answer for good.
type Answerer = dyn Fn(&Request<Full<Bytes>>) -> Option<Response<Full<Bytes>>> + Send + Sync;

/// A service answering every request from a closure, and recording what it was sent.
#[derive(Clone)]
struct Canned {
    answer: Arc<Answerer>,
    seen: Arc<Mutex<Vec<Request<Full<Bytes>>>>>,
}

impl Service<Request<Full<Bytes>>> for Canned {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Full<Bytes>>) -> Self::Future {
        let response = (self.answer)(&request);
        self.seen.lock().unwrap().push(request);
        match response {
            Some(response) => Box::pin(std::future::ready(Ok(response))),
            None => Box::pin(std::future::pending()),
        }
    }
}

fn respond(status: u16, content_type: Option<&str>, body: &str) -> Response<Full<Bytes>> {
    let mut builder = Response::builder().status(status);
    if let Some(content_type) = content_type {
        builder = builder.header(CONTENT_TYPE, content_type);
    }
    builder
        .header(SESSION_ID, "s-1")
        .body(Full::new(Bytes::from(body.to_owned())))
        .unwrap()
}

fn method_of(request: &Request<Full<Bytes>>) -> Option<String> {
    let body = request.body().clone();
    let bytes = futures_block(body);
    let value: Value = serde_json::from_slice(&bytes).ok()?;
    value["method"].as_str().map(str::to_owned)
}

/// The bytes of a `Full` body (ready at once).
fn futures_block(body: Full<Bytes>) -> Bytes {
    let mut body = std::pin::pin!(body);
    let waker = std::task::Waker::noop();
    let mut cx = Context::from_waker(waker);
    match body.as_mut().poll_frame(&mut cx) {
        Poll::Ready(Some(Ok(frame))) => frame.into_data().unwrap_or_default(),
        _ => Bytes::new(),
    }
}

#[tokio::test]
async fn http_problems_are_collected() {
    let answer = |request: &Request<Full<Bytes>>| {
        if request.method() == Method::GET {
            // No stream for the server's own messages: not a problem.
            return Some(respond(405, None, ""));
        }
        Some(match method_of(request).as_deref() {
            Some("initialize") => respond(
                200,
                Some("text/event-stream"),
                "id: 0\nretry: 3000\ndata:\n\n: comment\r\ndata: {\"jsonrpc\":\"2.0\",\r\n\
                 data: \"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\r\n\r\n",
            ),
            Some("notifications/initialized") => respond(200, None, ""),
            Some("ping") => respond(200, Some("text/plain"), "pong"),
            Some("tools/list") => respond(500, Some("text/plain"), "boom"),
            Some("tools/call") => respond(
                200,
                Some("text/event-stream"),
                "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n\
                 data: not json\n\n",
            ),
            _ => respond(200, Some("application/json"), ""),
        })
    };
    let seen = Arc::new(Mutex::new(Vec::new()));
    let bridge = Bridge::new(Canned {
        answer: Arc::new(answer),
        seen: seen.clone(),
    });
    let problems = bridge.problems();
    let (mut harness, task) = start(bridge);

    harness.send(initialize(0)).await;
    let answer = harness.receive().await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18"}})
    );
    harness
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    harness
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    harness
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    harness
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call"}))
        .await;
    let progress = harness.receive().await;
    assert_eq!(progress["method"], json!("notifications/progress"));
    harness.write.shutdown().await.unwrap();
    task.await.unwrap();

    let problems = problems.lock().unwrap().clone();
    let expected = [
        "POST #2 (notification notifications/initialized): answered HTTP 200 OK instead of 202 Accepted",
        "POST #3 (request 1, ping): answered with Content-Type `text/plain` instead of application/json or text/event-stream",
        "POST #4 (request 2, tools/list): answered HTTP 500 Internal Server Error instead of 200: boom",
        "POST #5 (request 3, tools/call): an SSE event's data is not JSON",
        "POST #5 (request 3, tools/call): the answer ended without the response to request 3",
    ];
    for want in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(want)),
            "missing {want:?} in {problems:#?}"
        );
    }
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");

    // The headers: the session after initialize, the negotiated version, Accept; the GET
    // stream asked for once notifications/initialized is answered (405 here: none);
    // DELETE last.
    let mut seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 7);
    let get = seen.remove(2);
    assert_eq!(get.headers()[PROTOCOL_VERSION], "2025-06-18");
    assert_eq!(get.method(), Method::GET);
    assert_eq!(get.headers()[ACCEPT], "text/event-stream");
    assert_eq!(get.headers()[SESSION_ID], "s-1");
    assert!(seen[0].headers().get(SESSION_ID).is_none());
    assert!(seen[0].headers().get(PROTOCOL_VERSION).is_none());
    for request in &seen[1..] {
        assert_eq!(request.headers()[SESSION_ID], "s-1");
        assert_eq!(request.headers()[PROTOCOL_VERSION], "2025-06-18");
    }
    for request in &seen[..5] {
        assert_eq!(request.method(), Method::POST);
        assert_eq!(request.headers()[ACCEPT], ACCEPT_BOTH);
        assert_eq!(request.headers()[CONTENT_TYPE], "application/json");
        assert_eq!(request.headers()[HOST], "localhost");
    }
    assert_eq!(seen[5].method(), Method::DELETE);
}

/// 2026-07-28 negotiates nothing: every POST carries the version the last line named,
/// the notifications and the answers to the server that name none included (a server of
/// that era reads a POST without it as the older era's), with `Mcp-Method` where one applies.
#[tokio::test]
async fn every_post_of_the_stateless_era_carries_its_version() {
    let answer = |request: &Request<Full<Bytes>>| match method_of(request).as_deref() {
        Some("tools/list") => Some(respond(
            200,
            Some("application/json"),
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        )),
        _ => Some(respond(202, None, "")),
    };
    let seen = Arc::new(Mutex::new(Vec::new()));
    let bridge = Bridge::new(Canned {
        answer: Arc::new(answer),
        seen: seen.clone(),
    });
    let (mut harness, task) = start(bridge);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    harness
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}))
        .await;
    assert_eq!(harness.receive().await["result"], json!({"tools": []}));
    harness
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1}}),
        )
        .await;
    harness
        .send(json!({"jsonrpc": "2.0", "id": "s-1", "result": {"roots": []}}))
        .await;
    harness.write.shutdown().await.unwrap();
    task.await.unwrap();

    let seen = seen.lock().unwrap().clone();
    let posts: Vec<_> = seen.iter().filter(|r| r.method() == Method::POST).collect();
    assert_eq!(posts.len(), 3, "{seen:#?}");
    for post in &posts {
        assert_eq!(post.headers()[PROTOCOL_VERSION], "2026-07-28");
    }
    assert_eq!(posts[0].headers()["mcp-method"], "tools/list");
    assert_eq!(posts[1].headers()["mcp-method"], "notifications/cancelled");
    // An answer has no method.
    assert!(posts[2].headers().get("mcp-method").is_none());
}

/// After `notifications/initialized`, the GET stream carries the server's own messages
/// to the engine; a GET answered with JSON is a problem.
#[tokio::test]
async fn the_get_stream_carries_the_servers_own_messages() {
    for (get, want) in [
        (
            respond(
                200,
                Some("text/event-stream"),
                "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
            ),
            None,
        ),
        (
            respond(200, Some("application/json"), "{}"),
            Some("GET (the stream for the server's own messages): answered 200 without Content-Type text/event-stream"),
        ),
    ] {
        let answer = move |request: &Request<Full<Bytes>>| {
            if request.method() == Method::GET {
                return Some(get.clone());
            }
            Some(match method_of(request).as_deref() {
                Some("initialize") => respond(
                    200,
                    Some("application/json"),
                    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}"#,
                ),
                _ => respond(202, None, ""),
            })
        };
        let bridge = Bridge::new(Canned {
            answer: Arc::new(answer),
            seen: Arc::default(),
        });
        let problems = bridge.problems();
        let (mut harness, task) = start(bridge);
        harness.send(initialize(0)).await;
        assert_eq!(harness.receive().await["id"], json!(0));
        harness
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        if want.is_none() {
            let own = harness.receive().await;
            assert_eq!(own["method"], json!("notifications/tools/list_changed"));
        }
        harness.write.shutdown().await.unwrap();
        task.await.unwrap();
        let problems = problems.lock().unwrap().clone();
        assert_eq!(problems, want.into_iter().map(str::to_owned).collect::<Vec<_>>());
    }
}

#[tokio::test]
async fn a_request_without_an_answer_is_given_up() {
    let answer = |request: &Request<Full<Bytes>>| match method_of(request).as_deref() {
        Some("tools/list") => None,
        _ => Some(respond(
            200,
            Some("application/json"),
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        )),
    };
    let bridge = Bridge::new(Canned {
        answer: Arc::new(answer),
        seen: Arc::default(),
    })
    .timeout(Duration::from_millis(50));
    let problems = bridge.problems();
    let (mut harness, task) = start(bridge);
    harness
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    harness
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    // The bridge went on to the next request.
    assert_eq!(harness.receive().await["id"], json!(2));
    harness.write.shutdown().await.unwrap();
    task.await.unwrap();
    let problems = problems.lock().unwrap().clone();
    assert_eq!(
        problems,
        vec!["POST #1 (request 1, tools/list): no response within 50 ms; the request is given up"]
    );
}

#[test]
fn classify() {
    let classify =
        |line: &[u8]| Outgoing::classify(serde_json::from_slice::<Value>(line).ok().as_ref());
    assert_eq!(
        classify(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
        Outgoing::Request {
            id: json!(1),
            method: "ping".into()
        }
    );
    assert_eq!(
        classify(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        Outgoing::Notification {
            method: "notifications/initialized".into()
        }
    );
    assert_eq!(
        classify(br#"{"jsonrpc":"2.0","id":"s1","result":{}}"#),
        Outgoing::Response { id: json!("s1") }
    );
    assert_eq!(classify(b"[1]"), Outgoing::Other);
    assert_eq!(classify(b"nope"), Outgoing::Other);
}

#[tokio::test]
async fn a_channel_of_lines_reads_as_a_pipe_of_lines_whatever_the_reads_size() {
    use tokio::io::AsyncReadExt;
    let (lines, from_bridge) = mpsc::unbounded_channel();
    for line in [&b"abcdef"[..], b"", b"{\"x\":1}"] {
        lines.send(line.to_vec()).unwrap();
    }
    drop(lines);
    let mut pipe = ChannelLines::new(from_bridge);
    let (mut read, mut chunk) = (Vec::new(), [0u8; 3]);
    loop {
        let n = pipe.read(&mut chunk).await.unwrap();
        if n == 0 {
            break;
        }
        read.extend_from_slice(&chunk[..n]);
    }
    assert_eq!(read, b"abcdef\n\n{\"x\":1}\n");
}
