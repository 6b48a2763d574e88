//! Faults on cue for the mock: what a client under test meets when a server is slow, errs,
//! drops an answer or answers twice. A fault names the answers it hits (the recorded
//! response of a fixture line, or the answers to a method, and a tool), when (the Nth of
//! them, every one, or each with a probability drawn from a seed, so that a failing run
//! repeats exactly) and what happens instead. Declared in code ([`Faults`]) or in the
//! fixture header's `"faults"`; the mock ([`Fixture::mock`](crate::Fixture::mock))
//! decides here, without I/O, and its report lists each fault it injected with what the
//! client did next.
//!
//! ```
//! use mcp_replay::mock::{Fault, Faults};
//! use std::time::Duration;
//!
//! let faults = Faults::new()
//!     .on("tools/call", Fault::error(-32603, "upstream down"))
//!     .tool("add")
//!     .nth(2)
//!     .on("tools/list", Fault::delay(Duration::from_millis(300)))
//!     .seed(7);
//! assert_eq!(faults.len(), 2);
//! ```

use serde_json::{json, Value};
use std::time::Duration;

/// What a fault does to an answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Fault {
    /// The answer comes this much later.
    Delay(Duration),
    /// The answer comes after a delay drawn between the two bounds (from the seed).
    Jitter(Duration, Duration),
    /// A JSON-RPC error instead of the recorded result.
    Error {
        /// The error code (`-32603`).
        code: i64,
        /// Its message.
        message: String,
    },
    /// A tool error (`isError: true`, this text) instead of the recorded result.
    ToolError(String),
    /// No answer at all: the client's timeout path.
    Drop,
    /// The answer, twice.
    Twice,
    /// The answer's line cut off half-way (not JSON): what a server that crashed while
    /// writing leaves.
    Malformed,
    /// The connection closed instead of the answer (stdio: the end of the server's output).
    Close,
    /// The notifications recorded just before the answer come after it instead: a
    /// notification out of its recorded order (progress after the result, say).
    Reorder,
    /// Over HTTP, the request's `POST` answered with this status (a 5xx) and no message.
    /// Over stdio the answer comes as recorded, and the report says the fault is HTTP's.
    Status(u16),
    /// Over HTTP, the request's SSE stream cut before the answer, after an event a client
    /// can resume from (its id, no data); the answer goes to the `GET` that resumes with
    /// `Last-Event-ID`. Over stdio the answer comes as recorded.
    Reset,
    /// Over HTTP, the answer's SSE event (or JSON body) written 16 bytes at a time, this
    /// long apart. Over stdio the answer comes as recorded.
    Trickle(Duration),
}

impl Fault {
    /// [`Fault::Delay`].
    pub fn delay(by: Duration) -> Fault {
        Fault::Delay(by)
    }

    /// [`Fault::Error`].
    pub fn error(code: i64, message: impl Into<String>) -> Fault {
        Fault::Error {
            code,
            message: message.into(),
        }
    }

    /// [`Fault::ToolError`].
    pub fn tool_error(text: impl Into<String>) -> Fault {
        Fault::ToolError(text.into())
    }

    /// What it is, for the report.
    fn describe(&self) -> String {
        match self {
            Fault::Delay(d) => format!("delayed {} ms", d.as_millis()),
            Fault::Jitter(a, b) => format!("delayed {}..{} ms", a.as_millis(), b.as_millis()),
            Fault::Error { code, message } => {
                format!("error {code} {message:?} instead of the result")
            }
            Fault::ToolError(text) => format!("a tool error {text:?} instead of the result"),
            Fault::Drop => "no answer".into(),
            Fault::Twice => "answered twice".into(),
            Fault::Malformed => "the answer's line cut off half-way".into(),
            Fault::Close => "the connection closed instead of the answer".into(),
            Fault::Reorder => "the notifications before the answer sent after it".into(),
            Fault::Status(status) => format!("HTTP {status} instead of the answer"),
            Fault::Reset => "the SSE stream cut before the answer (resumable)".into(),
            Fault::Trickle(every) => {
                format!(
                    "the answer trickled, 16 bytes every {} ms",
                    every.as_millis()
                )
            }
        }
    }

    /// A fault only Streamable HTTP has (a status, a stream cut or trickling).
    pub fn is_http_only(&self) -> bool {
        matches!(self, Fault::Status(_) | Fault::Reset | Fault::Trickle(_))
    }
}

