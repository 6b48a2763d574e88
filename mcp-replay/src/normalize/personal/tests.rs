//! The categories one by one (found, pseudonymized, left alone), a fixture's exchange in
//! both directions, idempotence, determinism, the false positives to avoid, the values
//! file and the deny list.

use super::*;
use crate::data::fixture::Direction::{ClientToServer, ServerToClient};
use crate::Rules;
use serde_json::{json, Value};

/// `s` after one pass of a fresh table with every category on.
fn once(s: &str) -> String {
    let own = Own::default();
    let scope = Scope {
        on: [true; 6],
        own: &own,
    };
    let mut v = json!({"result": {"text": s}});
    Table::default().apply(&mut v, scope, true);
    v["result"]["text"].as_str().unwrap().to_owned()
}

fn categories(s: &str) -> Vec<&'static str> {
    find(s, &[true; 6])
        .into_iter()
        .filter(|h| h.number.is_none())
        .map(|h| h.category.name())
        .collect()
}

#[test]
fn write_each_category_as_a_pseudonym_of_its_shape_inside_strings() {
    for (text, expected) in [
        (
            "mail alice@corp.com today",
            "mail user1@example.invalid today",
        ),
        ("call +44 20 7946 0958 now", "call +1-555-0100 now"),
        ("or (415) 867-5309.", "or +1-555-0100."),
        ("from 93.184.216.34:443", "from 192.0.2.1:443"),
        ("at [2606:4700:4700::1111]", "at [2001:db8::1]"),
        ("card 4539 1488 0343 6467 ok", "card 4000 0000 0000 0010 ok"),
        ("card 5425233430109903", "card 4000000000000010"),
        (
            "IBAN DE89370400440532013000.",
            "IBAN DE09000000000000000001.",
        ),
        (
            "iban GB82 WEST 1234 5698 7654 32",
            "iban GB88 0000 0000 0000 0000 01",
        ),
    ] {
        assert_eq!(once(text), expected, "{text}");
        assert_eq!(once(expected), expected, "a pseudonym stays: {expected}");
    }
}

#[test]
fn make_pseudonyms_that_pass_their_own_checks() {
    let card: String = card::pseudonym(7, "4539148803436467");
    assert!(card::luhn_valid(&card), "{card}");
    let iban = iban::pseudonym(3, "DE89370400440532013000");
    assert!(find(&iban, &[true; 6])[0].number == Some(3), "{iban}");
    assert_eq!(ip::pseudonym_v4(255), "198.51.100.1");
    assert_eq!(ip::pseudonym_v4(763), "198.18.0.1");
    assert_eq!(
        find(&ip::pseudonym_v4(763), &[true; 6])[0].number,
        Some(763)
    );
    assert_eq!(ip::pseudonym_v6(17), "2001:db8::11");
}

#[test]
fn leave_protocol_fields_and_lookalikes_alone() {
    for text in [
        "2025-06-18",
        "2026-07-28T12:00:00.000Z",
        "1716912345678",
        "550e8400-e29b-41d4-a716-446655440000",
        "version 1.2.3.4",
        "v10.20.30.40",
        "10.2.3.4.5",
        "1.2.3.4-beta",
        "127.0.0.1",
        "10.1.2.3",
        "192.168.1.20",
        "172.20.0.5",
        "169.254.1.1",
        "192.0.2.55",
        "::1",
        "fe80::1ff:fe23:4567:890a",
        "fd12:3456:789a::1",
        "std::io::Error",
        "12:30:45",
        "00:1a:2b:3c:4d:5e",
        "git@github.com:modelcontextprotocol/servers.git",
        "icon@2x.png",
        "someone@example.com",
        "a@b.test",
        "4111 1111 1111 1111",
        "1234567890123456",
        "555-0100",
        "+1-555-0123",
        "id 123-45-6789",
        "ISBN 978-3-16-148410-0",
        "order 4539148803436468",
        "DE89370400440532013001",
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
        "demo://resource/93.184.216.34/1",
    ] {
        let found = categories(text);
        let expected: &[&str] = if text.starts_with("demo://") { &["ipv4"] } else { &[] };
        assert_eq!(found, expected, "{text}");
    }
}

#[test]
fn skip_the_protocol_keys_but_read_the_handles() {
    let own = Own::default();
    let scope = Scope {
        on: [true; 6],
        own: &own,
    };
    let mut m = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "93.184.216.34", "serverInfo": {"name": "s", "version": "1.20.3.4"},
        "nextCursor": "alice@corp.com", "text": "alice@corp.com"}});
    Table::default().apply(&mut m, scope, true);
    assert_eq!(m["result"]["protocolVersion"], "93.184.216.34");
    assert_eq!(m["result"]["serverInfo"]["version"], "1.20.3.4");
    // A handle the harness left unbound is a value like any other (bound, it is
    // `<CURSOR:n>` before the pass runs).
    assert_eq!(m["result"]["nextCursor"], "user1@example.invalid");
    assert_eq!(m["result"]["text"], "user1@example.invalid");
}

