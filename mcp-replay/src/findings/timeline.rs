//! The timeline of one replay, for its picture (`html/`): each line the harness wrote and
//! each line the server sent, at its instant, with the fixture line it is (or was paired
//! with), the findings about it, and the span of the client request it belongs to. A
//! replay keeps one only when asked ([`Options::timeline`](crate::Options::timeline)). It
//! is plain data: the session builds it when it concludes (`replay/picture.rs`), and pure
//! code renders it.

use std::time::Duration;

/// Who wrote a line: the client (the harness, playing the fixture's client) or the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Client,
    Server,
}

/// What an event of the timeline is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// A JSON-RPC message, as it went over the pipe.
    Message,
    /// A line of the server's that is not a JSON-RPC message (stray output).
    Stray,
    /// The harness closed the server's input.
    InputClosed,
    /// The server closed its output.
    OutputClosed,
}

/// One thing that crossed the pipe.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    /// Since the replay started.
    pub at: Duration,
    pub side: Side,
    pub what: What,
    /// The line as written on the pipe (unmasked: the page masks what it shows).
    pub text: String,
    /// The fixture entry it is (a client line sent) or was paired with (a server line),
    /// as an index into [`Timeline::expected`].
    pub entry: Option<usize>,
    /// For a line the harness wrote of its own (the session setup of a fixture without a
    /// handshake, the refusal of a request the fixture does not expect): what it is.
    pub own: Option<String>,
    /// The span of the client request it belongs to ([`Timeline::spans`]): a request's own
    /// span, the one its response closes, or the one a notification is tied to.
    pub span: Option<usize>,
    /// The findings about it, as indexes into the report's mismatches.
    pub findings: Vec<usize>,
}

/// One line of the fixture, as the page shows it on the expected side.
#[derive(Debug, Clone)]
pub(crate) struct Expected {
    /// The line number in the fixture file.
    pub line: usize,
    pub side: Side,
    /// The fixture's text of the message (unmasked).
    pub text: String,
    /// When it may come, in words (`tied to ... while it runs`, `the server's own: any
    /// time in the session`, `answers line 3`); empty for a client line.
    pub when: String,
}

/// An expected message that never came (or came too late), with the findings about it.
#[derive(Debug, Clone)]
pub(crate) struct Missing {
    /// Index into [`Timeline::expected`].
    pub entry: usize,
    pub findings: Vec<usize>,
}

/// The span of one client request: from its send to its response, when the messages
/// tied to it may come.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    /// `` `tools/call count_up` (line 1) ``.
    pub name: String,
    /// The event that sent the request.
    pub from: usize,
    /// The event of its response; `None` when none came.
    pub to: Option<usize>,
    /// Notifications of the fixture are tied to the request (their causal span).
    pub tied: bool,
}

/// The timeline of one replay.
#[derive(Debug, Clone, Default)]
pub(crate) struct Timeline {
    /// In the order they happened.
    pub events: Vec<Event>,
    /// Every fixture entry, in fixture order.
    pub expected: Vec<Expected>,
    /// In fixture order.
    pub missing: Vec<Missing>,
    pub spans: Vec<Span>,
    /// How long the replay took, until it concluded.
    pub elapsed: Duration,
    /// Events past [`Timeline::MAX_EVENTS`], not kept.
    pub dropped: usize,
}

impl Timeline {
    /// How many events a timeline keeps; a longer session's page says how many more came.
    pub const MAX_EVENTS: usize = 10_000;
}
