//! [`Arrivals`]: what the server sent that is not a response the replay was waiting on by id,
//! and the order the responses came in. The session appends to it as messages come and
//! reads it when it concludes; nothing else keeps arrivals.

use super::events::Arrival;
use super::IntMap;
use serde_json::Value;

/// The notifications and server requests that came, in order; the responses whose id fits
/// no request; the order of the responses (when the fixture asks for strict response order);
/// and, once the session concludes, the expected entry each arrival was paired with.
#[derive(Default)]
pub(super) struct Arrivals {
    list: Vec<Arrival>,
    /// Responses whose id fits no request, not yet explained: `(arrival, message)`.
    anomalies: Vec<(u64, Value)>,
    /// `(expected response entry, arrival)` of each response.
    response_order: Vec<(usize, u64)>,
    /// The fixture entry each paired arrival was paired with (for the recording's labels).
    labels: IntMap<usize, usize>,
}

impl Arrivals {
    /// The index the next arrival will have.
    pub fn next_index(&self) -> usize {
        self.list.len()
    }

    /// Keeps `arrival` (at [`next_index`](Self::next_index)).
    pub fn push(&mut self, arrival: Arrival) {
        self.list.push(arrival);
    }

    /// Whether nothing came yet.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The arrivals, in the order they came.
    pub fn iter(&self) -> std::slice::Iter<'_, Arrival> {
        self.list.iter()
    }

    /// The arrivals, to take again with what is known now (a value bound since).
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Arrival> {
        self.list.iter_mut()
    }

    /// A response whose id fits no request (or a second answer), at `seq`.
    pub fn anomaly(&mut self, seq: u64, message: Value) {
        self.anomalies.push((seq, message));
    }

    /// How many such responses are not yet explained.
    pub fn anomalies(&self) -> usize {
        self.anomalies.len()
    }

    /// The earliest unexplained one, which now stands for a response that did not come.
    pub fn next_anomaly(&mut self) -> Option<Value> {
        (!self.anomalies.is_empty()).then(|| self.anomalies.remove(0).1)
    }

    /// The unexplained ones, each a finding of its own when the session ends.
    pub fn take_anomalies(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.anomalies)
            .into_iter()
            .map(|(_, message)| message)
            .collect()
    }

    /// The response expected at entry `r` came at `seq`.
    pub fn responded(&mut self, r: usize, seq: u64) {
        self.response_order.push((r, seq));
    }

    /// `(expected response entry, arrival)` of each response, in the order they came.
    pub fn response_order(&self) -> &[(usize, u64)] {
        &self.response_order
    }

    /// The pairing's result: the fixture entry of each paired arrival.
    pub fn label(&mut self, labels: IntMap<usize, usize>) {
        self.labels = labels;
    }

    /// The entry arrival `i` was paired with, if any.
    pub fn label_of(&self, i: usize) -> Option<usize> {
        self.labels.get(&i).copied()
    }
}

impl std::ops::Index<usize> for Arrivals {
    type Output = Arrival;

    fn index(&self, i: usize) -> &Arrival {
        &self.list[i]
    }
}

impl std::ops::IndexMut<usize> for Arrivals {
    fn index_mut(&mut self, i: usize) -> &mut Arrival {
        &mut self.list[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::fixture::MessageKind;
    use serde_json::json;

    fn arrival(seq: u64) -> Arrival {
        Arrival {
            seq,
            kind: MessageKind::Notification,
            message: json!({"method": "notifications/progress"}),
            group: None,
            fixed: None,
            claimed: false,
        }
    }

    #[test]
    fn arrivals_keep_their_order_and_index() {
        let mut arrivals = Arrivals::default();
        assert!(arrivals.is_empty());
        assert_eq!(arrivals.next_index(), 0);
        arrivals.push(arrival(3));
        arrivals.push(arrival(5));
        assert_eq!(arrivals.next_index(), 2);
        assert_eq!(arrivals[1].seq, 5);
        arrivals[0].claimed = true;
        let seqs: Vec<u64> = arrivals.iter().map(|a| a.seq).collect();
        assert_eq!(seqs, [3, 5]);
    }

    #[test]
    fn anomalies_are_explained_first_come_first() {
        let mut arrivals = Arrivals::default();
        assert_eq!(arrivals.next_anomaly(), None);
        arrivals.anomaly(1, json!({"id": 9}));
        arrivals.anomaly(2, json!({"id": 10}));
        assert_eq!(arrivals.anomalies(), 2);
        assert_eq!(arrivals.next_anomaly(), Some(json!({"id": 9})));
        assert_eq!(arrivals.take_anomalies(), [json!({"id": 10})]);
        assert_eq!(arrivals.anomalies(), 0);
    }

    #[test]
    fn labels_and_response_order_are_kept() {
        let mut arrivals = Arrivals::default();
        arrivals.responded(4, 7);
        arrivals.responded(2, 8);
        assert_eq!(arrivals.response_order(), [(4, 7), (2, 8)]);
        assert_eq!(arrivals.label_of(0), None);
        arrivals.label([(0, 6)].into_iter().collect());
        assert_eq!(arrivals.label_of(0), Some(6));
    }
}
