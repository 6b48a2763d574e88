//! The default normalization rules: values that change from run to run or from machine to
//! machine become named placeholders, so fixtures compare and write the same everywhere.
//!
//! Every rule has a name (see [`DEFAULT_RULES`] and `docs/normalization.md`). Rules never
//! rewrite a placeholder, so normalizing twice gives the same as normalizing once. Request
//! ids and progress tokens are labels handled by the replay driver, not here.

use crate::json::{Shape, Tree};
use once_cell::sync::Lazy;
use regex::Regex;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::path::Path;

/// The default rules, by name, with the version of the defaults that added each and what
/// it does. A fixture whose header pins `"rules": N` gets the rules added in versions up
/// to `N` (`docs/normalization.md`, "Versions").
pub const DEFAULT_RULES: [(&str, u64, &str); 11] = [
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
        "the opaque `requestState` of an `input_required` result (and of the client's retry) becomes \
         `<REQUEST_STATE>`; the harness sends the server's latest actual state in its place",
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
        "ids",
        1,
        "request ids and progress tokens become the fixture's labels (`<REQUEST_ID>`, \
         `<PROGRESS_TOKEN>`), per direction (done by the replay driver)",
    ),
];

/// The default rules that [`Rules::without`](crate::Rules::without) may turn off: the
/// ones on one member of a `result` or `error` whose value the harness never needs.
pub const SWITCHABLE_RULES: [&str; 4] = [
    "is-error-default",
    "result-type-default",
    "cache-hints",
    "resource-not-found-code",
];

/// The default rules in force for one replay: their version, the ones turned off, and
/// this machine's folders (for `paths`). What the general path ([`normalize_server`]) and
/// the replay's fast path (`fast.rs`) both consult.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Defaults {
    /// The folders the `paths` rule replaces.
    pub paths: Paths,
    /// The version of the defaults (1 up to `RULES_VERSION`).
    version: u64,
    /// The rules turned off (names from [`SWITCHABLE_RULES`]).
    off: Vec<&'static str>,
}

impl Defaults {
    /// The newest defaults, none turned off, with these folders.
    pub(crate) fn new(paths: Paths) -> Defaults {
        Defaults {
            paths,
            version: crate::rules::RULES_VERSION,
            off: Vec::new(),
        }
    }

    /// The version of the defaults.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// Sets the version (checked by the caller).
    pub(crate) fn set_version(&mut self, version: u64) {
        self.version = version;
    }

    /// Turns off a rule of [`SWITCHABLE_RULES`] (checked by the caller).
    pub(crate) fn turn_off(&mut self, name: &'static str) {
        if !self.off.contains(&name) {
            self.off.push(name);
        }
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
        Defaults {
            version,
            ..Defaults::new(Paths::example())
        }
    }
}

/// The placeholder of the `request-state` rule.
const REQUEST_STATE: &str = "<REQUEST_STATE>";

/// The default rules on the members of a server's `result`, by their names in
/// [`DEFAULT_RULES`]: the one definition that the general path ([`normalize_server`]) and
/// the replay's fast path for responses (`fast.rs`) both consult, each asking
/// [`Defaults::in_force`] first.
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
    fn apply(&self, result: &mut Map<String, Value>) {
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
                if let Some(v) = result.get_mut(self.key) {
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

/// `<NAME>` or `<NAME:n>`: a placeholder, never rewritten by a rule and never taken for
/// a secret. The one grammar of placeholders: `<[A-Z][A-Z0-9_]*(:[A-Za-z0-9_.-]+)?>`.
pub fn is_placeholder(s: &str) -> bool {
    placeholder_prefix(s) == Some(s.len())
}

/// Does a placeholder occur anywhere in `s` (`Bearer <TOKEN>`)?
pub(crate) fn contains_placeholder(s: &str) -> bool {
    s.match_indices('<')
        .any(|(i, _)| placeholder_prefix(&s[i..]).is_some())
}

/// The length of the placeholder `s` starts with, if it starts with one. The grammar of
/// [`is_placeholder`] by hand, not as a regex: it runs on every string.
fn placeholder_prefix(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.first() != Some(&b'<') || !b.get(1).is_some_and(u8::is_ascii_uppercase) {
        return None;
    }
    let name = |c: &u8| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_';
    let tag = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    let mut i = 2;
    while b.get(i).is_some_and(name) {
        i += 1;
    }
    if b.get(i) == Some(&b':') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(tag) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    (b.get(i) == Some(&b'>')).then_some(i + 1)
}

static TIMESTAMP: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?-u)\b\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?\b",
    )
    .expect("valid regex")
});

