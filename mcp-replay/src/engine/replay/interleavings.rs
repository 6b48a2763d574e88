//! The promise of the causal model, as a property: a scripted server plays a fixture's
//! server side in many causally valid interleavings (responses after their requests, one
//! request's own messages in order before its response, unsolicited messages and server
//! requests anywhere in their span, each after a random pause), and every replay is green;
//! then one mutation at a time gives exactly one finding of the right kind.
//!
//! It runs over the fixtures of the repository (`fixtures/`, `tests/fixtures/`,
//! and the recordings of real servers and clients in `mcp-replay/tests/fixtures/`). A
//! failure names the fixture and the seed.

use super::causal::Model;
use crate::data::fixture::{Direction, Fixture, MessageKind};
use crate::data::json::At;
use crate::engine::transport::Transport;
use crate::findings::report::MismatchKind;
use crate::rules::Rules;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{watch, Mutex};

/// A small, seedable generator (xorshift64*): plans are reproducible from their seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One server message to write: the fixture entry's message, after client message number
/// `trigger` (counting the requests and notifications the harness sends) and a pause.
#[derive(Debug, Clone)]
struct Emission {
    message: Value,
    /// The client request entry whose live id a response takes.
    answers: Option<usize>,
    trigger: usize,
    pause_us: u64,
    /// Bound to its request's span: a response, or a message tied by progress token (a
    /// mutation of it costs the replay no wait).
    bound: bool,
    /// The server sends it on its own schedule.
    unsolicited: bool,
}

/// Messages written one after the other: a request's own messages and its response, or
/// the unsolicited messages of one method.
type Chain = Vec<Emission>;

/// One mutation of the plan, with the finding it must give.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mutation {
    Value,
    Method,
    Drop,
    Add,
    Swap,
    WrongId,
}

impl Mutation {
    /// The kinds one of the finding this mutation must give is.
    fn finding(self) -> &'static [MismatchKind] {
        match self {
            Mutation::Value => &[MismatchKind::Params, MismatchKind::Result],
            Mutation::Method => &[MismatchKind::Method],
            Mutation::Drop => &[MismatchKind::Missing],
            Mutation::Add => &[MismatchKind::Unexpected],
            Mutation::Swap => &[MismatchKind::NotificationOrder],
            Mutation::WrongId => &[MismatchKind::Id],
        }
    }

    const ALL: [Mutation; 6] = [
        Mutation::Value,
        Mutation::Method,
        Mutation::Drop,
        Mutation::Add,
        Mutation::Swap,
        Mutation::WrongId,
    ];
}

/// The fixture's client messages as the harness sends them: requests and notifications
/// (answers to server requests go out when their request comes), with their entries.
fn sent_in_order(fixture: &Fixture) -> Vec<usize> {
    fixture
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.direction() == Direction::ClientToServer && e.kind() != MessageKind::Response
        })
        .map(|(i, _)| i)
        .collect()
}

/// A causally valid plan for `fixture`, drawn from `rng`.
fn plan(fixture: &Fixture, rng: &mut Rng) -> Vec<Chain> {
    let entries = fixture.entries();
    let rules = Rules::default();
    let settings = crate::Options::new().resolve(fixture, &rules);
    let model = Model::new(
        fixture,
        &settings,
        &crate::engine::polls::Polls::of(fixture.entries()),
    );
    let sent = sent_in_order(fixture);
    // Client message number of each client entry; and, for a position in the fixture, the
    // number of client messages before it.
    let number = |entry: usize| sent.iter().position(|&s| s == entry).unwrap_or(0);
    let before = |pos: usize| sent.iter().filter(|&&s| s < pos).count();
    let mut chains = Chains::default();
    for (i, entry) in entries.iter().enumerate() {
        if entry.direction() != Direction::ServerToClient {
            continue;
        }
        let pause_us = match rng.below(4) {
            0 => 0,
            1 => rng.below(200) as u64,
            _ => rng.below(3000) as u64,
        };
        let mut bound = true;
        let (request, trigger) = match entry.kind() {
            MessageKind::Response => {
                let q = entry.answers().expect("correlated");
                (Some(q), number(q))
            }
            _ => {
                let want = model.wants[model.want_of_entry[&i]];
                bound = want.hard;
                match want.tie {
                    Some(q) => (Some(q), number(q)),
                    None => {
                        // Anywhere from the start to where the fixture needs it: a server
                        // request before the client message after its answer, an
                        // unsolicited notification until the end.
                        let latest = match entry.kind() {
                            MessageKind::Request => before(i),
                            _ => sent.len(),
                        };
                        (None, rng.below(latest.max(1)))
                    }
                }
            }
        };
        let emission = Emission {
            message: entry.message(),
            answers: entry.answers(),
            trigger,
            pause_us,
            bound,
            unsolicited: request.is_none(),
        };
        chains.push(request, entry.method().unwrap_or_default(), emission);
    }
    chains.chains
}

