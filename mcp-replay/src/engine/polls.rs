//! Task polls, judged by meaning rather than by count (MCP Tasks: `tasks/get` until the
//! task is done, in both eras). A client that polls a task sends `tasks/get` as often as
//! the task's time needs: a recording holds some number of polls, a live run needs another.
//! So a *run* of polls in the fixture (client `tasks/get` requests with the same params,
//! one after another with only server messages and the client's answers between them) is
//! replayed as a loop: the replay polls as the live status requires, honouring the
//! server's `pollInterval` (capped at [`POLL_CAP`]), until the task reaches the status the
//! recording's last poll had (or a terminal one), and each live answer is compared with the
//! recorded answer of the same status.
//!
//! The walk: the recorded statuses in order (`working`, `working`, `input_required`,
//! `completed`). A live answer matches the first recorded answer at or after the place
//! reached so far that has its status; `working` may also come where the recording has
//! none (the task had not begun on the recording's machine's first poll) and may be
//! skipped (it passed between two live polls). While a task is `working`, its
//! `statusMessage` is progress text: which poll saw which stage depends on time, so it is
//! not compared there (the status notifications, which come once per stage, pin it). Every
//! other status is compared in full. Pure: no clock, no I/O.

use crate::data::fixture::{Direction, Entry, Fixture, MessageKind};
use crate::data::json::json_eq;
use crate::data::json::At;
use crate::engine::int_map::IntMap;
use serde_json::Value;
use std::time::Duration;

/// The longest the replay waits between two polls, whatever the server's `pollInterval`:
/// a test stays quick.
pub(crate) const POLL_CAP: Duration = Duration::from_secs(1);

/// Between two polls when the server names no interval.
pub(crate) const POLL_DEFAULT: Duration = Duration::from_millis(200);

/// The statuses after which a task does not change.
const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// One run of polls in the fixture.
#[derive(Debug)]
pub(crate) struct Run {
    /// The poll request entries, in order (the first is the one the replay sends).
    pub requests: Vec<usize>,
    /// Their response entries (`None`: the poll has no response line).
    pub responses: Vec<Option<usize>>,
    /// The status each recorded answer reports.
    statuses: Vec<Option<String>>,
    state: State,
}

/// Where a run is.
#[derive(Debug, Clone, PartialEq)]
enum State {
    /// Not polled yet.
    Idle,
    /// Polled; `reached`: the index of the last recorded answer matched (`None`: only
    /// `working` before the walk began). `walk`: the live statuses, in order, repeats
    /// collapsed. `last`: the live status and message of the latest answer.
    Polling {
        reached: Option<usize>,
        walk: Vec<String>,
        last: Option<(String, Option<String>)>,
        polls: usize,
    },
    /// The task reached the run's end (or the run was given up).
    Done { walk: Vec<String>, polls: usize },
}

/// What to do after a live answer to a poll.
#[derive(Debug, PartialEq)]
pub(crate) struct Verdict {
    /// The recorded answer to compare it with (`None`: nothing to compare it with, a
    /// `working` the recording did not have).
    pub compare_with: Option<usize>,
    /// Compare without the `statusMessage` (the task is `working`).
    pub without_message: bool,
    /// Poll again after this long; `None`: the run is over.
    pub again: Option<Duration>,
    /// The live answer made progress (another status or message than the last one): the
    /// wait for the task starts anew.
    pub progress: bool,
}

/// The poll runs of a fixture.
#[derive(Debug, Default)]
pub(crate) struct Polls {
    pub runs: Vec<Run>,
    /// The run of each poll request entry and of each of their response entries.
    of_entry: IntMap<usize, usize>,
}

