//! A tool's own promise: "If an output schema is provided, servers MUST provide structured
//! results that conform to this schema" (the specification, Server Features, Tools,
//! "Output Schema"). The `outputSchema` of each tool a `tools/list` result declares is
//! compiled once by the same small validator as the protocol's schema (`check.rs`), and
//! each successful `tools/call` result of that tool is checked against it: its
//! `structuredContent` must be there and fit.
//!
//! A tool's schema is any JSON Schema its author wrote, so it is first brought to the form
//! the validator reads ([`compactable`]): boolean subschemas as objects, `definitions` as
//! `$defs`, and what the validator does not interpret (`not` of a schema, tuple `items`,
//! `pattern`, lengths, `exclusiveMinimum`, ...) left out, so that it lets the value
//! through there rather than judge it wrongly. What is checked: `$ref` into the schema's
//! own `$defs`, `type`, `properties`, `required`, `additionalProperties`, `items`, `enum`,
//! `const`, `anyOf`/`oneOf`/`allOf`, `minimum`/`maximum`, `minItems`/`maxItems`, and the
//! formats `uri` and `byte`. Pure.

use super::check::{compile_text, fits, misfit, Defs, Node};
use super::{Checked, Violation};
use serde_json::{Map, Value};
use std::sync::Arc;

/// A tool's `outputSchema`, compiled, with its own `$defs`.
#[derive(Debug)]
struct ToolSchema {
    root: Node,
    /// Sorted by name.
    defs: Vec<(String, Node)>,
}

impl Defs for ToolSchema {
    fn index(&self, name: &str) -> Option<usize> {
        self.defs
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
    }

    fn node_at(&self, at: usize) -> &Node {
        &self.defs[at].1
    }
}

/// The output schemas the tools of one session declare, as the latest `tools/list` said.
#[derive(Debug, Clone, Default)]
pub(crate) struct OutputSchemas {
    /// Each tool that declares one, by name: its schema compiled (`None`: one the
    /// validator cannot read, not checked).
    tools: Vec<(String, Option<Arc<ToolSchema>>)>,
}

impl OutputSchemas {
    /// Takes in what a `tools/list` `result` declares: each tool's `outputSchema`, replacing
    /// what an earlier listing said of it; a tool listed without one is no longer checked.
    pub(crate) fn learn(&mut self, result: &Value) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            self.tools.retain(|(n, _)| n != name);
            if let Some(schema) = tool.get("outputSchema") {
                self.tools
                    .push((name.to_owned(), compile_tool(schema).map(Arc::new)));
            }
        }
    }

    /// Whether any tool declares an output schema.
    pub(crate) fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Checks `message`, the answer to a `tools/call` of `tool`: a successful result (not
    /// `isError`, not an `input_required` or a task) of a tool that declares an output
    /// schema must carry `structuredContent` that fits it. `normalized`: a fixture's
    /// answer, where a placeholder stands for a value of any type, so a misfit at one is
    /// not reported.
    pub(crate) fn check(&self, tool: &str, message: &Value, normalized: bool) -> Checked {
        let Some(result) = message.get("result") else {
            return Checked::Skipped;
        };
        let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
        let result_type = result.get("resultType").and_then(Value::as_str);
        if is_error || result_type.is_some_and(|t| t != "complete") {
            return Checked::Skipped;
        }
        let Some((_, schema)) = self.tools.iter().find(|(n, _)| n == tool) else {
            return Checked::Skipped;
        };
        let Some(schema) = schema else {
            return Checked::Skipped;
        };
        let Some(structured) = result.get("structuredContent") else {
            return Checked::Invalid(Violation {
                path: ".result.structuredContent".into(),
                rule: format!("is required: the tool `{tool}` declares an outputSchema"),
                also: Vec::new(),
            });
        };
        if fits(schema.as_ref(), &schema.root, structured) {
            return Checked::Valid;
        }
        let Some(found) = misfit(schema.as_ref(), &schema.root, structured) else {
            return Checked::Skipped;
        };
        let path = found.path(".result.structuredContent");
        if normalized && at_placeholder(structured, &found.steps) {
            return Checked::Skipped;
        }
        Checked::Invalid(Violation {
            path,
            rule: format!("{} (the tool `{tool}`'s outputSchema)", found.rule),
            also: Vec::new(),
        })
    }
}

