//! Folds for a helper (a data loader's driver): each shape tried on both pools, then run on the
//! faster, never measured on the caller.
//!
//! A loader's items are *turns*, each of which makes batches until the epoch has none left, so a
//! first item measured on the caller would be the whole epoch on one thread. Nor does a fold's
//! CPU time say which pool suits it: producers that sleep waiting for room in a full buffer look
//! like items that wait on a disk, yet want fewer threads, not more. So a helper's folds are
//! compared by what matters, their wall time, per shape (the fold's length: a loader's epoch
//! keeps it from one epoch to the next):
//!
//! - the first fold of a shape goes to the task pool of many tasks per core
//!   ([`Choice::HelperTaskPool`]), the second to work stealing with one index per piece
//!   ([`Choice::HelperStealing`]);
//! - later folds go to the pool whose last fold of that shape was faster;
//! - after [`MEASURE_EVERY`](crate::MEASURE_EVERY) folds on it, times the factor by which the
//!   other pool was slower, one fold tries the other pool again, so that a change in the work is
//!   seen (a try then costs about one fold in `MEASURE_EVERY`, however slow the other pool);
//!   each try that confirms the choice at least doubles the wait before the next, up to
//!   [`MAX_TRY_AGAIN_AFTER`] folds, and one that overturns it starts over.
//!
//! A fold shorter than [`OBSERVED_AT_LEAST`] (the last round of an epoch, a tiny loader) teaches
//! nothing: its wall time is mostly start-up and wake-ups.

use crate::{Choice, MEASURE_EVERY};
use std::time::Duration;

/// A helper fold shorter than this teaches nothing.
pub const OBSERVED_AT_LEAST: Duration = Duration::from_millis(1);

/// The longest wait, in folds, before a helper fold's shape tries the slower pool again.
pub const MAX_TRY_AGAIN_AFTER: u32 = 1024;

/// The two pools a helper's fold may run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HelperPool {
    TaskPool,
    Stealing,
}

impl HelperPool {
    fn other(self) -> Self {
        match self {
            Self::TaskPool => Self::Stealing,
            Self::Stealing => Self::TaskPool,
        }
    }

    pub fn choice(self) -> Choice {
        match self {
            Self::TaskPool => crate::helper_task_pool(),
            Self::Stealing => Choice::HelperStealing,
        }
    }
}

/// What the helper folds of one shape showed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HelperTimes {
    /// The last wall time on each pool: `[task pool, work stealing]`.
    last: [Option<Duration>; 2],
    /// Folds on the faster pool since the other was last tried.
    since_tried: u32,
    /// Folds to run on the faster pool before the other is tried again.
    try_again_after: u32,
}

impl Default for HelperTimes {
    fn default() -> Self {
        Self {
            last: [None, None],
            since_tried: 0,
            try_again_after: MEASURE_EVERY,
        }
    }
}

fn slot(pool: HelperPool) -> usize {
    match pool {
        HelperPool::TaskPool => 0,
        HelperPool::Stealing => 1,
    }
}

impl HelperTimes {
    /// The pool whose last fold was faster; the task pool until both have run.
    fn faster(&self) -> HelperPool {
        match self.last {
            [Some(pool), Some(stealing)] if stealing < pool => HelperPool::Stealing,
            _ => HelperPool::TaskPool,
        }
    }

    /// The pool for the next fold of this shape.
    pub fn next(&self) -> HelperPool {
        match self.last {
            [None, _] => HelperPool::TaskPool,
            [Some(_), None] => HelperPool::Stealing,
            [Some(_), Some(_)] if self.since_tried >= self.try_again_after => self.faster().other(),
            _ => self.faster(),
        }
    }

