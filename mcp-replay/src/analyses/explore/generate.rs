//! Arguments from a tool's `inputSchema`: valid ones (types, enums, required fields,
//! bounds, formats, nested objects and arrays), edge values (still valid: the bounds, empty
//! and large strings and arrays, other scripts), and invalid ones (a required field
//! missing, a wrong type, a value outside the enum, an unknown field where the schema
//! forbids one). Seeded: the same seed and schema give the same values. Pure.

use serde_json::{json, Map, Value};

/// A small seeded generator (SplitMix64): the same seed gives the same sequence on every
/// platform, which is all `explore` asks of it.
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// `true` one time in two.
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// Which end of its range an edge value is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Edge {
    /// The smallest: minimum, empty string, empty array, `false`.
    Low,
    /// The largest: maximum, a large string (the schema's `maxLength`, or [`LARGE`]
    /// characters), many items.
    High,
    /// Unusual but valid: other scripts, negative numbers, zero.
    Odd,
}

/// The length of a large string where the schema sets no `maxLength`.
pub(crate) const LARGE: usize = 100_000;

/// How many items a high edge array gets where the schema sets no `maxItems`.
const MANY: usize = 1_000;

/// How deep generation goes into nested schemas before it gives the simplest value.
const DEPTH: usize = 6;

/// The key an invalid case adds where the schema allows no other.
pub(crate) const UNKNOWN_KEY: &str = "mcp_replay_unknown";

/// Generates values for one tool's `inputSchema` (its `$defs`/`definitions` resolved).
pub(crate) struct Generator<'s> {
    root: &'s Value,
}

