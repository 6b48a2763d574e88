//! [`Rules`]: the versioned default normalization plus user rules by selector, set in code
//! for one test or in a rules file for a whole fixture folder.

use super::defaults::Defaults;
use super::general;
use super::paths::{Paths, FOLDER_PLACEHOLDERS};
use super::personal::{self, DenyList, Own, Scope, Table, Values};
use super::placeholder::is_placeholder;
use super::selector::Selector;
use crate::data::contract::Class;
use crate::data::json::write_canonical;
use regex::Regex;
use serde_json::Value;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

pub use super::defaults::{DEFAULT_RULES, RULES_VERSION, SWITCHABLE_RULES};

mod file;
#[cfg(test)]
mod tests;

/// The name of the rules file that applies to every fixture in its folder.
pub const RULES_FILE: &str = "mcp-replay.rules.json";

type ComputeFn = dyn Fn(&Value, &str) -> Value + Send + Sync;

#[derive(Clone)]
enum Action {
    Replace(Value),
    Compute(Arc<ComputeFn>),
    Regex(Regex, String),
    Remove,
    Sort,
}

#[derive(Clone)]
struct UserRule {
    selector: Selector,
    action: Action,
}

/// How server messages (and recorded client messages) are normalized before they are
/// compared or written.
///
/// [`Rules::default()`] holds the default rules (see `docs/normalization.md`); the
/// builder methods add user rules, applied after the defaults, in the order given, with
/// sorting last. Selectors use insta's syntax over the JSON-RPC message:
///
/// ```
/// use mcp_replay::Rules;
///
/// let rules = Rules::default()
///     .replace(".result.content[].text", "<TEXT>")             // pin to a fixed value
///     .regex(".params.**.message", r"\d+ ms", "<DURATION>")    // rewrite part of a string
///     .compute(".result.structuredContent.count", |v, _path| {  // computed
///         serde_json::json!(if v.as_u64().unwrap_or(0) > 0 { "<SOME>" } else { "<NONE>" })
///     })
///     .sort(".result.tools")                                   // order not guaranteed
///     .unordered("notifications/message");                     // may arrive in any order
/// ```
///
/// A builder method panics on an invalid selector or regex, with a message that points
/// at the offending character: rules are written by hand in test code.
#[derive(Clone)]
pub struct Rules {
    /// The default rules' version, the ones turned off, the folders of `paths`.
    base: Defaults,
    /// Are the default rules applied at all?
    defaults: bool,
    /// Was the version pinned ([`Rules::version`], a rules file's `"version"`)? Then
    /// [`merge`](Rules::merge) carries it over.
    pinned: bool,
    user: Vec<UserRule>,
    unordered: Vec<String>,
    accept: Vec<Class>,
    /// Where the server mints values (bound when a fixture is written, [`Rules::bind`]).
    bind: Vec<Selector>,
    /// Where it does not, whatever the client sends back ([`Rules::pin`]).
    pin: Vec<Selector>,
    /// A rules file's `"jobs": 1`: the folder's fixtures replay alone ([`Rules::runs_alone`]).
    alone: bool,
    /// The user's own personal data: values, patterns, selectors, deny lists.
    personal: Own,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            base: Defaults::new(Paths::of_this_machine(None)),
            defaults: true,
            pinned: false,
            user: Vec::new(),
            unordered: Vec::new(),
            accept: Vec::new(),
            bind: Vec::new(),
            pin: Vec::new(),
            alone: false,
            personal: Own::default(),
        }
    }
}

