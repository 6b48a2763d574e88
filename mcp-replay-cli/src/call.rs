//! `mcp-replay call`: the command acts as the client and writes the exchange as a fixture.
//!
//! The steps run in the order they are on the command line (clap's indices give it back),
//! each request waits for its answer, the server's own requests get a cautious client's
//! answers, and the exchange goes through the same normalization and secret check as
//! `record`.

use crate::cli::{positive_time, RulesArg, ServerArg, StrayArg};
use crate::out::outln;
use crate::Fatal;
use clap::{ArgAction, ArgMatches, Args};
use mcp_replay::fixture::{Direction, MessageKind};
use mcp_replay::process::{stop, Stopped, STOP_GRACE};
use mcp_replay::record::{fixture_from_exchange, StrayLines, ALLOW_STRAY_OUTPUT};
use mcp_replay::update::{write_fixture, UpdateMode};
use mcp_replay::Fixture;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::time::Instant;

/// The protocol version of the legacy handshake when `--protocol` is not given.
const LEGACY_PROTOCOL: &str = "2025-11-25";
/// The first version of the stateless era: no handshake, identity in every `_meta`.
const MODERN_PROTOCOL: &str = "2026-07-28";
/// How many `input_required` rounds one stateless step may take before giving up.
const MAX_INPUT_ROUNDS: usize = 8;

/// `mcp-replay call`.
#[derive(Debug, Args)]
pub(crate) struct CallArgs {
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
    #[command(flatten)]
    pub stray: StrayArg,
    #[command(flatten)]
    pub rules: RulesArg,
    /// The server to start, after `--` (e.g. -- node server.js); with --client-only it may
    /// be left out: the steps are then written as they are, without a server
    #[arg(
        last = true,
        value_name = "SERVER COMMAND",
        required_unless_present = "client_only"
    )]
    pub server: Vec<std::ffi::OsString>,
}

/// One request the user asked for, with its arguments.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// `--list-tools`
    ListTools,
    /// `--list-resources`
    ListResources,
    /// `--list-prompts`
    ListPrompts,
    /// `--list-resource-templates`
    ListResourceTemplates,
    /// `--log-level LEVEL`
    SetLevel(String),
    /// `--tool NAME`, its arguments, and its progress token (`--progress` after it)
    Tool(String, Map<String, Value>, Option<Value>),
    /// `--resource URI`
    Resource(String),
    /// `--prompt NAME` and its arguments
    Prompt(String, Map<String, Value>),
}

impl Step {
    /// The JSON-RPC method of the step.
    fn method(&self) -> &'static str {
        match self {
            Step::ListTools => "tools/list",
            Step::ListResources => "resources/list",
            Step::ListPrompts => "prompts/list",
            Step::ListResourceTemplates => "resources/templates/list",
            Step::SetLevel(_) => "logging/setLevel",
            Step::Tool(..) => "tools/call",
            Step::Resource(_) => "resources/read",
            Step::Prompt(..) => "prompts/get",
        }
    }

    /// The request's params (`None` for the lists, which take none).
    fn params(&self) -> Option<Value> {
        match self {
            Step::ListTools
            | Step::ListResources
            | Step::ListPrompts
            | Step::ListResourceTemplates => None,
            Step::SetLevel(level) => Some(json!({"level": level})),
            Step::Tool(name, arguments, None) => {
                Some(json!({"name": name, "arguments": arguments}))
            }
            Step::Tool(name, arguments, Some(token)) => Some(json!({
                "name": name,
                "arguments": arguments,
                "_meta": {"progressToken": token}
            })),
            Step::Resource(uri) => Some(json!({"uri": uri})),
            Step::Prompt(name, arguments) if arguments.is_empty() => Some(json!({"name": name})),
            Step::Prompt(name, arguments) => Some(json!({"name": name, "arguments": arguments})),
        }
    }

    /// `tools/call echo`, `resources/read file:///x`, `tools/list`.
    fn describe(&self) -> String {
        match self {
            Step::Tool(name, ..) | Step::Prompt(name, _) => format!("{} {name}", self.method()),
            Step::SetLevel(level) => format!("{} {level}", self.method()),
            Step::Resource(uri) => format!("{} {uri}", self.method()),
            _ => self.method().to_owned(),
        }
    }

    /// The arguments this step takes, if it takes any.
    fn arguments_mut(&mut self) -> Option<&mut Map<String, Value>> {
        match self {
            Step::Tool(_, arguments, _) | Step::Prompt(_, arguments) => Some(arguments),
            _ => None,
        }
    }
}

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
fn steps(args: &CallArgs, matches: &ArgMatches) -> Result<Vec<Step>, Fatal> {
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
        return Err(Fatal(
            "no step to run: give at least one of --list-tools, --list-resources, \
             --list-prompts, --list-resource-templates, --log-level LEVEL, --tool NAME, \
             --resource URI, --prompt NAME"
                .into(),
        ));
    }
    Ok(steps)
}

