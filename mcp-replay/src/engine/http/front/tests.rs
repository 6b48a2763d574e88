//! The front by example: a session over SSE and JSON, bad requests and refusals, stateless
//! sessions, the standard headers.

use super::*;
use crate::engine::http::sse::SseParser;
use crate::findings::report::MismatchKind;
use crate::{Fixture, Rules};
use http_body_util::Full;
use std::time::Duration;

/// A session: handshake, a call with progress, a list_changed after its response (no
/// stream open: held for the GET stream), a tools/list.
const SESSION: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":"<CLIENT_CAPABILITIES>","clientInfo":"<CLIENT_INFO>","protocolVersion":"<PROTOCOL_VERSION>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{"tools":{"listChanged":true}},"protocolVersion":"2025-11-25","serverInfo":{"name":"tiny","version":"1.0.0"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"count","arguments":{}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>","total":2}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"2"}]}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#,
    "\n",
);

fn fixture(text: &str) -> Fixture {
    Fixture::parse(text).unwrap()
}

/// Unpaced: the tests read what the mock writes at once.
fn unpaced() -> crate::Options {
    crate::Options::new().pace(Duration::ZERO)
}

fn request(
    method: Method,
    session: Option<&str>,
    accept: &str,
    body: &str,
) -> Request<Full<Bytes>> {
    let mut request = Request::new(Full::new(Bytes::copy_from_slice(body.as_bytes())));
    *request.method_mut() = method;
    *request.uri_mut() = Uri::from_static("http://localhost/mcp");
    let headers = request.headers_mut();
    headers.insert(ACCEPT, HeaderValue::from_str(accept).unwrap());
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(session) = session {
        headers.insert(SESSION_ID, HeaderValue::from_str(session).unwrap());
    }
    request
}

fn post(session: Option<&str>, body: Value) -> Request<Full<Bytes>> {
    request(Method::POST, session, ACCEPT_BOTH, &body.to_string())
}

/// The whole body, within 5 s.
async fn body(response: Response<FrontBody>) -> Vec<u8> {
    let read = response.into_body().collect();
    let body = tokio::time::timeout(Duration::from_secs(5), read).await;
    body.expect("the body ends").unwrap().to_bytes().to_vec()
}

/// The messages of a whole SSE body, checking each event's framing.
async fn events(response: Response<FrontBody>) -> Vec<Value> {
    assert_eq!(response.headers()[CONTENT_TYPE], "text/event-stream");
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    parser.feed(&body(response).await, &mut events).unwrap();
    assert!(!parser.is_mid_event());
    events
        .into_iter()
        .map(|e| {
            assert_eq!(e.event, "message");
            assert!(e.id.is_some(), "every event has an id");
            serde_json::from_str(&e.data).unwrap()
        })
        .collect()
}

