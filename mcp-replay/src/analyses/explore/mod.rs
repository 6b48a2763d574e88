//! Exploring a server's tools without a fixture: the calls to make, generated from each
//! tool's `inputSchema` ([`plan`]), what an answer says of the specification's rules
//! ([`judge`]), and smaller arguments for a call that broke one ([`shrink`]). Pure: the
//! harness's `explore` (harness/explore.rs) makes the calls and writes the fixtures.

pub(crate) mod generate;
pub(crate) mod shrink;

use crate::analyses::validate::output::{conforms, OutputSchemas};
use crate::data::explored::Rule;
use generate::{Edge, Generator, Rng};
use serde_json::{Map, Value};

/// A tool as `tools/list` gave it.
#[derive(Debug, Clone)]
pub(crate) struct Tool {
    pub(crate) name: String,
    pub(crate) input_schema: Value,
}

impl Tool {
    /// The tools of a `tools/list` result.
    pub(crate) fn of_listing(result: &Value) -> Vec<Tool> {
        let tools = result.get("tools").and_then(Value::as_array);
        tools
            .into_iter()
            .flatten()
            .filter_map(|t| {
                Some(Tool {
                    name: t.get("name")?.as_str()?.to_owned(),
                    input_schema: t.get("inputSchema").cloned().unwrap_or(Value::Null),
                })
            })
            .collect()
    }

    /// Whether `arguments` conform to this tool's `inputSchema`, as far as the validator
    /// reads it (`None`: a schema it cannot read).
    pub(crate) fn accepts(&self, arguments: &Value) -> Option<bool> {
        conforms(&self.input_schema, arguments)
    }
}

/// One call to make.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    /// The tool's name.
    pub(crate) tool: String,
    /// Its arguments.
    pub(crate) arguments: Value,
    /// What kind of arguments they are meant to be: `valid`, `edge: low` or the way they
    /// are invalid (`` `days` (required) left out ``).
    pub(crate) what: String,
}

/// The first `calls` calls to make to `tools`, from `seed`: round the tools in turn, each
/// tool's calls in the order valid, low edge, high edge, odd edge, each invalid variant,
/// then random valid and edge calls. The same seed and tools give the same calls.
pub(crate) fn plan(tools: &[Tool], seed: u64, calls: usize) -> Vec<Case> {
    let share = 2 * calls.div_ceil(tools.len().max(1));
    let mut per_tool: Vec<Vec<Case>> = tools
        .iter()
        .enumerate()
        // Each tool's share, twice over: a tool whose calls come out the same (one without
        // arguments) leaves its share to the others.
        .map(|(i, tool)| cases_of(tool, seed.wrapping_add(i as u64), share))
        .collect();
    let mut out = Vec::with_capacity(calls);
    let mut round = 0;
    while out.len() < calls && per_tool.iter().any(|c| round < c.len()) {
        for cases in &mut per_tool {
            if out.len() < calls && round < cases.len() {
                out.push(std::mem::replace(&mut cases[round], placeholder()));
            }
        }
        round += 1;
    }
    out
}

fn placeholder() -> Case {
    Case {
        tool: String::new(),
        arguments: Value::Null,
        what: String::new(),
    }
}

/// Up to `most` calls of one tool.
fn cases_of(tool: &Tool, seed: u64, most: usize) -> Vec<Case> {
    let schema = &tool.input_schema;
    let generator = Generator::new(schema);
    let mut rng = Rng::new(seed);
    let case = |arguments: Value, what: String| Case {
        tool: tool.name.clone(),
        arguments: as_object(arguments),
        what,
    };
    let valid = generator.valid(schema, &mut rng, 0);
    let mut out = vec![case(valid.clone(), "valid".into())];
    for (edge, name) in [(Edge::Low, "low"), (Edge::High, "high"), (Edge::Odd, "odd")] {
        let v = generator.edge(schema, &mut rng, edge);
        out.push(case(v, format!("edge: {name}")));
    }
    if let Value::Object(map) = as_object(valid) {
        for (what, args) in generator.invalid(&map) {
            out.push(case(args, format!("invalid: {what}")));
        }
    }
    while out.len() < most {
        let n = out.len();
        if n % 3 == 2 {
            let edge = [Edge::Low, Edge::High, Edge::Odd][rng.below(3) as usize];
            let v = generator.edge(schema, &mut rng, edge);
            out.push(case(v, "edge".into()));
        } else {
            let v = generator.valid(schema, &mut rng, 0);
            out.push(case(v, "valid".into()));
        }
    }
    out.dedup_by(|a, b| a.arguments == b.arguments);
    out
}

