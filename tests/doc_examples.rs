//! The Rust examples of the README files and of `docs/`, each verbatim in a module of its
//! own with what it leaves to the reader (the server type, imports), compiled by
//! `cargo test`. The first README example runs for real; the others are compiled only
//! (their fixtures belong to the reader's project). `every_rust_example_in_the_docs_is_here`
//! fails when a document's example is not found here word for word, so an example that
//! would no longer compile cannot stay in the docs.
// The examples are written as a reader writes them, not as rustfmt would.
#![allow(dead_code, unused_imports, unused_variables)]

/// `README.md`, example 1.
#[rustfmt::skip]
mod readme_lookup_issue {
    // Run for real: the bundled demo server against `fixtures/lookup_issue.jsonl`.
    use mcp_replay_demo::DemoServer;

    use mcp_replay::{mcp_fixture, Transport};
    use rmcp::ServiceExt;

    #[mcp_fixture("lookup_issue")]              // fixtures/lookup_issue.jsonl
    #[tokio::test]
    async fn lookup_issue(transport: Transport) {
        let server = DemoServer::default().serve(transport).await.unwrap();
        let _ = server.waiting().await;
    }
}

/// `README.md`, example 2.
#[rustfmt::skip]
mod readme_forecast {
    // Compiled, not run (the fixture belongs to the reader's project): `#[tokio::test]`
    // becomes `#[tokio::main]`, so the function is type-checked as a plain one.
    mod tokio {
        pub use ::tokio::{main as test, process, runtime};
    }
    mod weather {
        pub use mcp_replay_demo::DemoServer as Weather;
    }

    // tests/forecast.rs
    use mcp_replay::{mcp_fixture, Transport};
    use rmcp::ServiceExt;

    #[mcp_fixture("forecast")]                  // fixtures/forecast.jsonl
    #[tokio::test]
    async fn forecast(transport: Transport) {
        let server = weather::Weather::default().serve(transport).await.unwrap();
        let _ = server.waiting().await;
    }
}

/// `README.md`, "From a test you write".
#[rustfmt::skip]
mod readme_forecast_flow {
    // Compiled, not run (the fixture belongs to the reader's project): `#[tokio::test]`
    // becomes `#[tokio::main]`, so the function is type-checked as a plain one.
    mod tokio {
        pub use ::tokio::{main as test, process, runtime, spawn};
    }
    mod weather {
        pub use mcp_replay_demo::DemoServer as Weather;
    }
    /// The reader's own helper: the call the test makes.
    fn forecast_call(city: &str) -> rmcp::model::CallToolRequestParams {
        rmcp::model::CallToolRequestParams::new("lookup_issue").with_arguments(
            serde_json::from_value(serde_json::json!({"owner": city, "repo": "r", "number": 1})).unwrap(),
        )
    }

    use mcp_replay::{mcp_fixture, Transport};
    use rmcp::ServiceExt;

    #[mcp_fixture("forecast_flow")]             // fixtures/forecast_flow.jsonl, written by its first run
    #[tokio::test]
    async fn forecast_flow(server: Transport, client: Transport) {
        tokio::spawn(async move {
            let server = weather::Weather::default().serve(server).await.unwrap();
            let _ = server.waiting().await;
        });
        let client = ().serve(client).await.unwrap();
        let answer = client.call_tool(forecast_call("Paris")).await.unwrap();
        assert_eq!(answer.is_error, Some(false));
        client.cancel().await.unwrap();
    }
}

/// `docs/mock.md`, "Declaring faults".
#[rustfmt::skip]
mod mock_faults {
    use mcp_replay::mock::{Fault, Faults};
    use mcp_replay::Options;
    use std::time::Duration;

    fn options() -> Options {
        let faults = Faults::new()
            .on("tools/call", Fault::error(-32603, "upstream down")).tool("add").nth(2)
            .on("tools/list", Fault::delay(Duration::from_millis(300)))
            .on_line(6, Fault::Drop)
            .on("tools/call", Fault::Twice).probability(0.2)
            .seed(42);
        Options::new().faults(faults)
    }

    #[test]
    fn declare() {
        drop(options());
    }
}

/// `mcp-replay/README.md`, example 1.
#[rustfmt::skip]
mod runtime_readme {
    // Compiled, not run (the fixture belongs to the reader's project): `#[tokio::test]`
    // becomes `#[tokio::main]`, so the function is type-checked as a plain one.
    mod tokio {
        pub use ::tokio::{main as test, process, runtime};
    }
    use mcp_replay_demo::DemoServer as MyServer;

    use mcp_replay::{mcp_fixture, Transport};
    use rmcp::ServiceExt;

    #[mcp_fixture("lookup_issue")]              // fixtures/lookup_issue.jsonl
    #[tokio::test]
    async fn lookup_issue(transport: Transport) {
        let server = MyServer::default().serve(transport).await.unwrap();
        let _ = server.waiting().await;
    }
}