fn initialize(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

async fn error_of(response: Response<FrontBody>) -> (StatusCode, Value) {
    let status = response.status();
    assert_eq!(response.headers()[CONTENT_TYPE], "application/json");
    (
        status,
        serde_json::from_slice(&body(response).await).unwrap(),
    )
}

#[tokio::test]
async fn a_session_over_sse_and_json() {
    let (front, mock) = fixture(SESSION)
        .mock()
        .rules(&Rules::default())
        .options(&unpaced())
        .http();
    let response = front.handle(post(None, initialize(1))).await;
    assert_eq!(response.status(), StatusCode::OK);
    let session = response.headers()[SESSION_ID].to_str().unwrap().to_owned();
    assert_eq!(session.len(), 32);
    let answer = events(response).await;
    assert_eq!(answer.len(), 1);
    assert_eq!(answer[0]["id"], 1);
    assert_eq!(answer[0]["result"]["serverInfo"]["name"], "tiny");

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = front.handle(post(Some(&session), initialized)).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(body(response).await.is_empty());

    // The progress and then the response, on the POST's stream, which then ends.
    let call = json!({"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {
        "_meta": {"progressToken": 7}, "name": "count", "arguments": {}}});
    let answer = events(front.handle(post(Some(&session), call)).await).await;
    assert_eq!(answer.len(), 2, "{answer:?}");
    assert_eq!(answer[0]["method"], "notifications/progress");
    assert_eq!(answer[0]["params"]["progressToken"], 7);
    assert_eq!(answer[1]["id"], "c");

    // The list_changed that followed, held for the GET stream.
    let get = request(Method::GET, Some(&session), "text/event-stream", "");
    let stream = front.handle(get).await;
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(stream.headers()[CONTENT_TYPE], "text/event-stream");
    let mut stream = stream.into_body();
    let frame = tokio::time::timeout(Duration::from_secs(5), stream.frame()).await;
    let frame = frame.unwrap().unwrap().unwrap().into_data().unwrap();
    let text = String::from_utf8(frame.to_vec()).unwrap();
    assert!(text.starts_with("id: "), "{text}");
    assert!(text.contains("\nevent: message\ndata: "), "{text}");
    assert!(text.contains("notifications/tools/list_changed"), "{text}");

    // A client that accepts only JSON gets the response alone.
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let response = front
        .handle(request(
            Method::POST,
            Some(&session),
            "application/json",
            &list.to_string(),
        ))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CONTENT_TYPE], "application/json");
    let answer: Value = serde_json::from_slice(&body(response).await).unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": []}})
    );

    let response = front
        .handle(request(Method::DELETE, Some(&session), "*/*", ""))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    tokio::time::timeout(Duration::from_secs(5), mock.ended())
        .await
        .unwrap();
    // The GET stream ends with the session.
    let end = tokio::time::timeout(Duration::from_secs(5), stream.frame()).await;
    assert!(end.unwrap().is_none());
    let report = mock.finish().await;
    assert!(report.is_ok(), "{report}");
}

#[tokio::test]
async fn bad_requests_get_clear_errors() {
    let (transport, mock) = fixture(SESSION)
        .mock()
        .rules(&Rules::default())
        .options(&unpaced())
        .server();
    let front = Front::with_body_limit(transport, 1024);
    let response = front.handle(post(None, initialize(1))).await;
    let session = response.headers()[SESSION_ID].to_str().unwrap().to_owned();
    events(response).await;

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, error) = error_of(front.handle(post(None, initialized.clone())).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Mcp-Session-Id"));
    let other = front.handle(post(Some("0123"), initialized.clone())).await;
    assert_eq!(other.status(), StatusCode::NOT_FOUND);

    let not_json = request(Method::POST, Some(&session), ACCEPT_BOTH, "{not json");
    let (status, error) = error_of(front.handle(not_json).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error["error"]["code"], PARSE_ERROR);
    assert_eq!(error["id"], Value::Null);
    let batch = request(Method::POST, Some(&session), ACCEPT_BOTH, "[]");
    let (status, error) = error_of(front.handle(batch).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error["error"]["code"], INVALID_REQUEST);
    let large = format!("\"{}\"", "x".repeat(2000));
    let large = request(Method::POST, Some(&session), ACCEPT_BOTH, &large);
    let (status, _) = error_of(front.handle(large).await).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    let xml = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string();
    let xml = request(Method::POST, Some(&session), "text/xml", &xml);
    assert_eq!(front.handle(xml).await.status(), StatusCode::NOT_ACCEPTABLE);
    let put = request(Method::PUT, Some(&session), ACCEPT_BOTH, "");
    let response = front.handle(put).await;
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(response.headers()[ALLOW], "GET, POST, DELETE");
    let mut elsewhere = post(Some(&session), initialized.clone());
    *elsewhere.uri_mut() = Uri::from_static("http://localhost/other");
    assert_eq!(
        front.handle(elsewhere).await.status(),
        StatusCode::NOT_FOUND
    );
    let mut foreign = post(Some(&session), initialized.clone());
    foreign
        .headers_mut()
        .insert(ORIGIN, HeaderValue::from_static("https://evil.example"));
    assert_eq!(front.handle(foreign).await.status(), StatusCode::FORBIDDEN);
    let get = request(Method::GET, Some(&session), "application/json", "");
    assert_eq!(front.handle(get).await.status(), StatusCode::NOT_ACCEPTABLE);

    // A notification with its session, after all that: accepted.
    let response = front.handle(post(Some(&session), initialized)).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    let delete = request(Method::DELETE, Some(&session), "*/*", "");
    assert_eq!(front.handle(delete).await.status(), StatusCode::OK);
    let late = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"});
    let response = front.handle(post(Some(&session), late)).await;
    assert_eq!(
        response.status(),
        StatusCode::NOT_FOUND,
        "the session has ended"
    );
    front.close().await;
    // Nothing refused reached the mock: only the unused requests are findings.
    let report = mock.finish().await;
    assert_eq!(report.mismatches().len(), 1, "{report}");
    assert_eq!(report.mismatches()[0].kind, MismatchKind::Missing);
}

