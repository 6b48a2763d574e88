//! The session's waits: what a client message still needs before it is sent, what is
//! awaited after the last one, and what becomes of a wait that ends without it (a stand-in,
//! a timeout, the server's output closing).

use super::causal;
use super::describe::{describe, describe_request, describe_sent, ms, relabel};
use super::session::{Awaited, Session, Wait, PROGRESS_CAP};
use crate::findings::report::{Mismatch, MismatchKind};
use serde_json::json;

impl Session<'_> {
    /// A wait goes on (`Ok`) while something in it is still to come; `Err` with what to do
    /// then once it is over (everything came, the replay aborted, or the server closed its
    /// output: a finding).
    pub(super) fn still_waiting(&mut self, mut wait: Wait) -> Result<Wait, Option<usize>> {
        self.stand_in_anomalies(&wait.awaited, false);
        wait.awaited.retain(|a| !self.arrived(*a));
        if wait.unanswered {
            let open: Vec<Awaited> = self
                .ledger
                .in_flight()
                .filter(|&(_, entry)| !self.answer_expected(entry))
                .map(|(live, entry)| Awaited::Answer(live, entry))
                .collect();
            for a in open {
                if !wait.awaited.contains(&a) {
                    wait.awaited.push(a);
                }
            }
        }
        if wait.awaited.is_empty() || self.aborted {
            return Err(wait.then);
        }
        if self.closed.is_some() {
            self.closed_while_waiting(&wait.awaited);
            return Err(wait.then);
        }
        Ok(wait)
    }

    /// After the last client message, what may still come: responses, server requests,
    /// unsolicited messages, a loosely tied message or its stand-in.
    pub(super) fn the_rest(&self) -> Vec<Awaited> {
        let wants = &self.model.wants;
        let mut end: Vec<Awaited> = (0..wants.len())
            .filter_map(|w| match wants[w] {
                causal::Wanted { tie: None, .. } => Some(Awaited::Want(w)),
                causal::Wanted { hard: false, .. } => Some(Awaited::Loose(w)),
                _ => None,
            })
            .chain(
                self.script
                    .response_of_request
                    .values()
                    .map(|&r| Awaited::Response(r)),
            )
            .collect();
        end.retain(|a| !matches!(a, Awaited::Response(r) if self.polls.run_of(*r).is_some()));
        end.extend((0..self.polls.runs.len()).map(Awaited::Poll));
        end.sort_unstable_by_key(|a| match *a {
            Awaited::Response(e) | Awaited::Answer(_, e) => e,
            Awaited::Want(w) | Awaited::Loose(w) => self.model.wants[w].entry,
            Awaited::Poll(run) => self.polls.runs[run].requests[0],
        });
        end
    }

    /// A client sends nothing after `initialize` until its result came (the spec's rule).
    pub(super) fn initialize_in_flight(&self) -> bool {
        let entries = self.fixture.entries();
        self.ledger
            .in_flight()
            .any(|(_, entry)| entries[entry].method() == Some("initialize"))
    }

    /// Has `awaited` arrived (or been given up on)?
    pub(super) fn arrived(&self, awaited: Awaited) -> bool {
        match awaited {
            Awaited::Response(r) => {
                self.settled(self.fixture.entries()[r].answers().unwrap_or_default())
            }
            Awaited::Answer(_, entry) => self.settled(entry),
            Awaited::Want(w) => self.wants.settled(w) || self.span_closed(w) || self.stood_in(w),
            Awaited::Loose(w) => self.wants.settled(w) || self.stood_in(w),
            Awaited::Poll(run) => !self.polls.polling(run),
        }
    }

    /// Was want `w` tied to a request that was answered (so it can no longer come)?
    pub(super) fn span_closed(&self, w: usize) -> bool {
        self.model.wants[w]
            .tie
            .is_some_and(|request| self.settled(request))
    }

    /// Is client request entry `request` done with: answered, given up on, or never sent?
    pub(super) fn settled(&self, request: usize) -> bool {
        self.ledger
            .live(request)
            .and_then(|live| self.ledger.get(live))
            .is_none_or(|sent| sent.answered.is_some() || sent.given_up)
    }

    /// Did a message of want `w`'s method, taken into its group, stand in for it (one that
    /// differs: a finding, not a reason to wait)? Only for wants tied to a request.
    pub(super) fn stood_in(&self, w: usize) -> bool {
        let want = self.model.wants[w];
        if want.tie.is_none() {
            return false;
        }
        let entries = self.fixture.entries();
        let method = entries[want.entry].method();
        let rank = self.model.members[want.group]
            .iter()
            .take_while(|&&m| m != w)
            .filter(|&&m| entries[self.model.wants[m].entry].method() == method)
            .count();
        let came = self
            .arrivals
            .iter()
            .filter(|a| a.group == Some(want.group) && a.message["method"].as_str() == method)
            .count();
        came > rank
    }

    /// Responses with an id that fits no request stand, in order, for the awaited
    /// responses that did not come (an *id* finding each): once they are all that is
    /// still awaited, or (`force`) when the wait is over.
    pub(super) fn stand_in_anomalies(&mut self, awaited: &[Awaited], force: bool) {
        if self.arrivals.anomalies() == 0 {
            return;
        }
        let mut missing: Vec<usize> = Vec::new();
        for &a in awaited {
            match a {
                Awaited::Response(r) if !self.arrived(a) => missing.push(r),
                Awaited::Response(_) => {}
                other if !force && !self.arrived(other) => return,
                _ => {}
            }
        }
        if missing.is_empty() || (!force && self.arrivals.anomalies() < missing.len()) {
            return;
        }
        missing.sort_unstable();
        let entries = self.fixture.entries();
        for r in missing {
            let Some(message) = self.arrivals.next_anomaly() else {
                break;
            };
            let request = entries[r].answers().expect("correlated at parse time");
            let why = self.ledger.id_anomaly(&message);
            self.fail(
                Mismatch::new(
                    MismatchKind::Id,
                    Some(entries[r].line()),
                    format!(
                        "the response expected for {} came with id {} ({why})",
                        describe_request(&entries[request]),
                        message["id"]
                    ),
                )
                .request(&entries[request])
                .expected(&json!({"id": self.ledger.live(request)}))
                .actual(&json!({"id": message["id"]})),
            );
            let relabelled = relabel(message, entries[r].id());
            self.compare_response(r, &relabelled);
            if let Some(live) = self.ledger.live(request) {
                self.ledger.answer(live, self.clock.seq());
            }
        }
    }

    /// The timeout passed while the replay waited for `awaited`.
    pub(super) fn timed_out(&mut self, awaited: &[Awaited], last: bool) {
        let entries = self.fixture.entries();
        for &a in awaited {
            match a {
                Awaited::Response(r) => {
                    let request = entries[r].answers().expect("correlated at parse time");
                    let live = self.ledger.live(request).unwrap_or_default();
                    self.ledger.give_up(live);
                    let m = Mismatch::new(
                        MismatchKind::Timeout,
                        Some(entries[r].line()),
                        format!(
                            "no response to {} within {}",
                            describe_sent(&entries[request], live),
                            ms(self.settings.timeout)
                        ),
                    )
                    .request(&entries[request])
                    .expected(self.expected.message(r));
                    self.fail(m);
                }
                Awaited::Answer(live, entry) => {
                    self.ledger.give_up(live);
                    self.fail(
                        Mismatch::new(
                            MismatchKind::Timeout,
                            Some(entries[entry].line()),
                            format!(
                                "no response to {} within {}",
                                describe_sent(&entries[entry], live),
                                ms(self.settings.timeout)
                            ),
                        )
                        .request(&entries[entry]),
                    );
                }
                // Reported as missing by the alignment.
                Awaited::Want(w) | Awaited::Loose(w) => self.wants.give_up(w),
                Awaited::Poll(run) => self.poll_timed_out(run),
            }
        }
        self.trace.line(format_args!(
            "timeout after {}{}",
            ms(self.settings.timeout),
            if last {
                " (after the last client message)"
            } else {
                ""
            }
        ));
    }

    pub(super) fn closed_while_waiting(&mut self, awaited: &[Awaited]) {
        let entries = self.fixture.entries();
        let why = self.close_reason();
        let read_error = self
            .closed
            .clone()
            .flatten()
            .map(|e| format!(" (read error: {e})"))
            .unwrap_or_default();
        let what: Vec<String> = awaited
            .iter()
            .map(|a| match *a {
                Awaited::Response(r) => {
                    let request = entries[r].answers().unwrap_or_default();
                    let live = self.ledger.live(request).unwrap_or_default();
                    format!(
                        "the response to {} expected at line {}",
                        describe_sent(&entries[request], live),
                        entries[r].line()
                    )
                }
                Awaited::Answer(live, e) => {
                    format!("the response to {}", describe_sent(&entries[e], live))
                }
                Awaited::Want(w) | Awaited::Loose(w) => {
                    let e = self.model.wants[w].entry;
                    format!("{} (line {})", describe(&entries[e]), entries[e].line())
                }
                Awaited::Poll(run) => {
                    let q = self.polls.runs[run].requests[0];
                    format!("the task polled at line {} to finish", entries[q].line())
                }
            })
            .collect();
        let line = awaited.first().map(|a| match *a {
            Awaited::Response(r) => entries[r].line(),
            Awaited::Answer(_, e) => entries[e].line(),
            Awaited::Want(w) | Awaited::Loose(w) => entries[self.model.wants[w].entry].line(),
            Awaited::Poll(run) => entries[self.polls.runs[run].requests[0]].line(),
        });
        self.abort(Mismatch::new(
            MismatchKind::ServerFailure,
            line,
            format!(
                "the server closed the connection{read_error} while the replay waited for: {}{why}",
                what.join(", ")
            ),
        ));
    }

    /// Run `run`'s task did not get where the recording's last poll did in time: a
    /// *timeout* finding naming the walk it took.
    fn poll_timed_out(&mut self, run: usize) {
        let entries = self.fixture.entries();
        let q = self.polls.runs[run].requests[0];
        if let Some(live) = self.ledger.live(q) {
            self.ledger.give_up(live);
        }
        if self.poll_due.is_some_and(|(r, _)| r == run) {
            self.poll_due = None;
        }
        let recorded = self.polls.recorded_walk(run).join(" -> ");
        let (walk, polls) = self.polls.walk(run);
        let walk = if walk.is_empty() {
            "no answer".to_owned()
        } else {
            walk.join(" -> ")
        };
        let summary = format!(
            "the task polled with {} did not get to the recording's end within {} of no \
             progress: {polls} live polls saw {walk}; the recording's saw {recorded}",
            describe_sent(&entries[q], self.ledger.live(q).unwrap_or_default()),
            ms(self.settings.timeout),
        );
        self.polls.give_up(run);
        self.fail(
            Mismatch::new(MismatchKind::Timeout, Some(entries[q].line()), summary)
                .request(&entries[q]),
        );
    }

    /// Does the fixture account for request entry `entry`'s answer: a response line, or a
    /// later client cancellation (then no answer is awaited)?
    pub(super) fn answer_expected(&self, entry: usize) -> bool {
        self.script.response_of_request.contains_key(&entry)
            || self.script.cancelled_later.contains(&entry)
    }
}

impl Wait {
    /// A wait for `awaited` from `now`, until `timeout` has passed with nothing (up to
    /// [`PROGRESS_CAP`] timeouts while progress comes); then `then` is sent (`None`: the
    /// wait after the last client message).
    pub(super) fn new(
        awaited: Vec<Awaited>,
        unanswered: bool,
        now: std::time::Instant,
        timeout: std::time::Duration,
        then: Option<usize>,
    ) -> Wait {
        Wait {
            awaited,
            unanswered,
            last: then.is_none(),
            deadline: now + timeout,
            cap: now + timeout * PROGRESS_CAP,
            then,
        }
    }

    /// A progress notification came while a request is in flight: work is happening, so a
    /// wait for a response starts its clock again at `now`, up to the wait's cap.
    pub(super) fn progress(&mut self, now: std::time::Instant, timeout: std::time::Duration) {
        let for_response = self
            .awaited
            .iter()
            .any(|a| matches!(a, Awaited::Response(_) | Awaited::Answer(..)));
        if for_response {
            self.deadline = self.deadline.max((now + timeout).min(self.cap));
        }
    }
}
