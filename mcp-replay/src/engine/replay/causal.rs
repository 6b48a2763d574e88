//! The causal model of a fixture: for each expected server notification or server request,
//! when it may arrive and whose order it shares (its *group*); and, for each arrival, which
//! group it is taken into. The rules, with examples, are in `docs/fixture-format.md`.
//!
//! - A message **tied to a client request** keeps its order among that request's messages
//!   while the request runs (from the request to its response, across the client's answers
//!   to server requests). Progress is tied to the request whose token it carries (else to
//!   the one request in flight), a subscription's messages (its acknowledgement and its
//!   events, `list_changed` and `resources/updated` included) to the
//!   `subscriptions/listen` request whose id they name, and either may come only while its
//!   request runs. Another notification is
//!   tied when it was recorded while one request alone was in flight and the client had
//!   answered no server request since; as it may have been the server's own (a log after
//!   the client answered its `roots/list`), it is also matched after the request ends.
//! - Any other message is **unsolicited**: `list_changed`, `resources/updated`, the
//!   server's own requests, a log the server sends on its own schedule. It may arrive
//!   anywhere in the session, in any order: such messages come from several sources (a
//!   timer, an answer to the server's own request, another request's work), so not even
//!   one method's messages promise an order.
//! - `unordered` methods (rules or header) are unsolicited and keep no order;
//!   `"strict_order": true` puts every message in one ordered group.

use super::align::GroupInfo;
use super::IntMap;
use crate::data::fixture::{Direction, Entry, Fixture, MessageKind};
use crate::data::json::json_eq;
use crate::data::json::At;
use crate::engine::polls::Polls;
use crate::options::Settings;
use serde_json::Value;

/// Methods a server sends on its own schedule, never as part of one request's work.
fn unsolicited(method: &str) -> bool {
    task_status(method)
        || method.ends_with("/list_changed")
        || matches!(
            method,
            "notifications/resources/updated"
                | "notifications/cancelled"
                | "notifications/elicitation/complete"
        )
}

/// A task's status notifications (protocol 2025-11-25, and the Tasks extension of
/// 2026-07-28): they come as the task's work advances, not as any one request's, and in the
/// order of its states.
fn task_status(method: &str) -> bool {
    matches!(method, "notifications/tasks/status" | "notifications/tasks")
}

/// One expected server message.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wanted {
    /// Its fixture entry.
    pub entry: usize,
    pub group: usize,
    /// The client request entry it is tied to, if any.
    pub tie: Option<usize>,
    /// Tied by the request's progress token: it cannot come after the request's response.
    /// A message tied only because its request alone was in flight may have been the
    /// server's own (a log after the client answered its `roots/list`): it keeps its
    /// request's order while it runs, and is matched anywhere else too.
    pub hard: bool,
}

/// The fixture's expected server messages, their groups, and what to assign arrivals by.
#[derive(Debug)]
pub(crate) struct Model<'f> {
    /// In fixture order.
    pub wants: Vec<Wanted>,
    pub groups: Vec<GroupInfo>,
    /// The wants of each group, in fixture order.
    pub members: Vec<Vec<usize>>,
    /// The methods each group expects.
    methods: Vec<Vec<&'f str>>,
    /// The group of each client request entry that has messages tied to it.
    group_of_request: IntMap<usize, usize>,
    /// The group of the unsolicited messages of each method (or of all, in strict order).
    group_of_method: Vec<(&'f str, usize)>,
    /// The progress token of each client request entry that carries one.
    token_of_request: IntMap<usize, Value>,
    /// The want of each expected server message entry.
    pub want_of_entry: IntMap<usize, usize>,
}

