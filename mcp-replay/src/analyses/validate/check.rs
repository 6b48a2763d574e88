//! A small JSON Schema validator over `serde_json::Value`, for what the specification's
//! schema uses: `$ref` (to its `$defs`), `type`, `properties`, `required`,
//! `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `oneOf`, `allOf`, `minimum`,
//! `maximum`, `minItems`, `maxItems`, and the formats a client reads (`byte`: base64, `uri`:
//! a scheme). Other keywords are let through. Two passes: [`fits`] says whether a value
//! fits, allocating nothing; only a value that does not is walked again by [`misfit`], for
//! the path and the rule broken. Pure.

use super::schema::Schema;
use serde_json::{Map, Value};

/// Where a value does not fit, and the rule it breaks: the path's steps from the value
/// checked down (keys, indexes), innermost last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Misfit {
    pub(crate) steps: Vec<Step>,
    pub(crate) rule: String,
}

/// One step of a [`Misfit`]'s path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

impl Misfit {
    /// A misfit of the value checked itself.
    pub(crate) fn at(rule: impl Into<String>) -> Misfit {
        Misfit {
            steps: Vec::new(),
            rule: rule.into(),
        }
    }

    /// This misfit, found under `step`.
    fn under(mut self, step: Step) -> Misfit {
        self.steps.insert(0, step);
        self
    }

    /// The path as the findings write it, after `prefix` (`.result`).
    pub(crate) fn path(&self, prefix: &str) -> String {
        let mut path = prefix.to_owned();
        for step in &self.steps {
            match step {
                Step::Key(key) => crate::data::json::path::push_step(
                    &mut path,
                    crate::data::json::path::PathSegment::Key(key),
                ),
                Step::Index(i) => crate::data::json::path::push_step(
                    &mut path,
                    crate::data::json::path::PathSegment::Index(*i),
                ),
            }
        }
        crate::data::json::path::rendered_path(&path).to_owned()
    }
}

/// Does `value` fit `schema`?
pub(crate) fn fits(defs: &Schema, schema: &Value, value: &Value) -> bool {
    let Value::Object(schema) = schema else {
        // `true` fits everything, `false` nothing.
        return schema.as_bool().unwrap_or(true);
    };
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        match defs.resolve(reference) {
            Some(target) if !fits(defs, target, value) => return false,
            _ => {}
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        if !all.iter().all(|s| fits(defs, s, value)) {
            return false;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(any) = schema.get(key).and_then(Value::as_array) {
            if !any.iter().any(|s| fits(defs, s, value)) {
                return false;
            }
        }
    }
    local_rule(schema, value).is_none()
        && missing(schema, value).is_none()
        && members_fit(defs, schema, value)
}

/// The members of an object and the items of an array, under `schema`'s `properties`,
/// `additionalProperties` and `items`.
fn members_fit(defs: &Schema, schema: &Map<String, Value>, value: &Value) -> bool {
    match value {
        Value::Object(members) => members
            .iter()
            .all(|(key, member)| member_schema(schema, key).is_none_or(|s| fits(defs, s, member))),
        Value::Array(items) => schema
            .get("items")
            .is_none_or(|s| items.iter().all(|item| fits(defs, s, item))),
        _ => true,
    }
}

/// The schema a member `key` of an object is checked against: its `properties` entry,
/// else `additionalProperties`; `None`: anything goes.
fn member_schema<'s>(schema: &'s Map<String, Value>, key: &str) -> Option<&'s Value> {
    schema
        .get("properties")
        .and_then(|p| p.get(key))
        .or_else(|| schema.get("additionalProperties"))
}

/// The first rule of `schema` itself (not of its members, its references or its
/// alternatives, nor the members it requires: [`missing`]) that `value` breaks: its type,
/// const, enum, format, bounds.
fn local_rule(schema: &Map<String, Value>, value: &Value) -> Option<String> {
    if let Some(types) = schema.get("type") {
        if !type_fits(types, value) {
            return Some(format!("must be {}", type_words(types)));
        }
    }
    if let Some(constant) = schema.get("const") {
        if !crate::data::json::json_eq(constant, value) {
            return Some(format!("must be {constant}"));
        }
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        if !choices.iter().any(|c| crate::data::json::json_eq(c, value)) {
            let choices: Vec<String> = choices.iter().map(Value::to_string).collect();
            return Some(format!("must be one of {}", choices.join(", ")));
        }
    }
    if let (Some(format), Value::String(text)) =
        (schema.get("format").and_then(Value::as_str), value)
    {
        if let Some(rule) = format_rule(format, text) {
            return Some(rule);
        }
    }
    bound_rule(schema, value)
}

