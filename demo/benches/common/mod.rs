//! What the benchmarks share: the interleaved pair of two sides and its medians
//! (`docs/PERFORMANCE.md`, "method").
#![allow(dead_code)] // Each bench uses its own part.

use std::time::Duration;

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub fn median_f(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Runs `a` and `b` alternately `reps` times (after one warm-up each): their medians and
/// the median of the per-repetition ratios a/b (robust to the load changing meanwhile).
pub struct Pair {
    pub a: Duration,
    pub b: Duration,
    pub ratio: f64,
}

pub fn pair(reps: usize, mut a: impl FnMut() -> Duration, mut b: impl FnMut() -> Duration) -> Pair {
    // One warm-up run of each side (one-time costs stay out of the medians).
    a();
    b();
    let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..reps {
        // Alternate which side goes first, so neither always runs on a warmer cache.
        let (x, y) = if i % 2 == 0 {
            let x = a();
            (x, b())
        } else {
            let y = b();
            (a(), y)
        };
        ratios.push(x.as_secs_f64() / y.as_secs_f64());
        ta.push(x);
        tb.push(y);
    }
    Pair {
        a: median(ta),
        b: median(tb),
        ratio: median_f(ratios),
    }
}
