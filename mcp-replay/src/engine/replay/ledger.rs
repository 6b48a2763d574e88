//! The id ledger: the live id the harness gave each client request it sent, when it was
//! sent and answered, and what a response with an id that fits nothing is.

use super::align::Span;
use super::IntMap;
use serde_json::Value;
use std::collections::BTreeSet;

/// The harness's own `initialize` (session setup) uses id 0; fixture requests count from 1.
pub(crate) const SETUP_ID: i64 = 0;

/// The first live id of a fixture's request (after the session setup's own).
const FIRST_LIVE: i64 = SETUP_ID + 1;

/// One client request sent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sent {
    /// Its fixture entry.
    pub entry: usize,
    /// When it was sent (the session's count of sends and arrivals).
    pub sent: u64,
    /// When its response arrived.
    pub answered: Option<u64>,
    /// The replay stopped waiting for its answer (a timeout, or the client cancelled it).
    pub given_up: bool,
    /// The replay cancelled it, as the recorded client did.
    pub cancelled: bool,
}

/// When a message came, relative to the client's requests ([`Ledger::moment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Moment {
    /// While this request entry ran (the latest sent of those in flight).
    During(usize),
    /// Before any request was sent (or answered).
    BeforeFirst,
    /// After every client message was sent and every request answered.
    AfterLast,
    /// Between requests: after the response to this request entry, the latest answered.
    After(usize),
}

/// Live ids of the client requests, per direction of the session.
#[derive(Debug)]
pub(crate) struct Ledger {
    next: i64,
    live_of_entry: IntMap<usize, i64>,
    /// By live id, from [`FIRST_LIVE`] on (live ids are dense).
    sent: Vec<Sent>,
    /// Sent and neither answered nor given up, in the order sent (live ids grow).
    open: BTreeSet<i64>,
}

impl Ledger {
    pub fn with_capacity(requests: usize) -> Ledger {
        Ledger {
            next: FIRST_LIVE,
            live_of_entry: IntMap::with_capacity_and_hasher(requests, Default::default()),
            sent: Vec::with_capacity(requests),
            open: BTreeSet::new(),
        }
    }

    /// Gives request entry `entry`, sent at `seq`, its live id.
    pub fn send(&mut self, entry: usize, seq: u64) -> i64 {
        let live = self.next;
        self.next += 1;
        self.live_of_entry.insert(entry, live);
        self.sent.push(Sent {
            entry,
            sent: seq,
            answered: None,
            given_up: false,
            cancelled: false,
        });
        self.open.insert(live);
        live
    }

