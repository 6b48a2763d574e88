//! Importing the real mcporter recordings in `tests/fixtures/mcporter/` (copied from
//! `shared/recordings/mcporter/`, captured against server-everything 2026.8.31).

use mcp_replay::_support::mcporter;
use mcp_replay::Rules;

const ECHO: &str = include_str!("fixtures/mcporter/echo.ndjson");
const MULTI: &str = include_str!("fixtures/mcporter/multi-server.ndjson");
const ELICIT: &str = include_str!("fixtures/mcporter/v013-elicit-decline.ndjson");

#[test]
fn lifecycle_lines_and_meta_are_dropped() {
    let t = mcporter::parse(ECHO, "echo.ndjson").unwrap();
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].server, "everything");
    assert!(t[0].messages.iter().all(|(_, m)| m.get("_meta").is_none()));
    assert!(t[0]
        .messages
        .iter()
        .all(|(_, m)| !m["method"].as_str().unwrap_or("").starts_with('$')));
}

#[test]
fn a_multi_server_recording_becomes_one_fixture_per_server_in_order_of_appearance() {
    let f = mcporter::import(MULTI, "multi", None, &Rules::default()).unwrap();
    let names: Vec<&str> = f.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["everything2", "everything"]);
    for (_, fixture) in &f {
        // Each server numbered its ids from 0; each fixture pairs its own.
        assert!(fixture.entries().iter().all(|e| e
            .id()
            .is_none_or(|id| id.as_str().is_some_and(|s| s.starts_with('<')))));
    }
    let only = mcporter::import(MULTI, "multi", Some("everything2"), &Rules::default()).unwrap();
    assert_eq!(only.len(), 1);
    let err = mcporter::import(MULTI, "multi", Some("nope"), &Rules::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("the recording has: everything2, everything"),
        "{err}"
    );
}

#[test]
fn a_server_request_and_the_clients_answer_stay_in_place() {
    let f = &mcporter::import(ELICIT, "elicit", None, &Rules::default()).unwrap()[0].1;
    let text = f.to_jsonl();
    assert!(
        text.contains(r#""id":"<SERVER_REQUEST_ID:1>","method":"elicitation/create""#),
        "{text}"
    );
    assert!(
        text.contains(r#""id":"<SERVER_REQUEST_ID:1>","result":{"action":"decline"}"#),
        "{text}"
    );
    assert!(
        !text.contains("\"mcporter\""),
        "client identity is normalized: {text}"
    );
    f.check_secrets().unwrap();
}

#[test]
fn timestamps_and_ids_do_not_survive_an_import() {
    for recording in [ECHO, MULTI, ELICIT] {
        for (_, f) in mcporter::import(recording, "r", None, &Rules::default()).unwrap() {
            let text = f.to_jsonl();
            assert!(!text.contains("2026-11-30T"), "{text}");
            assert!(!text.contains("\"id\":0"), "{text}");
        }
    }
}
