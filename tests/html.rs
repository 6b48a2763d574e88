//! The picture of a session (docs/cli.md, "A picture of a session"): `replay --html` and
//! `MCP_REPLAY_HTML` against the demo server, passing and failing, and pages that cannot be
//! written. The page itself (well-formed, nothing loaded, every message, the findings
//! marked, secrets masked) is tested without a runtime in mcp-replay/src/findings/html/tests.rs;
//! scripts/html-screenshot.sh renders it in Chromium.

mod command;

use command::{demo_server, mcp_replay, temp_dir, text, workspace};
use mcp_replay::_support::env::HTML_ENV;
use mcp_replay::_support::page_name;
use mcp_replay::_support::update::UpdateMode;
use mcp_replay::harness::Test;
use mcp_replay::Transport;
use mcp_replay_demo::DemoServer;
use rmcp::ServiceExt;
use std::path::{Path, PathBuf};

/// The bundled count_up fixture, and a copy whose result the server no longer gives.
fn fixtures(dir: &Path) -> (PathBuf, PathBuf) {
    let bundled = std::fs::read_to_string(workspace().join("fixtures/count_up_progress.jsonl"))
        .expect("the bundled fixture");
    let pass = dir.join("count_up.jsonl");
    let fail = dir.join("count_up_drifted.jsonl");
    std::fs::write(&pass, &bundled).unwrap();
    std::fs::write(&fail, bundled.replace("counted to 3", "counted to three")).unwrap();
    (pass, fail)
}

/// What every page must be: self-contained, with a row per message.
fn check_page(page: &Path, rows_at_least: usize) -> String {
    let html = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("Content-Security-Policy"));
    for resource in [" src=", "<link", "url(", "@import"] {
        assert!(!html.contains(resource), "{resource} in {}", page.display());
    }
    for href in html.split(" href=\"").skip(1) {
        assert!(href.starts_with('#'), "a link out of the page: {href:.40}");
    }
    let rows = html.matches("<details class=\"row").count();
    assert!(rows >= rows_at_least, "{rows} rows: {html}");
    html
}

