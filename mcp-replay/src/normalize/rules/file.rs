//! A rules file (`mcp-replay.rules.json`, `docs/normalization.md`) read into [`Rules`]:
//! each key checked, each mistake explained with the key and the item it is in.

use super::{switchable, Action, Rules, UserRule, RULES_FILE, RULES_VERSION};
use crate::data::contract::Class;
use crate::error::Error;
use crate::normalize::personal::{self, DenyList, Values};
use crate::normalize::selector::Selector;
use regex::Regex;
use serde_json::Value;
use std::path::Path;

impl Rules {
    /// Reads a rules file (see `docs/normalization.md`):
    ///
    /// ```json
    /// {"replace": [{"selector": ".result.content[].text", "with": "<TEXT>"}],
    ///  "regex": [{"selector": ".params.**.message", "pattern": "\\d+ ms", "with": "<DURATION>"}],
    ///  "remove": [".result._meta[\"x-trace\"]"],
    ///  "sort": [".result.tools"],
    ///  "unordered": ["notifications/message"],
    ///  "accept": ["cosmetic"],
    ///  "without": ["cache-hints"],
    ///  "version": 2}
    /// ```
    pub fn from_json(text: &str, source: &str) -> Result<Rules, Error> {
        rules_file(text, source).map_err(|message| Error::Rules {
            file: source.to_owned(),
            message,
        })
    }

    /// Reads `dir/mcp-replay.rules.json` if there is one.
    pub fn load_folder(dir: &Path) -> Result<Option<Rules>, Error> {
        let path = dir.join(RULES_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Rules::from_json(&text, &path.display().to_string()).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(format!("reading {}", path.display()), e)),
        }
    }
}

/// The rules file's `"accept"` list: contract class names.
fn accepted_classes(items: &[Value]) -> Result<Vec<Class>, String> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str().and_then(Class::parse).ok_or_else(|| {
                format!(
                    "accept[{i}] must be a contract class: \"cosmetic\", \"compatible\", \"unknown\" or \"breaking\", not {item}"
                )
            })
        })
        .collect()
}

/// The keys a rules file may have.
const KEYS: [&str; 14] = [
    "version",
    "replace",
    "regex",
    "remove",
    "sort",
    "unordered",
    "accept",
    "without",
    "bind",
    "pin",
    "jobs",
    "personal",
    "redact_values",
    "deny_values",
];

/// A rules file's text as rules, or what is wrong with it. The keys are read in a fixed
/// order, so that of two mistakes the same one is reported each time.
fn rules_file(text: &str, source: &str) -> Result<Rules, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let Value::Object(obj) = value else {
        return Err("a rules file is a JSON object".into());
    };
    if let Some(k) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown key {k:?}; valid keys: {}",
            KEYS.join(", ")
        ));
    }
    let mut rules = Rules::default();
    if let Some(v) = obj.get("version") {
        match v.as_u64() {
            Some(n) if (1..=RULES_VERSION).contains(&n) => rules = rules.version(n),
            _ => return Err(format!("\"version\" must be 1 to {RULES_VERSION}, not {v}")),
        }
    }
    rewriting_keys(&obj, &mut rules)?;
    rules.alone = runs_alone(obj.get("jobs"))?;
    binding_keys(&obj, &mut rules)?;
    rules = ordering_keys(&obj, rules)?;
    for class in accepted_classes(list(&obj, "accept")?)? {
        rules = rules.accept(class);
    }
    for (i, item) in list(&obj, "without")?.iter().enumerate() {
        let name = item
            .as_str()
            .ok_or_else(|| format!("without[{i}] must be a rule name string"))
            .and_then(|name| switchable(name).map_err(|e| format!("without[{i}]: {e}")))?;
        rules.base.turn_off(name);
    }
    personal_keys(&obj, &mut rules, source)?;
    Ok(rules)
}

/// The rules file's `"replace"`, `"regex"` and `"remove"`: user rules that rewrite a
/// message, applied in this order.
fn rewriting_keys(obj: &serde_json::Map<String, Value>, rules: &mut Rules) -> Result<(), String> {
    for (i, item) in list(obj, "replace")?.iter().enumerate() {
        rules.user.push(replace_rule(i, item)?);
    }
    for (i, item) in list(obj, "regex")?.iter().enumerate() {
        rules.user.push(regex_rule(i, item)?);
    }
    for (i, item) in list(obj, "remove")?.iter().enumerate() {
        let selector = item_selector("remove", i, Some(item))?;
        if let Some(why) = selector.why_not_removable() {
            return Err(format!("remove[{i}]: {why}"));
        }
        rules.user.push(UserRule {
            selector,
            action: Action::Remove,
        });
    }
    Ok(())
}

/// The rules file's `"bind"` and `"pin"`: the values a recording writes as minted by the
/// server, or as not.
fn binding_keys(obj: &serde_json::Map<String, Value>, rules: &mut Rules) -> Result<(), String> {
    for (i, item) in list(obj, "bind")?.iter().enumerate() {
        rules.bind.push(item_selector("bind", i, Some(item))?);
    }
    for (i, item) in list(obj, "pin")?.iter().enumerate() {
        rules.pin.push(item_selector("pin", i, Some(item))?);
    }
    Ok(())
}

/// `rules` with the rules file's `"sort"` (arrays whose order does not matter, sorted after
/// the other user rules) and `"unordered"` (methods whose messages may arrive anywhere).
fn ordering_keys(obj: &serde_json::Map<String, Value>, mut rules: Rules) -> Result<Rules, String> {
    for (i, item) in list(obj, "sort")?.iter().enumerate() {
        rules.user.push(UserRule {
            selector: item_selector("sort", i, Some(item))?,
            action: Action::Sort,
        });
    }
    for (i, item) in list(obj, "unordered")?.iter().enumerate() {
        let method = item
            .as_str()
            .ok_or_else(|| format!("unordered[{i}] must be a method name string"))?;
        rules = rules.unordered(method);
    }
    Ok(rules)
}