/// Which answers a fault hits.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    /// The recorded response on this fixture line.
    Line(usize),
    /// The answers to this method, of this tool (or prompt) when named.
    Method(String, Option<String>),
}

/// When a fault hits the answers its target names.
#[derive(Debug, Clone, Copy, PartialEq)]
enum When {
    Every,
    /// The Nth (1-based) of them.
    Nth(usize),
    /// Each with this probability, drawn from the seed.
    Probability(f64),
}

/// One declared fault.
#[derive(Debug, Clone, PartialEq)]
struct Rule {
    target: Target,
    when: When,
    fault: Fault,
    /// How many answers of the target came so far.
    seen: usize,
}

/// The faults a mock injects, with the seed its draws come from: see the module's text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Faults {
    rules: Vec<Rule>,
    seed: u64,
    /// The state of the draws (splitmix64 of the seed).
    state: u64,
}

/// A fault the mock injected: where, and what.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Injected {
    /// The fixture line of the answer it hit.
    pub line: usize,
    /// The request it answers (`tools/call add`).
    pub request: String,
    /// What was done.
    pub what: String,
    /// The client still got the recorded answer (late, twice, trickled, resumable, or
    /// with its notifications moved): the same request again is then not a retry.
    pub answered: bool,
}

impl Faults {
    /// No fault yet; seed 0.
    pub fn new() -> Faults {
        Faults::default()
    }

    /// A fault on every answer to `method` (narrow it with [`tool`](Faults::tool),
    /// [`nth`](Faults::nth), [`probability`](Faults::probability)).
    pub fn on(mut self, method: &str, fault: Fault) -> Faults {
        self.push(Target::Method(method.to_owned(), None), fault);
        self
    }

    /// A fault on the recorded response on fixture line `line`.
    pub fn on_line(mut self, line: usize, fault: Fault) -> Faults {
        self.push(Target::Line(line), fault);
        self
    }

    /// The last fault hits only the answers about this tool (or prompt): `params.name`.
    pub fn tool(mut self, name: &str) -> Faults {
        if let Some(Rule {
            target: Target::Method(_, tool),
            ..
        }) = self.rules.last_mut()
        {
            *tool = Some(name.to_owned());
        }
        self
    }

    /// The last fault hits only the `n`th (1-based) answer its target names.
    pub fn nth(mut self, n: usize) -> Faults {
        if let Some(rule) = self.rules.last_mut() {
            rule.when = When::Nth(n.max(1));
        }
        self
    }

    /// The last fault hits each answer its target names with probability `p` (0 to 1),
    /// drawn from the [`seed`](Faults::seed).
    pub fn probability(mut self, p: f64) -> Faults {
        if let Some(rule) = self.rules.last_mut() {
            rule.when = When::Probability(p.clamp(0.0, 1.0));
        }
        self
    }

    /// The seed of the draws (probabilities, jitter): the same seed, the same faults.
    pub fn seed(mut self, seed: u64) -> Faults {
        self.seed = seed;
        self.state = seed;
        self
    }

