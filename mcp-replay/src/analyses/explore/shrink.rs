//! Smaller arguments: each candidate is one step simpler than the value it comes from (a
//! field left out, a string or an array cut in half or emptied, a number brought toward
//! zero, `true` made `false`), in a fixed order, the biggest cuts first. `explore` keeps
//! the first candidate that still breaks the same rule and starts again from it, until
//! none does (as proptest and Hypothesis shrink). Pure.

use serde_json::{Map, Value};

/// How many candidates one step offers at most.
const MOST: usize = 64;

/// The values one step simpler than `value`, the biggest cuts first.
pub(crate) fn candidates(value: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    simpler(value, &mut out);
    out.truncate(MOST);
    out
}

fn simpler(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(map) => object(map, out),
        Value::Array(items) => array(items, out),
        Value::String(s) => {
            let chars: Vec<char> = s.chars().collect();
            if !chars.is_empty() {
                out.push(Value::String(String::new()));
            }
            for len in shorter(chars.len()) {
                out.push(Value::String(chars[..len].iter().collect()));
            }
        }
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if i != 0 {
                    out.push(Value::from(0));
                }
                if i.abs() > 1 {
                    out.push(Value::from(i / 2));
                }
            } else if let Some(f) = n.as_f64() {
                if f != 0.0 {
                    out.push(Value::from(0));
                    out.push(Value::from(f.trunc()));
                }
            }
        }
        Value::Bool(true) => out.push(Value::Bool(false)),
        Value::Bool(false) | Value::Null => {}
    }
}

fn object(map: &Map<String, Value>, out: &mut Vec<Value>) {
    for key in map.keys() {
        let mut smaller = map.clone();
        smaller.remove(key);
        out.push(Value::Object(smaller));
    }
    for (key, v) in map {
        let mut inner = Vec::new();
        simpler(v, &mut inner);
        for s in inner {
            let mut smaller = map.clone();
            smaller.insert(key.clone(), s);
            out.push(Value::Object(smaller));
        }
    }
}

fn array(items: &[Value], out: &mut Vec<Value>) {
    if items.is_empty() {
        return;
    }
    out.push(Value::Array(Vec::new()));
    for len in shorter(items.len()) {
        out.push(Value::Array(items[..len].to_vec()));
    }
    for (i, v) in items.iter().enumerate().take(8) {
        let mut inner = Vec::new();
        simpler(v, &mut inner);
        for s in inner {
            let mut smaller = items.to_vec();
            smaller[i] = s;
            out.push(Value::Array(smaller));
        }
    }
}

/// Shorter lengths than `len` to cut to, the biggest cut first: a half, then ever smaller
/// cuts (a quarter, an eighth, ... a sixty-fourth), then one less, so that a failure that
/// needs a length over some bound is shrunk to near that bound in a few steps.
fn shorter(len: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    if len > 1 {
        out.push(len / 2);
        for shift in 2..=6 {
            out.push(len - len / (1 << shift));
        }
        out.push(len - 1);
    }
    out.retain(|&l| l > 0 && l < len);
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Shrinks `value` greedily while `fails` holds, as `explore` does with real calls.
    fn shrink(mut value: Value, fails: impl Fn(&Value) -> bool) -> Value {
        'again: loop {
            for candidate in candidates(&value) {
                if fails(&candidate) {
                    value = candidate;
                    continue 'again;
                }
            }
            return value;
        }
    }

    #[test]
    fn shrinking_finds_the_smallest_arguments_that_still_fail() {
        // Fails on any `text` longer than 1,000 characters, whatever else is there.
        let big = json!({"text": "y".repeat(70_000), "count": 913, "flag": true, "tags": ["a", "b", "c"]});
        let long = |v: &Value| v["text"].as_str().is_some_and(|t| t.len() > 1000);
        let small = shrink(big, long);
        assert_eq!(small.as_object().unwrap().len(), 1, "{small}");
        assert_eq!(small["text"].as_str().unwrap().len(), 1001);
        // Fails whenever `n` is negative: shrinks to the nearest negative to zero it reaches.
        let small = shrink(json!({"n": -977, "s": "abc"}), |v| {
            v["n"].as_i64().is_some_and(|n| n < 0)
        });
        assert_eq!(small, json!({"n": -1}));
    }
}