/// The chains of a plan as it is drawn: one per client request (its response and what the
/// fixture ties to it), and one per method of the unsolicited messages.
#[derive(Default)]
struct Chains {
    chains: Vec<Chain>,
    /// The chain of each client request entry.
    by_request: super::IntMap<usize, usize>,
    /// The chain of each method's unsolicited messages.
    by_method: Vec<(String, usize)>,
}

impl Chains {
    /// Appends `emission` to the chain of `request`, or when it is unsolicited to that of
    /// `method`. One method's unsolicited messages keep their order: never an earlier
    /// trigger than the emission before it.
    fn push(&mut self, request: Option<usize>, method: &str, mut emission: Emission) {
        let chains = &mut self.chains;
        let chain = match request {
            Some(q) => *self.by_request.entry(q).or_insert_with(|| {
                chains.push(Vec::new());
                chains.len() - 1
            }),
            None => match self.by_method.iter().find(|(m, _)| m == method) {
                Some(&(_, c)) => c,
                None => {
                    chains.push(Vec::new());
                    self.by_method.push((method.to_owned(), chains.len() - 1));
                    chains.len() - 1
                }
            },
        };
        let chain = &mut chains[chain];
        let floor = chain.last().map_or(0, |e: &Emission| e.trigger);
        emission.trigger = emission.trigger.max(floor);
        chain.push(emission);
    }
}

/// Applies `mutation` to `plan`; `false` when the fixture has nothing it applies to.
fn mutate(plan: &mut [Chain], mutation: Mutation, rng: &mut Rng) -> bool {
    let is_note = |e: &Emission| e.message.get("id").is_none();
    let is_response = |e: &Emission| e.answers.is_some();
    let mut spots: Vec<(usize, usize)> = Vec::new();
    for (c, chain) in plan.iter().enumerate() {
        for (k, e) in chain.iter().enumerate() {
            // A mutation of an unsolicited message, or of a message tied loosely to its
            // request, is found after the timeout (the replay waits for what still may
            // come): those are tested on their own, not here.
            // So is one of a request's own messages when the request is never answered
            // (it is cancelled): a client message after it waits for it.
            let answered = chain.last().is_some_and(is_response);
            // A task's answers are judged by meaning (`polls.rs`): a lost or changed poll
            // answer stalls the loop or moves the walk, more than one finding; the session
            // tests drive those cases one by one.
            if e.message.at(&["result", "taskId"]).is_some() {
                continue;
            }
            let fits = match mutation {
                Mutation::Value => !is_note(e) || (!e.unsolicited && answered),
                Mutation::Method | Mutation::Drop => is_note(e) && e.bound && answered,
                Mutation::Add => is_response(e),
                Mutation::Swap => {
                    k + 1 < chain.len()
                        && is_note(e)
                        && is_note(&chain[k + 1])
                        && e.message != chain[k + 1].message
                        && chain.last().is_some_and(is_response)
                }
                Mutation::WrongId => is_response(e),
            };
            if fits {
                spots.push((c, k));
            }
        }
    }
    if spots.is_empty() {
        return false;
    }
    let (c, k) = spots[rng.below(spots.len())];
    let chain = &mut plan[c];
    match mutation {
        Mutation::Value => {
            let body = if chain[k].message.get("result").is_some() {
                "result"
            } else if chain[k].message.get("error").is_some() {
                "error"
            } else {
                "params"
            };
            let slot = &mut chain[k].message[body];
            if !slot.is_object() {
                *slot = json!({});
            }
            slot["mutated"] = json!(true);
        }
        Mutation::Method => chain[k].message["method"] = json!("notifications/mutated"),
        Mutation::Drop => {
            chain.remove(k);
        }
        Mutation::Add => {
            let mut extra = chain[k].clone();
            extra.message =
                json!({"jsonrpc": "2.0", "method": "notifications/mutated", "params": {}});
            extra.answers = None;
            chain.insert(k, extra);
        }
        Mutation::Swap => chain.swap(k, k + 1),
        Mutation::WrongId => chain[k].answers = Some(usize::MAX),
    }
    true
}