/// The rules file's `"personal"` (`{"without": [...], "patterns": [{"pattern", "kind"}],
/// "selectors": [{"selector", "kind"}]}`), `"redact_values"` and `"deny_values"` (a file
/// or a list of files, relative to the rules file's folder).
fn personal_keys(
    obj: &serde_json::Map<String, Value>,
    rules: &mut Rules,
    source: &str,
) -> Result<(), String> {
    let folder = Path::new(source).parent().unwrap_or(Path::new(""));
    if let Some(personal) = obj.get("personal") {
        let Value::Object(personal) = personal else {
            return Err(
                "\"personal\" must be an object with \"without\", \"patterns\" or \"selectors\""
                    .into(),
            );
        };
        if let Some(k) = personal
            .keys()
            .find(|k| !["without", "patterns", "selectors"].contains(&k.as_str()))
        {
            return Err(format!(
                "personal: unknown key {k:?}; valid keys: without, patterns, selectors"
            ));
        }
        for (i, item) in list(personal, "without")?.iter().enumerate() {
            let name = item
                .as_str()
                .filter(|name| personal::CATEGORIES.contains(name))
                .ok_or_else(|| {
                    format!(
                        "personal.without[{i}] must be a category: {}",
                        personal::CATEGORIES.join(", ")
                    )
                })?;
            rules.base.turn_off(switchable(name)?);
        }
        for (i, item) in list(personal, "patterns")?.iter().enumerate() {
            let kind = item_kind("personal.patterns", i, item)?;
            let pattern = item
                .get("pattern")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("personal.patterns[{i}] needs a \"pattern\" string"))?;
            let re = Regex::new(pattern)
                .map_err(|e| format!("personal.patterns[{i}]: invalid pattern: {e}"))?;
            rules.personal.patterns.push((re, kind));
        }
        for (i, item) in list(personal, "selectors")?.iter().enumerate() {
            let kind = item_kind("personal.selectors", i, item)?;
            let selector = item_selector("personal.selectors", i, item.get("selector"))?;
            rules.personal.selectors.push((selector, kind));
        }
    }
    for file in files(obj, "redact_values")? {
        let values = Values::load(&folder.join(file)).map_err(|e| format!("redact_values: {e}"))?;
        rules.personal.values.extend(&values);
    }
    for file in files(obj, "deny_values")? {
        let deny = DenyList::load(&folder.join(file)).map_err(|e| format!("deny_values: {e}"))?;
        rules.personal.deny.push(deny);
    }
    Ok(())
}

/// The `"kind"` of item `i` of `key`, as a placeholder name.
fn item_kind(key: &str, i: usize, item: &Value) -> Result<String, String> {
    item.get("kind")
        .and_then(Value::as_str)
        .and_then(personal::kind_name)
        .ok_or_else(|| {
            format!("{key}[{i}] needs a \"kind\": a name of letters, digits and _ (\"customer\")")
        })
}

/// The file, or list of files, under `key`.
fn files<'a>(obj: &'a serde_json::Map<String, Value>, key: &str) -> Result<Vec<&'a str>, String> {
    match obj.get(key) {
        None => Ok(Vec::new()),
        Some(Value::String(file)) => Ok(vec![file.as_str()]),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str()
                    .ok_or_else(|| format!("{key}[{i}] must be a file name string"))
            })
            .collect(),
        Some(other) => Err(format!(
            "{key:?} must be a file name or a list of them, not {other}"
        )),
    }
}

/// The rules file's `"jobs"`: only 1 (each fixture of the folder replays alone), or absent.
fn runs_alone(jobs: Option<&Value>) -> Result<bool, String> {
    match jobs {
        None => Ok(false),
        Some(v) if v.as_u64() == Some(1) => Ok(true),
        Some(v) => Err(format!(
            "\"jobs\" may only be 1 (each fixture of the folder replays alone), not {v}"
        )),
    }
}

/// The list under `key` (none when absent).
fn list<'a>(obj: &'a serde_json::Map<String, Value>, key: &str) -> Result<&'a [Value], String> {
    match obj.get(key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(format!("{key:?} must be a list, not {other}")),
    }
}

/// The selector of item `i` of the `key` list.
fn item_selector(key: &str, i: usize, text: Option<&Value>) -> Result<Selector, String> {
    let text = text
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{key}[{i}] needs a \"selector\" string"))?;
    Selector::parse(text).map_err(|e| format!("{key}[{i}]: {e}"))
}

/// `replace[i]`: `{"selector": ..., "with": VALUE}`.
fn replace_rule(i: usize, item: &Value) -> Result<UserRule, String> {
    let selector = item_selector("replace", i, item.get("selector"))?;
    let with = item
        .get("with")
        .cloned()
        .ok_or_else(|| format!("replace[{i}] needs \"with\", the value to put there"))?;
    Ok(UserRule {
        selector,
        action: Action::Replace(with),
    })
}

/// `regex[i]`: `{"selector": ..., "pattern": REGEX, "with": TEXT}`.
fn regex_rule(i: usize, item: &Value) -> Result<UserRule, String> {
    let selector = item_selector("regex", i, item.get("selector"))?;
    let pattern = item
        .get("pattern")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("regex[{i}] needs a \"pattern\" string"))?;
    let re = Regex::new(pattern).map_err(|e| format!("regex[{i}]: invalid pattern: {e}"))?;
    let with = item
        .get("with")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("regex[{i}] needs a \"with\" string"))?;
    Ok(UserRule {
        selector,
        action: Action::Regex(re, with.to_owned()),
    })
}
