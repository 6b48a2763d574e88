//! The same fixtures in both protocol eras: the legacy handshake (2025-11-25) and the
//! stateless 2026-07-28 revision, where every request carries its identity in `_meta`.

#[path = "../mcp-replay/tests/common/mod.rs"]
mod common;
#[allow(unused_imports)]
use common::{Run, WithOptions};
use mcp_replay::_support::update::UpdateMode;
use mcp_replay::harness::Test;
use mcp_replay::{mcp_fixture, Fixture, MismatchKind, Rules, Transport};
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;
use std::path::{Path, PathBuf};

async fn serve(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

/// The seed's two-line fixture, unchanged, against a server in the stateless era: the
/// harness adds the `_meta` identity and sends no handshake; `resultType: "complete"`
/// is the era's default and normalized away.
#[mcp_fixture("lookup_issue", protocol = "2026-07-28")]
#[tokio::test]
async fn the_seed_fixture_passes_in_the_stateless_era(transport: Transport) {
    serve(transport).await;
}

#[mcp_fixture("count_up_progress", protocol = "2026-07-28")]
#[tokio::test]
async fn progress_passes_in_the_stateless_era(transport: Transport) {
    serve(transport).await;
}

/// A fixture that starts with `server/discover` is in the stateless era by itself.
#[mcp_fixture("discover_and_call")]
#[tokio::test]
async fn discover_then_call(transport: Transport) {
    serve(transport).await;
}

/// `fixtures/list_and_read.jsonl`, in the legacy era (the harness performs the handshake):
/// `tools/list`, `resources/list`, a `resources/read` and one of a resource that does not
/// exist. The same file passes in the stateless era below.
#[mcp_fixture("list_and_read")]
#[tokio::test]
async fn lists_and_reads_in_the_legacy_era(transport: Transport) {
    serve(transport).await;
}

/// The same fixture in the stateless era, where rmcp adds `cacheScope` and `ttlMs` to
/// every list and read result and answers the missing resource with `-32602`, not
/// `-32002`: the default rules `cache-hints` and `resource-not-found-code` (version 2)
/// write both eras alike.
#[mcp_fixture("list_and_read", protocol = "2026-07-28")]
#[tokio::test]
async fn lists_and_reads_in_the_stateless_era(transport: Transport) {
    serve(transport).await;
}

fn bundled(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name),
    )
    .unwrap()
}

/// The differences of a replay of `fixture` with `rules`, as the paths of every result
/// finding, sorted.
async fn result_differences(run: &Run, rules: &Rules) -> Vec<String> {
    let report = run.replay().rules(rules).run(serve).await;
    let mut paths: Vec<String> = report
        .mismatches()
        .iter()
        .inspect(|m| assert_eq!(m.kind(), MismatchKind::Result, "{report}"))
        .flat_map(|m| m.differences().iter().map(|d| d.path().to_owned()))
        .collect();
    paths.sort();
    paths
}

/// The server's answers differ between the eras, and only in what the version 2 rules
/// write alike: pinned to the defaults of version 1, the fixture (written with version 2)
/// fails in the stateless era on exactly the caching hints of the three list and read
/// results, and in the legacy era on exactly the error code of the missing resource.
#[tokio::test]
async fn the_eras_differ_in_the_cache_hints_and_the_not_found_code_alone() {
    let legacy = Fixture::parse(&bundled("list_and_read.jsonl"))
        .unwrap()
        .run();
    let stateless = legacy.clone().with_protocol("2026-07-28");
    let v1 = Rules::default().version(1);
    assert_eq!(
        result_differences(&stateless, &v1).await,
        [
            ".result.cacheScope",
            ".result.cacheScope",
            ".result.cacheScope",
            ".result.ttlMs",
            ".result.ttlMs",
            ".result.ttlMs"
        ]
    );
    assert_eq!(result_differences(&legacy, &v1).await, [".error.code"]);
    for fixture in [&legacy, &stateless] {
        assert!(result_differences(fixture, &Rules::default())
            .await
            .is_empty());
    }
}

