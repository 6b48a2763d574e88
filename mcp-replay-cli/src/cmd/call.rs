//! `mcp-replay call`: the command acts as the client and writes the exchange as a fixture.
//!
//! The steps run in the order they are on the command line (clap's indices give it back),
//! each request waits for its answer, the server's own requests get a cautious client's
//! answers ([`crate::client`]), and the exchange goes through the same normalization and
//! secret check as `record`.

use crate::args::{positive_time, RulesArg, ServerArg, StrayArg};
use crate::client::{finish, run_session, Answers, Client, Finished, Step, Stop};
use crate::error::{Error, Outcome};
use clap::{ArgAction, ArgMatches};
use mcp_replay::_support::protocol::{self, Era};
use mcp_replay::_support::record::{fixture_from_exchange, StrayLines, ALLOW_STRAY_OUTPUT};
use mcp_replay::_support::update::{write_fixture, UpdateMode};
use mcp_replay::fixture::{Direction, MessageKind};
use mcp_replay::Fixture;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `mcp-replay call`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Where to write the fixture
    #[arg(short, long, value_name = "FIXTURE")]
    pub output: PathBuf,
    /// Step: list the server's tools (tools/list)
    #[arg(long, action = ArgAction::Append, num_args = 0, default_missing_value = "true")]
    pub list_tools: Vec<bool>,
    /// Step: list the server's resources (resources/list)
    #[arg(long, action = ArgAction::Append, num_args = 0, default_missing_value = "true")]
    pub list_resources: Vec<bool>,
    /// Step: list the server's prompts (prompts/list)
    #[arg(long, action = ArgAction::Append, num_args = 0, default_missing_value = "true")]
    pub list_prompts: Vec<bool>,
    /// Step: list the server's resource templates (resources/templates/list)
    #[arg(long, action = ArgAction::Append, num_args = 0, default_missing_value = "true")]
    pub list_resource_templates: Vec<bool>,
    /// Step: set the server's log level (logging/setLevel), e.g. debug, info, warning
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Vec<String>,
    /// Ask for progress on the preceding --tool: its request carries _meta.progressToken,
    /// so the server may send notifications/progress while it runs
    #[arg(long, action = ArgAction::Append, num_args = 0, default_missing_value = "true")]
    pub progress: Vec<bool>,
    /// Step: call a tool (tools/call); its arguments follow it
    #[arg(long, value_name = "NAME")]
    pub tool: Vec<String>,
    /// Call each --tool as a task (MCP Tasks): the call asks for a task (2025-11-25) and
    /// the Tasks extension is declared (2026-07-28); the task is polled with tasks/get as
    /// the server's interval says until it ends, input it asks for is answered as for a
    /// server request, and its result fetched
    #[arg(long)]
    pub task: bool,
    /// Step: read a resource (resources/read)
    #[arg(long, value_name = "URI")]
    pub resource: Vec<String>,
    /// Step: get a prompt (prompts/get); its arguments follow it
    #[arg(long, value_name = "NAME")]
    pub prompt: Vec<String>,
    /// The arguments of the preceding --tool or --prompt, as one JSON object
    #[arg(long, value_name = "JSON")]
    pub args: Vec<String>,
    /// Arguments of the preceding --tool or --prompt: KEY=VALUE (a string) or KEY:=JSON
    /// (typed: 2, true, `[1,2]`, `{"a":1}`)
    #[arg(value_name = "KEY=VALUE|KEY:=JSON")]
    pub pairs: Vec<String>,
    /// The protocol version to speak: 2026-07-28 (or later) is the stateless era
    /// (server/discover, identity in every request's _meta, no handshake)
    /// [default: 2025-11-25, with the initialize handshake]
    #[arg(long, value_name = "VERSION")]
    pub protocol: Option<String>,
    /// Write only the client's lines (and the server requests it answered, by method):
    /// re-record the server's side with `replay --update` or MCP_FIXTURE_UPDATE=1
    #[arg(long)]
    pub client_only: bool,
    /// How long to wait for each answer and for the server to exit: 700ms, 2s, or
    /// milliseconds
    #[arg(long, value_name = "TIME", value_parser = positive_time, default_value = "5s")]
    pub timeout: Duration,
    /// Declare the roots capability and answer roots/list with these roots (repeatable)
    #[arg(long, value_name = "URI")]
    pub root: Vec<String>,
    /// Declare the elicitation capability and accept every elicitation with this content
    /// (a JSON object) [default: decline]
    #[arg(long, value_name = "JSON")]
    pub accept_elicitation: Option<String>,
    /// Declare the sampling capability and answer every sampling request with this
    /// assistant text [default: refuse]
    #[arg(long, value_name = "TEXT")]
    pub sampling_reply: Option<String>,
    /// Call the Streamable HTTP server at URL (http://HOST:PORT/PATH) instead of starting one
    #[arg(long, value_name = "URL", value_parser = crate::net::parse_url, conflicts_with = "server")]
    pub url: Option<http::Uri>,
    #[command(flatten)]
    pub headers: crate::args::HeaderArgs,
    #[command(flatten)]
    pub stray: StrayArg,
    #[command(flatten)]
    pub rules: RulesArg,
    /// The server to start, after `--` (e.g. -- node server.js); with --client-only it may
    /// be left out: the steps are then written as they are, without a server
    #[arg(
        last = true,
        value_name = "SERVER COMMAND",
        required_unless_present_any = ["client_only", "url"]
    )]
    pub server: Vec<std::ffi::OsString>,
}

