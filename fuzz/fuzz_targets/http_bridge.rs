//! The client side of Streamable HTTP (`_support::bridge`): a replay over
//! `Replay::bridge` of a small fixed fixture (initialize, initialized, a tools/call with
//! progress, tools/list) against a hostile service that answers every request (the POSTs,
//! the GET stream, the DELETE) from the input.
//!
//! The input is a list of answers, one a request in the order they come, each four bytes
//! and a body: the status (mostly 200; 202, 204, 400, 401, 403, 404, 405, 406, 500, 503,
//! a redirect, or any from 100 to 599), the content type (JSON, SSE with and without
//! parameters, text, none, garbage), flags (the `Mcp-Session-Id`: a fixed one, another,
//! an invalid one or none; the body: the right answer to the request with its id as JSON
//! or as SSE events with ids and a `retry:`, or the raw bytes, or both; cut into chunks;
//! ending, failing mid-way, or never ending; no answer at all), and the raw bytes' length.
//! When the input has run out every request is answered `500`.
//!
//! The runtime is a current-thread one created once, its clock paused, so the time limits
//! (the bridge's and the replay's, 500 ms) pass at once when nothing else can run.
//! Property: nothing panics, and the replay ends with its report (findings or not)
//! within a time limit.
#![no_main]

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_TYPE};
use http::{Method, Request, Response, StatusCode};
use http_body::{Body, Frame, SizeHint};
use http_body_util::Full;
use libfuzzer_sys::fuzz_target;
use mcp_replay::_support::bridge::{Bridge, SESSION_ID};
use mcp_replay::{Fixture, Rules};
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;
use tower_service::Service;

const FIXTURE: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"fuzz","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"tiny","version":"1.0.0"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"echo","arguments":{"text":"hi"}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"hi"}]}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}}}"#,
    "\n",
);

struct Setup {
    fixture: Fixture,
    rules: Rules,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| Setup {
        fixture: Fixture::parse(FIXTURE).unwrap(),
        rules: Rules::default(),
    })
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
}

/// How a body ends after its chunks.
#[derive(Clone, Copy)]
enum End {
    Done,
    Fail,
    Never,
}

/// A response body: its chunks, then its end.
struct FuzzBody {
    chunks: std::collections::VecDeque<Bytes>,
    end: End,
}