/// `docs/cli.md`, example 1.
#[rustfmt::skip]
mod cli_session {
    // Compiled, not run (the fixture belongs to the reader's project): `#[tokio::test]`
    // becomes `#[tokio::main]`, so the function is type-checked as a plain one.
    mod tokio {
        pub use ::tokio::{main as test, process, runtime};
    }

    use mcp_replay::process::serve_command;
    use mcp_replay::{mcp_fixture, Transport};
    use tokio::process::Command;

    #[mcp_fixture("session")]
    #[tokio::test]
    async fn session(transport: Transport) -> std::io::Result<()> {
        serve_command(transport, Command::new("python").arg("server.py")).await
    }
}

/// `docs/http.md`, example 1.
#[rustfmt::skip]
mod http_echo {
    // Compiled, not run (the fixture belongs to the reader's project): `#[tokio::test]`
    // becomes `#[tokio::main]`, so the function is type-checked as a plain one.
    mod tokio {
        pub use ::tokio::{main as test, process, runtime};
    }
    use mcp_replay::mcp_fixture;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::StreamableHttpService;

    #[derive(Clone)]
    struct Echo;
    impl rmcp::ServerHandler for Echo {}

    #[mcp_fixture("echo", http)]
    #[tokio::test(flavor = "multi_thread")]
    async fn echo_over_http() -> StreamableHttpService<Echo, LocalSessionManager> {
        StreamableHttpService::new(|| Ok(Echo), Default::default(), Default::default())
    }
}

/// `docs/normalization.md`, example 2 ("In code, for one test").
#[rustfmt::skip]
mod normalization_rules {
    // Compiled, not run (the fixture belongs to the reader's project): `#[tokio::test]`
    // becomes `#[tokio::main]`, so the function is type-checked as a plain one.
    mod tokio {
        pub use ::tokio::{main as test, process, runtime};
    }

    use mcp_replay::{mcp_fixture, Rules, Transport};

    fn rules() -> Rules {
        Rules::default()
            .replace(".result.content[].text", "<TEXT>")            // pin to a fixed value
            .regex(".params.**.message", r"\d+ ms", "<DURATION>")   // rewrite part of a string
            .compute(".result.structuredContent.count", |v, _path| { // computed from value and path
                serde_json::json!(if v.as_u64() > Some(0) { "<SOME>" } else { "<NONE>" })
            })
            .remove(".result._meta[\"x-trace\"]")                   // says nothing: delete it
            .sort(".result.tools")                                  // order not guaranteed
            .unordered("notifications/message")                     // may arrive in any order
    }

    #[mcp_fixture("report", rules = rules)]
    #[tokio::test]
    async fn report(transport: Transport) { /* serve */ }
}

/// `docs/normalization.md`, example 1 ("Versions").
#[rustfmt::skip]
mod normalization_without_cache_hints {
    use mcp_replay::Rules;

    // Compare `cacheScope` and `ttlMs` again; the error codes of both eras stay one.
    fn rules() -> Rules {
        Rules::default().without("cache-hints")
    }

    #[test]
    fn turns_the_one_rule_off() {
        let rules = rules();
        assert!(!rules.applies("cache-hints") && rules.applies("resource-not-found-code"));
    }
}

/// `docs/normalization.md`, example 3 ("Personal data").
#[rustfmt::skip]
mod normalization_personal {
    use mcp_replay::Rules;

    fn rules() -> Rules {
        Rules::default()
            .pseudonymize(".result.structuredContent.owner", "name")   // a field you can name
            .pseudonymize_pattern(r"\bEMP-\d{6}\b", "employee")          // a shape you can write
            .redact_value("customer", "Acme Corporation")               // a value you know
    }

    #[test]
    fn builds_the_rules() {
        let _ = rules();
    }
}

/// The documents outside `docs/` whose Rust examples this file holds (every file of
/// `docs/` is read too).
const READMES: [&str; 3] = [
    "README.md",
    "mcp-replay/README.md",
    "mcp-replay-cli/README.md",
];

/// The Rust code blocks of a Markdown text (fences whose info string starts with `rust`),
/// each with its info string.
fn rust_blocks(markdown: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.trim_start().starts_with("```"))
            .collect();
        if info.starts_with("rust") {
            blocks.push((info.to_owned(), body.join("\n")));
        }
    }
    blocks
}

/// `docs/explore.md`, the test that explores.
#[rustfmt::skip]
mod explore_in_a_test {
    // Compiled, not run: `#[tokio::test]` becomes `#[tokio::main]`.
    mod tokio {
        pub use ::tokio::{main as test, runtime};
    }
    async fn serve(transport: mcp_replay::Transport) {
        use rmcp::ServiceExt;
        let server = mcp_replay_demo::DemoServer::default().serve(transport).await.unwrap();
        let _ = server.waiting().await;
    }

    use mcp_replay::harness::Explore;

