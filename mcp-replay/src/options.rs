//! How a replay runs, apart from what it replays: the [`Options`] a caller sets (the
//! attribute, the command's flags, code), and the [`Settings`] they resolve to for one
//! fixture, once, with the fixture header, the rules and the environment. The session and
//! the mock read only the settings; nothing is written onto the fixture to be read back
//! deep inside.

use crate::analyses::validate::ProtocolCheck;
use crate::data::contract::Class;
use crate::data::fixture::Fixture;
use crate::data::protocol::Era;
use crate::data::timing::Timing;
use crate::rules::Rules;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// How a replay (or the mock server) runs, where the caller says so: each option left
/// unset falls back to the fixture header's key, then the environment, then the default.
///
/// ```
/// use mcp_replay::{Fixture, Options, Rules};
/// use std::time::Duration;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let fixture = Fixture::parse("").unwrap();
/// let options = Options::new()
///     .timeout(Duration::from_millis(500))
///     .protocol("2026-07-28")
///     .trace(false);
/// let report = fixture
///     .replay().rules(&Rules::default()).options(&options).run(|transport| async move { drop(transport) })
///     .await;
/// assert!(report.is_ok());
/// # }
/// ```
#[derive(Clone, Default)]
pub struct Options {
    timeout: Option<Duration>,
    /// The least the session's first wait lasts (the server starting), when longer than
    /// the timeout: `explore`'s short hang limit is for the call, not for a start.
    start: Option<Duration>,
    protocol: Option<String>,
    trace: Option<bool>,
    compare_only: bool,
    record_on_change: bool,
    record_spoiled: bool,
    pace: Option<Duration>,
    timing: Option<Arc<(Timing, f64)>>,
    handler: Option<ServerRequestHandler>,
    strict_exit: bool,
    allow_stray_output: bool,
    protocol_check: Option<ProtocolCheck>,
    faults: Option<crate::data::faults::Faults>,
    timeline: bool,
    /// The mock plays the server behind the Streamable HTTP front (`Mock::http`).
    over_http: bool,
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("timeout", &self.timeout)
            .field("protocol", &self.protocol)
            .field("trace", &self.trace)
            .field("compare_only", &self.compare_only)
            .field("pace", &self.pace)
            .field("timing", &self.timing.as_ref().map(|t| t.1))
            .field("handler", &self.handler.is_some())
            .field("strict_exit", &self.strict_exit)
            .field("allow_stray_output", &self.allow_stray_output)
            .field("protocol_check", &self.protocol_check)
            .field("faults", &self.faults.as_ref().map(|f| f.len()))
            .field("timeline", &self.timeline)
            .finish()
    }
}

impl Options {
    /// Nothing set: the header, the environment and the defaults decide.
    pub fn new() -> Options {
        Options::default()
    }

    /// The least the first wait of a session lasts, whatever the timeout (for `explore`).
    #[cfg(feature = "explore")]
    pub(crate) fn start_timeout(mut self, start: Duration) -> Options {
        self.start = Some(start);
        self
    }

    /// How long the replay waits for each message it needs (a response, a server request
    /// before its answer, an unsolicited message after the last client message); else the
    /// header's `"timeout"`, else [`Fixture::DEFAULT_TIMEOUT`].
    pub fn timeout(mut self, timeout: Duration) -> Options {
        self.timeout = Some(timeout);
        self
    }

    /// The protocol version to replay in, overriding the header's `"protocol"`:
    /// `"2026-07-28"` (or later) sends every request with the stateless era's `_meta`
    /// identity and no handshake; an older version is the one of the legacy handshake the
    /// harness performs. A re-recording does not write it into the file.
    pub fn protocol(mut self, version: &str) -> Options {
        self.protocol = Some(version.to_owned());
        self
    }

