//! Resumption with `Last-Event-ID`: rmcp's session manager, and canned services that
//! resume correctly, redeliver, keep no event store, or refuse the resuming GET.

use super::*;
use crate::data::json::At;
use tokio::sync::Notify;

/// A server whose one tool reports four steps of progress, a few milliseconds apart, so
/// the bridge drops the stream mid-call. After the second step it waits for `resumed`
/// (a resuming GET reached the service), so the drop point never races the response.
#[derive(Clone)]
struct Steps {
    resumed: Arc<Notify>,
}

impl ServerHandler for Steps {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(token) = context.meta.get_progress_token() {
            for step in 1..=4u32 {
                let mut progress = ProgressNotificationParam::new(token.clone(), step.into());
                progress.total = Some(4.0);
                let _ = context.peer.notify_progress(progress).await;
                if step == 2 {
                    self.resumed.notified().await;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        Ok(CallToolResult::success(vec![ContentBlock::text("done")]).into())
    }
}

/// A service in front of another that signals when a GET with `Last-Event-ID` has been
/// answered.
#[derive(Clone)]
struct SignalResume<S> {
    inner: S,
    resumed: Arc<Notify>,
}

impl<S, B> Service<Request<Full<Bytes>>> for SignalResume<S>
where
    S: Service<Request<Full<Bytes>>, Response = Response<B>> + Send,
    S::Future: Send + 'static,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<B>, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Full<Bytes>>) -> Self::Future {
        let resuming = request.headers().contains_key(LAST_EVENT_ID);
        let answer = self.inner.call(request);
        let resumed = self.resumed.clone();
        Box::pin(async move {
            let response = answer.await?;
            if resuming {
                resumed.notify_one();
            }
            Ok(response)
        })
    }
}

fn steps_service() -> SignalResume<StreamableHttpService<Steps, LocalSessionManager>> {
    let resumed = Arc::new(Notify::new());
    let handler = Steps {
        resumed: resumed.clone(),
    };
    SignalResume {
        inner: StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default().with_sse_keep_alive(None),
        ),
        resumed,
    }
}

/// The drop point of these tests: after the second progress notification of the second
/// request (the tools/call after initialize).
const POINT: ResumePoint = ResumePoint {
    line: 9,
    request: 1,
    progress: 2,
};

fn slow_call(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "steps", "arguments": {}, "_meta": {"progressToken": "p"}}})
}

/// Initializes, calls the tool and returns what the bridge wrote back until `until`
/// messages came (or the pipe closed) and the problems.
async fn exchange<S: HttpService>(bridge: Bridge<S>, until: usize) -> (Vec<Value>, Vec<String>) {
    exchange_at(bridge, [POINT], until).await
}

/// [`exchange`] with drop points of its own.
async fn exchange_at<S: HttpService>(
    bridge: Bridge<S>,
    points: impl IntoIterator<Item = ResumePoint>,
    until: usize,
) -> (Vec<Value>, Vec<String>) {
    let problems = bridge.problems();
    let (mut harness, task) = start(bridge.resume_at(points));
    harness.send(initialize(0)).await;
    assert_eq!(harness.receive().await["id"], json!(0));
    harness.send(slow_call(1)).await;
    let mut got = Vec::new();
    while got.len() < until {
        got.push(harness.receive().await);
    }
    harness.write.shutdown().await.unwrap();
    task.await.unwrap();
    let problems = problems.lock().unwrap().clone();
    (got, problems)
}

fn progress_values(messages: &[Value]) -> Vec<f64> {
    messages
        .iter()
        .filter_map(|m| m.at(&["params", "progress"]).and_then(Value::as_f64))
        .collect()
}