/// The examples and exit statuses of `mcp-replay call --help`.
pub(crate) const AFTER_HELP: &str = concat!(
        "Examples:\n",
        "  mcp-replay call -o fixtures/echo.jsonl --list-tools --tool echo message=hello -- node server.js\n",
        "  mcp-replay call -o fixtures/add.jsonl --tool add a:=2 b:=3 -- python server.py\n",
        "  mcp-replay call -o fixtures/readme.jsonl --resource file:///README.md --client-only -- ./server\n",
        "  mcp-replay call -o fixtures/modern.jsonl --protocol 2026-07-28 --tool search --args '{\"q\":\"mcp\"}' -- ./server\n",
        "  mcp-replay call -o fixtures/research.jsonl --task --tool research topic=tides -- ./server\n",
        "\n",
        "The steps run in the order given, each waiting for its answer (--timeout), and each\n",
        "answer is printed to stdout as JSON. KEY=VALUE passes a string argument to the --tool\n",
        "or --prompt before it, KEY:=JSON a typed one (2, true, [1,2], {\"a\":1}); --args JSON\n",
        "passes them as one object. KEY=@N:.PATH passes what step N answered at PATH\n",
        "(id=@1:.structuredContent.id reads back what step 1 created; bound in the fixture).\n",
        "The server's requests get a cautious client's answers\n",
        "(no roots, elicitation declined, sampling refused) unless --root, --accept-elicitation\n",
        "or --sampling-reply say otherwise.\n",
        "\n",
        "Exit 1 when a step got a JSON-RPC error (the fixture is written: it pins the error),\n",
        "when the server wrote lines on stdout that are not JSON-RPC messages (written without
",
        "them; --allow-stray-output allows them), or when the server exited, did not answer or
",
        "refused the handshake (nothing written); 2 when the server could not start or the
",
        "fixture would hold a secret (nothing written)."
    );

/// What an option on the command line contributes, before it is attached to its step.
enum Piece {
    /// A step option.
    Step(Step),
    /// `--args JSON`, unparsed.
    Object(String),
    /// `KEY=VALUE` or `KEY:=JSON`, unparsed.
    Pair(String),
    /// `--progress`.
    Progress,
}

/// A valued option: its clap id, its values, and what each value is.
type Valued<'a> = (&'a str, &'a [String], fn(String) -> Piece);