    /// Prints every live message to stderr as it passes (milliseconds since the start,
    /// direction, method or id, the fixture line it matched or why not), or not, whatever
    /// `MCP_REPLAY_TRACE` says. Under `cargo test` the trace shows for a failing test only.
    pub fn trace(mut self, on: bool) -> Options {
        self.trace = Some(on);
        self
    }

    /// Whether these options trace, where there is no fixture to resolve them with (a
    /// test whose body is the client, on its first run): as [`Options::resolve`] decides.
    pub(crate) fn resolve_trace(&self) -> bool {
        self.trace.unwrap_or_else(crate::env::trace)
    }

    /// Only compares: the replay keeps no copy of what the server sent, and
    /// [`Report::recorded`](crate::Report::recorded) is `None`. That saves the
    /// serialization of every message and a copy of the exchange; `#[mcp_fixture]` does it
    /// unless `MCP_FIXTURE_UPDATE` asks to re-record.
    pub fn without_recording(mut self) -> Options {
        self.compare_only = true;
        self
    }

    /// Records what the server sent, but makes the recorded fixture
    /// ([`Report::recorded`](crate::Report::recorded)) only when the replay found a
    /// difference or an accepted contract change: what a test run does by default
    /// (`MCP_FIXTURE_UPDATE` unset or `new`), where a passing test writes nothing and need
    /// not pay for a copy of its exchange. Without effect after
    /// [`without_recording`](Options::without_recording).
    pub fn record_on_change(mut self) -> Options {
        self.record_on_change = true;
        self
    }

    /// Makes the recorded fixture ([`Report::recorded`](crate::Report::recorded)) even when
    /// a finding spoils it ([`Mismatch::why_not_rerecorded`](crate::Mismatch::why_not_rerecorded)):
    /// what `MCP_FIXTURE_UPDATE=force` writes. Without effect after
    /// [`without_recording`](Options::without_recording).
    pub fn record_spoiled(mut self) -> Options {
        self.record_spoiled = true;
        self
    }

    /// When the fixture plays the server for a client ([`Fixture::mock`],
    /// `mcp-replay serve`), the pause after each message that another follows at once: a
    /// client reads and handles each before the next arrives. `Duration::ZERO` writes them
    /// back to back (a stress mode for clients that lose messages when a server is fast).
    /// Else the header's `pace_ms`, else [`Fixture::DEFAULT_PACE`].
    pub fn pace(mut self, pace: Duration) -> Options {
        self.pace = Some(pace);
        self
    }

    /// When the fixture plays the server, each server message waits its recorded pause
    /// after the client message it answers, times `scale` (`1.0` as recorded, `0.5` twice
    /// as fast). `timing` comes from `mcp-replay record --timing FILE`
    /// ([`Timing::load`](crate::data::timing::Timing::load)). Off by default: messages are only
    /// paced ([`Options::pace`]).
    pub fn timing(mut self, timing: Timing, scale: f64) -> Options {
        self.timing = Some(Arc::new((timing, scale.max(0.0))));
        self
    }

    /// Answers the server's requests with `handler` instead of the recorded client
    /// responses (as mcporter replays elicitation through a caller-supplied handler).
    /// `handler` gets the server's request and returns the `result` to send, or `None` to
    /// send the recorded response. An answer that differs from the recorded one is a
    /// [`MismatchKind::Result`](crate::MismatchKind::Result) finding.
    pub fn on_server_request(
        mut self,
        handler: impl Fn(&Value) -> Option<Value> + Send + Sync + 'static,
    ) -> Options {
        self.handler = Some(ServerRequestHandler(Arc::new(handler)));
        self
    }

    /// With `true`, a server that had to be stopped with a signal after its input closed is
    /// a [`ServerFailure`](crate::MismatchKind::ServerFailure) finding instead of a note,
    /// as the header's `"strict_exit": true` says (`mcp-replay replay --strict-exit`).
    pub fn strict_exit(mut self, strict: bool) -> Options {
        self.strict_exit = strict;
        self
    }

