//! [`Clock`]: the session's two clocks, the order of events and the instant of the one
//! being taken. The shell gives the instant; the session counts the events.

use std::time::Instant;

/// Sends and arrivals counted together (the clock of spans and order), when the latest
/// client message was sent on it, and the instant of the event being taken.
pub(super) struct Clock {
    seq: u64,
    last_sent: u64,
    now: Instant,
}

impl Clock {
    /// A clock at `now` with nothing counted yet.
    pub fn new(now: Instant) -> Self {
        Self {
            seq: 0,
            last_sent: 0,
            now,
        }
    }

    /// The latest event's place.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Counts a message the server sent; its place.
    pub fn arrived(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Counts a message the replay sent; its place.
    pub fn sent(&mut self) -> u64 {
        self.seq += 1;
        self.last_sent = self.seq;
        self.seq
    }

    /// The place of the latest client message sent.
    pub fn last_sent(&self) -> u64 {
        self.last_sent
    }

    /// The instant of the event being taken.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// The shell's instant for the next event.
    pub fn at(&mut self, now: Instant) {
        self.now = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn sends_and_arrivals_share_one_count() {
        let start = Instant::now();
        let mut clock = Clock::new(start);
        assert_eq!((clock.seq(), clock.last_sent()), (0, 0));
        assert_eq!(clock.sent(), 1);
        assert_eq!(clock.arrived(), 2);
        assert_eq!(clock.arrived(), 3);
        assert_eq!((clock.seq(), clock.last_sent()), (3, 1));
        clock.at(start + Duration::from_secs(1));
        assert_eq!(clock.now(), start + Duration::from_secs(1));
    }
}