static UUID: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"(?-u)\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
    )
    .expect("valid regex")
});

/// The placeholders of the `paths` rule, one per machine-specific folder.
pub(crate) const FOLDER_PLACEHOLDERS: [&str; 3] = ["<WORKSPACE>", "<HOME>", "<TMP>"];

/// The machine-specific folders the `paths` rule replaces, longest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Paths {
    prefixes: Vec<(String, &'static str)>,
}

impl Paths {
    /// The folders of this machine: `workspace` (when given), `$HOME`, the temp folder.
    pub fn of_this_machine(workspace: Option<&Path>) -> Paths {
        let mut paths = Paths::default();
        if let Some(ws) = workspace {
            paths.add(ws, "<WORKSPACE>");
        }
        if let Some(home) = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")) {
            paths.add(Path::new(&home), "<HOME>");
        }
        let tmp = std::env::temp_dir();
        paths.add(&tmp, "<TMP>");
        if let Ok(real) = tmp.canonicalize() {
            paths.add(&real, "<TMP>");
        }
        paths
    }

    /// Adds a folder and its placeholder.
    pub fn add(&mut self, folder: &Path, placeholder: &'static str) {
        let text = folder.to_string_lossy();
        let text = text.trim_end_matches(['/', '\\']);
        // The root folder (or an empty one) would rewrite every absolute path.
        if text.len() < 2 || self.prefixes.iter().any(|(p, _)| p == text) {
            return;
        }
        self.prefixes.push((text.to_owned(), placeholder));
        self.prefixes.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
    }

    /// The folder `placeholder` (`<WORKSPACE>`, `<HOME>`, `<TMP>`) stands for here.
    pub(crate) fn folder(&self, placeholder: &str) -> Option<&str> {
        self.prefixes
            .iter()
            .find(|(_, p)| *p == placeholder)
            .map(|(folder, _)| folder.as_str())
    }

    /// The placeholders of `s` (`<WORKSPACE>`, `<HOME>`, `<TMP>`) written back as this
    /// machine's folders: what a client message recorded elsewhere names here.
    pub(crate) fn expand<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let mut out: Cow<'a, str> = Cow::Borrowed(s);
        for placeholder in FOLDER_PLACEHOLDERS {
            if !out.contains(placeholder) {
                continue;
            }
            if let Some(folder) = self.folder(placeholder) {
                out = Cow::Owned(out.replace(placeholder, folder));
            }
        }
        out
    }

    fn replace<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let mut out: Cow<'a, str> = Cow::Borrowed(s);
        for (prefix, placeholder) in &self.prefixes {
            if !out.contains(prefix.as_str()) {
                continue;
            }
            let mut result = String::with_capacity(out.len());
            let mut rest: &str = &out;
            while let Some(i) = rest.find(prefix.as_str()) {
                let after = &rest[i + prefix.len()..];
                // What precedes the match: the text since the previous match, or (right
                // after it) what was written for the previous match.
                let before_ok = path_may_start_after(if i > 0 { &rest[..i] } else { &result });
                let after_ok = after.chars().next().is_none_or(|c| {
                    matches!(c, '/' | '\\')
                        || !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
                });
                result.push_str(&rest[..i]);
                if before_ok && after_ok {
                    result.push_str(placeholder);
                } else {
                    result.push_str(prefix);
                }
                rest = after;
            }
            result.push_str(rest);
            out = Cow::Owned(result);
        }
        out
    }
}