impl Polls {
    /// Finds the runs of polls in `entries`.
    pub(crate) fn of(entries: &[Entry]) -> Polls {
        let mut polls = Polls::default();
        let response_of = |request: usize| {
            entries[request + 1..]
                .iter()
                .position(|e| {
                    e.direction() == Direction::ServerToClient && e.answers() == Some(request)
                })
                .map(|k| request + 1 + k)
        };
        let mut open: Option<Run> = None;
        for (i, entry) in entries.iter().enumerate() {
            if entry.direction() != Direction::ClientToServer
                || entry.kind() == MessageKind::Response
            {
                continue;
            }
            let poll = entry.kind() == MessageKind::Request && entry.method() == Some("tasks/get");
            let same = open.as_ref().is_some_and(|run| {
                poll && json_eq(&poll_params(&entries[run.requests[0]]), &poll_params(entry))
            });
            if same {
                let run = open.as_mut().expect("checked");
                run.requests.push(i);
                run.responses.push(response_of(i));
                continue;
            }
            if let Some(run) = open.take() {
                polls.push(run, entries);
            }
            if poll {
                open = Some(Run {
                    requests: vec![i],
                    responses: vec![response_of(i)],
                    statuses: Vec::new(),
                    state: State::Idle,
                });
            }
        }
        if let Some(run) = open {
            polls.push(run, entries);
        }
        polls
    }

    fn push(&mut self, mut run: Run, entries: &[Entry]) {
        run.statuses = run
            .responses
            .iter()
            .map(|r| r.and_then(|r| status_of(&entries[r].message()).map(str::to_owned)))
            .collect();
        let index = self.runs.len();
        for &q in &run.requests {
            self.of_entry.insert(q, index);
        }
        for r in run.responses.iter().flatten() {
            self.of_entry.insert(*r, index);
        }
        self.runs.push(run);
    }

    /// The run fixture entry `entry` (a poll or the answer to one) is part of.
    pub(crate) fn run_of(&self, entry: usize) -> Option<usize> {
        self.of_entry.get(&entry).copied()
    }

    /// Is `entry` a poll, or the answer to one, that the loop stands for (every one but the
    /// first poll of its run)?
    pub(crate) fn stood_for(&self, entry: usize) -> bool {
        self.run_of(entry)
            .is_some_and(|run| self.runs[run].requests[0] != entry)
    }

    /// Is run `run` over?
    #[cfg(test)]
    pub(crate) fn done(&self, run: usize) -> bool {
        matches!(self.runs[run].state, State::Done { .. })
    }

    /// Is run `run` polling now?
    pub(crate) fn polling(&self, run: usize) -> bool {
        matches!(self.runs[run].state, State::Polling { .. })
    }

    /// The first poll of run `run` was sent.
    pub(crate) fn begin(&mut self, run: usize) {
        if self.runs[run].state == State::Idle {
            self.runs[run].state = State::Polling {
                reached: None,
                walk: Vec::new(),
                last: None,
                polls: 0,
            };
        }
    }

    /// The run is given up (the task did not get there in time, or the session ended).
    pub(crate) fn give_up(&mut self, run: usize) {
        self.runs[run].finish();
    }

    /// The live statuses of run `run` so far, repeats collapsed, and how many polls it took.
    pub(crate) fn walk(&self, run: usize) -> (&[String], usize) {
        match &self.runs[run].state {
            State::Polling { walk, polls, .. } | State::Done { walk, polls } => (walk, *polls),
            State::Idle => (&[], 0),
        }
    }

    /// The recorded statuses of run `run`, repeats collapsed.
    pub(crate) fn recorded_walk(&self, run: usize) -> Vec<&str> {
        let mut walk: Vec<&str> = Vec::new();
        for s in self.runs[run].statuses.iter().flatten() {
            if walk.last() != Some(&s.as_str()) {
                walk.push(s);
            }
        }
        walk
    }

