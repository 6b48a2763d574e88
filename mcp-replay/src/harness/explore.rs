//! `explore`: calls nobody recorded, generated from each tool's schema, judged by the
//! specification's rules, each failure shrunk and written as a fixture pending review
//! (docs/explore.md). Every call is a replay of a fixture whose last line is the call, with
//! no answer: the one path through the code that drives a server, so a target is anything
//! [`Target`] is (in process, a child process, a URL). The calls, the rules and the
//! shrinking are pure (`analyses/explore`); this file makes the calls and writes files.

mod exploration;

use super::target::Target;
use crate::analyses::explore::{self, shrink, Broken, Case, Seen, Tool};
use crate::analyses::validate::output::OutputSchemas;
use crate::data::explored::{Explored, Rule};
use crate::engine::replay::ServeOutput;
use crate::engine::transport::Transport;
use crate::findings::report::{MismatchKind, Report};
use crate::fixture::{Direction, Fixture};
use crate::lifecycle::update::{write_fixture, UpdateMode, Written};
use crate::{Options, Rules};
use exploration::{cut, Kept, Shape};
pub use exploration::{Exploration, Finding};
use serde_json::{json, Value};
use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The id of the explored call in the fixtures `explore` writes.
const CALL_ID: &str = "explore";

/// How many times a call's session is started before its setup failing (a timeout or a
/// server failure before the call) is reported instead of the call.
const SETUP_TRIES: usize = 3;

/// The least a listing waits for each answer.
const LISTING: Duration = Duration::from_secs(10);

/// How many pages of `tools/list` a run reads at most.
const MAX_PAGES: usize = 20;

/// An exploration of a server's tools: its settings, then [`run`](Explore::run).
///
/// ```no_run
/// use mcp_replay::harness::Explore;
/// use mcp_replay::Transport;
///
/// # async fn serve(transport: Transport) {}
/// #[tokio::test]
/// async fn tools_keep_the_specifications_rules() {
///     let found = Explore::new().seed(7).calls(200).write_to("fixtures").serve(serve).await.unwrap();
///     assert!(found.findings().is_empty(), "{found}");
/// }
/// ```
#[derive(Clone)]
pub struct Explore {
    seed: u64,
    calls: usize,
    time: Option<Duration>,
    hang: Duration,
    shrink_calls: usize,
    dir: Option<PathBuf>,
    protocol: String,
    on_call: Option<std::sync::Arc<dyn Fn(usize, usize) + Send + Sync>>,
}

impl fmt::Debug for Explore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Explore")
            .field("seed", &self.seed)
            .field("calls", &self.calls)
            .field("time", &self.time)
            .field("hang", &self.hang)
            .field("shrink_calls", &self.shrink_calls)
            .field("dir", &self.dir)
            .field("protocol", &self.protocol)
            .finish_non_exhaustive()
    }
}

impl Default for Explore {
    fn default() -> Self {
        Explore::new()
    }
}

impl Explore {
    /// Seed 0, 100 calls, no time bound, a hang after 5 s, 64 calls to shrink each
    /// failure, nothing written.
    pub fn new() -> Explore {
        Explore {
            seed: 0,
            calls: 100,
            time: None,
            hang: Duration::from_secs(5),
            shrink_calls: 64,
            dir: None,
            protocol: crate::data::protocol::DEFAULT_PROTOCOL.to_owned(),
            on_call: None,
        }
    }

    /// The seed the calls are generated from: the same seed, the same calls.
    pub fn seed(mut self, seed: u64) -> Explore {
        self.seed = seed;
        self
    }

    /// How many generated calls to make at most (shrinking not counted).
    pub fn calls(mut self, calls: usize) -> Explore {
        self.calls = calls;
        self
    }

    /// Makes no new call once this much time has passed (the report says so).
    pub fn time(mut self, limit: Duration) -> Explore {
        self.time = Some(limit);
        self
    }

    /// How long a call may go unanswered before it is a hang.
    pub fn hang(mut self, limit: Duration) -> Explore {
        self.hang = limit;
        self
    }

    /// How many calls shrinking one failure may make.
    pub fn shrink_calls(mut self, calls: usize) -> Explore {
        self.shrink_calls = calls;
        self
    }

    /// Writes each failure and each answer shape met as `NAME.jsonl.new` into `dir`, and
    /// replays the failures kept there (`"explore"` in their header) first.
    pub fn write_to(mut self, dir: impl Into<PathBuf>) -> Explore {
        self.dir = Some(dir.into());
        self
    }