fn exchange() -> Vec<(crate::data::fixture::Direction, Value)> {
    vec![
        (
            ClientToServer,
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "lookup", "arguments": {"email": "Alice@Corp.com"}}}),
        ),
        (
            ServerToClient,
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": {"content": [{"type": "text", "text": "alice@corp.com is bob@corp.com's manager; bob calls from 8.8.4.4 and 93.184.216.34"}]}}),
        ),
        (
            ClientToServer,
            json!({"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": "mail", "arguments": {"to": "bob@corp.com", "cc": ["alice@corp.com"]}}}),
        ),
    ]
}

#[test]
fn number_values_by_first_occurrence_across_the_exchange_in_both_directions() {
    let mut messages = exchange();
    Rules::default().pseudonymize_exchange(&mut messages);
    assert_eq!(
        messages[0].1["params"]["arguments"]["email"],
        "user1@example.invalid"
    );
    assert_eq!(
        messages[1].1["result"]["content"][0]["text"],
        "user1@example.invalid is user2@example.invalid's manager; bob calls from 8.8.4.4 and 192.0.2.1"
    );
    assert_eq!(
        messages[2].1["params"]["arguments"],
        json!({"to": "user2@example.invalid", "cc": ["user1@example.invalid"]})
    );
    // Idempotent: a written fixture passes through unchanged.
    let written = messages.clone();
    Rules::default().pseudonymize_exchange(&mut messages);
    assert_eq!(messages, written);
    // Deterministic: the same exchange gives the same bytes.
    let mut again = exchange();
    Rules::default().pseudonymize_exchange(&mut again);
    assert_eq!(again, written);
}

#[test]
fn turn_a_category_off_and_pin_an_older_version() {
    let mut messages = exchange();
    Rules::default()
        .without("email")
        .pseudonymize_exchange(&mut messages);
    let text = messages[1].1["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.starts_with("alice@corp.com") && text.ends_with("192.0.2.1"),
        "{text}"
    );
    let mut messages = exchange();
    Rules::default()
        .version(2)
        .pseudonymize_exchange(&mut messages);
    assert_eq!(messages, exchange());
    let file = Rules::from_json(r#"{"personal": {"without": ["ipv4"]}}"#, "r.json").unwrap();
    assert!(!Rules::default().merge(&file).applies("ipv4"));
    let e = Rules::from_json(r#"{"personal": {"without": ["names"]}}"#, "r.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("personal.without[0] must be a category: email, phone"),
        "{e}"
    );
}

#[test]
fn number_the_servers_values_after_the_pseudonyms_the_client_sent() {
    // A replay sends the fixture's client messages (pseudonyms already) and meets the
    // server's real values: they get the numbers the recording gave them.
    let rules = Rules::default();
    let scope = rules.personal_scope();
    let mut table = Table::default();
    let mut sent = json!({"params": {"arguments": {"email": "user1@example.invalid"}}});
    table.apply(&mut sent, scope, true);
    let mut live = json!({"result": {"text": "user1@example.invalid reports to bob@corp.com"}});
    table.apply(&mut live, scope, true);
    assert_eq!(
        live["result"]["text"],
        "user1@example.invalid reports to user2@example.invalid"
    );
}

#[test]
fn write_the_users_values_patterns_and_selectors_as_numbered_kinds() {
    let values = Values::parse(
        "# the tenant\n[customer]\nAcme Corporation\nGlobex\n\n[host]\nbuild-07.corp.internal\n",
        "values.txt",
    )
    .unwrap();
    let rules = Rules::default()
        .redact_values(&values)
        .pseudonymize_pattern(r"EMP-\d{6}", "employee")
        .pseudonymize(".result.structuredContent.owner", "name");
    let mut messages = vec![
        (
            ClientToServer,
            json!({"method": "tools/call", "params": {"arguments": {"q": "ACME corporation"}}}),
        ),
        (
            ServerToClient,
            json!({"result": {"content": [{"type": "text", "text": "Globex and Acme Corporation on build-07.corp.internal, EMP-004211"}],
                   "structuredContent": {"owner": "Jane Roe"}}}),
        ),
    ];
    rules.pseudonymize_exchange(&mut messages);
    assert_eq!(messages[0].1["params"]["arguments"]["q"], "<CUSTOMER:1>");
    assert_eq!(
        messages[1].1["result"]["content"][0]["text"],
        "<CUSTOMER:2> and <CUSTOMER:1> on <HOST:1>, <EMPLOYEE:1>"
    );
    assert_eq!(
        messages[1].1["result"]["structuredContent"]["owner"],
        "<NAME:1>"
    );
    let written = messages.clone();
    rules.pseudonymize_exchange(&mut messages);
    assert_eq!(messages, written);
    // The fast path is not for rules of the user's.
    assert!(rules.defaults_only().is_none());
}

#[test]
fn explain_a_bad_values_file() {
    let e = Values::parse("[9 lives]\nx\n", "v.txt")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("v.txt: line 1: a kind is a name"), "{e}");
    let e = Values::parse("ab\n", "v.txt").unwrap_err().to_string();
    assert!(
        e.contains("line 1: a value of fewer than 3 characters"),
        "{e}"
    );
    let e = DenyList::parse("# nothing\n", "d.txt")
        .unwrap_err()
        .to_string();
    assert!(e.contains("the deny list holds no value"), "{e}");
}

