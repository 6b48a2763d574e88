//! The sessions of `serve --http`: which live session a request belongs to, and when a new
//! one starts. Each client session is its own walk of the fixture (its own mock, its own
//! `Mcp-Session-Id`): an `initialize` without a session id starts one while `--sessions`
//! allows, a request with an id goes to that session, and nothing of one session reaches
//! another. [`Table`] decides (no I/O; unit-tested below); `serve.rs` runs it.
//!
//! A fixture that starts without `initialize` (protocol 2026-07-28, `server/discover`) is
//! stateless: its requests carry no session id to tell clients apart, so one walk serves
//! every request that has none, one client at a time; the next starts when it ends.

pub(crate) use crate::args::Limit;
pub(crate) use crate::net::Asked;
use http::StatusCode;
use std::collections::HashMap;

/// Where a request goes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// To live session number N.
    To(u64),
    /// To a new session, number N (reserved: the shell starts it).
    Start(u64),
    /// Answered here, with this status and reason: no session is the client's.
    Refuse(StatusCode, &'static str),
}

/// A session that has started and not yet ended.
#[derive(Debug)]
struct Live<S> {
    /// Its `Mcp-Session-Id`, once its `initialize` was answered (stateless: none ever).
    id: Option<Vec<u8>>,
    /// The walk of a stateless fixture: the requests without a session id.
    stateless: bool,
    /// What the shell keeps for it (the front, its open requests).
    shell: S,
}

/// The live sessions and how many have started. `S` is what the shell keeps per session.
#[derive(Debug)]
pub(crate) struct Table<S> {
    live: HashMap<u64, Live<S>>,
    started: u64,
    /// The session `route` started, until the shell opens it (under the same lock).
    reserved: Option<(u64, bool)>,
    limit: Limit,
    /// The fixture starts without `initialize`: requests without a session id are its walk.
    stateless: bool,
}

impl<S: Clone> Table<S> {
    /// No session yet; `stateless` when the fixture starts without `initialize`.
    pub(crate) fn new(limit: Limit, stateless: bool) -> Self {
        Table {
            live: HashMap::new(),
            started: 0,
            reserved: None,
            limit,
            stateless,
        }
    }

    /// How many sessions have started.
    pub(crate) fn started(&self) -> u64 {
        self.started
    }

    /// How many are live.
    pub(crate) fn live(&self) -> usize {
        self.live.len()
    }

    /// Whether every session `--sessions` allows has started and ended.
    pub(crate) fn done(&self) -> bool {
        self.limit.reached(self.started) && self.live.is_empty()
    }

    /// Where `asked` goes; a [`Route::Start`] reserves the new session's number, and the
    /// shell then [`open`](Table::open)s it.
    pub(crate) fn route(&mut self, asked: Asked<'_>) -> Route {
        // With one session allowed, that session's front judges what is not its own (a
        // missing or another id is a finding of the one client under test).
        let lone = match (self.limit.0, self.live.len()) {
            (Some(1), 1) => self.live.keys().next().copied(),
            _ => None,
        };
        match (asked.session, asked.initialize) {
            (Some(id), _) => match self.live.iter().find(|(_, l)| l.id.as_deref() == Some(id)) {
                Some((&n, _)) => Route::To(n),
                None => lone.map_or(
                    Route::Refuse(
                        StatusCode::NOT_FOUND,
                        "Not Found: no session has this Mcp-Session-Id",
                    ),
                    Route::To,
                ),
            },
            (None, true) => self.start(false),
            (None, false) => match (lone, self.stateless) {
                (Some(n), _) => Route::To(n),
                (None, true) => match self.live.iter().find(|(_, l)| l.stateless) {
                    Some((&n, _)) => Route::To(n),
                    None if asked.post => self.start(true),
                    None => Route::Refuse(
                        StatusCode::NOT_FOUND,
                        "Not Found: no walk of this stateless fixture is under way",
                    ),
                },
                (None, false) => Route::Refuse(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the Mcp-Session-Id header is required after initialize",
                ),
            },
        }
    }