    /// The protocol version to speak (default 2025-11-25, the handshake); 2026-07-28 or
    /// later is the stateless era (`server/discover`, the identity in every request).
    pub fn protocol(mut self, version: &str) -> Explore {
        self.protocol = version.to_owned();
        self
    }

    /// Calls `progress(made, planned)` before each generated call: the command's progress
    /// line on a terminal.
    pub fn on_call(mut self, progress: impl Fn(usize, usize) + Send + Sync + 'static) -> Explore {
        self.on_call = Some(std::sync::Arc::new(progress));
        self
    }

    /// Explores the server `serve` runs in process, a fresh one for every call.
    pub async fn serve<F, Fut, O>(&self, serve: F) -> Result<Exploration, String>
    where
        F: Fn(Transport) -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = O> + Send + 'static,
        O: ServeOutput,
    {
        self.run(|| Target::serve_each(serve.clone())).await
    }

    /// Explores the server `target()` gives, a new target (a new session) for every call.
    /// `Err`: the server could not be listed.
    pub async fn run<'a>(
        &self,
        mut target: impl FnMut() -> Target<'a>,
    ) -> Result<Exploration, String> {
        // A call's session waits for the server's start as long as the listing did: the
        // hang limit is for the call.
        let options = Options::new()
            .timeout(self.hang)
            .start_timeout(self.hang.max(LISTING))
            .record_spoiled();
        let mut run = Run {
            explore: self,
            options,
            // The listing waits at least the default timeout: a server's start is no hang.
            prefix: list_tools(
                &mut target,
                &self.protocol,
                &Options::new().timeout(self.hang.max(LISTING)),
            )
            .await?,
            outputs: OutputSchemas::default(),
            version: String::new(),
            deadline: None,
            found: Exploration::new(self.seed),
        };
        run.version = agreed_version(&run.prefix, &self.protocol);
        let tools = run.tools();
        if let Some(dir) = &self.dir {
            run.found.kept = replay_kept(dir, &mut target, &run.options).await;
        }
        run.deadline = self.time.map(|limit| Instant::now() + limit);
        let plan = explore::plan(&tools, self.seed, self.calls);
        let planned = plan.len();
        for case in plan {
            if let Some(progress) = &self.on_call {
                progress(run.found.calls, planned);
            }
            if run.out_of_time() {
                run.found.stopped_by_time = true;
                break;
            }
            let tool = tools
                .iter()
                .find(|t| t.name == case.tool)
                .expect("planned from tools");
            run.found.calls += 1;
            run.try_case(tool, &case, &mut target).await;
        }
        Ok(run.found)
    }
}

/// One run's state: the listing every call follows, the tools' output schemas, what was
/// found.
struct Run<'e> {
    explore: &'e Explore,
    options: Options,
    /// The recorded handshake and listing, each call's fixture's first lines.
    prefix: Fixture,
    outputs: OutputSchemas,
    /// The protocol version the server agreed to in the listing's handshake.
    version: String,
    /// When `--time` is up: no new call, and shrinking stops with what it has.
    deadline: Option<Instant>,
    found: Exploration,
}