/// The first member `schema` requires that the object `value` does not have.
fn missing<'s>(schema: &'s Map<String, Value>, value: &Value) -> Option<&'s str> {
    let members = value.as_object()?;
    schema
        .get("required")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find(|key| !members.contains_key(*key))
}

/// `minimum`, `maximum` of a number, `minItems`, `maxItems` of an array.
fn bound_rule(schema: &Map<String, Value>, value: &Value) -> Option<String> {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    match value {
        Value::Number(n) => {
            let n = n.as_f64()?;
            if let Some(min) = bound("minimum").filter(|min| n < *min) {
                return Some(format!("must be at least {min}"));
            }
            if let Some(max) = bound("maximum").filter(|max| n > *max) {
                return Some(format!("must be at most {max}"));
            }
            None
        }
        Value::Array(items) => {
            let len = items.len() as f64;
            if let Some(min) = bound("minItems").filter(|min| len < *min) {
                return Some(format!("must have at least {min} items"));
            }
            if let Some(max) = bound("maxItems").filter(|max| len > *max) {
                return Some(format!("must have at most {max} items"));
            }
            None
        }
        _ => None,
    }
}

/// Whether a string breaks the format a client reads it by: `byte` (base64, RFC 4648,
/// which a client decodes) and `uri` (a scheme, `file:`, `https:`, which a client
/// resolves); the other formats are annotations.
fn format_rule(format: &str, text: &str) -> Option<String> {
    match format {
        "byte" => {
            let body = text.trim_end_matches('=');
            let base64 = text.len().is_multiple_of(4)
                && text.len() - body.len() <= 2
                && body
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
            (!base64).then(|| "must be base64 (format \"byte\")".to_owned())
        }
        "uri" => {
            let scheme = text.split_once(':').map(|(s, _)| s).unwrap_or_default();
            let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
            (!valid).then(|| "must be a URI with a scheme (format \"uri\")".to_owned())
        }
        _ => None,
    }
}

/// Does `value` have one of `types` (a name or a list of names)?
fn type_fits(types: &Value, value: &Value) -> bool {
    let one = |name: &str| match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        // JSON Schema: a number with no fraction, `1.0` too.
        "integer" => value
            .as_f64()
            .is_some_and(|n| n.fract() == 0.0 && n.is_finite()),
        _ => true,
    };
    match types {
        Value::String(name) => one(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(one),
        _ => true,
    }
}

/// `a string`, `an object or null`: what a `type` asks for, in words.
fn type_words(types: &Value) -> String {
    let word = |name: &str| match name {
        "object" | "array" | "integer" => format!("an {name}"),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    };
    match types {
        Value::String(name) => word(name),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .map(word)
            .collect::<Vec<_>>()
            .join(" or "),
        other => other.to_string(),
    }
}

/// Why `value`, which does not [`fit`](fits) `schema`, does not: the first misfit in the
/// order the schema's rules are read, the innermost one where a member or an item breaks
/// a rule. Of alternatives (`anyOf`, `oneOf`), the one whose constant members (a content
/// block's `"type": "image"`) the value has is explained; with none or several, that it
/// matches none of them.
pub(crate) fn misfit(defs: &Schema, schema: &Value, value: &Value) -> Option<Misfit> {
    let Value::Object(map) = schema else {
        return (!schema.as_bool().unwrap_or(true)).then(|| Misfit::at("is not allowed"));
    };
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| defs.resolve(r))
    {
        if let Some(found) = misfit(defs, target, value) {
            return Some(found);
        }
    }
    if let Some(all) = map.get("allOf").and_then(Value::as_array) {
        if let Some(found) = all.iter().find_map(|s| misfit(defs, s, value)) {
            return Some(found);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(any) = map.get(key).and_then(Value::as_array) {
            if !any.iter().any(|s| fits(defs, s, value)) {
                return Some(alternatives(defs, any, value));
            }
        }
    }
    if let Some(rule) = local_rule(map, value) {
        return Some(Misfit::at(rule));
    }
    // The members it has, in key order, then the ones it lacks (serde's order: the path
    // a reader stumbles on first).
    let inner = match value {
        Value::Object(members) => {
            crate::data::json::members(members)
                .into_iter()
                .find_map(|(key, member)| {
                    let s = member_schema(map, key)?;
                    Some(misfit(defs, s, member)?.under(Step::Key(key.clone())))
                })
        }
        Value::Array(items) => map.get("items").and_then(|s| {
            items
                .iter()
                .enumerate()
                .find_map(|(i, item)| Some(misfit(defs, s, item)?.under(Step::Index(i))))
        }),
        _ => None,
    };
    inner.or_else(|| {
        let key = missing(map, value)?;
        Some(Misfit::at("is required").under(Step::Key(key.to_owned())))
    })
}

