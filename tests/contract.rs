//! Contract classes against real drift: a fixture recorded from an rmcp server, replayed
//! against variants of it whose tool list changed (`docs/contract.md`).

use mcp_replay::contract::{changes, Class};
use mcp_replay::{Fixture, MismatchKind, Report, Rules, Transport};
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::{
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{schemars, ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};

/// Units of a forecast.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
enum Units {
    Celsius,
    Fahrenheit,
    Kelvin,
}

/// Units of a forecast.
// The same units without Kelvin, under the same definition name.
#[derive(schemars::JsonSchema)]
#[schemars(rename = "Units")]
#[allow(dead_code)]
enum UnitsNoKelvin {
    Celsius,
    Fahrenheit,
}

/// The `forecast` arguments.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct Forecast {
    /// The city.
    city: String,
    /// Days ahead.
    days: Option<u32>,
    /// Units of the temperatures.
    units: Option<Units>,
}

macro_rules! forecast_variant {
    ($name:ident { $($field:tt)* }) => {
        /// The `forecast` arguments.
        #[derive(schemars::JsonSchema)]
        #[schemars(rename = "Forecast")]
        #[allow(dead_code)]
        struct $name { $($field)* }
    };
}

forecast_variant!(WithCountry {
    /// The city.
    city: String,
    /// The country (now required).
    country: String,
    /// Days ahead.
    days: Option<u32>,
    /// Units of the temperatures.
    units: Option<Units>,
});
forecast_variant!(FractionalDays {
    /// The city.
    city: String,
    /// Days ahead.
    days: Option<f64>,
    /// Units of the temperatures.
    units: Option<Units>,
});
forecast_variant!(WithHourly {
    /// The city.
    city: String,
    /// Days ahead.
    days: Option<u32>,
    /// Units of the temperatures.
    units: Option<Units>,
    /// Hour by hour.
    hourly: Option<bool>,
});
forecast_variant!(NoKelvin {
    /// The city.
    city: String,
    /// Days ahead.
    days: Option<u32>,
    /// Units of the temperatures.
    units: Option<UnitsNoKelvin>,
});

/// The `alerts` arguments.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct Alerts {
    /// The region.
    region: String,
}

/// The ways the weather server's tool list drifts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Variant {
    Base,
    RequiredArgumentAdded,
    ToolRemoved,
    TypeWidened,
    DescriptionOnly,
    OptionalArgumentAdded,
    EnumValueRemoved,
}

/// An rmcp server whose `tools/list` is the variant's.
#[derive(Clone)]
struct Weather(Variant);

impl Weather {
    fn tools(&self) -> Vec<Tool> {
        use Variant::*;
        let description = match self.0 {
            DescriptionOnly => "The weather forecast for a city, day by day.",
            _ => "The weather forecast for a city.",
        };
        let schema = match self.0 {
            RequiredArgumentAdded => schema_for_type::<WithCountry>(),
            TypeWidened => schema_for_type::<FractionalDays>(),
            OptionalArgumentAdded => schema_for_type::<WithHourly>(),
            EnumValueRemoved => schema_for_type::<NoKelvin>(),
            _ => schema_for_type::<Forecast>(),
        };
        let mut tools = vec![Tool::new("forecast", description, schema)];
        if self.0 != ToolRemoved {
            tools.push(Tool::new(
                "alerts",
                "Weather alerts of a region.",
                schema_for_type::<Alerts>(),
            ));
        }
        tools
    }
}

impl ServerHandler for Weather {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("weather", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }
}

async fn serve(variant: Variant, transport: Transport) {
    let server = Weather(variant).serve(transport).await.expect("serves");
    let _ = server.waiting().await;
}

async fn replay(fixture: &Fixture, rules: &Rules, variant: Variant) -> Report {
    fixture
        .clone()
        .replay()
        .rules(rules)
        .run(move |t| serve(variant, t))
        .await
}

/// The fixture recorded from the base server: one `tools/list` and its answer.
async fn recorded() -> Fixture {
    let seed = Fixture::parse(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
    )
    .expect("parses");
    let report = replay(&seed, &Rules::default(), Variant::Base).await;
    let fixture = report.recorded().expect("a recording").clone();
    assert_eq!(fixture.entries().len(), 2, "{}", fixture.to_jsonl());
    fixture
}

/// The single finding's changes as `class: description` lines.
fn finding(report: &Report) -> Vec<String> {
    assert_eq!(report.mismatches().len(), 1, "{report}");
    let m = &report.mismatches()[0];
    assert_eq!(m.kind(), MismatchKind::Result, "{report}");
    m.changes().iter().map(ToString::to_string).collect()
}