/// Can an absolute path start right after `before`? Not inside a word, a file name or a
/// path, nor right after a placeholder: that stands for text a path may continue, so
/// `<TMP>/root/x` stays as it is when `/root` is the home folder (else normalizing twice
/// would differ from normalizing once).
fn path_may_start_after(before: &str) -> bool {
    match before.chars().next_back() {
        None => true,
        Some('>') => !before
            .rfind('<')
            .is_some_and(|i| is_placeholder(&before[i..])),
        Some(c) => !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'),
    }
}

/// Applies the default rules in force to a server message.
pub(crate) fn normalize_server(message: &mut Value, defaults: &Defaults) {
    if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
        for rule in &RESULT_RULES {
            if defaults.in_force(rule.name) {
                rule.apply(result);
            }
        }
    }
    if defaults.in_force("resource-not-found-code") {
        if let Some(code) = message.pointer_mut("/error/code") {
            if let Some(modern) = match code {
                Value::Number(n) => rewritten_code(n),
                _ => None,
            } {
                *code = Value::from(modern);
            }
        }
    }
    normalize_values(message, &defaults.paths);
}

/// Applies the default rules to a client message (adds `client-identity`).
pub(crate) fn normalize_client(message: &mut Value, defaults: &Defaults) {
    let paths = &defaults.paths;
    let initialize = message.get("method").and_then(Value::as_str) == Some("initialize");
    if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
        if initialize {
            for (key, placeholder) in [
                ("clientInfo", "<CLIENT_INFO>"),
                ("protocolVersion", "<PROTOCOL_VERSION>"),
            ] {
                if let Some(v) = params.get_mut(key) {
                    *v = Value::String(placeholder.into());
                }
            }
        }
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
            identity_meta(meta);
        }
        if let Some(state) = params.get_mut("requestState") {
            if !state.is_null() {
                *state = Value::String(REQUEST_STATE.into());
            }
        }
    }
    normalize_values(message, paths);
}

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

fn identity_meta(meta: &mut Map<String, Value>) {
    for (key, placeholder) in IDENTITY_META
        .into_iter()
        .filter(|(key, _)| !key.ends_with("clientCapabilities"))
    {
        if let Some(v) = meta.get_mut(key) {
            *v = Value::String(placeholder.into());
        }
    }
}

/// `timestamp`, `uuid`, `paths` and `session-id` over every string and key of a value.
fn normalize_values(value: &mut Value, paths: &Paths) {
    match value {
        Value::String(s) => {
            if let Some(new) = normalize_str(s, paths) {
                *s = new;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| normalize_values(v, paths)),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if is_session_id_key(key) {
                    if !v.as_str().is_some_and(is_placeholder) {
                        *v = Value::String("<SESSION_ID>".into());
                    }
                    continue;
                }
                normalize_values(v, paths);
            }
            // Keys can hold paths too (e.g. a map from file to status).
            if map.keys().any(|k| normalize_str(k, paths).is_some()) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    let k = normalize_str(&k, paths).unwrap_or(k);
                    map.insert(k, v);
                }
            }
        }
        _ => {}
    }
}

/// What a served recording gives a client in place of a placeholder the default rules
/// wrote, beside the folders (`<WORKSPACE>`, `<HOME>`, `<TMP>`, this machine's): a fixed,
/// valid value of the shape it stands for, the same in every run, which the same rules
/// normalize back to the placeholder when the client sends it again.
pub const SERVED_VALUES: [(&str, &str); 3] = [
    ("<TIMESTAMP>", "2026-01-01T00:00:00.000Z"),
    ("<UUID>", "00000000-0000-4000-8000-000000000000"),
    ("<SESSION_ID>", "mcp-replay-session"),
];

/// The placeholders of [`SERVED_VALUES`] and the folders of `paths` written as values, in
/// every string and object key of `message`: a recorded server message as a client under
/// test gets it.
pub(crate) fn concretize(message: &mut Value, paths: &Paths) {
    fn one(s: &str, paths: &Paths) -> Option<String> {
        if !s.contains('<') {
            return None;
        }
        let mut out = paths.expand(s);
        for (placeholder, value) in SERVED_VALUES {
            if out.contains(placeholder) {
                out = Cow::Owned(out.replace(placeholder, value));
            }
        }
        match out {
            Cow::Owned(out) => Some(out),
            Cow::Borrowed(_) => None,
        }
    }
    match message {
        Value::String(s) => {
            if let Some(out) = one(s, paths) {
                *s = out;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| concretize(v, paths)),
        Value::Object(map) => {
            if map.keys().any(|k| k.contains('<')) {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (one(&k, paths).unwrap_or(k), v))
                    .collect();
            }
            map.values_mut().for_each(|v| concretize(v, paths));
        }
        _ => {}
    }
}

