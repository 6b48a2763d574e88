//! The default rules: their names and versions ([`DEFAULT_RULES`], [`RULES_VERSION`]), the
//! ones in force for one replay ([`Defaults`]), and the data of the rules that both the
//! general path (`general.rs`) and the fast path (`fast.rs`) apply: the `result` members
//! ([`RESULT_RULES`]), the error code, the session id, the client identity and the values a
//! served recording gives for placeholders. Nothing here walks a message.

use super::paths::Paths;
use crate::data::json::{Shape, Tree};
use serde_json::{Map, Value};

/// The newest version of the default rules. A fixture header's `"rules": N` pins an older
/// one, so fixtures recorded before the defaults grew keep passing. Version 2 added
/// `cache-hints` and `resource-not-found-code`, version 3 the categories of personal data
/// (`email`, `phone`, `ipv4`, `ipv6`, `payment-card`, `iban`), version 4 `server-identity`,
/// version 5 `trace-context` (see [`DEFAULT_RULES`]).
pub const RULES_VERSION: u64 = 5;

/// The default rules, by name, with the version of the defaults that added each and what
/// it does. A fixture whose header pins `"rules": N` gets the rules added in versions up
/// to `N` (`docs/normalization.md`, "Versions").
pub const DEFAULT_RULES: [(&str, u64, &str); 19] = [
    ("is-error-default", 1, "drops `result.isError: false`, MCP's default for tool results"),
    (
        "result-type-default",
        1,
        "drops `result.resultType: \"complete\"`, the 2026-07-28 default, so one fixture passes in both eras",
    ),
    (
        "cache-hints",
        2,
        "drops the caching hints `cacheScope` and `ttlMs` of a `result` (2026-07-28 adds them to \
         every list, read and `server/discover` result), so one fixture passes in both eras; \
         a task's `ttlMs` (a result with `taskId`) stays",
    ),
    (
        "resource-not-found-code",
        2,
        "the error code `-32002` (resource not found before 2026-07-28) becomes `-32602`, the \
         code 2026-07-28 answers with, so one fixture passes in both eras",
    ),
    (
        "request-state",
        1,
        "the opaque `requestState` of an `input_required` result becomes `<REQUEST_STATE>` where \
         a recording has not already written it as the bound placeholder `<REQUEST_STATE:n>`, \
         which the client's retry sends back and the harness fills with the server's live \
         state; a state only the client sent (one it made) is kept as sent",
    ),
    ("timestamp", 1, "RFC 3339 / ISO 8601 date-times inside strings become `<TIMESTAMP>`"),
    ("uuid", 1, "UUIDs inside strings become `<UUID>`"),
    (
        "paths",
        1,
        "absolute paths under the workspace root, the home folder and the temp folder become \
         `<WORKSPACE>`, `<HOME>`, `<TMP>` (the rest of the path stays)",
    ),
    (
        "client-identity",
        1,
        "in client messages: `clientInfo` and `protocolVersion` of `initialize` and the \
         `io.modelcontextprotocol/clientInfo` and `/protocolVersion` keys of `_meta` become \
         `<CLIENT_INFO>` and `<PROTOCOL_VERSION>`; capabilities stay (servers behave by them)",
    ),
    ("session-id", 1, "the value of any `Mcp-Session-Id` key becomes `<SESSION_ID>`"),
    (
        "trace-context",
        5,
        "in every message's `params._meta` and `result._meta`: the W3C trace context keys the \
         specification reserves (`traceparent`, `tracestate`, `baggage`) become \
         `<TRACEPARENT>`, `<TRACESTATE>`, `<BAGGAGE>`; the harness sends a fresh valid \
         `traceparent` in their place (and no `tracestate` or `baggage`)",
    ),
    (
        "server-identity",
        4,
        "in server results: the `io.modelcontextprotocol/serverInfo` key of a result's `_meta` \
         (a 2026-07-28 server may name itself and its version in every result) becomes \
         `<SERVER_INFO>`, as the client identity does; `server/discover` keeps it (its contract)",
    ),
    (
        "ids",
        1,
        "request ids and progress tokens become the fixture's labels (`<REQUEST_ID>`, \
         `<PROGRESS_TOKEN>`), per direction (done by the replay driver)",
    ),
    (
        "email",
        3,
        "e-mail addresses inside strings become `user<n>@example.invalid`, numbered by first \
         occurrence in the fixture (reserved domains such as `example.com` stay)",
    ),
    (
        "phone",
        3,
        "telephone numbers (`+44 20 7946 0958`, `(415) 555-2671`) become `+1-555-0100`, \
         `+1-555-0101`, ... (the fictional range stays)",
    ),
    (
        "ipv4",
        3,
        "public IPv4 addresses become `192.0.2.<n>`, then `198.51.100.<n>` and \
         `203.0.113.<n>` (loopback, private, link-local and documentation addresses stay)",
    ),
    (
        "ipv6",
        3,
        "public IPv6 addresses become `2001:db8::<n>` (loopback, link-local, unique local and \
         documentation addresses stay)",
    ),
    (
        "payment-card",
        3,
        "payment card numbers (a network's prefix, 13 to 19 digits, Luhn-checked) become \
         Luhn-valid numbers of the same length and grouping from `400000` (published test \
         numbers stay)",
    ),
    (
        "iban",
        3,
        "IBANs (country, length and mod-97 checked) become IBANs of the same country and \
         length with valid check digits and an account of zeros and `<n>`",
    ),
];