/// Does the harness perform its own handshake for `fixture` (legacy, and it has none)?
fn needs_setup(fixture: &Fixture) -> bool {
    fixture
        .entries()
        .iter()
        .find(|e| e.direction() == Direction::ClientToServer)
        .is_some_and(|e| !matches!(e.method(), Some("initialize" | "server/discover")))
        && !fixture.era().is_stateless()
}

/// The scripted server's answer to the harness's own `initialize`.
fn setup_reply() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "scripted", "version": "0"}}})
}

/// Plays `plan` as the server on `transport`.
async fn scripted(transport: Transport, fixture: Arc<Fixture>, plan: Vec<Chain>) {
    let (read, write) = tokio::io::split(transport);
    let write = Arc::new(Mutex::new(write));
    let sent = sent_in_order(&fixture);
    let (received, watch) = watch::channel(0usize);
    let live: Arc<std::sync::Mutex<super::IntMap<usize, Value>>> = Default::default();
    let mut tasks = Vec::new();
    for chain in plan {
        let (write, mut watch, live) = (write.clone(), watch.clone(), live.clone());
        tasks.push(tokio::spawn(async move {
            for (n, emission) in chain.into_iter().enumerate() {
                if watch
                    .wait_for(|&count| count > emission.trigger)
                    .await
                    .is_err()
                {
                    return;
                }
                if emission.pause_us == 0 {
                    tokio::task::yield_now().await;
                } else {
                    tokio::time::sleep(Duration::from_micros(emission.pause_us)).await;
                }
                let mut message = emission.message;
                match emission.answers {
                    Some(usize::MAX) => message["id"] = json!(987_654),
                    Some(q) => match live.lock().unwrap().get(&q) {
                        Some(id) => message["id"] = id.clone(),
                        None => return,
                    },
                    None if message.get("id").is_some() => {
                        message["id"] = json!(format!("server-{n}-{}", message["method"]));
                    }
                    None => {}
                }
                let mut line = message.to_string();
                line.push('\n');
                if write.lock().await.write_all(line.as_bytes()).await.is_err() {
                    return;
                }
            }
        }));
    }
    let mut lines = BufReader::new(read).lines();
    let mut count = 0;
    let setup = needs_setup(&fixture);
    while let Ok(Some(line)) = lines.next_line().await {
        let message: Value = serde_json::from_str(&line).expect("the harness writes JSON");
        let method = message.get("method").and_then(Value::as_str);
        if setup && count == 0 && method == Some("initialize") && message["id"] == json!(0) {
            let reply = setup_reply();
            let mut w = write.lock().await;
            let _ = w.write_all(format!("{reply}\n").as_bytes()).await;
            continue;
        }
        if setup && method == Some("notifications/initialized") && count == 0 {
            continue;
        }
        if method.is_none() {
            continue; // an answer to a server request
        }
        if message.get("id").is_some() {
            live.lock()
                .unwrap()
                .insert(sent[count], message["id"].clone());
        }
        count += 1;
        received.send_replace(count);
    }
    drop(received);
    for task in tasks {
        let _ = task.await;
    }
}