impl<'s> Generator<'s> {
    /// A generator for `schema`, the tool's `inputSchema`.
    pub(crate) fn new(schema: &'s Value) -> Generator<'s> {
        Generator { root: schema }
    }

    /// `schema` with a local `$ref` followed (`#/$defs/X`, `#/definitions/X`).
    fn resolve(&self, schema: &'s Value) -> &'s Value {
        let mut at = schema;
        for _ in 0..8 {
            let Some(reference) = at.get("$ref").and_then(Value::as_str) else {
                return at;
            };
            let Some(path) = reference.strip_prefix("#/") else {
                return at;
            };
            let mut next = self.root;
            for step in path.split('/') {
                match next.get(step) {
                    Some(v) => next = v,
                    None => return at,
                }
            }
            at = next;
        }
        at
    }

    /// The branch of an `anyOf`/`oneOf` (chosen by `rng`), or the schema itself.
    fn branch(&self, schema: &'s Value, rng: &mut Rng) -> &'s Value {
        let schema = self.resolve(schema);
        for key in ["anyOf", "oneOf"] {
            if let Some(options) = schema.get(key).and_then(Value::as_array) {
                if !options.is_empty() {
                    let pick = &options[rng.below(options.len() as u64) as usize];
                    return self.resolve(pick);
                }
            }
        }
        schema
    }

    /// The schema's type, one of its list chosen by `rng` (`null` last), or inferred.
    fn type_of(schema: &Value, rng: &mut Rng) -> &'static str {
        let named = |t: &str| -> &'static str {
            match t {
                "object" => "object",
                "array" => "array",
                "string" => "string",
                "integer" => "integer",
                "number" => "number",
                "boolean" => "boolean",
                _ => "null",
            }
        };
        match schema.get("type") {
            Some(Value::String(t)) => named(t),
            Some(Value::Array(types)) => {
                let real: Vec<&str> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect();
                match real.len() {
                    0 => "null",
                    n => named(real[rng.below(n as u64) as usize]),
                }
            }
            _ if schema.get("properties").is_some() => "object",
            _ if schema.get("items").is_some() => "array",
            _ => "string",
        }
    }

    /// A valid value for `schema`.
    pub(crate) fn valid(&self, schema: &'s Value, rng: &mut Rng, depth: usize) -> Value {
        self.value(schema, rng, depth, None)
    }

    /// A valid value at `edge` of `schema`'s range.
    pub(crate) fn edge(&self, schema: &'s Value, rng: &mut Rng, edge: Edge) -> Value {
        self.value(schema, rng, 0, Some(edge))
    }

    fn value(&self, schema: &'s Value, rng: &mut Rng, depth: usize, edge: Option<Edge>) -> Value {
        let schema = self.branch(schema, rng);
        if let Some(c) = schema.get("const") {
            return c.clone();
        }
        // A schema's default is what its author expects a call to send: half the valid
        // values are it.
        if let (None, Some(default)) = (edge, schema.get("default")) {
            if rng.coin() {
                return default.clone();
            }
        }
        if let Some(options) = schema.get("enum").and_then(Value::as_array) {
            if !options.is_empty() {
                let at = match edge {
                    Some(Edge::Low) => 0,
                    Some(Edge::High) => options.len() - 1,
                    _ => rng.below(options.len() as u64) as usize,
                };
                return options[at].clone();
            }
        }
        match Self::type_of(schema, rng) {
            "object" => self.object(schema, rng, depth, edge),
            "array" => self.array(schema, rng, depth, edge),
            "integer" => integer(schema, rng, edge),
            "number" => number(schema, rng, edge),
            "boolean" => Value::Bool(match edge {
                Some(Edge::Low) => false,
                Some(Edge::High) => true,
                _ => rng.coin(),
            }),
            "null" => Value::Null,
            _ => string(schema, rng, edge),
        }
    }

    fn object(&self, schema: &'s Value, rng: &mut Rng, depth: usize, edge: Option<Edge>) -> Value {
        let required = required(schema);
        let mut out = Map::new();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let needed = required.contains(&name.as_str());
                // Optional fields: all of them at the high edge, none at the low one.
                let wanted = match edge {
                    Some(Edge::Low) => false,
                    Some(Edge::High) => true,
                    _ => rng.coin(),
                };
                if needed || (wanted && depth < DEPTH) {
                    let v = if depth >= DEPTH {
                        Value::Null
                    } else {
                        self.value(property, rng, depth + 1, edge)
                    };
                    out.insert(name.clone(), v);
                }
            }
        }
        Value::Object(out)
    }

    fn array(&self, schema: &'s Value, rng: &mut Rng, depth: usize, edge: Option<Edge>) -> Value {
        let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = schema
            .get("maxItems")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let len = match edge {
            Some(Edge::Low) => min,
            Some(Edge::High) => max.unwrap_or(MANY.max(min)),
            _ => min + rng.below((max.unwrap_or(min + 3).saturating_sub(min) + 1) as u64) as usize,
        };
        let items = schema.get("items").filter(|i| i.is_object());
        let unique = schema.get("uniqueItems").and_then(Value::as_bool) == Some(true);
        let mut out: Vec<Value> = Vec::with_capacity(len);
        for i in 0..len {
            let mut v = match items {
                Some(items) if depth < DEPTH => {
                    self.value(items, rng, depth + 1, edge.map(|_| Edge::Odd))
                }
                _ => json!(format!("item{i}")),
            };
            if unique && out.contains(&v) {
                v = match v {
                    Value::String(s) => Value::String(format!("{s}{i}")),
                    Value::Number(_) => json!(i),
                    other => other,
                };
            }
            out.push(v);
        }
        Value::Array(out)
    }

    /// Invalid variants of `valid` (an object of `schema`'s), each with what makes it
    /// invalid: each required field left out, each field given a value of another type
    /// (or outside its enum), and an unknown field where `additionalProperties` is `false`.
    pub(crate) fn invalid(&self, valid: &Map<String, Value>) -> Vec<(String, Value)> {
        let schema = self.resolve(self.root);
        let mut out = Vec::new();
        for name in required(schema) {
            let mut args = valid.clone();
            args.remove(name);
            out.push((format!("`{name}` (required) left out"), Value::Object(args)));
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                let property = self.resolve(property);
                let mut args = valid.clone();
                let wrong = wrong_type(property);
                args.insert(name.clone(), wrong.clone());
                out.push((
                    format!("`{name}` given {wrong}, of another type"),
                    Value::Object(args),
                ));
                if property.get("enum").is_some() {
                    let mut args = valid.clone();
                    args.insert(name.clone(), json!("mcp-replay-not-in-the-enum"));
                    out.push((format!("`{name}` outside its enum"), Value::Object(args)));
                }
            }
        }
        if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
            let mut args = valid.clone();
            args.insert(UNKNOWN_KEY.to_owned(), json!(1));
            out.push((
                format!("an unknown field `{UNKNOWN_KEY}`"),
                Value::Object(args),
            ));
        }
        out
    }
}

