//! Resumption with `Last-Event-ID`: rmcp's session manager, and canned services that
//! resume correctly, redeliver, keep no event store, or refuse the resuming GET.

use super::*;
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
async fn exchange<S, B>(bridge: Bridge<S>, until: usize) -> (Vec<Value>, Vec<String>)
where
    S: Service<Request<Full<Bytes>>, Response = Response<B>> + Send + 'static,
    S::Future: Send,
    S::Error: Display + Send,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Display,
{
    let problems = bridge.problems();
    let (mut harness, task) = start(bridge.resume_at([POINT]));
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
        .filter_map(|m| m.pointer("/params/progress").and_then(Value::as_f64))
        .collect()
}

/// rmcp 3.11's LocalSessionManager keeps each POST stream's events (ids `index/stream`)
/// and honours `Last-Event-ID` on a GET; but it replays from the event named, not after
/// it: the event the client last received comes a second time. The bridge reports that
/// redelivery, does not pass it on, and the rest of the call arrives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_resumes_but_redelivers_the_last_event_received() {
    let (got, problems) = exchange(Bridge::new(steps_service()), 5).await;
    assert_eq!(progress_values(&got), [1.0, 2.0, 3.0, 4.0], "{got:#?}");
    assert_eq!(got[4]["id"], json!(1), "{got:#?}");
    assert_eq!(got[4]["result"]["content"][0]["text"], json!("done"));
    assert_eq!(
        problems,
        ["POST #2 (request 1, tools/call): the resumed stream redelivered event `2/0`, \
          already received before the drop"]
    );
}
