//! Protocol validity (`mcp-replay/src/analyses/validate/`: the specification's schema as
//! data and the validator over it) on arbitrary messages: the first byte picks the era and
//! whether a `tools/call` asked for a task, the second the method the message answers or
//! is, the rest is the message. Checking never panics, and a violation renders.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_replay::_support::protocol::Era;
use mcp_replay::_support::validate::{Checked, Checker, Request};

const METHODS: [&str; 16] = [
    "initialize",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "server/discover",
    "subscriptions/listen",
    "tasks/get",
    "tasks/result",
    "ping",
    "logging/setLevel",
    "x/custom",
];

fuzz_target!(|data: &[u8]| {
    let [flags, method, rest @ ..] = data else {
        return;
    };
    let Ok(message) = serde_json::from_slice::<serde_json::Value>(rest) else {
        return;
    };
    let era = if flags & 1 == 0 { Era::Legacy } else { Era::Stateless };
    let checker = Checker::new(era, flags & 4 != 0);
    let request = Request {
        method: METHODS[usize::from(*method) % METHODS.len()],
        task: flags & 2 != 0,
    };
    for checked in [checker.response(request, &message), checker.message(&message)] {
        if let Checked::Invalid(violation) = checked {
            assert!(!violation.to_string().is_empty());
        }
    }
});