/// Why `value` fits none of `alternatives`: the one whose constant members it has
/// explained, or the names of them all.
fn alternatives(defs: &Schema, alternatives: &[Value], value: &Value) -> Misfit {
    let resolved = |s: &'_ Value| -> Option<Value> {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => defs.resolve(r).cloned(),
            None => Some(s.clone()),
        }
    };
    let chosen: Vec<&Value> = alternatives
        .iter()
        .filter(|s| resolved(s).is_some_and(|s| constants_agree(&s, value)))
        .collect();
    if let [one] = chosen.as_slice() {
        if let Some(found) = misfit(defs, one, value) {
            return found;
        }
    }
    let names: Vec<String> = alternatives
        .iter()
        .map(|s| match s.get("$ref").and_then(Value::as_str) {
            Some(r) => r.trim_start_matches("#/$defs/").to_owned(),
            None => s.get("type").map_or("a schema".to_owned(), type_words),
        })
        .collect();
    Misfit::at(format!("matches none of {}", names.join(", ")))
}

/// Does `value` have every constant member `schema`'s properties name, with its value,
/// and at least one (the member that tells alternatives apart)?
fn constants_agree(schema: &Value, value: &Value) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    let mut any = false;
    for (key, property) in properties {
        if let Some(constant) = property.get("const") {
            if value.get(key) != Some(constant) {
                return false;
            }
            any = true;
        }
    }
    any
}