/// The normalized string, or `None` when no rule applies.
pub fn normalize_str(s: &str, paths: &Paths) -> Option<String> {
    if s.len() < 8 || is_placeholder(s) {
        return None;
    }
    let mut out: Cow<'_, str> = Cow::Borrowed(s);
    // Cheap pre-checks before running a regex over every string (and before compiling
    // it: a protocol version like `2025-11-25` must not cost every test process the
    // timestamp regex). A timestamp has two dashes and a colon, a UUID four dashes.
    let dashes = out.as_bytes().iter().filter(|b| **b == b'-').count();
    if dashes >= 2 && out.contains(':') {
        if let Cow::Owned(t) = TIMESTAMP.replace_all(&out, "<TIMESTAMP>") {
            out = Cow::Owned(t);
        }
    }
    if dashes >= 4 && out.len() >= 36 {
        if let Cow::Owned(t) = UUID.replace_all(&out, "<UUID>") {
            out = Cow::Owned(t);
        }
    }
    if out.contains(['/', '\\']) {
        if let Cow::Owned(t) = paths.replace(&out) {
            out = Cow::Owned(t);
        }
    }
    match out {
        Cow::Borrowed(_) => None,
        Cow::Owned(t) => Some(t),
    }
}

impl Paths {
    /// The folders of an example machine (workspace `/home/ada/work/proj`, home
    /// `/home/ada`, temp `/tmp`), the same on every machine: for tests and the fuzzer.
    #[cfg(any(test, feature = "internals"))]
    pub(crate) fn example() -> Paths {
        let mut p = Paths::default();
        p.add(Path::new("/home/ada/work/proj"), "<WORKSPACE>");
        p.add(Path::new("/home/ada"), "<HOME>");
        p.add(Path::new("/tmp"), "<TMP>");
        p
    }
}

#[cfg(test)]
mod should {
    use super::*;
    use serde_json::json;

    fn paths() -> Paths {
        Paths::example()
    }

    #[test]
    fn write_folder_placeholders_back_as_this_machines_folders() {
        let p = paths();
        assert_eq!(
            p.expand("file://<TMP>/x and <HOME>/.config, <WORKSPACE>/src"),
            "file:///tmp/x and /home/ada/.config, /home/ada/work/proj/src"
        );
        assert!(matches!(p.expand("<REQUEST_ID> /usr"), Cow::Borrowed(_)));
        // Back and forth is the identity on what the rule replaces.
        assert_eq!(p.replace(&p.expand("<TMP>/a/b")), "<TMP>/a/b");
    }

    fn server(v: Value) -> Value {
        server_at(crate::rules::RULES_VERSION, v)
    }