/// What each option contributes, with its place on the command line, in command-line order.
fn pieces(args: &CallArgs, matches: &ArgMatches) -> Vec<(usize, Piece)> {
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
fn object(text: &str) -> Result<Map<String, Value>, Fatal> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(Fatal(format!(
            "--args {text}: give a JSON object, e.g. --args '{{\"a\": 1}}'"
        ))),
        Err(e) => Err(Fatal(format!("--args {text}: not JSON ({e})"))),
    }
}

/// Adds `arguments` (from the option `what`) to the last step, which must take arguments.
fn attach(steps: &mut [Step], what: &str, arguments: Map<String, Value>) -> Result<(), Fatal> {
    let Some(step) = steps.last_mut() else {
        return Err(Fatal(format!(
            "`{what}` comes before any --tool or --prompt: put arguments after the tool \
             or prompt they are for (e.g. --tool echo text=hi)"
        )));
    };
    let after = step.describe();
    let Some(into) = step.arguments_mut() else {
        return Err(Fatal(format!(
            "`{what}` follows the step {after}, which takes no arguments: put arguments \
             after the --tool or --prompt they are for"
        )));
    };
    into.extend(arguments);
    Ok(())
}

/// `--progress`: the last step, a `--tool`, asks for progress with a token of its own
/// (`progress-N` for the Nth tool that asks), which the fixture keeps as a label.
fn ask_progress(steps: &mut [Step]) -> Result<(), Fatal> {
    let asked = steps
        .iter()
        .filter(|s| matches!(s, Step::Tool(_, _, Some(_))))
        .count();
    match steps.last_mut() {
        Some(Step::Tool(_, _, token @ None)) => {
            *token = Some(Value::String(format!("progress-{}", asked + 1)));
            Ok(())
        }
        Some(Step::Tool(name, ..)) => Err(Fatal(format!(
            "--progress is given twice for --tool {name}"
        ))),
        _ => Err(Fatal(
            "--progress asks for the progress of a tool call: put it after the --tool it is \
             for (e.g. --tool reindex --progress)"
                .into(),
        )),
    }
}

/// `KEY=VALUE` (a string) or `KEY:=JSON` (typed), the httpie convention.
fn pair(text: &str) -> Result<(String, Value), Fatal> {
    let Some(eq) = text.find('=') else {
        return Err(Fatal(format!(
            "`{text}` is not an argument: write KEY=VALUE (a string) or KEY:=JSON (typed)"
        )));
    };
    let (key, typed) = match text[..eq].strip_suffix(':') {
        Some(key) => (key, true),
        None => (&text[..eq], false),
    };
    if key.is_empty() {
        return Err(Fatal(format!(
            "`{text}` has no key: write KEY=VALUE or KEY:=JSON"
        )));
    }
    let raw = &text[eq + 1..];
    let value = if typed {
        serde_json::from_str(raw).map_err(|e| {
            Fatal(format!(
                "`{text}`: {raw} is not JSON ({e}); for a string write {key}={raw}"
            ))
        })?
    } else {
        Value::String(raw.to_owned())
    };
    Ok((key.to_owned(), value))
}

/// How the command answers the server's requests, and the capabilities it declares.
#[derive(Debug, Default)]
struct Answers {
    roots: Vec<String>,
    elicitation: Option<Value>,
    sampling: Option<String>,
}