/// Whether `value` conforms to `schema` (a tool's `inputSchema` or `outputSchema`), as far
/// as the validator reads it ([`compactable`]: what it does not interpret lets the value
/// through); `None` for a schema it cannot read.
#[cfg(feature = "explore")]
pub(crate) fn conforms(schema: &Value, value: &Value) -> Option<bool> {
    let compiled = compile_tool(schema)?;
    Some(fits(&compiled, &compiled.root, value))
}

/// Whether the value a misfit's `steps` lead to in `value` is a placeholder (or lies
/// under one).
fn at_placeholder(value: &Value, steps: &[super::check::Step]) -> bool {
    use super::check::Step;
    let mut at = value;
    for step in steps {
        if at
            .as_str()
            .is_some_and(crate::normalize::placeholder::is_placeholder)
        {
            return true;
        }
        let next = match step {
            Step::Key(key) => at.get(key),
            Step::Index(i) => at.get(*i),
        };
        match next {
            Some(next) => at = next,
            None => return false,
        }
    }
    at.as_str()
        .is_some_and(crate::normalize::placeholder::is_placeholder)
}

/// A tool schema's own definitions (`$defs`, or draft-07's `definitions`), each in the
/// form the validator reads.
fn compactable_defs(schema: &Value) -> Vec<(String, Value)> {
    ["$defs", "definitions"]
        .iter()
        .filter_map(|key| schema.get(*key).and_then(Value::as_object))
        .flat_map(|defs| defs.iter().map(|(k, v)| (k.clone(), compactable(v))))
        .collect()
}

/// A tool's schema compiled, with its definitions; `None` where the validator cannot read
/// it.
fn compile_tool(schema: &Value) -> Option<ToolSchema> {
    let compile = |schema: &Value| compile_text(&schema.to_string()).ok();
    let root = compile(&compactable(schema))?;
    let mut defs = compactable_defs(schema)
        .into_iter()
        .map(|(name, def)| Some((name, compile(&def)?)))
        .collect::<Option<Vec<_>>>()?;
    defs.sort_by(|a, b| a.0.cmp(&b.0));
    Some(ToolSchema { root, defs })
}

/// `schema` in the form the validator reads: boolean schemas as objects (`true` as `{}`,
/// `false` as `{"not": {}}`), `#/definitions/` references as `#/$defs/`, and only the
/// keywords the validator interprets, each with a value of the form it reads; any other
/// keyword left out, so the value is let through there.
pub(crate) fn compactable(schema: &Value) -> Value {
    let object = match schema {
        Value::Bool(true) => return Value::Object(Map::new()),
        Value::Bool(false) => return serde_json::json!({"not": {}}),
        Value::Object(object) => object,
        _ => return Value::Object(Map::new()),
    };
    let mut out = Map::new();
    for (key, value) in object {
        let kept = match key.as_str() {
            "$ref" => value
                .as_str()
                .map(|r| Value::from(r.replacen("#/definitions/", "#/$defs/", 1))),
            // Only the `not` that lets nothing through; the validator reads no other.
            "not" if value == &Value::Object(Map::new()) || value == &Value::Bool(true) => {
                Some(serde_json::json!({}))
            }
            "properties" => value.as_object().map(|members| {
                Value::Object(
                    members
                        .iter()
                        .map(|(k, v)| (k.clone(), compactable(v)))
                        .collect(),
                )
            }),
            "allOf" | "anyOf" | "oneOf" => value
                .as_array()
                .map(|all| Value::Array(all.iter().map(compactable).collect())),
            // A tuple's `items` (an array) is not read.
            "items" | "additionalProperties" if !value.is_array() => Some(compactable(value)),
            "type" => known_types(value).then(|| value.clone()),
            "required" => strings(value).then(|| value.clone()),
            "const" | "enum" if key != "enum" || value.is_array() => Some(value.clone()),
            "minimum" | "maximum" => value.is_number().then(|| value.clone()),
            "minItems" | "maxItems" => value.is_u64().then(|| value.clone()),
            "format" => value.is_string().then(|| value.clone()),
            _ => None,
        };
        if let Some(kept) = kept {
            out.insert(key.clone(), kept);
        }
    }
    Value::Object(out)
}

/// A `type` that names JSON types only (one, or a list).
fn known_types(value: &Value) -> bool {
    const NAMES: [&str; 7] = [
        "object", "array", "string", "boolean", "null", "number", "integer",
    ];
    match value {
        Value::String(name) => NAMES.contains(&name.as_str()),
        Value::Array(names) => {
            !names.is_empty()
                && names
                    .iter()
                    .all(|n| n.as_str().is_some_and(|n| NAMES.contains(&n)))
        }
        _ => false,
    }
}

