//! Timing one run: wall time, process CPU time, and the time the consumer spent blocked in
//! `next()`.

use crate::cputime;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What one run of a pipeline measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measurement {
    /// From asking for the first item to the pipeline's teardown.
    pub wall: Duration,
    /// The process's CPU time over the same span (all threads), if `/proc` could be read.
    pub cpu: Option<Duration>,
    /// The time the consumer spent inside `next()`, waiting for (or, when its executor lends
    /// its thread, loading) the next item.
    pub consumer_wait: Duration,
    /// How many items the consumer received.
    pub items: usize,
    /// The sum of the items (indices) received, to check each arrived exactly once.
    pub index_sum: u128,
    /// `true` if `stop` was raised before the pipeline ran dry.
    pub interrupted: bool,
}

/// Starts a pipeline with `start` and consumes it to the end, or until `stop` is raised, calling
/// `on_item` after every item. The clock covers `start`, every `next()` and the drop of the
/// iterator (a pipeline's teardown is part of its cost).
pub fn consume<I, S>(start: S, stop: &AtomicBool, mut on_item: impl FnMut()) -> Measurement
where
    S: FnOnce() -> I,
    I: Iterator<Item = usize>,
{
    let cpu_before = cputime::process();
    let started = Instant::now();
    let mut items = start();
    let mut consumer_wait = Duration::ZERO;
    let (mut count, mut index_sum) = (0, 0u128);
    let mut interrupted = false;
    loop {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let asked = Instant::now();
        let next = items.next();
        consumer_wait += asked.elapsed();
        let Some(index) = next else { break };
        count += 1;
        index_sum += index as u128;
        on_item();
    }
    drop(items);
    let wall = started.elapsed();
    let cpu = cputime::process()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    Measurement {
        wall,
        cpu,
        consumer_wait,
        items: count,
        index_sum,
        interrupted,
    }
}

/// How far apart the runs' wall times are: (slowest - fastest) / median; 0 for one run.
pub fn spread(runs: &[Measurement]) -> f64 {
    let walls: Vec<f64> = runs.iter().map(|m| m.wall.as_secs_f64()).collect();
    let (Some(min), Some(max)) = (
        walls.iter().copied().reduce(f64::min),
        walls.iter().copied().reduce(f64::max),
    ) else {
        return 0.0;
    };
    let median = median(runs.to_vec()).map_or(0.0, |m| m.wall.as_secs_f64());
    if median > 0.0 {
        (max - min) / median
    } else {
        0.0
    }
}

/// The run with the median wall time (the lower middle one for an even count).
pub fn median(mut runs: Vec<Measurement>) -> Option<Measurement> {
    runs.sort_by_key(|m| m.wall);
    let middle = runs.len().checked_sub(1)? / 2;
    runs.get(middle).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_items_and_waiting() {
        let stop = AtomicBool::new(false);
        let mut seen = 0;
        let m = consume(
            || (0..5).inspect(|_| std::thread::sleep(Duration::from_millis(2))),
            &stop,
            || seen += 1,
        );
        assert_eq!((m.items, m.index_sum, seen), (5, 10, 5));
        assert!(!m.interrupted);
        assert!(m.consumer_wait >= Duration::from_millis(10));
        assert!(m.wall >= m.consumer_wait);
    }

    #[test]
    fn a_raised_stop_ends_the_run() {
        let stop = AtomicBool::new(false);
        let m = consume(
            || 0..usize::MAX,
            &stop,
            || stop.store(true, Ordering::Relaxed),
        );
        assert!(m.interrupted);
        assert_eq!(m.items, 1);
    }

    #[test]
    fn median_picks_the_middle_wall_time() {
        let run = |ms| Measurement {
            wall: Duration::from_millis(ms),
            cpu: None,
            consumer_wait: Duration::ZERO,
            items: 0,
            index_sum: 0,
            interrupted: false,
        };
        assert_eq!(median(vec![run(30), run(10), run(20)]), Some(run(20)));
        assert_eq!(median(vec![run(30), run(10)]), Some(run(10)));
        assert_eq!(median(vec![]), None);
    }
}
