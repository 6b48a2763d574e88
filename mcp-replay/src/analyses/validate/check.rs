//! A small JSON Schema validator over `serde_json::Value`, for what the specification's
//! schema uses: `$ref` (to its `$defs`), `type`, `properties`, `required`,
//! `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `oneOf`, `allOf`, `minimum`,
//! `maximum`, `minItems`, `maxItems`, and the formats a client reads (`byte`: base64, `uri`:
//! a scheme). Other keywords are let through. A schema is compiled once into a [`Node`]
//! (`compile`), whose rules are fields, not map lookups. Two passes: [`fits`] says whether
//! a value fits, allocating nothing; only a value that does not is walked again by
//! [`misfit`], for the path and the rule broken. Pure.

use crate::data::json::{Shape, Tree};
use serde_json::Value;
use std::sync::OnceLock;

/// Where a `$ref` is resolved: the definitions of one revision (`schema::Schema`), each
/// compiled at its first use.
pub(crate) trait Defs {
    /// The position of the definition named `name`; `None` for a name the revision lacks.
    fn index(&self, name: &str) -> Option<usize>;

    /// The definition at `at` (an [`Defs::index`]), compiled.
    fn node_at(&self, at: usize) -> &Node;

    /// The definition named `name`, compiled.
    fn node(&self, name: &str) -> Option<&Node> {
        Some(self.node_at(self.index(name)?))
    }
}

/// A schema, compiled.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// `false`: nothing fits.
    never: bool,
    /// `$ref`: the name of the definition (`#/$defs/NAME`).
    reference: Option<String>,
    /// Its position among the definitions, found at the first value that meets it (a node
    /// is only ever checked against the definitions it was compiled from).
    resolved: OnceLock<Option<usize>>,
    all_of: Vec<Node>,
    /// `anyOf` and `oneOf` alike: one of them must fit (the specification's schema has
    /// no alternatives that overlap).
    any_of: Vec<Node>,
    /// `type`: the JSON types allowed (`Types`), none when any is.
    types: Types,
    constant: Option<Value>,
    choices: Option<Vec<Value>>,
    format: Format,
    minimum: Option<f64>,
    maximum: Option<f64>,
    min_items: Option<usize>,
    max_items: Option<usize>,
    required: Vec<String>,
    /// `properties`, sorted by key.
    properties: Vec<(String, Node)>,
    /// `additionalProperties`; `None`: anything.
    additional: Option<Box<Node>>,
    items: Option<Box<Node>>,
}

/// The JSON types a `type` allows, as bits ([`Types::ANY`]: no `type`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Types(u8);

impl Types {
    const ANY: Types = Types(0);
    const NAMES: [&'static str; 7] = [
        "object", "array", "string", "boolean", "null", "number", "integer",
    ];

    fn of(value: &Value) -> Types {
        let names: Vec<&str> = match value {
            Value::String(name) => vec![name],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => return Types::ANY,
        };
        Types(
            names
                .iter()
                .filter_map(|n| Types::NAMES.iter().position(|k| k == n))
                .fold(0, |bits, i| bits | 1 << i),
        )
    }

    fn allows<T: Tree>(self, value: &T) -> bool {
        if self == Types::ANY {
            return true;
        }
        let has = |i: usize| self.0 & (1 << i) != 0;
        match value.shape() {
            Shape::Object(_) => has(0),
            Shape::Array(_) => has(1),
            Shape::String(_) => has(2),
            Shape::Bool(_) => has(3),
            Shape::Null => has(4),
            // JSON Schema: an integer is a number with no fraction, `1.0` too.
            Shape::Number(n) => has(5) || (has(6) && n.as_f64().is_some_and(|n| n.fract() == 0.0)),
        }
    }

    /// `a string`, `an object or null`: what it asks for, in words.
    fn words(self) -> String {
        let word = |name: &str| match name {
            "object" | "array" | "integer" => format!("an {name}"),
            "null" => "null".to_owned(),
            other => format!("a {other}"),
        };
        Types::NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, name)| word(name))
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