    /// With `true`, lines the server writes on stdout that are not JSON-RPC messages are a
    /// note instead of a [`StrayOutput`](crate::MismatchKind::StrayOutput) finding, as the
    /// header's `"allow_stray_output": true` says (`--allow-stray-output`,
    /// `#[mcp_fixture(.., allow_stray_output)]`). For the mock server: the client's lines.
    pub fn allow_stray_output(mut self, allowed: bool) -> Options {
        self.allow_stray_output = allowed;
        self
    }

    /// What a server message that is not valid MCP is ([`validate`](crate::analyses::validate)): a
    /// [`Protocol`](crate::MismatchKind::Protocol) finding ([`ProtocolCheck::Deny`], the
    /// default), a warning ([`ProtocolCheck::Warn`], for a server one cannot fix; see
    /// [`Report::warnings`](crate::Report::warnings)), or not checked. Else the header's
    /// `"protocol_check"`.
    pub fn protocol_check(mut self, check: ProtocolCheck) -> Options {
        self.protocol_check = Some(check);
        self
    }

    /// The faults the mock injects for a client under test ([`Faults`](crate::mock::Faults):
    /// a delay, an error, no answer, an answer twice, on cue); else the header's
    /// `"faults"`. A replay against a server ignores them.
    pub fn faults(mut self, faults: crate::data::faults::Faults) -> Options {
        self.faults = Some(faults);
        self
    }

    /// The mock plays the server behind the Streamable HTTP front (`Mock::http` says so).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn over_http(mut self) -> Options {
        self.over_http = true;
        self
    }

    /// With `true`, the replay keeps the timeline of the session (each line written and
    /// read, at its instant, with the fixture line it was paired with), so that
    /// [`Report::to_html`](crate::Report::to_html) can draw its picture: one self-contained
    /// HTML page. Off by default, and then the replay records nothing for it.
    /// `#[mcp_fixture]` turns it on when `MCP_REPLAY_HTML` names a folder, the command with
    /// `replay --html`.
    #[doc(alias = "html")]
    pub fn timeline(mut self, keep: bool) -> Options {
        self.timeline = keep;
        self
    }

    /// The settings of one replay of `fixture` with `rules`: every option resolved once,
    /// from these options, the fixture header, the rules and the environment.
    pub(crate) fn resolve<'r>(&self, fixture: &Fixture, rules: &'r Rules) -> Settings<'r> {
        let header = fixture.header();
        let era = match &self.protocol {
            Some(version) => Era::of_version(version),
            None => fixture.era(),
        };
        let protocol = self
            .protocol
            .clone()
            .or_else(|| header.protocol.clone())
            .unwrap_or_else(|| era.default_version().to_owned());
        Settings {
            rules: rules.for_fixture(fixture),
            timeout: self
                .timeout
                .or(header.timeout)
                .unwrap_or(Fixture::DEFAULT_TIMEOUT),
            start: self.start,
            era,
            protocol,
            trace: self.resolve_trace(),
            record: !self.compare_only,
            record_on_change: self.record_on_change,
            record_spoiled: self.record_spoiled,
            handler: self.handler.clone(),
            pace: self.pace.or(header.pace).unwrap_or(Fixture::DEFAULT_PACE),
            timing: self.timing.clone(),
            strict_exit: self.strict_exit || header.strict_exit,
            allow_stray_output: self.allow_stray_output || header.allow_stray_output,
            strict_order: header.strict_order,
            strict_response_order: header.strict_response_order,
            closes_input_after: header.closes_input_after,
            explored: header.explore.clone(),
            unordered: header.unordered.clone(),
            accept: header.accept.clone(),
            shapes: header.shapes.clone(),
            protocol_check: self
                .protocol_check
                .or(header.protocol_check)
                .unwrap_or_default(),
            timeline: self.timeline,
            over_http: self.over_http,
            faults: self.faults.clone().or_else(|| {
                header
                    .faults
                    .as_ref()
                    .and_then(|v| crate::data::faults::Faults::from_json(v).ok())
            }),
        }
    }
}