/// rmcp 3.11's LocalSessionManager keeps each POST stream's events (ids `index/stream`)
/// and honours `Last-Event-ID` on a GET; but it replays from the event named, not after
/// it: the event the client last received comes a second time. The bridge reports that
/// redelivery, does not pass it on, and the rest of the call arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_resumes_but_redelivers_the_last_event_received() {
    let (got, problems) = exchange(
        Bridge::new(steps_service()).reconnect_delay(Duration::ZERO),
        5,
    )
    .await;
    assert_eq!(progress_values(&got), [1.0, 2.0, 3.0, 4.0], "{got:#?}");
    assert_eq!(got[4]["id"], json!(1), "{got:#?}");
    assert_eq!(got[4]["result"]["content"][0]["text"], json!("done"));
    assert_eq!(
        problems,
        [
            "POST #2 (request 1, tools/call): the resumed stream redelivered event `2/0`, \
          already received before the drop"
        ]
    );
}

/// rmcp with the redelivery mended in front of it: a `Last-Event-ID` of `i/stream` is
/// passed on as `i+1/stream`, so rmcp replays after the event named. Green: every message
/// once, no finding.
#[derive(Clone)]
struct AfterNotAt<S>(S);

impl<S, B> Service<Request<Full<Bytes>>> for AfterNotAt<S>
where
    S: Service<Request<Full<Bytes>>, Response = Response<B>> + Send,
    S::Future: Send + 'static,
{
    type Response = Response<B>;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Full<Bytes>>) -> Self::Future {
        let next = request
            .headers()
            .get(LAST_EVENT_ID)
            .and_then(|v| v.to_str().ok())
            .and_then(|id| id.split_once('/'))
            .and_then(|(index, stream)| {
                Some(format!("{}/{stream}", index.parse::<u64>().ok()? + 1))
            });
        if let Some(next) = next.and_then(|n| HeaderValue::from_str(&n).ok()) {
            request.headers_mut().insert(LAST_EVENT_ID, next);
        }
        self.0.call(request)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_resumes_after_the_event_named_is_green() {
    let (got, problems) = exchange(
        Bridge::new(AfterNotAt(steps_service())).reconnect_delay(Duration::ZERO),
        5,
    )
    .await;
    assert_eq!(progress_values(&got), [1.0, 2.0, 3.0, 4.0], "{got:#?}");
    assert_eq!(got[4]["result"]["content"][0]["text"], json!("done"));
    assert_eq!(problems, Vec::<String>::new());
}

/// Two drop points in one answer: the stream is resumed twice, and the first resumption
/// (which reached the second drop point) is not taken for one that owed the response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_drop_points_in_one_answer_are_green_with_a_correct_server() {
    let second = ResumePoint {
        line: 10,
        progress: 3,
        ..POINT
    };
    let (got, problems) = exchange_at(
        Bridge::new(AfterNotAt(steps_service())).reconnect_delay(Duration::ZERO),
        [POINT, second],
        5,
    )
    .await;
    assert_eq!(progress_values(&got), [1.0, 2.0, 3.0, 4.0], "{got:#?}");
    assert_eq!(got[4]["result"]["content"][0]["text"], json!("done"));
    assert_eq!(problems, Vec::<String>::new());
}

/// An SSE event carrying one message, with an id when given.
fn event(id: Option<&str>, message: Value) -> String {
    let id = id.map(|id| format!("id: {id}\n")).unwrap_or_default();
    format!("{id}data: {message}\n\n")
}

fn progress(step: u32) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": "p", "progress": step, "total": 4}})
}

fn done() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "done"}]}})
}

/// What a [`Canned`] service was sent.
type Seen = Arc<Mutex<Vec<Request<Full<Bytes>>>>>;