    /// How many faults are declared.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    fn push(&mut self, target: Target, fault: Fault) {
        self.rules.push(Rule {
            target,
            when: When::Every,
            fault,
            seen: 0,
        });
    }

    /// The header's `"faults"`: `{"seed": N, "faults": [{"method": "tools/call", "tool":
    /// "add", "nth": 2, "error": {"code": -32603, "message": "down"}}, {"line": 4,
    /// "delay_ms": 300}, {"method": "tools/list", "drop": true}, ...]}`; what is wrong, as
    /// a sentence.
    pub(crate) fn from_json(value: &Value) -> Result<Faults, String> {
        let seed = value.get("seed").and_then(Value::as_u64).unwrap_or(0);
        let list = value
            .get("faults")
            .and_then(Value::as_array)
            .ok_or("\"faults\" must be {\"seed\": N, \"faults\": [...]}")?;
        let mut faults = Faults::new().seed(seed);
        for (i, item) in list.iter().enumerate() {
            let fault = fault_of(item).ok_or_else(|| {
                format!(
                    "\"faults\"[{i}]: say what happens: delay_ms, jitter_ms [a, b], error \
                     {{code, message}}, tool_error TEXT, drop, twice, malformed, close, reorder, \
                     status N, reset or trickle_ms"
                )
            })?;
            faults = match (item.get("line").and_then(Value::as_u64), item.get("method")) {
                (Some(line), _) => faults.on_line(line as usize, fault),
                (None, Some(Value::String(method))) => faults.on(method, fault),
                _ => return Err(format!("\"faults\"[{i}]: name a \"line\" or a \"method\"")),
            };
            if let Some(tool) = item.get("tool").and_then(Value::as_str) {
                faults = faults.tool(tool);
            }
            if let Some(n) = item.get("nth").and_then(Value::as_u64) {
                faults = faults.nth(n as usize);
            }
            if let Some(p) = item.get("probability").and_then(Value::as_f64) {
                faults = faults.probability(p);
            }
        }
        Ok(faults)
    }

    /// The fault for the recorded response on `line` answering `request` (its method and
    /// params), if one hits it: counts it for every target it matches. The first matching
    /// rule that fires wins.
    pub(crate) fn decide(&mut self, line: usize, request: &Value) -> Option<Fault> {
        let method = request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let name = request.pointer("/params/name").and_then(Value::as_str);
        let mut chosen = None;
        for i in 0..self.rules.len() {
            let hits = match &self.rules[i].target {
                Target::Line(l) => *l == line,
                Target::Method(m, tool) => {
                    m == method && (tool.is_none() || tool.as_deref() == name)
                }
            };
            if !hits {
                continue;
            }
            self.rules[i].seen += 1;
            let fires = match self.rules[i].when {
                When::Every => true,
                When::Nth(n) => self.rules[i].seen == n,
                When::Probability(p) => self.draw() < p,
            };
            if fires && chosen.is_none() {
                chosen = Some(match self.rules[i].fault.clone() {
                    Fault::Jitter(a, b) => {
                        let span = b.saturating_sub(a).as_secs_f64();
                        Fault::Delay(a + Duration::from_secs_f64(span * self.draw()))
                    }
                    other => other,
                });
            }
        }
        chosen
    }

    /// A draw in [0, 1) from the seed (splitmix64): the same seed, the same draws.
    fn draw(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The fault an item of the header's list names.
fn fault_of(item: &Value) -> Option<Fault> {
    if let Some(ms) = item.get("delay_ms").and_then(Value::as_u64) {
        return Some(Fault::Delay(Duration::from_millis(ms)));
    }
    if let Some([a, b]) = item
        .get("jitter_ms")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        return Some(Fault::Jitter(
            Duration::from_millis(a.as_u64()?),
            Duration::from_millis(b.as_u64()?),
        ));
    }
    if let Some(error) = item.get("error") {
        return Some(Fault::error(
            error.get("code").and_then(Value::as_i64).unwrap_or(-32603),
            error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("injected fault"),
        ));
    }
    if let Some(text) = item.get("tool_error").and_then(Value::as_str) {
        return Some(Fault::tool_error(text));
    }
    if item.get("drop") == Some(&Value::Bool(true)) {
        return Some(Fault::Drop);
    }
    if item.get("twice") == Some(&Value::Bool(true)) {
        return Some(Fault::Twice);
    }
    if item.get("malformed") == Some(&Value::Bool(true)) {
        return Some(Fault::Malformed);
    }
    if item.get("close") == Some(&Value::Bool(true)) {
        return Some(Fault::Close);
    }
    if item.get("reorder") == Some(&Value::Bool(true)) {
        return Some(Fault::Reorder);
    }
    if let Some(status) = item.get("status").and_then(Value::as_u64) {
        return Some(Fault::Status(u16::try_from(status).ok()?));
    }
    if item.get("reset") == Some(&Value::Bool(true)) {
        return Some(Fault::Reset);
    }
    if let Some(ms) = item.get("trickle_ms").and_then(Value::as_u64) {
        return Some(Fault::Trickle(Duration::from_millis(ms)));
    }
    None
}

/// `fault` as the header's `"faults"` spells it (`{"status": 503}`, `{"reset": true}`,
/// ...): the order the mock gives the HTTP front for a fault only HTTP has.
pub(crate) fn to_json(fault: &Fault) -> Value {
    match fault {
        Fault::Delay(d) => json!({"delay_ms": d.as_millis() as u64}),
        Fault::Jitter(a, b) => json!({"jitter_ms": [a.as_millis() as u64, b.as_millis() as u64]}),
        Fault::Error { code, message } => json!({"error": {"code": code, "message": message}}),
        Fault::ToolError(text) => json!({"tool_error": text}),
        Fault::Drop => json!({"drop": true}),
        Fault::Twice => json!({"twice": true}),
        Fault::Malformed => json!({"malformed": true}),
        Fault::Close => json!({"close": true}),
        Fault::Reorder => json!({"reorder": true}),
        Fault::Status(status) => json!({"status": status}),
        Fault::Reset => json!({"reset": true}),
        Fault::Trickle(every) => json!({"trickle_ms": every.as_millis() as u64}),
    }
}