#[test]
fn replay_draws_one_page_per_fixture_passing_or_failing_and_names_the_failing_ones() {
    let dir = temp_dir("html", "folder");
    let (pass, fail) = fixtures(&dir);
    // A second fixture of the same name, in another folder.
    std::fs::create_dir_all(dir.join("other")).unwrap();
    let same = dir.join("other/count_up.jsonl");
    std::fs::copy(&pass, &same).unwrap();
    let pages = dir.join("pages");
    let output = mcp_replay()
        .arg("replay")
        .arg("--html")
        .arg(&pages)
        .args([&pass, &fail, &same])
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    // Harness setup, initialized and its answer, the call, 3 progress, a log, the result.
    let passed = check_page(&pages.join("count_up.html"), 9);
    assert!(passed.contains("verdict ok"), "{passed}");
    assert!(!passed.contains("row s bad"));
    check_page(&pages.join("count_up-2.html"), 9);
    let failed = check_page(&pages.join("count_up_drifted.html"), 9);
    assert!(failed.contains("FAILED: 1 mismatch (1 result)"), "{failed}");
    assert_eq!(
        failed.matches("<details class=\"row s bad").count(),
        1,
        "{failed}"
    );
    assert!(failed.contains("counted to three"));
    // The failing fixture's report names its page; the end says where they all are.
    let named = format!(
        "mcp-replay: {}: the picture of the session: {}",
        fail.display(),
        pages.join("count_up_drifted.html").display()
    );
    assert!(out.contains(&named), "{out}");
    assert!(
        !out.contains(&format!("{}: the picture", pass.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "html: the pictures of 3 sessions in {}",
            pages.display()
        )),
        "{out}"
    );
    assert!(out
        .trim_end()
        .lines()
        .last()
        .unwrap()
        .starts_with("2 passed, 1 failed"));
    // The JSON report has each page's path.
    let output = mcp_replay()
        .args(["replay", "--format", "json", "--html"])
        .arg(&pages)
        .args([&pass, &fail])
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["fixtures"][1]["html"],
        pages.join("count_up_drifted.html").display().to_string()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_of_one_fixture_writes_the_page_it_is_given_and_no_other() {
    let dir = temp_dir("html", "file");
    let (pass, _) = fixtures(&dir);
    let page = dir.join("picture.html");
    let output = mcp_replay()
        .arg("replay")
        .arg(&pass)
        .arg("--html")
        .arg(&page)
        .arg("--")
        .arg(demo_server())
        // The variable is for `cargo test`: the command writes only what --html says.
        .env(HTML_ENV, dir.join("from-env"))
        .output()
        .unwrap();
    let (out, err) = text(&output);
    assert!(output.status.success(), "{out}{err}");
    check_page(&page, 9);
    assert!(out.contains(&format!(
        "html: the picture of the session in {}",
        page.display()
    )));
    assert!(!dir.join("from-env").exists());
    // Without --html: no page, and no word of one.
    let output = mcp_replay()
        .arg("replay")
        .arg(&pass)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    assert!(!text(&output).0.contains("picture"), "{:?}", text(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_page_that_cannot_be_written_is_an_output_error() {
    let dir = temp_dir("html", "unwritable");
    let (pass, fail) = fixtures(&dir);
    let file = dir.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    // A folder for several pages that cannot be made: nothing is replayed.
    let output = mcp_replay()
        .arg("replay")
        .arg("--html")
        .arg(file.join("pages"))
        .args([&pass, &fail])
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("--html") && err.contains("cannot make the folder"),
        "{err}"
    );
    assert!(!out.contains("passed"), "{out}");
    // One page that cannot be written: the replay passed, its page is the error.
    let output = mcp_replay()
        .arg("replay")
        .arg("--html")
        .arg(file.join("page.html"))
        .arg(&pass)
        .arg("--")
        .arg(demo_server())
        .output()
        .unwrap();
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{out}{err}");
    assert!(out.contains(": ERROR ("), "{out}");
    assert!(
        out.contains("could not write the picture of the session"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

async fn serve_demo(transport: Transport) {
    let server = DemoServer::default().serve(transport).await.unwrap();
    let _ = server.waiting().await;
}

fn spec(dir: &Path, name: &'static str, test_path: &'static str) -> Test {
    Test::new(
        Box::leak(dir.display().to_string().into_boxed_str()),
        name,
        test_path,
    )
    .dir(".")
}

/// The only test of this file that sets the variable (the others run the command, which
/// does not read it).
#[tokio::test]
async fn mcp_fixture_tests_write_their_pages_where_mcp_replay_html_says() {
    let dir = temp_dir("html", "env");
    fixtures(&dir);
    let pages = dir.join("pages");
    std::env::set_var(HTML_ENV, &pages);
    spec(&dir, "count_up", "html::passes")
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .expect("the bundled fixture passes");
    let failure = spec(&dir, "count_up_drifted", "html::fails")
        .mode(UpdateMode::No)
        .serve(serve_demo)
        .await
        .expect_err("the drifted fixture fails");
    std::env::remove_var(HTML_ENV);
    let passed = pages.join(page_name("html::passes"));
    let failed = pages.join("html.fails.html");
    check_page(&passed, 9);
    check_page(&failed, 9);
    let message = failure.to_string();
    assert!(
        message.ends_with(&format!("The picture of the session: {}", failed.display())),
        "{message}"
    );
    assert!(message.contains("1 mismatch (1 result)"), "{message}");
    // A page that cannot be written fails a test that passed.
    std::fs::write(dir.join("a-file"), "").unwrap();
    let mut plan = spec(&dir, "count_up", "html::unwritable").plan(UpdateMode::No);
    plan.html = Some(dir.join("a-file"));
    let failure = plan.run(serve_demo).await.expect_err("no page, no pass");
    assert!(failure.is_error(), "{failure}");
    assert!(
        failure.to_string().contains("html.unwritable.html"),
        "{failure}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