/// A `format` the validator asserts.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Format {
    #[default]
    Annotation,
    /// Base64 (RFC 4648), which a client decodes.
    Byte,
    /// A URI with a scheme, which a client resolves.
    Uri,
}

/// A schema as the data writes it: the keywords the validator reads, every other one
/// skipped by serde. Boolean schemas are written as objects by `scripts/compact-schema.py`
/// (`true` as `{}`, `false` as `{"not": {}}`).
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct Raw {
    #[serde(rename = "$ref")]
    reference: Option<String>,
    #[serde(rename = "allOf")]
    all_of: Vec<Raw>,
    #[serde(rename = "anyOf")]
    any_of: Vec<Raw>,
    #[serde(rename = "oneOf")]
    one_of: Vec<Raw>,
    not: Option<Box<Raw>>,
    #[serde(rename = "type")]
    types: Option<Value>,
    #[serde(rename = "const")]
    constant: Option<Value>,
    #[serde(rename = "enum")]
    choices: Option<Vec<Value>>,
    format: Option<String>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    #[serde(rename = "minItems")]
    min_items: Option<usize>,
    #[serde(rename = "maxItems")]
    max_items: Option<usize>,
    required: Vec<String>,
    #[serde(deserialize_with = "members")]
    properties: Vec<(String, Raw)>,
    #[serde(rename = "additionalProperties")]
    additional: Option<Box<Raw>>,
    items: Option<Box<Raw>>,
}

