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
//! - the folds of a shape go in turn to the task pool of many tasks per core
//!   ([`Choice::HelperTaskPool`]) and to work stealing with one index per piece
//!   ([`Choice::HelperStealing`]), until each has run two;
//! - later folds go to the pool whose shorter of its last two folds of that shape was shorter
//!   (one fold slowed by preemption or a cold start does not decide alone);
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
    /// The last two wall times on each pool (`[task pool, work stealing]`), newest first.
    last: [[Option<Duration>; 2]; 2],
    /// Folds on the faster pool since the other was last tried.
    since_tried: u32,
    /// Folds to run on the faster pool before the other is tried again.
    try_again_after: u32,
}

impl Default for HelperTimes {
    fn default() -> Self {
        Self {
            last: [[None; 2]; 2],
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
    /// What `pool` takes: the shorter of its last two folds (one slow fold, preempted or cold,
    /// does not decide alone); `None` before two.
    fn estimate(&self, pool: HelperPool) -> Option<Duration> {
        match self.last[slot(pool)] {
            [Some(newer), Some(older)] => Some(newer.min(older)),
            _ => None,
        }
    }

    /// Both pools' estimates, once each has run two folds.
    fn estimates(&self) -> Option<(Duration, Duration)> {
        Some((
            self.estimate(HelperPool::TaskPool)?,
            self.estimate(HelperPool::Stealing)?,
        ))
    }

    /// The faster pool; the task pool until both have run twice.
    fn faster(&self) -> HelperPool {
        match self.estimates() {
            Some((pool, stealing)) if stealing < pool => HelperPool::Stealing,
            _ => HelperPool::TaskPool,
        }
    }

    /// The pool for the next fold of this shape: the task pool and work stealing in turn until
    /// each has run twice, then the faster, or the slower when its turn to be tried has come.
    pub fn next(&self) -> HelperPool {
        let runs = |pool: HelperPool| self.last[slot(pool)].iter().flatten().count();
        let (pool, stealing) = (runs(HelperPool::TaskPool), runs(HelperPool::Stealing));
        if pool < 2 || stealing < 2 {
            return if pool <= stealing {
                HelperPool::TaskPool
            } else {
                HelperPool::Stealing
            };
        }
        if self.since_tried >= self.try_again_after {
            self.faster().other()
        } else {
            self.faster()
        }
    }

    /// Learns from a fold of this shape that ran on `ran` and took `wall`.
    pub fn learn(&mut self, ran: HelperPool, wall: Duration) {
        if wall < OBSERVED_AT_LEAST {
            return;
        }
        let compared = self.estimates().is_some();
        let faster_before = self.faster();
        let times = &mut self.last[slot(ran)];
        *times = [Some(wall), times[0]];
        let Some((pool, stealing)) = self.estimates() else {
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
        assert_eq!(
            &ran[..5],
            [TaskPool, Stealing, TaskPool, Stealing, Stealing]
        );
        assert!(ran[4..].iter().all(|&p| p == Stealing));
        let mut times = HelperTimes::default();
        let ran = run(&mut times, 10, |pool| if pool == Stealing { 50 } else { 9 });
        assert_eq!(
            &ran[..5],
            [TaskPool, Stealing, TaskPool, Stealing, TaskPool]
        );
    }

    #[test]
    fn the_slower_pool_is_tried_again_less_and_less_often() {
        // Work stealing loses by 10 to 9: its tries come after 17, 34 and 68 folds.
        let mut times = HelperTimes::default();
        let ran = run(&mut times, 4 + 17 + 1 + 34 + 1 + 68 + 1, |pool| {
            if pool == Stealing {
                10
            } else {
                9
            }
        });
        let tries: Vec<usize> = ran
            .iter()
            .enumerate()
            .skip(4)
            .filter(|&(_, &p)| p == Stealing)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(tries, [4 + 17, 4 + 17 + 1 + 34, 4 + 17 + 1 + 34 + 1 + 68]);
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
        let tries = ran[4..].iter().filter(|&&p| p == TaskPool).count();
        assert_eq!(tries, 1, "{}", 1000 / (16 * 30));
        let mut capped = HelperTimes::default();
        let ran = run(
            &mut capped,
            3000,
            |pool| if pool == TaskPool { 1000 } else { 1 },
        );
        let tries = ran[4..].iter().filter(|&&p| p == TaskPool).count();
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
        assert!(
            tries <= after.len() / 16,
            "{tries} tries in {} folds",
            after.len()
        );
    }

    #[test]
    fn one_slow_fold_does_not_decide_alone() {
        let mut times = HelperTimes::default();
        // The task pool's first fold was preempted: 90 ms against its usual 9.
        for (pool, ms_taken) in [
            (TaskPool, 90),
            (Stealing, 50),
            (TaskPool, 9),
            (Stealing, 50),
        ] {
            assert_eq!(times.next(), pool);
            times.learn(pool, ms(ms_taken));
        }
        assert_eq!(times.next(), TaskPool);
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