impl<'f> Model<'f> {
    pub fn new(fixture: &'f Fixture, settings: &Settings<'_>, polls: &Polls) -> Model<'f> {
        let entries = fixture.entries();
        let strict = settings.strict_order;
        let unordered = |m: &str| settings.is_unordered(m);
        let mut model = Model {
            wants: Vec::new(),
            groups: Vec::new(),
            members: Vec::new(),
            methods: Vec::new(),
            group_of_request: IntMap::default(),
            group_of_method: Vec::new(),
            token_of_request: IntMap::default(),
            want_of_entry: IntMap::default(),
        };
        // Client requests in flight at each point of the recording, and those during which
        // the client answered a server request (what follows may be that answer's doing).
        let mut in_flight: Vec<usize> = Vec::new();
        let mut answered_since: Vec<usize> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            match (entry.direction(), entry.kind()) {
                (Direction::ClientToServer, MessageKind::Request) => {
                    if let Some(token) = progress_token(entry, "/params/_meta/progressToken") {
                        model.token_of_request.insert(i, token);
                    }
                    // The polls of one run are one loop, the first poll its request.
                    let i = polls.run_of(i).map_or(i, |run| polls.runs[run].requests[0]);
                    if !in_flight.contains(&i) {
                        in_flight.push(i);
                    }
                }
                (Direction::ClientToServer, MessageKind::Response) => {
                    answered_since.extend(in_flight.iter().copied());
                }
                (Direction::ClientToServer, MessageKind::Notification) => {
                    if entry.method() == Some("notifications/cancelled") {
                        if let Some(target) = cancelled_request(entries, i) {
                            in_flight.retain(|&q| q != target);
                        }
                    }
                }
                (Direction::ServerToClient, MessageKind::Response) => {
                    let answers = entry
                        .answers()
                        .map(|q| polls.run_of(q).map_or(q, |run| polls.runs[run].requests[0]));
                    in_flight.retain(|&q| Some(q) != answers);
                }
                (Direction::ServerToClient, _) => {
                    let method = entry.method().unwrap_or_default();
                    let (tie, hard) =
                        match unordered(method) || entry.kind() == MessageKind::Request {
                            true => (None, false),
                            false => model.tie(entries, entry, &in_flight, &answered_since),
                        };
                    // The server's own messages come from several sources (timers, answers
                    // to its requests, other requests' work): no order among them is
                    // promised, not even within one method (a log of a timer and a log of
                    // a tool), unless the fixture asks for strict order.
                    let group = match tie {
                        Some(q) if !strict => model.request_group(q),
                        _ if strict && !unordered(method) => model.method_group("", true),
                        _ => model.method_group(method, task_status(method)),
                    };
                    model.add(
                        Wanted {
                            entry: i,
                            group,
                            tie,
                            hard,
                        },
                        method,
                    );
                }
            }
        }
        model
    }

    /// The client request a notification recorded now is tied to, if any, and whether
    /// hard (by its progress token or its subscription: it comes only while that runs).
    fn tie(
        &self,
        entries: &[Entry],
        entry: &Entry,
        in_flight: &[usize],
        answered_since: &[usize],
    ) -> (Option<usize>, bool) {
        if let Some(listen) = listen_of(entries, entry, in_flight) {
            return (Some(listen), true);
        }
        if unsolicited(entry.method().unwrap_or_default()) {
            return (None, false);
        }
        // Progress is always a request's: by its token, else the one request in flight.
        if entry.method() == Some("notifications/progress") {
            let token = progress_token(entry, "/params/progressToken");
            let owner = token.and_then(|token| {
                in_flight.iter().copied().find(|q| {
                    self.token_of_request
                        .get(q)
                        .is_some_and(|t| json_eq(t, &token))
                })
            });
            return match (owner, in_flight) {
                (Some(q), _) | (None, &[q]) => (Some(q), true),
                _ => (None, false),
            };
        }
        match in_flight {
            [only] if !answered_since.contains(only) => (Some(*only), false),
            _ => (None, false),
        }
    }

    fn add(&mut self, want: Wanted, method: &'f str) {
        if !self.methods[want.group].contains(&method) {
            self.methods[want.group].push(method);
        }
        self.want_of_entry.insert(want.entry, self.wants.len());
        self.members[want.group].push(self.wants.len());
        self.wants.push(want);
    }

    fn request_group(&mut self, request: usize) -> usize {
        if let Some(&group) = self.group_of_request.get(&request) {
            return group;
        }
        let group = self.new_group(true);
        self.group_of_request.insert(request, group);
        group
    }

    /// The group of unsolicited `method` (`""`: every method, in strict order).
    fn method_group(&mut self, method: &'f str, ordered: bool) -> usize {
        if let Some(&(_, group)) = self.group_of_method.iter().find(|(m, _)| *m == method) {
            return group;
        }
        let group = self.new_group(ordered);
        self.group_of_method.push((method, group));
        group
    }

    fn new_group(&mut self, ordered: bool) -> usize {
        self.groups.push(GroupInfo { ordered });
        self.members.push(Vec::new());
        self.methods.push(Vec::new());
        self.groups.len() - 1
    }

    /// The group an arriving message of `method` is taken into, and the want it claims:
    /// among the groups that expect its method (the one whose request's progress token it
    /// carries, then those of the requests `in_flight` in the order they were sent, then
    /// the method's unsolicited group), the first with an unclaimed want it equals
    /// (`claim(group)` finds and claims one), else the first. `None`: no group expects it.
    pub fn assign(
        &self,
        method: &str,
        token: Option<&Value>,
        in_flight: impl Iterator<Item = usize>,
        mut claim: impl FnMut(usize) -> Option<usize>,
    ) -> (Option<usize>, Option<usize>) {
        let mut candidates: Vec<usize> = Vec::with_capacity(4);
        for request in in_flight {
            let Some(&group) = self.group_of_request.get(&request) else {
                continue;
            };
            if !self.methods[group].contains(&method) {
                continue;
            }
            let carries_token = token.is_some_and(|t| {
                self.token_of_request
                    .get(&request)
                    .is_some_and(|own| json_eq(own, t))
            });
            if carries_token {
                candidates.insert(0, group);
            } else {
                candidates.push(group);
            }
        }
        if let Some(&(_, group)) = self
            .group_of_method
            .iter()
            .find(|(m, g)| (*m == method || m.is_empty()) && self.methods[*g].contains(&method))
        {
            candidates.push(group);
        }
        for &group in &candidates {
            if let Some(want) = claim(group) {
                return (Some(group), Some(want));
            }
        }
        (candidates.first().copied(), None)
    }
}

