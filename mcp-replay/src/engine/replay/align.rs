//! Pairing the notifications and server requests a server sent with the ones the fixture
//! expects: a pure function of what was expected and what arrived, with no I/O and no clock
//! (the driver in `mod.rs` owns those), so its hard cases are table tests.
//!
//! Every expected message belongs to a *group* (see `causal.rs`): the messages of one client
//! request (its progress, its logs), or the messages of one method that the server sends on
//! its own schedule. The driver assigns each arrival to a group as it comes. Then, per group:
//!
//! 1. equal messages, in order: a longest common subsequence, as a diff pairs lines;
//! 2. what stays unpaired in the group but is equal to something unpaired in it is paired
//!    too: those arrived in another order (a *notification order* finding for the group).
//!    This comes before anything that differs is paired, so a stream sent in reverse is the
//!    same messages in another order, not a changed message at each place;
//! 3. what is left (nothing of it is equal any more), in order, as a diff does it: the
//!    pairing with the fewest findings (a changed message is one finding, a missing or an
//!    extra one is one each), a message of the same method before one of another;
//!
//! then across groups, what is left: equal messages are paired (outside their span: *late*
//! if they are bound to it, else fine), then messages of the same kind that arrived in the expected one's span (*params*
//! when the method is the same, else *method*). The rest is missing or unexpected.

use crate::data::fixture::MessageKind;

/// Past this many cells (wanted × arrived in one group) the alignment pairs in arrival
/// order instead of searching the best pairing: a bound on time and memory for huge streams.
const MAX_CELLS: usize = 1 << 22;

/// One group's properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GroupInfo {
    /// Does the server promise the order of the group's messages?
    pub ordered: bool,
}

/// When an expected message may arrive: after arrival number `open`, before `close`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub open: u64,
    pub close: u64,
}

impl Span {
    /// The whole session.
    pub const SESSION: Span = Span {
        open: 0,
        close: u64::MAX,
    };

    fn contains(self, seq: u64) -> bool {
        self.open < seq && seq < self.close
    }
}

/// An expected server message (notification or server request).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Want<'a> {
    pub group: usize,
    pub method: &'a str,
    pub kind: MessageKind,
    pub span: Span,
    /// Outside its span it is *late*; else it is only expected there first.
    pub hard: bool,
}

/// A server message that arrived (notification or server request).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Got<'a> {
    /// Its place in the session (sends and arrivals share the count).
    pub seq: u64,
    /// The group the driver assigned it to, if any group expects its method.
    pub group: Option<usize>,
    pub method: &'a str,
    pub kind: MessageKind,
    /// The expected server request it was matched with when it came (the driver answers a
    /// server request at once, so that pairing is decided then).
    pub fixed: Option<usize>,
}

/// How a pair differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    Equal,
    /// Same method, other params.
    Params,
    /// Another method.
    Method,
    /// Equal, but it arrived outside its span (after its request's response).
    Late,
    /// Equal, outside a span it is only expected in first: no finding, and no place in
    /// its group's order.
    Elsewhere,
}

/// A wanted message (index into the wants) paired with an arrival (index into the gots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pair {
    pub want: usize,
    pub got: usize,
    pub how: How,
}

/// The outcome: pairs, what never came, what nobody expected, and the groups whose paired
/// messages arrived in another order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Alignment {
    /// In the order of the wants.
    pub pairs: Vec<Pair>,
    pub missing: Vec<usize>,
    pub unexpected: Vec<usize>,
    /// Per disordered group, its pairs (`Equal` and `Params`) in the order of the wants.
    pub disorders: Vec<Vec<Pair>>,
}