/// What the front refused is the client's mistake: an http finding in the report,
/// beside the mock's own (a 405, what the server does not offer, is none).
#[tokio::test]
async fn refusals_are_http_findings() {
    let (front, mock) = fixture(SESSION)
        .mock()
        .rules(&Rules::default())
        .options(&unpaced())
        .http();
    let response = front.handle(post(None, initialize(1))).await;
    let session = response.headers()[SESSION_ID].to_str().unwrap().to_owned();
    events(response).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = front.handle(post(None, initialized)).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let put = request(Method::PUT, Some(&session), ACCEPT_BOTH, "");
    assert_eq!(
        front.handle(put).await.status(),
        StatusCode::METHOD_NOT_ALLOWED
    );
    let report = mock.finish().await;
    let http: Vec<&str> = report
        .mismatches()
        .iter()
        .filter(|m| m.kind == MismatchKind::Http)
        .map(|m| m.summary.as_str())
        .collect();
    assert_eq!(
        http,
        [
            "POST #2: refused with HTTP 400 Bad Request: Bad Request: the Mcp-Session-Id \
              header is required after initialize"
        ],
        "{report}"
    );
}

#[tokio::test]
async fn a_request_not_in_the_recording_is_a_finding() {
    let (front, mock) = fixture(SESSION)
        .mock()
        .rules(&Rules::default())
        .options(&unpaced())
        .http();
    let response = front.handle(post(None, initialize(1))).await;
    let session = response.headers()[SESSION_ID].to_str().unwrap().to_owned();
    events(response).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    front.handle(post(Some(&session), initialized)).await;
    let other = json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"});
    let answer = events(front.handle(post(Some(&session), other)).await).await;
    assert_eq!(answer.len(), 1);
    assert_eq!(answer[0]["id"], 2);
    assert_eq!(
        answer[0]["error"]["code"],
        crate::engine::mock::MISMATCH_CODE
    );
    front
        .handle(request(Method::DELETE, Some(&session), "*/*", ""))
        .await;
    let report = mock.finish().await;
    assert!(!report.is_ok());
    let text = report.to_string();
    assert!(text.contains("prompts/list"), "{text}");
    assert!(text.contains("tools/call"), "{text}");
}

#[tokio::test]
async fn a_stateless_session_issues_and_checks_no_id() {
    let text = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"server/discover"}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"tiny","version":"1"}}}}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[]}}}"#,
        "\n",
    );
    let (front, mock) = fixture(text)
        .mock()
        .rules(&Rules::default())
        .options(&unpaced())
        .http();
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"});
    let response = front.handle(post(None, discover)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().get(SESSION_ID).is_none());
    assert_eq!(events(response).await[0]["id"], 1);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let answer = events(front.handle(post(None, list)).await).await;
    assert_eq!(answer[0]["result"]["tools"], json!([]));
    let delete = request(Method::DELETE, None, "*/*", "");
    assert_eq!(
        front.handle(delete).await.status(),
        StatusCode::METHOD_NOT_ALLOWED
    );
    let report = mock.finish().await;
    assert!(report.is_ok(), "{report}");
}

