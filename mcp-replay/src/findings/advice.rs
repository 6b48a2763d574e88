//! What a failing report advises at its end: a pure function of its findings
//! ([`advice`]), which the report only renders.
//!
//! - A changed result, params, notification, order, or a message missing or unexpected:
//!   the server changed what it answers; if that is right, re-record the fixture.
//! - A request the server now fails where the fixture has it succeed: a JSON-RPC error,
//!   or a result with `isError: true`, where the fixture has a result that is not one
//!   ([`Mismatch::worse`], decided by structure alone). Re-recording would pin the failure
//!   over the success, so no update mode but `force` writes it. Its words only choose the
//!   advice: a JSON-RPC error, or a tool error that says the arguments were refused
//!   ([`Refusal::arguments`]): the client line may be stale (a tool renamed, a required
//!   argument added), edit it or check the server; any other tool error (`division by
//!   zero`): check the server, or edit the line.
//! - Findings that follow from an earlier one ([`follows`]: a later request sent, as
//!   written, a value the earlier answer was to mint): said once, with the first cause;
//!   they add no advice of their own.
//! - A timeout, a server failure, an id finding or stray output: nothing to re-record (a
//!   re-recording refuses such a session: `Plan::conclude`); the finding says what is
//!   wrong. What never came while a request that timed out ran is the timeout's doing.
//!   Beside changed answers, they come first: the advice says so.
//! - A changed result or params where everything that differs looks minted per run (an
//!   opaque token of the same shape, `at-5caaf2fb` now `at-9d1e77a0`; a list in another
//!   order; [`PerRun::looks_per_run`]): a re-recording would pin one run's value and fail
//!   the next; the advice names the path and the rule that pins it (`bind`, `sort`,
//!   `accept`), not a re-recording.
//! - An `http` finding: the transport broke its contract, which a re-recording does not
//!   change; it adds no advice.

use crate::findings::mismatch::{follows, Mismatch, MismatchKind, Refusal};
use crate::normalize::per_run::PerRun;
use serde_json::Value;

/// One piece of the advice at the end of a failing report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Advice {
    /// Requests the server refuses where the fixture has their answer, in fixture order,
    /// each once.
    Refused(Vec<Refusal>),
    /// Findings (their fixture line, what differed) where everything that differs looks
    /// minted per run: pin it with a rule, not a re-recording.
    PerRun(Vec<(usize, PerRun)>),
    /// The server changed what it answers: re-record the fixture if that is right.
    Rerecord,
    /// Changed answers, but also findings (these kinds) that a re-recording refuses: fix
    /// those first, then re-record.
    FixFirst(Vec<MismatchKind>),
    /// Findings that follow from an earlier one ([`follows`]): the line of the first
    /// cause's expected message, the request lines of what follows from it, and the
    /// placeholders its answer was to mint. Fix the cause first.
    Follow(Vec<(usize, Vec<usize>, Vec<String>)>),
}

/// The advice for `mismatches`, each piece once: the refused requests, then re-recording
/// (or what to fix before it).
pub(crate) fn advice(mismatches: &[Mismatch]) -> Vec<Advice> {
    let mut refused: Vec<Refusal> = Vec::new();
    let mut per_run: Vec<(usize, PerRun)> = Vec::new();
    let mut changed = false;
    let mut blockers: Vec<MismatchKind> = Vec::new();
    let causes = follows(mismatches);
    let followed = followed(mismatches, &causes);
    // What never came while a request that timed out ran is the timeout's doing.
    let timed_out: Vec<usize> = mismatches
        .iter()
        .filter(|m| m.kind() == MismatchKind::Timeout)
        .filter_map(Mismatch::request_line)
        .collect();
    for (m, cause) in mismatches.iter().zip(&causes) {
        // What follows from an earlier finding is said with it, once.
        if cause.is_some() {
            continue;
        }
        if m.kind() == MismatchKind::Missing
            && m.request_line().is_some_and(|q| timed_out.contains(&q))
        {
            continue;
        }
        if let Some(refusal) = m.refusal() {
            if !refused.iter().any(|r| r.line == refusal.line) {
                refused.push(refusal);
            }
            continue;
        }
        if let Some(found) = looks_per_run(m) {
            per_run.push((m.line().unwrap_or_default(), found));
            continue;
        }
        match m.kind() {
            k if k.spoils_recording() => {
                if !blockers.contains(&k) {
                    blockers.push(k);
                }
            }
            MismatchKind::Http => {}
            _ => changed = true,
        }
    }
    refused.sort_by_key(|r| r.line);
    blockers.sort();
    let mut out = Vec::new();
    if !refused.is_empty() {
        out.push(Advice::Refused(refused));
    }
    if !followed.is_empty() {
        out.push(Advice::Follow(followed));
    }
    if !per_run.is_empty() {
        out.push(Advice::PerRun(per_run));
    }
    if changed {
        out.push(if blockers.is_empty() {
            Advice::Rerecord
        } else {
            Advice::FixFirst(blockers)
        });
    }
    out
}