/// The fixtures of the repository this property runs over.
fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    let mut dirs = vec![
        root.join("fixtures"),
        root.join("tests/fixtures"),
        root.join("mcp-replay/tests/fixtures/everything"),
        root.join("mcp-replay/tests/fixtures/python"),
        root.join("mcp-replay/tests/fixtures/real"),
    ];
    while let Some(dir) = dirs.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.flatten() {
            let path = entry.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if path.is_dir() {
                // Folders with rules of their own, or sessions of a client under test.
                if !matches!(name, "ruled" | "mock") {
                    dirs.push(path);
                }
            } else if name.ends_with(".jsonl") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

async fn replay(fixture: &Arc<Fixture>, plan: Vec<Chain>) -> crate::Report {
    let scripted_fixture = fixture.clone();
    // The scripted server sends the fixture's own, normalized messages, which lack what
    // the normalizer drops (a stateless result's `resultType`): not a protocol question.
    let options = crate::Options::new()
        .without_recording()
        .protocol_check(crate::ProtocolCheck::Off)
        .timeout(Duration::from_secs(5));
    fixture
        .replay()
        .rules(&Rules::default())
        .options(&options)
        .run(move |t| scripted(t, scripted_fixture, plan))
        .await
}

const VALID_RUNS: u64 = 12;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_causally_valid_interleaving_replays_green() {
    let paths = fixtures();
    assert!(paths.len() >= 10, "found only {paths:?}");
    for path in paths {
        let fixture = Arc::new(Fixture::load(&path).unwrap());
        if !fixture
            .entries()
            .iter()
            .any(|e| e.direction() == Direction::ServerToClient)
        {
            continue;
        }
        for seed in 0..VALID_RUNS {
            let plan = plan(&fixture, &mut Rng::new(seed));
            let report = replay(&fixture, plan).await;
            assert!(
                report.is_ok(),
                "{} (seed {seed}) should replay green:\n{report}",
                path.display()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_mutation_is_exactly_one_finding_of_its_kind() {
    let mut applied = [0usize; 6];
    for path in fixtures() {
        let fixture = Arc::new(Fixture::load(&path).unwrap());
        for (m, mutation) in Mutation::ALL.into_iter().enumerate() {
            for seed in 0..2u64 {
                let mut rng = Rng::new(seed * 31 + m as u64);
                let mut plan = plan(&fixture, &mut rng);
                if !mutate(&mut plan, mutation, &mut rng) {
                    continue;
                }
                applied[m] += 1;
                let report = replay(&fixture, plan).await;
                assert_one_finding(&report, mutation, &path, seed);
            }
        }
    }
    assert!(
        applied.iter().all(|&n| n > 0),
        "every mutation applied somewhere: {applied:?}"
    );
}

/// A replay of a plan with `mutation` gives exactly one finding, of the mutation's kind.
/// An answer under a wrong id binds nothing: a later client line that sends a value it
/// minted (a create-then-read) is a second finding, `missing ... sent as written`, which
/// depends on the first and is not counted.
fn assert_one_finding(report: &crate::Report, mutation: Mutation, path: &Path, seed: u64) {
    let kinds: Vec<MismatchKind> = report
        .mismatches()
        .iter()
        .filter(|m| {
            !(mutation == Mutation::WrongId
                && m.kind() == MismatchKind::Missing
                && m.summary().contains("it was sent as written"))
        })
        .map(|m| m.kind())
        .collect();
    let expected = mutation.finding();
    assert!(
        kinds.len() == 1 && expected.contains(&kinds[0]),
        "{} with mutation {mutation:?} (seed {seed}) should give one {expected:?} finding:\n{report}",
        path.display()
    );
}

/// What the scripted server without a runtime knows of the session: the client messages
/// it received (their count and live ids), and whether its input is closed.
struct Heard<'a> {
    sent: Vec<usize>,
    setup: bool,
    live: super::IntMap<usize, Value>,
    count: usize,
    input_closed: bool,
    /// The answer to the harness's own `initialize`, to send next.
    setup_reply: Option<Value>,
    session: super::session::Session<'a>,
}

impl Heard<'_> {
    /// Takes every line the session hands out at `now`.
    fn read(&mut self, now: std::time::Instant, buf: &mut Vec<u8>) {
        use super::session::Transmit;
        while let Some(transmit) = self.session.poll_transmit(now, buf) {
            if transmit == Transmit::CloseInput {
                self.input_closed = true;
                self.session.input_closed(now, None);
                continue;
            }
            let message: Value = serde_json::from_slice(buf).expect("the session writes JSON");
            let method = message.get("method").and_then(Value::as_str);
            let first = self.setup && self.count == 0;
            if first && method == Some("initialize") && message["id"] == json!(0) {
                self.setup_reply = Some(setup_reply());
                continue;
            }
            if method.is_none() || (first && method == Some("notifications/initialized")) {
                continue;
            }
            if message.get("id").is_some() {
                self.live
                    .insert(self.sent[self.count], message["id"].clone());
            }
            self.count += 1;
        }
    }

    /// The message `emission` of chain `c` becomes, with the live id it answers; `None`
    /// when its request was never sent (the chain stops).
    fn message(&self, c: usize, emission: Emission) -> Option<Value> {
        let mut message = emission.message;
        match emission.answers {
            Some(usize::MAX) => message["id"] = json!(987_654),
            Some(q) => message["id"] = self.live.get(&q)?.clone(),
            None if message.get("id").is_some() => {
                message["id"] = json!(format!("server-{c}-{}", message["method"]));
            }
            None => {}
        }
        Some(message)
    }
}

/// The scripted server of [`scripted`] without a runtime: the session core is driven by
/// hand, each causally ready server message delivered in an order `rng` picks, the clock
/// moved only when the session waits for something no chain can still send. Thousands of
/// interleavings take what a dozen take over the pipe.
fn replay_without_runtime(fixture: &Fixture, plan: Vec<Chain>, rng: &mut Rng) -> crate::Report {
    use super::session::{Ending, Session};
    use crate::engine::transport::Incoming;
    let rules = Rules::default();
    let settings = crate::Options::new()
        .without_recording()
        .protocol_check(crate::ProtocolCheck::Off)
        .timeout(Duration::from_secs(5))
        .trace(false)
        .resolve(fixture, &rules);
    let mut now = std::time::Instant::now();
    let mut heard = Heard {
        sent: sent_in_order(fixture),
        setup: needs_setup(fixture),
        live: Default::default(),
        count: 0,
        input_closed: false,
        setup_reply: None,
        session: Session::new(fixture, &settings, now),
    };
    let mut chains: Vec<std::collections::VecDeque<Emission>> =
        plan.into_iter().map(Into::into).collect();
    let (mut output_closed, mut buf) = (false, Vec::new());
    for _ in 0..100_000 {
        heard.read(now, &mut buf);
        if heard.session.is_done() {
            return heard.session.conclude(Ending::default());
        }
        // What the server can send now: the head of each chain whose trigger came.
        let ready: Vec<usize> = (0..chains.len())
            .filter(|&c| chains[c].front().is_some_and(|e| e.trigger < heard.count))
            .collect();
        if let Some(reply) = heard.setup_reply.take() {
            heard.session.handle(Incoming::Message(reply), now);
        } else if !ready.is_empty() {
            let c = ready[rng.below(ready.len())];
            let emission = chains[c].pop_front().expect("ready");
            match heard.message(c, emission) {
                Some(message) => heard.session.handle(Incoming::Message(message), now),
                None => chains[c].clear(),
            }
        } else if heard.input_closed && !output_closed {
            // The server ends once its input closed and it has nothing more to send.
            output_closed = true;
            heard.session.handle(Incoming::Closed(None), now);
        } else {
            let waits = heard.session.poll_timeout();
            now = waits.expect("a session that is not done waits").max(now);
            heard.session.handle_timeout(now);
        }
    }
    panic!("the session did not end");
}

const RUNS_WITHOUT_RUNTIME: u64 = 150;

#[test]
fn every_causally_valid_interleaving_replays_green_without_a_runtime() {
    for path in fixtures() {
        let fixture = Fixture::load(&path).unwrap();
        for seed in 0..RUNS_WITHOUT_RUNTIME {
            let mut rng = Rng::new(seed);
            let plan = plan(&fixture, &mut rng);
            let report = replay_without_runtime(&fixture, plan, &mut rng);
            assert!(
                report.is_ok(),
                "{} (seed {seed}) should replay green:\n{report}",
                path.display()
            );
        }
    }
}

#[test]
fn one_mutation_is_exactly_one_finding_of_its_kind_without_a_runtime() {
    let mut applied = [0usize; 6];
    for path in fixtures() {
        let fixture = Fixture::load(&path).unwrap();
        for (m, mutation) in Mutation::ALL.into_iter().enumerate() {
            for seed in 0..20u64 {
                let mut rng = Rng::new(seed * 31 + m as u64);
                let mut plan = plan(&fixture, &mut rng);
                if !mutate(&mut plan, mutation, &mut rng) {
                    continue;
                }
                applied[m] += 1;
                let report = replay_without_runtime(&fixture, plan, &mut rng);
                assert_one_finding(&report, mutation, &path, seed);
            }
        }
    }
    assert!(
        applied.iter().all(|&n| n > 0),
        "every mutation applied somewhere: {applied:?}"
    );
}
