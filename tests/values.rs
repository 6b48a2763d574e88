//! The values model with rmcp's client (demo bin `crm-client`): a session of minted ids
//! inside URIs, tools in pages, an owner's e-mail the client sends back, a timestamp and a
//! log, against the Python CRM peer server (`peers/python/crm_server.py`), recorded through
//! the proxy. The same as `mcp-replay-cli/tests/peers.rs` does with the Python and
//! TypeScript SDK clients: no recorded value in the file, 20 of 20 green against the
//! unchanged server, a byte-identical re-recording, and the mock serving the client what it
//! saw live.

use std::process::{Command, Output};

fn mcp_replay() -> String {
    env!("CARGO_BIN_EXE_mcp-replay-for-tests").to_owned()
}

fn run(argv: &[String]) -> Output {
    Command::new(&argv[0]).args(&argv[1..]).output().unwrap()
}

fn out(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn err(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_rmcp_client_records_a_crm_session_that_replays_rerecords_and_serves_as_it_was_live() {
    let server = mcp_replay_peers::python("crm_server.py");
    let client = vec![env!("CARGO_BIN_EXE_crm-client").to_owned()];
    let dir = std::env::temp_dir().join(format!("mcp-replay-values-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = dir.join("crm.jsonl").display().to_string();
    let cat = |parts: &[&[String]]| -> Vec<String> { parts.concat() };

    let live = run(&cat(&[&client, &["--".into()], &server]));
    assert!(live.status.success(), "{}{}", out(&live), err(&live));
    assert!(
        out(&live).contains(r#""owner_is_email":true"#),
        "{}",
        out(&live)
    );

    let proxy = [
        "--".into(),
        mcp_replay(),
        "record".into(),
        "-o".into(),
        fixture.clone(),
        "--".into(),
    ];
    let record = run(&cat(&[&client, &proxy, &server]));
    assert!(record.status.success(), "{}", err(&record));
    assert_eq!(
        out(&record),
        out(&live),
        "the client saw the same through the proxy"
    );
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        !written.contains("northwind"),
        "no recorded e-mail: {written}"
    );
    assert_eq!(
        written.matches("cus_").count(),
        written.matches("cus_000000000001").count(),
        "no recorded id: {written}"
    );
    assert!(
        written.contains(r#""uri":"crm://customers/<MINTED:1>""#),
        "{written}"
    );

    let mut replay = vec![
        mcp_replay(),
        "replay".into(),
        "--timeout".into(),
        "10000".into(),
    ];
    replay.extend(std::iter::repeat_n(fixture.clone(), 20));
    replay.push("--".into());
    replay.extend(server.iter().cloned());
    let green = run(&replay);
    assert!(green.status.success(), "{}{}", out(&green), err(&green));
    assert!(
        out(&green).contains("20 passed, 0 failed"),
        "{}",
        out(&green)
    );

    let update = cat(&[
        &[
            mcp_replay(),
            "replay".into(),
            "--update".into(),
            fixture.clone(),
            "--".into(),
        ],
        &server,
    ]);
    let again = run(&update);
    assert!(again.status.success(), "{}", out(&again));
    assert_eq!(
        std::fs::read_to_string(&fixture).unwrap(),
        written,
        "re-recorded"
    );

    let served = run(&cat(&[
        &client,
        &["--".into(), mcp_replay(), "serve".into(), fixture],
    ]));
    assert!(served.status.success(), "{}{}", out(&served), err(&served));
    assert_eq!(
        out(&served),
        out(&live),
        "the mock gives the client what it saw live"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