/// The `subscriptions/listen` request in flight whose stream a server message travels on:
/// the one whose id the message names as its subscription id. Its acknowledgement and
/// every event it delivers (`list_changed`, `resources/updated`, however unsolicited they
/// are without a subscription) are that request's, come only while it runs, and come
/// before what the client did after it saw them (closed the stream, among others).
fn listen_of(entries: &[Entry], entry: &Entry, in_flight: &[usize]) -> Option<usize> {
    let id = entry.subscription()?;
    in_flight
        .iter()
        .copied()
        .find(|&q| entries[q].id().is_some_and(|label| json_eq(label, &id)))
}

/// The progress token at `pointer` of `entry`'s message, if it has one.
fn progress_token(entry: &Entry, pointer: &str) -> Option<Value> {
    static PROGRESS_TOKEN: crate::data::needle::Needle =
        crate::data::needle::Needle::new("progressToken");
    if !PROGRESS_TOKEN.is_in(entry.text()) {
        return None;
    }
    entry.message().pointer(pointer).cloned()
}

/// Whether the server sent a notification of `method` while a call like client request
/// entry `request` ran in the recording: it, or another request of its method and name
/// (what a tool sends while it works), each from the request to its answer, its
/// cancellation or the end.
pub(crate) fn sent_while_running(entries: &[Entry], request: usize, method: &str) -> bool {
    let name = |e: &Entry| e.message().at(&["params", "name"]).cloned();
    let (method_of, name_of) = (entries[request].method(), name(&entries[request]));
    let like = |e: &Entry| {
        e.direction() == Direction::ClientToServer
            && e.kind() == MessageKind::Request
            && e.method() == method_of
            && name(e) == name_of
    };
    (0..entries.len())
        .filter(|&q| like(&entries[q]))
        .any(|q| sent_during(entries, q, method))
}

/// Whether the server sent a notification of `method` from client request entry `q` to
/// its answer, its cancellation or the end.
fn sent_during(entries: &[Entry], q: usize, method: &str) -> bool {
    let ends = |at: usize| {
        let e = &entries[at];
        match e.direction() {
            Direction::ServerToClient => e.answers() == Some(q),
            Direction::ClientToServer => {
                e.method() == Some("notifications/cancelled")
                    && cancelled_request(entries, at) == Some(q)
            }
        }
    };
    (q + 1..entries.len())
        .take_while(|&at| !ends(at))
        .map(|at| &entries[at])
        .any(|e| {
            e.direction() == Direction::ServerToClient
                && e.kind() == MessageKind::Notification
                && e.method() == Some(method)
        })
}

