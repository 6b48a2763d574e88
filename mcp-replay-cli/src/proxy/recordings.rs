//! Which recorded session a request through `record --listen` belongs to. Each client
//! session is recorded on its own (`--sessions N|unlimited`, default 1): a POST of
//! `initialize` without an `Mcp-Session-Id` starts a recording, the id the upstream answers
//! it with names it, and every later request carrying that id is teed into it, so that no
//! message of one session lands in another's fixture. A server that issues no session id
//! (a stateless one, protocol 2026-07-28) gives its clients nothing to tell them apart: its
//! requests without an id are one recording. An `initialize` the upstream refuses (an error
//! status) starts no session. [`Recordings`] decides (no I/O; unit-tested
//! below); `proxy.rs` runs it.

use crate::args::Limit;
use crate::capture::Capture;
pub(crate) use crate::net::Asked;
use std::time::Instant;

/// Where a request's messages are teed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Into {
    /// Into recording K (0 is the first); `started` when this request began it.
    Session { k: usize, started: bool },
    /// Nowhere: a request of no recorded session (an id none has, a GET before any
    /// session); it still passes.
    Unrecorded,
    /// Refused here: every session `--sessions` allows has started.
    Refused,
}

/// One client session's recording.
struct Recording {
    /// The `Mcp-Session-Id` its upstream gave it (none yet, or never: a stateless server).
    id: Option<Vec<u8>>,
    capture: Capture,
    /// When it began (the times of its messages count from then).
    start: Instant,
    /// Its DELETE was accepted: nothing more comes.
    ended: bool,
    /// It began without `initialize`, or its `initialize` was answered without a session
    /// id: the requests without one are its own (not those of a session whose
    /// `initialize` is still on its way).
    stateless: bool,
    /// Its place among the sessions (0 first), once it is one: at once for a stateless
    /// one, when the upstream accepts its `initialize` for the others.
    number: Option<usize>,
    /// The upstream refused its `initialize`: no session, never written.
    refused: bool,
}

/// Every session recorded so far, in the order they began.
pub(crate) struct Recordings {
    sessions: Vec<Recording>,
    limit: Limit,
    /// How many have a number.
    numbered: usize,
}

impl Recordings {
    /// None yet; at most `limit`.
    pub(crate) fn new(limit: Limit) -> Self {
        Recordings {
            sessions: Vec::new(),
            limit,
            numbered: 0,
        }
    }

    /// Where the messages of a request go (a new recording when it starts one).
    pub(crate) fn route(&mut self, asked: Asked<'_>, now: Instant) -> Into {
        // With one session recorded, everything is its own, as a single client's is.
        let lone = match self.limit {
            Limit(Some(1)) => self.sessions.iter().position(|r| !r.refused),
            _ => None,
        };
        let into = |k| Into::Session { k, started: false };
        match (asked.session, asked.initialize) {
            (Some(id), _) => {
                let named = self
                    .sessions
                    .iter()
                    .position(|r| r.id.as_deref() == Some(id));
                named.or(lone).map_or(Into::Unrecorded, into)
            }
            (None, true) => self.start(now, false),
            (None, false) => {
                let open = self.sessions.iter().rposition(|r| r.stateless && !r.ended);
                match open.or(lone) {
                    Some(k) => into(k),
                    None if asked.post => self.start(now, true),
                    None => Into::Unrecorded,
                }
            }
        }
    }

    fn start(&mut self, now: Instant, stateless: bool) -> Into {
        if self.limit.reached(self.begun()) {
            return Into::Refused;
        }
        let number = stateless.then(|| self.number());
        self.sessions.push(Recording {
            id: None,
            capture: Capture::default(),
            start: now,
            ended: false,
            stateless,
            number,
            refused: false,
        });
        Into::Session {
            k: self.sessions.len() - 1,
            started: true,
        }
    }

    /// The sessions begun, those whose `initialize` is on its way included.
    fn begun(&self) -> u64 {
        self.sessions.iter().filter(|r| !r.refused).count() as u64
    }

    fn number(&mut self) -> usize {
        self.numbered += 1;
        self.numbered - 1
    }

    /// Recording `k`'s capture and when it began.
    pub(crate) fn capture(&self, k: usize) -> (Capture, Instant) {
        let r = &self.sessions[k];
        (r.capture.clone(), r.start)
    }

    /// Recording `k`'s place among the sessions (0 first), unless it is none (yet).
    pub(crate) fn numbered(&self, k: usize) -> Option<usize> {
        let r = &self.sessions[k];
        r.number.filter(|_| !r.refused)
    }

    /// The upstream refused recording `k`'s `initialize`: it is no session.
    pub(crate) fn refuse(&mut self, k: usize) {
        self.sessions[k].refused = true;
    }