/// The names `schema.required` lists.
fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A value of a type `schema` does not allow.
fn wrong_type(schema: &Value) -> Value {
    let allows = |t: &str| match schema.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(ts)) => ts.iter().any(|x| x == t),
        _ => false,
    };
    if allows("string") {
        if allows("integer") || allows("number") {
            return json!({"not": "this"});
        }
        return json!(12345);
    }
    if allows("object") {
        return json!("not an object");
    }
    if allows("array") {
        return json!({"not": "an array"});
    }
    json!("not a number or flag")
}

fn bound(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

/// The range a number of `schema` may take: its bounds (exclusive ones moved inward by
/// `step`), or `default` where it sets none.
fn range(schema: &Value, step: f64, default: (f64, f64)) -> (f64, f64) {
    let low = bound(schema, "minimum")
        .or_else(|| bound(schema, "exclusiveMinimum").map(|b| b + step))
        .unwrap_or(default.0);
    let high = bound(schema, "maximum")
        .or_else(|| bound(schema, "exclusiveMaximum").map(|b| b - step))
        .unwrap_or(default.1);
    (low, high.max(low))
}

/// The range of a valid number where the schema sets no bounds: small, as most numbers a
/// tool takes are (a count, a duration, a page); the edges go to the extremes.
const UNBOUNDED: (f64, f64) = (0.0, 100.0);

fn integer(schema: &Value, rng: &mut Rng, edge: Option<Edge>) -> Value {
    let explicit = schema.get("minimum").is_some() || schema.get("maximum").is_some();
    let (low, high) = range(schema, 1.0, UNBOUNDED);
    let (low, high) = (low.ceil() as i64, high.floor() as i64);
    let v = match edge {
        Some(Edge::Low) if explicit => low,
        Some(Edge::Low) => i64::from(i32::MIN),
        Some(Edge::High) if explicit => high,
        Some(Edge::High) => i64::from(i32::MAX),
        Some(Edge::Odd) => 0i64.clamp(low, high.max(low)),
        None => low + rng.below((high - low + 1).max(1) as u64) as i64,
    };
    json!(v)
}

fn number(schema: &Value, rng: &mut Rng, edge: Option<Edge>) -> Value {
    let (low, high) = range(schema, 1e-6, UNBOUNDED);
    let v = match edge {
        Some(Edge::Low) if schema.get("minimum").is_none() => -1e6,
        Some(Edge::High) if schema.get("maximum").is_none() => 1e6,
        Some(Edge::Low) => low,
        Some(Edge::High) => high,
        Some(Edge::Odd) => 0.5f64.clamp(low, high),
        None => low + (rng.below(1_000_001) as f64 / 1_000_000.0) * (high - low),
    };
    json!((v * 1000.0).round() / 1000.0)
}

/// Words a generated string is made of.
const WORDS: [&str; 8] = [
    "alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "tango",
];

fn string(schema: &Value, rng: &mut Rng, edge: Option<Edge>) -> Value {
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        if let Some(v) = formatted(format, rng) {
            return Value::String(v);
        }
    }
    let text = match edge {
        Some(Edge::Low) => String::new(),
        Some(Edge::High) => "x".repeat(max.unwrap_or(LARGE)),
        Some(Edge::Odd) => "Zoë 東京 🦀 \"quoted\" \\ <tag> \u{202e}".to_owned(),
        None => {
            let mut s = WORDS[rng.below(WORDS.len() as u64) as usize].to_owned();
            if rng.coin() {
                s.push('-');
                s.push_str(&rng.below(1000).to_string());
            }
            s
        }
    };
    let mut chars: Vec<char> = text.chars().collect();
    if let Some(max) = max {
        chars.truncate(max);
    }
    while chars.len() < min {
        chars.push('x');
    }
    Value::String(chars.into_iter().collect())
}