    /// Learns from a fold of this shape that ran on `ran` and took `wall`.
    pub fn learn(&mut self, ran: HelperPool, wall: Duration) {
        if wall < OBSERVED_AT_LEAST {
            return;
        }
        let compared = self.last.iter().all(Option::is_some);
        let faster_before = self.faster();
        self.last[slot(ran)] = Some(wall);
        let [Some(pool), Some(stealing)] = self.last else {
            return;
        };
        // A slower pool that lost by a factor `r` waits `r` times as long for its next try,
        // so that tries cost about one fold in `MEASURE_EVERY` however much slower it is.
        let ratio = pool.max(stealing).as_secs_f64() / pool.min(stealing).as_secs_f64();
        let patience =
            (f64::from(MEASURE_EVERY) * ratio).min(f64::from(MAX_TRY_AGAIN_AFTER)) as u32;
        if !compared {
            self.try_again_after = patience;
        } else if ran == faster_before {
            self.since_tried = self.since_tried.saturating_add(1);
        } else {
            // A try of the other pool: it confirmed the choice, or overturned it.
            self.since_tried = 0;
            self.try_again_after = if self.faster() == faster_before {
                self.try_again_after.saturating_mul(2).max(patience)
            } else {
                patience
            }
            .min(MAX_TRY_AGAIN_AFTER);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use HelperPool::{Stealing, TaskPool};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Runs `folds` folds, each taking `cost(pool)`, and returns the pools they ran on.
    fn run(
        times: &mut HelperTimes,
        folds: usize,
        cost: impl Fn(HelperPool) -> u64,
    ) -> Vec<HelperPool> {
        (0..folds)
            .map(|_| {
                let pool = times.next();
                times.learn(pool, ms(cost(pool)));
                pool
            })
            .collect()
    }

    #[test]
    fn both_pools_are_tried_then_the_faster_kept() {
        let mut times = HelperTimes::default();
        let ran = run(&mut times, 10, |pool| if pool == Stealing { 5 } else { 9 });
        assert_eq!(&ran[..3], [TaskPool, Stealing, Stealing]);
        assert!(ran[2..].iter().all(|&p| p == Stealing));
        let mut times = HelperTimes::default();
        let ran = run(&mut times, 10, |pool| if pool == Stealing { 50 } else { 9 });
        assert_eq!(&ran[..3], [TaskPool, Stealing, TaskPool]);
    }

    #[test]
    fn the_slower_pool_is_tried_again_less_and_less_often() {
        // Work stealing loses by 10 to 9: its tries come after 17, 34 and 68 folds.
        let mut times = HelperTimes::default();
        let ran = run(&mut times, 2 + 17 + 1 + 34 + 1 + 68 + 1, |pool| {
            if pool == Stealing {
                10
            } else {
                9
            }
        });
        let tries: Vec<usize> = ran
            .iter()
            .enumerate()
            .skip(2)
            .filter(|&(_, &p)| p == Stealing)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(tries, [2 + 17, 2 + 17 + 1 + 34, 2 + 17 + 1 + 34 + 1 + 68]);
    }

    #[test]
    fn a_much_slower_pool_waits_longer_for_its_tries() {
        // 30 times slower: a try costs 30 folds' time, so it comes after 16 x 30 folds.
        let mut times = HelperTimes::default();
        let ran = run(
            &mut times,
            1000,
            |pool| if pool == TaskPool { 60 } else { 2 },
        );
        let tries = ran[2..].iter().filter(|&&p| p == TaskPool).count();
        assert_eq!(tries, 1, "{}", 1000 / (16 * 30));
        let mut capped = HelperTimes::default();
        let ran = run(
            &mut capped,
            3000,
            |pool| if pool == TaskPool { 1000 } else { 1 },
        );
        let tries = ran[2..].iter().filter(|&&p| p == TaskPool).count();
        assert_eq!(tries, 2, "at most {MAX_TRY_AGAIN_AFTER} folds apart");
    }

    #[test]
    fn work_that_changes_is_followed() {
        let mut times = HelperTimes::default();
        run(&mut times, 20, |pool| if pool == Stealing { 50 } else { 9 });
        // The work changes: now work stealing is faster. The next try (after 16 x 50 / 9 folds)
        // sees it.
        let ran = run(&mut times, 200, |pool| if pool == Stealing { 5 } else { 9 });
        let switched = ran.iter().position(|&p| p == Stealing).expect("tried");
        assert_eq!(ran[switched + 1], Stealing, "the try overturned the choice");
        let after = &ran[switched..];
        let tries = after.iter().filter(|&&p| p == TaskPool).count();
        assert!(tries <= after.len() / 16, "{tries} tries in {} folds", after.len());
    }

    #[test]
    fn short_folds_teach_nothing() {
        let mut times = HelperTimes::default();
        for _ in 0..5 {
            times.learn(times.next(), OBSERVED_AT_LEAST / 2);
        }
        assert_eq!(times, HelperTimes::default());
    }
}