/// The steps in command-line order, each `--args` and `KEY=VALUE` attached to the
/// `--tool` or `--prompt` before it. `matches` are the `call` subcommand's.
fn steps(args: &Args, matches: &ArgMatches) -> Result<Vec<Step>, Error> {
    let mut steps: Vec<Step> = Vec::new();
    for (_, piece) in pieces(args, matches) {
        let (what, arguments) = match piece {
            Piece::Step(step) => {
                steps.push(step);
                continue;
            }
            Piece::Object(text) => (format!("--args {text}"), object(&text)?),
            Piece::Pair(text) => {
                let (key, value) = pair(&text)?;
                (text, Map::from_iter([(key, value)]))
            }
            Piece::Progress => {
                ask_progress(&mut steps)?;
                continue;
            }
        };
        attach(&mut steps, &what, arguments)?;
    }
    if steps.is_empty() {
        return Err(Error::usage(
            "no step to run: give at least one of --list-tools, --list-resources, \
             --list-prompts, --list-resource-templates, --log-level LEVEL, --tool NAME, \
             --resource URI, --prompt NAME",
        ));
    }
    let offline = (args.server.is_empty() && args.url.is_none())
        .then_some("--client-only without a server runs no step");
    crate::client::check_references(&steps, offline).map_err(Error::usage)?;
    Ok(steps)
}

/// What each option contributes, with its place on the command line, in command-line order.
fn pieces(args: &Args, matches: &ArgMatches) -> Vec<(usize, Piece)> {
    let mut pieces: Vec<(usize, Piece)> = Vec::new();
    let indices = |id: &str| -> Vec<usize> {
        matches
            .indices_of(id)
            .map(Iterator::collect)
            .unwrap_or_default()
    };
    for (id, step) in [
        ("list_tools", Step::ListTools),
        ("list_resources", Step::ListResources),
        ("list_prompts", Step::ListPrompts),
        ("list_resource_templates", Step::ListResourceTemplates),
    ] {
        pieces.extend(
            indices(id)
                .into_iter()
                .map(|i| (i, Piece::Step(step.clone()))),
        );
    }
    pieces.extend(
        indices("progress")
            .into_iter()
            .map(|i| (i, Piece::Progress)),
    );
    let valued: [Valued; 6] = [
        ("tool", &args.tool, |n| {
            Piece::Step(Step::Tool(n, Map::new(), None))
        }),
        ("log_level", &args.log_level, |l| {
            Piece::Step(Step::SetLevel(l))
        }),
        ("resource", &args.resource, |u| {
            Piece::Step(Step::Resource(u))
        }),
        ("prompt", &args.prompt, |n| {
            Piece::Step(Step::Prompt(n, Map::new()))
        }),
        ("args", &args.args, Piece::Object),
        ("pairs", &args.pairs, Piece::Pair),
    ];
    for (id, values, piece) in valued {
        pieces.extend(
            indices(id)
                .into_iter()
                .zip(values.iter().cloned().map(piece)),
        );
    }
    pieces.sort_by_key(|(i, _)| *i);
    pieces
}

/// The JSON object of `--args TEXT`.
fn object(text: &str) -> Result<Map<String, Value>, Error> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(Error::usage(format!(
            "--args {text}: give a JSON object, e.g. --args '{{\"a\": 1}}'"
        ))),
        Err(e) => Err(Error::usage(format!("--args {text}: not JSON ({e})"))),
    }
}

/// Adds `arguments` (from the option `what`) to the last step, which must take arguments.
fn attach(steps: &mut [Step], what: &str, arguments: Map<String, Value>) -> Result<(), Error> {
    let Some(step) = steps.last_mut() else {
        return Err(Error::usage(format!(
            "`{what}` comes before any --tool or --prompt: put arguments after the tool \
             or prompt they are for (e.g. --tool echo text=hi)"
        )));
    };
    let after = step.describe();
    let Some(into) = step.arguments_mut() else {
        return Err(Error::usage(format!(
            "`{what}` follows the step {after}, which takes no arguments: put arguments \
             after the --tool or --prompt they are for"
        )));
    };
    into.extend(arguments);
    Ok(())
}

