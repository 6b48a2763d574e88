//! The Streamable HTTP server side (`_support::front::Front`) in front of a fixture's mock
//! (`Fixture::mock().http()`), as `mcp-replay serve --http` mounts it, fed a few hostile
//! HTTP requests in order. The fixture is a small fixed one: initialize, initialized,
//! tools/list.
//!
//! The input is up to eight requests, each four bytes and a body:
//!
//! - the method (`POST` mostly, `GET`, `DELETE`, `PUT`) and the path (`/mcp` or another);
//! - header choices: the session id issued so far, another one or none; `Accept` (both,
//!   JSON, SSE, neither, none); `Content-Type`; `Last-Event-ID`; `MCP-Protocol-Version`
//!   (2025-11-25 or 2026-07-28); `Origin` (loopback or another host); `Mcp-Method`;
//! - the body: a JSON-RPC message from a template (initialize, initialized, tools/list,
//!   tools/call, a response, ping) with the next byte as its id, or the raw bytes;
//! - the body's length, then its bytes.
//!
//! Each request is answered under a time limit, its body read for at most 50 ms (an SSE
//! stream may never end), then dropped; the runtime is a current-thread one created once,
//! its clock paused, so the time limits pass at once when nothing else can run. Property:
//! nothing panics; every status is one `docs/http.md`'s table lists; a JSON body that was
//! read whole is JSON; every SSE event read is a JSON message with an id; then
//! `HttpMock::finish()` gives its report within a time limit, and no task is left behind.
#![no_main]

use bytes::Bytes;
use http::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, ORIGIN};
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use libfuzzer_sys::fuzz_target;
use mcp_replay::_support::front::FrontBody;
use mcp_replay::_support::sse::SseParser;
use mcp_replay::{Fixture, Options, Rules};
use std::sync::OnceLock;
use std::time::Duration;

const FIXTURE: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":"<CLIENT_CAPABILITIES>","clientInfo":"<CLIENT_INFO>","protocolVersion":"<PROTOCOL_VERSION>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{"tools":{"listChanged":true}},"protocolVersion":"2025-11-25","serverInfo":{"name":"tiny","version":"1.0.0"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string","x-mcp-header":"Text"}}}}]}}}"#,
    "\n",
);

/// The statuses `docs/http.md` lists for the front ("the client sends | the front answers").
const DOCUMENTED: [u16; 10] = [200, 202, 400, 403, 404, 405, 406, 413, 500, 503];

struct Setup {
    fixture: Fixture,
    rules: Rules,
    options: Options,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| Setup {
        fixture: Fixture::parse(FIXTURE).unwrap(),
        rules: Rules::default(),
        options: Options::new().pace(Duration::ZERO),
    })
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
}

const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");

fn template(which: u8, id: u8, new_era: bool) -> Option<String> {
    let version = if new_era { "2026-07-28" } else { "2025-11-25" };
    Some(match which {
        0 => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"fuzz","version":"1"}}}}}}"#
        ),
        1 => r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        2 => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
        3 => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}}}}}}"#
        ),
        4 => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#),
        5 => format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#),
        _ => return None,
    })
}

/// The bytes of a body read for at most 50 ms, and whether it ended.
async fn read_body(body: FrontBody) -> (Vec<u8>, bool) {
    let mut body = std::pin::pin!(body);
    let mut bytes = Vec::new();
    let reading = async {
        while let Some(frame) = body.frame().await {
            match frame {
                Ok(frame) => {
                    if let Ok(data) = frame.into_data() {
                        bytes.extend_from_slice(&data);
                    }
                }
                Err(_) => return,
            }
        }
    };
    let ended = tokio::time::timeout(Duration::from_millis(50), reading)
        .await
        .is_ok();
    (bytes, ended)
}