/// A list of strings.
fn strings(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|all| all.iter().all(Value::is_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing(schema: Value) -> OutputSchemas {
        let mut schemas = OutputSchemas::default();
        schemas.learn(
            &json!({"tools": [{"name": "add", "inputSchema": {"type": "object"},
            "outputSchema": schema}]}),
        );
        schemas
    }

    fn answer(result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "result": result})
    }

    fn violation(checked: Checked) -> String {
        match checked {
            Checked::Invalid(v) => v.to_string(),
            other => panic!("not a violation: {other:?}"),
        }
    }

    #[test]
    fn structured_content_that_breaks_its_tools_output_schema_is_a_violation() {
        let schemas = listing(json!({"type": "object",
            "properties": {"sum": {"type": "integer"}}, "required": ["sum"],
            "additionalProperties": false}));
        let fine = answer(json!({"content": [], "structuredContent": {"sum": 3}}));
        assert_eq!(schemas.check("add", &fine, false), Checked::Valid);
        let wrong = answer(json!({"content": [], "structuredContent": {"sum": "3"}}));
        assert_eq!(
            violation(schemas.check("add", &wrong, false)),
            "`.result.structuredContent.sum` must be an integer (the tool `add`'s outputSchema)"
        );
        let extra = answer(json!({"content": [], "structuredContent": {"sum": 3, "x": 1}}));
        assert!(violation(schemas.check("add", &extra, false)).contains(".x"));
        let none = answer(json!({"content": [{"type": "text", "text": "3"}]}));
        assert_eq!(
            violation(schemas.check("add", &none, false)),
            "`.result.structuredContent` is required: the tool `add` declares an outputSchema"
        );
        // A tool error, or a tool that declares nothing, promises nothing.
        let error = answer(json!({"content": [], "isError": true}));
        assert_eq!(schemas.check("add", &error, false), Checked::Skipped);
        assert_eq!(schemas.check("other", &wrong, false), Checked::Skipped);
    }

    #[test]
    fn definitions_booleans_and_keywords_the_validator_does_not_read() {
        // Draft-07 `definitions`, a boolean `additionalProperties`, a `pattern` and a
        // `not` the validator does not interpret (let through, never judged wrongly).
        let schemas = listing(json!({"type": "object",
            "properties": {"item": {"$ref": "#/definitions/Item"},
                "code": {"type": "string", "pattern": "^[0-9]+$", "not": {"const": "0"}}},
            "definitions": {"Item": {"type": "object", "additionalProperties": false,
                "properties": {"n": {"type": "number", "minimum": 0}}}}}));
        let fine = answer(json!({"structuredContent": {"item": {"n": 1}, "code": "0"}}));
        assert_eq!(schemas.check("add", &fine, false), Checked::Valid);
        let wrong = answer(json!({"structuredContent": {"item": {"n": -1, "m": 2}}}));
        assert!(
            violation(schemas.check("add", &wrong, false)).contains(".item."),
            "{:?}",
            schemas.check("add", &wrong, false)
        );
        // A keyword in a form the validator does not read is left out, not misread.
        let odd = listing(json!({"type": "object", "required": [1]}));
        assert_eq!(odd.check("add", &wrong, false), Checked::Valid);
    }

    #[test]
    fn in_a_fixture_a_placeholder_stands_for_a_value_of_any_type() {
        let schemas = listing(json!({"type": "object",
            "properties": {"id": {"type": "integer"}, "n": {"type": "integer"}}}));
        let bound = answer(json!({"structuredContent": {"id": "<MINTED:1>", "n": 2}}));
        assert_eq!(schemas.check("add", &bound, true), Checked::Skipped);
        assert!(matches!(
            schemas.check("add", &bound, false),
            Checked::Invalid(_)
        ));
        let wrong = answer(json!({"structuredContent": {"id": "<MINTED:1>", "n": "two"}}));
        // The first misfit is at the placeholder: nothing is said rather than a guess.
        assert_eq!(schemas.check("add", &wrong, true), Checked::Skipped);
    }

    #[test]
    fn a_later_listing_replaces_what_an_earlier_one_declared() {
        let mut schemas = listing(json!({"type": "object", "required": ["sum"]}));
        let bare = answer(json!({"structuredContent": {}}));
        assert!(matches!(
            schemas.check("add", &bare, false),
            Checked::Invalid(_)
        ));
        schemas.learn(&json!({"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}));
        assert_eq!(schemas.check("add", &bare, false), Checked::Skipped);
        assert!(schemas.is_empty());
    }
}