impl Answers {
    /// From the flags; `--accept-elicitation` must be a JSON object.
    fn new(args: &CallArgs) -> Result<Answers, Fatal> {
        let elicitation = match &args.accept_elicitation {
            None => None,
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => Some(v),
                _ => {
                    return Err(Fatal(format!(
                    "--accept-elicitation {text}: give a JSON object, e.g. '{{\"name\": \"Ada\"}}'"
                )))
                }
            },
        };
        Ok(Answers {
            roots: args.root.clone(),
            elicitation,
            sampling: args.sampling_reply.clone(),
        })
    }

    /// Only what a flag asked for: a cautious client declares nothing.
    fn capabilities(&self) -> Value {
        let mut capabilities = Map::new();
        if !self.roots.is_empty() {
            capabilities.insert("roots".into(), json!({}));
        }
        if self.elicitation.is_some() {
            capabilities.insert("elicitation".into(), json!({}));
        }
        if self.sampling.is_some() {
            capabilities.insert("sampling".into(), json!({}));
        }
        Value::Object(capabilities)
    }

    /// The result for a server request, or the JSON-RPC error (code, message).
    fn answer(&self, method: &str) -> Result<Value, (i64, String)> {
        match method {
            "ping" => Ok(json!({})),
            "roots/list" => Ok(json!({
                "roots": self.roots.iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>()
            })),
            "elicitation/create" => Ok(match &self.elicitation {
                Some(content) => json!({"action": "accept", "content": content}),
                None => json!({"action": "decline"}),
            }),
            "sampling/createMessage" => match &self.sampling {
                Some(text) => Ok(json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": text},
                    "model": "mcp-replay",
                    "stopReason": "endTurn"
                })),
                None => Err((
                    -1,
                    "the user refused the sampling request (mcp-replay call --sampling-reply TEXT answers it)".into(),
                )),
            },
            _ => Err((-32601, format!("Method not found: {method}"))),
        }
    }
}

/// Why the session stopped before its end (the server exited, did not answer in time,
/// refused the handshake): no fixture is written.
struct Stop(String);

impl Stop {
    /// The server went away before answering `what`: its pipes closed.
    fn gone(what: &str) -> Stop {
        Stop(format!("{GONE} before answering `{what}`"))
    }

    /// The reason, with how the server exited in place of "the server went away" when that
    /// is known (`the server `false` exited with status 1 before answering `initialize``).
    fn with_exit(self, exit: Option<&str>) -> String {
        match (exit, self.0.strip_prefix(GONE)) {
            (Some(exit), Some(rest)) => format!("{exit}{rest}"),
            (Some(exit), None) => format!("{} ({exit})", self.0),
            (None, _) => self.0,
        }
    }
}

/// How [`Stop::gone`] begins.
const GONE: &str = "the server went away";

/// The client side of the session: the server's pipes, the exchange so far, the era.
struct Client {
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    exchange: Vec<(Direction, Value)>,
    next_id: i64,
    timeout: Duration,
    answers: Answers,
    /// The stateless era's `_meta` identity keys, sent with every request.
    identity: Option<Map<String, Value>>,
    /// The lines the server wrote that are not JSON-RPC messages (left out).
    stray: StrayLines,
}