/// A canned server: the tool call's stream has four progress events and the result, with
/// ids `e1`..`e5` when `ids`; a GET with `Last-Event-ID` is answered by `resumed`.
fn canned(ids: bool, resumed: Response<Full<Bytes>>) -> (Canned, Seen) {
    let id = move |n: u32| ids.then(|| format!("e{n}"));
    let mut call = String::new();
    for step in 1..=4 {
        call += &event(id(step).as_deref(), progress(step));
    }
    call += &event(id(5).as_deref(), done());
    let answer = move |request: &Request<Full<Bytes>>| {
        if request.method() == Method::GET {
            return Some(if request.headers().contains_key(LAST_EVENT_ID) {
                resumed.clone()
            } else {
                respond(405, None, "")
            });
        }
        Some(match method_of(request).as_deref() {
            Some("initialize") => respond(
                200,
                Some("application/json"),
                r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}"#,
            ),
            Some("tools/call") => respond(200, Some("text/event-stream"), &call),
            _ => respond(202, None, ""),
        })
    };
    let seen = Arc::new(Mutex::new(Vec::new()));
    let service = Canned {
        answer: Arc::new(answer),
        seen: seen.clone(),
    };
    (service, seen)
}

fn sse(body: &str) -> Response<Full<Bytes>> {
    respond(200, Some("text/event-stream"), body)
}

#[tokio::test]
async fn a_canned_server_that_resumes_correctly_is_green() {
    let resumed = sse(&(event(Some("e3"), progress(3))
        + &event(Some("e4"), progress(4))
        + &event(Some("e5"), done())));
    let (service, seen) = canned(true, resumed);
    let (got, problems) = exchange(Bridge::new(service).reconnect_delay(Duration::ZERO), 5).await;
    assert_eq!(progress_values(&got), [1.0, 2.0, 3.0, 4.0], "{got:#?}");
    assert_eq!(got[4], done());
    assert_eq!(problems, Vec::<String>::new());
    // The resuming GET: after the second event, with the session and the protocol version.
    let seen = seen.lock().unwrap();
    let get = seen
        .iter()
        .find(|r| r.method() == Method::GET)
        .expect("a GET");
    assert_eq!(get.headers()[LAST_EVENT_ID], "e2");
    assert_eq!(get.headers()[ACCEPT], "text/event-stream");
    assert_eq!(get.headers()[SESSION_ID], "s-1");
    assert_eq!(get.headers()[PROTOCOL_VERSION], "2025-11-25");
}

