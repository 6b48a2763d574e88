//! Inputs found by the fuzz targets in `fuzz/` (`scripts/fuzz.sh`), kept as tests so the
//! bugs they found stay fixed.

use mcp_replay::Rules;
use serde_json::json;

/// selector_parser: a `replace` rule whose selector matches inside its own replacement
/// (`.**` with a container) walked into each value it put in place and recursed until
/// the stack overflowed. A replaced value is now final.
#[test]
fn replace_does_not_walk_into_its_own_replacement() {
    let rules = Rules::from_json(
        r#"{"replace":[{"selector":".**","with":{"x":[1]}}]}"#,
        "fuzz",
    )
    .unwrap();
    let mut m = json!({"jsonrpc": "2.0", "id": 7, "result": {"a": [1, {"b": 2}]}});
    rules.normalize_server(&mut m);
    // The root is replaced; the envelope is restored, as for any user rule.
    assert_eq!(m, json!({"x": [1], "jsonrpc": "2.0", "id": 7}));

    let rules = Rules::without_defaults().replace(".**.x", json!({"x": {"x": 1}}));
    let mut m = json!({"result": {"x": 1, "y": {"x": [2]}}});
    rules.normalize_client(&mut m);
    assert_eq!(
        m,
        json!({"result": {"x": {"x": {"x": 1}}, "y": {"x": {"x": {"x": 1}}}}})
    );
}

/// normalizer: `{"/tmp/root/eplay":1}` (temp folder `/tmp`, home `/root`) became
/// `<TMP>/root/eplay`, and normalizing again turned that into `<TMP><HOME>/eplay`: a path
/// right after a placeholder was taken for a new path. Normalizing twice must give the
/// same as once.
#[test]
fn a_path_placeholder_is_not_followed_by_another() {
    // Two workspace folders stand in for the temp and home folders of that machine.
    let rules = Rules::default()
        .workspace("/fuzz-short")
        .workspace("/fuzz-a-longer-one");
    let mut once = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "/fuzz-short/fuzz-a-longer-one/x": 1,
        "text": "see /fuzz-short/fuzz-a-longer-one/x and /fuzz-short/fuzz-short/y",
    }});
    rules.normalize_server(&mut once);
    assert_eq!(
        once["result"],
        json!({
            "<WORKSPACE>/fuzz-a-longer-one/x": 1,
            "text": "see <WORKSPACE>/fuzz-a-longer-one/x and <WORKSPACE>/fuzz-short/y",
        })
    );
    let mut twice = once.clone();
    rules.normalize_server(&mut twice);
    assert_eq!(twice, once);
}

/// value_model: personal data under a key named `id` below the envelope was written as it
/// was. The personal-data pass skipped the protocol's keys at every depth (`PROTOCOL_KEYS`
/// in `mcp-replay/src/normalize/personal/table.rs`; the replay's fast path in
/// `normalize/fast.rs` and `personal::scan` mirror it), and `id` was among them for the
/// envelope's sake, so a customer's name a values rule redacts, or an e-mail address, in
/// `structuredContent.id` or `arguments.id` stays in the fixture. The fuzzer reached it with
/// a minted id the client sent back that holds a path (`/tmp\Kx Globex Corp!rr:s`: the
/// `<TMP>` placeholder in it keeps it from being bound as minted); a server's own user id
/// that is an e-mail address (`{"owner": {"id": "dana@..."}}`) needs nothing of the kind.
#[test]
fn personal_data_under_a_nested_id_key_is_pseudonymized() {
    use mcp_replay::fixture::Direction;
    let rules = Rules::default().redact_value("customer", "Kx Globex Corp");
    let exchange = vec![
        (
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "get", "arguments": {"id": "/tmp\\Kx Globex Corp!rr:s"}}}),
        ),
        (
            Direction::ServerToClient,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [],
                "structuredContent": {"id": "/tmp\\Kx Globex Corp!rr:s",
                    "owner": {"id": "dana.whitfield@northwind-traders.com"}}}}),
        ),
    ];
    let fixture =
        mcp_replay::_support::record::fixture_from_exchange(exchange, &rules, "fuzz").unwrap();
    let text = fixture.to_jsonl();
    assert!(!text.to_lowercase().contains("globex"), "{text}");
    assert!(!text.contains("northwind"), "{text}");
    // The envelope's own id is still a label.
    assert!(text.contains(r#""id":"<REQUEST_ID>""#), "{text}");
}

/// value_model: an e-mail address the server sends in `structuredContent` and again in a
/// text, and the client sends back, was bound by its domain alone (the token that looks
/// minted, `qacme42.com`, "also sent elsewhere": in the text, inside the whole address), so
/// `udana@<MINTED:1>` kept the local part, a person's name, in the fixture. A part is bound
/// only where the server sent it without the whole.
#[test]
fn an_echoed_address_repeated_in_text_is_not_bound_by_its_domain_alone() {
    use mcp_replay::fixture::Direction;
    let address = "udana@qacme42.com";
    let exchange = vec![
        (
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "create", "arguments": {}}}),
        ),
        (
            Direction::ServerToClient,
            json!({"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": format!("created {address}")}],
                "structuredContent": {"email": address}}}),
        ),
        (
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get", "arguments": {"email": address}}}),
        ),
        (
            Direction::ServerToClient,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "ok"}]}}),
        ),
    ];
    let fixture =
        mcp_replay::_support::record::fixture_from_exchange(exchange, &Rules::default(), "fuzz")
            .unwrap();
    let text = fixture.to_jsonl();
    assert!(!text.contains("udana"), "{text}");
    assert!(!text.contains("qacme42"), "{text}");
}