/// The default rules that [`Rules::without`](crate::Rules::without) may turn off: the
/// ones on one member of a `result` or `error` whose value the harness never needs, and
/// the categories of personal data.
pub const SWITCHABLE_RULES: [&str; 10] = [
    "is-error-default",
    "result-type-default",
    "cache-hints",
    "resource-not-found-code",
    "email",
    "phone",
    "ipv4",
    "ipv6",
    "payment-card",
    "iban",
];

/// The default rules in force for one replay: their version, the ones turned off, and
/// this machine's folders (for `paths`). What the general path
/// ([`normalize_server`](super::general::normalize_server)) and the replay's fast path
/// (`fast.rs`) both consult.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Defaults {
    /// The folders the `paths` rule replaces.
    pub paths: Paths,
    /// The version of the defaults (1 up to `RULES_VERSION`).
    version: u64,
    /// The rules turned off (names from [`SWITCHABLE_RULES`]).
    off: Vec<&'static str>,
    /// Is a category of personal data in force (kept up to date with `version` and `off`)?
    personal: bool,
}

impl Defaults {
    /// The newest defaults, none turned off, with these folders.
    pub(crate) fn new(paths: Paths) -> Defaults {
        let mut defaults = Defaults {
            paths,
            version: RULES_VERSION,
            off: Vec::new(),
            personal: false,
        };
        defaults.settle();
        defaults
    }

    /// Recomputes `personal`.
    fn settle(&mut self) {
        self.personal = super::personal::CATEGORIES
            .iter()
            .any(|name| self.in_force(name));
    }

    /// Is a category of personal data in force (`docs/normalization.md`, "Personal data")?
    pub(crate) fn personal(&self) -> bool {
        self.personal
    }

    /// The version of the defaults.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// Sets the version (checked by the caller).
    pub(crate) fn set_version(&mut self, version: u64) {
        self.version = version;
        self.settle();
    }

    /// Turns off a rule of [`SWITCHABLE_RULES`] (checked by the caller).
    pub(crate) fn turn_off(&mut self, name: &'static str) {
        if !self.off.contains(&name) {
            self.off.push(name);
        }
        self.settle();
    }

    /// The rules turned off.
    pub(crate) fn off(&self) -> &[&'static str] {
        &self.off
    }

    /// Is the default rule `name` in force: added at or before this version, and not
    /// turned off?
    pub(crate) fn in_force(&self, name: &str) -> bool {
        !self.off.contains(&name)
            && DEFAULT_RULES
                .iter()
                .any(|(rule, since, _)| *rule == name && *since <= self.version)
    }

    /// The defaults of one version over the example machine's folders, for tests and the
    /// fuzzer.
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn example(version: u64) -> Defaults {
        let mut defaults = Defaults::new(Paths::example());
        defaults.set_version(version);
        defaults
    }
}

/// The placeholder of the `request-state` rule.
pub(super) const REQUEST_STATE: &str = "<REQUEST_STATE>";

