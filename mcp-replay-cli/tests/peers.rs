//! The command against real peers: a real client (the Python `mcp` SDK) records a session
//! with a real server (Python) THROUGH `mcp-replay record`; the fixture replays green against
//! the same server and red against a changed one; the Python client runs offline against
//! `mcp-replay serve`; mcporter recordings import and replay green against a live
//! server-everything. The peers are installed on first use (`mcp_replay_peers`).

mod common;

use common::{peer, text, workspace};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mcp_replay() -> String {
    env!("CARGO_BIN_EXE_mcp-replay").to_owned()
}

fn run(argv: &[String]) -> Output {
    Command::new(&argv[0]).args(&argv[1..]).output().unwrap()
}

fn cat(parts: &[&[String]]) -> Vec<String> {
    parts.iter().flat_map(|p| p.iter().cloned()).collect()
}

/// `CLIENT... -- mcp-replay serve FIXTURE`: a client's command line with the fixture's mock
/// as its server.
fn against_mock(client: &[String], fixture: impl AsRef<Path>) -> Vec<String> {
    let serve = [
        "--".to_owned(),
        mcp_replay(),
        "serve".to_owned(),
        fixture.as_ref().display().to_string(),
    ];
    cat(&[client, &serve])
}

/// `client` with the record proxy as its server command: `mcp-replay record -o FIXTURE --
/// SERVER`.
fn through_proxy(client: &[String], fixture: &str, server: &[String]) -> Vec<String> {
    let proxy = [
        "--".into(),
        mcp_replay(),
        "record".into(),
        "-o".into(),
        fixture.to_owned(),
        "--".into(),
    ];
    cat(&[client, &proxy, server])
}

/// `mcp-replay replay --update FIXTURE -- SERVER`: a re-recording.
fn rerecord(fixture: &str, server: &[String]) -> Vec<String> {
    let head = [
        mcp_replay(),
        "replay".into(),
        "--update".into(),
        fixture.to_owned(),
    ];
    cat(&[&head, &["--".into()], server])
}

/// `mcp-replay replay --timeout 10000 FIXTURES... -- SERVER`.
fn replay(fixtures: &[String], server: &[String]) -> Vec<String> {
    let head = [
        mcp_replay(),
        "replay".into(),
        "--timeout".into(),
        "10000".into(),
    ];
    cat(&[&head, fixtures, &["--".into()], server])
}

/// `mcp-replay replay [FLAGS...]` of `fixture` `n` times against `server`: every run green.
fn assert_green_times(flags: &[String], fixture: &str, n: usize, server: &[String]) {
    let times: Vec<String> = std::iter::repeat_n(fixture.to_owned(), n).collect();
    let green = run(&replay(&cat(&[flags, &times]), server));
    let (out, err) = text(&green);
    assert!(green.status.success(), "{out}{err}");
    assert!(out.contains(&format!("{n} passed, 0 failed")), "{out}");
}

