//! The fixture's first line, the header, with every key of `docs/fixture-format.md`
//! ("Header options"), and one key it does not know. The input is a list of entries, each
//! a key byte, a length byte and that many bytes of value: the value as written when it is
//! JSON, else as a JSON string of its text (lossy UTF-8). They make the header object's
//! text (a key may come twice, `"mcp_replay": 1` first unless the first byte's low bit is
//! set), followed by a small fixed body (a handshake, a call with progress, a tools/list).
//! `Fixture::parse` never panics; a fixture that parses writes back canonically
//! (`to_jsonl()` parses again to the same text, as in `fixture_parser`), and what reads its
//! header (the era, the resume points, the values that cannot be bound, the explore
//! record, the secret guard) never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_replay::Fixture;

/// The header keys of `docs/fixture-format.md`, and one it does not list.
const KEYS: [&str; 25] = [
    "mcp_replay",
    "protocol",
    "timeout",
    "timeout_ms",
    "pace_ms",
    "unordered",
    "strict_order",
    "strict_response_order",
    "rules",
    "allow_secrets",
    "accept",
    "description",
    "strict_exit",
    "protocol_check",
    "solo",
    "closes_input_after",
    "explore",
    "allow_stray_output",
    "http_resume",
    "bind",
    "sort",
    "faults",
    "pin",
    "shapes",
    "no_such_key",
];

/// Lines 2 to 8 (the header is line 1): a progress notification on line 5 (an
/// `http_resume` point), a tool listed with a schema, a minted-looking id.
const BODY: &str = concat!(
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"fuzz","version":"1"},"protocolVersion":"2025-11-25"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"fuzz","version":"1.0.0"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"_meta":{"progressToken":"<PROGRESS_TOKEN>"},"name":"add","arguments":{"a":1}}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<PROGRESS_TOKEN>"}}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"<MINTED:1>"}],"structuredContent":{"id":"<MINTED:1>"}}}}"#,
    "\n",
    r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    "\n",
    r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"integer"}}}}]}}}"#,
    "\n",
);

fuzz_target!(|data: &[u8]| {
    let Some((&flags, mut rest)) = data.split_first() else {
        return;
    };
    let mut header = String::from("{");
    if flags & 1 == 0 {
        header.push_str(r#""mcp_replay":1"#);
    }
    while rest.len() >= 2 {
        let key = KEYS[usize::from(rest[0]) % KEYS.len()];
        let len = usize::from(rest[1]).min(rest.len() - 2);
        let value = &rest[2..2 + len];
        rest = &rest[2 + len..];
        if header.len() > 1 {
            header.push(',');
        }
        header.push_str(&serde_json::to_string(key).unwrap());
        header.push(':');
        match serde_json::from_slice::<serde_json::Value>(value) {
            Ok(_) => header.push_str(std::str::from_utf8(value).unwrap()),
            Err(_) => {
                let text = String::from_utf8_lossy(value);
                header.push_str(&serde_json::to_string(&text).unwrap());
            }
        }
    }
    header.push('}');
    let text = format!("{header}\n{BODY}");
    let Ok(fixture) = Fixture::parse(&text) else {
        return;
    };
    let _ = format!("{:?}", fixture.header());
    let _ = fixture.era();
    let _ = fixture.resume_points();
    let _ = fixture.unbindable();
    let _ = fixture.explored();
    let _ = fixture.check_secrets();
    let written = fixture.to_jsonl();
    let reparsed = match Fixture::parse(&written) {
        Ok(f) => f,
        Err(e) => panic!("to_jsonl() output does not parse: {e}\n--- read ---\n{text}\n--- written ---\n{written}"),
    };
    assert_eq!(
        reparsed.to_jsonl(),
        written,
        "to_jsonl() is not a fixed point of parse"
    );
    assert_eq!(reparsed.entries().len(), fixture.entries().len());
    assert_eq!(
        format!("{:?}", reparsed.header()),
        format!("{:?}", fixture.header()),
        "the header read back differs"
    );
});