impl Body for FuzzBody {
    type Data = Bytes;
    type Error = String;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, String>>> {
        if let Some(chunk) = self.chunks.pop_front() {
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        match self.end {
            End::Done => Poll::Ready(None),
            End::Fail => Poll::Ready(Some(Err("connection reset by fuzz".to_owned()))),
            // Never woken: the reader's time limit ends it.
            End::Never => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty() && matches!(self.end, End::Done)
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

/// The answers still to give, from the input.
#[derive(Clone)]
struct FuzzService {
    input: Arc<Mutex<Vec<u8>>>,
    at: Arc<Mutex<usize>>,
}

/// The bytes of a `Full` body (ready at once).
fn bytes_of(body: &Full<Bytes>) -> Bytes {
    let mut body = std::pin::pin!(body.clone());
    let mut cx = Context::from_waker(std::task::Waker::noop());
    match body.as_mut().poll_frame(&mut cx) {
        Poll::Ready(Some(Ok(frame))) => frame.into_data().unwrap_or_default(),
        _ => Bytes::new(),
    }
}

/// The right answer to `request` (the fixture's), with its id: the messages the server
/// sends for it, the response last; none for a notification or a response.
fn right_answer(request: &Value) -> Vec<Value> {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let result = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
    match request["method"].as_str() {
        Some("initialize") => vec![result(json!({"capabilities": {"tools": {}},
            "protocolVersion": "2025-11-25", "serverInfo": {"name": "tiny", "version": "1.0.0"}}))],
        Some("tools/call") => {
            let token = request["params"]["_meta"]["progressToken"].clone();
            vec![
                json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progress": 1, "progressToken": token}}),
                result(json!({"content": [{"type": "text", "text": "hi"}]})),
            ]
        }
        Some("tools/list") => vec![result(json!({"tools": [{"name": "echo", "inputSchema":
            {"type": "object", "properties": {"text": {"type": "string"}}}}]}))],
        Some(_) if request.get("id").is_some() => vec![result(json!({}))],
        _ => Vec::new(),
    }
}

impl FuzzService {
    /// The next answer, or `None` for one that never comes.
    fn answer(&self, request: &Request<Full<Bytes>>) -> Option<Response<FuzzBody>> {
        let input = self.input.lock().unwrap();
        let mut at = self.at.lock().unwrap();
        let rest = &input[(*at).min(input.len())..];
        if rest.len() < 4 {
            let mut response = Response::new(FuzzBody {
                chunks: [Bytes::from_static(b"out of answers")].into(),
                end: End::Done,
            });
            *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            return Some(response);
        }
        let (s, c, f, l) = (rest[0], rest[1], rest[2], rest[3]);
        let len = usize::from(l).min(rest.len() - 4);
        let raw = &rest[4..4 + len];
        *at += 4 + len;

        if f & 0xc0 == 0xc0 && s & 0x80 != 0 {
            return None;
        }
        let status = match s & 0x1f {
            0..=15 => 200,
            16 => 202,
            17 => 204,
            18 => 400,
            19 => 401,
            20 => 403,
            21 => 404,
            22 => 405,
            23 => 406,
            24 => 500,
            25 => 503,
            26 => 302,
            _ => 100 + u16::from(s) * 2 + u16::from(c & 1),
        };
        let content_type = match c >> 5 {
            0 | 1 => Some("text/event-stream"),
            2 => Some("application/json"),
            3 => Some("text/event-stream; charset=utf-8"),
            4 => Some("application/json; charset=utf-8"),
            5 => Some("text/plain"),
            6 => None,
            _ => Some("text/event-streams"),
        };
        let sse = content_type.is_some_and(|t| t.starts_with("text/event-stream"));

        // The body: the right answer (as SSE events or JSON), the raw bytes, or both.
        let mut body = Vec::new();
        if f & 0x03 != 3 {
            let sent: Value = serde_json::from_slice(&bytes_of(request.body())).unwrap_or_default();
            let messages = right_answer(&sent);
            if sse {
                if c & 0x02 != 0 {
                    body.extend_from_slice(b"retry: 10\n");
                }
                for (i, m) in messages.iter().enumerate() {
                    if c & 0x04 == 0 {
                        body.extend_from_slice(format!("id: {}-{i}\n", *at).as_bytes());
                    }
                    if c & 0x08 != 0 {
                        body.extend_from_slice(b"event: message\n");
                    }
                    body.extend_from_slice(format!("data: {m}\n\n").as_bytes());
                }
            } else if let Some(last) = messages.last() {
                body.extend_from_slice(last.to_string().as_bytes());
            }
        }
        if f & 0x03 != 0 {
            body.extend_from_slice(raw);
        }
        // Cut into chunks of a size the flags choose.
        let size = [1, 3, 7, 64, 4096, 4096, 4096, 4096][usize::from((f >> 2) & 7)];
        let body = Bytes::from(body);
        let chunks = (0..body.len())
            .step_by(size)
            .map(|i| body.slice(i..(i + size).min(body.len())))
            .collect();
        let end = match f >> 5 {
            0..=4 => End::Done,
            5 => End::Fail,
            _ => End::Never,
        };
        let mut response = Response::new(FuzzBody { chunks, end });
        *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
        if let Some(t) = content_type {
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(t));
        }
        let session = match (c >> 3) & 3 {
            0 | 1 => Some("fuzz-session-1"),
            2 => Some("another-session"),
            _ => None,
        };
        if request.method() != Method::DELETE {
            if let Some(session) = session {
                response
                    .headers_mut()
                    .insert(SESSION_ID, HeaderValue::from_static(session));
            }
        }
        Some(response)
    }
}

impl Service<Request<Full<Bytes>>> for FuzzService {
    type Response = Response<FuzzBody>;
    type Error = String;
    type Future = Pin<Box<dyn Future<Output = Result<Response<FuzzBody>, String>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), String>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Full<Bytes>>) -> Self::Future {
        match self.answer(&request) {
            Some(response) => Box::pin(std::future::ready(Ok(response))),
            None => Box::pin(std::future::pending()),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let setup = setup();
    let service = FuzzService {
        input: Arc::new(Mutex::new(data.to_vec())),
        at: Arc::new(Mutex::new(0)),
    };
    let limit = Duration::from_millis(500);
    let bridge = Bridge::new(service)
        .timeout(limit)
        .reconnect_delay(Duration::ZERO)
        .body_limit(64 * 1024);
    RUNTIME.with(|rt| {
        rt.block_on(async {
            let replay = setup
                .fixture
                .replay()
                .rules(&setup.rules)
                .timeout(limit)
                .bridge(bridge);
            let report = tokio::time::timeout(Duration::from_secs(300), replay)
                .await
                .expect("the replay over the bridge ends within 300 s");
            let _ = report.to_string();
        });
    });
});