impl Run<'_> {
    /// Whether the run's time limit has passed.
    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|at| Instant::now() >= at)
    }

    /// The tools of every `tools/list` answer of the listing; their output schemas learnt.
    fn tools(&mut self) -> Vec<Tool> {
        let mut tools = Vec::new();
        for entry in self.prefix.entries() {
            if entry.direction() != Direction::ServerToClient {
                continue;
            }
            let message = entry.message();
            if let Some(result) = message.get("result").filter(|r| r.get("tools").is_some()) {
                self.outputs.learn(result);
                tools.extend(Tool::of_listing(result));
            }
        }
        tools
    }

    /// Makes `case`'s call; on a rule newly broken, shrinks it and keeps the finding; on
    /// an answer shape newly met, keeps it.
    async fn try_case<'a>(
        &mut self,
        tool: &Tool,
        case: &Case,
        target: &mut impl FnMut() -> Target<'a>,
    ) {
        let (seen, recorded) = self.call(&case.tool, &case.arguments, target).await;
        if let Some(why) = &seen.setup {
            let call = self.found.calls;
            self.found
                .not_made
                .push(format!("call {call} (`{}`): {}", case.tool, cut(why)));
            return;
        }
        let Some(broken) =
            explore::judge(tool, &case.arguments, &seen, &self.outputs, &self.version)
        else {
            self.keep_shape(case, &seen, recorded);
            return;
        };
        if self
            .found
            .findings
            .iter()
            .any(|f| f.tool == case.tool && f.rule == broken.rule)
        {
            return;
        }
        let found_at = self.found.calls;
        let (arguments, broken, recorded, steps) = self
            .shrink(tool, case.arguments.clone(), broken, recorded, target)
            .await;
        let mut finding = Finding {
            rule: broken.rule,
            tool: case.tool.clone(),
            what: case.what.clone(),
            arguments,
            detail: broken.detail,
            found_at,
            shrink_calls: steps,
            fixture: None,
        };
        if let Some(dir) = &self.explore.dir {
            finding.fixture = self.write_finding(dir, &finding, recorded.as_ref());
        }
        self.found.findings.push(finding);
    }

    /// Replays the listing then one call of `tool` with `arguments`: what was seen, and
    /// the recording (with the answer) when there is one.
    async fn call<'a>(
        &self,
        tool: &str,
        arguments: &Value,
        target: &mut impl FnMut() -> Target<'a>,
    ) -> (Seen, Option<Fixture>) {
        let fixture = with_call(&self.prefix, tool, arguments, None);
        let call_line = fixture.entries().last().map_or(0, |e| e.line());
        let mut setup = String::new();
        for _ in 0..SETUP_TRIES {
            let report = match target()
                .replay(&fixture, &Rules::default(), &self.options)
                .await
            {
                Ok(report) => report,
                Err(failure) => {
                    setup = failure.to_string();
                    continue;
                }
            };
            // A session that failed before the call (a server slow to start) says
            // nothing of the call: it is made again.
            let before = report.mismatches().iter().find(|m| {
                matches!(
                    m.kind(),
                    MismatchKind::Timeout | MismatchKind::ServerFailure
                ) && m.line().is_some_and(|l| l < call_line)
            });
            if let Some(m) = before {
                setup = m.summary().to_owned();
                continue;
            }
            return (seen_in(&report, &fixture), report.recorded().cloned());
        }
        let seen = Seen {
            setup: Some(setup),
            ..Seen::default()
        };
        (seen, None)
    }

    /// Shrinks `arguments` while a smaller value breaks the same rule, within the run's
    /// shrink budget: the smallest found, how it breaks the rule, its recording, and the
    /// calls it took.
    async fn shrink<'a>(
        &self,
        tool: &Tool,
        mut arguments: Value,
        mut broken: Broken,
        mut recorded: Option<Fixture>,
        target: &mut impl FnMut() -> Target<'a>,
    ) -> (Value, Broken, Option<Fixture>, usize) {
        // A call that still hangs costs the whole limit: hangs and crashes get half the budget.
        let budget = match broken.rule {
            Rule::Hang | Rule::Crash => self.explore.shrink_calls / 2,
            _ => self.explore.shrink_calls,
        };
        let mut calls = 0;
        'smaller: while calls < budget {
            for candidate in shrink::candidates(&arguments) {
                if calls >= budget || self.out_of_time() {
                    break 'smaller;
                }
                calls += 1;
                let (seen, rec) = self.call(&tool.name, &candidate, target).await;
                let judged = explore::judge(tool, &candidate, &seen, &self.outputs, &self.version);
                if let Some(b) = judged.filter(|b| b.rule == broken.rule) {
                    (arguments, broken, recorded) = (candidate, b, rec);
                    continue 'smaller;
                }
            }
            break;
        }
        (arguments, broken, recorded, calls)
    }

    /// The first answer of each shape for each tool, kept (and written) as the run's
    /// proposal of one representative call for that behaviour.
    fn keep_shape(&mut self, case: &Case, seen: &Seen, recorded: Option<Fixture>) {
        let shape = explore::shape(seen);
        let Some(recorded) = recorded.filter(|_| seen.answer.is_some()) else {
            return;
        };
        if self
            .found
            .shapes
            .iter()
            .any(|s| s.tool == case.tool && s.shape == shape)
        {
            return;
        }
        let mut kept = Shape {
            tool: case.tool.clone(),
            shape,
            what: case.what.clone(),
            fixture: None,
        };
        if let Some(dir) = &self.explore.dir {
            let name = file_name(&format!("explore-{}-{}", case.tool, kept.shape));
            let description = format!(
                "explore: `{}` answered with a {} ({} arguments; seed {})",
                case.tool, kept.shape, case.what, self.explore.seed
            );
            let fixture = recorded.with_header_key("description", description.into());
            kept.fixture = fixture.ok().and_then(|f| write_new(&f, &dir.join(name)));
        }
        self.found.shapes.push(kept);
    }

    /// Writes `finding`'s fixture: the listing, the call, and its answer as recorded (a
    /// stand-in where there is none to write: a crash, a hang, a secret), under an
    /// `"explore"` header that has a replay judge the answer by the rule.
    fn write_finding(
        &self,
        dir: &Path,
        finding: &Finding,
        recorded: Option<&Fixture>,
    ) -> Option<PathBuf> {
        let as_recorded = !matches!(finding.rule, Rule::Crash | Rule::Hang | Rule::Secret);
        let fixture = match recorded.filter(|_| as_recorded) {
            Some(recorded) => recorded.clone(),
            None => with_call(
                &self.prefix,
                &finding.tool,
                &finding.arguments,
                Some(Rule::placeholder_answer()),
            ),
        };
        let explored = Explored {
            rule: finding.rule,
            tool: finding.tool.clone(),
            seed: self.explore.seed,
        };
        let description = format!(
            "explore: `{}` breaks {} ({}): {}; {}",
            finding.tool,
            finding.rule.name(),
            finding.rule.link(),
            finding.detail,
            finding.rule.says()
        );
        let fixture = fixture
            .with_header_key("explore", explored.to_json())
            .and_then(|f| f.with_header_key("description", description.into()))
            .ok()?;
        let name = file_name(&format!("explore-{}-{}", finding.tool, finding.rule.name()));
        write_new(&fixture, &dir.join(name))
    }
}