/// A fresh folder under the target directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("eras-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("fixtures")).unwrap();
    dir
}

fn spec(dir: &Path, protocol: Option<&'static str>) -> Test {
    spec_of(
        dir,
        protocol,
        match protocol {
            None => "eras::lists_and_reads_in_the_legacy_era",
            Some(_) => "eras::lists_and_reads_in_the_stateless_era",
        },
    )
}

fn spec_of(dir: &Path, protocol: Option<&'static str>, test: &'static str) -> Test {
    let spec = Test::new(
        Box::leak(dir.display().to_string().into_boxed_str()),
        "list_and_read",
        test,
    );
    match protocol {
        Some(version) => spec.protocol(version),
        None => spec,
    }
}

fn client_lines(text: &str) -> String {
    text.lines()
        .filter(|l| l.contains("\"client->server\""))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// What `MCP_FIXTURE_UPDATE=1 cargo test` does to a suite whose two tests replay one
/// fixture in the two eras (as the two `lists_and_reads_*` tests above): the first test
/// to come re-records it from its client lines, giving the bundled file; the other waits,
/// then passes in its era against the file as it is, not a byte changed. Each era first,
/// so the order the tests run in does not matter.
#[tokio::test]
async fn one_fixture_re_records_in_one_era_and_passes_unchanged_in_the_other() {
    let bundled_text = bundled("list_and_read.jsonl");
    for (first, then) in [(None, Some("2026-07-28")), (Some("2026-07-28"), None)] {
        let dir = temp_dir(first.unwrap_or("legacy"));
        let path = dir.join("fixtures/list_and_read.jsonl");
        std::fs::write(&path, client_lines(&bundled_text)).unwrap();
        spec(&dir, first)
            .mode(UpdateMode::Always)
            .serve(serve)
            .await
            .unwrap();
        let recorded = std::fs::read_to_string(&path).unwrap();
        assert_eq!(recorded, bundled_text, "recorded in {first:?}");
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        spec(&dir, then)
            .mode(UpdateMode::Always)
            .serve(serve)
            .await
            .unwrap_or_else(|e| panic!("{then:?}: {e}"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), recorded);
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            modified,
            "{then:?}: the file was written again"
        );
        // And in a later run, compare only, in either era.
        for era in [first, then] {
            let compare = spec_of(&dir, era, "eras::a_later_run");
            compare.mode(UpdateMode::No).serve(serve).await.unwrap();
        }
    }
}

/// The two tests at once, as `cargo test` runs them, on a stale fixture (a recorded
/// answer that the server no longer gives): one re-records, the other waits and passes,
/// and the file is the bundled one.
#[tokio::test]
async fn both_eras_re_record_one_stale_fixture_at_once() {
    let bundled_text = bundled("list_and_read.jsonl");
    let stale = bundled_text.replace("demo server is for.", "demo server was for.");
    assert_ne!(stale, bundled_text);
    let dir = temp_dir("at-once");
    let path = dir.join("fixtures/list_and_read.jsonl");
    std::fs::write(&path, &stale).unwrap();
    let (legacy, stateless) = tokio::join!(
        spec(&dir, None).mode(UpdateMode::Always).serve(serve),
        spec(&dir, Some("2026-07-28"))
            .mode(UpdateMode::Always)
            .serve(serve),
    );
    legacy.unwrap();
    stateless.unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), bundled_text);
}