/// From 2026-07-28 on the standard headers must mirror the body, the `Mcp-Param-*` ones
/// as the recording's `tools/list` schema asks: a call without them is refused with
/// `-32020` and reported; the same call with them is answered.
#[tokio::test]
async fn standard_headers_are_checked_from_2026_07_28() {
    let text = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"query","arguments":{"region":"eu-west"}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[]}}}"#,
        "\n",
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"name":"query","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}}}"#,
        "\n",
    );
    let (front, mock) = fixture(text)
        .mock()
        .rules(&Rules::default())
        .options(&unpaced())
        .http();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "query", "arguments": {"region": "eu-west"}}});
    let with = |pairs: &[(&'static str, &'static str)]| {
        let mut request = post(None, call.clone());
        for (name, value) in pairs {
            request
                .headers_mut()
                .insert(*name, HeaderValue::from_static(value));
        }
        request
    };
    let era = ("mcp-protocol-version", "2026-07-28");
    let named = [era, ("mcp-method", "tools/call"), ("mcp-name", "query")];
    let (status, error) = error_of(front.handle(with(&named)).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error["error"]["code"], -32020);
    // The request's own id, as the specification's example and the Python SDK answer.
    assert_eq!(error["id"], 1);
    assert_eq!(
        error["error"]["message"],
        "Bad Request: the Mcp-Param-Region header is missing"
    );
    let all = [
        named[0],
        named[1],
        named[2],
        ("mcp-param-region", "eu-west"),
    ];
    let answer = events(front.handle(with(&all)).await).await;
    assert_eq!(answer[0]["result"]["content"], json!([]));
    // Before that era, nothing is asked of the headers.
    let old = with(&[("mcp-protocol-version", "2025-11-25")]);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let mut old_list = post(None, list);
    *old_list.headers_mut() = old.headers().clone();
    let listed = events(front.handle(old_list).await).await;
    assert_eq!(listed[0]["result"]["tools"][0]["name"], "query");
    let report = mock.finish().await;
    assert_eq!(
        report.mismatches.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        ["http: POST #1: refused with HTTP 400 Bad Request: Bad Request: the Mcp-Param-Region header is missing"]
    );
}

#[test]
fn accept_headers() {
    let mut headers = HeaderMap::new();
    assert_eq!(accepts(&headers), (true, false));
    headers.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    assert_eq!(accepts(&headers), (true, true));
    headers.insert(ACCEPT, HeaderValue::from_static("Text/Event-Stream;q=0.9"));
    assert_eq!(accepts(&headers), (false, true));
    headers.insert(ACCEPT, HeaderValue::from_static("*/*"));
    assert_eq!(accepts(&headers), (true, false));
}

#[test]
fn session_ids_differ() {
    let (a, b) = (new_session_id(), new_session_id());
    assert_ne!(a, b);
    assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
}

/// The tool call of [`SESSION`], for the faults on cue.
fn fault_call() -> Value {
    json!({"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {
        "_meta": {"progressToken": 7}, "name": "count", "arguments": {}}})
}

/// [`SESSION`]'s mock behind the front with `fault` on its `tools/call`, the handshake
/// done: the front, the mock and the session id.
async fn session_with(fault: crate::data::faults::Fault) -> (Front, HttpMock, String) {
    let options = unpaced().faults(crate::data::faults::Faults::new().on("tools/call", fault));
    let (front, mock) = fixture(SESSION)
        .mock()
        .rules(&Rules::default())
        .options(&options)
        .http();
    let response = front.handle(post(None, initialize(1))).await;
    let session = response.headers()[SESSION_ID].to_str().unwrap().to_owned();
    let _ = body(response).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let _ = body(front.handle(post(Some(&session), initialized)).await).await;
    (front, mock, session)
}

/// A status instead of the answer, before any event (the progress recorded before the
/// answer is not sent either).
#[tokio::test]
async fn a_status_fault_answers_the_post_with_it() {
    let (front, mock, session) = session_with(crate::data::faults::Fault::Status(503)).await;
    let response = front.handle(post(Some(&session), fault_call())).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.headers()[CONTENT_TYPE], "text/plain");
    let report = mock.finish().await;
    assert!(
        report.notes()[0]
            .contains("HTTP 503 instead of the answer (and the notification before it)"),
        "{report}"
    );
}