async fn session(data: &[u8]) {
    let setup = setup();
    let (front, mock) = setup
        .fixture
        .mock()
        .rules(&setup.rules)
        .options(&setup.options)
        .http();
    let mut issued: Option<HeaderValue> = None;
    let mut rest = data;
    let mut n = 0;
    while rest.len() >= 4 && n < 8 {
        n += 1;
        let (head, tail) = rest.split_at(4);
        let len = usize::from(head[3]).min(tail.len());
        let (raw, tail) = tail.split_at(len);
        rest = tail;
        let (m, h, b) = (head[0], head[1], head[2]);

        let method = match m & 7 {
            0..=3 => Method::POST,
            4 | 5 => Method::GET,
            6 => Method::DELETE,
            _ => Method::PUT,
        };
        let path = if m & 0x18 == 0x18 {
            "http://localhost/other"
        } else {
            "http://localhost/mcp"
        };
        let new_era = b & 0x80 != 0;
        let body = match template(b & 7, raw.first().copied().unwrap_or(1), new_era) {
            Some(text) if b & 0x40 == 0 => Bytes::from(text),
            _ => Bytes::copy_from_slice(raw),
        };
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = method;
        *request.uri_mut() = Uri::from_static(path);
        let headers = request.headers_mut();
        match h & 3 {
            0 | 1 => {
                if let Some(id) = &issued {
                    headers.insert(SESSION_ID, id.clone());
                }
            }
            2 => {
                headers.insert(
                    SESSION_ID,
                    HeaderValue::from_static("0123456789abcdef0123456789abcdef"),
                );
            }
            _ => {}
        }
        let accept = match (h >> 2) & 7 {
            0 | 1 | 2 => Some("application/json, text/event-stream"),
            3 => Some("application/json"),
            4 => Some("text/event-stream"),
            5 => Some("text/html"),
            6 => Some("*/*"),
            _ => None,
        };
        if let Some(accept) = accept {
            headers.insert(ACCEPT, HeaderValue::from_static(accept));
        }
        if h & 0x20 == 0 {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        if h & 0x40 != 0 {
            headers.insert(LAST_EVENT_ID, HeaderValue::from_static("1"));
        }
        if m & 0x20 != 0 {
            let version = if new_era { "2026-07-28" } else { "2025-11-25" };
            headers.insert(PROTOCOL_VERSION, HeaderValue::from_static(version));
        }
        if h & 0x80 != 0 {
            let origin = if m & 0x40 != 0 {
                "http://evil.example"
            } else {
                "http://localhost:3000"
            };
            headers.insert(ORIGIN, HeaderValue::from_static(origin));
        }
        if m & 0x80 != 0 {
            let name = match b & 7 {
                0 => "initialize",
                2 => "tools/list",
                3 => "tools/call",
                _ => "ping",
            };
            headers.insert(MCP_METHOD, HeaderValue::from_static(name));
        }

        let Ok(response) =
            tokio::time::timeout(Duration::from_secs(5), front.handle(request)).await
        else {
            // No head within the time limit (a POST whose answer never comes): the
            // request is dropped, as a client that gives up.
            continue;
        };
        let status = response.status().as_u16();
        assert!(
            DOCUMENTED.contains(&status),
            "request #{n}: an undocumented status {status}"
        );
        if let Some(id) = response.headers().get(&SESSION_ID) {
            issued = Some(id.clone());
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let (bytes, ended) = read_body(response.into_body()).await;
        match content_type.as_deref() {
            Some("application/json") if ended => {
                if let Err(e) = serde_json::from_slice::<serde_json::Value>(&bytes) {
                    panic!(
                        "request #{n}: a JSON body that is not JSON ({e}): {:?}",
                        String::from_utf8_lossy(&bytes)
                    );
                }
            }
            Some("text/event-stream") => {
                let mut parser = SseParser::new();
                let mut events = Vec::new();
                parser.feed(&bytes, &mut events).unwrap();
                for event in events {
                    assert!(event.id.is_some(), "request #{n}: an event without an id");
                    assert!(
                        serde_json::from_str::<serde_json::Value>(&event.data).is_ok(),
                        "request #{n}: an event that is not JSON: {:?}",
                        event.data
                    );
                }
            }
            _ => {}
        }
    }
    drop(front);
    let report = tokio::time::timeout(Duration::from_secs(30), mock.finish())
        .await
        .expect("HttpMock::finish() within 30 s");
    let _ = report.to_string();
}

fuzz_target!(|data: &[u8]| {
    RUNTIME.with(|rt| {
        rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(120), session(data))
                .await
                .expect("the session within 120 s");
            // What the front and the mock spawned has ended.
            for _ in 0..16 {
                if rt.metrics().num_alive_tasks() == 0 {
                    break;
                }
                tokio::task::yield_now().await;
            }
        });
        let alive = rt.metrics().num_alive_tasks();
        assert_eq!(alive, 0, "tasks left behind after the session");
    });
});
