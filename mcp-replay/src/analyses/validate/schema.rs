//! The specification's JSON Schema as data: one revision's definitions (`$defs`), as
//! `scripts/compact-schema.py` writes them into `mcp-replay/schema/REVISION.rs` (the
//! structure only, each definition's JSON text with its name and its method, sorted, in a
//! Rust literal): nothing is read when a process starts, and a definition is parsed and
//! compiled only when a message first needs it. Which definition checks which message comes
//! from the schema's own names: a request is the definition whose `method` is that constant
//! (`CallToolRequest`), its answer `<Name>ResultResponse`'s `result` where the revision has
//! one, else `<Name>Result`; a notification or a server's request is a member of
//! `ServerNotification` or `ServerRequest`.

use super::check::{compile_text, Defs, Node};
use std::sync::OnceLock;

/// One revision's data: each definition as `(name, method, JSON)` sorted by name, and each
/// method with the index of its first definition, sorted by method.
type Data = (
    &'static [(&'static str, &'static str, &'static str)],
    &'static [(&'static str, usize)],
);

/// The revisions the runtime holds, oldest first: a new one is its file (written by
/// `scripts/compact-schema.py`) and a line here.
const REVISIONS: [(&str, Data); 2] = [
    ("2025-11-25", include!("../../../schema/2025-11-25.rs")),
    ("2026-07-28", include!("../../../schema/2026-07-28.rs")),
];

/// One revision's definitions.
pub(crate) struct Schema {
    data: Data,
    /// Each definition compiled, at its first use: boxed, so that the table a fresh process
    /// makes is a few pages of empty cells, not one `Node` per definition (each one a page
    /// fault to write in a test's first replay).
    compiled: Vec<OnceLock<Box<Node>>>,
    /// The definitions of what a server sends of its own: the members of the unions
    /// `ServerNotification` and `ServerRequest`.
    server_sends: OnceLock<Vec<&'static str>>,
    /// For each method (in the order of the data's methods), the definition of its
    /// answer, found at its first use ([`Schema::result_of`]): its position, and whether
    /// it is a `<Name>ResultResponse` whose `result` is the answer.
    results: Vec<OnceLock<Option<(usize, bool)>>>,
}

impl Schema {
    /// The definitions of `revision` (`"2025-11-25"`); `None` for a revision the runtime
    /// does not hold.
    pub(crate) fn of(revision: &str) -> Option<&'static Schema> {
        static LOADED: [OnceLock<Schema>; REVISIONS.len()] = [OnceLock::new(), OnceLock::new()];
        let at = REVISIONS.iter().position(|(r, _)| *r == revision)?;
        Some(LOADED[at].get_or_init(|| {
            let data = REVISIONS[at].1;
            Schema {
                data,
                compiled: data.0.iter().map(|_| OnceLock::new()).collect(),
                server_sends: OnceLock::new(),
                results: data.1.iter().map(|_| OnceLock::new()).collect(),
            }
        }))
    }

    /// The name of the definition of a message whose method is `method`: a request
    /// (`CallToolRequest`) or a notification (`ProgressNotification`).
    pub(crate) fn of_method(&self, method: &str) -> Option<&'static str> {
        let methods = self.data.1;
        let at = self.method_at(method)?;
        Some(self.data.0[methods[at].1].0)
    }

    /// The position of `method` among the data's methods.
    fn method_at(&self, method: &str) -> Option<usize> {
        let methods = self.data.1;
        methods.binary_search_by(|(m, _)| (*m).cmp(method)).ok()
    }

    /// The schema of the `result` that answers a request of `method`: `<Name>ResultResponse`'s
    /// `result` where the revision has one (2026-07-28: `CallToolResultResponse`, whose
    /// `result` may also be an `InputRequiredResult`), else `<Name>Result`. `None` for a
    /// method whose answer the schema does not name (an empty result: `ping`,
    /// `logging/setLevel`).
    pub(crate) fn result_of(&self, method: &str) -> Option<&Node> {
        let at = self.method_at(method)?;
        let found = self.results[at].get_or_init(|| {
            let stem = self.data.0[self.data.1[at].1].0.strip_suffix("Request")?;
            match self.index(&format!("{stem}ResultResponse")) {
                Some(response) => Some((response, true)),
                None => Some((self.index(&format!("{stem}Result"))?, false)),
            }
        });
        let (definition, response) = (*found)?;
        let node = self.node_at(definition);
        if response {
            node.property("result")
        } else {
            Some(node)
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
                .filter_map(|member| Some(self.data.0[self.index(member)?].0))
                .collect()
        });
        sends.contains(&name).then(|| self.node(name)).flatten()
    }
}

impl Defs for Schema {
    fn index(&self, name: &str) -> Option<usize> {
        self.data
            .0
            .binary_search_by(|(n, _, _)| (*n).cmp(name))
            .ok()
    }

    fn node_at(&self, at: usize) -> &Node {
        self.compiled[at].get_or_init(|| {
            Box::new(compile_text(self.data.0[at].2).expect("the schema's data is a schema"))
        })
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
        // Two definitions of one method: the first by name.
        assert_eq!(
            stateless.of_method("notifications/cancelled"),
            Some("CancelledNotification")
        );
        assert!(Schema::of("2027-03-30").is_none());
    }
}