/// The client request entry that the client `notifications/cancelled` at `index` names.
pub(crate) fn cancelled_request(entries: &[Entry], index: usize) -> Option<usize> {
    let message = entries[index].message();
    let label = message.at(&["params", "requestId"])?;
    (0..index).rev().find(|&t| {
        entries[t].direction() == Direction::ClientToServer
            && entries[t].kind() == MessageKind::Request
            && entries[t].id().is_some_and(|id| json_eq(id, label))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use serde_json::json;

    /// `(entry, (tied to, by token), group)` of a want.
    type Row = (usize, Option<(usize, bool)>, usize);

    fn model_of(lines: &[(&str, Value)], header: &str) -> Vec<Row> {
        let mut text = String::from(header);
        for (direction, message) in lines {
            text.push_str(&json!({"direction": direction, "message": message}).to_string());
            text.push('\n');
        }
        let fixture = Fixture::parse(&text).unwrap();
        let rules = Rules::default();
        let settings = crate::Options::new().resolve(&fixture, &rules);
        let polls = Polls::of(fixture.entries());
        let model = Model::new(&fixture, &settings, &polls);
        model
            .wants
            .iter()
            .map(|w| (w.entry, w.tie.map(|t| (t, w.hard)), w.group))
            .collect()
    }

    fn call(id: &str, token: Option<&str>) -> (&'static str, Value) {
        let mut params = json!({"name": "work"});
        if let Some(t) = token {
            params["_meta"] = json!({"progressToken": t});
        }
        (
            "client->server",
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
        )
    }
    fn note(method: &str, params: Value) -> (&'static str, Value) {
        (
            "server->client",
            json!({"jsonrpc": "2.0", "method": method, "params": params}),
        )
    }
    fn done(id: &str) -> (&'static str, Value) {
        (
            "server->client",
            json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        )
    }

    #[test]
    fn a_requests_own_messages_are_tied_to_it() {
        let wants = model_of(
            &[
                call("a", Some("t")),
                note(
                    "notifications/progress",
                    json!({"progressToken": "t", "progress": 1}),
                ),
                note(
                    "notifications/message",
                    json!({"level": "info", "data": "x"}),
                ),
                done("a"),
            ],
            "",
        );
        assert_eq!(wants, [(1, Some((0, true)), 0), (2, Some((0, false)), 0)]);
    }

    #[test]
    fn a_progress_token_ties_a_message_among_several_requests_in_flight() {
        let wants = model_of(
            &[
                call("a", Some("ta")),
                call("b", Some("tb")),
                note(
                    "notifications/progress",
                    json!({"progressToken": "tb", "progress": 1}),
                ),
                note(
                    "notifications/message",
                    json!({"level": "info", "data": "whose?"}),
                ),
                done("a"),
                done("b"),
            ],
            "",
        );
        // The log could be either request's: it is unsolicited.
        assert_eq!(wants, [(2, Some((1, true)), 0), (3, None, 1)]);
    }

    #[test]
    fn a_subscription_id_ties_its_messages_among_several_listens_in_flight() {
        let listen = |id: &str| {
            (
                "client->server",
                json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
                    "params": {"notifications": {"toolsListChanged": true}}}),
            )
        };
        let of = |id: &str| json!({"_meta": {"io.modelcontextprotocol/subscriptionId": id}});
        let wants = model_of(
            &[
                listen("<REQUEST_ID:1>"),
                note(
                    "notifications/subscriptions/acknowledged",
                    of("<REQUEST_ID:1>"),
                ),
                listen("<REQUEST_ID:2>"),
                note(
                    "notifications/subscriptions/acknowledged",
                    of("<REQUEST_ID:2>"),
                ),
                note("notifications/tools/list_changed", of("<REQUEST_ID:2>")),
            ],
            "",
        );
        // Each acknowledgement is its listen's, though two run, and so is an event the
        // stream delivers, in the stream's order: the client's next line waits for it.
        assert_eq!(
            wants,
            [
                (1, Some((0, true)), 0),
                (3, Some((2, true)), 1),
                (4, Some((2, true)), 1)
            ]
        );
    }

    #[test]
    fn server_requests_list_changed_and_what_follows_an_answer_are_unsolicited() {
        let wants = model_of(
            &[
                call("a", Some("t")),
                note(
                    "notifications/progress",
                    json!({"progressToken": "t", "progress": 1}),
                ),
                (
                    "server->client",
                    json!({"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
                ),
                (
                    "client->server",
                    json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": []}}),
                ),
                note(
                    "notifications/message",
                    json!({"level": "info", "data": "roots: 0"}),
                ),
                note("notifications/tools/list_changed", json!({})),
                note(
                    "notifications/progress",
                    json!({"progressToken": "t", "progress": 2}),
                ),
                done("a"),
            ],
            "",
        );
        assert_eq!(
            wants,
            [
                (1, Some((0, true)), 0),
                (2, None, 1),
                (4, None, 2),
                (5, None, 3),
                (6, Some((0, true)), 0)
            ]
        );
    }

    #[test]
    fn strict_order_puts_everything_in_one_group_and_unordered_keeps_its_own() {
        let wants = model_of(
            &[
                call("a", None),
                note("notifications/message", json!({"data": 1})),
                note("notifications/tools/list_changed", json!({})),
                note("notifications/resources/updated", json!({"uri": "x"})),
                done("a"),
            ],
            "{\"mcp_replay\":1,\"strict_order\":true,\"unordered\":[\"notifications/resources/updated\"]}\n",
        );
        assert_eq!(
            wants,
            [(1, Some((0, false)), 0), (2, None, 0), (3, None, 1)]
        );
    }
}