/// A value of a string `format`, or `None` for one not known here.
fn formatted(format: &str, rng: &mut Rng) -> Option<String> {
    let n = rng.below(10_000);
    Some(match format {
        "date-time" => format!("2026-01-{:02}T10:{:02}:00Z", 1 + n % 28, n % 60),
        "date" => format!("2026-01-{:02}", 1 + n % 28),
        "time" => format!("10:{:02}:00", n % 60),
        "email" => format!("user{n}@example.com"),
        "uri" | "url" | "uri-reference" | "iri" => format!("https://example.com/{n}"),
        "uuid" => format!("00000000-0000-4000-8000-{:012x}", n),
        "ipv4" => format!("192.0.2.{}", n % 255),
        "ipv6" => "2001:db8::1".to_owned(),
        "hostname" => "example.com".to_owned(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1, "maxLength": 40},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "unit": {"enum": ["c", "f"]},
                "when": {"type": "string", "format": "date"},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}, "maxItems": 4},
                "note": {"type": ["string", "null"]}
            },
            "required": ["city", "days"],
            "additionalProperties": false,
            "$defs": {"Tag": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
        })
    }

    #[test]
    fn the_same_seed_gives_the_same_values_and_each_one_keeps_the_schemas_rules() {
        let schema = schema();
        let generator = Generator::new(&schema);
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..20)
                .map(|_| generator.valid(&schema, &mut rng, 0))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        for v in run(7) {
            let city = v["city"].as_str().unwrap();
            assert!((1..=40).contains(&city.chars().count()), "{v}");
            let days = v["days"].as_i64().unwrap();
            assert!((1..=14).contains(&days), "{v}");
            if let Some(unit) = v.get("unit") {
                assert!(unit == "c" || unit == "f", "{v}");
            }
            for tag in v
                .get("tags")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                assert!(tag["name"].is_string(), "{v}");
            }
        }
    }

    #[test]
    fn edges_are_the_bounds_and_invalid_values_each_break_one_rule() {
        let schema = schema();
        let generator = Generator::new(&schema);
        let mut rng = Rng::new(1);
        let low = generator.edge(&schema, &mut rng, Edge::Low);
        assert_eq!(low, json!({"city": "x", "days": 1}));
        let high = generator.edge(&schema, &mut rng, Edge::High);
        assert_eq!(high["city"], json!("x".repeat(40)));
        assert_eq!(high["days"], json!(14));
        assert_eq!(high["tags"].as_array().unwrap().len(), 4);
        let valid = low.as_object().unwrap();
        let invalid = generator.invalid(valid);
        let what: Vec<&str> = invalid.iter().map(|(w, _)| w.as_str()).collect();
        assert!(what.contains(&"`city` (required) left out"), "{what:?}");
        assert!(
            what.contains(&"`days` given \"not a number or flag\", of another type"),
            "{what:?}"
        );
        assert!(what.contains(&"`unit` outside its enum"), "{what:?}");
        assert!(
            what.contains(&"an unknown field `mcp_replay_unknown`"),
            "{what:?}"
        );
        let unbounded = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let high = Generator::new(&unbounded).edge(&unbounded, &mut rng, Edge::High);
        assert_eq!(high["q"].as_str().unwrap().len(), LARGE);
    }
}