/// Arguments are an object: anything else generated (a schema that is not an object's)
/// is sent as an empty one.
fn as_object(v: Value) -> Value {
    match v {
        Value::Object(_) => v,
        _ => Value::Object(Map::new()),
    }
}

/// What one call showed, as the harness saw it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    /// The call's answer, when one came.
    pub(crate) answer: Option<Value>,
    /// The server ended (exited, panicked, closed the connection) before answering.
    pub(crate) ended: bool,
    /// No answer came within the limit.
    pub(crate) timed_out: bool,
    /// The first message the server sent that is not valid MCP (line, what is wrong).
    pub(crate) invalid: Option<String>,
    /// The first secret the answer holds (rule and path, never the value).
    pub(crate) secret: Option<String>,
    /// The session failed before the call, every try: why. The call says nothing.
    pub(crate) setup: Option<String>,
}

/// A rule a call broke, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Broken {
    pub(crate) rule: Rule,
    pub(crate) detail: String,
}

/// The protocol version from which input validation errors are tool execution errors: the
/// 2025-06-18 specification still listed "Invalid arguments" among the protocol errors.
pub(crate) const INPUT_ERRORS_ARE_TOOL_ERRORS: &str = "2025-11-25";

/// What `seen` says of the rules, for a call of `tool` with `arguments`, the tool's output
/// schema in `outputs`, in protocol `version` (the one the server agreed to): the first
/// rule broken, in the order crash, hang, output schema, protocol, invalid arguments,
/// secret; `None` when the call kept them all.
pub(crate) fn judge(
    tool: &Tool,
    arguments: &Value,
    seen: &Seen,
    outputs: &OutputSchemas,
    version: &str,
) -> Option<Broken> {
    let broken = |rule, detail: String| Some(Broken { rule, detail });
    let Some(answer) = &seen.answer else {
        if seen.ended {
            return broken(Rule::Crash, "the server ended before it answered".into());
        }
        if seen.timed_out {
            return broken(
                Rule::Hang,
                "no answer within the limit (the server still ran: a call that loops, waits \
                 forever, or panicked in a task of its own)"
                    .into(),
            );
        }
        return None;
    };
    if let crate::analyses::validate::Checked::Invalid(v) = outputs.check(&tool.name, answer, true)
    {
        return broken(Rule::OutputSchema, format!("{}: {}", v.path, v.rule));
    }
    if let Some(invalid) = &seen.invalid {
        return broken(Rule::Protocol, invalid.clone());
    }
    if tool.accepts(arguments) == Some(false) {
        let mut rules = vec![Rule::InvalidArgumentsAccepted];
        // Dates compare as text.
        if version >= INPUT_ERRORS_ARE_TOOL_ERRORS {
            rules.insert(0, Rule::InvalidArgumentsAsError);
        }
        for rule in rules {
            if let Some(why) = rule.broken_by(answer) {
                return broken(rule, why.replace(" still", ""));
            }
        }
    }
    if let Some(secret) = &seen.secret {
        return broken(
            Rule::Secret,
            format!("the answer holds a secret ({secret})"),
        );
    }
    None
}

/// The shape of an answer, for the one fixture a run proposes for each: `success`,
/// `tool error`, `error -32602`, or `none`.
pub(crate) fn shape(seen: &Seen) -> String {
    let Some(answer) = &seen.answer else {
        return "none".into();
    };
    if let Some(code) = answer.get("error").and_then(|e| e.get("code")) {
        return format!("error {code}");
    }
    let result = answer.get("result");
    if result
        .and_then(|r| r.get("isError"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        return "tool error".into();
    }
    "success".into()
}

#[cfg(test)]
mod tests;
