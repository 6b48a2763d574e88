//! The client `mcp-replay call` plays: a session with a server on its stdio (the legacy
//! handshake, or the stateless era's discovery with the identity in every request), each
//! step's request answered in turn while the server's own requests get a cautious client's
//! answers, and MCP's stdio shutdown at the end. What it sent and got is the exchange the
//! fixture is written from.

use crate::args::ServerArg;
use crate::error::Error;
use crate::out::outln;
use mcp_replay::_support::record::StrayLines;
use mcp_replay::fixture::{Direction, MessageKind};
use mcp_replay::process::{stop, Stopped, STOP_GRACE};
use serde_json::{json, Map, Value};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::process::Child;
use tokio::time::Instant;

/// How many `input_required` rounds one stateless step may take before giving up.
const MAX_INPUT_ROUNDS: usize = 8;

/// The time to live `--task` asks for (ms).
const TASK_TTL_MS: u64 = 60_000;

/// The longest `--task` waits between two polls, whatever the server's interval: what a
/// replay waits at most too, so a recording's polls are about as many as a replay's.
const POLL_CAP: Duration = Duration::from_secs(1);

/// One request the user asked for, with its arguments.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
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
    pub(crate) fn method(&self) -> &'static str {
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
    pub(crate) fn params(&self) -> Option<Value> {
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

    /// A listing (`tools/list`, ...), which may come in pages.
    pub(crate) fn is_listing(&self) -> bool {
        matches!(
            self,
            Step::ListTools | Step::ListResources | Step::ListPrompts | Step::ListResourceTemplates
        )
    }

    /// `tools/call echo`, `resources/read file:///x`, `tools/list`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Step::Tool(name, ..) | Step::Prompt(name, _) => format!("{} {name}", self.method()),
            Step::SetLevel(level) => format!("{} {level}", self.method()),
            Step::Resource(uri) => format!("{} {uri}", self.method()),
            _ => self.method().to_owned(),
        }
    }

    /// The arguments this step takes, if it takes any.
    /// The step's arguments, for a tool or a prompt.
    pub(crate) fn arguments(&self) -> Option<&Map<String, Value>> {
        match self {
            Step::Tool(_, arguments, _) | Step::Prompt(_, arguments) => Some(arguments),
            _ => None,
        }
    }

    pub(crate) fn arguments_mut(&mut self) -> Option<&mut Map<String, Value>> {
        match self {
            Step::Tool(_, arguments, _) | Step::Prompt(_, arguments) => Some(arguments),
            _ => None,
        }
    }
}

/// How the command answers the server's requests, and the capabilities it declares.
#[derive(Debug, Default)]
pub(crate) struct Answers {
    roots: Vec<String>,
    elicitation: Option<Value>,
    sampling: Option<String>,
    /// `--task`: each tool is called as a task, and the Tasks extension is declared.
    pub(crate) tasks: bool,
}