#[tokio::test]
async fn name_each_drift_and_its_class() {
    let fixture = recorded().await;
    let rules = Rules::default();
    assert!(replay(&fixture, &rules, Variant::Base).await.is_ok());
    let rows: [(Variant, Class, &[&str]); 6] = [
        (
            Variant::RequiredArgumentAdded,
            Class::Breaking,
            &["breaking: tool `forecast`: required argument `country` added"],
        ),
        (Variant::ToolRemoved, Class::Breaking, &["breaking: tool `alerts` removed"]),
        (
            Variant::TypeWidened,
            Class::Compatible,
            &[
                "compatible: tool `forecast`: argument `days`: type widened from `integer | null` to `null | number`",
                "compatible: tool `forecast`: argument `days`: format widened from `uint32` to `double`",
                "compatible: tool `forecast`: argument `days`: minimum removed",
            ],
        ),
        (
            Variant::DescriptionOnly,
            Class::Cosmetic,
            &["cosmetic: tool `forecast`: description changed"],
        ),
        (
            Variant::OptionalArgumentAdded,
            Class::Compatible,
            &["compatible: tool `forecast`: optional argument `hourly` added"],
        ),
        (
            Variant::EnumValueRemoved,
            Class::Breaking,
            &["breaking: tool `forecast`: argument `units`: enum value `\"Kelvin\"` removed"],
        ),
    ];
    for (variant, class, expected) in rows {
        let report = replay(&fixture, &rules, variant).await;
        let mut got = finding(&report);
        got.sort_by_key(|line| !line.starts_with(class.name()));
        let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        want.sort_by_key(|line| !line.starts_with(class.name()));
        got.sort();
        want.sort();
        assert_eq!(got, want, "{variant:?}:\n{report}");
        assert_eq!(report.mismatches()[0].class(), Some(class), "{variant:?}");
        println!("--- {variant:?}\n{report}\n");
    }
}

#[tokio::test]
async fn accept_a_description_edit_but_not_a_breaking_change() {
    let fixture = recorded().await;
    let cosmetic = Rules::default().accept(Class::Cosmetic);
    let report = replay(&fixture, &cosmetic, Variant::DescriptionOnly).await;
    assert!(report.is_ok(), "{report}");
    assert_eq!(report.accepted().len(), 1);
    assert_eq!(
        report.to_string(),
        "mcp-replay: <string>: ok (1 changed result, every change accepted)"
    );
    // The recording holds what the server sent: the new description.
    let recorded = report.recorded().expect("a recording").to_jsonl();
    assert!(recorded.contains("day by day"), "{recorded}");
    let report = replay(&fixture, &cosmetic, Variant::RequiredArgumentAdded).await;
    assert_eq!(report.mismatches().len(), 1, "{report}");
    // The same through the fixture header.
    let text = format!(
        "{{\"mcp_replay\":1,\"accept\":[\"cosmetic\"]}}\n{}",
        fixture.to_jsonl()
    );
    let headed = Fixture::parse(&text).expect("parses");
    assert!(replay(&headed, &Rules::default(), Variant::DescriptionOnly)
        .await
        .is_ok());
}

#[tokio::test]
async fn show_the_changes_under_the_finding_most_severe_first() {
    let fixture = recorded().await;
    let report = replay(&fixture, &Rules::default(), Variant::RequiredArgumentAdded).await;
    let text = report.to_string();
    assert!(
        text.contains(
            "result at fixture line 2: the response to `tools/list` (line 1) differs\n    \
             breaking: tool `forecast`: required argument `country` added\n    diff (- expected, + actual):"
        ),
        "{text}"
    );
}