/// What one replay of one fixture runs with: [`Options`] resolved against the fixture
/// header, the rules and the environment ([`Options::resolve`]). Plain values: the session
/// core, the mock and the shells read them and decide nothing about where they came from.
#[derive(Debug, Clone)]
pub(crate) struct Settings<'r> {
    /// The rules, at the fixture's rules version.
    pub rules: Cow<'r, Rules>,
    pub timeout: Duration,
    /// The least the session's first wait lasts ([`Options::start_timeout`]).
    pub start: Option<Duration>,
    pub era: Era,
    /// The protocol version the harness speaks.
    pub protocol: String,
    pub trace: bool,
    /// Keep what the server sent, for a re-recording.
    pub record: bool,
    /// Make the recorded fixture only when something changed ([`Options::record_on_change`]).
    pub record_on_change: bool,
    /// Make the recorded fixture even when a finding spoils it (`MCP_FIXTURE_UPDATE=force`).
    pub record_spoiled: bool,
    pub handler: Option<ServerRequestHandler>,
    /// The mock's pause between messages written together.
    pub pace: Duration,
    /// The mock's recorded pauses and their factor.
    pub timing: Option<Arc<(Timing, f64)>>,
    pub strict_exit: bool,
    pub allow_stray_output: bool,
    pub strict_order: bool,
    pub strict_response_order: bool,
    /// The header's `closes_input_after`: the replay closes the server's input after
    /// that many of the fixture's messages, as the recorded client did.
    pub closes_input_after: Option<usize>,
    /// The header's `explore`: the rule the fixture's last `tools/call` is judged by
    /// instead of compared (engine/replay/explored.rs).
    pub explored: Option<crate::data::explored::Explored>,
    /// Methods whose messages may arrive anywhere, in any order (the header's; the rules'
    /// own are asked with [`Settings::is_unordered`]).
    unordered: Vec<String>,
    /// Contract classes whose changes are not findings (the header's; the rules' own are
    /// asked with [`Settings::accepts`]).
    accept: Vec<Class>,
    /// What a server message that is not valid MCP is.
    pub protocol_check: ProtocolCheck,
    /// Keep the timeline of the session, for its picture.
    pub timeline: bool,
    /// The header's shapes of its bound values (`normalize/shape.rs`): what the side that
    /// minted each is played with.
    pub shapes: Vec<(String, String)>,
    /// The faults the mock injects (the options', else the header's).
    pub faults: Option<crate::data::faults::Faults>,
    /// The mock's messages go through the Streamable HTTP front, which carries out the
    /// faults only HTTP has.
    pub over_http: bool,
}

impl Settings<'_> {
    /// These settings with rules of their own, for a task that outlives the borrow.
    pub fn into_owned(self) -> Settings<'static> {
        Settings {
            rules: std::borrow::Cow::Owned(self.rules.into_owned()),
            ..self
        }
    }

    /// These settings for a replay over Streamable HTTP: every server notification method of
    /// `fixture` but progress is unordered. Over HTTP a server's messages travel on several
    /// streams (each POST's, the GET stream), and the transport orders them within a stream
    /// only: rmcp sends a tool's log on the GET stream and its progress on the POST's, so
    /// the log may overtake the progress it followed over stdio. Progress is tied to its
    /// request's stream by its token; the others are still expected, each once, but not in
    /// order. A subscription's messages travel on its `subscriptions/listen` stream, and
    /// are tied to it by the subscription id they carry, as progress is by its token. A
    /// fixture with `"strict_order": true` keeps its one order.
    #[cfg(feature = "http")]
    pub fn across_streams(mut self, fixture: &Fixture) -> Self {
        use crate::data::fixture::{Direction, MessageKind};
        if self.strict_order {
            return self;
        }
        for entry in fixture.entries() {
            if entry.direction() == Direction::ServerToClient
                && entry.kind() == MessageKind::Notification
                && entry.subscription().is_none()
            {
                match entry.method() {
                    Some("notifications/progress") | None => {}
                    Some(method) if !self.unordered.iter().any(|m| m == method) => {
                        self.unordered.push(method.to_owned())
                    }
                    Some(_) => {}
                }
            }
        }
        self
    }

    /// May messages of `method` arrive anywhere, in any order (the rules or the header)?
    pub fn is_unordered(&self, method: &str) -> bool {
        self.rules.is_unordered(method) || self.unordered.iter().any(|m| m == method)
    }

    /// Are contract changes of `class` let through (the rules or the header)?
    pub fn accepts(&self, class: Class) -> bool {
        self.rules.accepts(class) || self.accept.contains(&class)
    }
}