/// Under the defaults of version 1 the eras cannot share the fixture, and the update run
/// says so instead of letting the last recording win: the test that comes second gets
/// different answers from the file the first one wrote, and its failure names both.
#[tokio::test]
async fn eras_that_cannot_share_a_fixture_fail_the_update_run_naming_both_tests() {
    fn version_1() -> Rules {
        Rules::default().version(1)
    }
    let dir = temp_dir("version-1");
    let path = dir.join("fixtures/list_and_read.jsonl");
    std::fs::write(&path, client_lines(&bundled("list_and_read.jsonl"))).unwrap();
    let legacy = spec(&dir, None).rules(version_1);
    let stateless = spec(&dir, Some("2026-07-28")).rules(version_1);
    legacy.mode(UpdateMode::Always).serve(serve).await.unwrap();
    let recorded = std::fs::read_to_string(&path).unwrap();
    assert!(recorded.contains("-32002") && !recorded.contains("ttlMs"));
    let failure = stateless
        .mode(UpdateMode::Always)
        .serve(serve)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        failure.starts_with(&format!(
            "mcp-replay: eras::lists_and_reads_in_the_stateless_era replays {}, which \
             eras::lists_and_reads_in_the_legacy_era re-records in this run",
            path.display()
        )),
        "{failure}"
    );
    assert!(
        failure.contains("give each test its own fixture"),
        "{failure}"
    );
    assert!(failure.contains("4 mismatches (4 result)"), "{failure}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        recorded,
        "untouched"
    );
}

/// Adds `cacheScope` to the discovery result of `fixtures/discover_and_call.jsonl` (the
/// default rules dropped it from the recording).
fn discover_with_cache_scope(scope: &str, header: Option<&str>) -> String {
    let text = bundled("discover_and_call.jsonl");
    assert!(
        !text.contains("cacheScope"),
        "the recording has no caching hint"
    );
    let body = text.replacen(
        "\"capabilities\":{\"logging\"",
        &format!("\"cacheScope\":\"{scope}\",\"capabilities\":{{\"logging\""),
        1,
    );
    match header {
        Some(header) => format!("{header}\n{body}"),
        None => body,
    }
}

#[tokio::test]
async fn a_changed_discovery_result_is_a_result_finding() {
    let text = bundled("discover_and_call.jsonl").replace("\"logging\":{},", "");
    let report = Fixture::parse(&text).unwrap().replay().run(serve).await;
    let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
    assert_eq!(kinds, [MismatchKind::Result], "{report}");
    assert_eq!(
        report.mismatches()[0].differences()[0].path(),
        ".result.capabilities.logging"
    );
}

/// Under the defaults of version 2 the caching hints are not compared: a fixture that
/// says `"cacheScope": "public"` (the server sends `"private"`) passes.
#[tokio::test]
async fn a_changed_cache_scope_is_no_finding_under_the_newest_defaults() {
    let fixture = Fixture::parse(&discover_with_cache_scope("public", None)).unwrap();
    let report = fixture.replay().run(serve).await;
    assert!(report.is_ok(), "{report}");
}

/// A user who wants the caching hints pinned still can: by the fixture's header
/// (`"rules": 1`, the defaults before version 2) or by turning the rule off
/// (`Rules::default().without("cache-hints")`). Either way a changed `cacheScope` is a
/// result finding again, and the right one passes.
#[tokio::test]
async fn cache_hints_are_compared_when_pinned_to_rules_1_or_with_the_rule_off() {
    let pinned = Some(r#"{"mcp_replay":1,"rules":1}"#);
    for (text, rules) in [
        (
            discover_with_cache_scope("public", pinned),
            Rules::default(),
        ),
        (
            discover_with_cache_scope("public", None),
            Rules::default().without("cache-hints"),
        ),
    ] {
        let fixture = Fixture::parse(&text).unwrap();
        let report = fixture.replay().rules(&rules).run(serve).await;
        let kinds: Vec<_> = report.mismatches().iter().map(|m| m.kind()).collect();
        assert_eq!(kinds, [MismatchKind::Result], "{report}");
        let paths: Vec<&str> = report.mismatches()[0]
            .differences()
            .iter()
            .map(|d| d.path())
            .collect();
        // The server also sends `ttlMs`, which this fixture lacks.
        assert_eq!(paths, [".result.cacheScope", ".result.ttlMs"], "{report}");
    }
    let text = discover_with_cache_scope("private", pinned).replacen(
        "\"cacheScope\":\"private\",",
        "\"cacheScope\":\"private\",\"ttlMs\":0,",
        1,
    );
    let report = Fixture::parse(&text).unwrap().replay().run(serve).await;
    assert!(report.is_ok(), "{report}");
}