/// The `protocolVersion` of the first answer in `listing` (the handshake's), or the one
/// asked for (`asked`; the stateless era negotiates none).
fn agreed_version(listing: &Fixture, asked: &str) -> String {
    let answer = listing
        .entries()
        .iter()
        .find(|e| e.direction() == Direction::ServerToClient);
    answer
        .and_then(|e| {
            e.message()
                .pointer("/result/protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| asked.to_owned())
}

/// Writes `fixture` as `path.new` (`path` ends in `.jsonl`): its path, or `None` when it
/// could not be written.
fn write_new(fixture: &Fixture, path: &Path) -> Option<PathBuf> {
    match write_fixture(fixture, path, UpdateMode::New) {
        Ok(Written::Pending(p) | Written::Updated(p) | Written::Unchanged(p)) => Some(p),
        Err(_) => None,
    }
}

/// A file name of `stem` (characters other than letters, digits, `-` and `_` as `-`),
/// ending in `.jsonl`.
fn file_name(stem: &str) -> String {
    let mut name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    name.push_str(".jsonl");
    name
}

/// `prefix` and then a `tools/call` of `tool` with `arguments`, with `answer` as its
/// result when given. The call asks for progress: a tool that reports it is working, and
/// its wait starts again at each report (up to ten times `--hang`).
fn with_call(prefix: &Fixture, tool: &str, arguments: &Value, answer: Option<Value>) -> Fixture {
    let mut text = prefix.to_jsonl();
    let request = json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": CALL_ID,
        "method": "tools/call", "params": {"name": tool, "arguments": arguments,
            "_meta": {"progressToken": CALL_ID}}}});
    text.push_str(&request.to_string());
    text.push('\n');
    if let Some(result) = answer {
        let response = json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "id": CALL_ID, "result": result}});
        text.push_str(&response.to_string());
        text.push('\n');
    }
    Fixture::parse_named(&text, &format!("<explore: {tool}>"))
        .expect("a call after a recorded listing is a fixture")
}