/// What follows from what ([`follows`]: `causes`), as [`Advice::Follow`] says it: per first
/// cause, its line, the lines of the findings that follow from it, and the placeholders
/// they send that its answer was to mint; in line order.
fn followed(
    mismatches: &[Mismatch],
    causes: &[Option<usize>],
) -> Vec<(usize, Vec<usize>, Vec<String>)> {
    let mut out: Vec<(usize, Vec<usize>, Vec<String>)> = Vec::new();
    for (m, cause) in mismatches.iter().zip(causes) {
        let Some(c) = cause.map(|c| &mismatches[c]) else {
            continue;
        };
        let line = c.line().unwrap_or_default();
        let at = match out.iter().position(|(l, _, _)| *l == line) {
            Some(at) => at,
            None => {
                out.push((line, Vec::new(), Vec::new()));
                out.len() - 1
            }
        };
        let (_, lines, minted) = &mut out[at];
        let request = m.line().or(m.request_line()).unwrap_or_default();
        if !lines.contains(&request) {
            lines.push(request);
        }
        let expected = c
            .expected_message()
            .map(Value::to_string)
            .unwrap_or_default();
        for p in m.sends.iter().filter(|p| expected.contains(p.as_str())) {
            if !minted.contains(p) {
                minted.push(p.clone());
            }
        }
    }
    out.sort();
    out
}

/// What a changed result or params differs in, when all of it looks minted per run and
/// what the advice would name for it, applied to the two messages, makes them compare
/// equal ([`pins`]): advice that leaves the test red is not given.
fn looks_per_run(m: &Mismatch) -> Option<PerRun> {
    if !matches!(m.kind(), MismatchKind::Result | MismatchKind::Params) {
        return None;
    }
    let (expected, actual) = (m.expected_message()?, m.actual_message()?);
    let mut found = PerRun::default();
    found.add(expected, actual, "");
    (found.looks_per_run() && pins(&found, expected, actual)).then_some(found)
}

/// Whether what `found` names, applied to `expected` as a recording applies it (each list
/// sorted, each value bound where it stands: a whole string as a `bind` rule binds it, a
/// token inside a text as a recording's runs bind it) and then replayed against `actual`
/// (its values bound where the placeholders stand), makes them compare equal.
fn pins(found: &PerRun, expected: &Value, actual: &Value) -> bool {
    use crate::data::message::Direction;
    let sorting = found
        .sorts
        .iter()
        .fold(crate::Rules::without_defaults(), |r, s| r.sort(s));
    let mut pinned = [(Direction::ServerToClient, expected.clone())];
    let mut actual = actual.clone();
    sorting.normalize_server(&mut pinned[0].1);
    sorting.normalize_server(&mut actual);
    crate::normalize::bound::label_minted(&mut pinned, &found.values, &[]);
    let mut bindings = crate::normalize::bind::Bindings::default();
    bindings.bind_from(&pinned[0].1, &mut actual);
    bindings.unbind(&mut actual);
    crate::data::json::json_eq(&pinned[0].1, &actual)
}