/// Writes `recorded` to `path` with a header whose `"faults"` (seed 1) holds one fault on
/// `tools/call` (of `tool` when named): `fault` its JSON members (`"drop":true`).
fn write_with_fault(recorded: &Path, path: &Path, tool: Option<&str>, fault: &str) {
    let tool = tool.map_or(String::new(), |t| format!(r#","tool":"{t}""#));
    let header = format!(
        r#"{{"mcp_replay":1,"faults":{{"seed":1,"faults":[{{"method":"tools/call"{tool},{fault}}}]}}}}"#
    );
    let text = format!("{header}\n{}", std::fs::read_to_string(recorded).unwrap());
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_real_client_records_through_the_proxy_and_the_fixture_replays_green_then_red() {
    let (client, server) = (peer("python-client"), peer("python-server"));
    let dir = temp_dir("record");
    let fixture = dir.join("session.jsonl").display().to_string();

    // The client's server command is the proxy: `mcp-replay record -o F -- python server.py`.
    let record = through_proxy(&client, &fixture, &server);
    let direct = cat(&[&client, &["--".into()], &server]);
    let through_proxy = run(&record);
    let (out, err) = text(&through_proxy);
    assert!(through_proxy.status.success(), "{out}{err}");
    // The proxy is transparent: the client saw exactly what it sees without it.
    let without_proxy = run(&direct);
    assert_eq!(out, text(&without_proxy).0);
    assert!(
        out.contains(r#""message":"T-0""#),
        "progress reached the client through the proxy: {out}"
    );
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written.contains("<CLIENT_INFO>") && written.contains("<PROGRESS_TOKEN>"),
        "{written}"
    );

    let green = run(&replay(std::slice::from_ref(&fixture), &server));
    let (out, err) = text(&green);
    assert!(green.status.success(), "{out}{err}");
    assert!(
        out.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("1 passed, 0 failed ("),
        "{out}"
    );

    let changed = cat(&[&server, &["--variant".into(), "changed".into()]]);
    let red = run(&replay(&[fixture], &changed));
    let (out, _) = text(&red);
    assert_eq!(red.status.code(), Some(1), "{out}");
    assert!(
        out.contains("1 mismatch (1 result)") && out.contains(".result.content[0].text"),
        "{out}"
    );
    assert!(out.contains(r#"actual:   "echo: hello""#), "{out}");
}

/// A server that mints note ids and cursors anew in every run, recorded from the Python
/// SDK's client through the proxy: the values the client sent back are bound placeholders,
/// so the fixture replays green against the unchanged server 20 times in a row, and a
/// changed answer is exactly one result finding, nothing about ids or cursors.
#[test]
fn a_server_that_mints_ids_and_cursors_replays_green_against_its_unchanged_self() {
    let (client, server) = (peer("python-notes-client"), peer("python-notes-server"));
    let dir = temp_dir("notes");
    let fixture = dir.join("notes.jsonl").display().to_string();
    let record = run(&through_proxy(&client, &fixture, &server));
    let (out, err) = text(&record);
    assert!(record.status.success(), "{out}{err}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    for bound in ["<MINTED:1>", "<MINTED:2>", "<CURSOR:1>"] {
        assert!(written.contains(bound), "{bound} in {written}");
    }
    // The header keeps the ids' shape (`note-000000000001`), never a recorded id.
    assert_eq!(
        written.matches("note-").count(),
        written.matches("note-00000000000").count(),
        "no note id of the recording is left: {written}"
    );

    let twenty: Vec<String> = std::iter::repeat_n(fixture.clone(), 20).collect();
    let green = run(&replay(&twenty, &server));
    let (out, err) = text(&green);
    assert!(green.status.success(), "{out}{err}");
    assert!(out.contains("20 passed, 0 failed"), "{out}");

    let changed = cat(&[&server, &["--variant".into(), "changed".into()]]);
    let red = run(&replay(std::slice::from_ref(&fixture), &changed));
    let (out, _) = text(&red);
    assert_eq!(red.status.code(), Some(1), "{out}");
    assert!(out.contains("1 mismatch (1 result)"), "{out}");
    assert!(out.contains(r#"+         "text": "note: milk","#), "{out}");

    // The mirror image: the fixture serves the same client, which sends back the fixed
    // values it was given for the minted ones.
    let served = run(&against_mock(&client, &fixture));
    let (out, err) = text(&served);
    assert!(served.status.success(), "{out}{err}");
    assert!(out.contains(r#""notes":["milk","eggs"]"#), "{out}");
    assert!(err.contains(": ok"), "{err}");
}

/// A 2026-07-28 subscription with the Python SDK on both sides (`Client.listen`, the
/// server's `subscriptions/listen`): the subscription id on the stream is the listen
/// request's own id, recorded as its label; the SDK client leaves by closing its input, and
/// the server answers the listen request then, which the fixture's header records
/// (`closes_input_after`). Replayed 20 times green; a server that announces no update is a
/// finding; served to the same client 20 times, it sees what it saw live.
#[test]
fn a_python_sdk_subscription_replays_and_serves_its_client() {
    let (client, server) = (peer("python-listen-client"), peer("python-listen-server"));
    let dir = temp_dir("listen");
    let fixture = dir.join("listen.jsonl").display().to_string();
    let live = run(&cat(&[&client, &["--".into()], &server]));
    let (live_out, err) = text(&live);
    assert!(live.status.success(), "{live_out}{err}");
    assert!(
        live_out.contains(r#""kind":"ResourceUpdated""#),
        "{live_out}"
    );

    let record = run(&through_proxy(&client, &fixture, &server));
    let (out, err) = text(&record);
    assert!(record.status.success(), "{out}{err}");
    assert_eq!(out, live_out, "the client saw the same through the proxy");
    assert!(!err.contains("differed"), "{err}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written.starts_with(r#"{"mcp_replay":1,"closes_input_after":"#),
        "{written}"
    );
    assert!(
        written.contains(r#""io.modelcontextprotocol/subscriptionId":"<REQUEST_ID:2>""#),
        "{written}"
    );
    assert!(!written.contains("MINTED"), "{written}");

    assert_green_times(&[], &fixture, 20, &server);
    let changed = cat(&[&server, &["--variant".into(), "changed".into()]]);
    let red = run(&replay(std::slice::from_ref(&fixture), &changed));
    let (out, _) = text(&red);
    assert_eq!(red.status.code(), Some(1), "{out}");
    assert!(out.contains("notifications/resources/updated"), "{out}");

    for run_number in 0..20 {
        let served = run(&against_mock(&client, &fixture));
        let (out, err) = text(&served);
        assert!(served.status.success(), "run {run_number}: {out}{err}");
        assert_eq!(out, live_out, "run {run_number}: {err}");
    }
}

/// A client with OpenTelemetry on (the Python SDK with the OpenTelemetry SDK's tracer
/// provider): a new W3C `traceparent` in every request's `_meta`. Recorded through the
/// proxy, the fixture keeps none of them (`<TRACEPARENT>`, the `trace-context` rule);
/// replayed 20 times green against the unchanged server; served to the same client, whose
/// trace ids are new every run, 20 times green.
#[test]
fn a_client_with_opentelemetry_on_records_replays_and_is_served() {
    let (client, server) = (peer("python-otel-client"), peer("python-server"));
    let dir = temp_dir("otel");
    let fixture = dir.join("otel.jsonl").display().to_string();
    let raw = dir.join("otel.raw.jsonl").display().to_string();
    let proxy = [
        "--".to_owned(),
        mcp_replay(),
        "record".into(),
        "--raw".into(),
        raw.clone(),
        "-o".into(),
        fixture.clone(),
        "--".into(),
    ];
    let record = run(&cat(&[&client, &proxy, &server]));
    let (live_out, err) = text(&record);
    assert!(record.status.success(), "{live_out}{err}");
    let captured = std::fs::read_to_string(&raw).unwrap();
    let traced = captured.matches(r#""traceparent":"00-"#).count();
    assert!(traced >= 4, "every request traced: {captured}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert_eq!(
        written.matches(r#""traceparent":"<TRACEPARENT>""#).count(),
        traced,
        "{written}"
    );
    assert!(!written.contains(r#""traceparent":"00-"#), "{written}");

    assert_green_times(&[], &fixture, 20, &server);
    for run_number in 0..20 {
        let served = run(&against_mock(&client, &fixture));
        let (out, err) = text(&served);
        assert!(served.status.success(), "run {run_number}: {out}{err}");
        assert_eq!(out, live_out, "run {run_number}: {err}");
    }
}

/// A server that combines what real sessions combine (tools in pages behind per-run
/// cursors, a minted `cus_<hex>` id inside a resource URI, an owner's e-mail the client
/// sends back, a timestamp, progress and a log naming the id), recorded through the proxy
/// from a real client SDK: the fixture holds none of the recorded values, replays green
/// 20 times in a row, re-records byte for byte, serves the same client so that it prints
/// what it printed live (ids, URIs and e-mail addresses of their shapes), and `coverage`
/// reads every page.
fn a_session_of_minted_ids_uris_pages_and_an_echoed_email(client: &str) {
    let dir = temp_dir(client);
    let (client, server) = (peer(client), peer("python-crm-server"));
    let fixture = dir.join("crm.jsonl").display().to_string();
    let live = run(&cat(&[&client, &["--".into()], &server]));
    let (live_out, err) = text(&live);
    assert!(live.status.success(), "{live_out}{err}");
    assert!(live_out.contains(r#""owner_is_email":true"#), "{live_out}");

    let record = run(&through_proxy(&client, &fixture, &server));
    let (out, err) = text(&record);
    assert!(record.status.success(), "{out}{err}");
    assert_eq!(out, live_out, "the client saw the same through the proxy");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        !written.contains("northwind"),
        "no recorded e-mail: {written}"
    );
    let ids = written.matches("cus_").count();
    let synthetic = written.matches("cus_000000000001").count();
    assert_eq!(
        ids, synthetic,
        "no recorded id, only the shape's: {written}"
    );
    for kept in [
        r#""uri":"crm://customers/<MINTED:1>""#,
        r#""owner":"<MINTED:2>""#,
        r#""shapes":{"<MINTED:1>":"cus_000000000001","<MINTED:2>":"minted2@example.invalid"}"#,
        r#""params":{"cursor":"<CURSOR:2>"}"#,
    ] {
        assert!(written.contains(kept), "{kept} in {written}");
    }

    let twenty: Vec<String> = std::iter::repeat_n(fixture.clone(), 20).collect();
    let green = run(&replay(&twenty, &server));
    let (out, err) = text(&green);
    assert!(green.status.success(), "{out}{err}");
    assert!(out.contains("20 passed, 0 failed"), "{out}");

    let update = rerecord(&fixture, &server);
    let again = run(&update);
    assert!(again.status.success(), "{}", text(&again).0);
    let rewritten = std::fs::read_to_string(&fixture).unwrap();
    assert_eq!(rewritten, written, "re-recording the unchanged server");
    assert!(
        written.contains(r#""io.modelcontextprotocol/serverInfo":"<SERVER_INFO>""#),
        "{written}"
    );

    // The next release names another version in every result: still green.
    let released = cat(&[&server, &["--release".into(), "1.0.1".into()]]);
    let next = run(&replay(std::slice::from_ref(&fixture), &released));
    let (out, err) = text(&next);
    assert!(next.status.success(), "{out}{err}");

    let served = run(&against_mock(&client, &fixture));
    let (out, err) = text(&served);
    assert!(served.status.success(), "{out}{err}");
    assert_eq!(out, live_out, "the mock gives the client what it saw live");

    let changed = cat(&[&server, &["--variant".into(), "changed".into()]]);
    let red = run(&replay(std::slice::from_ref(&fixture), &changed));
    let (out, _) = text(&red);
    assert_eq!(red.status.code(), Some(1), "{out}");
    assert!(out.contains("1 mismatch (1 result)"), "{out}");
    assert!(
        out.contains(r#""text": "Ada (owner <MINTED:2>, manager Grace Hopper)""#),
        "{out}"
    );

    let coverage = cat(&[
        &[mcp_replay(), "coverage".into(), fixture],
        &["--".into()],
        &server,
    ]);
    let probed = run(&coverage);
    let (out, err) = text(&probed);
    assert!(probed.status.success(), "{out}{err}");
    assert!(out.contains("tools: 3 of 5 called"), "{out}");
    assert!(out.contains("ping_crm"), "{out}");
    assert!(!out.contains("not every page"), "{out}");
}

/// `call --list-tools` reads a listing in pages to its end, as a client does: the fixture
/// holds each page, its cursors bound, and replays green against the unchanged server.
#[test]
fn call_lists_every_page_and_the_fixture_replays_green() {
    let server = peer("python-crm-server");
    let dir = temp_dir("crm-call");
    let fixture = dir.join("list.jsonl").display().to_string();
    let call = cat(&[
        &[
            mcp_replay(),
            "call".into(),
            "-o".into(),
            fixture.clone(),
            "--list-tools".into(),
        ],
        &["--".into()],
        &server,
    ]);
    let called = run(&call);
    let (out, err) = text(&called);
    assert!(called.status.success(), "{out}{err}");
    assert!(out.contains("ping_crm"), "the last page is printed: {out}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert_eq!(
        written.matches(r#""method":"tools/list""#).count(),
        3,
        "{written}"
    );
    assert!(
        written.contains(r#""params":{"cursor":"<CURSOR:2>"}"#),
        "{written}"
    );
    let five: Vec<String> = std::iter::repeat_n(fixture, 5).collect();
    let green = run(&replay(&five, &server));
    let (out, err) = text(&green);
    assert!(green.status.success(), "{out}{err}");
}

#[test]
fn minted_ids_uris_pages_and_an_echoed_email_with_the_python_sdk_client() {
    a_session_of_minted_ids_uris_pages_and_an_echoed_email("python-crm-client");
}

#[test]
fn minted_ids_uris_pages_and_an_echoed_email_with_the_typescript_sdk_client() {
    a_session_of_minted_ids_uris_pages_and_an_echoed_email("ts-crm-client");
}

/// A name the server holds (its account manager), recorded with a values file that lists
/// it: the fixture says `<PERSON:1>`; it replays green with the values file and without it
/// (the pseudonym is bound to what the server sends where the fixture has it), and a
/// re-recording without the file, which is what a failure's advice says to run, keeps the
/// pseudonym and never writes the name.
#[test]
fn a_value_a_values_file_replaced_stays_replaced_with_or_without_the_file() {
    let (client, server) = (peer("python-crm-client"), peer("python-crm-server"));
    let dir = temp_dir("crm-values");
    let values = dir.join("values.txt");
    std::fs::write(&values, "[person]\nGrace Hopper\n").unwrap();
    let values = values.display().to_string();
    let fixture = dir.join("crm.jsonl").display().to_string();
    let proxy = [
        "--".into(),
        mcp_replay(),
        "record".into(),
        "--redact-values".into(),
        values.clone(),
        "-o".into(),
        fixture.clone(),
        "--".into(),
    ];
    let record = run(&cat(&[&client, &proxy, &server]));
    assert!(record.status.success(), "{}", text(&record).1);
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(!written.contains("Grace"), "{written}");
    assert!(written.contains(r#""manager":"<PERSON:1>""#), "{written}");

    let five: Vec<String> = std::iter::repeat_n(fixture.clone(), 5).collect();
    let with_file = cat(&[
        &[
            mcp_replay(),
            "replay".into(),
            "--redact-values".into(),
            values,
        ],
        &five,
        &["--".into()],
        &server,
    ]);
    for replay in [with_file, replay(&five, &server)] {
        let green = run(&replay);
        let (out, err) = text(&green);
        assert!(green.status.success(), "{out}{err}");
        assert!(out.contains("5 passed, 0 failed"), "{out}");
    }

    // A changed server, re-recorded without the values file: the new answer is written,
    // the name is not.
    let changed = cat(&[&server, &["--variant".into(), "changed".into()]]);
    let update = rerecord(&fixture, &changed);
    let rewrite = run(&update);
    let (out, err) = text(&rewrite);
    assert!(rewrite.status.success(), "{out}{err}");
    let rewritten = std::fs::read_to_string(&fixture).unwrap();
    assert_ne!(rewritten, written, "the changed answer is written");
    assert!(!rewritten.contains("Grace"), "{rewritten}");
    assert!(rewritten.contains("<PERSON:1>"), "{rewritten}");
}

/// The client's order: the Python SDK client answers the server's `roots/list` late and
/// calls the next tool meanwhile, and the server, finding no roots at that call, asks
/// again. Recorded five times through the proxy, each recording replays 20 of 20 green:
/// the replay sends the call before the answer, as the client did (answering at once made
/// it `1 result, 1 missing` every time).
#[test]
fn a_session_whose_server_depends_on_the_clients_order_replays_green() {
    let (client, server) = (peer("python-order-client"), peer("python-order-server"));
    let dir = temp_dir("order");
    for take in 1..=5 {
        let fixture = dir.join(format!("order{take}.jsonl")).display().to_string();
        let record = run(&through_proxy(&client, &fixture, &server));
        let (out, err) = text(&record);
        assert!(record.status.success(), "{out}{err}");
        assert!(out.contains("no roots yet; asked again"), "{out}");
        let written = std::fs::read_to_string(&fixture).unwrap();
        let call = written.find(r#""name":"get_roots""#).unwrap();
        let answer = written
            .find(r#""id":"<SERVER_REQUEST_ID:1>","result""#)
            .unwrap();
        assert!(call < answer, "the client sent the call first: {written}");
        let mut replay_all = vec![mcp_replay(), "replay".into(), "-j".into(), "4".into()];
        replay_all.extend(std::iter::repeat_n(fixture, 20));
        replay_all.push("--".into());
        replay_all.extend(server.iter().cloned());
        let green = run(&replay_all);
        let (out, err) = text(&green);
        assert!(green.status.success(), "recording {take}: {out}{err}");
        assert!(out.contains("20 passed, 0 failed"), "{out}");
        // The mirror image: the mock serves the same client what it saw live.
        let live_out = text(&record).0;
        let served = run(&against_mock(&client, &replay_all[4]));
        let (out, err) = text(&served);
        assert!(served.status.success(), "{out}{err}");
        assert_eq!(out, live_out, "recording {take}, served");
    }
}

/// The fixture-first journey of the README for a create-then-read session: client lines
/// from `call --client-only`, the second reading back what the first created with
/// `<MINTED:1>`, then a re-recording: the placeholder is bound to the id the server minted
/// in the answer before it, the recording writes it as `<MINTED:1>` in that answer too,
/// and the first plain runs after it are green.
#[test]
fn client_lines_that_read_back_a_created_id_record_and_replay_green() {
    let server = peer("python-crm-server");
    let dir = temp_dir("crm-client-first");
    let fixture = dir.join("create_read.jsonl").display().to_string();
    let call = cat(&[
        &[
            mcp_replay(),
            "call".into(),
            "-o".into(),
            fixture.clone(),
            "--client-only".into(),
            "--tool".into(),
            "create_customer".into(),
            "name=Ada".into(),
            "--tool".into(),
            "get_customer".into(),
            "id=<MINTED:1>".into(),
        ],
        &["--".into()],
        &server,
    ]);
    let called = run(&call);
    assert!(called.status.success(), "{}", text(&called).1);
    let update = rerecord(&fixture, &server);
    let recorded = run(&update);
    let (out, err) = text(&recorded);
    assert!(recorded.status.success(), "{out}{err}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written.contains(r#""structuredContent":{"createdAt":"<TIMESTAMP>","id":"<MINTED:1>""#),
        "{written}"
    );
    assert!(
        written.contains(r#""text":"Ada, owned by"#),
        "the read found it: {written}"
    );
    assert!(!written.contains("no customer"), "{written}");
    let five: Vec<String> = std::iter::repeat_n(fixture, 5).collect();
    let green = run(&replay(&five, &server));
    let (out, err) = text(&green);
    assert!(green.status.success(), "{out}{err}");
    assert!(out.contains("5 passed, 0 failed"), "{out}");
}

/// Values that change every run and that the client never sends back (an id minted per
/// run in a sentence, a list in another order each run), found when recording: `call` and
/// a re-recording of client lines replay what they recorded once more against a fresh
/// server and pin what differed, so that the first plain runs after them are green.
#[test]
fn values_that_change_every_run_are_pinned_when_recording() {
    let server = cat(&[&peer("python-crm-server"), &["--per-run".into()]]);
    let dir = temp_dir("crm-per-run");
    let called_fixture = dir.join("called.jsonl").display().to_string();
    let rerecorded = dir.join("rerecorded.jsonl").display().to_string();
    let steps = |fixture: &str, client_only: bool| {
        let mut argv = vec![mcp_replay(), "call".into(), "-o".into(), fixture.to_owned()];
        if client_only {
            argv.push("--client-only".into());
        }
        argv.extend(["--tool".into(), "ping_crm".into()]);
        cat(&[&argv, &["--".into()], &server])
    };
    let called = run(&steps(&called_fixture, false));
    let (out, err) = text(&called);
    assert!(called.status.success(), "{out}{err}");
    assert!(
        err.contains("a second run of the unchanged server differed"),
        "{err}"
    );
    let client_only = run(&steps(&rerecorded, true));
    assert!(client_only.status.success(), "{}", text(&client_only).1);
    let update = run(&rerecord(&rerecorded, &server));
    let (out, err) = text(&update);
    assert!(update.status.success(), "{out}{err}");
    for fixture in [&called_fixture, &rerecorded] {
        let written = std::fs::read_to_string(fixture).unwrap();
        assert!(
            written.contains(r#""text":"pong from <MINTED:1>""#),
            "{written}"
        );
        assert!(
            written.contains(r#""sort":[".result.structuredContent.regions"]"#),
            "{written}"
        );
        assert!(
            written.contains(
                r#""regions":["af-south","ap-east","ap-south","eu-north","eu-west","sa-east","us-east","us-west"]"#
            ),
            "{written}"
        );
        assert_green_times(&[], fixture, 20, &server);
    }
}

/// A server that speaks protocol 2026-07-28 only refuses the harness's legacy
/// `initialize` with -32601: the report says to replay in that era and how, nothing is
/// written; re-recorded with `--protocol 2026-07-28`, its replays in that era are green.
/// (The fixture stays era-neutral, as every fixture without a handshake: `tests/eras.rs`.)
#[test]
fn a_server_of_protocol_2026_07_28_only_is_told_and_recorded_in_its_era() {
    let server = cat(&[&peer("python-crm-server"), &["--only-stateless".into()]]);
    let dir = temp_dir("crm-only-stateless");
    let fixture = dir.join("ping.jsonl").display().to_string();
    let lines = run(&[
        mcp_replay(),
        "call".into(),
        "-o".into(),
        fixture.clone(),
        "--client-only".into(),
        "--tool".into(),
        "ping_crm".into(),
    ]);
    assert!(lines.status.success(), "{}", text(&lines).1);
    let legacy = run(&rerecord(&fixture, &server));
    let (out, err) = text(&legacy);
    assert_eq!(legacy.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("may speak protocol 2026-07-28 only"), "{out}");
    assert!(out.contains("`--protocol 2026-07-28`"), "{out}");
    assert!(out.contains("NOT re-recorded"), "{out}");
    let head = [
        mcp_replay(),
        "replay".into(),
        "--update".into(),
        "--protocol".into(),
        "2026-07-28".into(),
        fixture.clone(),
        "--".into(),
    ];
    let modern = run(&cat(&[&head, &server]));
    let (out, err) = text(&modern);
    assert!(modern.status.success(), "{out}{err}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(written.contains(r#""text":"pong""#), "{written}");
    let modern = ["--protocol".to_owned(), "2026-07-28".to_owned()];
    assert_green_times(&modern, &fixture, 5, &server);
}

/// A server on tower-mcp 0.25 (another serde-based Rust SDK) whose next release makes a
/// recorded call invalid (a new required argument): tower-mcp refuses it in its own words
/// (`Invalid input: missing field `volume``). The plain replay says the client line may be
/// stale; a routine re-recording does not pin the refusal over the recorded success;
/// `MCP_FIXTURE_UPDATE=force` writes it, saying so.
#[test]
fn a_tower_mcp_refusal_is_advice_to_edit_the_line_and_never_pinned_silently() {
    let first = peer("tower-server");
    let next = cat(&[&first, &["--next".into()]]);
    let dir = temp_dir("tower-refusal");
    let fixture = dir.join("parts.jsonl").display().to_string();
    let lines = run(&[
        mcp_replay(),
        "call".into(),
        "-o".into(),
        fixture.clone(),
        "--client-only".into(),
        "--tool".into(),
        "add_part".into(),
        "name=bolt".into(),
    ]);
    assert!(lines.status.success(), "{}", text(&lines).1);
    let recorded = run(&rerecord(&fixture, &first));
    let (out, err) = text(&recorded);
    assert!(recorded.status.success(), "{out}{err}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(written.contains(r#""text":"added bolt""#), "{written}");

    let plain = run(&replay(std::slice::from_ref(&fixture), &next));
    let (out, _) = text(&plain);
    assert_eq!(plain.status.code(), Some(1), "{out}");
    assert!(out.contains("missing field `volume`"), "{out}");
    assert!(
        out.contains("The server refused a request it answered when the fixture was recorded"),
        "{out}"
    );
    assert!(out.contains("edit line"), "{out}");
    assert!(!out.contains("re-record the fixture"), "{out}");

    let routine = run(&rerecord(&fixture, &next));
    let (out, _) = text(&routine);
    assert_eq!(routine.status.code(), Some(1), "{out}");
    assert!(out.contains("NOT re-recorded"), "{out}");
    assert_eq!(std::fs::read_to_string(&fixture).unwrap(), written);

    let forced = Command::new(mcp_replay())
        .args(["replay", &fixture, "--"])
        .args(&next)
        .env("MCP_FIXTURE_UPDATE", "force")
        .output()
        .unwrap();
    let (out, err) = text(&forced);
    assert!(forced.status.success(), "{out}{err}");
    let pinned = std::fs::read_to_string(&fixture).unwrap();
    assert!(pinned.contains("missing field `volume`"), "{pinned}");
}

/// `--format sarif` of `check` and `replay`: valid against the SARIF 2.1.0 schema (the one
/// `@microsoft/jest-sarif` ships, validated with its ajv), each finding at its fixture's
/// line with its rule, and no secret value in it.
#[test]
fn check_and_replay_write_sarif_that_the_schema_accepts_and_that_holds_no_secret() {
    let validate = |log: &[u8]| {
        let mut child = Command::new(&mcp_replay_peers::node("validate_sarif.mjs")[0])
            .args(&mcp_replay_peers::node("validate_sarif.mjs")[1..])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(log).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    };
    let dir = temp_dir("sarif");
    let token = format!("ghp_{}", "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2");
    std::fs::write(
        dir.join("leaky.jsonl"),
        format!(
            "{}\n{}\n",
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"ping_crm","arguments":{}}}}"#,
            format_args!(r#"{{"direction":"server->client","message":{{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{{"content":[{{"type":"text","text":"token {token}"}}]}}}}}}"#),
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("read_first.jsonl"),
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"get_customer","arguments":{"id":"<MINTED:1>"}}}}"#,
    )
    .unwrap();
    let check = run(&[
        mcp_replay(),
        "check".into(),
        "--format".into(),
        "sarif".into(),
        dir.display().to_string(),
    ]);
    assert_eq!(check.status.code(), Some(1));
    validate(&check.stdout);
    let (log, _) = text(&check);
    assert!(!log.contains(&token[4..]), "{log}");
    let doc: serde_json::Value = serde_json::from_str(&log).unwrap();
    let rules: Vec<&str> = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"mcp-replay/secret"), "{log}");
    assert!(rules.contains(&"mcp-replay/unbindable"), "{log}");

    // A replay against a changed server: a result at the answer's line.
    let server = peer("python-crm-server");
    let changed = cat(&[&server, &["--variant".into(), "changed".into()]]);
    let fixture = dir.join("read.jsonl").display().to_string();
    let call = cat(&[
        &[
            mcp_replay(),
            "call".into(),
            "-o".into(),
            fixture.clone(),
            "--tool".into(),
            "create_customer".into(),
            "name=Ada".into(),
            "--tool".into(),
            "get_customer".into(),
            "id=@1:.structuredContent.id".into(),
        ],
        &["--".into()],
        &server,
    ]);
    assert!(run(&call).status.success());
    let head = [
        mcp_replay(),
        "replay".into(),
        "--format".into(),
        "sarif".into(),
        fixture.clone(),
        "--".into(),
    ];
    let replayed = run(&cat(&[&head, &changed]));
    assert_eq!(replayed.status.code(), Some(1));
    validate(&replayed.stdout);
    let doc: serde_json::Value = serde_json::from_slice(&replayed.stdout).unwrap();
    let result = &doc["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "mcp-replay/result", "{doc}");
    let region = &result["locations"][0]["physicalLocation"]["region"]["startLine"];
    assert!(region.as_u64().is_some_and(|l| l > 1), "{doc}");
}

/// The repository's pre-commit hook (`.pre-commit-hooks.yaml`) with the real pre-commit
/// (from the Python package index, in the peers' venv), in a temporary git repository: a
/// staged fixture with a planted token is refused, naming the file and never the token; a
/// clean one passes. `pre-commit try-repo` takes the hook from this checkout's working tree.
#[test]
fn the_pre_commit_hook_refuses_a_staged_fixture_with_a_token_and_passes_a_clean_one() {
    let python = &mcp_replay_peers::python("client.py")[0];
    let pre_commit = std::path::Path::new(python).with_file_name("pre-commit");
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let bin = std::path::Path::new(&mcp_replay())
        .parent()
        .unwrap()
        .to_path_buf();
    // `mcp-replay` on PATH, as `cargo install` leaves it.
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let repo = temp_dir("pre-commit");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out).1);
    };
    git(&["init", "-q"]);
    git(&["config", "user.email", "t@example.invalid"]);
    git(&["config", "user.name", "t"]);
    // The staged files, as a commit would check them.
    let hook = || {
        Command::new(&pre_commit)
            .args([
                "try-repo",
                &checkout.display().to_string(),
                "mcp-replay-check",
            ])
            .current_dir(&repo)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", repo.join(".cache"))
            .env_remove("GIT_DIR")
            .output()
            .unwrap()
    };
    let clean = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/call","params":{"name":"ping","arguments":{}}}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"content":[{"type":"text","text":"pong"}]}}}"#,
        "\n",
    );
    std::fs::write(repo.join("clean.jsonl"), clean).unwrap();
    git(&["add", "clean.jsonl"]);
    let passed = hook();
    let (out, err) = text(&passed);
    assert!(passed.status.success(), "{out}{err}");
    assert!(
        out.contains("mcp-replay check") && out.contains("Passed"),
        "{out}"
    );

    let token = format!("ghp_{}", "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8");
    std::fs::write(
        repo.join("leaky.jsonl"),
        clean.replace("pong", &format!("pong {token}")),
    )
    .unwrap();
    git(&["add", "leaky.jsonl"]);
    let refused = hook();
    let (out, err) = text(&refused);
    assert_eq!(refused.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("Failed") && out.contains("leaky.jsonl"),
        "{out}"
    );
    assert!(!out.contains(&token[4..]), "{out}");
}

/// Faults on cue from the fixture header, served on stdio to the Python SDK's client: an
/// error instead of `echo`'s result surfaces as the SDK's `MCPError` with the message, the
/// client stops there, and `serve`'s report lists the fault and that the client sent
/// nothing more.
#[test]
fn a_fault_in_the_header_reaches_the_python_client_and_the_report_says_what_it_did() {
    let client = peer("python-client");
    let recorded = workspace().join("mcp-replay/tests/fixtures/python/client_session.jsonl");
    let fixture = temp_dir("faults").join("session.jsonl");
    let fault = r#""error":{"code":-32603,"message":"upstream down"}"#;
    write_with_fault(&recorded, &fixture, Some("echo"), fault);
    let served = run(&against_mock(&client, &fixture));
    let (out, err) = text(&served);
    assert_eq!(served.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains("client.py: error: MCPError: upstream down"),
        "{err}"
    );
    assert!(
        err.contains("fault injected at line 8 (`tools/call echo`): error -32603 \"upstream down\" instead of the result; then the client sent nothing more"),
        "{err}"
    );
}

/// Facts for client authors, pinned: the TypeScript SDK's client (1.32.2, stdio, a call
/// with a 3 s timeout of its own) against each fault on cue through `mcp-replay serve`: what
/// the call gave, and what `serve`'s report says the client did next.
#[test]
fn the_typescript_client_meets_each_fault_on_cue() {
    let client = mcp_replay_peers::node("fault_client.mjs");
    let recorded = workspace().join("fixtures/lookup_issue.jsonl");
    let dir = temp_dir("faults-ts");
    let cases: [(&str, &str, &str); 7] = [
        (
            r#""error":{"code":-32603,"message":"upstream down"}"#,
            r#""message":"MCP error -32603: upstream down""#,
            "then the client sent nothing more",
        ),
        (
            r#""tool_error":"quota""#,
            r#""isError":true"#,
            "then the client sent nothing more",
        ),
        (
            r#""drop":true"#,
            "Request timed out",
            "then the client cancelled the request",
        ),
        (r#""twice":true"#, "Issue 42: example", "answered twice"),
        (r#""delay_ms":200"#, "Issue 42: example", "delayed 200 ms"),
        (
            r#""malformed":true"#,
            "Request timed out",
            "cut off half-way; then the client cancelled the request",
        ),
        (
            r#""close":true"#,
            "MCP error -32000: Connection closed",
            "the connection closed instead of the answer",
        ),
    ];
    for (i, (fault, call_gave, report_says)) in cases.iter().enumerate() {
        let fixture = dir.join(format!("f{i}.jsonl"));
        write_with_fault(&recorded, &fixture, None, fault);
        let ran = run(&against_mock(&client, &fixture));
        let (out, err) = text(&ran);
        assert!(out.contains(call_gave), "{fault}: {out}{err}");
        assert!(err.contains(report_says), "{fault}: {err}");
    }
}

/// Facts for client authors, pinned: the Python SDK's client (2.3.0, stdio,
/// `peers/python/client.py`'s session) against each fault on cue on its `echo` call
/// through `mcp-replay serve`: how it ended (or that it is still waiting 4 s later), and
/// what `serve`'s report says it did next.
#[test]
fn the_python_client_meets_each_fault_on_cue() {
    let client = peer("python-client");
    let recorded = workspace().join("mcp-replay/tests/fixtures/python/client_session.jsonl");
    let dir = temp_dir("faults-py");
    // (fault, how the client ended: Some(exit status) or None still waiting, what its
    // stderr or the report says)
    let cases: [(&str, Option<i32>, &str); 7] = [
        (
            r#""error":{"code":-32603,"message":"upstream down"}"#,
            Some(1),
            "MCPError: upstream down",
        ),
        (r#""tool_error":"quota""#, Some(1), "returned isError: true"),
        (
            r#""drop":true"#,
            None,
            "no answer; then the client sent nothing more",
        ),
        (
            r#""twice":true"#,
            Some(0),
            "answered twice; then the client went on with `tools/call add`",
        ),
        (
            r#""delay_ms":200"#,
            Some(0),
            "delayed 200 ms; then the client went on with `tools/call add`",
        ),
        (
            r#""malformed":true"#,
            None,
            "Failed to parse JSONRPC message from server",
        ),
        (r#""close":true"#, Some(1), "MCPError: Connection closed"),
    ];
    for (i, (fault, ended, says)) in cases.iter().enumerate() {
        let fixture = dir.join(format!("f{i}.jsonl"));
        write_with_fault(&recorded, &fixture, Some("echo"), fault);
        let argv = against_mock(&client, &fixture);
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let began = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status.code().unwrap_or(-1));
            }
            if began.elapsed() > std::time::Duration::from_secs(4) {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(status, *ended, "{fault}: {err}");
        assert!(err.contains(says), "{fault}: {err}");
    }
}

/// `call` names an earlier answer's value in a later step (`id=@1:.structuredContent.id`):
/// the recording binds it, so the fixture replays green; a step not run yet is refused.
#[test]
fn call_reads_back_what_an_earlier_step_created() {
    let server = peer("python-crm-server");
    let dir = temp_dir("crm-refer");
    let fixture = dir.join("refer.jsonl").display().to_string();
    let call = |fixture: &str, steps: &[&str]| {
        let head = [mcp_replay(), "call".into(), "-o".into(), fixture.to_owned()];
        let steps: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
        run(&cat(&[&head, &steps, &["--".into()], &server]))
    };
    let called = call(
        &fixture,
        &[
            "--tool",
            "create_customer",
            "name=Ada",
            "--tool",
            "get_customer",
            "id=@1:.structuredContent.id",
        ],
    );
    let (out, err) = text(&called);
    assert!(called.status.success(), "{out}{err}");
    assert!(out.contains("Ada, owned by"), "{out}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        written.contains(r#""arguments":{"id":"<MINTED:1>"}"#),
        "{written}"
    );
    let three: Vec<String> = std::iter::repeat_n(fixture, 3).collect();
    let green = run(&replay(&three, &server));
    assert!(green.status.success(), "{}", text(&green).0);
    let early = call(
        &dir.join("early.jsonl").display().to_string(),
        &["--tool", "get_customer", "id=@2:.id"],
    );
    // Checked before anything runs: a usage error naming the step, exit 2.
    assert_eq!(early.status.code(), Some(2), "{}", text(&early).1);
    assert!(
        text(&early)
            .1
            .contains("step 1: id=@2:.id names step 2, which does not run before it"),
        "{}",
        text(&early).1
    );
    // With --client-only and no server no step runs: never a literal `@1:...` written.
    let offline = dir.join("offline.jsonl");
    let head = [
        mcp_replay(),
        "call".into(),
        "-o".into(),
        offline.display().to_string(),
    ];
    let steps = [
        "--client-only",
        "--tool",
        "create_customer",
        "name=Ada",
        "--tool",
        "get_customer",
        "id=@1:.structuredContent.id",
    ];
    let client_only = run(&cat(&[&head, &steps.map(String::from)]));
    assert_eq!(
        client_only.status.code(),
        Some(2),
        "{}",
        text(&client_only).1
    );
    assert!(
        text(&client_only).1.contains(
            "step 2: id=@1:.structuredContent.id reads step 1's answer, but --client-only \
             without a server runs no step"
        ),
        "{}",
        text(&client_only).1
    );
    assert!(!offline.exists(), "nothing is written");
}

#[test]
fn a_real_client_runs_offline_against_mcp_replay_serve() {
    let client = peer("python-client");
    let fixture = workspace()
        .join("mcp-replay/tests/fixtures/python/client_session.jsonl")
        .display()
        .to_string();
    let offline = run(&against_mock(&client, &fixture));
    let (out, err) = text(&offline);
    assert!(offline.status.success(), "{out}{err}");
    assert!(
        out.contains(r#""tool":"countdown","progress":3.0"#),
        "every progress event reached the client: {out}"
    );
    assert!(out.contains("liftoff"), "{out}");

    // A fixture that expects another request: the client is refused, serve says why.
    let changed = temp_dir("serve").join("changed.jsonl");
    std::fs::write(
        &changed,
        std::fs::read_to_string(&fixture)
            .unwrap()
            .replace(r#"{"text":"hello"}"#, r#"{"text":"bonjour"}"#),
    )
    .unwrap();
    let refused = run(&against_mock(&client, &changed));
    let (out, err) = text(&refused);
    assert_ne!(refused.status.code(), Some(0), "{out}{err}");
    assert!(
        err.contains(r#"request tools/call {"arguments":{"text":"hello"},"name":"echo"} did not match next expected tools/call {"arguments":{"text":"bonjour"},"name":"echo"}"#),
        "{err}"
    );
}

#[test]
fn the_mcporter_recordings_import_and_replay_green_against_server_everything() {
    let everything = peer("everything");
    let dir = temp_dir("import");
    for recording in ["echo", "multi-server", "v013-elicit-decline"] {
        let source = workspace().join(format!(
            "mcp-replay/tests/fixtures/mcporter/{recording}.ndjson"
        ));
        let out_dir = dir.join(recording);
        let import = Command::new(mcp_replay())
            .arg("import")
            .arg(&source)
            .arg("-o")
            .arg(&out_dir)
            .output()
            .unwrap();
        assert!(import.status.success(), "{:?}", text(&import));
        for entry in std::fs::read_dir(&out_dir).unwrap() {
            let fixture = entry.unwrap().path().display().to_string();
            let replay = run(&cat(&[
                &[
                    mcp_replay(),
                    "replay".into(),
                    "--timeout".into(),
                    "5000".into(),
                    fixture.clone(),
                    "--".into(),
                ],
                &everything,
            ]));
            let (out, err) = text(&replay);
            assert!(replay.status.success(), "{fixture}: {out}{err}");
        }
    }
}

/// The Python SDK client answers server-everything's `roots/list` half a second late, as
/// a client that must work out its roots does: its first `get-roots-list` call makes the
/// server ask, and the server's own timer (350 ms after the handshake), finding no roots
/// yet, asks again, so the server logs "Roots updated" twice. Recorded through the proxy,
/// the fixture replays 20 times against the unchanged server (each answer held until the
/// server's second ask came, as recorded; answered at once, the server would never ask
/// again), and serves the same client 10 times (its second answer now before, now after
/// its next call: the mock takes either order).
#[test]
fn a_client_that_answers_late_makes_server_everything_ask_again_replayed_and_served() {
    let (client, everything) = (peer("python-late-roots-client"), peer("everything"));
    let dir = temp_dir("late-roots");
    let fixture = dir.join("late_roots.jsonl").display().to_string();
    let recorded = run(&through_proxy(&client, &fixture, &everything));
    let (out, err) = text(&recorded);
    assert!(recorded.status.success(), "{out}{err}");
    assert!(out.contains(r#"{"asked":2}"#), "{out}");
    let written = std::fs::read_to_string(&fixture).unwrap();
    assert_eq!(
        written.matches(r#""method":"roots/list""#).count(),
        2,
        "{written}"
    );

    assert_green_times(&[], &fixture, 20, &everything);
    for _ in 0..10 {
        let served = run(&against_mock(&client, &fixture));
        let (out, err) = text(&served);
        assert!(served.status.success(), "{out}{err}");
        assert!(out.contains(r#"{"asked":2}"#), "{out}");
        assert!(err.contains(": ok"), "{err}");
    }
}

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("peers", name)
}

/// Facts for client authors over Streamable HTTP, pinned: the TypeScript SDK's client
/// (reconnection after 100 ms, two tries) and the Python SDK's (a 3 s read timeout), each
/// calling `lookup_issue` through `mcp-replay serve --http` against the faults only HTTP
/// has: what the call gave, and what `serve`'s report says. Both resume a cut stream with
/// `Last-Event-ID`. (The Python client lists the tools after a call, to read its output
/// schema: its fixture has that listing too.)
#[test]
fn the_sdk_clients_meet_each_fault_only_http_has() {
    let recorded = workspace().join("fixtures/lookup_issue.jsonl");
    let dir = temp_dir("faults-http");
    let listing = dir.join("with_listing.jsonl");
    std::fs::write(
        &listing,
        std::fs::read_to_string(&recorded).unwrap()
            + r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#
            + "\n"
            + r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"name":"lookup_issue","inputSchema":{"type":"object"}}]}}}"#
            + "\n",
    )
    .unwrap();
    let ts = mcp_replay_peers::node("fault_client.mjs");
    let py = mcp_replay_peers::python("fault_http_client.py");
    let served = "Issue 42: example";
    // (client, its recording, fault, what the call gave, what the report says)
    let cases: [(&[String], &Path, &str, &str, &str); 6] = [
        (
            &ts,
            &recorded,
            r#""status":503"#,
            "Error POSTing to endpoint: 503 Service Unavailable",
            "HTTP 503 instead of the answer; then the client sent nothing more",
        ),
        (
            &ts,
            &recorded,
            r#""reset":true"#,
            served,
            "GET Last-Event-ID: 1, and got the answer on it",
        ),
        (
            &ts,
            &recorded,
            r#""trickle_ms":2"#,
            served,
            "the answer trickled, 16 bytes every 2 ms",
        ),
        (
            &py,
            &listing,
            r#""status":503"#,
            r#""error": "MCPError", "message": "Server returned an error response""#,
            "HTTP 503 instead of the answer; then the client sent nothing more",
        ),
        (
            &py,
            &listing,
            r#""reset":true"#,
            served,
            "GET Last-Event-ID: 1, and got the answer on it",
        ),
        (
            &py,
            &listing,
            r#""trickle_ms":2"#,
            served,
            "the answer trickled, 16 bytes every 2 ms",
        ),
    ];
    for (i, (client, recording, fault, gave, says)) in cases.iter().enumerate() {
        let fixture = dir.join(format!("f{i}.jsonl"));
        write_with_fault(recording, &fixture, None, fault);
        let serve = common::HttpServe::start(&[fixture.to_str().unwrap()]);
        let ran = Command::new(&client[0])
            .args(&client[1..])
            .args(["--url", &serve.url])
            .output()
            .unwrap();
        let (stdout, client_err) = text(&ran);
        let (_, report) = serve.finish();
        let context = format!("{fault}:\n{stdout}\n{client_err}\n{report}");
        assert!(stdout.contains(gave), "{context}");
        assert!(report.contains(says), "{context}");
        // A client that got its answer played the whole recording.
        if *gave == served {
            assert!(report.contains(": ok"), "{context}");
        }
    }
}

/// A notification out of its recorded order (`"reorder": true`), pinned for the SDK
/// clients through `mcp-replay serve`, on stdio and over HTTP: `count_up`'s progress,
/// recorded before its result, comes after it. The TypeScript SDK drops it and reports each
/// to `onerror` ("Received a progress notification for an unknown token"); the Python SDK
/// drops it silently. (The Python client lists the tools after a call: its fixture has
/// that too.)
#[test]
fn the_sdk_clients_drop_progress_that_comes_after_the_result() {
    let dir = temp_dir("faults-reorder");
    let recorded =
        std::fs::read_to_string(workspace().join("fixtures/count_up_progress.jsonl")).unwrap();
    let listing = concat!(
        r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"tools/list"}}"#,
        "\n",
        r#"{"direction":"server->client","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","result":{"tools":[{"name":"count_up","inputSchema":{"type":"object"}}]}}}"#,
        "\n",
    );
    let ts = cat(&[
        &mcp_replay_peers::node("fault_client.mjs"),
        &["--progress".into()],
    ]);
    let py = mcp_replay_peers::python("fault_progress_client.py");
    let steps = r#"["step 1 of 3","step 2 of 3","step 3 of 3"]"#;
    // (client, its recording, the fault, what it printed)
    let cases: [(&[String], String, &str, String); 4] = [
        (&ts, recorded.clone(), "", format!(r#""before":{steps},"after":[],"errors":[]"#)),
        (&ts, recorded.clone(), r#""reorder":true"#, r#""before":[],"after":[],"errors":["Received a progress notification for an unknown token"#.to_owned()),
        (&py, recorded.clone() + listing, "", format!(r#""before": {}, "after": []"#, steps.replace(',', ", "))),
        (&py, recorded.clone() + listing, r#""reorder":true"#, r#""result": "counted to 3", "before": [], "after": []"#.to_owned()),
    ];
    for (i, (client, recording, fault, printed)) in cases.iter().enumerate() {
        let fixture = dir.join(format!("f{i}.jsonl"));
        let header = if fault.is_empty() {
            r#"{"mcp_replay":1}"#.to_owned()
        } else {
            format!(
                r#"{{"mcp_replay":1,"faults":{{"seed":1,"faults":[{{"method":"tools/call",{fault}}}]}}}}"#
            )
        };
        std::fs::write(&fixture, format!("{header}\n{recording}")).unwrap();
        let ran = run(&against_mock(client, &fixture));
        let (stdout, stderr) = text(&ran);
        let context = format!("{i} {fault}:\n{stdout}\n{stderr}");
        assert!(stdout.contains(printed.as_str()), "{context}");
        assert!(stderr.contains(": ok"), "{context}");
        if !fault.is_empty() {
            assert!(
                stderr.contains("the notifications before the answer sent after it"),
                "{context}"
            );
        }
    }
    // Over HTTP both do the same (the late progress comes on the GET stream, the POST's
    // having ended with the answer).
    let header =
        r#"{"mcp_replay":1,"faults":{"seed":1,"faults":[{"method":"tools/call","reorder":true}]}}"#;
    let over_http: [(&[String], String, &str); 2] = [
        (
            &ts,
            recorded.clone(),
            r#""before":[],"after":[],"errors":["Received a progress notification for an unknown token"#,
        ),
        (
            &py,
            recorded.clone() + listing,
            r#""result": "counted to 3", "before": [], "after": []"#,
        ),
    ];
    for (i, (client, recording, printed)) in over_http.iter().enumerate() {
        let fixture = dir.join(format!("http{i}.jsonl"));
        std::fs::write(&fixture, format!("{header}\n{recording}")).unwrap();
        let serve = common::HttpServe::start(&[fixture.to_str().unwrap()]);
        let ran = Command::new(&client[0])
            .args(&client[1..])
            .args(["--url", &serve.url])
            .output()
            .unwrap();
        let (stdout, stderr) = text(&ran);
        let (_, report) = serve.finish();
        let context = format!("over HTTP {i}:\n{stdout}\n{stderr}\n{report}");
        assert!(stdout.contains(printed), "{context}");
        assert!(
            report.contains("the notifications before the answer sent after it"),
            "{context}"
        );
        assert!(report.contains(": ok"), "{context}");
    }
}
