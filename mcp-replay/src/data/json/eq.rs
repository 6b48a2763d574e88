//! Equality of JSON values as fixtures mean it: key order never matters, numbers compare
//! by numeric value, and two floats a hair apart in the last place are equal.

use serde_json::{Number, Value};

/// Deep equality of two JSON values where key order never matters and numbers compare
/// by numeric value (`1` equals `1.0`: rmcp writes `1.0` where TypeScript writes `1`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_eq(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn num_eq(x: &Number, y: &Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b || ulps_apart(a, b) <= FLOAT_ULPS,
        _ => false,
    }
}

/// How many units in the last place two floats may be apart and still compare equal.
/// serde_json parses floats best-effort unless its `float_roundtrip` feature is on (which
/// mcp-replay does not force on a user's build): the same text always parses to the same
/// value, but the text written for a value may read back one unit off for an extreme value
/// (about 1 in 600 random bit patterns, at exponents beyond ±100; never a value like 0.1,
/// 2.5 or 1e-3). Two units of slack make such a fixture compare equal to its server.
pub(super) const FLOAT_ULPS: u64 = 2;

/// The distance between two finite floats of the same sign in units in the last place
/// (`u64::MAX` otherwise).
fn ulps_apart(a: f64, b: f64) -> u64 {
    if !a.is_finite() || !b.is_finite() || a.is_sign_negative() != b.is_sign_negative() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}