#[cfg(test)]
mod should {
    use super::*;
    use serde_json::json;

    /// A `tools/call` of `name` on fixture line `line`.
    fn call(name: &str, line: usize) -> crate::data::fixture::Entry {
        call_with(name, line, json!({}))
    }

    /// A `tools/call` of `name` with `arguments` on fixture line `line`.
    fn call_with(
        name: &str,
        line: usize,
        arguments: serde_json::Value,
    ) -> crate::data::fixture::Entry {
        let filler = json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "method": "notifications/initialized"}});
        let request = json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "tools/call", "params": {"name": name, "arguments": arguments}}});
        let text: String = std::iter::repeat_n(&filler, line - 1)
            .chain([&request])
            .map(|l| format!("{l}\n"))
            .collect();
        let fixture = crate::Fixture::parse(&text).unwrap();
        let entry = fixture.entries().last().unwrap().clone();
        assert_eq!(entry.line(), line);
        entry
    }

    fn answered(
        line: usize,
        name: &str,
        recorded: serde_json::Value,
        now: serde_json::Value,
    ) -> Mismatch {
        Mismatch::new(MismatchKind::Result, Some(line + 1), "differs")
            .request(&call(name, line))
            .compare(
                &json!({"jsonrpc": "2.0", "id": 1, "result": recorded}),
                &now,
            )
    }

    fn text(t: &str) -> serde_json::Value {
        json!({"content": [{"type": "text", "text": t}]})
    }

    fn found(kind: MismatchKind) -> Mismatch {
        Mismatch::new(kind, Some(3), "found")
    }

    #[test]
    fn name_the_first_cause_and_what_follows_from_it() {
        // A create refused (line 7 answers line 6), so the read on line 8 sent the id it was
        // to mint as written, and the server failed it too (line 9).
        let create = answered(
            6,
            "add_note",
            text("created <MINTED:1>"),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "Missing required parameter: tag"}], "isError": true}}),
        );
        let read = call_with("get_note", 8, json!({"id": "<MINTED:1>"}));
        let sent = Mismatch::new(MismatchKind::Missing, Some(8), "line 8 sends <MINTED:1>")
            .request(&read)
            .unbound("<MINTED:1>")
            .unrecordable("placeholder");
        let failed = Mismatch::new(MismatchKind::Result, Some(9), "differs")
            .request(&read)
            .compare(
                &json!({"jsonrpc": "2.0", "id": 1, "result": text("milk [home]")}),
                &json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "no note <MINTED:1>"}], "isError": true}}),
            );
        let mismatches = vec![create, sent, failed];
        assert_eq!(follows(&mismatches), vec![None, Some(0), Some(0)]);
        let advice = advice(&mismatches);
        assert_eq!(advice.len(), 2, "{advice:?}");
        assert!(
            matches!(&advice[0], Advice::Refused(r) if r.len() == 1 && r[0].line == 6 && r[0].arguments),
            "{advice:?}"
        );
        assert_eq!(
            advice[1],
            Advice::Follow(vec![(7, vec![8, 9], vec!["<MINTED:1>".to_owned()])])
        );
        // No placeholder sent as written: nothing is said to follow.
        let alone = vec![mismatches[0].clone(), mismatches[2].clone()];
        assert_eq!(follows(&alone), vec![None, None]);
    }

    #[test]
    fn fit_the_advice_to_the_findings() {
        let changed = || {
            answered(
                1,
                "add",
                text("3"),
                json!({"jsonrpc": "2.0", "id": 1, "result": text("4")}),
            )
        };
        let unknown_tool = || {
            answered(
                1,
                "add_note",
                text("ok"),
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "tool not found"}}),
            )
        };
        let missing_argument = || {
            answered(
                3,
                "lookup_issue",
                text("Issue 42: example"),
                json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "failed to deserialize parameters: missing field `owner`"}], "isError": true}}),
            )
        };
        let no_method = || {
            answered(
                5,
                "x",
                json!({}),
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}),
            )
        };
        let refused = |line: usize, request: &str, how: &str| Refusal {
            line,
            request: request.into(),
            how: how.into(),
            arguments: true,
        };
        let table: Vec<(&str, Vec<Mismatch>, Vec<Advice>)> = vec![
            ("a changed result", vec![changed()], vec![Advice::Rerecord]),
            (
                "changed params, order, missing and unexpected messages: once",
                vec![
                    found(MismatchKind::Params),
                    found(MismatchKind::NotificationOrder),
                    found(MismatchKind::Missing),
                    found(MismatchKind::Unexpected),
                    found(MismatchKind::Method),
                ],
                vec![Advice::Rerecord],
            ),
            (
                "an unknown tool",
                vec![unknown_tool()],
                vec![Advice::Refused(vec![refused(
                    1,
                    "tools/call add_note",
                    "error -32602 \"tool not found\"",
                )])],
            ),
            (
                "a missing required argument (rmcp: a tool error)",
                vec![missing_argument()],
                vec![Advice::Refused(vec![refused(
                    3,
                    "tools/call lookup_issue",
                    "a tool error \"failed to deserialize parameters: missing field `owner`\"",
                )])],
            ),
            (
                "method not found",
                vec![no_method()],
                vec![Advice::Refused(vec![refused(
                    5,
                    "tools/call x",
                    "error -32601 \"Method not found\"",
                )])],
            ),
            (
                "another tool error where a result was recorded: a failure, whatever its words",
                vec![answered(
                    1,
                    "divide",
                    text("0.5"),
                    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "division by zero"}], "isError": true}}),
                )],
                vec![Advice::Refused(vec![Refusal {
                    arguments: false,
                    ..refused(1, "tools/call divide", "a tool error \"division by zero\"")
                }])],
            ),
            (
                "turbomcp's refusal, in words no list holds, and a tool error with no text",
                vec![
                    answered(
                        1,
                        "add_note",
                        text("created n-1"),
                        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "Missing tag"}], "isError": true, "_meta": {"errorKind": "invalid_params"}}}),
                    ),
                    answered(
                        3,
                        "get_note",
                        text("milk"),
                        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true}}),
                    ),
                ],
                vec![Advice::Refused(vec![
                    refused(1, "tools/call add_note", "a tool error \"Missing tag\""),
                    Refusal {
                        arguments: false,
                        ..refused(3, "tools/call get_note", "a tool error (`isError: true`)")
                    },
                ])],
            ),
            (
                "the TypeScript SDK's invalid arguments",
                vec![answered(
                    2,
                    "add",
                    text("5"),
                    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "MCP error -32602: Input validation error: Invalid arguments for tool add"}], "isError": true}}),
                )],
                vec![Advice::Refused(vec![refused(
                    2,
                    "tools/call add",
                    "a tool error \"MCP error -32602: Input validation error: Invalid arguments for tool add\"",
                )])],
            ),
            (
                "a tool error recorded, another one now: changed, not refused",
                vec![answered(
                    1,
                    "divide",
                    json!({"content": [], "isError": true}),
                    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "no"}], "isError": true}}),
                )],
                vec![Advice::Rerecord],
            ),
            (
                "an error recorded, a result now: changed",
                vec![Mismatch::new(MismatchKind::Result, Some(2), "differs")
                    .request(&call("t", 1))
                    .compare(
                        &json!({"id": 1, "error": {"code": -32602, "message": "no"}}),
                        &json!({"id": 1, "result": {}}),
                    )],
                vec![Advice::Rerecord],
            ),
            (
                "a clock-minted id in a sentence: a rule, not a re-recording",
                vec![answered(
                    1,
                    "stamp",
                    text("stamped at-5caaf2fb"),
                    json!({"jsonrpc": "2.0", "id": 1, "result": text("stamped at-9d1e77a0")}),
                )],
                vec![Advice::PerRun(vec![(2, {
                    let mut p = PerRun::default();
                    p.add(
                        &json!({"jsonrpc": "2.0", "id": 1, "result": text("stamped at-5caaf2fb")}),
                        &json!({"jsonrpc": "2.0", "id": 1, "result": text("stamped at-9d1e77a0")}),
                        "",
                    );
                    assert_eq!(
                        p.pairs,
                        vec![(
                            ".result.content[0].text".to_owned(),
                            "at-5caaf2fb".to_owned(),
                            "at-9d1e77a0".to_owned()
                        )]
                    );
                    p
                })])],
            ),
            (
                "a list in another order: sort it",
                vec![answered(
                    1,
                    "regions",
                    json!({"regions": ["eu", "us"]}),
                    json!({"jsonrpc": "2.0", "id": 1, "result": {"regions": ["us", "eu"]}}),
                )],
                vec![Advice::PerRun(vec![(2, PerRun {
                    sorts: vec![".result.regions".into()],
                    ..PerRun::default()
                })])],
            ),
            (
                "one recorded id now two: no rule pins it, re-record",
                vec![answered(
                    1,
                    "stamp",
                    text("at-5caaf2fb then at-5caaf2fb"),
                    json!({"jsonrpc": "2.0", "id": 1, "result": text("at-9d1e77a0 then at-c97352c8")}),
                )],
                vec![Advice::Rerecord],
            ),
            (
                "a changed word beside a changed id: re-record",
                vec![answered(
                    1,
                    "stamp",
                    text("stamped at-5caaf2fb"),
                    json!({"jsonrpc": "2.0", "id": 1, "result": text("stamp at-9d1e77a0")}),
                )],
                vec![Advice::Rerecord],
            ),
            (
                "a timeout alone: nothing",
                vec![found(MismatchKind::Timeout)],
                vec![],
            ),
            (
                "a timeout and what never came while its request ran: nothing",
                vec![
                    found(MismatchKind::Missing).request(&call("work", 1)),
                    found(MismatchKind::Timeout).request(&call("work", 1)),
                ],
                vec![],
            ),
            (
                "a timeout and what never came while another request ran: fix first",
                vec![
                    found(MismatchKind::Missing).request(&call("other", 2)),
                    found(MismatchKind::Timeout).request(&call("work", 1)),
                ],
                vec![Advice::FixFirst(vec![MismatchKind::Timeout])],
            ),
            (
                "a server failure, an id finding, stray output: nothing",
                vec![
                    found(MismatchKind::ServerFailure),
                    found(MismatchKind::Id),
                    found(MismatchKind::StrayOutput),
                ],
                vec![],
            ),
            (
                "an http finding: nothing",
                vec![found(MismatchKind::Http)],
                vec![],
            ),
            (
                "mixed: each piece once, refusals first, in line order",
                vec![
                    changed(),
                    no_method(),
                    unknown_tool(),
                    unknown_tool(),
                    found(MismatchKind::Params),
                    found(MismatchKind::Http),
                ],
                vec![
                    Advice::Refused(vec![
                        refused(1, "tools/call add_note", "error -32602 \"tool not found\""),
                        refused(5, "tools/call x", "error -32601 \"Method not found\""),
                    ]),
                    Advice::Rerecord,
                ],
            ),
            (
                "changes beside what a re-recording refuses: fix that first",
                vec![
                    found(MismatchKind::Timeout),
                    changed(),
                    found(MismatchKind::StrayOutput),
                    found(MismatchKind::Timeout),
                ],
                vec![Advice::FixFirst(vec![
                    MismatchKind::Timeout,
                    MismatchKind::StrayOutput,
                ])],
            ),
            (
                "a refusal beside a timeout: only the refusal",
                vec![unknown_tool(), found(MismatchKind::Timeout)],
                vec![Advice::Refused(vec![refused(
                    1,
                    "tools/call add_note",
                    "error -32602 \"tool not found\"",
                )])],
            ),
        ];
        for (case, mismatches, want) in table {
            assert_eq!(advice(&mismatches), want, "{case}");
        }
    }
}