/// What a call's report shows: its answer, whether the server ended or timed out on the
/// call, the first protocol finding, the first secret in the recording. Only what is about
/// the call counts (a finding at its line or after): a server that exits at the call may
/// leave an earlier answer unwritten, and one stuck in a call does not stop when its input
/// closes, and neither is another defect.
fn seen_in(report: &Report, fixture: &Fixture) -> Seen {
    let call_line = fixture.entries().last().map_or(0, |e| e.line());
    let at_call = |k: MismatchKind| {
        report
            .mismatches()
            .iter()
            .any(|m| m.kind() == k && m.line().is_some_and(|l| l >= call_line))
    };
    let ended = at_call(MismatchKind::ServerFailure);
    let mut seen = Seen {
        ended,
        timed_out: !ended && at_call(MismatchKind::Timeout),
        invalid: report
            .mismatches()
            .iter()
            .find(|m| m.kind() == MismatchKind::Protocol)
            .map(|m| m.summary().to_owned()),
        ..Seen::default()
    };
    if let Some(recorded) = report.recorded() {
        let entries = recorded.entries();
        let call = entries
            .iter()
            .rposition(|e| e.method() == Some("tools/call"));
        seen.answer = entries
            .iter()
            .find(|e| e.answers().is_some() && e.answers() == call)
            .map(|e| e.message());
        // The answer alone: the listing before it is the same in every call.
        let found = seen.answer.as_ref().map(crate::normalize::secrets::scan);
        if let Some(f) = found.and_then(|found| found.into_iter().next()) {
            seen.secret = Some(format!("{}, {}, at {}", f.rule, f.description, f.path));
        }
    }
    seen
}

/// The handshake and every page of `tools/list`, replayed against `target()` and
/// recorded: what every call's fixture starts with.
async fn list_tools<'a>(
    target: &mut impl FnMut() -> Target<'a>,
    version: &str,
    options: &Options,
) -> Result<Fixture, String> {
    let request = |method: &str, params: Value| {
        json!({"direction": "client->server", "message":
            {"jsonrpc": "2.0", "id": "<REQUEST_ID>", "method": method, "params": params}})
    };
    let client = json!({"name": "mcp-replay-explore", "version": env!("CARGO_PKG_VERSION")});
    let mut text = String::new();
    let mut lines = Vec::new();
    if crate::data::protocol::Era::of_version(version).is_stateless() {
        text.push_str(&json!({"mcp_replay": 1, "protocol": version}).to_string());
        text.push('\n');
        let meta = crate::data::protocol::meta::CLIENT_CAPABILITIES;
        lines.push(request("server/discover", json!({"_meta": {meta: {}}})));
    } else {
        let params = json!({"protocolVersion": version, "capabilities": {}, "clientInfo": client});
        lines.push(request("initialize", params));
        lines.push(json!({"direction": "client->server", "message":
            {"jsonrpc": "2.0", "method": "notifications/initialized"}}));
    }
    lines.push(request("tools/list", json!({})));
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let mut fixture =
        Fixture::parse_named(&text, "<explore: listing>").map_err(|e| e.to_string())?;
    for _ in 0..MAX_PAGES {
        let report = target()
            .replay(&fixture, &Rules::default(), options)
            .await
            .map_err(|f| f.to_string())?;
        let recorded = report
            .recorded()
            .ok_or_else(|| format!("could not list the server's tools:\n{report}"))?;
        let last = recorded.entries().last().map(|e| e.message());
        let cursor = last
            .as_ref()
            .and_then(|m| m.pointer("/result/nextCursor"))
            .filter(|c| !c.is_null());
        let Some(cursor) = cursor else {
            return Ok(recorded.clone());
        };
        let mut text = recorded.to_jsonl();
        let next = json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": "<REQUEST_ID>",
            "method": "tools/list", "params": {"cursor": cursor}}});
        text.push_str(&next.to_string());
        text.push('\n');
        fixture = Fixture::parse_named(&text, "<explore: listing>").map_err(|e| e.to_string())?;
    }
    Err(format!(
        "the server's tools/list went on for more than {MAX_PAGES} pages"
    ))
}

/// Replays each fixture in `dir` (`.jsonl`, and `.jsonl.new` pending review) that
/// `explore` wrote: whether its call still breaks its rule.
async fn replay_kept<'a>(
    dir: &Path,
    target: &mut impl FnMut() -> Target<'a>,
    options: &Options,
) -> Vec<Kept> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.to_string_lossy().ends_with(".jsonl") || p.to_string_lossy().ends_with(".jsonl.new")
        })
        .collect();
    paths.sort();
    let mut kept = Vec::new();
    for path in paths {
        let Ok(fixture) = Fixture::load(&path) else {
            continue;
        };
        let Some(explored) = fixture.explored().cloned() else {
            continue;
        };
        let report = target().replay(&fixture, &Rules::default(), options).await;
        let broken = report.map(|r| !r.is_ok()).unwrap_or(true);
        kept.push(Kept {
            path,
            rule: explored.rule,
            tool: explored.tool,
            broken,
        });
    }
    kept
}