/// The default rules on the members of a server's `result`, by their names in
/// [`DEFAULT_RULES`]: the one definition that the general path
/// ([`normalize_server`](super::general::normalize_server)) and the replay's fast path for
/// responses (`fast.rs`) both consult, each asking [`Defaults::in_force`] first.
pub(crate) const RESULT_RULES: [ResultRule; 5] = [
    ResultRule {
        name: "is-error-default",
        key: "isError",
        action: ResultAction::DropDefault(Scalar::Bool(false)),
    },
    ResultRule {
        name: "result-type-default",
        key: "resultType",
        action: ResultAction::DropDefault(Scalar::Str("complete")),
    },
    ResultRule {
        name: "cache-hints",
        key: "cacheScope",
        action: ResultAction::DropHint,
    },
    ResultRule {
        name: "cache-hints",
        key: "ttlMs",
        action: ResultAction::DropHint,
    },
    ResultRule {
        name: "request-state",
        key: "requestState",
        action: ResultAction::Pin(REQUEST_STATE),
    },
];

/// The key that makes a `result` a task (the tasks extension flattens a task into the
/// `result` of `tools/call` and `tasks/get`): its `ttlMs` is how long the server keeps
/// the task, data rather than a caching hint.
pub(crate) const TASK_KEY: &str = "taskId";

/// A default rule on one member of a server's `result`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResultRule {
    /// Its name in [`DEFAULT_RULES`] (a test checks that it is there).
    pub name: &'static str,
    /// The member's key.
    pub key: &'static str,
    /// What happens to the member.
    pub action: ResultAction,
}

/// What a [`ResultRule`] does to its member.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ResultAction {
    /// Drops the member when it holds this value, the protocol's default.
    DropDefault(Scalar),
    /// Drops the member whatever it holds, except from a task (a `result` with
    /// [`TASK_KEY`]).
    DropHint,
    /// Replaces the member's value, whatever it is, with this placeholder.
    Pin(&'static str),
}

/// A JSON scalar a rule compares a value with.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scalar {
    Bool(bool),
    Str(&'static str),
}

impl Scalar {
    /// Does `value` (of either JSON tree) hold this scalar?
    fn is<T: Tree>(self, value: &T) -> bool {
        match (self, value.shape()) {
            (Scalar::Bool(b), Shape::Bool(v)) => b == v,
            (Scalar::Str(s), Shape::String(v)) => s == v,
            _ => false,
        }
    }
}

impl ResultRule {
    /// Does this rule drop the member `key: value` of a `result` (`task`: the result has
    /// [`TASK_KEY`])? The caller asks [`Defaults::in_force`] too.
    pub(crate) fn drops<T: Tree>(&self, key: &str, value: &T, task: bool) -> bool {
        key == self.key
            && match self.action {
                ResultAction::DropDefault(default) => default.is(value),
                ResultAction::DropHint => !task,
                ResultAction::Pin(_) => false,
            }
    }

    /// Does this rule replace the value of member `key` of a `result`?
    pub(crate) fn pins(&self, key: &str) -> bool {
        matches!(self.action, ResultAction::Pin(_)) && key == self.key
    }

    /// Applies the rule to a `result` object.
    pub(super) fn apply(&self, result: &mut Map<String, Value>) {
        match self.action {
            ResultAction::DropDefault(_) | ResultAction::DropHint => {
                let task = result.contains_key(TASK_KEY);
                if result
                    .get(self.key)
                    .is_some_and(|v| self.drops(self.key, v, task))
                {
                    result.remove(self.key);
                }
            }
            ResultAction::Pin(placeholder) => {
                // A bound placeholder (`<REQUEST_STATE:1>`) is already the value's name.
                if let Some(v) = result
                    .get_mut(self.key)
                    .filter(|v| !v.as_str().is_some_and(super::bound::has_bound))
                {
                    *v = Value::String(placeholder.into());
                }
            }
        }
    }
}

/// The `resource-not-found-code` rule: the error code a server answered a missing
/// resource with before 2026-07-28 (MCP's `-32002`), and the one it answers with from
/// 2026-07-28 on (JSON-RPC's invalid params, `-32602`, SEP-2164), which the rule writes
/// for both. The other way round is impossible: `-32602` is every invalid-params error.
pub(crate) const RESOURCE_NOT_FOUND: (i64, i64) = (-32002, -32602);