impl Client {
    /// Sends a request and waits for its response, answering the server's requests and
    /// recording its notifications meanwhile.
    async fn request(&mut self, method: &str, params: Option<Value>) -> Result<Value, Stop> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        let mut params = params;
        if let Some(identity) = &self.identity {
            let p = params.get_or_insert_with(|| json!({}));
            if let Some(p) = p.as_object_mut() {
                let meta = p.entry("_meta").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.extend(identity.clone());
                }
            }
        }
        if let Some(params) = params {
            message["params"] = params;
        }
        self.send(message, method).await?;
        let deadline = Instant::now() + self.timeout;
        loop {
            let Some(incoming) = self.receive(deadline, method).await? else {
                continue;
            };
            let kind = MessageKind::of(&incoming);
            self.exchange
                .push((Direction::ServerToClient, incoming.clone()));
            match kind {
                Ok(MessageKind::Response) if incoming["id"] == json!(id) => return Ok(incoming),
                Ok(MessageKind::Request) => self.answer(&incoming, method).await?,
                _ => {}
            }
        }
    }

    /// Writes one message as a flushed line and records it.
    async fn send(&mut self, message: Value, what: &str) -> Result<(), Stop> {
        let closed = || Stop::gone(what);
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(closed());
        };
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        let written = tokio::time::timeout(self.timeout, async {
            stdin.write_all(&line).await?;
            stdin.flush().await
        })
        .await;
        match written {
            Ok(Ok(())) => {
                self.exchange.push((Direction::ClientToServer, message));
                Ok(())
            }
            Ok(Err(_)) => Err(closed()),
            Err(_) => Err(Stop(format!(
                "the server did not read `{what}` within {}",
                ms(self.timeout)
            ))),
        }
    }

    /// The next JSON-RPC message from the server, `None` for a line that is not one (left
    /// out, with a note).
    async fn receive(&mut self, deadline: Instant, waiting: &str) -> Result<Option<Value>, Stop> {
        let line = match tokio::time::timeout_at(deadline, self.lines.next_line()).await {
            Err(_) => {
                return Err(Stop(format!(
                    "no answer to `{waiting}` within {} (a longer --timeout?)",
                    ms(self.timeout)
                )))
            }
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None) | Err(_)) => return Err(Stop::gone(waiting)),
        };
        if line.trim().is_empty() {
            return Ok(None);
        }
        match serde_json::from_str::<Value>(&line) {
            Ok(v) if MessageKind::of(&v).is_ok() => Ok(Some(v)),
            _ => {
                self.stray.push(line.as_bytes());
                Ok(None)
            }
        }
    }

    /// Answers a server request as a cautious client would (see [`Answers`]).
    async fn answer(&mut self, request: &Value, during: &str) -> Result<(), Stop> {
        let method = request["method"].as_str().unwrap_or_default();
        let response = match self.answers.answer(method) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": request["id"], "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": code, "message": message}})
            }
        };
        eprintln!(
            "mcp-replay call: the server asked `{method}` during `{during}`: answered {}",
            response.get("result").map_or_else(
                || format!("error {}", response["error"]["code"]),
                |r| r.to_string()
            )
        );
        self.send(response, &format!("the answer to {method}"))
            .await
    }

    /// A stateless-era step: retries with `inputResponses` while the server answers
    /// `input_required`. The final response, and whether the step completed.
    async fn stateless_step(&mut self, step: &Step) -> Result<(Value, bool), Stop> {
        let mut params = step.params();
        let mut response = self.request(step.method(), params.clone()).await?;
        for _ in 0..MAX_INPUT_ROUNDS {
            let result = &response["result"];
            if result["resultType"] != "input_required" {
                return Ok((response, true));
            }
            let mut responses = Map::new();
            for (key, input) in result["inputRequests"].as_object().into_iter().flatten() {
                let method = input["method"].as_str().unwrap_or_default();
                match self.answers.answer(method) {
                    Ok(answer) => {
                        eprintln!(
                            "mcp-replay call: `{}` needs `{method}`: answered {answer}",
                            step.describe()
                        );
                        responses.insert(key.clone(), answer);
                    }
                    Err((_, why)) => {
                        eprintln!(
                            "mcp-replay call: `{}` needs `{method}`, which the client does not give: {why}",
                            step.describe()
                        );
                        return Ok((response, false));
                    }
                }
            }
            let mut retry = params.take().unwrap_or_else(|| json!({}));
            retry["inputResponses"] = Value::Object(responses);
            match result.get("requestState") {
                Some(state) => retry["requestState"] = state.clone(),
                None => {
                    if let Some(p) = retry.as_object_mut() {
                        p.remove("requestState");
                    }
                }
            }
            params = Some(retry);
            response = self.request(step.method(), params.clone()).await?;
        }
        Ok((response, false))
    }
}