/// `--progress`: the last step, a `--tool`, asks for progress with a token of its own
/// (`progress-N` for the Nth tool that asks), which the fixture keeps as a label.
fn ask_progress(steps: &mut [Step]) -> Result<(), Error> {
    let asked = steps
        .iter()
        .filter(|s| matches!(s, Step::Tool(_, _, Some(_))))
        .count();
    match steps.last_mut() {
        Some(Step::Tool(_, _, token @ None)) => {
            *token = Some(Value::String(format!("progress-{}", asked + 1)));
            Ok(())
        }
        Some(Step::Tool(name, ..)) => Err(Error::usage(format!(
            "--progress is given twice for --tool {name}"
        ))),
        _ => Err(Error::usage(
            "--progress asks for the progress of a tool call: put it after the --tool it is \
             for (e.g. --tool reindex --progress)",
        )),
    }
}

/// `KEY=VALUE` (a string) or `KEY:=JSON` (typed), the httpie convention.
fn pair(text: &str) -> Result<(String, Value), Error> {
    let Some(eq) = text.find('=') else {
        return Err(Error::usage(format!(
            "`{text}` is not an argument: write KEY=VALUE (a string) or KEY:=JSON (typed)"
        )));
    };
    let (key, typed) = match text[..eq].strip_suffix(':') {
        Some(key) => (key, true),
        None => (&text[..eq], false),
    };
    if key.is_empty() {
        return Err(Error::usage(format!(
            "`{text}` has no key: write KEY=VALUE or KEY:=JSON"
        )));
    }
    let raw = &text[eq + 1..];
    let value = if typed {
        serde_json::from_str(raw).map_err(|e| {
            Error::usage(format!(
                "`{text}`: {raw} is not JSON ({e}); for a string write {key}={raw}"
            ))
        })?
    } else {
        Value::String(raw.to_owned())
    };
    Ok((key.to_owned(), value))
}

/// Runs the steps against the server after `--` (or, with `--client-only` and no server,
/// writes them as the client would send them), and writes the fixture; a JSON-RPC error
/// or an incomplete exchange is a finding. `matches` are the `call` subcommand's.
pub(crate) async fn run(args: Args, matches: &ArgMatches) -> Result<Outcome, Error> {
    let steps = steps(&args, matches)?;
    let mut answers = Answers::new(
        &args.root,
        args.accept_elicitation.as_deref(),
        args.sampling_reply.as_deref(),
    )?;
    answers.tasks = args.task;
    let output = args.output.display().to_string();
    let folder = args.output.parent().unwrap_or(Path::new("."));
    let rules = args
        .headers
        .redacted(Some(args.rules.resolve(None, folder)?))?
        .unwrap_or_default();
    let protocol = args
        .protocol
        .as_deref()
        .unwrap_or(protocol::DEFAULT_PROTOCOL);
    let stateless = Era::of_version(protocol).is_stateless();
    if args.server.is_empty() && args.url.is_none() {
        return write_offline(&args, &steps, &rules, &output, stateless);
    }
    let server = ServerArg {
        server: args.server.clone(),
    };
    let headers = args.headers.resolved()?;
    let (session, closed) = converse(&args, &server, &headers, &steps, answers).await?;
    let mut problems = match session {
        Ok(found) => {
            if let Some(exit) = &closed.exit {
                eprintln!("mcp-replay call: {exit} after its input closed");
            }
            found
        }
        Err(stop) => {
            // A server that exited before the exchange was complete: how it exited (or
            // what the HTTP session found) says why.
            let why = closed.exit.as_deref().or(closed.problem.as_deref());
            eprintln!(
                "mcp-replay call: {}: {output} not written (the exchange is incomplete)",
                stop.with_exit(why)
            );
            return Ok(Outcome::Findings);
        }
    };
    let Client {
        exchange, stray, ..
    } = closed.client;
    problems.extend(closed.problem);
    problems.extend(stray_problem(&stray, &args, &output));
    let mut fixture = build_fixture(exchange, &rules, &output, &args)?;
    if !args.client_only {
        let target = || crate::live::target(args.url.as_ref(), &server, &headers);
        fixture =
            crate::capture::settled(fixture, target, &rules, Some(args.timeout), "call").await;
    }
    write_fixture(&fixture, &args.output, UpdateMode::Always).map_err(Error::output)?;
    let what = if args.client_only {
        "the client's side: re-record the server's with `mcp-replay replay --update`"
    } else {
        "the whole exchange"
    };
    eprintln!(
        "mcp-replay call: wrote {output} ({} messages, {what})",
        fixture.entries().len()
    );
    crate::capture::warn_protocol("call", &fixture, &output);
    Ok(report(&problems, &output))
}