/// The code the `resource-not-found-code` rule writes in place of an error's `code`, if
/// it rewrites it (compared by numeric value: `-32002.0` is `-32002`).
pub(crate) fn rewritten_code(code: &serde_json::Number) -> Option<i64> {
    let (legacy, modern) = RESOURCE_NOT_FOUND;
    (code.as_f64() == Some(legacy as f64)).then_some(modern)
}

/// Does the `session-id` rule replace the value under this key?
pub(crate) fn is_session_id_key(key: &str) -> bool {
    key.eq_ignore_ascii_case("mcp-session-id")
}

/// The `_meta` key under which a 2026-07-28 server names itself (and its version), which
/// the `server-identity` rule writes as [`SERVER_INFO`] in every result but
/// `server/discover`'s (the protocol's `meta::SERVER_INFO`; normalization imports nothing
/// of the protocol's room).
pub(crate) const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

/// What the `server-identity` rule writes; the mock serves [`SERVED_SERVER_INFO`] for it.
pub(crate) const SERVER_INFO: &str = "<SERVER_INFO>";

/// The `_meta` keys the specification reserves for W3C trace context (OpenTelemetry), with
/// the placeholders of the `trace-context` rule: a client with tracing on sends a new
/// `traceparent` in every request.
pub const TRACE_META: [(&str, &str); 3] = [
    ("traceparent", "<TRACEPARENT>"),
    ("tracestate", "<TRACESTATE>"),
    ("baggage", "<BAGGAGE>"),
];

/// The `_meta` keys of the 2026-07-28 era that carry client identity, with placeholders.
pub const IDENTITY_META: [(&str, &str); 3] = [
    ("io.modelcontextprotocol/clientInfo", "<CLIENT_INFO>"),
    (
        "io.modelcontextprotocol/protocolVersion",
        "<PROTOCOL_VERSION>",
    ),
    (
        "io.modelcontextprotocol/clientCapabilities",
        "<CLIENT_CAPABILITIES>",
    ),
];

/// What a served recording gives a client in place of a placeholder the default rules
/// wrote, beside the folders (`<WORKSPACE>`, `<HOME>`, `<TMP>`, this machine's): a fixed,
/// valid value of the shape it stands for, the same in every run, which the same rules
/// normalize back to the placeholder when the client sends it again.
/// What a served recording gives a client for [`SERVER_INFO`]: a server's name and version
/// (an object, as the protocol has it), the same in every run.
pub(crate) const SERVED_SERVER_INFO: (&str, &str) = ("mcp-replay-mock", "0.0.0");

pub const SERVED_VALUES: [(&str, &str); 6] = [
    ("<TIMESTAMP>", "2026-01-01T00:00:00.000Z"),
    ("<UUID>", "00000000-0000-4000-8000-000000000000"),
    ("<SESSION_ID>", "mcp-replay-session"),
    (
        "<TRACEPARENT>",
        "00-6d63702d7265706c61792d7365727665-6d63702d7265706c-01",
    ),
    ("<TRACESTATE>", "mcp-replay=0"),
    ("<BAGGAGE>", "mcp-replay=0"),
];

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn name_each_result_rule_after_a_default_rule() {
        for rule in RESULT_RULES {
            assert!(
                DEFAULT_RULES.iter().any(|(name, _, _)| *name == rule.name),
                "{}",
                rule.name
            );
        }
        for name in SWITCHABLE_RULES {
            assert!(DEFAULT_RULES.iter().any(|(n, _, _)| *n == name), "{name}");
        }
        let names: Vec<(&str, u64)> = DEFAULT_RULES.iter().map(|(n, v, _)| (*n, *v)).collect();
        assert_eq!(
            names,
            [
                ("is-error-default", 1),
                ("result-type-default", 1),
                ("cache-hints", 2),
                ("resource-not-found-code", 2),
                ("request-state", 1),
                ("timestamp", 1),
                ("uuid", 1),
                ("paths", 1),
                ("client-identity", 1),
                ("session-id", 1),
                ("trace-context", 5),
                ("server-identity", 4),
                ("ids", 1),
                ("email", 3),
                ("phone", 3),
                ("ipv4", 3),
                ("ipv6", 3),
                ("payment-card", 3),
                ("iban", 3)
            ]
        );
        assert!(DEFAULT_RULES
            .iter()
            .all(|(_, since, _)| (1..=RULES_VERSION).contains(since)));
    }
}