/// value_model: a cursor holding text that looks like a placeholder (`<QD:3>`) was not
/// bound as `<CURSOR:n>` (a handle holding a placeholder was taken for one the fixture had
/// written already), and the personal-data pass never looked under `cursor` /
/// `nextCursor`, so a customer's name in it stayed in the fixture. A handle is now left
/// as it is only when it is wholly a placeholder, and the pass reads the handles it finds
/// unbound. The input, shortened: the fuzzer's cursor held NULs and a stray quote too.
#[test]
fn a_cursor_holding_placeholder_like_text_is_bound_and_its_personal_data_replaced() {
    use mcp_replay::fixture::Direction;
    let rules = Rules::default().redact_value("customer", "Kx Globex Corp");
    let cursor = "\u{fffd}\"QD:2<QD:3><PD:2>2I<c\u{fffd}\"Kx Globex Corp2:\t\u{0}\u{0}e";
    let exchange = vec![
        (
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        ),
        (
            Direction::ServerToClient,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [], "nextCursor": cursor}}),
        ),
        (
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                "params": {"cursor": cursor}}),
        ),
        (
            Direction::ServerToClient,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}),
        ),
    ];
    let fixture =
        mcp_replay::_support::record::fixture_from_exchange(exchange, &rules, "fuzz").unwrap();
    let text = fixture.to_jsonl();
    assert!(!text.to_lowercase().contains("globex"), "{text}");
    assert!(text.contains(r#""nextCursor":"<CURSOR:1>""#), "{text}");
    assert!(text.contains(r#""cursor":"<CURSOR:1>""#), "{text}");
}

/// The personal-data pass reads a handle the harness leaves unbound: a task id the client
/// named first is the client's own, sent as it was, but an e-mail address in it is
/// replaced like any other.
#[test]
fn an_unbound_handle_is_read_for_personal_data() {
    use mcp_replay::fixture::Direction;
    let task = "task-for-dana.whitfield@northwind-traders.com";
    let exchange = vec![
        (
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": task}}),
        ),
        (
            Direction::ServerToClient,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"taskId": task, "status": "working"}}),
        ),
    ];
    let fixture =
        mcp_replay::_support::record::fixture_from_exchange(exchange, &Rules::default(), "fuzz")
            .unwrap();
    let text = fixture.to_jsonl();
    assert!(!text.contains("northwind"), "{text}");
    assert!(!text.contains("dana"), "{text}");
}

/// value_model: a minted id the client sends back that holds an e-mail address
/// (`csu_g for u@q.com (Kxacme), key ...`) was bound as `<MINTED:1>`, and its shape in the
/// header kept the address: a shape keeps short lowercase words (`cus_`, `for`), and `u`,
/// `q` and `com` are such words. A shape's words now go through the personal-data pass.
#[test]
fn a_minted_values_shape_keeps_no_address_it_held() {
    use mcp_replay::fixture::Direction;
    let rules = Rules::default().redact_value("customer", "kx-northwind.io");
    let minted = "csu_g for dana@qacme.com (kx-northwind.io), key 7f3a";
    let exchange = vec![
        (
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "create", "arguments": {}}}),
        ),
        (
            Direction::ServerToClient,
            json!({"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": format!("created {minted}")}],
                "structuredContent": {"id": minted}}}),
        ),
        (
            Direction::ClientToServer,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "get", "arguments": {"id": minted}}}),
        ),
        (
            Direction::ServerToClient,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "ok"}]}}),
        ),
    ];
    let fixture =
        mcp_replay::_support::record::fixture_from_exchange(exchange, &rules, "fuzz").unwrap();
    let text = fixture.to_jsonl();
    assert!(text.contains("<MINTED:1>"), "{text}");
    assert!(!text.contains("dana"), "{text}");
    assert!(!text.contains("qacme"), "{text}");
    assert!(!text.contains("northwind"), "{text}");
}