/// For a first misfit inside an item of a list member (`tools[1]...`) of an object
/// `value`: the first misfit of each other item of that list, with the item's own path
/// (`.tools[3]`), so that one finding says how many items a fix concerns.
pub(crate) fn other_items(
    defs: &Schema,
    schema: &Value,
    value: &Value,
    first: &Misfit,
) -> Vec<(String, Misfit)> {
    let [Step::Key(key), Step::Index(at), ..] = first.steps.as_slice() else {
        return Vec::new();
    };
    let mut object = schema;
    while let Some(target) = object
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| defs.resolve(r))
    {
        object = target;
    }
    let (Some(Value::Object(object)), Some(items)) = (
        Some(object),
        value.get(key.as_str()).and_then(Value::as_array),
    ) else {
        return Vec::new();
    };
    let Some(item_schema) = member_schema(object, key).and_then(|s| s.get("items")) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter(|(i, _)| i != at)
        .filter(|(_, item)| !fits(defs, item_schema, item))
        .filter_map(|(i, item)| {
            let mut prefix = String::new();
            crate::data::json::path::push_step(
                &mut prefix,
                crate::data::json::path::PathSegment::Key(key),
            );
            crate::data::json::path::push_step(
                &mut prefix,
                crate::data::json::path::PathSegment::Index(i),
            );
            Some((prefix, misfit(defs, item_schema, item)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn legacy() -> &'static Schema {
        Schema::of("2025-11-25").unwrap()
    }

    /// `(path from the value, rule)` of `value` against `schema`, `None` when it fits; the
    /// two passes agree.
    fn verdict(schema: Value, value: Value) -> Option<(String, String)> {
        let fits = fits(legacy(), &schema, &value);
        let found = misfit(legacy(), &schema, &value);
        assert_eq!(fits, found.is_none(), "the passes disagree on {value}");
        found.map(|m| (m.path(""), m.rule))
    }

    #[test]
    fn each_keyword_names_its_rule_at_its_path() {
        let object = json!({"type": "object", "required": ["a"],
            "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 9},
                           "b": {"enum": ["x", "y"]}, "c": {"const": "k"},
                           "d": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                           "e": {"type": ["string", "null"]}}});
        let cases = [
            (json!({"a": 1}), None),
            (json!({"a": 1.0}), None),
            (json!({"a": 1, "e": null, "z": [true]}), None),
            (json!(5), Some((".", "must be an object"))),
            (json!({}), Some((".a", "is required"))),
            (json!({"a": 1.5}), Some((".a", "must be an integer"))),
            (json!({"a": 10}), Some((".a", "must be at most 9"))),
            (json!({"a": -1}), Some((".a", "must be at least 0"))),
            (
                json!({"a": 1, "b": "z"}),
                Some((".b", r#"must be one of "x", "y""#)),
            ),
            (json!({"a": 1, "c": "q"}), Some((".c", r#"must be "k""#))),
            (
                json!({"a": 1, "d": ["s", 2]}),
                Some((".d[1]", "must be a string")),
            ),
            (
                json!({"a": 1, "d": ["", "", ""]}),
                Some((".d", "must have at most 2 items")),
            ),
            (
                json!({"a": 1, "e": 3}),
                Some((".e", "must be a string or null")),
            ),
            // A member it has before one it lacks, as serde read them.
            (json!({"b": 1}), Some((".b", r#"must be one of "x", "y""#))),
        ];
        for (value, want) in cases {
            let want = want.map(|(p, r)| (p.to_owned(), r.to_owned()));
            assert_eq!(verdict(object.clone(), value.clone()), want, "{value}");
        }
    }

    #[test]
    fn of_alternatives_the_one_its_constants_name_is_explained() {
        let block = json!({"$ref": "#/$defs/ContentBlock"});
        assert_eq!(
            verdict(block.clone(), json!({"type": "text", "text": "hi"})),
            None
        );
        assert_eq!(
            verdict(block.clone(), json!({"type": "image", "data": "AA=="})),
            Some((".mimeType".into(), "is required".into()))
        );
        let none = verdict(block, json!({"type": "video"})).unwrap();
        assert_eq!(none.0, ".");
        assert!(
            none.1
                .starts_with("matches none of TextContent, ImageContent"),
            "{none:?}"
        );
    }

    #[test]
    fn the_formats_a_client_reads_by_are_asserted() {
        let image = json!({"$ref": "#/$defs/ImageContent"});
        let image_of = |data: &str| json!({"type": "image", "mimeType": "image/png", "data": data});
        for good in ["", "AA==", "AAA=", "AAAA", "a+/9"] {
            assert_eq!(verdict(image.clone(), image_of(good)), None, "{good}");
        }
        for bad in ["A", "AA=", "A===", "AA AA", "AA*A"] {
            assert_eq!(
                verdict(image.clone(), image_of(bad)),
                Some((".data".into(), "must be base64 (format \"byte\")".into())),
                "{bad}"
            );
        }
        let link = json!({"$ref": "#/$defs/ResourceLink"});
        let link_of = |uri: &str| json!({"type": "resource_link", "name": "r", "uri": uri});
        for good in [
            "file:///x",
            "https://example.com/a",
            "demo://resource/1",
            "urn:isbn:1",
        ] {
            assert_eq!(verdict(link.clone(), link_of(good)), None, "{good}");
        }
        for bad in ["x", "/tmp/x", "1ab:x", ":x"] {
            assert_eq!(
                verdict(link.clone(), link_of(bad)),
                Some((
                    ".uri".into(),
                    "must be a URI with a scheme (format \"uri\")".into()
                )),
                "{bad}"
            );
        }
    }

    #[test]
    fn true_false_and_unknown_keywords() {
        assert_eq!(verdict(json!(true), json!({"x": 1})), None);
        assert_eq!(verdict(json!({}), json!([1, "a"])), None);
        assert_eq!(
            verdict(json!(false), json!(1)),
            Some((".".into(), "is not allowed".into()))
        );
        assert_eq!(verdict(json!({"pattern": "^a"}), json!("b")), None);
    }
}