impl fmt::Debug for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let user: Vec<String> = self
            .user
            .iter()
            .map(|r| {
                let action = match &r.action {
                    Action::Replace(v) => format!("replace with {v}"),
                    Action::Compute(_) => "compute".into(),
                    Action::Regex(re, with) => format!("regex {:?} -> {with:?}", re.as_str()),
                    Action::Remove => "remove".into(),
                    Action::Sort => "sort".into(),
                };
                format!("{} {action}", r.selector.as_str())
            })
            .collect();
        f.debug_struct("Rules")
            .field("version", &self.base.version())
            .field("defaults", &self.defaults)
            .field("off", &self.base.off())
            .field("user", &user)
            .field("unordered", &self.unordered)
            .field(
                "bind",
                &self.bind.iter().map(Selector::as_str).collect::<Vec<_>>(),
            )
            .field(
                "pin",
                &self.pin.iter().map(Selector::as_str).collect::<Vec<_>>(),
            )
            .field("accept", &self.accept)
            .field("personal", &self.personal)
            .finish()
    }
}

fn selector(text: &str) -> Selector {
    Selector::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

impl Rules {
    /// Rules with no default rules at all: only what you add (ids are still labels).
    pub fn without_defaults() -> Rules {
        Rules {
            defaults: false,
            ..Rules::default()
        }
    }

    /// Pins the version of the default rules (1 up to [`RULES_VERSION`]): only the rules
    /// added up to that version apply ([`DEFAULT_RULES`] says which version added each).
    /// A fixture header's `"rules": N` wins over it.
    ///
    /// ```
    /// use mcp_replay::Rules;
    ///
    /// // `cacheScope` and `ttlMs` are compared again, as before version 2.
    /// let rules = Rules::default().version(1);
    /// assert_eq!(rules.rules_version(), 1);
    /// ```
    ///
    /// # Panics
    /// On an unknown version.
    pub fn version(mut self, version: u64) -> Rules {
        assert!(
            (1..=RULES_VERSION).contains(&version),
            "mcp-replay knows default rules versions 1 to {RULES_VERSION}, not {version}"
        );
        self.base.set_version(version);
        self.pinned = true;
        self
    }

    /// The version of the default rules in force.
    pub fn rules_version(&self) -> u64 {
        self.base.version()
    }

    /// Turns off one default rule, by its name in [`SWITCHABLE_RULES`]: `cache-hints`
    /// (compare `cacheScope` and `ttlMs` again, and give up passing in both eras),
    /// `resource-not-found-code`, `is-error-default` or `result-type-default`. The other
    /// default rules stay in force, at the version in force.
    ///
    /// ```
    /// use mcp_replay::Rules;
    ///
    /// let rules = Rules::default().without("cache-hints");
    /// assert!(!rules.applies("cache-hints") && rules.applies("resource-not-found-code"));
    /// ```
    ///
    /// # Panics
    /// On a name that is not in [`SWITCHABLE_RULES`].
    pub fn without(mut self, rule: &str) -> Rules {
        let name = switchable(rule).unwrap_or_else(|e| panic!("{e}"));
        self.base.turn_off(name);
        self
    }

    /// Does the default rule `rule` (a name in [`DEFAULT_RULES`]) apply: the defaults are
    /// on, the version in force has it, and it was not turned off with
    /// [`without`](Rules::without)?
    pub fn applies(&self, rule: &str) -> bool {
        self.defaults && self.base.in_force(rule)
    }

    /// Names the workspace root the `paths` rule replaces with `<WORKSPACE>`.
    pub fn workspace(mut self, root: impl AsRef<Path>) -> Rules {
        self.base.paths.add(root.as_ref(), "<WORKSPACE>");
        self
    }

    /// Marks where the server mints values the fixture cannot pin: when a fixture is
    /// written, each distinct string the selector matches in a server message becomes a
    /// bound placeholder (`<MINTED:n>`, everywhere it occurs), which a replay binds to the
    /// live value, whether or not the client sends it back (`docs/fixture-format.md`).
    /// `Rules::default().bind(".result.structuredContent.orderId")`.
    pub fn bind(mut self, selector_text: &str) -> Rules {
        self.bind.push(selector(selector_text));
        self
    }

    /// Keeps the values the selector matches as they are when a fixture is written, even
    /// where they look minted (the server sent them first and the client sent them back):
    /// they are pinned, and compared.
    pub fn pin(mut self, selector_text: &str) -> Rules {
        self.pin.push(selector(selector_text));
        self
    }

    /// The strings the [`bind`](Rules::bind) selectors match in the server's messages of
    /// an exchange, and those the [`pin`](Rules::pin) selectors match in any of them.
    pub(crate) fn minted_and_pinned(
        &self,
        messages: &[(crate::data::message::Direction, Value)],
    ) -> (Vec<String>, Vec<String>) {
        let (mut bound, mut pinned) = (Vec::new(), Vec::new());
        for (direction, message) in messages {
            let (b, p) = self.bound_and_pinned(message);
            if *direction == crate::data::message::Direction::ServerToClient {
                bound.extend(b);
            }
            pinned.extend(p);
        }
        (bound, pinned)
    }

    /// The strings the [`bind`](Rules::bind) and the [`pin`](Rules::pin) selectors match
    /// in `message`.
    fn bound_and_pinned(&self, message: &Value) -> (Vec<String>, Vec<String>) {
        let strings = |selectors: &[Selector]| {
            let mut out = Vec::new();
            let mut message = message.clone();
            for selector in selectors {
                selector.apply(&mut message, &mut |v, _| {
                    if let Value::String(s) = v {
                        out.push(s.clone());
                    }
                });
            }
            out
        };
        let bound = if self.bind.is_empty() {
            Vec::new()
        } else {
            strings(&self.bind)
        };
        let pinned = if self.pin.is_empty() {
            Vec::new()
        } else {
            strings(&self.pin)
        };
        (bound, pinned)
    }

    /// Replaces every value the selector matches with `value`.
    pub fn replace(mut self, selector_text: &str, value: impl Into<Value>) -> Rules {
        self.user.push(UserRule {
            selector: selector(selector_text),
            action: Action::Replace(value.into()),
        });
        self
    }

    /// Replaces every value the selector matches with what `f` computes from the value
    /// and its path (e.g. `.result.content[0].text`). Placeholders are left alone.
    pub fn compute(
        mut self,
        selector_text: &str,
        f: impl Fn(&Value, &str) -> Value + Send + Sync + 'static,
    ) -> Rules {
        self.user.push(UserRule {
            selector: selector(selector_text),
            action: Action::Compute(Arc::new(f)),
        });
        self
    }

    /// Rewrites the string values the selector matches: every match of `pattern` becomes
    /// `replacement` (`$1` names a group). Placeholders are left alone.
    pub fn regex(mut self, selector_text: &str, pattern: &str, replacement: &str) -> Rules {
        let re = Regex::new(pattern)
            .unwrap_or_else(|e| panic!("invalid regex for selector {selector_text}: {e}"));
        self.user.push(UserRule {
            selector: selector(selector_text),
            action: Action::Regex(re, replacement.to_owned()),
        });
        self
    }

    /// Deletes every object member and array element the selector matches: for a field
    /// that says nothing about the server under test, where a placeholder would still pin
    /// that it is there. `.result._meta["x-trace"]` removes one key; `.result.items[]`
    /// every element of a list (the list stays, empty). Nothing below a deleted member is
    /// looked at; the message's `jsonrpc`, `id` and `method` stay, as for every user rule.
    ///
    /// ```
    /// use mcp_replay::Rules;
    ///
    /// let rules = Rules::default().remove(".result.debug, .result.content[].annotations");
    /// ```
    ///
    /// # Panics
    /// On an invalid selector, and on one whose last step is one array element (`[0]`) or
    /// a range with an end (`[0:2]`): removing it again would remove the next one, and a
    /// rule must be idempotent. `[]` (every element) and `[2:]` (from 2 on) are fine.
    pub fn remove(mut self, selector_text: &str) -> Rules {
        let selector = selector(selector_text);
        if let Some(why) = selector.why_not_removable() {
            panic!("{why}");
        }
        self.user.push(UserRule {
            selector,
            action: Action::Remove,
        });
        self
    }

    /// Sorts the arrays the selector matches (by their elements' canonical JSON), for
    /// lists whose order the server does not guarantee.
    pub fn sort(mut self, selector_text: &str) -> Rules {
        self.user.push(UserRule {
            selector: selector(selector_text),
            action: Action::Sort,
        });
        self
    }

    /// Writes each distinct string the selector matches as `<KIND:n>` when a fixture is
    /// written or a server message replayed (numbered by first occurrence in the fixture;
    /// `kind` is upper-cased: `name` gives `<NAME:1>`): personal data of a shape no
    /// category knows, in a field you can name.
    ///
    /// ```
    /// use mcp_replay::Rules;
    ///
    /// let rules = Rules::default().pseudonymize(".result.structuredContent.customer", "customer");
    /// ```
    ///
    /// # Panics
    /// On an invalid selector, and on a kind that is not a name (letters, digits, `_`).
    pub fn pseudonymize(mut self, selector_text: &str, kind: &str) -> Rules {
        let kind = kind_or_panic(kind);
        self.personal
            .selectors
            .push((selector(selector_text), kind));
        self
    }

    /// Writes every match of `pattern` inside any string as `<KIND:n>`, the same value as
    /// the same placeholder (numbered by first occurrence in the fixture).
    ///
    /// ```
    /// use mcp_replay::Rules;
    ///
    /// // Employee numbers such as `EMP-004211`.
    /// let rules = Rules::default().pseudonymize_pattern(r"\bEMP-\d{6}\b", "employee");
    /// ```
    ///
    /// # Panics
    /// On an invalid pattern, and on a kind that is not a name.
    pub fn pseudonymize_pattern(mut self, pattern: &str, kind: &str) -> Rules {
        let kind = kind_or_panic(kind);
        let re =
            Regex::new(pattern).unwrap_or_else(|e| panic!("invalid pattern for kind {kind}: {e}"));
        self.personal.patterns.push((re, kind));
        self
    }

    /// Writes `value` as `<KIND:n>` wherever it occurs, inside strings too and in any case
    /// (a customer's name, an internal host name).
    ///
    /// ```
    /// use mcp_replay::Rules;
    ///
    /// let rules = Rules::default().redact_value("customer", "Acme Corporation");
    /// ```
    ///
    /// # Panics
    /// On a kind that is not a name.
    pub fn redact_value(mut self, kind: &str, value: &str) -> Rules {
        let kind = kind_or_panic(kind);
        self.personal.values.add(&kind, value);
        self
    }

    /// Adds the values of a values file ([`Values`]: one a line, `[kind]` headers, `#`
    /// comments), each written as `<KIND:n>` wherever it occurs.
    pub fn redact_values(mut self, values: &Values) -> Rules {
        self.personal.values.extend(values);
        self
    }

    /// Checks every fixture replayed with these rules against a deny list: one that holds
    /// a listed value, in any case, percent-encoded or `\u`-escaped, fails, naming the line
    /// and JSON path, never the value.
    pub fn deny_values(mut self, deny: DenyList) -> Rules {
        self.personal.deny.push(deny);
        self
    }

    /// The values of the deny lists ([`deny_values`](Rules::deny_values)) that the fixture
    /// text `text` holds (none without deny lists).
    pub fn denied(&self, text: &str) -> Vec<personal::Denied> {
        self.personal
            .deny
            .iter()
            .flat_map(|deny| deny.check(text))
            .collect()
    }

    /// Are there deny lists ([`deny_values`](Rules::deny_values))?
    pub fn has_deny_lists(&self) -> bool {
        !self.personal.deny.is_empty()
    }

    /// What the personal data pass rewrites under these rules.
    pub(crate) fn personal_scope(&self) -> Scope<'_> {
        let on = personal::categories_on(|name| self.applies(name));
        Scope {
            on,
            own: &self.personal,
        }
    }

    /// Writes the personal data of an exchange, in order, as pseudonyms (one [`Table`] for
    /// the whole fixture), after its ids, values and minted handles were labelled.
    pub(crate) fn pseudonymize_exchange(
        &self,
        messages: &mut [(crate::data::message::Direction, Value)],
    ) {
        let scope = self.personal_scope();
        if scope.is_empty() {
            return;
        }
        let mut table = Table::default();
        for (_, message) in messages {
            table.apply(message, scope, true);
        }
    }

    /// `text` with its personal data written as pseudonyms, as a message's string would be,
    /// numbered on its own (a bound value's synthetic shape, never compared with the
    /// session's messages).
    pub(crate) fn pseudonymized(&self, text: String) -> String {
        let scope = self.personal_scope();
        if scope.is_empty() {
            return text;
        }
        let mut value = Value::String(text);
        Table::default().apply(&mut value, scope, true);
        match value {
            Value::String(text) => text,
            _ => unreachable!("the pass rewrites a string's text only"),
        }
    }

    /// Lets notifications (or server requests) of `method` arrive anywhere in the session,
    /// in any order; everything else keeps the order the server promises.
    pub fn unordered(mut self, method: &str) -> Rules {
        if !self.unordered.iter().any(|m| m == method) {
            self.unordered.push(method.to_owned());
        }
        self
    }

    /// Is the order of `method`'s messages free?
    pub fn is_unordered(&self, method: &str) -> bool {
        self.unordered.iter().any(|m| m == method)
    }

    /// Lets contract changes of `class` through: a changed `tools/list` (or other
    /// [`CONTRACT_METHODS`](crate::analyses::contract::CONTRACT_METHODS)) result all of whose
    /// changes are in accepted classes is not a finding (`docs/contract.md`).
    /// `Rules::default().accept(Class::Cosmetic)` lets a description edit pass.
    pub fn accept(mut self, class: Class) -> Rules {
        if !self.accept.contains(&class) {
            self.accept.push(class);
        }
        self
    }

    /// Are contract changes of `class` let through ([`accept`](Rules::accept))?
    pub fn accepts(&self, class: Class) -> bool {
        self.accept.contains(&class)
    }

    /// Adds `other`'s user rules, unordered methods, accepted classes and default rules
    /// turned off after these (a folder's rules file, then a test's own rules); a version
    /// `other` pins replaces this one.
    pub fn merge(mut self, other: &Rules) -> Rules {
        if other.pinned {
            self.base.set_version(other.base.version());
            self.pinned = true;
        }
        for &name in other.base.off() {
            self.base.turn_off(name);
        }
        self.user.extend(other.user.iter().cloned());
        for m in &other.unordered {
            self = self.unordered(m);
        }
        for &class in &other.accept {
            self = self.accept(class);
        }
        self.bind.extend(other.bind.iter().cloned());
        self.pin.extend(other.pin.iter().cloned());
        self.alone |= other.alone;
        self.personal.extend(&other.personal);
        self
    }

    /// Did a rules file say `"jobs": 1`? Then `mcp-replay replay -j N` replays each fixture
    /// of its folder alone, as it does one whose header says `"solo": true`: for a server
    /// that cannot take parallel sessions (a shared state file, a fixed port). It changes
    /// nothing else; normalization and comparison do not read it.
    pub fn runs_alone(&self) -> bool {
        self.alone
    }

    /// These rules as a fixture's header shapes them: at the version it pins (`"rules": N`,
    /// what it was written with; `None`: as they are), which wins over any other, with its
    /// `"bind"` and `"pin"` selectors added, and its `"sort"` ones. Through [`Rules::for_fixture`], in
    /// `fixture.rs`: the one place the header meets the rules.
    pub(crate) fn as_pinned<'a>(
        &self,
        version: Option<u64>,
        bind: &'a [String],
        pin: &'a [String],
        sort: &'a [String],
    ) -> std::borrow::Cow<'_, Rules> {
        let mut rules = std::borrow::Cow::Borrowed(self);
        if let Some(version) = version.filter(|v| *v != self.base.version()) {
            rules = std::borrow::Cow::Owned(self.clone().version(version));
        }
        if !bind.is_empty() || !pin.is_empty() {
            let owned = rules.to_mut();
            owned.bind.extend(bind.iter().map(|s| selector(s)));
            owned.pin.extend(pin.iter().map(|s| selector(s)));
        }
        for text in sort {
            let owned = rules.to_mut();
            owned.user.push(UserRule {
                selector: selector(text),
                action: Action::Sort,
            });
        }
        rules
    }

    /// Normalizes a message the server sent (or a fixture's expected server message).
    pub fn normalize_server(&self, message: &mut Value) {
        if self.defaults {
            general::normalize_server(message, &self.base);
        }
        self.apply_user(message);
    }

    /// Normalizes a client message being recorded or imported.
    pub fn normalize_client(&self, message: &mut Value) {
        if self.defaults {
            general::normalize_client(message, &self.base);
        }
        self.apply_user(message);
    }

    /// Writes the folder placeholders of a client message (`<WORKSPACE>`, `<HOME>`, `<TMP>`)
    /// back as this machine's folders before it is sent: a client that answered
    /// `roots/list` with `file:///tmp/project` recorded `file://<TMP>/project`, and the
    /// server under test must get a real path.
    pub(crate) fn expand_paths(&self, message: &mut Value) {
        match message {
            Value::String(s) => {
                if let std::borrow::Cow::Owned(expanded) = self.base.paths.expand(s) {
                    *s = expanded;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.expand_paths(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.expand_paths(v)),
            _ => {}
        }
    }

    /// A recorded server message as a client under test gets it: the placeholders the
    /// default rules write (`<TIMESTAMP>`, `<UUID>`, the folders, ...) become fixed values
    /// of their shape ([`SERVED_VALUES`](super::defaults::SERVED_VALUES)), which the same
    /// rules normalize back when the client sends them again. Nothing changes without the
    /// default rules.
    pub(crate) fn concretize(&self, message: &mut Value) {
        if self.defaults {
            general::concretize(message, &self.base.paths);
        }
    }

    /// The folders the placeholders of `text` stand for here, as `(placeholder, folder)`:
    /// what the trace and the report show of a client message [`expand_paths`] rewrote.
    ///
    /// [`expand_paths`]: Rules::expand_paths
    pub(crate) fn folders_in<'a>(
        &'a self,
        text: &'a str,
    ) -> impl Iterator<Item = (&'static str, &'a str)> {
        FOLDER_PLACEHOLDERS
            .into_iter()
            .filter(|placeholder| text.contains(placeholder))
            .filter_map(|placeholder| Some((placeholder, self.base.paths.folder(placeholder)?)))
    }

    /// For the replay's fast path: `Some(defaults)` when only the default rules apply
    /// (`Some(None)` when none do), `None` when there are rules of the user's.
    pub(crate) fn defaults_only(&self) -> Option<Option<Defaults>> {
        (self.user.is_empty() && self.personal.rewrites_nothing())
            .then(|| self.defaults.then(|| self.base.clone()))
    }

    fn apply_user(&self, message: &mut Value) {
        if self.user.is_empty() {
            return;
        }
        // The envelope is the protocol's, not data: no user rule may change it.
        let envelope: Vec<(&str, Value)> = ["jsonrpc", "id", "method"]
            .into_iter()
            .filter_map(|k| Some((k, message.get(k)?.clone())))
            .collect();
        self.apply_user_rules(message);
        if let Some(obj) = message.as_object_mut() {
            for (k, v) in envelope {
                obj.insert(k.to_owned(), v);
            }
        }
    }

    fn apply_user_rules(&self, message: &mut Value) {
        for rule in self
            .user
            .iter()
            .filter(|r| !matches!(r.action, Action::Sort))
        {
            if let Action::Replace(with) = &rule.action {
                // The value put in place is final: walking into it could match forever
                // (`.**` replaced with `{"a": [1]}`).
                rule.selector
                    .apply_outermost(message, &mut |v: &mut Value, _: &str| *v = with.clone());
                continue;
            }
            if let Action::Remove = rule.action {
                rule.selector.remove(message);
                continue;
            }
            rule.selector.apply(
                message,
                &mut |v: &mut Value, path: &str| match &rule.action {
                    Action::Replace(_) | Action::Remove => unreachable!("handled above"),
                    Action::Compute(f) => {
                        if !v.as_str().is_some_and(is_placeholder) {
                            *v = f(v, path);
                        }
                    }
                    Action::Regex(re, with) => {
                        if let Value::String(s) = v {
                            if !is_placeholder(s) {
                                if let std::borrow::Cow::Owned(new) =
                                    re.replace_all(s, with.as_str())
                                {
                                    *s = new;
                                }
                            }
                        }
                    }
                    Action::Sort => {}
                },
            );
        }
        for rule in self
            .user
            .iter()
            .filter(|r| matches!(r.action, Action::Sort))
        {
            rule.selector
                .apply(message, &mut |v: &mut Value, _: &str| match v {
                    Value::Array(items) => sort_items(items),
                    // A text that holds a JSON document (pmcp's typed tools answer so, and
                    // many tools repeat their structured answer as a JSON text): every list
                    // inside it sorted, written back in the canonical form.
                    Value::String(text) => {
                        if let Some(sorted) = sorted_json_text(text) {
                            *text = sorted;
                        }
                    }
                    _ => {}
                });
        }
    }
}