    /// A live answer `result` (the `result` of the response) to a poll of run `run`:
    /// which recorded answer it is compared with, and whether to poll again.
    pub(crate) fn answered(&mut self, run: usize, result: Option<&Value>) -> Verdict {
        let text = |key: &str| {
            result
                .and_then(|r| r.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let (status, message) = (text("status"), text("statusMessage"));
        let interval = result.and_then(poll_interval).unwrap_or(POLL_DEFAULT);
        let run = &mut self.runs[run];
        let Some(progress) = run.note(status.as_deref(), message) else {
            return Verdict {
                compare_with: None,
                without_message: false,
                again: None,
                progress: false,
            };
        };
        let working = status.as_deref() == Some("working");
        let terminal = status.as_deref().is_some_and(|s| TERMINAL.contains(&s));
        let again = Some(interval.min(POLL_CAP));
        let k = run.statuses.len();
        let end = run.responses[k - 1];
        let (compare_with, without_message, again) = match run.place_of(status.as_deref()) {
            // The run's end: the status the recording's last poll had.
            Some(j) if j + 1 == k => (run.responses[j], working, None),
            // Done where the recording went on polling: compared with the recorded end.
            Some(_) if terminal => (end, false, None),
            Some(j) => {
                run.reach(j);
                (run.responses[j], working, again)
            }
            // Still working where the recording had already moved on (or had not begun):
            // poll again, compared with nothing.
            None if working => (None, true, again),
            // A status the recording's walk does not have from here: compared with the
            // recorded end, which reports it.
            None => (end, false, None),
        };
        if again.is_none() {
            run.finish();
        }
        Verdict {
            compare_with,
            without_message,
            again,
            progress,
        }
    }
}

impl Run {
    /// Notes a live answer with `status` and `message`; whether it made progress (another
    /// status or message than the last). `None` unless the run is polling.
    fn note(&mut self, status: Option<&str>, message: Option<String>) -> Option<bool> {
        let State::Polling {
            walk, last, polls, ..
        } = &mut self.state
        else {
            return None;
        };
        *polls += 1;
        let now = (status.unwrap_or_default().to_owned(), message);
        let progress = last.as_ref() != Some(&now);
        *last = Some(now);
        if let Some(s) = status {
            if walk.last().map(String::as_str) != Some(s) {
                walk.push(s.to_owned());
            }
        }
        Some(progress)
    }

    /// The first recorded answer, at or after the place reached, that has `status`.
    fn place_of(&self, status: Option<&str>) -> Option<usize> {
        let State::Polling { reached, .. } = &self.state else {
            return None;
        };
        let status = status?;
        (reached.unwrap_or(0)..self.statuses.len())
            .find(|&j| self.statuses[j].as_deref() == Some(status))
    }

    fn reach(&mut self, j: usize) {
        if let State::Polling { reached, .. } = &mut self.state {
            *reached = Some(j);
        }
    }

    /// The run is over: its walk is kept for the report.
    fn finish(&mut self) {
        let (walk, polls) = match &mut self.state {
            State::Polling { walk, polls, .. } => (std::mem::take(walk), *polls),
            State::Done { .. } => return,
            State::Idle => (Vec::new(), 0),
        };
        self.state = State::Done { walk, polls };
    }
}

/// A poll's params without their `_meta`: a client may give every request its own
/// progress token (rmcp does), and the polls are still one task's.
/// `fixture` as a comparison one by one sees it when the number of polls is the task's
/// time, not the contract (a test whose body is the client, compared afterwards with
/// `analyses::diff`): in each run of polls, a poll answered `working`, or with the status
/// of the poll before it, is left out with its answer; a task that reached the same
/// statuses in the same order then gives the same entries. Each entry keeps its line.
pub(crate) fn by_status(fixture: &Fixture) -> std::borrow::Cow<'_, Fixture> {
    let polls = Polls::of(fixture.entries());
    let mut out = Vec::new();
    for run in &polls.runs {
        let mut last: Option<&str> = None;
        for ((q, r), status) in run.requests.iter().zip(&run.responses).zip(&run.statuses) {
            let status = status.as_deref();
            if status == Some("working") || (status.is_some() && status == last) {
                out.push(*q);
                out.extend(*r);
            } else {
                last = status;
            }
        }
    }
    if out.is_empty() {
        std::borrow::Cow::Borrowed(fixture)
    } else {
        std::borrow::Cow::Owned(fixture.without(&out))
    }
}

fn poll_params(entry: &Entry) -> Value {
    let mut params = entry.message()["params"].clone();
    if let Some(p) = params.as_object_mut() {
        p.remove("_meta");
    }
    params
}

/// The status a task result reports (`tasks/get`'s result, a `CreateTaskResult`).
pub(crate) fn status_of(message: &Value) -> Option<&str> {
    let result = message.get("result")?;
    result
        .get("status")
        .or_else(|| result.at(&["task", "status"]))
        .and_then(Value::as_str)
}

/// The interval a task result asks its poller to wait: `pollInterval` (protocol
/// 2025-11-25) or `pollIntervalMs` (the Tasks extension of 2026-07-28), in milliseconds.
fn poll_interval(result: &Value) -> Option<Duration> {
    let task = result.get("task").unwrap_or(result);
    task.get("pollInterval")
        .or_else(|| task.get("pollIntervalMs"))
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::fixture::Fixture;
    use serde_json::json;

    /// A fixture: `tools/call` creating a task, then polls answered with `statuses`, then
    /// `tasks/result`.
    fn fixture(statuses: &[&str]) -> Fixture {
        let mut lines = vec![
            json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {"name": "t", "task": {}}}}),
            json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "id": "c", "result": {"task": {"taskId": "<TASK_ID:1>", "status": "working"}}}}),
        ];
        for (n, s) in statuses.iter().enumerate() {
            let id = format!("p{n}");
            lines.push(json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": {"taskId": "<TASK_ID:1>"}}}));
            lines.push(json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "id": id, "result": {"taskId": "<TASK_ID:1>", "status": s, "statusMessage": format!("stage {n}"), "pollInterval": 1500}}}));
            if n == 0 {
                lines.push(json!({"direction": "server->client", "message": {"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"taskId": "<TASK_ID:1>", "status": "working"}}}));
            }
        }
        lines.push(json!({"direction": "client->server", "message": {"jsonrpc": "2.0", "id": "r", "method": "tasks/result", "params": {"taskId": "<TASK_ID:1>"}}}));
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Fixture::parse(&text).unwrap()
    }

    #[test]
    fn by_status_leaves_out_working_and_repeated_polls_and_keeps_lines() {
        // (The helper puts its status notification after the first poll, whatever it is.)
        let texts = |f: &Fixture| -> Vec<String> {
            f.entries()
                .iter()
                .filter(|e| e.kind() != MessageKind::Notification)
                .map(|e| e.text().replace(char::is_numeric, ""))
                .collect()
        };
        let slow = fixture(&[
            "working",
            "working",
            "input_required",
            "input_required",
            "completed",
        ]);
        let quick = fixture(&["input_required", "completed"]);
        let (a, b) = (by_status(&slow), by_status(&quick));
        assert!(
            matches!(b, std::borrow::Cow::Borrowed(_)),
            "nothing to leave out"
        );
        assert_eq!(texts(&a), texts(&b));
        // The entries keep their lines: the first poll left is line 8 of the slow file.
        let first_poll = a
            .entries()
            .iter()
            .find(|e| e.method() == Some("tasks/get"))
            .unwrap();
        assert_eq!(first_poll.line(), 8);
        // Each answer still answers its own request.
        for (i, e) in a.entries().iter().enumerate() {
            if let Some(r) = e.answers() {
                assert!(r < i);
                assert_eq!(a.entries()[r].id(), e.id());
            }
        }
        let other = fixture(&["working", "failed"]);
        assert_ne!(texts(&by_status(&other)), texts(&b));
    }

    fn live(status: &str) -> Value {
        json!({"taskId": "t-9", "status": status, "pollInterval": 1500})
    }

    #[test]
    fn a_run_is_the_polls_of_one_task_one_after_another() {
        let f = fixture(&["working", "working", "completed"]);
        let polls = Polls::of(f.entries());
        assert_eq!(polls.runs.len(), 1);
        assert_eq!(polls.runs[0].requests, [2, 5, 7]);
        assert_eq!(polls.runs[0].responses, [Some(3), Some(6), Some(8)]);
        assert_eq!(polls.recorded_walk(0), ["working", "completed"]);
        assert!(!polls.stood_for(2) && polls.stood_for(5) && polls.stood_for(3));
        assert_eq!(polls.run_of(9), None, "tasks/result is not a poll");
    }

    #[test]
    fn more_live_polls_than_recorded_match_by_status_and_end_at_the_recorded_end() {
        let f = fixture(&["working", "completed"]);
        let mut polls = Polls::of(f.entries());
        polls.begin(0);
        for n in 0..5 {
            let v = polls.answered(0, Some(&live("working")));
            assert_eq!(v.compare_with, Some(3), "poll {n}");
            assert!(v.without_message);
            assert_eq!(v.again, Some(POLL_CAP), "1500 ms capped");
            assert_eq!(v.progress, n == 0);
        }
        let v = polls.answered(0, Some(&live("completed")));
        assert_eq!(
            v,
            Verdict {
                compare_with: Some(6),
                without_message: false,
                again: None,
                progress: true
            }
        );
        assert!(polls.done(0));
        assert_eq!(
            polls.walk(0),
            (&["working".to_owned(), "completed".to_owned()][..], 6)
        );
    }

    #[test]
    fn fewer_live_polls_skip_the_recorded_working_ones() {
        let f = fixture(&["working", "working", "working", "completed"]);
        let mut polls = Polls::of(f.entries());
        polls.begin(0);
        let v = polls.answered(0, Some(&live("completed")));
        assert_eq!(v.compare_with, Some(10));
        assert_eq!(v.again, None);
        // A working the recording never had first (its first poll was already done).
        let f = fixture(&["completed"]);
        let mut polls = Polls::of(f.entries());
        polls.begin(0);
        let v = polls.answered(0, Some(&live("working")));
        assert_eq!((v.compare_with, v.again.is_some()), (None, true));
        assert_eq!(polls.answered(0, Some(&live("completed"))).again, None);
    }

    #[test]
    fn the_run_ends_at_the_recorded_last_status_even_when_not_terminal() {
        let f = fixture(&["working", "input_required"]);
        let mut polls = Polls::of(f.entries());
        polls.begin(0);
        assert!(polls.answered(0, Some(&live("working"))).again.is_some());
        let v = polls.answered(0, Some(&live("input_required")));
        assert_eq!(
            (v.compare_with, v.without_message, v.again),
            (Some(6), false, None)
        );
    }

    #[test]
    fn a_status_off_the_walk_is_compared_with_the_recorded_end_and_ends_the_run() {
        let f = fixture(&["working", "completed"]);
        let mut polls = Polls::of(f.entries());
        polls.begin(0);
        let v = polls.answered(0, Some(&live("failed")));
        assert_eq!((v.compare_with, v.again), (Some(6), None));
        assert!(polls.done(0));
        // An answer with no status at all (an error) ends it too.
        let mut polls = Polls::of(f.entries());
        polls.begin(0);
        assert_eq!(polls.answered(0, None).again, None);
    }

    #[test]
    fn the_extensions_poll_interval_in_ms_and_the_default() {
        assert_eq!(
            poll_interval(&json!({"pollIntervalMs": 250})),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            poll_interval(&json!({"task": {"pollInterval": 10}})),
            Some(Duration::from_millis(10))
        );
        assert_eq!(poll_interval(&json!({})), None);
    }
}