    /// A new session's number, reserved (`stateless`: the walk of a stateless fixture),
    /// unless every session `--sessions` allows has started.
    fn start(&mut self, stateless: bool) -> Route {
        if self.limit.reached(self.started) {
            return Route::Refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: every session this mock serves (--sessions) has started",
            );
        }
        self.started += 1;
        self.reserved = Some((self.started, stateless));
        Route::Start(self.started)
    }

    /// The session [`route`](Table::route) just reserved is live, kept as `shell`.
    pub(crate) fn open(&mut self, shell: S) {
        if let Some((n, stateless)) = self.reserved.take() {
            let id = None;
            self.live.insert(
                n,
                Live {
                    id,
                    stateless,
                    shell,
                },
            );
        }
    }

    /// Session `n`'s `initialize` was answered with `id`.
    pub(crate) fn name(&mut self, n: u64, id: &[u8]) {
        if let Some(live) = self.live.get_mut(&n) {
            live.id = Some(id.to_vec());
        }
    }

    /// What the shell keeps for live session `n`.
    pub(crate) fn shell(&self, n: u64) -> Option<S> {
        self.live.get(&n).map(|l| l.shell.clone())
    }

    /// Session `n` has ended: nothing of it stays.
    pub(crate) fn close(&mut self, n: u64) {
        self.live.remove(&n);
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

    #[test]
    fn start_a_session_for_each_initialize_and_route_each_id_to_its_own() {
        let mut table: Table<()> = Table::new(Limit(None), false);
        assert_eq!(table.route(asked(None, true)), Route::Start(1));
        table.open(());
        assert_eq!(table.route(asked(None, true)), Route::Start(2));
        table.open(());
        table.name(1, b"a");
        table.name(2, b"b");
        assert_eq!(table.route(asked(Some("b"), false)), Route::To(2));
        assert_eq!(table.route(asked(Some("a"), false)), Route::To(1));
        assert!(matches!(
            table.route(asked(Some("c"), false)),
            Route::Refuse(StatusCode::NOT_FOUND, _)
        ));
        assert!(matches!(
            table.route(asked(None, false)),
            Route::Refuse(StatusCode::BAD_REQUEST, _)
        ));
        table.close(1);
        assert!(matches!(
            table.route(asked(Some("a"), false)),
            Route::Refuse(StatusCode::NOT_FOUND, _)
        ));
        assert_eq!((table.live(), table.started()), (1, 2));
    }

    #[test]
    fn refuse_a_session_past_the_limit_and_end_when_all_have_ended() {
        let mut table: Table<()> = Table::new(Limit(Some(2)), false);
        assert_eq!(table.route(asked(None, true)), Route::Start(1));
        table.open(());
        assert_eq!(table.route(asked(None, true)), Route::Start(2));
        table.open(());
        assert!(matches!(
            table.route(asked(None, true)),
            Route::Refuse(StatusCode::SERVICE_UNAVAILABLE, _)
        ));
        table.close(1);
        assert!(!table.done());
        table.close(2);
        assert!(table.done());
    }

    #[test]
    fn give_the_one_session_what_is_not_its_own_to_judge() {
        let mut table: Table<()> = Table::new(Limit(Some(1)), false);
        assert_eq!(table.route(asked(None, true)), Route::Start(1));
        table.open(());
        table.name(1, b"a");
        assert_eq!(table.route(asked(Some("x"), false)), Route::To(1));
        assert_eq!(table.route(asked(None, false)), Route::To(1));
        // A second client's initialize is not handed the first one's session.
        assert!(matches!(
            table.route(asked(None, true)),
            Route::Refuse(StatusCode::SERVICE_UNAVAILABLE, _)
        ));
    }

    #[test]
    fn serve_a_stateless_fixture_as_one_walk() {
        let mut table: Table<()> = Table::new(Limit(None), true);
        let get = Asked {
            session: None,
            post: false,
            initialize: false,
        };
        assert!(matches!(
            table.route(get),
            Route::Refuse(StatusCode::NOT_FOUND, _)
        ));
        assert_eq!(table.route(asked(None, false)), Route::Start(1));
        table.open(());
        assert_eq!(table.route(asked(None, false)), Route::To(1));
        assert_eq!(table.route(get), Route::To(1));
        // A client that initializes anyway has a session of its own.
        assert_eq!(table.route(asked(None, true)), Route::Start(2));
        table.open(());
        table.name(2, b"b");
        assert_eq!(table.route(asked(Some("b"), false)), Route::To(2));
        assert_eq!(table.route(asked(None, false)), Route::To(1));
        table.close(1);
        assert_eq!(table.route(asked(None, false)), Route::Start(3));
    }
}
