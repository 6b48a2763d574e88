//! The flow's resolution, tested without a replay.
use super::page::page_name;
use super::resolve::{rules_for, workspace_root};
use super::*;
use crate::data::fixture::Fixture;
use crate::env::html_folder;
use crate::lifecycle::update::UpdateMode;
use crate::Rules;
use std::path::PathBuf;
use std::time::Duration;

#[test]
fn name_a_page_after_its_test_and_take_a_relative_folder_from_the_workspace() {
    assert_eq!(page_name("lookup::session"), "lookup.session.html");
    assert_eq!(page_name("a::b::r#type"), "a.b.r_type.html");
    assert_eq!(page_name("../x y"), "_x_y.html");
    assert_eq!(html_folder(None), None);
    assert_eq!(html_folder(Some("  ".as_ref())), None);
    assert_eq!(
        html_folder(Some("target/pages".as_ref())),
        Some(PathBuf::from("target/pages"))
    );
    let mut plan = Plan::new("/w/fixtures/f.jsonl", UpdateMode::No);
    plan.workspace = PathBuf::from("/w");
    plan.html = None;
    assert_eq!(plan.page_path(), None);
    plan.html = Some(PathBuf::from("target/pages"));
    assert_eq!(
        plan.page_path(),
        Some(PathBuf::from("/w/target/pages/f.html"))
    );
    plan.test = Some("c::t".into());
    plan.html = Some(PathBuf::from("/elsewhere"));
    assert_eq!(plan.page_path(), Some(PathBuf::from("/elsewhere/c.t.html")));
}

#[test]
fn let_the_fixture_header_pin_the_rules_version_over_the_tests_and_the_folders() {
    let folder = std::env::temp_dir().join(format!("mcp-replay-rules-for-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(crate::rules::RULES_FILE), r#"{"version": 1}"#).unwrap();
    let line =
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#;
    let plain = Fixture::parse(line).unwrap();
    let pinned = Fixture::parse(&format!("{{\"mcp_replay\":1,\"rules\":1}}\n{line}")).unwrap();
    let own = Rules::default().version(2);
    let version = |fixture: &Fixture, own: Option<&Rules>| {
        rules_for(Some(fixture), &folder, &folder, own)
            .unwrap()
            .rules_version()
    };
    assert_eq!(version(&plain, None), 1, "the folder's rules file");
    assert_eq!(version(&plain, Some(&own)), 2, "the test's own rules");
    assert_eq!(version(&pinned, Some(&own)), 1, "the fixture's header");
    std::fs::remove_file(folder.join(crate::rules::RULES_FILE)).unwrap();
    assert_eq!(version(&plain, None), crate::rules::RULES_VERSION);
    let _ = std::fs::remove_dir(&folder);
}

#[test]
fn resolve_a_fixture_the_same_way_for_the_attribute_and_the_command() {
    let root = std::env::temp_dir().join(format!("mcp-replay-same-{}", std::process::id()));
    let krate = root.join("member");
    let fixtures = krate.join("tests/fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    std::fs::write(root.join("Cargo.toml"), "[workspace]\n").unwrap();
    std::fs::write(krate.join("Cargo.toml"), "[package]\n").unwrap();
    std::fs::write(
        fixtures.join(crate::rules::RULES_FILE),
        r#"{"replace":[{"selector":".result.id","with":"<ID>"}]}"#,
    )
    .unwrap();
    std::fs::write(
        fixtures.join("a.jsonl"),
        "{\"mcp_replay\":1,\"rules\":1,\"timeout\":\"700ms\"}\n\
         {\"direction\":\"client->server\",\"message\":{\"jsonrpc\":\"2.0\",\"id\":\"<REQUEST_ID>\",\"method\":\"ping\"}}\n",
    )
    .unwrap();
    let manifest_dir: &'static str = Box::leak(krate.display().to_string().into_boxed_str());
    let test = Test::new(manifest_dir, "a", "c::a").dir("tests/fixtures");
    let attribute = test.plan(UpdateMode::No);
    // The command, started from another folder with a relative path.
    let command = Plan::new(fixtures.join("a.jsonl"), UpdateMode::No);
    assert_eq!(attribute.path, command.path);
    assert_eq!(attribute.workspace, root);
    assert_eq!(command.workspace, root);
    let (fa, ra, oa) = attribute.prepare().unwrap();
    let (fc, rc, oc) = command.prepare().unwrap();
    assert_eq!(format!("{ra:?}"), format!("{rc:?}"));
    assert!(format!("{ra:?}").contains("<ID>"), "{ra:?}");
    assert_eq!(format!("{oa:?}"), format!("{oc:?}"));
    assert_eq!(oa.resolve(&fa, &ra).timeout, Duration::from_millis(700));
    assert_eq!(fa, fc);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn find_the_workspace_above_a_crate_and_the_crate_without_one() {
    let root = std::env::temp_dir().join(format!("mcp-replay-ws-{}", std::process::id()));
    let krate = root.join("member");
    let fixtures = krate.join("fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    std::fs::write(krate.join("Cargo.toml"), "[package]\nname = \"m\"\n").unwrap();
    assert_eq!(workspace_root(&fixtures), krate);
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"member\"]\n",
    )
    .unwrap();
    assert_eq!(workspace_root(&fixtures), root);
    assert_eq!(workspace_root(&krate), root);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn find_the_workspace_of_another_language_by_git_else_the_fixture_folder() {
    let root = std::env::temp_dir().join(format!("mcp-replay-ws-git-{}", std::process::id()));
    let fixtures = root.join("tests/fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    // Nothing above marks a project (the temp folder holds no Cargo.toml or .git):
    // the fixture's own folder, whatever the current folder is.
    assert_eq!(workspace_root(&fixtures), fixtures);
    std::fs::create_dir_all(root.join(".git")).unwrap();
    assert_eq!(workspace_root(&fixtures), root);
    assert_eq!(workspace_root(&root), root);
    std::fs::remove_dir_all(&root).unwrap();
}