/// The stream cut: the progress, then an event with an id and no data, then a break; the
/// GET that resumes from that id gets the answer, and the report says so.
#[tokio::test]
async fn a_reset_fault_cuts_the_stream_and_a_get_with_its_last_event_id_resumes_it() {
    let (front, mock, session) = session_with(crate::data::faults::Fault::Reset).await;
    let response = front.handle(post(Some(&session), fault_call())).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut stream = response.into_body();
    let mut seen = Vec::new();
    let broke = loop {
        match tokio::time::timeout(Duration::from_secs(5), stream.frame()).await {
            Ok(Some(Ok(frame))) => seen.extend_from_slice(frame.data_ref().unwrap()),
            Ok(Some(Err(e))) => break e.kind(),
            other => panic!("the stream should break: {other:?}"),
        }
    };
    assert_eq!(broke, std::io::ErrorKind::ConnectionReset);
    let seen = String::from_utf8(seen).unwrap();
    assert!(seen.contains("notifications/progress"), "{seen}");
    assert!(
        !seen.contains(r#""id":"c""#),
        "no answer before the break: {seen}"
    );
    let last = seen
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap()
        .to_owned();
    let mut get = request(Method::GET, Some(&session), "text/event-stream", "");
    get.headers_mut()
        .insert("last-event-id", HeaderValue::from_str(&last).unwrap());
    let mut resumed = front.handle(get).await.into_body();
    let frame = tokio::time::timeout(Duration::from_secs(5), resumed.frame())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let text = String::from_utf8(frame.data_ref().unwrap().to_vec()).unwrap();
    assert!(text.contains(r#""id":"c""#), "{text}");
    drop(resumed);
    let report = mock.finish().await;
    let resumed = format!("GET Last-Event-ID: {last}, and got the answer");
    assert!(
        report.notes().iter().any(|n| n.contains(&resumed)),
        "{report}"
    );
}

/// A `Last-Event-ID` this session never sent (a later number, another session's, not a
/// number) is a 400 naming it, and takes no GET stream over; one it did send, with
/// nothing owed, resumes to a plain GET stream.
#[tokio::test]
async fn a_last_event_id_the_session_never_sent_is_refused() {
    let (front, mock, session) = session_with(crate::data::faults::Fault::Status(503)).await;
    let get = |last: &str| {
        let mut get = request(Method::GET, Some(&session), "text/event-stream", "");
        get.headers_mut()
            .insert("last-event-id", HeaderValue::from_str(last).unwrap());
        get
    };
    for last in ["999999", "e7/stream-2", "18446744073709551616"] {
        let response = front.handle(get(last)).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{last}");
        let text = String::from_utf8(body(response).await).unwrap();
        assert!(
            text.contains(&format!("Last-Event-ID {last} names no event")),
            "{text}"
        );
    }
    // The handshake's answer was event 0 (an SSE stream): resuming after it is a GET.
    let response = front.handle(get("0")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CONTENT_TYPE], "text/event-stream");
    drop(response);
    let report = mock.finish().await;
    assert!(
        report
            .to_string()
            .contains("names no event of this session"),
        "{report}"
    );
}

/// A client that takes JSON only: the body breaks, with nothing to resume from.
#[tokio::test]
async fn a_reset_fault_breaks_a_json_answer() {
    let (front, mock, session) = session_with(crate::data::faults::Fault::Reset).await;
    let call = fault_call().to_string();
    let json_only = request(Method::POST, Some(&session), "application/json", &call);
    let read = front.handle(json_only).await.into_body().collect();
    let read = tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .unwrap();
    assert!(read.is_err(), "the JSON body breaks");
    drop(mock.finish().await);
}

/// Trickled: many pieces, one whole event.
#[tokio::test]
async fn a_trickle_fault_writes_the_answer_in_pieces_that_make_it_whole() {
    let fault = crate::data::faults::Fault::Trickle(Duration::from_millis(1));
    let (front, mock, session) = session_with(fault).await;
    let mut stream = front
        .handle(post(Some(&session), fault_call()))
        .await
        .into_body();
    let mut pieces = 0;
    let mut whole = Vec::new();
    while let Ok(Some(Ok(frame))) =
        tokio::time::timeout(Duration::from_secs(5), stream.frame()).await
    {
        pieces += 1;
        whole.extend_from_slice(frame.data_ref().unwrap());
    }
    let mut parser = SseParser::new();
    let mut parsed = Vec::new();
    parser.feed(&whole, &mut parsed).unwrap();
    let answer: Value = serde_json::from_str(&parsed.last().unwrap().data).unwrap();
    assert_eq!(answer["id"], "c");
    assert!(pieces > 5, "{pieces} pieces");
    drop(mock.finish().await);
}
