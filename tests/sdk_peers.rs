//! The checks every SDK peer passes (peers/battery, docs/sdks.md), against the TypeScript
//! SDK's notes server (peers/node/notes_server.mjs) as a child process: its refusals are
//! worded as neither Rust SDK words them (`MCP error -32602: Input validation error: ...`),
//! and its list comes in an order drawn anew each call. The turbomcp and pmcp peers run the
//! same checks in process, each in its own workspace
//! (`the_rust_sdk_peers_pass_the_battery_in_process` below); and `mcp-replay call`, the
//! command as the client, binds an id each SDK gives only inside a text.

use mcp_replay_battery as battery;
use std::process::{Command, Output};

fn typescript() -> battery::Sdk {
    battery::Sdk::command("typescript", mcp_replay_peers::node("notes_server.mjs"))
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_a_refused_create_is_never_written_but_by_force() {
    battery::a_refused_create_is_never_written_but_by_force(&typescript()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_a_list_in_per_run_order_recorded_fresh_passes_every_run() {
    battery::a_list_in_per_run_order_recorded_fresh_passes_every_run(&typescript(), 20, 10).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_an_id_only_in_text_binds_on_every_path() {
    battery::an_id_only_in_text_binds_on_every_path(&typescript(), 20).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typescript_a_value_in_structure_and_text_replays_and_rerecords_the_same() {
    battery::a_value_in_structure_and_text_replays_and_rerecords_the_same(&typescript(), 20).await;
}

/// turbomcp and pmcp in process: each peer's own workspace runs the battery
/// (peers/SDK/tests/battery.rs) in a build where the SDK turns on serde_json's
/// `preserve_order`, mcp-replay with it. Its own cargo, as peers/install.sh builds it: the
/// two workspaces cannot share this one's build.
#[test]
fn the_rust_sdk_peers_pass_the_battery_in_process() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for sdk in ["turbomcp", "pmcp"] {
        let manifest = mcp_replay_peers::sdk_manifest(sdk);
        let target = manifest.parent().unwrap().parent().unwrap().join("target");
        let run = Command::new(&cargo)
            .args([
                "test",
                "--locked",
                "--quiet",
                "--test",
                "battery",
                "--manifest-path",
            ])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&target)
            .env_remove("MCP_FIXTURE_UPDATE")
            .output()
            .expect("cargo runs");
        let (out, err) = text(&run);
        assert!(run.status.success(), "{sdk}'s battery:\n{out}\n{err}");
        assert!(out.contains("4 passed"), "{sdk}'s battery:\n{out}");
    }
}

fn mcp_replay() -> String {
    env!("CARGO_BIN_EXE_mcp-replay-for-tests").to_owned()
}

fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `call` reads the id each SDK's `add_note` gives only inside a text (turbomcp's and the
/// TypeScript SDK's sentence, with `~REGEX`; pmcp's JSON text, with a path into it), sends
/// it back, and writes a fixture that binds it on both sides; it replays 20 times green
/// against fresh servers.
#[test]
fn call_binds_an_id_each_sdk_gives_only_inside_a_text() {
    let sdks: [(&str, Vec<String>, &str); 3] = [
        (
            "turbomcp",
            mcp_replay_peers::notes_server("turbomcp"),
            "id=@1:.content[0].text~note-[0-9a-f]+",
        ),
        (
            "pmcp",
            mcp_replay_peers::notes_server("pmcp"),
            "id=@1:.content[0].text.id",
        ),
        (
            "typescript",
            mcp_replay_peers::node("notes_server.mjs"),
            "id=@1:.content[0].text~note-[0-9a-f]+",
        ),
    ];
    let dir = std::env::temp_dir().join(format!("mcp-replay-sdk-call-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (sdk, server, reference) in sdks {
        let fixture = dir.join(format!("{sdk}.jsonl")).display().to_string();
        let mut argv = vec![mcp_replay(), "call".into(), "-o".into(), fixture.clone()];
        argv.extend(
            [
                "--tool",
                "add_note",
                "text=milk",
                "tag=home",
                "--tool",
                "get_note",
                reference,
                "--",
            ]
            .map(String::from),
        );
        argv.extend(server.iter().cloned());
        let called = Command::new(&argv[0]).args(&argv[1..]).output().unwrap();
        let (out, err) = text(&called);
        assert!(called.status.success(), "{sdk}: {out}{err}");
        assert!(
            out.contains("milk [home]"),
            "{sdk}: the read found the note:\n{out}"
        );
        let written = std::fs::read_to_string(&fixture).unwrap();
        assert!(
            written.contains(r#""arguments":{"id":"<MINTED:1>"}"#),
            "{sdk}:\n{written}"
        );
        let messages: String = written
            .lines()
            .filter(|l| l.contains("direction"))
            .collect();
        assert!(
            !messages.contains("note-"),
            "{sdk}: no live id in a message:\n{written}"
        );
        let mut replay = vec![mcp_replay(), "replay".into()];
        replay.extend(std::iter::repeat_n(fixture.clone(), 20));
        replay.push("--".into());
        replay.extend(server.iter().cloned());
        let replayed = Command::new(&replay[0])
            .args(&replay[1..])
            .output()
            .unwrap();
        let (out, err) = text(&replayed);
        assert!(replayed.status.success(), "{sdk}: {out}{err}");
        assert!(out.contains("20 passed, 0 failed"), "{sdk}: {out}");
    }
}

fn run(argv: &[String]) -> Output {
    Command::new(&argv[0]).args(&argv[1..]).output().unwrap()
}

/// A real client (the TypeScript SDK's, `peers/node/notes_client.mjs`) recorded through
/// `mcp-replay record` in front of each SDK's notes server: it reads a note back by the id
/// the server gave only inside a text, and e-mails the address the server gave in
/// `structuredContent` and again in a text. The fixture holds neither live value, replays
/// 20 times green against fresh servers, and `serve` plays it to the same client, which
/// prints what it printed live.
#[test]
fn a_real_client_recorded_in_front_of_each_sdk_replays_and_is_served_as_it_was_live() {
    let client = mcp_replay_peers::node("notes_client.mjs");
    let sdks: [(&str, Vec<String>); 3] = [
        ("turbomcp", mcp_replay_peers::notes_server("turbomcp")),
        ("pmcp", mcp_replay_peers::notes_server("pmcp")),
        ("typescript", mcp_replay_peers::node("notes_server.mjs")),
    ];
    let dir = std::env::temp_dir().join(format!("mcp-replay-sdk-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cat = |parts: &[&[String]]| -> Vec<String> { parts.concat() };
    for (sdk, server) in sdks {
        let live = run(&cat(&[&client, &["--".into()], &server]));
        let (live_out, err) = text(&live);
        assert!(live.status.success(), "{sdk}: {live_out}{err}");
        assert!(
            live_out.contains(r#""read":"milk [home]""#),
            "{sdk}: {live_out}"
        );
        let fixture = dir.join(format!("{sdk}.jsonl")).display().to_string();
        let proxy: Vec<String> = vec![
            "--".into(),
            mcp_replay(),
            "record".into(),
            "-o".into(),
            fixture.clone(),
            "--".into(),
        ];
        let recorded = run(&cat(&[&client, &proxy, &server]));
        let (out, err) = text(&recorded);
        assert!(recorded.status.success(), "{sdk}: {out}{err}");
        assert_eq!(
            out, live_out,
            "{sdk}: the client saw the same through the proxy"
        );
        let written = std::fs::read_to_string(&fixture).unwrap();
        let messages: String = written
            .lines()
            .filter(|l| l.contains("direction"))
            .collect();
        for live_value in ["note-", "alice.martin@example.com", "+49 30 1234567"] {
            assert!(
                !messages.contains(live_value),
                "{sdk}: {live_value} in\n{written}"
            );
        }
        assert!(
            messages.contains(r#""id":"<MINTED:1>""#),
            "{sdk}:\n{written}"
        );
        let mut replay = vec![mcp_replay(), "replay".into()];
        replay.extend(std::iter::repeat_n(fixture.clone(), 20));
        replay.push("--".into());
        replay.extend(server.iter().cloned());
        let replayed = run(&replay);
        let (out, err) = text(&replayed);
        assert!(replayed.status.success(), "{sdk}: {out}{err}\n{written}");
        assert!(out.contains("20 passed, 0 failed"), "{sdk}: {out}");
        let serve: Vec<String> = vec!["--".into(), mcp_replay(), "serve".into(), fixture.clone()];
        let served = run(&cat(&[&client, &serve]));
        let (out, err) = text(&served);
        assert!(
            served.status.success(),
            "{sdk}: served: {out}{err}\n{written}"
        );
        assert_eq!(
            out, live_out,
            "{sdk}: the client served saw what it saw live"
        );
    }
}