/// Answers the server's requests (`elicitation/create`, `sampling/createMessage`, ...) in
/// place of the recorded client responses; see [`Options::on_server_request`].
#[derive(Clone)]
pub struct ServerRequestHandler(Arc<HandlerFn>);

type HandlerFn = dyn Fn(&Value) -> Option<Value> + Send + Sync;

impl ServerRequestHandler {
    pub(crate) fn call(&self, request: &Value) -> Option<Value> {
        (self.0)(request)
    }
}

impl fmt::Debug for ServerRequestHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerRequestHandler")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(header: &str) -> Fixture {
        Fixture::parse(&format!("{header}\n")).unwrap()
    }

    #[test]
    fn an_option_overrides_the_header_which_overrides_the_default() {
        let rules = Rules::default();
        let plain = Options::new().trace(false).resolve(&fixture(""), &rules);
        assert_eq!(plain.timeout, Fixture::DEFAULT_TIMEOUT);
        assert_eq!(plain.pace, Fixture::DEFAULT_PACE);
        assert_eq!(
            (plain.era, plain.protocol.as_str()),
            (Era::Legacy, "2025-11-25")
        );
        assert!(plain.record && !plain.trace && !plain.strict_exit);

        let header = fixture(
            r#"{"mcp_replay":1,"timeout_ms":250,"pace_ms":0,"protocol":"2026-07-28","strict_exit":true,"accept":["cosmetic"],"unordered":["notifications/message"]}"#,
        );
        let from_header = Options::new().resolve(&header, &rules);
        assert_eq!(from_header.timeout, Duration::from_millis(250));
        assert_eq!(from_header.pace, Duration::ZERO);
        assert_eq!(from_header.era, Era::Stateless);
        assert!(from_header.strict_exit);
        assert!(from_header.accepts(Class::Cosmetic));
        assert!(from_header.is_unordered("notifications/message"));

        let options = Options::new()
            .timeout(Duration::from_secs(1))
            .protocol("2025-06-18")
            .without_recording()
            .allow_stray_output(true);
        let overridden = options.resolve(&header, &rules);
        assert_eq!(overridden.timeout, Duration::from_secs(1));
        assert_eq!(
            (overridden.era, overridden.protocol.as_str()),
            (Era::Legacy, "2025-06-18")
        );
        assert!(!overridden.record && overridden.allow_stray_output);
        // An option is never written into the file.
        assert!(!header.to_jsonl().contains("2025-06-18"));
    }

    #[test]
    fn the_era_comes_from_the_fixture_unless_an_option_names_a_version() {
        let discover = Fixture::parse(concat!(
            r#"{"direction":"client->server","message":{"jsonrpc":"2.0","id":"<REQUEST_ID>","method":"server/discover","params":{}}}"#,
            "\n"
        ))
        .unwrap();
        let rules = Rules::default();
        assert_eq!(
            Options::new().resolve(&discover, &rules).era,
            Era::Stateless
        );
        assert_eq!(
            Options::new().resolve(&discover, &rules).protocol,
            "2026-07-28"
        );
        let legacy = Options::new()
            .protocol("2025-11-25")
            .resolve(&discover, &rules);
        assert_eq!(legacy.era, Era::Legacy);
    }
}