    /// Recording `k`'s `initialize` was answered with session `id` (none: a stateless
    /// server's, whose later requests carry none).
    pub(crate) fn name(&mut self, k: usize, id: Option<&[u8]>) {
        if self.sessions[k].number.is_none() {
            self.sessions[k].number = Some(self.number());
        }
        let r = &mut self.sessions[k];
        r.id = id.map(<[u8]>::to_vec);
        r.stateless = id.is_none();
    }

    /// The upstream accepted a DELETE of recording `k`: it has ended.
    pub(crate) fn end(&mut self, k: usize) {
        self.sessions[k].ended = true;
    }

    /// Whether every session `--sessions` allows has started and ended.
    pub(crate) fn done(&self) -> bool {
        self.limit.reached(self.begun()) && self.sessions.iter().all(|r| r.ended || r.refused)
    }

    /// How many have begun.
    pub(crate) fn len(&self) -> usize {
        self.sessions.len()
    }
}

#[cfg(test)]
mod should {
    use super::*;

    fn asked(session: Option<&'static str>, initialize: bool) -> Asked<'static> {
        Asked {
            session: session.map(str::as_bytes),
            post: true,
            initialize,
        }
    }

    fn session(k: usize, started: bool) -> Into {
        Into::Session { k, started }
    }

    #[test]
    fn record_each_initialize_on_its_own_and_each_id_into_its_session() {
        let now = Instant::now();
        let mut r = Recordings::new(Limit(None));
        assert_eq!(r.route(asked(None, true), now), session(0, true));
        assert_eq!(r.route(asked(None, true), now), session(1, true));
        r.name(0, Some(b"a"));
        r.name(1, Some(b"b"));
        assert_eq!(r.route(asked(Some("b"), false), now), session(1, false));
        assert_eq!(r.route(asked(Some("a"), false), now), session(0, false));
        assert_eq!(r.route(asked(Some("c"), false), now), Into::Unrecorded);
        assert!(!Capture::ptr_eq(&r.capture(0).0, &r.capture(1).0));
        r.end(0);
        r.end(1);
        assert!(!r.done(), "unlimited: it goes on");
    }

    #[test]
    fn refuse_a_session_past_the_limit_and_be_done_when_all_have_ended() {
        let now = Instant::now();
        let mut r = Recordings::new(Limit(Some(2)));
        assert_eq!(r.route(asked(None, true), now), session(0, true));
        assert_eq!(r.route(asked(None, true), now), session(1, true));
        assert_eq!(r.route(asked(None, true), now), Into::Refused);
        r.end(1);
        assert!(!r.done());
        r.end(0);
        assert!(r.done());
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn start_no_session_for_a_refused_initialize() {
        let now = Instant::now();
        let mut r = Recordings::new(Limit(Some(1)));
        assert_eq!(r.route(asked(None, true), now), session(0, true));
        r.refuse(0);
        assert_eq!(r.numbered(0), None);
        assert_eq!(r.route(asked(None, true), now), session(1, true));
        r.name(1, Some(b"a"));
        assert_eq!(r.numbered(1), Some(0), "the first session");
        assert_eq!(r.route(asked(Some("a"), false), now), session(1, false));
        r.end(1);
        assert!(r.done());
    }

    #[test]
    fn keep_everything_of_one_session_in_it() {
        let now = Instant::now();
        let mut r = Recordings::new(Limit(Some(1)));
        assert_eq!(r.route(asked(None, true), now), session(0, true));
        r.name(0, Some(b"a"));
        assert_eq!(r.route(asked(Some("x"), false), now), session(0, false));
        assert_eq!(r.route(asked(None, false), now), session(0, false));
        assert_eq!(r.route(asked(None, true), now), Into::Refused);
    }

    #[test]
    fn record_a_stateless_servers_requests_as_one_session() {
        let now = Instant::now();
        let mut r = Recordings::new(Limit(None));
        let get = Asked {
            session: None,
            post: false,
            initialize: false,
        };
        assert_eq!(r.route(get, now), Into::Unrecorded);
        assert_eq!(r.route(asked(None, false), now), session(0, true));
        assert_eq!(r.route(asked(None, false), now), session(0, false));
        assert_eq!(r.route(get, now), session(0, false));
        // A session whose initialize is on its way takes none of the requests without an id.
        assert_eq!(r.route(asked(None, true), now), session(1, true));
        assert_eq!(r.route(asked(None, false), now), session(0, false));
        // One whose initialize was answered without an id takes them from then on.
        r.end(0);
        r.name(1, None);
        assert_eq!(r.route(asked(None, false), now), session(1, false));
    }
}