/// Aligns `gots` (in arrival order) with `wants` (in fixture order); `equal(w, g)` says
/// whether arrival `g` is exactly what `wants[w]` expects.
pub(crate) fn align(
    groups: &[GroupInfo],
    wants: &[Want<'_>],
    gots: &[Got<'_>],
    equal: impl Fn(usize, usize) -> bool,
) -> Alignment {
    let mut pairing = Pairing {
        pair_of_want: vec![None; wants.len()],
        used: vec![false; gots.len()],
    };
    for (g, got) in gots.iter().enumerate() {
        if let Some(w) = got.fixed {
            let how = if equal(w, g) { How::Equal } else { How::Params };
            pairing.add(Pair {
                want: w,
                got: g,
                how,
            });
        }
    }
    let mut members: Vec<(Vec<usize>, Vec<usize>)> = vec![Default::default(); groups.len()];
    for (w, want) in wants.iter().enumerate() {
        if pairing.pair_of_want[w].is_none() {
            members[want.group].0.push(w);
        }
    }
    for (g, got) in gots.iter().enumerate() {
        if let (Some(group), false) = (got.group, pairing.used[g]) {
            members[group].1.push(g);
        }
    }
    for (info, (ws, gs)) in groups.iter().zip(&members) {
        for pair in align_group(*info, ws, gs, wants, gots, &equal) {
            pairing.add(pair);
        }
    }
    for pair in pair_leftovers(&pairing, wants, gots, &equal) {
        pairing.add(pair);
    }
    pairing.finish(groups, wants, gots)
}

/// The pairs decided so far.
struct Pairing {
    pair_of_want: Vec<Option<Pair>>,
    used: Vec<bool>,
}

impl Pairing {
    fn add(&mut self, pair: Pair) {
        self.pair_of_want[pair.want] = Some(pair);
        self.used[pair.got] = true;
    }

    fn finish(self, groups: &[GroupInfo], wants: &[Want<'_>], gots: &[Got<'_>]) -> Alignment {
        let mut out = Alignment::default();
        for (w, pair) in self.pair_of_want.iter().enumerate() {
            match pair {
                Some(p) => out.pairs.push(*p),
                None => out.missing.push(w),
            }
        }
        out.unexpected = (0..gots.len()).filter(|&g| !self.used[g]).collect();
        let mut ordered: Vec<Vec<Pair>> = vec![Vec::new(); groups.len()];
        for p in &out.pairs {
            let group = wants[p.want].group;
            if groups[group].ordered && matches!(p.how, How::Equal | How::Params) {
                ordered[group].push(*p);
            }
        }
        out.disorders = ordered
            .into_iter()
            .filter(|pairs| {
                pairs
                    .windows(2)
                    .any(|w| gots[w[0].got].seq > gots[w[1].got].seq)
            })
            .collect();
        out
    }
}

/// One group: `ws` and `gs` its unpaired wants and arrivals, in order.
fn align_group(
    info: GroupInfo,
    ws: &[usize],
    gs: &[usize],
    wants: &[Want<'_>],
    gots: &[Got<'_>],
    equal: &impl Fn(usize, usize) -> bool,
) -> Vec<Pair> {
    let mut pairs = Vec::new();
    if !info.ordered {
        pair_equal(ws, gs, &mut pairs, equal, &mut |_, _| true);
    }
    // Equal messages in order: a longest common subsequence.
    let (ws_left, gs_left) = unpaired(ws, gs, &pairs);
    diff(
        &ws_left,
        &gs_left,
        wants,
        gots,
        equal,
        Only::Equal,
        &mut pairs,
    );
    // Equal ones the ordered alignment could not pair: they came in another order. Paired
    // before anything that differs, so that a stream sent in reverse is the same messages
    // in another order, not one changed message per place.
    let (ws_left, gs_left) = unpaired(ws, gs, &pairs);
    pair_equal(&ws_left, &gs_left, &mut pairs, equal, &mut |_, _| true);
    // What is left differs from everything: paired in order, the same method first.
    let (ws_left, gs_left) = unpaired(ws, gs, &pairs);
    diff(
        &ws_left,
        &gs_left,
        wants,
        gots,
        equal,
        Only::Differing,
        &mut pairs,
    );
    pairs
}

/// Which pairs an ordered alignment ([`diff`]) may make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Only {
    /// Equal messages only: a longest common subsequence.
    Equal,
    /// Any two (none of them are equal any more): as many as the order allows, another
    /// method only where no message of the same method fits.
    Differing,
}

/// Across groups, what is left: equal messages (outside their span: late, or elsewhere),
/// then a message of the same kind that came in the wanted one's span.
fn pair_leftovers(
    pairing: &Pairing,
    wants: &[Want<'_>],
    gots: &[Got<'_>],
    equal: &impl Fn(usize, usize) -> bool,
) -> Vec<Pair> {
    let ws: Vec<usize> = (0..wants.len())
        .filter(|&w| pairing.pair_of_want[w].is_none())
        .collect();
    let gs: Vec<usize> = (0..gots.len()).filter(|&g| !pairing.used[g]).collect();
    let mut pairs = Vec::new();
    pair_equal(&ws, &gs, &mut pairs, equal, &mut |w, g| {
        wants[w].span.contains(gots[g].seq)
    });
    for p in &mut pairs {
        if !wants[p.want].span.contains(gots[p.got].seq) {
            p.how = if wants[p.want].hard {
                How::Late
            } else {
                How::Elsewhere
            };
        }
    }
    let (ws, mut gs) = unpaired(&ws, &gs, &pairs);
    for w in ws {
        let want = &wants[w];
        let fits = |g: &usize| gots[*g].kind == want.kind && want.span.contains(gots[*g].seq);
        let found = gs
            .iter()
            .position(|g| fits(g) && gots[*g].method == want.method)
            .or_else(|| gs.iter().position(fits));
        if let Some(i) = found {
            let g = gs.remove(i);
            let how = if gots[g].method == want.method {
                How::Params
            } else {
                How::Method
            };
            pairs.push(Pair {
                want: w,
                got: g,
                how,
            });
        }
    }
    pairs
}

/// Those of `ws` and `gs` that no pair of `pairs` takes.
fn unpaired(ws: &[usize], gs: &[usize], pairs: &[Pair]) -> (Vec<usize>, Vec<usize>) {
    let mut want_taken: Vec<usize> = pairs.iter().map(|p| p.want).collect();
    let mut got_taken: Vec<usize> = pairs.iter().map(|p| p.got).collect();
    want_taken.sort_unstable();
    got_taken.sort_unstable();
    (
        ws.iter()
            .copied()
            .filter(|w| want_taken.binary_search(w).is_err())
            .collect(),
        gs.iter()
            .copied()
            .filter(|g| got_taken.binary_search(g).is_err())
            .collect(),
    )
}

/// Pairs each of `ws` (in order) with the first of `gs` it equals and `allowed` lets it take.
fn pair_equal(
    ws: &[usize],
    gs: &[usize],
    pairs: &mut Vec<Pair>,
    equal: &impl Fn(usize, usize) -> bool,
    allowed: &mut impl FnMut(usize, usize) -> bool,
) {
    let mut free: Vec<usize> = gs.to_vec();
    let mut late = Vec::new();
    for &w in ws {
        if let Some(i) = free.iter().position(|&g| equal(w, g) && allowed(w, g)) {
            pairs.push(Pair {
                want: w,
                got: free.remove(i),
                how: How::Equal,
            });
        } else {
            late.push(w);
        }
    }
    // Equal but not allowed where it came (outside the span): still the same message.
    for w in late {
        if let Some(i) = free.iter().position(|&g| equal(w, g)) {
            pairs.push(Pair {
                want: w,
                got: free.remove(i),
                how: How::Equal,
            });
        }
    }
}

/// The order-preserving alignment of one group with the fewest findings (and, among those,
/// the most equal pairs, then the fewest pairs of another method): a pair costs nothing
/// when equal and one finding otherwise, an unpaired message on either side one finding.
/// With [`Only::Equal`] a pair that is not equal is not made at all.
fn diff(
    ws: &[usize],
    gs: &[usize],
    wants: &[Want<'_>],
    gots: &[Got<'_>],
    equal: &impl Fn(usize, usize) -> bool,
    only: Only,
    pairs: &mut Vec<Pair>,
) {
    let (n, m) = (ws.len(), gs.len());
    if n == 0 || m == 0 {
        return;
    }
    let how = |i: usize, j: usize| {
        if equal(ws[i], gs[j]) {
            How::Equal
        } else if wants[ws[i]].method == gots[gs[j]].method {
            How::Params
        } else {
            How::Method
        }
    };
    if (n + 1) * (m + 1) > MAX_CELLS {
        // Equal ones are then paired by `pair_equal`, in order of arrival.
        if only == Only::Differing {
            for (i, j) in (0..n).zip(0..m) {
                pairs.push(Pair {
                    want: ws[i],
                    got: gs[j],
                    how: how(i, j),
                });
            }
        }
        return;
    }
    let same_method = |i: usize, j: usize| wants[ws[i]].method == gots[gs[j]].method;
    let table = Table::new(ws, gs, equal, &same_method, only);
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        let here = table.cost(i, j);
        if table.pair_cost(i, j) == here {
            let how = if table.equal(i, j) {
                How::Equal
            } else {
                how(i, j)
            };
            pairs.push(Pair {
                want: ws[i],
                got: gs[j],
                how,
            });
            i += 1;
            j += 1;
        } else if table.skip_cost(i + 1, j) == here {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// The cost of an alignment: (findings, -equal pairs, pairs of another method), compared
/// in that order.
type Cost = (u32, i32, u32);

/// Too costly to take: a pair [`Only::Equal`] does not make.
const NEVER: Cost = (u32::MAX / 2, 0, 0);

/// The dynamic-programming table of [`diff`]: `cost(i, j)` is the [`Cost`] of aligning
/// `ws[i..]` with `gs[j..]`, filled from the end.
struct Table {
    width: usize,
    m: usize,
    cost: Vec<Cost>,
    /// Per cell: 0 another method, 1 the same method, 2 equal.
    likeness: Vec<u8>,
    only: Only,
}

impl Table {
    fn new(
        ws: &[usize],
        gs: &[usize],
        equal: &impl Fn(usize, usize) -> bool,
        same_method: &impl Fn(usize, usize) -> bool,
        only: Only,
    ) -> Table {
        let (n, m) = (ws.len(), gs.len());
        let width = m + 1;
        let mut table = Table {
            width,
            m,
            cost: vec![(0, 0, 0); (n + 1) * width],
            likeness: vec![0; n * m],
            only,
        };
        for i in (0..=n).rev() {
            for j in (0..=m).rev() {
                table.cost[i * width + j] = if i == n {
                    ((m - j) as u32, 0, 0)
                } else if j == m {
                    ((n - i) as u32, 0, 0)
                } else {
                    table.likeness[i * m + j] = if equal(ws[i], gs[j]) {
                        2
                    } else {
                        u8::from(same_method(i, j))
                    };
                    table
                        .pair_cost(i, j)
                        .min(table.skip_cost(i + 1, j))
                        .min(table.skip_cost(i, j + 1))
                };
            }
        }
        table
    }

    fn cost(&self, i: usize, j: usize) -> Cost {
        self.cost[i * self.width + j]
    }

    fn equal(&self, i: usize, j: usize) -> bool {
        self.likeness[i * self.m + j] == 2
    }

    /// Pairing `ws[i]` with `gs[j]`, then the best for the rest.
    fn pair_cost(&self, i: usize, j: usize) -> Cost {
        let (f, e, o) = self.cost(i + 1, j + 1);
        match self.likeness[i * self.m + j] {
            2 => (f, e - 1, o),
            _ if self.only == Only::Equal => NEVER,
            1 => (f + 1, e, o),
            _ => (f + 1, e, o + 1),
        }
    }

    /// Leaving one message unpaired (one finding), then the best from `(i, j)`.
    fn skip_cost(&self, i: usize, j: usize) -> Cost {
        let (f, e, o) = self.cost(i, j);
        (f + 1, e, o)
    }
}

#[cfg(test)]
mod tests {
    //! Tables: a want or a got is written `group:method:body`; two are equal when method and
    //! body are; a got's group may be `-` (no group expects its method).
    use super::*;

    struct Case {
        groups: Vec<GroupInfo>,
        wants: Vec<(usize, &'static str, &'static str, Span)>,
        gots: Vec<(Option<usize>, &'static str, &'static str, u64)>,
    }

    fn case(ordered: &[bool]) -> Case {
        Case {
            groups: ordered
                .iter()
                .map(|&ordered| GroupInfo { ordered })
                .collect(),
            wants: Vec::new(),
            gots: Vec::new(),
        }
    }

    impl Case {
        fn want(mut self, group: usize, method: &'static str, body: &'static str) -> Case {
            self.wants.push((group, method, body, Span::SESSION));
            self
        }
        fn want_in(mut self, group: usize, m: &'static str, b: &'static str, span: Span) -> Case {
            self.wants.push((group, m, b, span));
            self
        }
        fn got(mut self, group: Option<usize>, method: &'static str, body: &'static str) -> Case {
            let seq = self.gots.len() as u64 + 10;
            self.gots.push((group, method, body, seq));
            self
        }
        /// The findings, one word each: `params 1`, `missing 0`, `order [0, 1]`, ...
        fn findings(&self) -> Vec<String> {
            let wants: Vec<Want> = self
                .wants
                .iter()
                .map(|&(group, method, _, span)| Want {
                    group,
                    method,
                    kind: MessageKind::Notification,
                    span,
                    hard: method == PROGRESS,
                })
                .collect();
            let gots: Vec<Got> = self
                .gots
                .iter()
                .map(|&(group, method, _, seq)| Got {
                    seq,
                    group,
                    method,
                    kind: MessageKind::Notification,
                    fixed: None,
                })
                .collect();
            let a = align(&self.groups, &wants, &gots, |w, g| {
                (self.wants[w].1, self.wants[w].2) == (self.gots[g].1, self.gots[g].2)
            });
            let mut out = Vec::new();
            for p in &a.pairs {
                match p.how {
                    How::Equal | How::Elsewhere => {}
                    How::Params => out.push(format!("params {}", p.want)),
                    How::Method => out.push(format!("method {}", p.want)),
                    How::Late => out.push(format!("late {}", p.want)),
                }
            }
            out.extend(a.missing.iter().map(|w| format!("missing {w}")));
            out.extend(a.unexpected.iter().map(|g| format!("unexpected {g}")));
            for d in &a.disorders {
                let order: Vec<usize> = d.iter().map(|p| p.want).collect();
                out.push(format!("order {order:?}"));
            }
            out
        }
    }

    const PROGRESS: &str = "notifications/progress";
    const LOG: &str = "notifications/message";

    #[test]
    fn a_faithful_stream_has_no_finding() {
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .want(0, LOG, "half")
            .want(0, PROGRESS, "2")
            .got(Some(0), PROGRESS, "1")
            .got(Some(0), LOG, "half")
            .got(Some(0), PROGRESS, "2");
        assert_eq!(c.findings(), Vec::<String>::new());
    }

    #[test]
    fn two_equal_logs_for_progress_then_log_are_one_method_finding() {
        // The case that first-equal-wins got wrong: it paired the log with the first log,
        // then saw an inversion the server never made.
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .want(0, LOG, "half")
            .got(Some(0), LOG, "half")
            .got(Some(0), LOG, "half");
        assert_eq!(c.findings(), ["method 0"]);
    }

    #[test]
    fn swapped_messages_of_an_ordered_group_are_one_order_finding() {
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .want(0, LOG, "half")
            .got(Some(0), LOG, "half")
            .got(Some(0), PROGRESS, "1");
        assert_eq!(c.findings(), ["order [0, 1]"]);
    }

    #[test]
    fn swapped_steps_of_one_progress_stream_are_one_order_finding() {
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .want(0, PROGRESS, "2")
            .want(0, PROGRESS, "3")
            .got(Some(0), PROGRESS, "1")
            .got(Some(0), PROGRESS, "3")
            .got(Some(0), PROGRESS, "2");
        assert_eq!(c.findings(), ["order [0, 1, 2]"]);
    }

    /// A stream sent in reverse, and its neighbours: the same messages in another order
    /// are one order finding, never a params finding per message (a changed message
    /// beside the reordered ones is one params finding of its own).
    #[test]
    fn a_stream_in_another_order_is_one_order_finding_beside_what_changed() {
        let stream = |bodies: &[&'static str], arrived: &[&'static str]| {
            let mut c = case(&[true]);
            for b in bodies {
                c = c.want(0, PROGRESS, b);
            }
            for b in arrived {
                c = c.got(Some(0), PROGRESS, b);
            }
            c.findings()
        };
        let table: [(&[&str], &[&str], &[&str]); 8] = [
            // Two, reversed.
            (&["1", "2"], &["2", "1"], &["order [0, 1]"]),
            // Three, reversed: the middle one stays in place, the others swap.
            (&["1", "2", "3"], &["3", "2", "1"], &["order [0, 1, 2]"]),
            // Four, reversed.
            (
                &["1", "2", "3", "4"],
                &["4", "3", "2", "1"],
                &["order [0, 1, 2, 3]"],
            ),
            // One changed (the last) and two swapped.
            (
                &["1", "2", "3", "4"],
                &["1", "3", "2", "four"],
                &["params 3", "order [0, 1, 2, 3]"],
            ),
            // One changed, in place, the rest reversed around it.
            (
                &["1", "2", "3"],
                &["3", "two", "1"],
                &["params 1", "order [0, 1, 2]"],
            ),
            // Reversed with one dropped.
            (
                &["1", "2", "3"],
                &["3", "1"],
                &["missing 1", "order [0, 2]"],
            ),
            // Reversed with one added.
            (
                &["1", "2"],
                &["2", "x", "1"],
                &["unexpected 1", "order [0, 1]"],
            ),
            // In order but for what changed: no order finding.
            (&["1", "2", "3"], &["1", "two", "3"], &["params 1"]),
        ];
        for (wanted, arrived, findings) in table {
            assert_eq!(
                stream(wanted, arrived),
                findings,
                "{wanted:?} -> {arrived:?}"
            );
        }
    }

    #[test]
    fn two_interleaved_streams_each_in_reverse_are_one_order_finding_each() {
        let c = case(&[true, true])
            .want(0, PROGRESS, "a1")
            .want(0, PROGRESS, "a2")
            .want(0, PROGRESS, "a3")
            .want(1, PROGRESS, "b1")
            .want(1, PROGRESS, "b2")
            .want(1, PROGRESS, "b3")
            .got(Some(1), PROGRESS, "b3")
            .got(Some(0), PROGRESS, "a3")
            .got(Some(0), PROGRESS, "a2")
            .got(Some(1), PROGRESS, "b2")
            .got(Some(1), PROGRESS, "b1")
            .got(Some(0), PROGRESS, "a1");
        assert_eq!(c.findings(), ["order [0, 1, 2]", "order [3, 4, 5]"]);
        // One reversed, the other faithful: only the first is out of order.
        let c = case(&[true, true])
            .want(0, PROGRESS, "a1")
            .want(0, PROGRESS, "a2")
            .want(0, PROGRESS, "a3")
            .want(1, PROGRESS, "b1")
            .want(1, PROGRESS, "b2")
            .got(Some(1), PROGRESS, "b1")
            .got(Some(0), PROGRESS, "a3")
            .got(Some(0), PROGRESS, "a2")
            .got(Some(1), PROGRESS, "b2")
            .got(Some(0), PROGRESS, "a1");
        assert_eq!(c.findings(), ["order [0, 1, 2]"]);
    }

    #[test]
    fn swapped_messages_of_an_unordered_group_are_fine() {
        let c = case(&[false])
            .want(0, LOG, "a")
            .want(0, LOG, "b")
            .got(Some(0), LOG, "b")
            .got(Some(0), LOG, "a");
        assert_eq!(c.findings(), Vec::<String>::new());
    }

    #[test]
    fn groups_interleave_freely() {
        // Two requests' progress streams and an unsolicited message, interleaved otherwise
        // than recorded: each group's own order holds, so nothing is wrong.
        let c = case(&[true, true, true])
            .want(0, PROGRESS, "a1")
            .want(0, PROGRESS, "a2")
            .want(1, PROGRESS, "b1")
            .want(1, PROGRESS, "b2")
            .want(2, "notifications/tools/list_changed", "")
            .got(Some(1), PROGRESS, "b1")
            .got(Some(2), "notifications/tools/list_changed", "")
            .got(Some(0), PROGRESS, "a1")
            .got(Some(1), PROGRESS, "b2")
            .got(Some(0), PROGRESS, "a2");
        assert_eq!(c.findings(), Vec::<String>::new());
    }

    #[test]
    fn a_changed_message_is_one_params_finding() {
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .want(0, PROGRESS, "2")
            .want(0, PROGRESS, "3")
            .got(Some(0), PROGRESS, "1")
            .got(Some(0), PROGRESS, "two")
            .got(Some(0), PROGRESS, "3");
        assert_eq!(c.findings(), ["params 1"]);
    }

    #[test]
    fn a_dropped_message_is_one_missing_finding() {
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .want(0, PROGRESS, "2")
            .want(0, PROGRESS, "3")
            .got(Some(0), PROGRESS, "1")
            .got(Some(0), PROGRESS, "3");
        assert_eq!(c.findings(), ["missing 1"]);
    }

    #[test]
    fn an_added_message_is_one_unexpected_finding() {
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .want(0, PROGRESS, "2")
            .got(Some(0), PROGRESS, "1")
            .got(Some(0), PROGRESS, "1")
            .got(Some(0), PROGRESS, "2");
        assert_eq!(c.findings(), ["unexpected 1"]);
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .got(None, "notifications/resources/updated", "x")
            .got(Some(0), PROGRESS, "1");
        assert_eq!(c.findings(), ["unexpected 0"]);
    }

    #[test]
    fn another_method_in_the_span_is_one_method_finding() {
        let c = case(&[true])
            .want(0, PROGRESS, "1")
            .want(0, LOG, "half")
            .got(Some(0), PROGRESS, "1")
            .got(None, "notifications/resources/updated", "x");
        assert_eq!(c.findings(), ["method 1"]);
    }

    #[test]
    fn another_method_outside_the_span_is_missing_and_unexpected() {
        let span = Span { open: 0, close: 11 };
        let c = case(&[true])
            .want_in(0, PROGRESS, "1", span)
            .want_in(0, LOG, "half", span)
            .got(Some(0), PROGRESS, "1")
            .got(None, "notifications/resources/updated", "x");
        assert_eq!(c.findings(), ["missing 1", "unexpected 1"]);
    }

    #[test]
    fn an_equal_progress_notification_after_its_span_is_late() {
        let span = Span { open: 0, close: 11 };
        let c = case(&[true])
            .want_in(0, LOG, "half", span)
            .want_in(0, PROGRESS, "1", span)
            .got(Some(0), LOG, "half")
            .got(None, PROGRESS, "1");
        assert_eq!(c.findings(), ["late 1"]);
    }

    #[test]
    fn an_equal_log_after_its_span_is_fine() {
        // Recorded while its request alone ran, but it was the server's own.
        let span = Span { open: 0, close: 11 };
        let c = case(&[true])
            .want_in(0, PROGRESS, "1", span)
            .want_in(0, LOG, "half", span)
            .got(Some(0), PROGRESS, "1")
            .got(None, LOG, "half");
        assert_eq!(c.findings(), Vec::<String>::new());
    }

    #[test]
    fn a_server_request_paired_when_it_came_keeps_its_pair() {
        let wants = [Want {
            group: 0,
            method: "roots/list",
            kind: MessageKind::Request,
            span: Span::SESSION,
            hard: false,
        }];
        let gots = [Got {
            seq: 3,
            group: Some(0),
            method: "roots/list",
            kind: MessageKind::Request,
            fixed: Some(0),
        }];
        let a = align(&[GroupInfo { ordered: true }], &wants, &gots, |_, _| false);
        assert_eq!(
            a.pairs,
            [Pair {
                want: 0,
                got: 0,
                how: How::Params
            }]
        );
    }

    #[test]
    fn an_empty_session_has_nothing_to_say() {
        assert_eq!(case(&[]).findings(), Vec::<String>::new());
    }

    #[test]
    fn huge_groups_pair_in_order() {
        let mut c = case(&[true]);
        for _ in 0..2100 {
            c = c.want(0, PROGRESS, "p").got(Some(0), PROGRESS, "p");
        }
        assert_eq!(c.findings(), Vec::<String>::new());
    }
}
