//! What became of each want of a session (an expected notification or server request the
//! model awaits): claimed by an equal arrival, or given up when its wait ended. One owner
//! for the two marks, so that "settled" means one thing. Part of the core.

/// The marks of a session's wants, by want index.
#[derive(Debug)]
pub(super) struct Wants {
    /// Per want: an equal arrival claimed it (or, for a server request, it was matched).
    claimed: Vec<bool>,
    /// Per want: the replay stopped waiting for it.
    given_up: Vec<bool>,
}

impl Wants {
    /// `count` wants, none claimed or given up.
    pub(super) fn new(count: usize) -> Wants {
        Wants {
            claimed: vec![false; count],
            given_up: vec![false; count],
        }
    }

    /// Marks want `w` claimed.
    pub(super) fn claim(&mut self, w: usize) {
        self.claimed[w] = true;
    }

    /// Whether want `w` was claimed.
    pub(super) fn claimed(&self, w: usize) -> bool {
        self.claimed[w]
    }

    /// Marks want `w` given up: the replay no longer waits for it.
    pub(super) fn give_up(&mut self, w: usize) {
        self.given_up[w] = true;
    }

    /// Whether the replay gave up waiting for want `w`.
    pub(super) fn given_up(&self, w: usize) -> bool {
        self.given_up[w]
    }

    /// Whether want `w` is no longer waited for: claimed or given up.
    pub(super) fn settled(&self, w: usize) -> bool {
        self.claimed[w] || self.given_up[w]
    }
}

#[cfg(test)]
mod should {
    use super::Wants;

    #[test]
    fn settle_a_want_claimed_or_given_up_and_no_other() {
        let mut wants = Wants::new(3);
        wants.claim(0);
        wants.give_up(2);
        assert!(wants.claimed(0) && !wants.given_up(0) && wants.settled(0));
        assert!(!wants.settled(1));
        assert!(wants.given_up(2) && !wants.claimed(2) && wants.settled(2));
    }
}
