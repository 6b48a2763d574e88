//! Values that change from one run of an unchanged server to the next, found when a
//! recording is written: the recording is replayed once more against a fresh server
//! ([`crate::harness::settle`] runs it), and what that second run gave otherwise is pinned
//! before the fixture is written (what is decided from the two messages:
//! `normalize/per_run.rs`), so that the first plain run after a recording is green.

use crate::data::fixture::{Direction, Fixture};
use crate::error::Error;
use crate::findings::report::{MismatchKind, Report};
use crate::normalize::per_run::PerRun;
use crate::rules::Rules;
use serde_json::Value;

/// What `second`, the report of replaying a fresh recording against a fresh server,
/// says differs between the two runs.
pub(crate) fn between(second: &Report) -> PerRun {
    let mut out = PerRun::default();
    for m in second.mismatches() {
        let line = m.line().map_or(String::new(), |l| format!("line {l}, "));
        match (m.kind(), m.expected_message(), m.actual_message()) {
            (MismatchKind::Result | MismatchKind::Params, Some(e), Some(a)) => out.add(e, a, &line),
            _ => out.left.push(format!("{line}{}", m.summary())),
        }
    }
    out.values.dedup();
    out.sorts.sort();
    out.sorts.dedup();
    out
}

/// `recorded` with the values bound and the arrays sorted, and the header saying so
/// (`"sort"`, `"shapes"`). `rules`: the fixture's own, for what they pin.
pub(crate) fn apply(per_run: &PerRun, recorded: &Fixture, rules: &Rules) -> Result<Fixture, Error> {
    let mut messages: Vec<(Direction, Value)> = recorded
        .entries()
        .iter()
        .map(|e| (e.direction(), e.message()))
        .collect();
    let (mut bound, pinned) = rules.minted_and_pinned(&messages);
    bound.extend(per_run.values.iter().cloned());
    let found = crate::normalize::bound::label_minted(&mut messages, &bound, &pinned);
    if !per_run.sorts.is_empty() {
        let sorting = per_run
            .sorts
            .iter()
            .fold(Rules::without_defaults(), |r, s| r.sort(s));
        for (direction, message) in &mut messages {
            if *direction == Direction::ServerToClient {
                sorting.normalize_server(message);
            }
        }
    }
    recorded
        .without_entries()
        .with_messages(messages)?
        .with_pinned(&found, &per_run.sorts, rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::report::Mismatch;
    use serde_json::json;

    fn report(kind: MismatchKind, line: usize, e: Value, a: Value) -> Report {
        let mut report = Report::empty("f.jsonl");
        report.mismatches = vec![Mismatch::new(kind, Some(line), "differs")
            .expected(&e)
            .actual(&a)];
        report
    }

    #[test]
    fn bind_a_token_minted_per_run_inside_a_sentence() {
        let found = between(&report(
            MismatchKind::Result,
            2,
            json!({"id": 1, "result": {"content": [{"type": "text", "text": "created at-5caaf2fb"}]}}),
            json!({"id": 1, "result": {"content": [{"type": "text", "text": "created at-9d1e77a0"}]}}),
        ));
        assert_eq!(found.values, vec!["at-5caaf2fb"]);
        assert!(found.sorts.is_empty() && found.left.is_empty());
    }

    #[test]
    fn bind_a_short_value_whole_and_sort_a_reordered_list() {
        let found = between(&report(
            MismatchKind::Result,
            3,
            json!({"result": {"seq": "r7", "tools": [{"name": "a"}, {"name": "b"}]}}),
            json!({"result": {"seq": "r9", "tools": [{"name": "b"}, {"name": "a"}]}}),
        ));
        assert_eq!(found.values, vec!["r7"]);
        assert_eq!(found.sorts, vec![".result.tools"]);
    }

    #[test]
    fn leave_a_number_and_a_missing_key_named_by_line_and_path() {
        let found = between(&report(
            MismatchKind::Result,
            4,
            json!({"result": {"n": 1, "items": [{"k": 1}], "x": {"a": 1}}}),
            json!({"result": {"n": 2, "items": [{"k": 1}], "x": {"b": 1}}}),
        ));
        assert_eq!(found.left, vec!["line 4, .result.n", "line 4, .result.x"]);
        assert!(found.describe(1).unwrap().contains("`accept`"));
    }

    #[test]
    fn run_until_a_per_run_order_escapes_with_a_chance_below_one_in_ten_thousand() {
        use crate::normalize::per_run::{lists_of, runs_for, runs_needed, ESCAPE, MOST_RUNS};
        let table: Vec<usize> = (2..=8).map(runs_for).collect();
        assert_eq!(table, [14, 6, 3, 2, 2, 2, 1]);
        for items in 2..=8u32 {
            let orders = (2..=u64::from(items)).product::<u64>() as f64;
            let runs = runs_for(items as usize) as i32;
            let escapes = orders.powi(-runs);
            assert!(escapes < 1.0 / ESCAPE as f64, "{items} items: {escapes}");
            assert!(
                orders.powi(1 - runs) >= 1.0 / ESCAPE as f64,
                "{items} items: fewer do"
            );
        }
        let tags = json!({"result": {"structuredContent": {"tags": ["home", "work", "errand"]},
            "content": [{"type": "text", "text": "3 tags"}]}});
        let lists = lists_of([&tags]);
        assert_eq!(lists, [(".result.structuredContent.tags".to_owned(), 3)]);
        assert_eq!(runs_needed(&lists, &PerRun::default()), 6);
        // Seen in another order already: sorted from now on, it asks for nothing more.
        let seen = PerRun {
            sorts: vec![".result.structuredContent.tags".into()],
            ..PerRun::default()
        };
        assert_eq!(runs_needed(&lists, &seen), 1);
        // Equal elements have no order to show; a list of two asks for at most 6 runs.
        assert!(lists_of([&json!({"result": {"a": [1, 1, 1]}})]).is_empty());
        let two = lists_of([&json!({"result": {"required": ["a", "b"]}})]);
        assert_eq!(runs_needed(&two, &PerRun::default()), MOST_RUNS);
    }

    #[test]
    fn a_json_text_whose_list_came_in_another_order_is_sorted_not_bound() {
        // pmcp's and turbomcp's tools repeat their structured answer as a JSON text
        // (turbomcp's pretty-printed): the text's list in a per-run order.
        let found = between(&report(
            MismatchKind::Result,
            2,
            json!({"result": {"content": [{"type": "text", "text": "{\n  \"tags\": [\"work\", \"home\"]\n}"}]}}),
            json!({"result": {"content": [{"type": "text", "text": "{\n  \"tags\": [\"home\", \"work\"]\n}"}]}}),
        ));
        assert_eq!(found.sorts, vec![".result.content[].text"]);
        assert!(found.values.is_empty(), "{found:?}");
        let recorded = Fixture::parse(concat!(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tags"}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\n  \"tags\": [\"work\", \"home\"]\n}"}]}}}"#,
            "\n"
        ))
        .unwrap();
        let text = apply(&found, &recorded, &Rules::default())
            .unwrap()
            .to_jsonl();
        // Still compared, as JSON: the list sorted, in the canonical form.
        assert!(
            text.contains(r#""text":"{\"tags\":[\"home\",\"work\"]}""#),
            "{text}"
        );
        assert!(!text.contains("MINTED"), "{text}");
    }

    #[test]
    fn write_the_bound_values_and_the_sorted_lists_into_the_recording() {
        let recorded = Fixture::parse(concat!(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mint"}}}"#,
            "\n",
            r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"created at-5caaf2fb"}],"tags":["b","a"]}}}"#,
            "\n"
        ))
        .unwrap();
        let found = PerRun {
            values: vec!["at-5caaf2fb".into()],
            sorts: vec![".result.tags".into()],
            ..PerRun::default()
        };
        let written = apply(&found, &recorded, &Rules::default()).unwrap();
        let text = written.to_jsonl();
        assert!(text.contains("created <MINTED:1>"), "{text}");
        assert!(text.contains(r#""tags":["a","b"]"#), "{text}");
        assert!(
            text.starts_with(
                r#"{"mcp_replay":1,"shapes":{"<MINTED:1>":"at-00000001"},"sort":[".result.tags"]}"#
            ),
            "{text}"
        );
        assert!(!text.contains("5caaf2fb"));
    }
}
