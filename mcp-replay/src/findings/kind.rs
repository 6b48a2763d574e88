//! The kinds of findings ([`MismatchKind`]) and everything the harness says of each, in one
//! table: its name, its help, why it spoils a recording.

use std::fmt;

/// The kinds of findings, each reported under its own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum MismatchKind {
    /// A message arrived where a message with another method was expected.
    Method,
    /// A notification or server request has the expected method but other params.
    Params,
    /// A response to the right request has another result (result vs error counts here).
    Result,
    /// A response whose id matches no request in flight, has the wrong type, or answers twice.
    Id,
    /// The expected notifications or server requests arrived, in another order.
    NotificationOrder,
    /// An expected message never came.
    Missing,
    /// A message came that the fixture does not expect.
    Unexpected,
    /// The server did not answer (or read) within the timeout; names what was awaited.
    Timeout,
    /// The server panicked, closed early, wrote a line that is not JSON-RPC, or failed setup.
    ServerFailure,
    /// Over Streamable HTTP: the transport broke its contract (a status, a content type,
    /// the session header, malformed SSE), whatever the MCP messages were.
    Http,
    /// The server wrote lines on stdout that are not JSON-RPC messages (a banner, logs):
    /// one finding for all of them, unless the fixture allows them (header
    /// `"allow_stray_output": true`). For `mcp-replay serve`: the client did, on its stdin.
    StrayOutput,
    /// A message the server sent is not valid MCP: it does not fit the protocol's type
    /// for its method and era ([`validate`](crate::analyses::validate)). Named by JSON path and rule,
    /// apart from any drift from the recording.
    Protocol,
}

impl MismatchKind {
    /// Every kind, in the order a report sorts them. The documentation's tables of kinds
    /// (lib.rs, docs/fixture-format.md, docs/cli.md's JSON report) list each one; a test
    /// checks it.
    pub const ALL: [MismatchKind; 12] = [
        MismatchKind::Method,
        MismatchKind::Params,
        MismatchKind::Result,
        MismatchKind::Id,
        MismatchKind::NotificationOrder,
        MismatchKind::Missing,
        MismatchKind::Unexpected,
        MismatchKind::Timeout,
        MismatchKind::ServerFailure,
        MismatchKind::Http,
        MismatchKind::StrayOutput,
        MismatchKind::Protocol,
    ];

    /// Whether a session with a finding of this kind cannot be trusted as a recording: a
    /// timeout, a server failure or an id finding (the server's replies are not what it
    /// does), stray output (the fixture would hide it), a protocol violation (it would be
    /// pinned as the contract). Such a session is not re-recorded, and the advice is to fix
    /// the server first. It is the kind's [`why_not_rerecorded`](Self::why_not_rerecorded).
    pub fn spoils_recording(self) -> bool {
        self.why_not_rerecorded().is_some()
    }

    /// Why a session with a finding of this kind was not re-recorded, and what to do
    /// (a finding may have a reason of its own: [`Mismatch::why_not_rerecorded`](crate::Mismatch::why_not_rerecorded)):
    /// `None` for a kind that does not [spoil a recording](MismatchKind::spoils_recording).
    pub fn why_not_rerecorded(self) -> Option<&'static str> {
        self.about().spoils
    }

    /// The name used in reports: `method`, `params`, `result`, `id`, `notification order`,
    /// `missing`, `unexpected`, `timeout`, `server failure`, `http`, `stray output`,
    /// `protocol`.
    pub fn name(self) -> &'static str {
        self.about().name
    }

    /// What a finding of this kind means and what to do, in a sentence or two: the help of
    /// its rule in a SARIF log (`output::sarif`).
    pub fn help(self) -> &'static str {
        self.about().help
    }

    /// Everything the harness says of a kind, in one place: a new kind is a variant and an
    /// arm here (and a row in docs/fixture-format.md's table of kinds).
    fn about(self) -> About {
        match self {
            MismatchKind::Method => METHOD,
            MismatchKind::Params => PARAMS,
            MismatchKind::Result => RESULT,
            MismatchKind::Id => ID,
            MismatchKind::NotificationOrder => NOTIFICATION_ORDER,
            MismatchKind::Missing => MISSING,
            MismatchKind::Unexpected => UNEXPECTED,
            MismatchKind::Timeout => TIMEOUT,
            MismatchKind::ServerFailure => SERVER_FAILURE,
            MismatchKind::Http => HTTP,
            MismatchKind::StrayOutput => STRAY_OUTPUT,
            MismatchKind::Protocol => PROTOCOL,
        }
    }
}

