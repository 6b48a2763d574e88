//! The specification's JSON Schema as data: one revision's definitions (`$defs`), as
//! `scripts/compact-schema.py` writes them into `mcp-replay/schema/REVISION.defs` (the
//! structure only, one definition a line, `NAME<TAB>JSON`), read once per process and each
//! definition parsed only when a message needs it. Which definition checks which message
//! comes from the schema's own names: a request is the definition whose `method` is that
//! `const` (`CallToolRequest`), its answer `<Name>ResultResponse`'s `result` where the
//! revision has one, else `<Name>Result`; a notification or a server's request is the
//! definition whose `method` it is.

use super::check::{compile, Node};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The revisions the runtime holds, oldest first: a new one is its file (written by
/// `scripts/compact-schema.py`) and a line here.
const REVISIONS: [(&str, &str); 2] = [
    (
        "2025-11-25",
        include_str!("../../../schema/2025-11-25.defs"),
    ),
    (
        "2026-07-28",
        include_str!("../../../schema/2026-07-28.defs"),
    ),
];

/// One revision's definitions.
pub(crate) struct Schema {
    defs: HashMap<&'static str, Definition>,
    /// Each method the schema names (`"method": {"const": ...}`), with its definition.
    by_method: HashMap<&'static str, &'static str>,
    /// Each request method, with the definition of its answer and whether that is a
    /// `<Name>ResultResponse`, whose `result` it is.
    answers: HashMap<&'static str, (&'static str, bool)>,
    /// The definitions of what a server sends of its own: the members of the unions
    /// `ServerNotification` and `ServerRequest`.
    server_sends: OnceLock<Vec<&'static str>>,
}

/// A definition: its compact text, parsed and compiled at its first use.
struct Definition {
    text: &'static str,
    compiled: OnceLock<Node>,
}

/// What a `method` member holds as the compact writer writes it (keys sorted).
const METHOD_CONST: &str = "\"method\":{\"const\":\"";

impl Schema {
    /// The definitions of `revision` (`"2025-11-25"`), read at the first call in the
    /// process; `None` for a revision the runtime does not hold.
    pub(crate) fn of(revision: &str) -> Option<&'static Schema> {
        static LOADED: [OnceLock<Schema>; REVISIONS.len()] = [OnceLock::new(), OnceLock::new()];
        let at = REVISIONS.iter().position(|(r, _)| *r == revision)?;
        Some(LOADED[at].get_or_init(|| Schema::read(REVISIONS[at].1)))
    }

    /// Reads the lines of a `.defs` file: nothing is parsed but the names and methods.
    fn read(text: &'static str) -> Schema {
        let mut defs = HashMap::new();
        let mut by_method = HashMap::new();
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let Some((name, json)) = line.split_once('\t') else {
                continue;
            };
            // The definition's own `method` is a top-level property; a `$ref`'d one is
            // another definition's.
            if let Some(at) = json.find(METHOD_CONST) {
                let rest = &json[at + METHOD_CONST.len()..];
                // A union of messages (`ClientNotification`) holds its members' methods
                // too: the message's own definition is the one named for its kind.
                let own = name.ends_with("Request") || name.ends_with("Notification");
                if let (Some(end), true) = (rest.find('"'), own) {
                    by_method.entry(&rest[..end]).or_insert(name);
                }
            }
            defs.insert(
                name,
                Definition {
                    text: json,
                    compiled: OnceLock::new(),
                },
            );
        }
        let answers = by_method
            .iter()
            .filter_map(|(method, name)| {
                let stem = name.strip_suffix("Request")?;
                let named = |suffix: &str| {
                    defs.get_key_value(format!("{stem}{suffix}").as_str())
                        .map(|(k, _)| *k)
                };
                let answer = match named("ResultResponse") {
                    Some(response) => (response, true),
                    None => (named("Result")?, false),
                };
                Some((*method, answer))
            })
            .collect();
        Schema {
            defs,
            by_method,
            answers,
            server_sends: OnceLock::new(),
        }
    }

    /// The definition named `name`, compiled.
    pub(crate) fn node(&self, name: &str) -> Option<&Node> {
        let def = self.defs.get(name)?;
        Some(def.compiled.get_or_init(|| {
            let value: Value = serde_json::from_str(def.text).expect("the schema's data is JSON");
            compile(&value)
        }))
    }

    /// The name of the definition of a message whose method is `method`: a request
    /// (`CallToolRequest`) or a notification (`ProgressNotification`).
    pub(crate) fn of_method(&self, method: &str) -> Option<&'static str> {
        self.by_method.get(method).copied()
    }

    /// The schema of the `result` that answers a request of `method`, with the name it
    /// goes by: `<Name>ResultResponse`'s `result` where the revision has one (2026-07-28:
    /// `CallToolResultResponse`, whose `result` may also be an `InputRequiredResult`),
    /// else `<Name>Result`. `None` for a method whose answer the schema does not name (an
    /// empty result: `ping`, `logging/setLevel`).
    pub(crate) fn result_of(&self, method: &str) -> Option<&Node> {
        let (name, response) = *self.answers.get(method)?;
        let def = self.node(name)?;
        if response {
            def.property("result")
        } else {
            Some(def)
        }
    }

    /// The definition of a message the server sends of its own (a notification, or a
    /// request to the client) whose method is `method`; `None` for one the schema does not
    /// have a server send.
    pub(crate) fn sent_by_server(&self, method: &str) -> Option<&Node> {
        let name = self.of_method(method)?;
        let sends = self.server_sends.get_or_init(|| {
            ["ServerNotification", "ServerRequest"]
                .iter()
                .filter_map(|union| self.node(union))
                .flat_map(Node::alternatives)
                .filter_map(|member| self.defs.get_key_value(member).map(|(k, _)| *k))
                .collect()
        });
        sends.contains(&name).then(|| self.node(name)).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_definition_of_each_message_comes_from_the_schema_s_names() {
        let legacy = Schema::of("2025-11-25").unwrap();
        assert_eq!(legacy.of_method("tools/call"), Some("CallToolRequest"));
        assert_eq!(
            legacy.of_method("tasks/result"),
            Some("GetTaskPayloadRequest")
        );
        let answer = legacy.result_of("tools/list").unwrap();
        assert!(std::ptr::eq(
            answer,
            legacy.node("ListToolsResult").unwrap()
        ));
        assert!(legacy.result_of("tasks/result").is_some());
        // `ping` and `logging/setLevel` answer an empty result the schema does not name.
        assert!(legacy.result_of("ping").is_none());
        assert!(legacy.sent_by_server("notifications/progress").is_some());
        assert!(legacy.sent_by_server("sampling/createMessage").is_some());
        // A client's own notification is not a server's.
        assert!(legacy.sent_by_server("notifications/initialized").is_none());
        let stateless = Schema::of("2026-07-28").unwrap();
        // 2026-07-28 names the response: its `result` may be an `InputRequiredResult`.
        let call = stateless.result_of("tools/call").unwrap();
        assert_eq!(
            call.alternatives().collect::<Vec<_>>(),
            ["InputRequiredResult", "CallToolResult"]
        );
        assert_eq!(
            stateless.of_method("notifications/cancelled"),
            Some("CancelledNotification")
        );
        assert!(Schema::of("2027-03-30").is_none());
    }
}