#[test]
fn find_a_denied_value_in_any_case_and_escaped_form_without_naming_it() {
    let deny = DenyList::parse(
        "# values\nalice@corp.com\nAcme Corporation\n4539148803436467\n",
        "deny.txt",
    )
    .unwrap();
    let lines = [
        r#"{"mcp_replay":1}"#,
        r#"{"direction":"server->client","message":{"result":{"text":"ALICE@CORP.COM"}}}"#,
        r#"{"direction":"server->client","message":{"result":{"uri":"mailto:alice%40corp.com"}}}"#,
        r#"{"direction":"server->client","message":{"result":{"text":"alice\u0040corp.com"}}}"#,
        r#"{"direction":"server->client","message":{"result":{"text":"{\"who\":\"acme\\u0020corporation\"}"}}}"#,
        r#"{"direction":"server->client","message":{"result":{"q":"acme+corporation"}}}"#,
        r#"{"direction":"server->client","message":{"result":{"n":4539148803436467}}}"#,
        r#"{"direction":"server->client","message":{"result":{"Acme Corporation":1}}}"#,
        r#"{"direction":"server->client","message":{"result":{"text":"user1@example.invalid"}}}"#,
    ];
    let found = deny.check(&lines.join("\n"));
    let shown: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "line 2: .message.result.text holds a denied value (deny.txt line 2)",
            "line 3: .message.result.uri holds a denied value (deny.txt line 2)",
            "line 4: .message.result.text holds a denied value (deny.txt line 2)",
            "line 5: .message.result.text holds a denied value (deny.txt line 3)",
            "line 6: .message.result.q holds a denied value (deny.txt line 3)",
            "line 7: .message.result.n holds a denied value (deny.txt line 4)",
            "line 8: .message.result[\"<REDACTED>\"] holds a denied value (deny.txt line 3)",
        ]
    );
    for s in &shown {
        assert!(!s.to_lowercase().contains("alice") && !s.to_lowercase().contains("acme"));
    }
}

#[test]
fn say_when_a_line_may_hold_personal_data() {
    for line in [
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[],"text":"a: b: c at 9:30"}}"#,
    ] {
        assert!(!may_hold_line(line), "{line}");
    }
    for line in [
        r#"{"id":1,"result":{"text":"a@b.co"}}"#,
        r#"{"id":1,"result":{"text":"a\u0040b.co"}}"#,
        r#"{"id":1,"result":{"text":"1.2.3.4"}}"#,
        r#"{"id":1,"result":{"text":"::1"}}"#,
        r#"{"id":1,"result":{"text":"555 867 5309"}}"#,
    ] {
        assert!(may_hold_line(line), "{line}");
    }
}

proptest::proptest! {
    /// Whatever the line, when it may hold nothing, no string of it holds a finding, and a
    /// second pass changes nothing.
    #[test]
    fn never_miss_what_find_finds_and_stay_idempotent(s in "[a-z0-9@.:+ ()-]{0,40}") {
        let line = serde_json::to_string(&json!({"t": s})).unwrap();
        if !may_hold_line(&line) {
            proptest::prop_assert!(find(&s, &[true; 6]).is_empty(), "{:?}", s);
        }
        let first = once(&s);
        proptest::prop_assert_eq!(once(&first), first.clone(), "{:?}", s);
    }
}

#[test]
fn fail_a_replay_of_a_fixture_that_holds_a_denied_value_without_naming_it() {
    let fixture = crate::Fixture::parse(concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"x","arguments":{}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"for ACME Corporation"}]}}}"#,
        "\n"
    ))
    .unwrap();
    let rules = Rules::default();
    assert!(crate::harness::resolve::check_denied(&fixture, &rules).is_ok());
    let rules = rules.deny_values(DenyList::parse("Acme Corporation\n", "deny.txt").unwrap());
    let e = crate::harness::resolve::check_denied(&fixture, &rules)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("holds a value of the deny list (the values are not shown):\n  line 2: .message.result.content[0].text holds a denied value (deny.txt line 1)"),
        "{e}"
    );
    assert!(!e.to_lowercase().contains("acme"), "{e}");
}