    fn server_at(version: u64, v: Value) -> Value {
        let mut v = v;
        normalize_server(&mut v, &Defaults::example(version));
        v
    }

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
                ("ids", 1)
            ]
        );
        assert!(DEFAULT_RULES
            .iter()
            .all(|(_, since, _)| (1..=crate::rules::RULES_VERSION).contains(since)));
    }

    #[test]
    fn drop_the_cache_hints_of_any_result_but_a_tasks_from_version_2() {
        let list = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [], "cacheScope": "private", "ttlMs": 0}});
        assert_eq!(
            server(list.clone()),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
        );
        let discover = json!({"result": {"supportedVersions": ["2026-07-28"], "cacheScope": "public", "ttlMs": 60000}});
        assert_eq!(
            server(discover),
            json!({"result": {"supportedVersions": ["2026-07-28"]}})
        );
        // A task's `ttlMs` is how long the server keeps it: data, not a caching hint.
        let task = json!({"result": {"taskId": "t1", "status": "working", "ttlMs": 60000, "resultType": "task"}});
        assert_eq!(server(task.clone()), task);
        // Only the `result`'s own members: a tool's output may hold such keys as data.
        let nested = json!({"result": {"structuredContent": {"ttlMs": 5, "cacheScope": "x"}}});
        assert_eq!(server(nested.clone()), nested);
        // Version 1 keeps them, as it always did.
        assert_eq!(server_at(1, list.clone()), list);
    }

    #[test]
    fn write_the_resource_not_found_code_of_both_eras_as_the_2026_one_from_version_2() {
        let legacy = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32002, "message": "resource not found: demo://none", "data": {"uri": "demo://none"}}});
        let modern = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "resource not found: demo://none", "data": {"uri": "demo://none"}}});
        assert_eq!(server(legacy.clone()), modern);
        assert_eq!(server(modern.clone()), modern);
        let float = json!({"error": {"code": -32002.0, "message": "m"}});
        assert_eq!(
            server(float),
            json!({"error": {"code": -32602, "message": "m"}})
        );
        // Other codes, and a `code` that is not the error's, stay.
        for other in [
            json!({"error": {"code": -32601, "message": "m"}}),
            json!({"result": {"code": -32002}}),
            json!({"error": {"code": "-32002"}}),
        ] {
            assert_eq!(server(other.clone()), other);
        }
        assert_eq!(server_at(1, legacy.clone()), legacy);
    }

    #[test]
    fn apply_a_switchable_rule_only_while_it_is_on() {
        let mut defaults = Defaults::example(2);
        defaults.turn_off("cache-hints");
        let mut m = json!({"result": {"cacheScope": "private", "ttlMs": 0, "isError": false}, "error": {"code": -32002}});
        normalize_server(&mut m, &defaults);
        assert_eq!(
            m,
            json!({"result": {"cacheScope": "private", "ttlMs": 0}, "error": {"code": -32602}})
        );
        assert!(!defaults.in_force("cache-hints") && defaults.in_force("resource-not-found-code"));
        assert!(!Defaults::example(1).in_force("resource-not-found-code"));
        assert!(!Defaults::example(2).in_force("no-such-rule"));
    }

    #[test]
    fn drop_the_is_error_default_and_keep_true() {
        assert_eq!(
            server(json!({"result": {"content": [], "isError": false}})),
            json!({"result": {"content": []}})
        );
        assert_eq!(
            server(json!({"result": {"isError": true}})),
            json!({"result": {"isError": true}})
        );
    }

    #[test]
    fn replace_timestamps_inside_strings() {
        assert_eq!(
            server(
                json!({"params": {"data": {"at": "2026-05-16T12:00:00.000Z", "log": "started 2026-05-16 12:00:01+02:00 ok"}}})
            ),
            json!({"params": {"data": {"at": "<TIMESTAMP>", "log": "started <TIMESTAMP> ok"}}})
        );
        // A date alone, a version and a phone-like number are data, not timestamps.
        let untouched =
            json!({"params": {"due": "2026-05-16", "v": "2025-11-25", "n": "2026-13-45T99:00"}});
        assert_eq!(server(untouched.clone()), untouched);
    }

    #[test]
    fn drop_the_complete_result_type_and_pin_request_state() {
        assert_eq!(
            server(json!({"result": {"resultType": "complete", "content": []}})),
            json!({"result": {"content": []}})
        );
        assert_eq!(
            server(
                json!({"result": {"resultType": "input_required", "requestState": "opaque.123", "inputRequests": {}}})
            ),
            json!({"result": {"resultType": "input_required", "requestState": "<REQUEST_STATE>", "inputRequests": {}}})
        );
        let mut retry =
            json!({"method": "tools/call", "params": {"name": "x", "requestState": "opaque.123"}});
        normalize_client(&mut retry, &Defaults::example(2));
        assert_eq!(retry["params"]["requestState"], "<REQUEST_STATE>");
    }

    #[test]
    fn replace_uuids() {
        assert_eq!(
            server(json!({"result": {"id": "job 123e4567-e89b-12d3-a456-426614174000 queued"}})),
            json!({"result": {"id": "job <UUID> queued"}})
        );
        let near = json!({"result": {"id": "123e4567-e89b-12d3-a456-42661417400"}});
        assert_eq!(server(near.clone()), near);
    }

    #[test]
    fn replace_machine_folders_keeping_the_tail_of_the_path() {
        assert_eq!(
            server(json!({"result": {
                "a": "/home/ada/work/proj/src/main.rs",
                "b": "file:///home/ada/.config/x.toml",
                "c": "/tmp/abc/out.txt",
                "d": "/home/adam/notes",
                "e": "see /tmp",
                "f": "/home/ada"
            }})),
            json!({"result": {
                "a": "<WORKSPACE>/src/main.rs",
                "b": "file://<HOME>/.config/x.toml",
                "c": "<TMP>/abc/out.txt",
                "d": "/home/adam/notes",
                "e": "see <TMP>",
                "f": "<HOME>"
            }})
        );
    }

    #[test]
    fn replace_paths_in_keys_too() {
        assert_eq!(
            server(json!({"result": {"/tmp/a.txt": 1}})),
            json!({"result": {"<TMP>/a.txt": 1}})
        );
    }

    #[test]
    fn replace_client_identity_in_client_messages_only() {
        let mut init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"roots": {}}, "clientInfo": {"name": "c", "version": "9"}}});
        normalize_client(&mut init, &Defaults::example(2));
        assert_eq!(
            init["params"],
            json!({"protocolVersion": "<PROTOCOL_VERSION>", "capabilities": {"roots": {}}, "clientInfo": "<CLIENT_INFO>"})
        );
        let mut call = json!({"method": "tools/call", "params": {"name": "x", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "c"},
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": 1}}});
        normalize_client(&mut call, &Defaults::example(2));
        assert_eq!(
            call["params"]["_meta"],
            json!({"io.modelcontextprotocol/protocolVersion": "<PROTOCOL_VERSION>",
                   "io.modelcontextprotocol/clientInfo": "<CLIENT_INFO>",
                   "io.modelcontextprotocol/clientCapabilities": {},
                   "progressToken": 1})
        );
        let result = json!({"result": {"protocolVersion": "2025-11-25"}});
        assert_eq!(server(result.clone()), result);
    }

    #[test]
    fn replace_session_ids() {
        assert_eq!(
            server(json!({"params": {"headers": {"Mcp-Session-Id": "abc123"}}})),
            json!({"params": {"headers": {"Mcp-Session-Id": "<SESSION_ID>"}}})
        );
    }

    #[test]
    fn never_rewrite_a_placeholder_so_twice_equals_once() {
        let once = server(
            json!({"result": {"a": "/tmp/x at 2026-05-16T12:00:00Z", "b": "<TMP>", "c": "<REQUEST_ID:2>"}}),
        );
        assert_eq!(server(once.clone()), once);
        assert!(is_placeholder("<REQUEST_ID:2>") && is_placeholder("<TIMESTAMP>"));
        assert!(!is_placeholder("<b>bold</b>") && !is_placeholder("<>"));
        assert!(contains_placeholder("Bearer <TOKEN>") && contains_placeholder("a<b<X:1>"));
        assert!(!contains_placeholder("<b>bold</b> <1> <A:b:c>"));
    }

    proptest::proptest! {
        #[test]
        fn recognize_placeholders_as_the_documented_pattern_does(s in "<?[A-Za-z0-9_:.<>é-]{0,8}>?") {
            let pattern = r"<[A-Z][A-Z0-9_]*(:[A-Za-z0-9_.-]+)?>";
            let whole = Regex::new(&format!("^{pattern}$")).unwrap();
            proptest::prop_assert_eq!(is_placeholder(&s), whole.is_match(&s), "{:?}", s);
            let inside = Regex::new(pattern).unwrap();
            let text = format!("a{s}<{s}");
            proptest::prop_assert_eq!(contains_placeholder(&text), inside.is_match(&text), "{:?}", text);
        }
    }
}