    /// Every request sent, in the order sent.
    pub fn requests(&self) -> impl Iterator<Item = &Sent> + '_ {
        self.sent.iter()
    }

    /// The live id request entry `entry` was sent with.
    pub fn live(&self, entry: usize) -> Option<i64> {
        self.live_of_entry.get(&entry).copied()
    }

    /// The request sent with live id `live`.
    pub fn get(&self, live: i64) -> Option<&Sent> {
        let index = usize::try_from(live.checked_sub(FIRST_LIVE)?).ok()?;
        self.sent.get(index)
    }

    fn get_mut(&mut self, live: i64) -> Option<&mut Sent> {
        let index = usize::try_from(live.checked_sub(FIRST_LIVE)?).ok()?;
        self.sent.get_mut(index)
    }

    /// The response to `live` arrived at `seq`.
    pub fn answer(&mut self, live: i64, seq: u64) {
        if let Some(sent) = self.get_mut(live) {
            sent.answered = Some(seq);
        }
        self.open.remove(&live);
    }

    /// The replay no longer waits for an answer to `live`.
    pub fn give_up(&mut self, live: i64) {
        if let Some(sent) = self.get_mut(live) {
            sent.given_up = true;
        }
        self.open.remove(&live);
    }

    /// The replay cancelled request `live` (as the recorded client did): what it still
    /// sends is late, and its answer is not awaited unless the fixture has one.
    pub fn cancel(&mut self, live: i64, awaited: bool) {
        if let Some(sent) = self.get_mut(live) {
            sent.cancelled = true;
        }
        if !awaited {
            self.give_up(live);
        }
    }

    /// When arrival `seq` came, relative to the client's requests; `last_sent` is when
    /// the last client message was sent.
    pub fn moment(&self, seq: u64, last_sent: u64) -> Moment {
        let running = self
            .sent
            .iter()
            .filter(|s| s.sent < seq && s.answered.is_none_or(|a| a > seq))
            .max_by_key(|s| s.sent);
        if let Some(s) = running {
            return Moment::During(s.entry);
        }
        if last_sent < seq {
            return Moment::AfterLast;
        }
        match self
            .sent
            .iter()
            .filter(|s| s.answered.is_some_and(|a| a < seq))
            .max_by_key(|s| s.answered)
        {
            Some(s) => Moment::After(s.entry),
            None => Moment::BeforeFirst,
        }
    }

    /// The requests in flight, `(live id, fixture entry)`, in the order they were sent.
    pub fn in_flight(&self) -> impl Iterator<Item = (i64, usize)> + '_ {
        self.open
            .iter()
            .filter_map(|live| Some((*live, self.get(*live)?.entry)))
    }

    /// While request entry `entry` ran: from its sending to its response (or the end).
    /// Never sent: an empty span.
    pub fn span(&self, entry: usize) -> Span {
        match self.live(entry).and_then(|live| self.get(live)) {
            Some(sent) => Span {
                open: sent.sent,
                close: sent.answered.unwrap_or(u64::MAX),
            },
            None => Span {
                open: u64::MAX,
                close: 0,
            },
        }
    }

    /// Why a response's id fits no request in flight, in words.
    pub fn id_anomaly(&self, message: &Value) -> String {
        let id = &message["id"];
        if id.is_null() {
            return "a null id answers a message the server could not parse".into();
        }
        let loose = match id {
            Value::String(s) => s.trim().parse::<f64>().ok(),
            Value::Number(n) => n.as_f64(),
            _ => None,
        };
        if let Some(n) = loose.filter(|n| n.fract() == 0.0).map(|n| n as i64) {
            if let Some(sent) = self.get(n) {
                if id.is_i64() || id.is_u64() {
                    if sent.answered.is_some() {
                        return format!(
                            "request {n} was already answered: the server answered twice"
                        );
                    }
                } else {
                    return format!("wrong type: the request was sent with the integer id {n}");
                }
            }
        }
        "it matches no request in flight".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn live_ids_count_from_one_in_the_order_sent() {
        let mut ledger = Ledger::with_capacity(2);
        assert_eq!(ledger.send(4, 10), 1);
        assert_eq!(ledger.send(7, 11), 2);
        ledger.answer(1, 12);
        assert_eq!(ledger.in_flight().collect::<Vec<_>>(), [(2, 7)]);
        assert_eq!(
            ledger.span(4),
            Span {
                open: 10,
                close: 12
            }
        );
        assert_eq!(
            ledger.span(7),
            Span {
                open: 11,
                close: u64::MAX
            }
        );
        assert_eq!(ledger.span(9).open, u64::MAX);
    }

    #[test]
    fn place_a_message_while_the_latest_request_in_flight_ran_or_between_them() {
        // Entry 2 sent at 10, answered at 14; entry 5 sent at 12, answered at 20; a client
        // notification last sent at 22.
        let mut ledger = Ledger::with_capacity(2);
        ledger.send(2, 10);
        ledger.send(5, 12);
        ledger.answer(1, 14);
        ledger.answer(2, 20);
        let table = [
            (9, Moment::BeforeFirst),
            (11, Moment::During(2)),
            (13, Moment::During(5)),
            (15, Moment::During(5)),
            (21, Moment::After(5)),
            (23, Moment::AfterLast),
        ];
        for (seq, moment) in table {
            assert_eq!(ledger.moment(seq, 22), moment, "at {seq}");
        }
        // A request never answered runs to the end.
        ledger.send(7, 30);
        assert_eq!(ledger.moment(40, 30), Moment::During(7));
    }

    #[test]
    fn an_anomalous_id_is_explained() {
        let mut ledger = Ledger::with_capacity(1);
        ledger.send(0, 1);
        assert!(ledger
            .id_anomaly(&json!({"id": "1"}))
            .contains("wrong type"));
        assert!(ledger
            .id_anomaly(&json!({"id": 9}))
            .contains("matches no request"));
        assert!(ledger
            .id_anomaly(&json!({"id": null}))
            .contains("could not parse"));
        ledger.answer(1, 2);
        assert!(ledger
            .id_anomaly(&json!({"id": 1}))
            .contains("answered twice"));
    }
}
