//! Properties of normalization and fixture writing over generated JSON.

use mcp_replay::{Fixture, Rules};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Strings that exercise the default rules, mixed with arbitrary text.
fn interesting_string() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z /:.-]{0,20}",
        "(at )?20[0-9]{2}-(0[1-9]|1[0-2])-[0-2][1-9][T ][01][0-9]:[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]0[0-9]:00)?( ok)?",
        "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        "(file://)?/tmp(/[a-z]{1,6}){0,3}",
        "<[A-Z_]{1,10}(:[0-9])?>",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        interesting_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        interesting_string(),
                        Just("isError".to_owned()),
                        Just("Mcp-Session-Id".to_owned())
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn normalizing_twice_equals_normalizing_once(result in json_value(), params in json_value()) {
        let rules = Rules::default().workspace("/tmp/work");
        for mut message in [
            json!({"jsonrpc": "2.0", "id": 1, "result": result}),
            json!({"jsonrpc": "2.0", "method": "initialize", "id": 1, "params": params}),
        ] {
            rules.normalize_server(&mut message);
            let once = message.clone();
            rules.normalize_server(&mut message);
            prop_assert_eq!(&once, &message);
            rules.normalize_client(&mut message);
            let once = message.clone();
            rules.normalize_client(&mut message);
            prop_assert_eq!(&once, &message);
        }
    }

    #[test]
    fn a_written_fixture_parses_back_to_the_same_bytes(params in json_value(), result in json_value()) {
        let text = format!(
            "{}\n{}\n",
            json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": "m", "params": params}}),
            json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "result": result}}),
        );
        let fixture = Fixture::parse(&text).unwrap();
        let written = fixture.to_jsonl();
        prop_assert_eq!(Fixture::parse(&written).unwrap().to_jsonl(), written.clone());
        prop_assert!(written.ends_with('\n'));
        prop_assert_eq!(written.lines().count(), 2);
    }

    #[test]
    fn parsing_arbitrary_lines_never_panics(lines in prop::collection::vec(prop_oneof![any::<String>(), json_value().prop_map(|v| v.to_string())], 0..5)) {
        let _ = Fixture::parse(&lines.join("\n"));
    }
}