/// `mcp-replay call`.
pub(crate) async fn call(args: CallArgs, matches: &ArgMatches) -> Result<ExitCode, Fatal> {
    let steps = steps(&args, matches)?;
    let answers = Answers::new(&args)?;
    let output = args.output.display().to_string();
    let folder = args.output.parent().unwrap_or(Path::new("."));
    let rules = args.rules.resolve(None, folder)?;
    let protocol = args.protocol.as_deref().unwrap_or(LEGACY_PROTOCOL);
    let modern = protocol >= MODERN_PROTOCOL;
    if args.server.is_empty() {
        return write_offline(&args, &steps, &rules, &output, modern);
    }
    let (mut child, mut client) = start_server(&args, answers)?;
    let client_info = json!({"name": "mcp-replay", "version": env!("CARGO_PKG_VERSION")});
    let session = run_session(&mut client, &steps, protocol, modern, client_info).await;
    let program = ServerArg {
        server: args.server.clone(),
    }
    .line();
    let closed = finish(&mut child, client, args.timeout, &program).await;
    let mut problems = match session {
        Ok(found) => {
            if let Some(exit) = &closed.exit {
                eprintln!("mcp-replay call: {exit} after its input closed");
            }
            found
        }
        Err(stop) => {
            // A server that exited before the exchange was complete: how it exited says why.
            eprintln!(
                "mcp-replay call: {}: {output} not written (the exchange is incomplete)",
                stop.with_exit(closed.exit.as_deref())
            );
            return Ok(ExitCode::from(1));
        }
    };
    let Client {
        exchange, stray, ..
    } = closed.client;
    problems.extend(closed.problem);
    if let Some(description) = stray.describe("the server", "stdout") {
        if args.stray.allow_stray_output {
            eprintln!(
                "mcp-replay call: note: {description} (left out; allowed: the fixture's header \
                 says \"{ALLOW_STRAY_OUTPUT}\": true)"
            );
        } else {
            problems.push(format!(
                "{description}: MCP's stdio transport carries only JSON-RPC messages on stdout, \
                 and a replay of {output} fails on them the same way (they are left out of it); \
                 fix the server, or call with --allow-stray-output (the fixture's header then \
                 says \"{ALLOW_STRAY_OUTPUT}\": true)"
            ));
        }
    }
    let fixture = build_fixture(exchange, &rules, &output, &args)?;
    write_fixture(&fixture, &args.output, UpdateMode::Always)?;
    let what = if args.client_only {
        "the client's side: re-record the server's with `mcp-replay replay --update`"
    } else {
        "the whole exchange"
    };
    eprintln!(
        "mcp-replay call: wrote {output} ({} messages, {what})",
        fixture.entries().len()
    );
    Ok(report(&problems, &output))
}

/// `--client-only` without a server: writes the steps as the client would send them.
fn write_offline(
    args: &CallArgs,
    steps: &[Step],
    rules: &mcp_replay::Rules,
    output: &str,
    modern: bool,
) -> Result<ExitCode, Fatal> {
    let fixture = build_fixture(offline_exchange(steps, modern), rules, output, args)?;
    write_fixture(&fixture, &args.output, UpdateMode::Always)?;
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
    Ok(ExitCode::SUCCESS)
}

/// Starts the server after `--` with piped stdio, and the client that talks to it.
fn start_server(args: &CallArgs, answers: Answers) -> Result<(Child, Client), Fatal> {
    let server = ServerArg {
        server: args.server.clone(),
    };
    let program = server.line();
    let mut child = server
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Fatal(format!("could not start the server `{program}`: {e}")))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(Fatal("the server's stdio is not piped".into()));
    };
    let client = Client {
        stdin: Some(stdin),
        lines: BufReader::new(stdout).lines(),
        exchange: Vec::new(),
        next_id: 1,
        timeout: args.timeout,
        identity: None,
        answers,
        stray: StrayLines::default(),
    };
    Ok((child, client))
}

/// Reports the problems of a session whose fixture is written: exit status 1 if there are
/// any, success if not.
fn report(problems: &[String], output: &str) -> ExitCode {
    if problems.is_empty() {
        return ExitCode::SUCCESS;
    }
    for problem in problems {
        eprintln!("mcp-replay call: {problem}");
    }
    eprintln!(
        "mcp-replay call: {output} is written and pins what the server did; exit status 1 for the problem{} above",
        if problems.len() == 1 { "" } else { "s" }
    );
    ExitCode::from(1)
}