/// `message` (a recorded response, its id already the live one) as `fault` makes it: the
/// messages to send (none for a drop, two for twice) and the pause to add.
pub(crate) fn apply(fault: &Fault, message: Value) -> (Vec<Value>, Option<Duration>) {
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    match fault {
        Fault::Delay(d) => (vec![message], Some(*d)),
        Fault::Jitter(a, _) => (vec![message], Some(*a)),
        Fault::Error {
            code,
            message: text,
        } => (
            vec![json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}})],
            None,
        ),
        Fault::ToolError(text) => (
            vec![json!({"jsonrpc": "2.0", "id": id, "result": {
                "content": [{"type": "text", "text": text}], "isError": true}})],
            None,
        ),
        Fault::Drop => (Vec::new(), None),
        Fault::Twice => (vec![message.clone(), message], None),
        // The shell cuts the line, or closes instead of writing it; the mock moves the
        // notifications; the HTTP front does the rest.
        Fault::Malformed
        | Fault::Close
        | Fault::Reorder
        | Fault::Status(_)
        | Fault::Reset
        | Fault::Trickle(_) => (vec![message], None),
    }
}

/// The report's line for a fault injected at `line` answering `request`.
pub(crate) fn injected(line: usize, request: &Value, fault: &Fault) -> Injected {
    let method = request.get("method").and_then(Value::as_str).unwrap_or("?");
    let request = match request.pointer("/params/name").and_then(Value::as_str) {
        Some(name) => format!("{method} {name}"),
        None => method.to_owned(),
    };
    Injected {
        line,
        request,
        what: fault.describe(),
        answered: matches!(
            fault,
            Fault::Delay(_)
                | Fault::Jitter(..)
                | Fault::Twice
                | Fault::Reorder
                | Fault::Reset
                | Fault::Trickle(_)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str) -> Value {
        json!({"method": "tools/call", "params": {"name": name}})
    }

    #[test]
    fn hit_the_nth_answer_of_a_tool_and_every_answer_of_a_line() {
        let mut faults = Faults::new()
            .on("tools/call", Fault::Drop)
            .tool("add")
            .nth(2)
            .on_line(9, Fault::Twice);
        assert_eq!(faults.decide(2, &call("add")), None);
        assert_eq!(faults.decide(4, &call("echo")), None);
        assert_eq!(faults.decide(6, &call("add")), Some(Fault::Drop));
        assert_eq!(faults.decide(8, &call("add")), None);
        assert_eq!(faults.decide(9, &call("echo")), Some(Fault::Twice));
    }

    #[test]
    fn draw_the_same_faults_from_the_same_seed() {
        let run = |seed| {
            let mut faults = Faults::new()
                .on("tools/call", Fault::Drop)
                .probability(0.5)
                .seed(seed);
            (0..40)
                .map(|i| faults.decide(i, &call("a")).is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let hits = run(7).iter().filter(|h| **h).count();
        assert!((10..=30).contains(&hits), "{hits}");
    }

    #[test]
    fn read_the_header_and_refuse_what_says_nothing() {
        let faults = Faults::from_json(&json!({"seed": 3, "faults": [
            {"method": "tools/call", "tool": "add", "nth": 2, "error": {"code": -32000, "message": "down"}},
            {"line": 4, "jitter_ms": [10, 20]},
        ]}))
        .unwrap();
        assert_eq!(faults.len(), 2);
        assert!(Faults::from_json(&json!({"faults": [{"method": "x"}]}))
            .unwrap_err()
            .contains("say what happens"));
        let (sent, pause) = apply(
            &Fault::error(-32603, "x"),
            json!({"jsonrpc": "2.0", "id": 5, "result": {}}),
        );
        assert_eq!(sent[0]["error"]["code"], -32603);
        assert_eq!(sent[0]["id"], 5);
        assert_eq!(pause, None);
    }
}