/// What the server's lines on stdout that are not JSON-RPC messages are: a problem, or
/// (allowed) a note printed here.
fn stray_problem(stray: &StrayLines, args: &Args, output: &str) -> Option<String> {
    let description = stray.describe("the server", "stdout")?;
    if args.stray.allow_stray_output {
        eprintln!(
            "mcp-replay call: note: {description} (left out; allowed: the fixture's header \
             says \"{ALLOW_STRAY_OUTPUT}\": true)"
        );
        return None;
    }
    Some(format!(
        "{description}: MCP's stdio transport carries only JSON-RPC messages on stdout, \
         and a replay of {output} fails on them the same way (they are left out of it); \
         fix the server, or call with --allow-stray-output (the fixture's header then \
         says \"{ALLOW_STRAY_OUTPUT}\": true)"
    ))
}

/// The session with the server at `--url` (through the runtime's bridge) or started from
/// `server`: the steps' outcome, and how the other side ended.
async fn converse(
    args: &Args,
    server: &ServerArg,
    headers: &[(http::HeaderName, http::HeaderValue)],
    steps: &[Step],
    answers: Answers,
) -> Result<(Result<Vec<String>, Stop>, Finished), Error> {
    let protocol = args
        .protocol
        .as_deref()
        .unwrap_or(protocol::DEFAULT_PROTOCOL);
    let stateless = Era::of_version(protocol).is_stateless();
    let client_info = json!({"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")});
    Ok(match &args.url {
        Some(url) => {
            crate::net::probe(url).await.map_err(Error::server)?;
            let (bridged, mut client) = Client::over_http(url, headers, args.timeout, answers);
            let session = run_session(&mut client, steps, protocol, stateless, client_info).await;
            (session, bridged.finish(client, args.timeout).await)
        }
        None => {
            let (mut child, mut client) = Client::start(server, args.timeout, answers)?;
            let session = run_session(&mut client, steps, protocol, stateless, client_info).await;
            let closed = finish(&mut child, client, args.timeout, &server.line()).await;
            (session, closed)
        }
    })
}

/// `--client-only` without a server: writes the steps as the client would send them.
fn write_offline(
    args: &Args,
    steps: &[Step],
    rules: &mcp_replay::Rules,
    output: &str,
    stateless: bool,
) -> Result<Outcome, Error> {
    let fixture = build_fixture(offline_exchange(steps, stateless), rules, output, args)?;
    write_fixture(&fixture, &args.output, UpdateMode::Always).map_err(Error::output)?;
    eprintln!(
        "mcp-replay call: wrote {output} ({n} client message{s}, no server run: record the \
         server's side with MCP_FIXTURE_UPDATE=1 cargo test, or mcp-replay replay --update)",
        n = fixture.entries().len(),
        s = if fixture.entries().len() == 1 {
            ""
        } else {
            "s"
        }
    );
    Ok(Outcome::Success)
}

/// Reports the problems of a session whose fixture is written: findings if there are any,
/// success if not.
fn report(problems: &[String], output: &str) -> Outcome {
    if problems.is_empty() {
        return Outcome::Success;
    }
    for problem in problems {
        eprintln!("mcp-replay call: {problem}");
    }
    eprintln!(
        "mcp-replay call: {output} is written and pins what the server did; exit status 1 for the problem{} above",
        if problems.len() == 1 { "" } else { "s" }
    );
    Outcome::Findings
}

/// The steps as client requests, without a server (`--client-only` with no `-- SERVER`);
/// the stateless era starts with `server/discover`.
fn offline_exchange(steps: &[Step], stateless: bool) -> Vec<(Direction, Value)> {
    let discover = stateless.then_some(("server/discover", None));
    let requests = discover
        .into_iter()
        .chain(steps.iter().map(|step| (step.method(), step.params())));
    requests
        .enumerate()
        .map(|(i, (method, params))| {
            let mut message = json!({"jsonrpc": "2.0", "id": i + 1, "method": method});
            if let Some(params) = params {
                message["params"] = params;
            }
            (Direction::ClientToServer, message)
        })
        .collect()
}