/// The steps as client requests, without a server (`--client-only` with no `-- SERVER`);
/// the stateless era starts with `server/discover`.
fn offline_exchange(steps: &[Step], modern: bool) -> Vec<(Direction, Value)> {
    let discover = modern.then_some(("server/discover", None));
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

/// The handshake (or discovery) and the steps; each step's answer printed to stdout.
/// `Ok` with the problems to report (a JSON-RPC error, a step that could not complete),
/// `Err` when the session could not go on.
async fn run_session(
    client: &mut Client,
    steps: &[Step],
    protocol: &str,
    modern: bool,
    client_info: Value,
) -> Result<Vec<String>, Stop> {
    if modern {
        client.discover(protocol, client_info).await?;
    } else {
        client.initialize(protocol, client_info).await?;
    }
    let mut problems = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        problems.extend(client.run_step(n + 1, step, modern).await?);
    }
    Ok(problems)
}

impl Client {
    /// The stateless era's start: the identity for every request, then `server/discover`.
    async fn discover(&mut self, protocol: &str, client_info: Value) -> Result<(), Stop> {
        let capabilities = self.answers.capabilities();
        self.identity = Some(Map::from_iter([
            (
                "io.modelcontextprotocol/protocolVersion".to_owned(),
                json!(protocol),
            ),
            ("io.modelcontextprotocol/clientInfo".to_owned(), client_info),
            (
                "io.modelcontextprotocol/clientCapabilities".to_owned(),
                capabilities,
            ),
        ]));
        let discovered = self.request("server/discover", None).await?;
        if let Some(error) = discovered.get("error") {
            return Err(Stop(format!(
                "the server refused `server/discover` ({}): it may not serve {protocol}; \
                 leave out --protocol for the legacy handshake",
                compact(error)
            )));
        }
        let info = &discovered["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
        eprintln!(
            "mcp-replay call: {} (stateless, {protocol})",
            server_name(info)
        );
        Ok(())
    }

    /// The legacy era's handshake: `initialize`, then `notifications/initialized`.
    async fn initialize(&mut self, protocol: &str, client_info: Value) -> Result<(), Stop> {
        let initialize = json!({
            "protocolVersion": protocol,
            "capabilities": self.answers.capabilities(),
            "clientInfo": client_info,
        });
        let response = self.request("initialize", Some(initialize)).await?;
        if let Some(error) = response.get("error") {
            return Err(Stop(format!(
                "the server refused `initialize` ({})",
                compact(error)
            )));
        }
        let result = &response["result"];
        eprintln!(
            "mcp-replay call: {} (protocol {})",
            server_name(&result["serverInfo"]),
            result["protocolVersion"].as_str().unwrap_or("?")
        );
        self.send(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            "notifications/initialized",
        )
        .await
    }

    /// Step number `n`: sends it, prints its answer to stdout, and hands back its problems
    /// (a JSON-RPC error, input the server still asks for).
    async fn run_step(&mut self, n: usize, step: &Step, modern: bool) -> Result<Vec<String>, Stop> {
        let what = step.describe();
        eprintln!("mcp-replay call: step {n}: {what}");
        let (response, complete) = if modern {
            self.stateless_step(step).await?
        } else {
            (self.request(step.method(), step.params()).await?, true)
        };
        let mut problems = Vec::new();
        let shown = match response.get("error") {
            Some(error) => {
                problems.push(format!(
                    "step {n} (`{what}`) got a JSON-RPC error: {}",
                    compact(error)
                ));
                json!({"error": error})
            }
            None => response["result"].clone(),
        };
        if !complete {
            problems.push(format!(
                "step {n} (`{what}`) did not complete: the server still asks for input"
            ));
        }
        outln!("{}\n", pretty(&shown));
        Ok(problems)
    }
}

/// What [`finish`] hands back: the client (its exchange), a problem to report, and how
/// the server exited when it was not a success (`the server `false` exited with status 1`).
struct Finished {
    client: Client,
    problem: Option<String>,
    exit: Option<String>,
}

/// Closes the server's input and stops it as MCP's stdio shutdown says ([`stop`]: a grace
/// of [`STOP_GRACE`], or `timeout` if shorter, then SIGTERM, then SIGKILL), reading what
/// it still writes meanwhile: messages are left out of the fixture (with a note: a replay
/// reports them), lines that are not JSON-RPC messages count as stray output.
async fn finish(
    child: &mut Child,
    mut client: Client,
    timeout: Duration,
    program: &str,
) -> Finished {
    drop(client.stdin.take());
    let grace = STOP_GRACE.min(timeout);
    let mut late = 0usize;
    let stopped = {
        let (lines, stray) = (&mut client.lines, &mut client.stray);
        let reading = async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Value>(&line) {
                    Ok(v) if MessageKind::of(&v).is_ok() => late += 1,
                    _ => stray.push(line.as_bytes()),
                }
            }
        };
        let stopping = stop(child, grace);
        tokio::pin!(reading, stopping);
        let mut read_all = false;
        let stopped = loop {
            tokio::select! {
                stopped = &mut stopping => break stopped,
                () = &mut reading, if !read_all => read_all = true,
            }
        };
        if !read_all {
            // A process the server started may hold its output open: a moment, not a hang.
            let _ = tokio::time::timeout(Duration::from_millis(500), &mut reading).await;
        }
        stopped
    };
    if late > 0 {
        eprintln!(
            "mcp-replay call: left out {late} message{} the server wrote after its input closed \
             (a replay reports {} as unexpected)",
            if late == 1 { "" } else { "s" },
            if late == 1 { "it" } else { "them" }
        );
    }
    let mut exit = None;
    let problem = match stopped {
        Ok((status, Stopped::Exited)) => {
            if !status.success() {
                exit = Some(describe_exit(program, status));
            }
            None
        }
        Ok((_, how)) => {
            if let Some(note) = how.describe(grace) {
                eprintln!(
                    "mcp-replay call: note: {note} (a replay notes it too; `replay --strict-exit` fails it)"
                );
            }
            None
        }
        Err(e) => Some(format!("stopping the server: {e}")),
    };
    Finished {
        client,
        problem,
        exit,
    }
}