/// Sorts `items` by their elements' canonical JSON.
fn sort_items(items: &mut [Value]) {
    items.sort_by_cached_key(|item| {
        let mut key = String::new();
        write_canonical(&mut key, item);
        key
    });
}

/// `text`, when it holds a JSON object or array, with every list inside it sorted
/// ([`sort_items`]), in the canonical form; `None` when it holds no such document.
pub(crate) fn sorted_json_text(text: &str) -> Option<String> {
    let start = text.trim_start().as_bytes().first()?;
    if !matches!(start, b'{' | b'[') {
        return None;
    }
    let mut document: Value = serde_json::from_str(text).ok()?;
    sort_deep(&mut document);
    let mut out = String::with_capacity(text.len());
    write_canonical(&mut out, &document);
    Some(out)
}

/// Every list in `value` sorted, innermost first.
fn sort_deep(value: &mut Value) {
    match value {
        Value::Array(items) => {
            items.iter_mut().for_each(sort_deep);
            sort_items(items);
        }
        Value::Object(map) => map.values_mut().for_each(sort_deep),
        _ => {}
    }
}

/// `kind` as a placeholder name (`customer` is `CUSTOMER`), or a panic saying why not.
fn kind_or_panic(kind: &str) -> String {
    personal::kind_name(kind).unwrap_or_else(|| {
        panic!("the kind {kind:?} is not a name: letters, digits and _, starting with a letter")
    })
}

/// The name of a default rule that may be turned off, or why `rule` is not one.
fn switchable(rule: &str) -> Result<&'static str, String> {
    SWITCHABLE_RULES
        .into_iter()
        .find(|name| *name == rule)
        .ok_or_else(|| {
            let what = if DEFAULT_RULES.iter().any(|(name, _, _)| *name == rule) {
                format!("the default rule {rule:?} cannot be turned off")
            } else {
                format!("there is no default rule {rule:?}")
            };
            format!(
                "{what}; the ones that can be turned off: {}",
                SWITCHABLE_RULES.join(", ")
            )
        })
}