/// The fixture of the exchange: labels, normalization, era header; with `--client-only`
/// only the client's lines (and the server requests it answered, reduced to their method,
/// which a re-recording fills in).
fn build_fixture(
    exchange: Vec<(Direction, Value)>,
    rules: &mcp_replay::Rules,
    output: &str,
    args: &Args,
) -> Result<Fixture, Error> {
    let fixture = fixture_from_exchange(exchange, rules, output).map_err(Error::output)?;
    let mut text = String::new();
    let mut header = Map::new();
    if let Some(protocol) = &args.protocol {
        header.insert("protocol".into(), json!(protocol));
    }
    if args.stray.allow_stray_output {
        header.insert(ALLOW_STRAY_OUTPUT.into(), json!(true));
    }
    if !header.is_empty() {
        header.insert("mcp_replay".into(), json!(1));
        text.push_str(&Value::Object(header).to_string());
        text.push('\n');
    }
    let stateless = args
        .protocol
        .as_deref()
        .is_some_and(|p| Era::of_version(p).is_stateless());
    let client_only = args.client_only;
    for entry in fixture.entries() {
        let direction = entry.direction();
        let mut message = entry.message();
        match (direction, entry.kind()) {
            (Direction::ServerToClient, MessageKind::Request) if client_only => {
                message =
                    json!({"jsonrpc": "2.0", "id": message["id"], "method": message["method"]});
            }
            (Direction::ServerToClient, _) if client_only => continue,
            // The handshake is the harness's own when the fixture has none: a fixture of
            // client lines replays (and re-records) in either era.
            (Direction::ClientToServer, _)
                if client_only
                    && matches!(
                        entry.method(),
                        Some("initialize" | "notifications/initialized")
                    ) =>
            {
                continue
            }
            (Direction::ClientToServer, MessageKind::Request) if stateless => {
                drop_default_identity(&mut message)
            }
            _ => {}
        }
        text.push_str(&json!({"direction": direction.as_str(), "message": message}).to_string());
        text.push('\n');
    }
    Fixture::parse_named(&text, output).map_err(Error::output)
}

/// A stateless-era request without the identity keys the harness adds back when it replays
/// (`clientInfo`, `protocolVersion`, and `clientCapabilities` when it declares nothing):
/// the fixture does not change when the client does.
fn drop_default_identity(message: &mut Value) {
    let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) else {
        return;
    };
    let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) else {
        return;
    };
    meta.remove(protocol::meta::CLIENT_INFO);
    meta.remove(protocol::meta::PROTOCOL_VERSION);
    if meta
        .get(protocol::meta::CLIENT_CAPABILITIES)
        .is_some_and(|c| c.as_object().is_some_and(Map::is_empty))
    {
        meta.remove(protocol::meta::CLIENT_CAPABILITIES);
    }
    if meta.is_empty() {
        params.remove("_meta");
    }
}

#[cfg(test)]
mod should {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::{CommandFactory, FromArgMatches};

    fn parse(argv: &[&str]) -> Result<Vec<Step>, String> {
        let matches = Cli::command()
            .try_get_matches_from(argv)
            .map_err(|e| e.to_string())?;
        let Ok(Cli {
            command: Command::Call(args),
        }) = Cli::from_arg_matches(&matches)
        else {
            return Err("not call".into());
        };
        let sub = matches.subcommand_matches("call").ok_or("no call")?;
        steps(&args, sub).map_err(|e| e.message().to_owned())
    }

    fn tool(name: &str, arguments: Value) -> Step {
        match arguments {
            Value::Object(map) => Step::Tool(name.into(), map, None),
            _ => Step::Tool(name.into(), Map::new(), None),
        }
    }