/// An object's members in the order they come, as pairs.
fn members<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(String, Raw)>, D::Error> {
    struct Members;
    impl<'de> serde::de::Visitor<'de> for Members {
        type Value = Vec<(String, Raw)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of schemas")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(map.size_hint().unwrap_or(4));
            while let Some(member) = map.next_entry()? {
                out.push(member);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Members)
}

impl From<Raw> for Node {
    fn from(raw: Raw) -> Node {
        let nodes = |all: Vec<Raw>| all.into_iter().map(Node::from).collect::<Vec<_>>();
        let mut any_of = nodes(raw.any_of);
        any_of.extend(nodes(raw.one_of));
        let mut properties: Vec<(String, Node)> = raw
            .properties
            .into_iter()
            .map(|(k, s)| (k, Node::from(s)))
            .collect();
        properties.sort_by(|a, b| a.0.cmp(&b.0));
        Node {
            // `not` of the empty schema: nothing fits (the only `not` the data holds).
            never: raw.not.is_some(),
            reference: raw
                .reference
                .and_then(|r| r.strip_prefix("#/$defs/").map(str::to_owned)),
            resolved: OnceLock::new(),
            all_of: nodes(raw.all_of),
            any_of,
            types: raw.types.as_ref().map_or(Types::ANY, Types::of),
            constant: raw.constant,
            choices: raw.choices,
            format: match raw.format.as_deref() {
                Some("byte") => Format::Byte,
                Some("uri") => Format::Uri,
                _ => Format::Annotation,
            },
            minimum: raw.minimum,
            maximum: raw.maximum,
            min_items: raw.min_items,
            max_items: raw.max_items,
            required: raw.required,
            properties,
            additional: raw.additional.map(|s| Box::new(Node::from(*s))),
            items: raw.items.map(|s| Box::new(Node::from(*s))),
        }
    }
}

/// Compiles the compact text of a schema (`scripts/compact-schema.py`): its rules as
/// fields, its subschemas compiled too; a `$ref` stays a name, resolved when a value meets
/// it. Read straight into the keywords the validator knows, no `Value` on the way.
pub(crate) fn compile_text(text: &str) -> Result<Node, serde_json::Error> {
    serde_json::from_str::<Raw>(text).map(Node::from)
}

/// [`compile_text`] of a schema as a value (`true` and `false` too).
#[cfg(test)]
pub(crate) fn compile(schema: &Value) -> Node {
    match schema {
        Value::Bool(true) => Node::default(),
        Value::Bool(false) => Node {
            never: true,
            ..Node::default()
        },
        _ => compile_text(&schema.to_string()).expect("a schema"),
    }
}

impl Node {
    /// The definition its `$ref` names, if it has one the definitions hold.
    fn target<'d>(&self, defs: &'d dyn Defs) -> Option<&'d Node> {
        let name = self.reference.as_deref()?;
        let at = (*self.resolved.get_or_init(|| defs.index(name)))?;
        Some(defs.node_at(at))
    }

    /// Its `properties` entry for `key`, if it names one.
    pub(crate) fn property(&self, key: &str) -> Option<&Node> {
        let at = self
            .properties
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()?;
        Some(&self.properties[at].1)
    }

    /// The names of the definitions its alternatives (`anyOf`, `oneOf`) refer to.
    pub(crate) fn alternatives(&self) -> impl Iterator<Item = &str> {
        self.any_of.iter().filter_map(|n| n.reference.as_deref())
    }

    /// Of its alternatives, the one that refers to definition `name` (`wanted`), or the
    /// one that does not (`!wanted`); itself when it has none such.
    pub(crate) fn alternative(&self, name: &str, wanted: bool) -> &Node {
        let named = |n: &&Node| n.reference.as_deref() == Some(name);
        if !self.any_of.iter().any(|n| named(&n)) {
            return self;
        }
        self.any_of
            .iter()
            .find(|n| named(n) == wanted)
            .unwrap_or(self)
    }

    /// The schema a member `key` of an object is checked against: its `properties` entry,
    /// else `additionalProperties`; `None`: anything goes.
    fn member(&self, key: &str) -> Option<&Node> {
        match self
            .properties
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
        {
            Ok(at) => Some(&self.properties[at].1),
            Err(_) => self.additional.as_deref(),
        }
    }

    /// The first member it requires that the object `value` does not have.
    fn missing<T: Tree>(&self, value: &T) -> Option<&str> {
        if self.required.is_empty() || !matches!(value.shape(), Shape::Object(_)) {
            return None;
        }
        self.required
            .iter()
            .find(|key| get(value, key).is_none())
            .map(String::as_str)
    }

    /// The first rule of its own (not of its members, its reference or its alternatives,
    /// nor the members it requires: [`Node::missing`]) that `value` breaks: its type,
    /// const, enum, format, bounds.
    fn local_rule<T: Tree>(&self, value: &T) -> Option<String> {
        if !self.types.allows(value) {
            return Some(format!("must be {}", self.types.words()));
        }
        if let Some(constant) = &self.constant {
            if !equals(value, constant) {
                return Some(format!("must be {constant}"));
            }
        }
        if let Some(choices) = &self.choices {
            if !choices.iter().any(|c| equals(value, c)) {
                let choices: Vec<String> = choices.iter().map(Value::to_string).collect();
                return Some(format!("must be one of {}", choices.join(", ")));
            }
        }
        if let Shape::String(text) = value.shape() {
            if let Some(rule) = format_rule(self.format, text) {
                return Some(rule);
            }
        }
        self.bound_rule(value)
    }

    /// `minimum`, `maximum` of a number, `minItems`, `maxItems` of an array.
    fn bound_rule<T: Tree>(&self, value: &T) -> Option<String> {
        match value.shape() {
            Shape::Number(n) => {
                let n = n.as_f64()?;
                if let Some(min) = self.minimum.filter(|min| n < *min) {
                    return Some(format!("must be at least {min}"));
                }
                let max = self.maximum.filter(|max| n > *max)?;
                Some(format!("must be at most {max}"))
            }
            Shape::Array(items) => {
                if let Some(min) = self.min_items.filter(|min| items.len() < *min) {
                    return Some(format!("must have at least {min} items"));
                }
                let max = self.max_items.filter(|max| items.len() > *max)?;
                Some(format!("must have at most {max} items"))
            }
            _ => None,
        }
    }

    /// Does `value` have every constant member its properties name, with its value, and
    /// at least one (the member that tells alternatives apart)?
    fn constants_agree<T: Tree>(&self, defs: &dyn Defs, value: &T) -> bool {
        if let Some(target) = self.target(defs) {
            return target.constants_agree(defs, value);
        }
        let mut any = false;
        for (key, property) in &self.properties {
            if let Some(constant) = &property.constant {
                if !get(value, key).is_some_and(|member| equals(member, constant)) {
                    return false;
                }
                any = true;
            }
        }
        any
    }

    /// What it is called in a list of alternatives: its definition's name, else its type.
    fn name(&self) -> String {
        match &self.reference {
            Some(name) => name.clone(),
            None if self.types != Types::ANY => self.types.words(),
            None => "a schema".to_owned(),
        }
    }
}