impl Answers {
    /// From the flags (`--root`, `--accept-elicitation`, `--sampling-reply`);
    /// `--accept-elicitation` must be a JSON object.
    pub(crate) fn new(
        roots: &[String],
        accept_elicitation: Option<&str>,
        sampling_reply: Option<&str>,
    ) -> Result<Answers, Error> {
        let elicitation = match accept_elicitation {
            None => None,
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => Some(v),
                _ => {
                    return Err(Error::usage(format!(
                    "--accept-elicitation {text}: give a JSON object, e.g. '{{\"name\": \"Ada\"}}'"
                )))
                }
            },
        };
        Ok(Answers {
            roots: roots.to_vec(),
            elicitation,
            sampling: sampling_reply.map(str::to_owned),
            tasks: false,
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
        if self.tasks {
            // The Tasks extension (SEP-2663, 2026-07-28); a server of 2025-11-25 makes a
            // task of a call that carries `task`, whatever the client declares.
            capabilities.insert(
                "extensions".into(),
                json!({"io.modelcontextprotocol/tasks": {}}),
            );
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
pub(crate) struct Stop(String);

impl Stop {
    /// The server went away before answering `what`: its pipes closed.
    fn gone(what: &str) -> Stop {
        Stop(format!("{GONE} before answering `{what}`"))
    }

    /// The reason, with how the server exited in place of "the server went away" when that
    /// is known (`the server `false` exited with status 1 before answering `initialize``).
    pub(crate) fn with_exit(self, exit: Option<&str>) -> String {
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
pub(crate) struct Client {
    stdin: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    lines: Lines<BufReader<Box<dyn AsyncRead + Send + Unpin>>>,
    pub(crate) exchange: Vec<(Direction, Value)>,
    next_id: i64,
    timeout: Duration,
    answers: Answers,
    /// The stateless era's `_meta` identity keys, sent with every request.
    identity: Option<Map<String, Value>>,
    /// The lines the server wrote that are not JSON-RPC messages (left out).
    pub(crate) stray: StrayLines,
    /// Each step's answer as printed, for a later step's `@K:.PATH` ([`refer`]).
    results: Vec<Value>,
}

impl Client {
    /// Starts `server` with piped stdio, and the client that talks to it (waiting `timeout`
    /// for each answer).
    pub(crate) fn start(
        server: &ServerArg,
        timeout: Duration,
        answers: Answers,
    ) -> Result<(Child, Client), Error> {
        let program = server.line();
        let mut child = server
            .command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::server(format!("could not start the server `{program}`: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::server("the server's stdio is not piped"));
        };
        Ok((
            child,
            Client::over(Box::new(stdin), Box::new(stdout), timeout, answers),
        ))
    }

    /// The client of the Streamable HTTP server at `url`, every request with `headers`:
    /// it talks over a pipe whose other end the runtime's bridge serves (a POST a line,
    /// the answers back as lines, the session ended with a DELETE), as it talks to a
    /// server's stdio.
    pub(crate) fn over_http(
        url: &http::Uri,
        headers: &[(http::HeaderName, http::HeaderValue)],
        timeout: Duration,
        answers: Answers,
    ) -> (Bridged, Client) {
        use mcp_replay::_support::bridge::Bridge;
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let bridge = headers.iter().fold(
            Bridge::new(crate::net::HttpClient::new())
                .endpoint(url.clone())
                .timeout(timeout),
            |b, (name, value)| b.header(name.clone(), value.clone()),
        );
        let problems = bridge.problems();
        let task = tokio::spawn(bridge.run(theirs));
        let (read, write) = tokio::io::split(ours);
        let client = Client::over(Box::new(write), Box::new(read), timeout, answers);
        (Bridged { task, problems }, client)
    }

    fn over(
        stdin: Box<dyn AsyncWrite + Send + Unpin>,
        stdout: Box<dyn AsyncRead + Send + Unpin>,
        timeout: Duration,
        answers: Answers,
    ) -> Client {
        Client {
            stdin: Some(stdin),
            lines: BufReader::new(stdout).lines(),
            exchange: Vec::new(),
            next_id: 1,
            timeout,
            identity: None,
            answers,
            stray: StrayLines::default(),
            results: Vec::new(),
        }
    }

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
            let Some(responses) =
                self.answer_inputs(&result["inputRequests"], &[], &step.describe())
            else {
                return Ok((response, false));
            };
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

    /// `--task`: when `created` made a task (a `CreateTaskResult` of protocol 2025-11-25,
    /// or `resultType: "task"` of the Tasks extension), polls `tasks/get` as the server's
    /// interval says (capped at [`POLL_CAP`]) until the task is terminal, answering an
    /// `input_required` status (2025-11-25: `tasks/result`, which delivers the requests
    /// queued to the task; the extension: `tasks/update` with the answers), and fetches the
    /// result (`tasks/result`; the extension has it inline). The final response, and
    /// whether the task completed. A task that makes no progress for the timeout stops it.
    async fn follow_task(&mut self, created: Value, what: &str) -> Result<(Value, bool), Stop> {
        let result = &created["result"];
        let extension = result["resultType"] == "task";
        let task = if extension { result } else { &result["task"] };
        let Some(task_id) = task["taskId"].as_str().map(str::to_owned) else {
            return Ok((created, true));
        };
        eprintln!("mcp-replay call: `{what}` is task {task_id}: polling it");
        let interval = |t: &Value| {
            t.get("pollInterval")
                .or_else(|| t.get("pollIntervalMs"))
                .and_then(Value::as_u64)
                .map_or(Duration::from_millis(200), Duration::from_millis)
                .min(POLL_CAP)
        };
        let mut wait = interval(task);
        let mut last = (task["status"].clone(), task["statusMessage"].clone());
        let mut progress_at = Instant::now();
        let mut answered: Vec<String> = Vec::new();
        loop {
            tokio::time::sleep(wait).await;
            let got = self
                .request("tasks/get", Some(json!({"taskId": task_id})))
                .await?;
            if got.get("error").is_some() {
                return Ok((got, true));
            }
            let status = got["result"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let now = (
                got["result"]["status"].clone(),
                got["result"]["statusMessage"].clone(),
            );
            if now != last {
                last = now;
                progress_at = Instant::now();
            } else if progress_at.elapsed() > self.timeout {
                return Err(Stop(format!(
                    "task {task_id} of `{what}` stayed `{status}` for {} (a longer --timeout?)",
                    ms(self.timeout)
                )));
            }
            wait = interval(&got["result"]);
            match status.as_str() {
                "completed" | "failed" | "cancelled" if extension => return Ok((got, true)),
                "completed" | "failed" | "cancelled" | "input_required" if !extension => {
                    // The result, and on the way the requests queued to the task.
                    let result = self
                        .request("tasks/result", Some(json!({"taskId": task_id})))
                        .await?;
                    return Ok((result, true));
                }
                "input_required" => {
                    let requests = &got["result"]["inputRequests"];
                    let Some(responses) =
                        self.answer_inputs(requests, &answered, &format!("task {task_id}"))
                    else {
                        return Ok((got, false));
                    };
                    answered.extend(responses.keys().cloned());
                    if !responses.is_empty() {
                        let update = json!({"taskId": task_id, "inputResponses": responses});
                        self.request("tasks/update", Some(update)).await?;
                    }
                }
                _ => {}
            }
        }
    }

    /// The answers to the `inputRequests` of `what` (those under the keys in `done` left
    /// out), each said on stderr; `None` when one asks for what the client does not give.
    fn answer_inputs(
        &self,
        requests: &Value,
        done: &[String],
        what: &str,
    ) -> Option<Map<String, Value>> {
        let mut responses = Map::new();
        for (key, input) in requests.as_object().into_iter().flatten() {
            if done.contains(key) {
                continue;
            }
            let method = input["method"].as_str().unwrap_or_default();
            match self.answers.answer(method) {
                Ok(answer) => {
                    eprintln!("mcp-replay call: `{what}` needs `{method}`: answered {answer}");
                    responses.insert(key.clone(), answer);
                }
                Err((_, why)) => {
                    eprintln!(
                        "mcp-replay call: `{what}` needs `{method}`, which the client does not give: {why}"
                    );
                    return None;
                }
            }
        }
        Some(responses)
    }

    /// The stateless era's start: the identity for every request, then `server/discover`.
    async fn discover(&mut self, protocol: &str, client_info: Value) -> Result<(), Stop> {
        let capabilities = self.answers.capabilities();
        self.identity = Some(Map::from_iter([
            (
                mcp_replay::_support::protocol::meta::PROTOCOL_VERSION.to_owned(),
                json!(protocol),
            ),
            (
                mcp_replay::_support::protocol::meta::CLIENT_INFO.to_owned(),
                client_info,
            ),
            (
                mcp_replay::_support::protocol::meta::CLIENT_CAPABILITIES.to_owned(),
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
        let info =
            &discovered["result"]["_meta"][mcp_replay::_support::protocol::meta::SERVER_INFO];
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
    async fn run_step(
        &mut self,
        n: usize,
        step: &Step,
        stateless: bool,
    ) -> Result<Vec<String>, Stop> {
        let what = step.describe();
        eprintln!("mcp-replay call: step {n}: {what}");
        let as_task = self.answers.tasks && matches!(step, Step::Tool(..));
        let (mut response, mut complete) = if stateless {
            self.stateless_step(step).await?
        } else {
            let mut params = step.params();
            if as_task {
                // A task-augmented request (protocol 2025-11-25, SEP-1686).
                if let Some(p) = params.as_mut() {
                    p["task"] = json!({"ttl": TASK_TTL_MS});
                }
            }
            (self.request(step.method(), params).await?, true)
        };
        if as_task && complete {
            (response, complete) = self.follow_task(response, &what).await?;
        }
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
        if !stateless && step.is_listing() {
            self.next_pages(n, step, &response, &mut problems).await?;
        }
        self.results.push(shown);
        Ok(problems)
    }

    /// The pages after the first of listing step `n` (its answer `first`), each asked with
    /// the cursor the one before gave and printed, up to [`MAX_PAGES`] in all: what a
    /// client that reads the whole listing sends, so the fixture holds every page.
    async fn next_pages(
        &mut self,
        n: usize,
        step: &Step,
        first: &Value,
        problems: &mut Vec<String>,
    ) -> Result<(), Stop> {
        let cursor_of = |r: &Value| {
            r.pointer("/result/nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let mut cursor = cursor_of(first);
        let mut page = 1;
        while let Some(c) = cursor.take().filter(|_| page < MAX_PAGES) {
            page += 1;
            eprintln!(
                "mcp-replay call: step {n}: {}, page {page}",
                step.describe()
            );
            let next = self
                .request(step.method(), Some(json!({"cursor": c})))
                .await?;
            if let Some(error) = next.get("error") {
                problems.push(format!(
                    "step {n} (`{}` page {page}) got a JSON-RPC error: {}",
                    step.describe(),
                    compact(error)
                ));
                outln!("{}\n", pretty(&json!({"error": error})));
                break;
            }
            outln!("{}\n", pretty(&next["result"]));
            cursor = cursor_of(&next);
        }
        Ok(())
    }
}

/// At most this many pages of one listing are asked for.
const MAX_PAGES: usize = 100;

/// The handshake (or discovery) and the steps; each step's answer printed to stdout.
/// `Ok` with the problems to report (a JSON-RPC error, a step that could not complete),
/// `Err` when the session could not go on.
pub(crate) async fn run_session(
    client: &mut Client,
    steps: &[Step],
    protocol: &str,
    stateless: bool,
    client_info: Value,
) -> Result<Vec<String>, Stop> {
    if stateless {
        client.discover(protocol, client_info).await?;
    } else {
        client.initialize(protocol, client_info).await?;
    }
    let mut problems = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        let mut step = step.clone();
        if let Some(arguments) = step.arguments_mut() {
            refer(n + 1, arguments, &client.results)?;
        }
        problems.extend(client.run_step(n + 1, &step, stateless).await?);
    }
    Ok(problems)
}

/// A step's argument that reads back an earlier step's answer: `@K:.PATH`, the value at
/// `PATH` of what step `K` answered, or `@K:.PATH~REGEX`, the first match of `REGEX` in the
/// string there (its first group, if it has one): `id=@1:.content[0].text~note-[0-9a-f]+`
/// reads the id out of `created note-3f9a...`. A path goes on into a string that holds
/// JSON (`@1:.content[0].text.id` for a text `{"id":"note-3f9a"}`).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Reference<'s> {
    /// The step it reads (1 is the first).
    pub(crate) step: usize,
    path: &'s str,
    pattern: Option<&'s str>,
}

impl<'s> Reference<'s> {
    /// The reference `value` is, if it is a string of that form.
    pub(crate) fn of(value: &'s Value) -> Option<Reference<'s>> {
        let (step, rest) = value.as_str()?.strip_prefix('@')?.split_once(':')?;
        let step = step.parse::<usize>().ok()?;
        let (path, pattern) = match rest.split_once('~') {
            Some((path, pattern)) => (path, Some(pattern)),
            None => (rest, None),
        };
        Some(Reference {
            step,
            path,
            pattern,
        })
    }

    /// What it reads in `answer`; `Err` says what is not there.
    fn read(&self, answer: &Value) -> Result<Value, String> {
        let found =
            path_in(answer, self.path).ok_or_else(|| format!("nothing at {}", self.path))?;
        let Some(pattern) = self.pattern else {
            return Ok(found);
        };
        let text = found
            .as_str()
            .ok_or_else(|| format!("{} is no string for ~{pattern}", self.path))?;
        let regex = regex::Regex::new(pattern).map_err(|e| format!("~{pattern}: {e}"))?;
        let captures = regex
            .captures(text)
            .ok_or_else(|| format!("no match of ~{pattern} in {text:?}"))?;
        let matched = captures
            .get(1)
            .or_else(|| captures.get(0))
            .expect("a match");
        Ok(Value::String(matched.as_str().to_owned()))
    }
}

/// Checks every reference of `steps` before anything runs: each names a step before its
/// own, whose answer there is (`None` when `--client-only` runs no step: `offline` says
/// why). A usage error names the step and the reference.
pub(crate) fn check_references(steps: &[Step], offline: Option<&str>) -> Result<(), String> {
    for (n, step) in steps.iter().enumerate().map(|(i, s)| (i + 1, s)) {
        let Some(arguments) = step.arguments() else {
            continue;
        };
        for (key, value) in arguments {
            let Some(reference) = Reference::of(value) else {
                continue;
            };
            let written = value.as_str().unwrap_or_default();
            if let Some(why) = offline {
                return Err(format!(
                    "step {n}: {key}={written} reads step {}'s answer, but {why}: give the \
                     value itself, or run the steps against the server (-- SERVER or --url)",
                    reference.step
                ));
            }
            if reference.step == 0 || reference.step >= n {
                return Err(format!(
                    "step {n}: {key}={written} names step {}, which does not run before it \
                     (steps are numbered from 1 in the order given)",
                    reference.step
                ));
            }
            if let Some(pattern) = reference.pattern {
                regex::Regex::new(pattern)
                    .map_err(|e| format!("step {n}: {key}={written}: ~{pattern}: {e}"))?;
            }
        }
    }
    Ok(())
}

/// Step `n`'s arguments with each reference ([`Reference`]) replaced by what it reads in
/// the answers so far (`answers[K - 1]`, as printed: the result, or `{"error": ...}`): a
/// path that is not there stops the session naming it.
fn refer(n: usize, arguments: &mut Map<String, Value>, answers: &[Value]) -> Result<(), Stop> {
    for (key, value) in arguments.iter_mut() {
        let Some(reference) = Reference::of(value) else {
            continue;
        };
        let written = value.as_str().unwrap_or_default().to_owned();
        let k = reference.step;
        let answer = answers.get(k.wrapping_sub(1)).ok_or_else(|| {
            Stop(format!(
                "step {n}: {key}={written} names step {k}, which has not run before it"
            ))
        })?;
        let found = reference.read(answer).map_err(|why| {
            Stop(format!(
                "step {n}: {key}={written}: step {k}'s answer has {why}"
            ))
        })?;
        *value = found;
    }
    Ok(())
}

/// The value at a path such as `.structuredContent.items[0].id` in `value`, going on into
/// a string that holds JSON where the path goes on.
fn path_in(value: &Value, path: &str) -> Option<Value> {
    let mut at = value.clone();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indexes) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if let Value::String(text) = &at {
            at = serde_json::from_str(text).ok()?;
        }
        if !key.is_empty() {
            at = at.get(key)?.clone();
        }
        for index in indexes.split('[').filter(|i| !i.is_empty()) {
            at = at
                .get(index.strip_suffix(']')?.parse::<usize>().ok()?)?
                .clone();
        }
    }
    Some(at)
}

/// What [`finish`] hands back: the client (its exchange), a problem to report, and how
/// the server exited when it was not a success (`the server `false` exited with status 1`).
/// The bridge a client over Streamable HTTP talks through: its task and what it found wrong.
pub(crate) struct Bridged {
    task: tokio::task::JoinHandle<()>,
    problems: mcp_replay::_support::bridge::Problems,
}

impl Bridged {
    /// Closes the client's side, so that the bridge ends the session (a DELETE), waits for
    /// it at most `timeout`, and gives what the bridge found wrong (a 401, a status) as
    /// the problem.
    pub(crate) async fn finish(self, mut client: Client, timeout: Duration) -> Finished {
        drop(client.stdin.take());
        let lines = &mut client.lines;
        let _ = tokio::time::timeout(timeout, async {
            while let Ok(Some(_)) = lines.next_line().await {}
        })
        .await;
        let _ = tokio::time::timeout(timeout, self.task).await;
        let found = std::mem::take(&mut *self.problems.lock().unwrap_or_else(|e| e.into_inner()));
        Finished {
            client,
            problem: (!found.is_empty()).then(|| found.join("; ")),
            exit: None,
        }
    }
}

pub(crate) struct Finished {
    pub(crate) client: Client,
    pub(crate) problem: Option<String>,
    pub(crate) exit: Option<String>,
}

/// Closes the server's input and stops it as MCP's stdio shutdown says ([`stop`]: a grace
/// of [`STOP_GRACE`], or `timeout` if shorter, then SIGTERM, then SIGKILL), reading what
/// it still writes meanwhile: messages are left out of the fixture (with a note: a replay
/// reports them), lines that are not JSON-RPC messages count as stray output.
pub(crate) async fn finish(
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
