//! What `explore` found, as a fixture keeps it: the header's `"explore"` key names the rule
//! of the specification a call broke, the tool and the seed, and the fixture's last
//! `tools/call` is then judged by that rule instead of compared with its recorded answer
//! (docs/explore.md). Pure data: the rule's names, its link, and what an answer alone
//! says of it.

use serde_json::{json, Value};

/// The specification the rules cite (its tools page and its schema).
const SPEC: &str = "https://modelcontextprotocol.io/specification/2025-11-25";

/// A rule of the specification a tool call can break, as `explore` judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Rule {
    /// The server sent a message that is not valid MCP (the schema validator).
    Protocol,
    /// `structuredContent` does not conform to the tool's own `outputSchema`.
    OutputSchema,
    /// Invalid arguments answered with a JSON-RPC error, where the specification lists
    /// input validation errors among the tool execution errors (`isError: true`).
    InvalidArgumentsAsError,
    /// Invalid arguments answered as a success: the server did not validate its input.
    InvalidArgumentsAccepted,
    /// The server exited or closed the connection instead of answering.
    Crash,
    /// No answer within the limit.
    Hang,
    /// An answer holds a secret the normalizer would refuse to write.
    Secret,
}

/// Every rule, in the order a report lists them.
pub const RULES: [Rule; 7] = [
    Rule::Protocol,
    Rule::OutputSchema,
    Rule::InvalidArgumentsAsError,
    Rule::InvalidArgumentsAccepted,
    Rule::Crash,
    Rule::Hang,
    Rule::Secret,
];

impl Rule {
    /// The rule's name, as the header and the report write it (`invalid-arguments-error`).
    pub fn name(self) -> &'static str {
        match self {
            Rule::Protocol => "protocol",
            Rule::OutputSchema => "output-schema",
            Rule::InvalidArgumentsAsError => "invalid-arguments-error",
            Rule::InvalidArgumentsAccepted => "invalid-arguments-accepted",
            Rule::Crash => "crash",
            Rule::Hang => "hang",
            Rule::Secret => "secret",
        }
    }

    /// The rule named `name`.
    pub fn parse(name: &str) -> Option<Rule> {
        RULES.into_iter().find(|r| r.name() == name)
    }

    /// What the specification says, in one line.
    pub fn says(self) -> &'static str {
        match self {
            Rule::Protocol => "every message fits the protocol's schema",
            Rule::OutputSchema => {
                "servers MUST provide structured results that conform to the output schema"
            }
            Rule::InvalidArgumentsAsError => {
                "input validation errors are tool execution errors (a result with isError: true), not protocol errors"
            }
            Rule::InvalidArgumentsAccepted => "servers MUST validate all tool inputs",
            Rule::Crash | Rule::Hang => "a request is answered with a result or an error",
            Rule::Secret => "servers MUST sanitize tool outputs",
        }
    }

    /// The section of the specification (2025-11-25) the rule is from.
    pub fn link(self) -> String {
        let section = match self {
            Rule::Protocol => "schema",
            Rule::OutputSchema => "server/tools#output-schema",
            Rule::InvalidArgumentsAsError => "server/tools#error-handling",
            Rule::InvalidArgumentsAccepted | Rule::Secret => "server/tools#security-considerations",
            Rule::Crash | Rule::Hang => "basic#responses",
        };
        format!("{SPEC}/{section}")
    }

    /// What `answer` (the call's response, id and all) alone says of this rule: `Some`
    /// with why it is still broken, `None` when it holds or the answer cannot tell (a
    /// protocol or output schema violation is the validator's to find, a secret the
    /// scanner's).
    pub fn broken_by(self, answer: &Value) -> Option<String> {
        let result = answer.get("result");
        let tool_error = result
            .and_then(|r| r.get("isError"))
            .and_then(Value::as_bool)
            == Some(true);
        match self {
            Rule::InvalidArgumentsAsError => answer.get("error").map(|e| {
                format!(
                    "invalid arguments are still answered with a JSON-RPC error ({})",
                    e.get("code").unwrap_or(&Value::Null)
                )
            }),
            Rule::InvalidArgumentsAccepted if result.is_some() && !tool_error => {
                Some("invalid arguments are still answered as a success".to_owned())
            }
            _ => None,
        }
    }

    /// The answer a fixture holds for a call that got none (a crash, a hang) or one that
    /// cannot be written (a secret): a tool error with no content. A replay judges the live
    /// answer by the rule and does not compare it with this.
    pub fn placeholder_answer() -> Value {
        json!({"content": [], "isError": true})
    }
}

/// The header's `"explore"`: the rule the fixture's last `tools/call` broke when `explore`
/// wrote it, the tool, and the seed of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explored {
    /// The rule the call broke.
    pub rule: Rule,
    /// The tool called.
    pub tool: String,
    /// The seed of the run that found it.
    pub seed: u64,
}

impl Explored {
    /// The header value: `{"rule": ..., "seed": ..., "tool": ...}`.
    pub fn to_json(&self) -> Value {
        json!({"rule": self.rule.name(), "tool": self.tool, "seed": self.seed})
    }

    /// Reads the header value, or says what is wrong with it.
    pub(crate) fn from_json(v: &Value) -> Result<Explored, String> {
        let wrong = || {
            format!(
                "\"explore\" must be {{\"rule\": RULE, \"tool\": NAME, \"seed\": N}} (rules: {}), not {v}",
                RULES.map(Rule::name).join(", ")
            )
        };
        let rule = v
            .get("rule")
            .and_then(Value::as_str)
            .and_then(Rule::parse)
            .ok_or_else(wrong)?;
        let tool = v.get("tool").and_then(Value::as_str).ok_or_else(wrong)?;
        let seed = v.get("seed").and_then(Value::as_u64).ok_or_else(wrong)?;
        Ok(Explored {
            rule,
            tool: tool.to_owned(),
            seed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_reads_back_from_its_name_and_links_into_the_specification() {
        for rule in RULES {
            assert_eq!(Rule::parse(rule.name()), Some(rule));
            assert!(rule.link().starts_with(SPEC), "{}", rule.link());
        }
        let explored = Explored {
            rule: Rule::Crash,
            tool: "add".into(),
            seed: 7,
        };
        assert_eq!(Explored::from_json(&explored.to_json()), Ok(explored));
        let err = Explored::from_json(&json!({"rule": "nope", "tool": "a", "seed": 1}));
        assert!(err.unwrap_err().contains("rules: protocol, output-schema"));
    }

    #[test]
    fn an_answer_alone_says_whether_invalid_arguments_are_refused_as_the_specification_asks() {
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad"}});
        let tool_error =
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true}});
        let success = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}});
        let as_error = Rule::InvalidArgumentsAsError;
        assert!(as_error.broken_by(&error).unwrap().contains("-32602"));
        assert_eq!(as_error.broken_by(&tool_error), None);
        let accepted = Rule::InvalidArgumentsAccepted;
        assert!(accepted.broken_by(&success).is_some());
        assert_eq!(accepted.broken_by(&tool_error), None);
        assert_eq!(Rule::Crash.broken_by(&error), None);
    }
}