/// `the server `PROGRAM` exited with status 3`, or `... was killed by signal 9`.
fn describe_exit(program: &str, status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("the server `{program}` was killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("the server `{program}` exited with status {code}"),
        None => format!("the server `{program}` ended: {status}"),
    }
}

/// The fixture of the exchange: labels, normalization, era header; with `--client-only`
/// only the client's lines (and the server requests it answered, reduced to their method,
/// which a re-recording fills in).
fn build_fixture(
    exchange: Vec<(Direction, Value)>,
    rules: &mcp_replay::Rules,
    output: &str,
    args: &CallArgs,
) -> Result<Fixture, Fatal> {
    let fixture = fixture_from_exchange(exchange, rules, output)?;
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
    let modern = args
        .protocol
        .as_deref()
        .is_some_and(|p| p >= MODERN_PROTOCOL);
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
            (Direction::ClientToServer, MessageKind::Request) if modern => {
                drop_default_identity(&mut message)
            }
            _ => {}
        }
        text.push_str(&json!({"direction": direction.as_str(), "message": message}).to_string());
        text.push('\n');
    }
    Ok(Fixture::parse_named(&text, output)?)
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
    meta.remove("io.modelcontextprotocol/clientInfo");
    meta.remove("io.modelcontextprotocol/protocolVersion");
    if meta
        .get("io.modelcontextprotocol/clientCapabilities")
        .is_some_and(|c| c.as_object().is_some_and(Map::is_empty))
    {
        meta.remove("io.modelcontextprotocol/clientCapabilities");
    }
    if meta.is_empty() {
        params.remove("_meta");
    }
}

/// `name version` of a `serverInfo`, or `the server`.
fn server_name(info: &Value) -> String {
    match (info["name"].as_str(), info["version"].as_str()) {
        (Some(name), Some(version)) => format!("{name} {version}"),
        (Some(name), None) => name.to_owned(),
        _ => "the server".into(),
    }
}

/// Pretty JSON, for stdout.
fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// One-line JSON, shortened, for a message.
fn compact(value: &Value) -> String {
    shorten(&value.to_string())
}

/// At most 200 characters of `text`.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

/// `300 ms`.
fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
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
        steps(&args, sub).map_err(|Fatal(m)| m)
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
