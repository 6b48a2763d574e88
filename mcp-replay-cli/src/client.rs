//! The client `mcp-replay call` plays: a session with a server on its stdio (the legacy
//! handshake, or the stateless era's discovery with the identity in every request), each
//! step's request answered in turn while the server's own requests get a cautious client's
//! answers, and MCP's stdio shutdown at the end. What it sent and got is the exchange the
//! fixture is written from.

mod steps;

use crate::args::ServerArg;
use crate::error::Error;
use crate::out::outln;
use mcp_replay::_support::record::StrayLines;
use mcp_replay::fixture::{Direction, MessageKind};
use mcp_replay::process::{stop, Stopped, STOP_GRACE};
use serde_json::{json, Map, Value};
use std::process::Stdio;
use std::time::Duration;
use steps::refer;
pub(crate) use steps::{check_references, Answers, Step};
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
