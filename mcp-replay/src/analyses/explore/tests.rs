use super::*;
use serde_json::json;

fn tools() -> Vec<Tool> {
    Tool::of_listing(&json!({"tools": [
        {"name": "add", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]}},
        {"name": "echo", "inputSchema": {"type": "object",
            "properties": {"text": {"type": "string"}}, "required": ["text"],
            "additionalProperties": false},
         "outputSchema": {"type": "object", "properties": {"echo": {"type": "string"}},
            "required": ["echo"]}}
    ]}))
}

#[test]
fn a_plan_is_the_same_for_the_same_seed_and_rounds_the_tools() {
    let tools = tools();
    let plan_a = plan(&tools, 42, 30);
    assert_eq!(plan_a, plan(&tools, 42, 30));
    assert_ne!(plan_a, plan(&tools, 43, 30));
    assert_eq!(plan_a.len(), 30);
    assert_eq!(plan_a[0].tool, "add");
    assert_eq!(plan_a[1].tool, "echo");
    assert_eq!(plan_a[0].what, "valid");
    // Every invalid case is invalid as the schema reads it, and every valid one valid.
    for case in &plan_a {
        let tool = tools.iter().find(|t| t.name == case.tool).unwrap();
        let invalid = case.what.starts_with("invalid");
        assert_eq!(tool.accepts(&case.arguments), Some(!invalid), "{case:?}");
    }
    let whats: Vec<&str> = plan_a
        .iter()
        .filter(|c| c.tool == "echo")
        .map(|c| c.what.as_str())
        .collect();
    assert!(
        whats.contains(&"invalid: an unknown field `mcp_replay_unknown`"),
        "{whats:?}"
    );
}

#[test]
fn an_answer_is_judged_by_the_first_rule_it_breaks() {
    let tools = tools();
    let mut outputs = OutputSchemas::default();
    outputs.learn(&json!({"tools": [{"name": "echo", "inputSchema": {},
        "outputSchema": {"type": "object", "properties": {"echo": {"type": "string"}}, "required": ["echo"]}}]}));
    let (add, echo) = (&tools[0], &tools[1]);
    let answer = |v: Value| Seen {
        answer: Some(json!({"jsonrpc": "2.0", "id": 1, "result": v})),
        ..Seen::default()
    };
    let good = json!({"text": "hi"});
    let rule = |tool, args: &Value, seen: &Seen| {
        judge(tool, args, seen, &outputs, "2025-11-25").map(|b| b.rule)
    };
    assert_eq!(
        rule(
            echo,
            &good,
            &answer(json!({"content": [], "structuredContent": {"echo": "hi"}}))
        ),
        None
    );
    assert_eq!(
        rule(
            echo,
            &good,
            &answer(json!({"content": [], "structuredContent": {"echo": 3}}))
        ),
        Some(Rule::OutputSchema)
    );
    let missing = json!({"a": 1});
    let error = Seen {
        answer: Some(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "b"}})),
        ..Seen::default()
    };
    assert_eq!(
        rule(add, &missing, &error),
        Some(Rule::InvalidArgumentsAsError)
    );
    // In 2025-06-18 invalid arguments were a protocol error: no finding then.
    assert_eq!(judge(add, &missing, &error, &outputs, "2025-06-18"), None);
    assert_eq!(
        rule(add, &missing, &answer(json!({"content": []}))),
        Some(Rule::InvalidArgumentsAccepted)
    );
    assert_eq!(
        rule(
            add,
            &missing,
            &answer(json!({"content": [], "isError": true}))
        ),
        None
    );
    // Valid arguments refused are the tool's business, not a finding.
    assert_eq!(rule(add, &json!({"a": 1, "b": 2}), &error), None);
    let ended = Seen {
        ended: true,
        timed_out: true,
        ..Seen::default()
    };
    assert_eq!(rule(add, &missing, &ended), Some(Rule::Crash));
    let hung = Seen {
        timed_out: true,
        ..Seen::default()
    };
    assert_eq!(rule(add, &missing, &hung), Some(Rule::Hang));
    assert_eq!(shape(&error), "error -32602");
    assert_eq!(shape(&hung), "none");
}
