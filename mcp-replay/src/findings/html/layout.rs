//! The layout of the diagram: its rows (the events in order, the gaps, the messages that
//! never came) and where each span's bar goes (its rows and its slot).

use crate::findings::timeline::Timeline;
use std::time::Duration;

/// A pause between two messages at least this long is drawn as a gap of its own.
pub(super) const GAP: Duration = Duration::from_millis(100);

/// One row of the diagram.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Row {
    /// `events[i]`.
    Event(usize),
    /// `missing[i]`: an expected message that never came.
    Missing(usize),
    /// A pause this long before the next message.
    Gap(Duration),
}

/// The rows of the diagram: the events in the order they happened, a gap before a long
/// pause, and each expected message that never came after the message of the fixture's
/// line before it (at the top when there is none).
pub(super) fn rows(t: &Timeline) -> Vec<Row> {
    // The event each missing row follows: the latest with the greatest fixture entry
    // before the missing one.
    let anchors: Vec<Option<usize>> = t
        .missing
        .iter()
        .map(|m| {
            t.events
                .iter()
                .enumerate()
                .filter_map(|(i, e)| Some((e.entry.filter(|&x| x < m.entry)?, i)))
                .max()
                .map(|(_, i)| i)
        })
        .collect();
    let mut rows: Vec<Row> = (0..t.missing.len())
        .filter(|&m| anchors[m].is_none())
        .map(Row::Missing)
        .collect();
    let mut before: Option<Duration> = None;
    for (i, event) in t.events.iter().enumerate() {
        if let Some(before) = before {
            let pause = event.at.saturating_sub(before);
            if pause >= GAP {
                rows.push(Row::Gap(pause));
            }
        }
        before = Some(event.at);
        rows.push(Row::Event(i));
        rows.extend(
            (0..t.missing.len())
                .filter(|&m| anchors[m] == Some(i))
                .map(Row::Missing),
        );
    }
    rows
}

/// Where a span is drawn: its first and last rows, its slot among the bars that overlap
/// it, and whether it ended (its response came).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Placed {
    pub(super) first: usize,
    pub(super) last: usize,
    pub(super) slot: usize,
    pub(super) ended: bool,
}

pub(super) fn place_spans(t: &Timeline, rows: &[Row]) -> Vec<Placed> {
    let mut row_of_event = vec![0; t.events.len()];
    for (r, row) in rows.iter().enumerate() {
        if let Row::Event(i) = row {
            row_of_event[*i] = r;
        }
    }
    let end = rows.len().saturating_sub(1);
    let mut placed: Vec<Placed> = t
        .spans
        .iter()
        .map(|s| Placed {
            first: row_of_event.get(s.from).copied().unwrap_or(0),
            last: s
                .to
                .and_then(|to| row_of_event.get(to).copied())
                .unwrap_or(end),
            slot: 0,
            ended: s.to.is_some(),
        })
        .collect();
    // The lowest slot no overlapping span before it holds.
    let mut order: Vec<usize> = (0..placed.len()).collect();
    order.sort_by_key(|&s| (placed[s].first, s));
    let mut busy: Vec<(usize, usize)> = Vec::new(); // (last row, slot)
    for s in order {
        busy.retain(|&(last, _)| last >= placed[s].first);
        let slot = (0..)
            .find(|n| busy.iter().all(|&(_, taken)| taken != *n))
            .unwrap_or(0);
        placed[s].slot = slot;
        busy.push((placed[s].last, slot));
    }
    placed
}