    #[test]
    fn keep_the_command_line_order_and_attach_arguments() {
        let steps = parse(&[
            "mcp-replay",
            "call",
            "-o",
            "f.jsonl",
            "--tool",
            "add",
            "a:=2",
            "b:=3",
            "--list-tools",
            "--tool",
            "echo",
            "text=hi",
            "--args",
            r#"{"n": [1]}"#,
            "--resource",
            "file:///x",
            "--list-tools",
            "--prompt",
            "p",
            "k=v",
            "--",
            "srv",
        ])
        .unwrap();
        assert_eq!(
            steps,
            vec![
                tool("add", json!({"a": 2, "b": 3})),
                Step::ListTools,
                tool("echo", json!({"text": "hi", "n": [1]})),
                Step::Resource("file:///x".into()),
                Step::ListTools,
                Step::Prompt("p".into(), Map::from_iter([("k".into(), json!("v"))])),
            ]
        );
    }

    #[test]
    fn ask_for_progress_a_log_level_and_resource_templates() {
        let steps = parse(&[
            "mcp-replay",
            "call",
            "-o",
            "f.jsonl",
            "--log-level",
            "debug",
            "--list-resource-templates",
            "--tool",
            "reindex",
            "--progress",
            "depth:=2",
            "--tool",
            "echo",
            "--tool",
            "count",
            "--progress",
            "--client-only",
        ])
        .unwrap();
        assert_eq!(
            steps,
            vec![
                Step::SetLevel("debug".into()),
                Step::ListResourceTemplates,
                Step::Tool(
                    "reindex".into(),
                    Map::from_iter([("depth".into(), json!(2))]),
                    Some(json!("progress-1"))
                ),
                tool("echo", json!({})),
                Step::Tool("count".into(), Map::new(), Some(json!("progress-2"))),
            ]
        );
        assert_eq!(
            steps[2].params(),
            Some(
                json!({"name": "reindex", "arguments": {"depth": 2}, "_meta": {"progressToken": "progress-1"}})
            )
        );
        assert_eq!(steps[0].params(), Some(json!({"level": "debug"})));
        assert_eq!(steps[0].method(), "logging/setLevel");
        assert_eq!(steps[1].method(), "resources/templates/list");
        for (argv, why) in [
            (
                &["--list-tools", "--progress"][..],
                "after the --tool it is for",
            ),
            (
                &["--progress", "--tool", "t"][..],
                "after the --tool it is for",
            ),
            (&["--tool", "t", "--progress", "--progress"][..], "twice"),
        ] {
            let argv: Vec<&str> = ["mcp-replay", "call", "-o", "f", "--client-only"]
                .into_iter()
                .chain(argv.iter().copied())
                .collect();
            let error = parse(&argv).unwrap_err();
            assert!(error.contains(why), "{argv:?}: {error}");
        }
    }

    #[test]
    fn refuse_misplaced_or_malformed_arguments() {
        for (steps, why) in [
            (&["a=1", "--tool", "t"][..], "before any --tool"),
            (&["--list-tools", "a=1"][..], "takes no arguments"),
            (&["--tool", "t", "a:=nope"][..], "not JSON"),
            (&["--tool", "t", "hi"][..], "KEY=VALUE"),
            (&["--tool", "t", "--args", "[1]"][..], "JSON object"),
            (&[][..], "no step"),
        ] {
            let argv: Vec<&str> = ["mcp-replay", "call", "-o", "f"]
                .into_iter()
                .chain(steps.iter().copied())
                .chain(["--", "s"])
                .collect();
            let e = parse(&argv).unwrap_err();
            assert!(e.contains(why), "{steps:?}: {e}");
        }
    }

    #[test]
    fn read_pairs_the_httpie_way() {
        assert_eq!(pair("a=1").ok().map(|p| p.1), Some(json!("1")));
        assert_eq!(pair("a:=1").ok().map(|p| p.1), Some(json!(1)));
        assert_eq!(
            pair("url=http://x:=y").ok(),
            Some(("url".into(), json!("http://x:=y")))
        );
        assert_eq!(pair("e=").ok().map(|p| p.1), Some(json!("")));
        assert!(pair("=1").is_err());
    }
}
