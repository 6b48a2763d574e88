//! Normalization applied to server messages before they are compared or written.
//!
//! Request ids are normalized by the replay driver (they become the fixture's labels).
//! This module holds the value rules; today that is one protocol default, and the
//! named default rules and user rules build on it.

use serde_json::Value;

/// Rewrites `message` in place so that equivalent spellings compare and write the same:
///
/// - `result.isError: false` is MCP's default for a tool result and is dropped, so a
///   hand-written fixture that omits it (as the seed's does) matches an SDK that always
///   writes it (rmcp does).
pub fn normalize(message: &mut Value) {
    if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
        if result.get("isError") == Some(&Value::Bool(false)) {
            result.remove("isError");
        }
    }
}

#[cfg(test)]
mod should {
    use super::*;
    use serde_json::json;

    #[test]
    fn drop_the_is_error_default_and_keep_true() {
        let mut a = json!({"result": {"content": [], "isError": false}});
        normalize(&mut a);
        assert_eq!(a, json!({"result": {"content": []}}));
        let mut b = json!({"result": {"isError": true}});
        normalize(&mut b);
        assert_eq!(b, json!({"result": {"isError": true}}));
    }
}
