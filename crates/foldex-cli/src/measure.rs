//! Timing one run: wall time, process CPU time, and the consumer's thread's own CPU time.

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
    /// The consumer's thread's CPU time over the same span, if it could be read: the items it
    /// loaded itself (an executor that lends the caller's thread) and its spinning while it
    /// waited. The consumer does nothing but ask for items, so the rest of the wall time it was
    /// blocked, waiting for one.
    pub consumer_cpu: Option<Duration>,
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
    let consumer_before = cputime::thread();
    let started = Instant::now();
    let mut items = start();
    let (mut count, mut index_sum) = (0, 0u128);
    let mut interrupted = false;
    loop {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let Some(index) = items.next() else { break };
        count += 1;
        index_sum += index as u128;
        on_item();
    }
    drop(items);
    let wall = started.elapsed();
    Measurement {
        wall,
        cpu: since(cputime::process(), cpu_before),
        consumer_cpu: since(cputime::thread(), consumer_before),
        items: count,
        index_sum,
        interrupted,
    }
}

/// A CPU clock's advance from `before` to `after`, when both could be read.
pub fn since(after: Option<Duration>, before: Option<Duration>) -> Option<Duration> {
    after
        .zip(before)
        .map(|(after, before)| after.saturating_sub(before))
}

/// How far apart the runs' wall times are: (slowest - fastest) / median; `None` for fewer than
/// two runs, which have no spread to measure.
pub fn spread(runs: &[Measurement]) -> Option<f64> {
    if runs.len() < 2 {
        return None;
    }
    let walls: Vec<f64> = runs.iter().map(|m| m.wall.as_secs_f64()).collect();
    let min = walls.iter().copied().fold(f64::INFINITY, f64::min);
    let max = walls.iter().copied().fold(0.0, f64::max);
    let median = median(runs.to_vec()).map_or(0.0, |m| m.wall.as_secs_f64());
    Some(if median > 0.0 {
        (max - min) / median
    } else {
        0.0
    })
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
    fn counts_items_and_the_consumers_own_cpu_time() {
        let stop = AtomicBool::new(false);
        let mut seen = 0;
        let m = consume(
            || (0..5).inspect(|_| std::thread::sleep(Duration::from_millis(2))),
            &stop,
            || seen += 1,
        );
        assert_eq!((m.items, m.index_sum, seen), (5, 10, 5));
        assert!(!m.interrupted);
        assert!(m.wall >= Duration::from_millis(10));
        // Items loaded on another thread: the consumer's own thread was blocked, not computing,
        // for most of the run (where its CPU clock can be read).
        let producer = || {
            let (send, receive) = std::sync::mpsc::sync_channel(0);
            std::thread::spawn(move || {
                for i in 0..5 {
                    std::thread::sleep(Duration::from_millis(20));
                    let _ = send.send(i);
                }
            });
            receive.into_iter()
        };
        let m = consume(producer, &stop, || {});
        assert_eq!(m.items, 5);
        if let Some(consumer) = m.consumer_cpu {
            assert!(consumer < m.wall / 2, "{m:?}");
        }
        // Items loaded on the consumer's thread: its CPU time is theirs.
        let spin = || {
            (0..5).inspect(|_| {
                let start = cputime::thread().unwrap_or_default();
                while cputime::thread().unwrap_or_default() - start < Duration::from_millis(10) {
                    std::hint::spin_loop();
                }
            })
        };
        let m = consume(spin, &stop, || {});
        if let Some(consumer) = m.consumer_cpu {
            assert!(consumer >= Duration::from_millis(50), "{m:?}");
        }
    }

    #[test]
    fn one_run_has_no_spread() {
        let run = |ms| Measurement {
            wall: Duration::from_millis(ms),
            cpu: None,
            consumer_cpu: None,
            items: 0,
            index_sum: 0,
            interrupted: false,
        };
        assert_eq!(spread(&[run(10)]), None);
        assert_eq!(spread(&[]), None);
        let three = spread(&[run(10), run(20), run(30)]).unwrap();
        assert!((three - 1.0).abs() < 1e-9, "{three}");
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
            consumer_cpu: None,
            items: 0,
            index_sum: 0,
            interrupted: false,
        };
        assert_eq!(median(vec![run(30), run(10), run(20)]), Some(run(20)));
        assert_eq!(median(vec![run(30), run(10)]), Some(run(10)));
        assert_eq!(median(vec![]), None);
    }
}