/// What [`MismatchKind::about`] says of a kind.
struct About {
    /// Its name in reports.
    name: &'static str,
    /// Its SARIF help.
    help: &'static str,
    /// Why a session with it is not re-recorded; `None` when it does not spoil one.
    spoils: Option<&'static str>,
}

const METHOD: About = About {
    name: "method",
    help: "A message arrived where the fixture expects another method. If the new \
     behaviour is right, re-record the fixture (MCP_FIXTURE_UPDATE=1 cargo test, or \
     mcp-replay replay --update).",
    spoils: None,
};

const PARAMS: About = About {
    name: "params",
    help: "A notification, server request or client message has other params than the \
     fixture's. Re-record if the change is right.",
    spoils: None,
};

const RESULT: About = About {
    name: "result",
    help: "A response differs from the recorded one (result or error). Re-record if the \
     change is right; a value that changes every run is pinned with a bind or sort \
     rule (docs/normalization.md).",
    spoils: None,
};

const ID: About = About {
    name: "id",
    help: "A response's id matches no request in flight, has the wrong type or answers \
     twice: fix the server.",
    spoils: Some(UNTRUSTED),
};

const NOTIFICATION_ORDER: About = About {
    name: "notification order",
    help: "The expected notifications or server requests came in another order. Name \
     racing methods in the header's unordered, or re-record.",
    spoils: None,
};

const MISSING: About = About {
    name: "missing",
    help: "An expected message never came. Re-record if the server no longer sends it.",
    spoils: None,
};

const UNEXPECTED: About = About {
    name: "unexpected",
    help: "A message came that the fixture does not expect. Re-record if it is right.",
    spoils: None,
};

const TIMEOUT: About = About {
    name: "timeout",
    help: "The server did not answer in time: the finding names the message waited for. \
     Fix the server, or raise the timeout.",
    spoils: Some(UNTRUSTED),
};

const SERVER_FAILURE: About = About {
    name: "server failure",
    help: "The server panicked, exited, closed early or failed its setup; the finding \
     holds its status and its last stderr lines. Fix the server.",
    spoils: Some(UNTRUSTED),
};

const HTTP: About = About {
    name: "http",
    help: "Over Streamable HTTP the transport broke its contract (a status, a content \
     type, SSE framing, the session id).",
    spoils: None,
};

const STRAY_OUTPUT: About = About {
    name: "stray output",
    help: "The server wrote lines on stdout that are not JSON-RPC messages. Fix it, or \
     allow them with \"allow_stray_output\": true.",
    spoils: Some(
        "the server writes lines on stdout that are not JSON-RPC messages. Fix the \
         server, or allow them explicitly with \"allow_stray_output\": true in the \
         fixture header (then re-record).",
    ),
};

const PROTOCOL: About = About {
    name: "protocol",
    help: "A server message is not valid MCP for its era (the protocol's schema); the \
     finding names the JSON path and the rule.",
    spoils: Some(
        "the server sent a message that is not valid MCP, which a re-recording would \
         pin as the contract. Fix the server, or let such messages through with \
         protocol_check = \"warn\" (then re-record).",
    ),
};

/// Why a session with a timeout, an id finding or a server failure is not re-recorded.
const UNTRUSTED: &str = "a timeout, id or server failure means the server's replies cannot be \
     trusted as a recording. Fix the server first.";

impl fmt::Display for MismatchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