#[tokio::test]
async fn a_message_delivered_twice_is_a_finding() {
    // The second event again, under its id; the first message again, under a new id.
    let resumed = sse(&(event(Some("e2"), progress(2))
        + &event(Some("e1b"), progress(1))
        + &event(Some("e3"), progress(3))
        + &event(Some("e4"), progress(4))
        + &event(Some("e5"), done())));
    let (service, _) = canned(true, resumed);
    let (got, problems) = exchange(Bridge::new(service).reconnect_delay(Duration::ZERO), 5).await;
    // Neither copy reaches the engine.
    assert_eq!(progress_values(&got), [1.0, 2.0, 3.0, 4.0], "{got:#?}");
    assert_eq!(
        problems,
        [
            "POST #2 (request 1, tools/call): the resumed stream redelivered event `e2`, \
             already received before the drop",
            "POST #2 (request 1, tools/call): the resumed stream redelivered a message already \
             received before the drop: \
             {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":\
             {\"progress\":1,\"progressToken\":\"p\",\"total\":4}}",
        ]
    );
}

#[tokio::test]
async fn events_without_ids_mean_no_event_store_and_no_drop() {
    let (service, seen) = canned(false, sse(""));
    let (got, problems) = exchange(Bridge::new(service).reconnect_delay(Duration::ZERO), 5).await;
    // Nothing could be resumed: the stream is read on, the whole call arrives.
    assert_eq!(progress_values(&got), [1.0, 2.0, 3.0, 4.0], "{got:#?}");
    assert_eq!(got[4], done());
    assert_eq!(
        problems,
        [
            "POST #2 (request 1, tools/call): the server keeps no event store: its SSE events \
             carry no id, so the stream cannot be resumed (http_resume, fixture line 9); it was \
             read on without a drop",
        ]
    );
    assert!(seen
        .lock()
        .unwrap()
        .iter()
        .all(|r| r.method() != Method::GET));
}

#[tokio::test]
async fn a_resuming_get_answered_405_means_no_event_store() {
    let (service, _) = canned(true, respond(405, None, ""));
    // The first two progress notifications, then nothing: the rest of the stream is lost.
    let (got, problems) = exchange(Bridge::new(service).reconnect_delay(Duration::ZERO), 2).await;
    assert_eq!(progress_values(&got), [1.0, 2.0], "{got:#?}");
    assert_eq!(
        problems,
        [
            "POST #2 (request 1, tools/call): the server keeps no event store: the GET with \
             Last-Event-ID `e2` was answered HTTP 405 Method Not Allowed, so the stream cannot be \
             resumed (http_resume, fixture line 9)",
        ]
    );
}

#[tokio::test]
async fn a_resumed_stream_without_the_response_is_a_finding() {
    let resumed = sse(&(event(Some("e3"), progress(3)) + &event(Some("e4"), progress(4))));
    let (service, _) = canned(true, resumed);
    let (got, problems) = exchange(Bridge::new(service).reconnect_delay(Duration::ZERO), 4).await;
    assert_eq!(progress_values(&got), [1.0, 2.0, 3.0, 4.0], "{got:#?}");
    assert_eq!(
        problems,
        [
            "POST #2 (request 1, tools/call): the stream resumed after event `e2` ended without \
             the response to request 1: the server did not redeliver it",
        ]
    );
}

#[tokio::test]
async fn resumed_events_without_ids_are_a_finding() {
    let resumed =
        sse(&(event(None, progress(3)) + &event(None, progress(4)) + &event(None, done())));
    let (service, _) = canned(true, resumed);
    let (got, problems) = exchange(Bridge::new(service).reconnect_delay(Duration::ZERO), 5).await;
    assert_eq!(got[4], done());
    assert_eq!(
        problems,
        [
            "POST #2 (request 1, tools/call): the resumed stream's events carry no id: it could \
             not be resumed again",
        ]
    );
}

/// The fixture of the replay tests: the drop after the second progress notification
/// (line 7, under the header).
const FIXTURE: &str = concat!(
    r#"{"mcp_replay":1,"http_resume":[7]}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":"<CLIENT_CAPABILITIES>","clientInfo":"<CLIENT_INFO>","protocolVersion":"<PROTOCOL_VERSION>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"rmcp","version":"3.11.0"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"steps","arguments":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":"<PROGRESS_TOKEN>","total":4.0}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2.0,"progressToken":"<PROGRESS_TOKEN>","total":4.0}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":3.0,"progressToken":"<PROGRESS_TOKEN>","total":4.0}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":4.0,"progressToken":"<PROGRESS_TOKEN>","total":4.0}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"done"}],"isError":false}}}"#,
    "\n",
);

/// `Fixture::replay_http` turns the header's line into the bridge's drop point: green
/// against a server that resumes correctly; against rmcp 3.11, exactly the redelivery.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_drops_and_resumes_where_the_fixture_says() {
    let fixture = crate::Fixture::parse(FIXTURE).unwrap();
    assert_eq!(
        fixture.resume_points().unwrap(),
        [ResumePoint {
            line: 7,
            request: 1,
            progress: 2
        }]
    );
    let green = fixture.replay().http(AfterNotAt(steps_service())).await;
    assert!(green.is_ok(), "{green}");

    let rmcp = fixture.replay().http(steps_service()).await;
    let findings: Vec<String> = rmcp
        .mismatches()
        .iter()
        .map(|m| format!("{}: {}", m.kind(), m.summary()))
        .collect();
    assert_eq!(
        findings,
        [
            "http: POST #3 (request 2, tools/call): the resumed stream redelivered event `2/0`, \
          already received before the drop"
        ],
        "{rmcp}"
    );
}