/// server-everything's real `tools/list` (as
/// `mcp-replay/tests/fixtures/real/everything_ts_client.jsonl` recorded it), against copies
/// edited by hand.
#[test]
fn classify_server_everything_tool_list_edits() {
    let text = include_str!("../mcp-replay/tests/fixtures/real/everything_ts_client.jsonl");
    let line = text
        .lines()
        .find(|l| l.contains(r#""result":{"tools":["#))
        .expect("a tools/list result");
    let line: Value = serde_json::from_str(line).expect("JSON");
    let base = line["message"]["result"].clone();
    let tools = base["tools"].as_array().expect("tools").clone();
    assert!(tools.len() > 5);
    assert!(changes("tools/list", &base, &base).is_empty());

    let edit = |f: &dyn Fn(&mut Vec<Value>)| {
        let mut list = tools.clone();
        f(&mut list);
        let mut result = base.clone();
        result["tools"] = Value::Array(list);
        changes("tools/list", &base, &result)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    let named = |list: &mut Vec<Value>, name: &str| -> usize {
        list.iter()
            .position(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("server-everything has no `{name}`"))
    };
    assert_eq!(
        edit(&|l| {
            let i = named(l, "echo");
            l.remove(i);
        }),
        ["breaking: tool `echo` removed"]
    );
    assert_eq!(
        edit(&|l| {
            let i = named(l, "echo");
            l[i]["description"] = json!("Echoes back the input string, loudly");
            l[i]["annotations"]["readOnlyHint"] = json!(false);
        }),
        [
            "cosmetic: tool `echo`: annotations changed",
            "cosmetic: tool `echo`: description changed"
        ]
    );
    assert_eq!(
        edit(&|l| {
            let i = named(l, "echo");
            let schema = &mut l[i]["inputSchema"];
            schema["properties"]["times"] = json!({"type": "integer"});
            schema["required"]
                .as_array_mut()
                .unwrap()
                .push(json!("times"));
        }),
        ["breaking: tool `echo`: required argument `times` added"]
    );
    assert_eq!(
        edit(&|l| {
            l.reverse();
            let i = named(l, "echo");
            l[i]["inputSchema"]["properties"]["message"]["type"] = json!(["string", "null"]);
        }),
        [
            "compatible: tool `echo`: argument `message`: type widened from `string` to `null | string`",
            "cosmetic: `tools` reordered"
        ]
    );
    assert_eq!(
        edit(&|l| l.push(json!({"name": "new_tool", "inputSchema": {"type": "object"}}))),
        ["compatible: tool `new_tool` added"]
    );
}

/// With `"accept": ["cosmetic"]` in the folder's rules file, a description edit passes;
/// `MCP_FIXTURE_UPDATE=1` still re-records it, so the fixture then holds the new text.
#[tokio::test]
async fn pass_and_rerecord_an_accepted_change_through_the_rules_file() {
    use mcp_replay::_support::update::UpdateMode;
    use mcp_replay::harness::Test;
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("contract-accept-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("fixtures")).unwrap();
    let path = dir.join("fixtures").join("tools.jsonl");
    std::fs::write(&path, recorded().await.to_jsonl()).unwrap();
    let rules = dir.join("fixtures").join("mcp-replay.rules.json");
    std::fs::write(&rules, r#"{"accept": ["cosmetic"]}"#).unwrap();
    let spec = || {
        Test::new(
            Box::leak(dir.display().to_string().into_boxed_str()),
            "tools",
            "contract::tools",
        )
    };
    let drifted = |t| serve(Variant::DescriptionOnly, t);
    spec()
        .mode(UpdateMode::No)
        .serve(drifted)
        .await
        .expect("accepted");
    assert!(!std::fs::read_to_string(&path)
        .unwrap()
        .contains("day by day"));
    spec()
        .mode(UpdateMode::Always)
        .serve(drifted)
        .await
        .expect("re-records");
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("day by day"));
    let breaking = |t| serve(Variant::ToolRemoved, t);
    let failure = spec()
        .mode(UpdateMode::No)
        .serve(breaking)
        .await
        .unwrap_err();
    assert!(
        failure
            .to_string()
            .contains("breaking: tool `alerts` removed"),
        "{failure}"
    );
}

/// The bundled demo server's real `tools/list` against a fixture whose listing has two
/// tools in the other order and one renamed: the items are paired by name before they are
/// diffed, so the moved tools show nothing, and the renamed one is one item removed and
/// one added.
#[tokio::test]
async fn a_listing_in_another_order_with_a_renamed_tool_diffs_item_by_item() {
    let text = include_str!("../fixtures/handshake_and_tools_list.jsonl");
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let tools = lines[4]["message"]["result"]["tools"]
        .as_array_mut()
        .expect("the tools/list result");
    let names = |tools: &[Value]| -> Vec<String> {
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names(tools),
        ["count_up", "divide", "echo", "job_status", "lookup_issue"]
    );
    tools.swap(0, 1);
    tools[2]["name"] = json!("echo_text");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let report = Fixture::parse(&text)
        .expect("parses")
        .replay()
        .run(|transport| async move {
            let server = mcp_replay_demo::DemoServer::default()
                .serve(transport)
                .await
                .expect("serves");
            let _ = server.waiting().await;
        })
        .await;
    assert_eq!(report.mismatches().len(), 1, "{report}");
    let m = &report.mismatches()[0];
    let paths: Vec<(&str, bool, bool)> = m
        .differences()
        .iter()
        .map(|d| (d.path(), d.expected().is_some(), d.actual().is_some()))
        .collect();
    assert_eq!(
        paths,
        [
            (".result.tools[2]", false, true),
            (".result.tools[2]", true, false)
        ],
        "{report}"
    );
    let text = report.to_string();
    let diff = &text[text.find("diff (- expected, + actual):").expect("a diff")..];
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with("    -") || l.starts_with("    +"))
        .collect();
    // Each of the echo tool's 17 lines, once removed and once added; nothing else.
    assert_eq!(changed.len(), 34, "{text}");
    assert!(
        changed.contains(&r#"    -         "name": "echo_text""#),
        "{text}"
    );
    assert!(
        changed.contains(&r#"    +         "name": "echo""#),
        "{text}"
    );
}
