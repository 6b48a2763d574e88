//! What the session has to write to the server, in one owner: the lines queued in order
//! (and the close of the input), the line handed out last (named in the finding of its
//! failed write), and the buffer the next line is made in, reused so that no line costs an
//! allocation. Part of the core: the shell writes what [`Outbox::pop`] hands it.

use super::events::{Queued, Transmit, What};
use std::collections::VecDeque;

/// The session's outgoing lines.
#[derive(Default)]
pub(super) struct Outbox {
    /// Lines to write, in order.
    queue: VecDeque<Queued>,
    /// The fixture line and name of the line handed out last (for the finding of its
    /// failed write, which the shell reports before it polls again).
    writing: Option<(Option<usize>, What)>,
    /// Reused for the bytes of each message written to the server.
    spare: Vec<u8>,
}

impl Outbox {
    /// Whether nothing is queued.
    pub(super) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// An empty buffer to make a line in (the one the last line handed out left).
    pub(super) fn buffer(&mut self) -> Vec<u8> {
        let mut bytes = std::mem::take(&mut self.spare);
        bytes.clear();
        bytes
    }

    /// Takes back a buffer that was not queued, for the next line.
    pub(super) fn give_back(&mut self, bytes: Vec<u8>) {
        self.spare = bytes;
    }

    /// Queues one line (`bytes`, without its newline): fixture line `line`, named `what`.
    pub(super) fn push_line(&mut self, bytes: Vec<u8>, line: Option<usize>, what: What) {
        self.queue.push_back(Queued {
            bytes: Some(bytes),
            line,
            what,
        });
    }

    /// Queues the close of the server's input.
    pub(super) fn push_close(&mut self) {
        self.queue.push_back(Queued {
            bytes: None,
            line: None,
            what: What::Text(String::new()),
        });
    }

    /// The next transmit, if any: a line is swapped into `buf` (its old buffer kept for
    /// the next line), and remembered for the finding of a failed write.
    pub(super) fn pop(&mut self, buf: &mut Vec<u8>) -> Option<Transmit> {
        let queued = self.queue.pop_front()?;
        self.writing = Some((queued.line, queued.what));
        match queued.bytes {
            Some(mut bytes) => {
                std::mem::swap(buf, &mut bytes);
                bytes.clear();
                self.spare = bytes;
                Some(Transmit::Line)
            }
            None => Some(Transmit::CloseInput),
        }
    }

    /// A write failed: the line it was (its fixture line and name), and no queued line is
    /// written after it (the close of the input still is).
    pub(super) fn failed(&mut self) -> (Option<usize>, What) {
        self.queue.retain(|t| t.bytes.is_none());
        self.writing
            .take()
            .unwrap_or((None, What::Text(String::new())))
    }
}

#[cfg(test)]
mod should {
    use super::*;

    #[test]
    fn hand_out_lines_in_order_reuse_the_buffer_and_keep_the_close_after_a_failure() {
        let mut outbox = Outbox::default();
        let mut line = outbox.buffer();
        line.extend_from_slice(b"one");
        outbox.push_line(line, Some(1), What::Entry(0));
        outbox.push_line(b"two".to_vec(), Some(2), What::Entry(1));
        outbox.push_close();
        let mut buf = Vec::with_capacity(64);
        assert_eq!(outbox.pop(&mut buf), Some(Transmit::Line));
        assert_eq!(buf, b"one");
        // The buffer the caller gave is the next line's, cleared.
        assert!(outbox.buffer().capacity() >= 64);
        let (line, what) = outbox.failed();
        assert_eq!(line, Some(1));
        assert!(matches!(what, What::Entry(0)));
        assert_eq!(outbox.pop(&mut buf), Some(Transmit::CloseInput));
        assert_eq!(outbox.pop(&mut buf), None);
        assert!(outbox.is_empty());
    }
}