/// Whether a string breaks `format`: `byte` (base64, RFC 4648) and `uri` (a scheme,
/// `file:`, `https:`); the other formats are annotations.
fn format_rule(format: Format, text: &str) -> Option<String> {
    match format {
        Format::Annotation => None,
        Format::Byte => {
            let body = text.trim_end_matches('=');
            let base64 = text.len().is_multiple_of(4)
                && text.len() - body.len() <= 2
                && body
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
            (!base64).then(|| "must be base64 (format \"byte\")".to_owned())
        }
        Format::Uri => {
            let scheme = text.split_once(':').map(|(s, _)| s).unwrap_or_default();
            let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
            (!valid).then(|| "must be a URI with a scheme (format \"uri\")".to_owned())
        }
    }
}

/// The member `key` of `value`, an object.
pub(crate) fn get<'a, T: Tree>(value: &'a T, key: &str) -> Option<&'a T> {
    match value.shape() {
        Shape::Object(mut members) => members.find(|(k, _)| *k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// Is `value` the JSON value `constant`, as fixtures mean equality (numbers by value)?
fn equals<T: Tree>(value: &T, constant: &Value) -> bool {
    match (value.shape(), constant) {
        (Shape::Null, Value::Null) => true,
        (Shape::Bool(a), Value::Bool(b)) => a == *b,
        (Shape::Number(a), Value::Number(b)) => {
            crate::data::json::json_eq(&Value::Number(a.clone()), &Value::Number(b.clone()))
        }
        (Shape::String(a), Value::String(b)) => a == b,
        (Shape::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equals(x, y))
        }
        (Shape::Object(a), Value::Object(b)) => {
            let a: Vec<(&str, &T)> = a.collect();
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(*k).is_some_and(|w| equals(*v, w)))
        }
        _ => false,
    }
}

/// Does `value` fit `node`?
pub(crate) fn fits<T: Tree>(defs: &dyn Defs, node: &Node, value: &T) -> bool {
    if node.never {
        return false;
    }
    if let Some(target) = node.target(defs) {
        if !fits(defs, target, value) {
            return false;
        }
    }
    node.all_of.iter().all(|n| fits(defs, n, value))
        && (node.any_of.is_empty() || node.any_of.iter().any(|n| fits(defs, n, value)))
        && node.local_rule(value).is_none()
        && node.missing(value).is_none()
        && match value.shape() {
            Shape::Object(mut members) => {
                members.all(|(key, member)| node.member(key).is_none_or(|n| fits(defs, n, member)))
            }
            Shape::Array(items) => node
                .items
                .as_deref()
                .is_none_or(|n| items.iter().all(|item| fits(defs, n, item))),
            _ => true,
        }
}

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
        use crate::data::json::path::{push_step, rendered_path, PathSegment};
        let mut path = prefix.to_owned();
        for step in &self.steps {
            match step {
                Step::Key(key) => push_step(&mut path, PathSegment::Key(key)),
                Step::Index(i) => push_step(&mut path, PathSegment::Index(*i)),
            }
        }
        rendered_path(&path).to_owned()
    }
}