    #[tokio::test]
    async fn the_tools_keep_the_specifications_rules() {
        let found = Explore::new().seed(7).calls(200).serve(serve).await.unwrap();
        assert!(found.findings().is_empty(), "{found}");
    }
}

#[test]
fn every_rust_example_in_the_docs_is_here() {
    let here = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/doc_examples.rs"
    ))
    .unwrap();
    let here: String = here
        .lines()
        .map(|l| l.strip_prefix("    ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    // The repository's root, where the READMEs and `docs/` are.
    let root = env!("CARGO_MANIFEST_DIR");
    let mut docs: Vec<String> = READMES.iter().map(|d| d.to_string()).collect();
    for entry in std::fs::read_dir(format!("{root}/docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(format!(
                "docs/{}",
                path.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    docs.sort();
    let mut count = 0;
    for document in &docs {
        let text = std::fs::read_to_string(format!("{root}/{document}")).unwrap();
        for (info, body) in rust_blocks(&text) {
            count += 1;
            assert_eq!(
                info, "rust",
                "{document}: a `{info}` example is not compiled; make it `rust` and add it here"
            );
            assert!(
                here.contains(&body),
                "{document}: this example is not in tests/doc_examples.rs word for word \
                 (add it, or update the copy):\n{body}"
            );
        }
    }
    assert_eq!(count, 11, "a new example: add it to this file's modules");
}

/// The README's test command (the `cargo test` line of its first `sh` block) is the one CI
/// runs: `.ci/run` has it as a line of its own after `# The README's test command`.
#[test]
fn ci_runs_the_readmes_test_command() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let block: Vec<&str> = readme
        .lines()
        .skip_while(|l| l.trim() != "```sh")
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    let command = block
        .iter()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .find(|l| l.starts_with("cargo test"))
        .expect("the README's first sh block has a `cargo test` line");
    let ci = std::fs::read_to_string(format!("{root}/.ci/run")).unwrap();
    let after = ci
        .lines()
        .skip_while(|l| !l.starts_with("# The README's test command"))
        .find(|l| !l.starts_with('#'))
        .expect(".ci/run says where the README's test command is");
    assert_eq!(
        after.trim(),
        command,
        ".ci/run does not run the README's test command"
    );
}

/// Every kind of finding is named in each place the documentation lists them: the kinds'
/// table of docs/fixture-format.md and the JSON report's `findings[].kind` row of
/// docs/cli.md. A new kind that one of them misses fails here. (What the harness says of a
/// kind, its name, its help and whether it spoils a recording, is one table in
/// `findings/kind.rs`; the crate's front page links to it.)
#[test]
fn every_mismatch_kind_is_in_every_table_of_kinds() {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |file: &str| std::fs::read_to_string(format!("{root}/{file}")).unwrap();
    let format = read("docs/fixture-format.md");
    let cli = read("docs/cli.md");
    let json_row = cli
        .lines()
        .find(|l| l.starts_with("| `findings[].kind` |"))
        .expect("docs/cli.md has the findings[].kind row");
    let mut missing = Vec::new();
    for kind in mcp_replay::MismatchKind::ALL {
        let name = kind.name();
        if !format.contains(&format!("| `{name}` |")) {
            missing.push(format!("docs/fixture-format.md's table: {name}"));
        }
        if !json_row.contains(&format!("`{name}`")) {
            missing.push(format!("docs/cli.md's findings[].kind: {name}"));
        }
    }
    assert!(missing.is_empty(), "kinds not documented: {missing:#?}");
}

/// Every option of `#[mcp_fixture]` is documented where a test author meets the attribute
/// (`mcp_replay::mcp_fixture`, a `- \`key` bullet), and nothing else is: the keys are read
/// from the parser's one table (`KNOBS` in mcp-replay-macros/src/parse.rs), the list its
/// error texts name too.
#[test]
fn every_attribute_option_is_documented_and_no_other() {
    let root = env!("CARGO_MANIFEST_DIR");
    let read = |file: &str| std::fs::read_to_string(format!("{root}/{file}")).unwrap();
    let parse = read("mcp-replay-macros/src/parse.rs");
    let table = parse
        .split("const KNOBS")
        .nth(1)
        .and_then(|rest| rest.split("];").next())
        .expect("parse.rs has the table KNOBS");
    let keys: Vec<&str> = table
        .split("key: \"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    assert!(keys.len() >= 8, "{keys:?}");
    let lib = read("mcp-replay/src/lib.rs");
    let docs: Vec<&str> = lib
        .split("pub use mcp_replay_macros::mcp_fixture;")
        .next()
        .unwrap()
        .rsplit("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("/// - `"))
        .collect();
    let documented: Vec<&str> = docs
        .iter()
        .map(|l| {
            &l[..l
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap()]
        })
        .filter(|k| keys.contains(k))
        .collect();
    assert_eq!(
        documented, keys,
        "the attribute's bullets, in the table's order"
    );
}
