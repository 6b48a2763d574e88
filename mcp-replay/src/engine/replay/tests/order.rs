//! The client's order (docs/fixture-format.md, "The replay, step by step"): an answer to a
//! server request goes after the client lines recorded before it that may go now, and
//! before one that still waits on the server.

use super::*;

const INIT: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID:1>","method":"initialize","params":{"capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID:1>","result":{"capabilities":{},"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
    "\n",
);

fn line(direction: &str, message: Value) -> String {
    format!("{}\n", json!({"direction": direction, "message": message}))
}

fn call(label: &str, name: &str) -> String {
    line(
        "client->server",
        json!({"jsonrpc": "2.0", "id": label, "method": "tools/call", "params": {"name": name, "arguments": {}}}),
    )
}

fn roots_request(label: &str) -> String {
    line(
        "server->client",
        json!({"jsonrpc": "2.0", "id": label, "method": "roots/list"}),
    )
}

fn roots_answer(label: &str) -> String {
    line(
        "client->server",
        json!({"jsonrpc": "2.0", "id": label, "result": {"roots": [{"uri": "file:///r"}]}}),
    )
}

fn done(label: &str, text: &str) -> String {
    line(
        "server->client",
        json!({"jsonrpc": "2.0", "id": label, "result": {"content": [{"type": "text", "text": text}]}}),
    )
}

/// Call `a`, during which the server asks for the roots and answers `a` without them; the
/// client then calls `b`, and answers the roots request after it.
fn a_then_b() -> String {
    [
        INIT.to_owned(),
        call("<REQUEST_ID:2>", "a"),
        roots_request("<SERVER_REQUEST_ID:1>"),
        done("<REQUEST_ID:2>", "a done"),
        call("<REQUEST_ID:3>", "b"),
        roots_answer("<SERVER_REQUEST_ID:1>"),
        done("<REQUEST_ID:3>", "b done"),
    ]
    .concat()
}

/// Plays the handshake of [`INIT`]; what goes out with `notifications/initialized`.
fn handshake(s: &mut Script<'_>) -> Vec<Value> {
    let init = s.sent();
    assert_eq!(init[0]["method"], "initialize");
    let then = s
        .at(1)
        .arrive(result(init[0]["id"].clone(), init_result()))
        .sent();
    assert_eq!(then[0]["method"], "notifications/initialized");
    then[1..].to_vec()
}

/// The session of issue 47: the server asks for the roots just as the client calls a tool
/// that reads them; the client sent the call first and its answer after. A server that
/// asks again when a call finds no roots yet must see the call first, as recorded.
#[test]
fn an_answer_waits_for_the_client_lines_recorded_before_it_that_may_go_now() {
    let text = [
        INIT.to_owned(),
        roots_request("<SERVER_REQUEST_ID:1>"),
        call("<REQUEST_ID:2>", "get-roots-list"),
        roots_answer("<SERVER_REQUEST_ID:1>"),
        roots_request("<SERVER_REQUEST_ID:2>"),
        roots_answer("<SERVER_REQUEST_ID:2>"),
        done("<REQUEST_ID:2>", "roots: file:///r"),
    ]
    .concat();
    let fixture = Fixture::parse(&text).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    assert!(
        handshake(&mut s).is_empty(),
        "the call waits for the roots request"
    );
    let out = s
        .at(2)
        .arrive(json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}))
        .sent();
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(
        out[0]["method"], "tools/call",
        "the call first, as recorded"
    );
    assert_eq!(
        out[1],
        result(json!(0), json!({"roots": [{"uri": "file:///r"}]}))
    );
    let again = s
        .at(3)
        .arrive(json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}))
        .sent();
    assert_eq!(
        again,
        [result(json!(1), json!({"roots": [{"uri": "file:///r"}]}))]
    );
    s.at(4).arrive(result(
        out[0]["id"].clone(),
        json!({"content": [{"type": "text", "text": "roots: file:///r"}]}),
    ));
    let report = settle_and_end(s);
    assert!(report.is_ok(), "{report}");
}

/// A server that answers nothing until its own request is answered: the line recorded
/// before the answer waits on a response the server now sends only after it. The answer is
/// held back a quarter of the timeout at most (holding it longer would stop the session),
/// then goes first; the trace says so, and the session passes.
#[test]
fn an_answer_goes_first_when_a_line_before_it_waits_on_the_server() {
    let text = a_then_b();
    let fixture = Fixture::parse(&text).unwrap();
    let rules = Rules::default();
    let settings = Options::new()
        .timeout(TIMEOUT)
        .trace(true)
        .protocol_check(ProtocolCheck::Off)
        .resolve(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let a = handshake(&mut s);
    assert_eq!(a[0]["params"]["name"], "a");
    let held = s
        .at(2)
        .arrive(json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}))
        .sent();
    assert!(held.is_empty(), "{held:?}");
    assert_eq!(s.deadline_ms(), Some(127), "held until 2 + 500 / 4 ms");
    let out = s.at(127).wake().sent();
    assert_eq!(
        out,
        [result(json!(0), json!({"roots": [{"uri": "file:///r"}]}))]
    );
    let b = s
        .at(130)
        .arrive(result(
            a[0]["id"].clone(),
            json!({"content": [{"type": "text", "text": "a done"}]}),
        ))
        .sent();
    assert_eq!(b[0]["params"]["name"], "b");
    s.at(131).arrive(result(
        b[0]["id"].clone(),
        json!({"content": [{"type": "text", "text": "b done"}]}),
    ));
    let trace = s.session.take_trace();
    assert!(
        trace.contains(
            "the answer (line 8) goes before line 7, recorded before it, which still waits"
        ),
        "{trace}"
    );
    let report = settle_and_end(s);
    assert!(report.is_ok(), "{report}");
}

/// The recording's own order where the server sends its request and then, without the
/// answer, the response a later client line waits for: the answer is held until that
/// response came and the line went.
#[test]
fn an_answer_is_held_until_the_line_before_it_may_go() {
    let text = a_then_b();
    let fixture = Fixture::parse(&text).unwrap();
    let rules = Rules::default();
    let settings = settings(&fixture, &rules);
    let mut s = Script::new(&fixture, &settings);
    let a = handshake(&mut s);
    let held = s
        .at(2)
        .arrive(json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}))
        .sent();
    assert!(held.is_empty(), "{held:?}");
    let out = s
        .at(3)
        .arrive(result(
            a[0]["id"].clone(),
            json!({"content": [{"type": "text", "text": "a done"}]}),
        ))
        .sent();
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0]["params"]["name"], "b", "the call first, as recorded");
    assert_eq!(
        out[1],
        result(json!(0), json!({"roots": [{"uri": "file:///r"}]}))
    );
    s.at(4).arrive(result(
        out[0]["id"].clone(),
        json!({"content": [{"type": "text", "text": "b done"}]}),
    ));
    let report = settle_and_end(s);
    assert!(report.is_ok(), "{report}");
}