/// Why `value`, which does not [`fit`](fits) `node`, does not: the first misfit in the
/// order a reader meets it (the node's own type and value, its members in key order, the
/// members it lacks), the innermost one where a member or an item breaks a rule. Of
/// alternatives (`anyOf`, `oneOf`), the one whose constant members (a content block's
/// `"type": "image"`) the value has is explained; with none or several, that it matches
/// none of them.
pub(crate) fn misfit<T: Tree>(defs: &dyn Defs, node: &Node, value: &T) -> Option<Misfit> {
    if node.never {
        return Some(Misfit::at("is not allowed"));
    }
    if let Some(target) = node.target(defs) {
        if let Some(found) = misfit(defs, target, value) {
            return Some(found);
        }
    }
    if let Some(found) = node.all_of.iter().find_map(|n| misfit(defs, n, value)) {
        return Some(found);
    }
    if !node.any_of.is_empty() && !node.any_of.iter().any(|n| fits(defs, n, value)) {
        return Some(alternatives(defs, &node.any_of, value));
    }
    if let Some(rule) = node.local_rule(value) {
        return Some(Misfit::at(rule));
    }
    // Members in key order (a tree's members come sorted), then the ones it lacks.
    let inner = match value.shape() {
        Shape::Object(mut members) => members.find_map(|(key, member)| {
            let n = node.member(key)?;
            Some(misfit(defs, n, member)?.under(Step::Key(key.to_owned())))
        }),
        Shape::Array(items) => node.items.as_deref().and_then(|n| {
            items
                .iter()
                .enumerate()
                .find_map(|(i, item)| Some(misfit(defs, n, item)?.under(Step::Index(i))))
        }),
        _ => None,
    };
    inner.or_else(|| {
        let key = node.missing(value)?;
        Some(Misfit::at("is required").under(Step::Key(key.to_owned())))
    })
}

/// Why `value` fits none of `alternatives`: the one whose constant members it has
/// explained, or the names of them all.
fn alternatives<T: Tree>(defs: &dyn Defs, alternatives: &[Node], value: &T) -> Misfit {
    let chosen: Vec<&Node> = alternatives
        .iter()
        .filter(|n| n.constants_agree(defs, value))
        .collect();
    if let [one] = chosen.as_slice() {
        if let Some(found) = misfit(defs, one, value) {
            return found;
        }
    }
    let names: Vec<String> = alternatives.iter().map(Node::name).collect();
    Misfit::at(format!("matches none of {}", names.join(", ")))
}

/// For a first misfit inside an item of a list member (`tools[1]...`) of an object
/// `value`: the first misfit of each other item of that list, with the item's own path
/// (`.tools[3]`), so that one finding says how many items a fix concerns.
pub(crate) fn other_items<T: Tree>(
    defs: &dyn Defs,
    node: &Node,
    value: &T,
    first: &Misfit,
) -> Vec<(String, Misfit)> {
    use crate::data::json::path::{push_step, PathSegment};
    let [Step::Key(key), Step::Index(at), ..] = first.steps.as_slice() else {
        return Vec::new();
    };
    let mut object = node;
    while let Some(target) = object.target(defs) {
        object = target;
    }
    let items = match get(value, key).map(Tree::shape) {
        Some(Shape::Array(items)) => items,
        _ => return Vec::new(),
    };
    let mut list = match object.member(key) {
        Some(list) => list,
        None => return Vec::new(),
    };
    while let Some(target) = list.target(defs) {
        list = target;
    }
    let Some(item_node) = list.items.as_deref() else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter(|(i, item)| i != at && !fits(defs, item_node, *item))
        .filter_map(|(i, item)| {
            let mut prefix = String::new();
            push_step(&mut prefix, PathSegment::Key(key));
            push_step(&mut prefix, PathSegment::Index(i));
            Some((prefix, misfit(defs, item_node, item)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::schema::Schema;
    use super::*;
    use serde_json::json;

    fn legacy() -> &'static Schema {
        Schema::of("2025-11-25").unwrap()
    }

    /// `(path from the value, rule)` of `value` against `schema`, `None` when it fits; the
    /// two passes agree.
    fn verdict(schema: Value, value: Value) -> Option<(String, String)> {
        let node = compile(&schema);
        let fits = fits(legacy(), &node, &value);
        let found = misfit(legacy(), &node, &value);
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
