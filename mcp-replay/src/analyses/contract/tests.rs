//! Table tests and properties of the classifier.

use super::*;
use proptest::prelude::*;
use serde_json::json;

/// The changes as `class: description` lines, after checking the attribution.
fn found(method: &str, e: &Value, a: &Value) -> Vec<String> {
    let c = classify(method, e, a);
    assert_eq!(c.owners.len(), c.differences.len());
    assert!(c.owners.iter().all(|&o| o < c.changes.len()));
    c.changes.iter().map(Change::to_string).collect()
}

fn tools(list: Value) -> Value {
    json!({ "tools": list })
}

fn forecast(schema: Value) -> Value {
    tools(json!([{"name": "forecast", "description": "Weather.", "inputSchema": schema}]))
}

fn object(properties: Value, required: Value) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// Each row: the input schema of `forecast` before and after, and the changes expected.
#[test]
fn classify_input_schema_changes() {
    let city = json!({"city": {"type": "string"}});
    let rows: Vec<(Value, Value, Vec<&str>)> = vec![
        (
            object(city.clone(), json!(["city"])),
            object(json!({"city": {"type": "string"}, "units": {"type": "string"}}), json!(["city", "units"])),
            vec!["breaking: tool `forecast`: required argument `units` added"],
        ),
        (
            object(city.clone(), json!(["city"])),
            object(json!({"city": {"type": "string"}, "units": {"type": "string"}}), json!(["city"])),
            vec!["compatible: tool `forecast`: optional argument `units` added"],
        ),
        (
            object(json!({"city": {"type": "string"}, "days": {"type": "integer"}}), json!(["city"])),
            object(city.clone(), json!(["city"])),
            vec!["breaking: tool `forecast`: argument `days` removed"],
        ),
        (
            object(json!({"days": {"type": "integer"}}), json!([])),
            object(json!({"days": {"type": "number"}}), json!([])),
            vec!["compatible: tool `forecast`: argument `days`: type widened from `integer` to `number`"],
        ),
        (
            object(json!({"days": {"type": "number"}}), json!([])),
            object(json!({"days": {"type": "integer"}}), json!([])),
            vec!["breaking: tool `forecast`: argument `days`: type narrowed from `number` to `integer`"],
        ),
        (
            object(json!({"days": {"type": "string"}}), json!([])),
            object(json!({"days": {"type": ["string", "null"]}}), json!([])),
            vec!["compatible: tool `forecast`: argument `days`: type widened from `string` to `null | string`"],
        ),
        (
            object(json!({"days": {"type": "string"}}), json!([])),
            object(json!({"days": {"type": "boolean"}}), json!([])),
            vec!["breaking: tool `forecast`: argument `days`: type changed from `string` to `boolean`"],
        ),
        (
            object(json!({"u": {"enum": ["c", "f", "k"]}}), json!([])),
            object(json!({"u": {"enum": ["c", "f"]}}), json!([])),
            vec!["breaking: tool `forecast`: argument `u`: enum value `\"k\"` removed"],
        ),
        (
            object(json!({"u": {"enum": ["c", "f"]}}), json!([])),
            object(json!({"u": {"enum": ["c", "f", "k"]}}), json!([])),
            vec!["compatible: tool `forecast`: argument `u`: enum value `\"k\"` added"],
        ),
        (
            object(json!({"u": {"enum": ["c", "f"]}}), json!([])),
            object(json!({"u": {"enum": ["f", "c"]}}), json!([])),
            vec!["cosmetic: `.tools[0].inputSchema.properties.u.enum`: the same members in another order"],
        ),
        (
            object(city.clone(), json!([])),
            object(city.clone(), json!(["city"])),
            vec!["breaking: tool `forecast`: argument `city` made required"],
        ),
        (
            object(city.clone(), json!(["city"])),
            object(city.clone(), json!([])),
            vec!["compatible: tool `forecast`: argument `city` made optional"],
        ),
        (
            object(json!({"options": {"type": "object", "properties": {"units": {"type": "string"}}, "required": ["units"]}}), json!([])),
            object(json!({"options": {"type": "object", "properties": {"units": {"type": "string"}}}}), json!([])),
            vec!["compatible: tool `forecast`: argument `options.units` made optional"],
        ),
        (
            object(json!({"tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}), json!([])),
            object(json!({"tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}}}), json!([])),
            vec!["breaking: tool `forecast`: argument `tags[]`: enum value `\"b\"` removed"],
        ),
        (
            json!({"type": "object", "properties": {}}),
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            vec!["breaking: tool `forecast`: input schema: other properties no longer allowed"],
        ),
        (
            json!({"type": "object", "additionalProperties": false}),
            json!({"type": "object"}),
            vec!["compatible: tool `forecast`: input schema: other properties now allowed"],
        ),
        (
            object(json!({"n": {"type": "integer", "minimum": 1}}), json!([])),
            object(json!({"n": {"type": "integer", "minimum": 0, "description": "How many."}}), json!([])),
            vec![
                "compatible: tool `forecast`: argument `n`: minimum relaxed from 1 to 0",
                "cosmetic: tool `forecast`: argument `n`: description added",
            ],
        ),
        (
            object(json!({"n": {"const": 1}}), json!([])),
            object(json!({"n": {"const": 2}}), json!([])),
            vec!["breaking: tool `forecast`: argument `n`: const changed from `1` to `2`"],
        ),
        (
            object(json!({"n": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}), json!([])),
            object(json!({"n": {"anyOf": [{"type": "string"}, {"type": "number"}]}}), json!([])),
            vec!["compatible: tool `forecast`: argument `n`: type widened from `integer` to `number`"],
        ),
        (
            object(json!({"n": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}), json!([])),
            object(json!({"n": {"oneOf": [{"type": "string"}, {"type": "number"}]}}), json!([])),
            vec!["unknown: tool `forecast`: argument `n`: type widened from `integer` to `number`"],
        ),
        (
            object(json!({"n": {"anyOf": [{"type": "string"}]}}), json!([])),
            object(json!({"n": {"anyOf": [{"type": "string"}, {"type": "null"}]}}), json!([])),
            vec!["compatible: tool `forecast`: argument `n`: `anyOf`: alternatives added"],
        ),
        (
            object(json!({"n": {"type": "string", "pattern": "^a"}}), json!([])),
            object(json!({"n": {"type": "string", "pattern": "^b"}}), json!([])),
            vec!["unknown: tool `forecast`: argument `n`: pattern changed from `\"^a\"` to `\"^b\"`"],
        ),
        (
            object(json!({"n": {"type": "string", "x-weird": 1}}), json!([])),
            object(json!({"n": {"type": "string", "x-weird": 2}}), json!([])),
            vec!["unknown: tool `forecast`: argument `n`: `x-weird` changed"],
        ),
    ];
    for (before, after, expected) in rows {
        let got = found(
            "tools/list",
            &forecast(before.clone()),
            &forecast(after.clone()),
        );
        assert_eq!(got, expected, "\n{before}\n->\n{after}");
    }
}

#[test]
fn follow_local_refs_into_defs_and_stop_at_cycles() {
    let schema = |units: Value| {
        json!({"type": "object", "properties": {"options": {"$ref": "#/$defs/Options"}},
               "$defs": {"Options": {"type": "object", "properties": {
                   "units": units, "next": {"$ref": "#/$defs/Options"}}}}})
    };
    let e = forecast(schema(json!({"enum": ["c", "f"]})));
    let a = forecast(schema(json!({"enum": ["c"]})));
    assert_eq!(
        found("tools/list", &e, &a),
        ["breaking: tool `forecast`: argument `options.units`: enum value `\"f\"` removed"]
    );
    // A definition renamed, with the same meaning: cosmetic.
    let renamed = json!({"type": "object", "properties": {"options": {"$ref": "#/$defs/Opts"}},
        "$defs": {"Opts": {"type": "object", "properties": {
            "units": {"enum": ["c", "f"]}, "next": {"$ref": "#/$defs/Opts"}}}}});
    let got = classify("tools/list", &e, &forecast(renamed));
    assert!(
        got.changes.iter().all(|c| c.class == Class::Cosmetic),
        "{:?}",
        got.changes
    );
    // An unused definition changed: cosmetic.
    let unused = |t: &str| forecast(json!({"type": "object", "$defs": {"X": {"type": t}}}));
    assert_eq!(
        found("tools/list", &unused("string"), &unused("integer")),
        ["cosmetic: tool `forecast`: input schema: unused definition `X` changed"]
    );
    // Named under a keyword this version does not follow: unknown.
    let hidden = |t: &str| {
        forecast(
            json!({"type": "object", "not": {"$ref": "#/$defs/X"}, "$defs": {"X": {"type": t}}}),
        )
    };
    assert_eq!(
        found("tools/list", &hidden("string"), &hidden("integer")),
        ["unknown: tool `forecast`: input schema: definition `X` changed where this version does not compare it"]
    );
}

#[test]
fn swap_the_classes_for_output_schemas() {
    let out = |schema: Value| {
        tools(json!([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}]))
    };
    let rows: Vec<(Value, Value, Vec<&str>)> = vec![
        (
            object(
                json!({"temp": {"type": "number"}, "wind": {"type": "number"}}),
                json!(["temp", "wind"]),
            ),
            object(json!({"temp": {"type": "number"}}), json!(["temp"])),
            vec!["breaking: tool `t`: output field `wind` removed"],
        ),
        (
            object(json!({"temp": {"type": "number"}}), json!(["temp"])),
            object(json!({"temp": {"type": "number"}}), json!([])),
            vec!["breaking: tool `t`: output field `temp` no longer required"],
        ),
        (
            object(json!({"temp": {"type": "number"}}), json!(["temp"])),
            object(
                json!({"temp": {"type": "number"}, "wind": {"type": "number"}}),
                json!(["temp"]),
            ),
            vec!["compatible: tool `t`: output field `wind` added"],
        ),
        (
            object(json!({"temp": {"type": "integer"}}), json!([])),
            object(json!({"temp": {"type": "number"}}), json!([])),
            vec![
                "breaking: tool `t`: output field `temp`: type widened from `integer` to `number`",
            ],
        ),
    ];
    for (before, after, expected) in rows {
        assert_eq!(found("tools/list", &out(before), &out(after)), expected);
    }
    let without = tools(json!([{"name": "t", "inputSchema": {"type": "object"}}]));
    assert_eq!(
        found("tools/list", &out(json!({"type": "object"})), &without),
        ["breaking: tool `t`: output schema removed"]
    );
}

#[test]
fn classify_items_added_removed_and_reordered() {
    let t = |name: &str| json!({"name": name, "inputSchema": {"type": "object"}});
    let e = tools(json!([t("a"), t("b"), t("c")]));
    assert_eq!(
        found("tools/list", &e, &tools(json!([t("b"), t("c")]))),
        ["breaking: tool `a` removed"]
    );
    assert_eq!(
        found(
            "tools/list",
            &e,
            &tools(json!([t("z"), t("a"), t("b"), t("c")]))
        ),
        ["compatible: tool `z` added"]
    );
    assert_eq!(
        found("tools/list", &e, &tools(json!([t("c"), t("a"), t("b")]))),
        ["cosmetic: `tools` reordered"]
    );
    // Moved and changed: the change is still found.
    let mut moved = t("a");
    moved["inputSchema"] = object(json!({"x": {"type": "string"}}), json!(["x"]));
    assert_eq!(
        found("tools/list", &e, &tools(json!([t("b"), t("c"), moved]))),
        [
            "breaking: tool `a`: required argument `x` added",
            "cosmetic: `tools` reordered"
        ]
    );
    let annotated = tools(json!([{"name": "a", "inputSchema": {"type": "object"},
        "title": "A", "annotations": {"readOnlyHint": true}, "icons": []}, t("b"), t("c")]));
    assert_eq!(
        found("tools/list", &e, &annotated),
        [
            "cosmetic: tool `a`: annotations added",
            "cosmetic: tool `a`: icons added",
            "cosmetic: tool `a`: title added"
        ]
    );
}

#[test]
fn classify_prompts_and_resources() {
    let p = |args: Value| json!({"prompts": [{"name": "greet", "arguments": args}]});
    assert_eq!(
        found(
            "prompts/list",
            &p(json!([{"name": "who"}])),
            &p(json!([{"name": "who", "required": true}]))
        ),
        ["breaking: prompt `greet`: argument `who` made required"]
    );
    assert_eq!(
        found("prompts/list", &p(json!([])), &p(json!([{"name": "tone"}]))),
        ["compatible: prompt `greet`: optional argument `tone` added"]
    );
    assert_eq!(
        found(
            "prompts/list",
            &p(json!([{"name": "who", "required": true}])),
            &p(json!([]))
        ),
        ["breaking: prompt `greet`: argument `who` removed"]
    );
    let r = |list: Value| json!({"resources": list});
    let readme = json!({"uri": "file:///README", "name": "README", "mimeType": "text/plain"});
    let mut html = readme.clone();
    html["mimeType"] = json!("text/html");
    assert_eq!(
        found("resources/list", &r(json!([readme.clone()])), &r(json!([html]))),
        ["breaking: resource `file:///README`: MIME type changed from `\"text/plain\"` to `\"text/html\"`"]
    );
    assert_eq!(
        found("resources/list", &r(json!([readme])), &r(json!([]))),
        ["breaking: resource `file:///README` removed"]
    );
    let t = |list: Value| json!({"resourceTemplates": list});
    assert_eq!(
        found(
            "resources/templates/list",
            &t(json!([])),
            &t(json!([{"uriTemplate": "file:///{p}", "name": "f"}]))
        ),
        ["compatible: resource template `file:///{p}` added"]
    );
}

#[test]
fn classify_initialize_and_discover() {
    let init = |caps: Value, version: &str| {
        json!({"protocolVersion": "2025-11-25", "capabilities": caps,
               "serverInfo": {"name": "s", "version": version}, "instructions": "Hi."})
    };
    assert_eq!(
        found(
            "initialize",
            &init(
                json!({"tools": {"listChanged": true}, "logging": {}}),
                "1.0"
            ),
            &init(json!({"tools": {}, "prompts": {}}), "1.1")
        ),
        [
            "breaking: capability `logging` withdrawn",
            "breaking: capability `tools.listChanged` withdrawn",
            "compatible: capability `prompts` added",
            "cosmetic: server version changed from `\"1.0\"` to `\"1.1\"`"
        ]
    );
    let discover = |versions: Value, ttl: u64| {
        json!({"supportedVersions": versions, "capabilities": {"tools": {}}, "ttlMs": ttl,
               "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
    };
    assert_eq!(
        found(
            "server/discover",
            &discover(json!(["2025-11-25", "2026-07-28"]), 0),
            &discover(json!(["2026-07-28", "2027-01-01"]), 60)
        ),
        [
            "breaking: protocol version `\"2025-11-25\"` no longer supported",
            "compatible: protocol version `\"2027-01-01\"` now supported",
            "cosmetic: ttlMs changed"
        ]
    );
}

#[test]
fn classify_odd_input_as_unknown_without_panicking() {
    let rows = [
        (json!({"tools": {"a": 1}}), json!({"tools": []})),
        (
            json!({"tools": [{"description": "no name"}]}),
            json!({"tools": []}),
        ),
        (json!({"tools": [1, 2]}), json!({"tools": [2]})),
        (json!([1]), json!({"tools": []})),
        (
            json!({"tools": [{"name": "a", "inputSchema": 3}]}),
            json!({"tools": [{"name": "a", "inputSchema": "x"}]}),
        ),
        (
            json!({"tools": [{"name": "a", "inputSchema": {"$ref": "#/nowhere"}}]}),
            json!({"tools": [{"name": "a", "inputSchema": {"$ref": "#/x"}}]}),
        ),
        (
            json!({"tools": [], "nextCursor": "a"}),
            json!({"tools": [], "nextCursor": "b"}),
        ),
    ];
    for (e, a) in rows {
        let c = classify("tools/list", &e, &a);
        assert!(!c.changes.is_empty(), "{e} -> {a}");
        assert!(
            c.changes.iter().any(|c| c.class == Class::Unknown),
            "{e} -> {a}: {:?}",
            c.changes
        );
    }
    let selfref = |extra: Value| {
        let mut schema = json!({"$ref": "#"});
        schema
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        tools(json!([{"name": "a", "inputSchema": schema}]))
    };
    assert_eq!(
        found(
            "tools/list",
            &selfref(json!({})),
            &selfref(json!({"type": "string"}))
        ),
        ["breaking: tool `a`: input schema: type narrowed from any to `string`"]
    );
    assert!(changes("tools/call", &json!({"a": 1}), &json!({"a": 2})).is_empty());
    assert!(changes("tools/list", &json!({"a": 1}), &json!({"a": 1.0})).is_empty());
}

// ---- properties ----

/// A random tool list: distinct names, arguments of a few types, some required.
fn arb_tools() -> impl Strategy<Value = Value> {
    let arg = (
        prop_oneof![
            Just(json!({"type": "string"})),
            Just(json!({"type": "integer"})),
            Just(json!({"type": "boolean"})),
            Just(json!({"type": "string", "enum": ["a", "b", "c"]})),
            Just(json!({"type": "array", "items": {"type": "string"}})),
        ],
        any::<bool>(),
    );
    let tool = (
        "[a-z]{1,6}",
        "[A-Za-z ]{0,12}",
        prop::collection::btree_map("[a-z]{1,5}", arg, 0..4),
    )
        .prop_map(|(name, description, args)| {
            let required: Vec<&String> = args.iter().filter(|(_, (_, r))| *r).map(|(k, _)| k).collect();
            let properties: serde_json::Map<String, Value> =
                args.iter().map(|(k, (s, _))| (k.clone(), s.clone())).collect();
            json!({"name": name, "description": description,
                   "inputSchema": {"type": "object", "properties": properties, "required": required}})
        });
    prop::collection::vec(tool, 1..5).prop_map(|mut list| {
        let mut seen = std::collections::BTreeSet::new();
        list.retain(|t| seen.insert(t["name"].as_str().unwrap_or_default().to_owned()));
        tools(Value::Array(list))
    })
}

/// A mutation of a known kind and the class it must give (`None`: not applicable).
fn mutate(list: &Value, kind: u8, pick: usize) -> Option<(Value, Class)> {
    let mut v = list.clone();
    let items = v["tools"].as_array_mut()?;
    let n = items.len();
    let tool = &mut items[pick % n];
    let schema = &mut tool["inputSchema"];
    let first_arg = schema["properties"]
        .as_object()
        .and_then(|p| p.keys().next().cloned());
    let class = match kind {
        0 => {
            items.remove(pick % n);
            Class::Breaking
        }
        1 => {
            items.push(json!({"name": "zzzzzzz", "inputSchema": {"type": "object"}}));
            Class::Compatible
        }
        2 => {
            tool["description"] = json!("Changed by hand.");
            Class::Cosmetic
        }
        3 => {
            schema["properties"]["zzz"] = json!({"type": "string"});
            schema["required"].as_array_mut()?.push(json!("zzz"));
            Class::Breaking
        }
        4 => {
            schema["properties"]["zzz"] = json!({"type": "string"});
            Class::Compatible
        }
        5 => {
            let name = first_arg?;
            schema["properties"].as_object_mut()?.remove(&name);
            schema["required"]
                .as_array_mut()?
                .retain(|r| r != &json!(name));
            Class::Breaking
        }
        6 => {
            let props = schema["properties"].as_object_mut()?;
            let t = props.values_mut().find(|s| s["type"] == "integer")?;
            t["type"] = json!("number");
            Class::Compatible
        }
        7 => {
            let props = schema["properties"].as_object_mut()?;
            let s = props.values_mut().find(|s| s.get("enum").is_some())?;
            s["enum"].as_array_mut()?.pop();
            Class::Breaking
        }
        8 => {
            let props = schema["properties"].as_object_mut()?;
            let s = props.values_mut().find(|s| s.get("enum").is_some())?;
            s["enum"].as_array_mut()?.push(json!("zz"));
            Class::Compatible
        }
        9 => {
            let name = first_arg?;
            let required = schema["required"].as_array_mut()?;
            if required.contains(&json!(name)) {
                return None;
            }
            required.push(json!(name));
            Class::Breaking
        }
        _ => {
            if n < 2 {
                return None;
            }
            items.rotate_left(1);
            Class::Cosmetic
        }
    };
    Some((v, class))
}

/// The same value with every object's keys in reverse order, then re-serialized.
fn reordered(v: &Value) -> Value {
    fn rev(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut out = serde_json::Map::new();
                for (k, v) in m.iter().rev() {
                    out.insert(k.clone(), rev(v));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(rev).collect()),
            other => other.clone(),
        }
    }
    serde_json::from_str(&serde_json::to_string_pretty(&rev(v)).unwrap()).unwrap()
}

/// Replaces the node at the `pick`-th place (in a walk of the tree) with `with`.
fn replace_somewhere(v: &mut Value, pick: &mut usize, with: &Value) -> bool {
    if *pick == 0 {
        *v = with.clone();
        return true;
    }
    *pick -= 1;
    match v {
        Value::Object(m) => m.values_mut().any(|c| replace_somewhere(c, pick, with)),
        Value::Array(items) => items.iter_mut().any(|c| replace_somewhere(c, pick, with)),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// A mutation of a known kind gives its class, as the most severe, and nothing unknown;
    /// every difference belongs to exactly one change; key order never matters.
    #[test]
    fn known_mutations_get_their_class(list in arb_tools(), kind in 0u8..11, pick in 0usize..8) {
        let Some((changed, class)) = mutate(&list, kind, pick) else { return Ok(()) };
        let got = classify("tools/list", &list, &changed);
        prop_assert_eq!(got.owners.len(), got.differences.len());
        prop_assert!(got.owners.iter().all(|&o| o < got.changes.len()));
        prop_assert!(got.changes.iter().all(|c| c.class != Class::Unknown), "{:?}", got.changes);
        prop_assert_eq!(got.changes.iter().map(|c| c.class).max(), Some(class), "{:?}", got.changes);
        let again = changes("tools/list", &reordered(&list), &reordered(&changed));
        prop_assert_eq!(again, got.changes);
    }

    /// Any edit anywhere: no panic, every difference attributed, stable under key order.
    #[test]
    fn any_edit_is_attributed(list in arb_tools(), pick in 0usize..80, with in prop_oneof![
        Just(json!(null)), Just(json!(1)), Just(json!("x")), Just(json!([])), Just(json!({})),
        Just(json!({"$ref": "#"})), Just(json!({"type": ["string", 1]})), Just(json!({"anyOf": 2})),
    ]) {
        let mut changed = list.clone();
        let mut at = pick;
        replace_somewhere(&mut changed, &mut at, &with);
        let got = classify("tools/list", &list, &changed);
        prop_assert_eq!(got.owners.len(), got.differences.len());
        prop_assert!(got.owners.iter().all(|&o| o < got.changes.len()));
        prop_assert_eq!(got.differences.is_empty(), got.changes.is_empty());
        let again = changes("tools/list", &reordered(&list), &reordered(&changed));
        prop_assert_eq!(again, got.changes);
    }
}
