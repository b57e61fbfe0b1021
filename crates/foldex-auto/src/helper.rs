//! Folds for a helper (a data loader's driver): each shape tried on every candidate pool, then
//! run on the fastest, never measured on the caller.
//!
//! A loader's items are *turns*, each of which makes batches until the epoch has none left, so a
//! first item measured on the caller would be the whole epoch on one thread. Nor does a fold's
//! CPU time say which pool suits it: producers that sleep waiting for room in a full buffer look
//! like items that wait on a disk, yet want fewer threads, not more. So a helper's folds are
//! compared by what matters, their wall time, per shape (the fold's length: a loader's epoch
//! keeps it from one epoch to the next). The candidates:
//!
//! - the task pool of many tasks per core ([`Choice::HelperTaskPool`]): items that wait;
//! - work stealing with one index per piece on every core ([`Choice::HelperStealing`]): items
//!   that compute;
//! - the same on one thread fewer than cores ([`Choice::HelperSpareCore`], with two cores or
//!   more): cheap items whose consumer, not their making, limits the epoch, and which runs
//!   best with a core of its own.
//!
//! The rule:
//!
//! - the folds of a shape go in turn to each candidate once (the spare core only where work
//!   stealing on every core came within [`CLOSE_ENOUGH`] of the fastest: it is a variant of
//!   it), then again to each whose fold took at most [`CLOSE_ENOUGH`] times the fastest so far
//!   (one fold slowed by preemption or a cold start does not decide alone between close
//!   candidates, and a clearly slower one, 8 times slower for sleeping items on one thread,
//!   costs one fold, not two);
//! - later folds go to the candidate whose shorter of its last two folds of that shape (its
//!   only one, for one clearly slower) was shortest;
//! - each other candidate is tried again after [`MEASURE_EVERY`](crate::MEASURE_EVERY) folds
//!   times the factor by which it was slower, times the number of slower candidates, so that a
//!   change in the work is seen (all tries together then cost about one fold in
//!   `MEASURE_EVERY`, however slow the candidates);
//!   each try that confirms the choice at least doubles that candidate's wait, up to
//!   [`MAX_TRY_AGAIN_AFTER`] folds, and one that overturns it starts every wait over.
//!
//! A fold shorter than [`OBSERVED_AT_LEAST`] (the last round of an epoch, a tiny loader) teaches
//! nothing: its wall time is mostly start-up and wake-ups.

use crate::{Choice, MEASURE_EVERY};
use std::time::Duration;

/// A helper fold shorter than this teaches nothing.
pub const OBSERVED_AT_LEAST: Duration = Duration::from_millis(1);

/// The longest wait, in folds, before a helper fold's shape tries a slower candidate again.
pub const MAX_TRY_AGAIN_AFTER: u32 = 1024;

/// A candidate whose first fold took more than this many times the fastest fold so far is not
/// run a second time before the choice is made (its periodic tries still come).
pub const CLOSE_ENOUGH: f64 = 2.0;

/// The pools a helper's fold may run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HelperPool {
    TaskPool,
    Stealing,
    SpareCore,
}

impl HelperPool {
    /// The candidates on a machine of `cores` cores, in the order they are first tried.
    pub fn candidates(cores: usize) -> &'static [HelperPool] {
        if cores >= 2 {
            &[Self::TaskPool, Self::Stealing, Self::SpareCore]
        } else {
            &[Self::TaskPool, Self::Stealing]
        }
    }

    /// The candidate this one is a variant of: it is first tried only where that one came
    /// close to the fastest.
    fn refines(self) -> Option<HelperPool> {
        match self {
            Self::SpareCore => Some(Self::Stealing),
            Self::TaskPool | Self::Stealing => None,
        }
    }

    pub fn choice(self) -> Choice {
        match self {
            Self::TaskPool => crate::helper_task_pool(),
            Self::Stealing => Choice::HelperStealing,
            Self::SpareCore => crate::helper_spare_core(),
        }
    }
}

/// What the helper folds of one shape showed on one candidate.
#[derive(Debug, Clone, PartialEq)]
struct Candidate {
    pool: HelperPool,
    /// The last two wall times, newest first.
    last: [Option<Duration>; 2],
    /// Folds since this candidate last ran (counted once every candidate has run twice).
    since_tried: u32,
    /// Folds to wait, while it is not the fastest, before trying it again.
    try_again_after: u32,
}

impl Candidate {
    /// The shorter of its last two folds (one slow fold, preempted or cold, does not decide
    /// alone), or its only one; `None` before any.
    fn estimate(&self) -> Option<Duration> {
        match self.last {
            [Some(newer), Some(older)] => Some(newer.min(older)),
            [newer, _] => newer,
        }
    }

    fn runs(&self) -> usize {
        self.last.iter().flatten().count()
    }
}

/// What the helper folds of one shape showed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HelperTimes {
    candidates: Vec<Candidate>,
}

impl HelperTimes {
    /// Nothing seen yet, for these candidates.
    pub fn new(pools: &[HelperPool]) -> Self {
        Self {
            candidates: pools
                .iter()
                .map(|&pool| Candidate {
                    pool,
                    last: [None; 2],
                    since_tried: 0,
                    try_again_after: MEASURE_EVERY,
                })
                .collect(),
        }
    }

    /// The fastest fold any candidate has run, if any ran.
    fn best(&self) -> Option<Duration> {
        self.candidates.iter().filter_map(Candidate::estimate).min()
    }

    /// Whether a time is within [`CLOSE_ENOUGH`] of the fastest.
    fn close(&self, estimate: Option<Duration>) -> bool {
        match (estimate, self.best()) {
            (Some(e), Some(best)) => e.as_secs_f64() <= CLOSE_ENOUGH * best.as_secs_f64(),
            _ => false,
        }
    }

    /// Whether `candidate` is in the running: it is no refinement, or the candidate it refines
    /// ran and is close to the fastest (the spare core is worth a fold only where work stealing
    /// on every core is).
    fn in_the_running(&self, candidate: &Candidate) -> bool {
        candidate.pool.refines().is_none_or(|parent| {
            self.candidates
                .iter()
                .find(|c| c.pool == parent)
                .is_some_and(|c| self.close(c.estimate()))
        })
    }

    /// The candidate still to run before the choice is made: one in the running that has not
    /// run, or that ran once and took at most [`CLOSE_ENOUGH`] times the fastest so far.
    fn pending(&self) -> Option<HelperPool> {
        let runs = |c: &Candidate| c.runs();
        self.candidates
            .iter()
            .filter(|c| runs(c) == 0 && self.in_the_running(c))
            .chain(
                self.candidates
                    .iter()
                    .filter(|c| runs(c) == 1 && self.close(c.estimate())),
            )
            .map(|c| c.pool)
            .next()
    }

    /// The candidates that ran, with their estimates, once none is pending.
    fn ranked(&self) -> Option<Vec<(usize, Duration)>> {
        if self.pending().is_some() {
            return None;
        }
        Some(
            self.candidates
                .iter()
                .enumerate()
                .filter_map(|(i, c)| Some((i, c.estimate()?)))
                .collect(),
        )
    }

    /// The index of the fastest candidate; the first while some are pending.
    fn fastest(&self) -> usize {
        self.ranked()
            .and_then(|ranked| ranked.into_iter().min_by_key(|&(_, e)| e))
            .map_or(0, |(i, _)| i)
    }

    /// The pool for the next fold of this shape: the pending candidates in turn, then the
    /// fastest, or the slower one most overdue for its try.
    pub fn next(&self) -> HelperPool {
        if let Some(pending) = self.pending() {
            return pending;
        }
        let fastest = self.fastest();
        let overdue = self
            .candidates
            .iter()
            .enumerate()
            .filter(|&(i, c)| i != fastest && c.runs() > 0 && c.since_tried >= c.try_again_after)
            .max_by_key(|(_, c)| c.since_tried - c.try_again_after);
        match overdue {
            Some((_, candidate)) => candidate.pool,
            None => self.candidates[fastest].pool,
        }
    }

    /// Learns from a fold of this shape that ran on `ran` and took `wall`.
    pub fn learn(&mut self, ran: HelperPool, wall: Duration) {
        if wall < OBSERVED_AT_LEAST {
            return;
        }
        let Some(ran) = self.candidates.iter().position(|c| c.pool == ran) else {
            return;
        };
        let compared = self.ranked().is_some();
        let fastest_before = self.fastest();
        let times = &mut self.candidates[ran].last;
        *times = [Some(wall), times[0]];
        let Some(ranked) = self.ranked() else {
            return;
        };
        let fastest = self.fastest();
        // A candidate that lost by a factor `r` waits `r` times as long for its next try, and
        // as many times longer as there are slower candidates, so that all their tries together
        // cost about one fold in `MEASURE_EVERY` however much slower they are.
        let best = self.candidates[fastest]
            .estimate()
            .map_or(1.0, |e| e.as_secs_f64());
        let slower = ranked.len().saturating_sub(1).max(1) as f64;
        let patience: Vec<Option<u32>> = self
            .candidates
            .iter()
            .map(|c| {
                let ratio = c.estimate()?.as_secs_f64() / best;
                let folds = f64::from(MEASURE_EVERY) * ratio * slower;
                Some(folds.min(f64::from(MAX_TRY_AGAIN_AFTER)) as u32)
            })
            .collect();
        let ranked_now = |i: usize| patience[i].is_some();
        if !compared || fastest != fastest_before {
            // Every candidate has just been seen, or a try overturned the choice: start over.
            for (i, candidate) in self.candidates.iter_mut().enumerate() {
                candidate.since_tried = 0;
                candidate.try_again_after = patience[i].unwrap_or(MEASURE_EVERY);
            }
            return;
        }
        for (i, candidate) in self.candidates.iter_mut().enumerate() {
            if i == fastest || !ranked_now(i) {
                continue;
            }
            if i == ran {
                // A try that confirmed the choice.
                candidate.since_tried = 0;
                candidate.try_again_after = candidate
                    .try_again_after
                    .saturating_mul(2)
                    .max(patience[i].unwrap_or(MEASURE_EVERY))
                    .min(MAX_TRY_AGAIN_AFTER);
            } else {
                candidate.since_tried = candidate.since_tried.saturating_add(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use HelperPool::{SpareCore, Stealing, TaskPool};

    /// The two candidates of a one-core machine, which the older tests below were written for.
    fn two() -> HelperTimes {
        HelperTimes::new(HelperPool::candidates(1))
    }

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
        let mut times = two();
        let ran = run(&mut times, 10, |pool| if pool == Stealing { 5 } else { 9 });
        assert_eq!(
            &ran[..5],
            [TaskPool, Stealing, TaskPool, Stealing, Stealing]
        );
        assert!(ran[4..].iter().all(|&p| p == Stealing));
        let mut times = two();
        let ran = run(&mut times, 10, |pool| if pool == Stealing { 50 } else { 9 });
        // Work stealing took more than twice the task pool's time: not run again at once.
        assert_eq!(
            &ran[..5],
            [TaskPool, Stealing, TaskPool, TaskPool, TaskPool]
        );
    }

    #[test]
    fn the_slower_pool_is_tried_again_less_and_less_often() {
        // Work stealing loses by 10 to 9: its tries come after 17, 34 and 68 folds.
        let mut times = two();
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
        let mut times = two();
        let ran = run(
            &mut times,
            1000,
            |pool| if pool == TaskPool { 60 } else { 2 },
        );
        let tries = ran[4..].iter().filter(|&&p| p == TaskPool).count();
        assert_eq!(tries, 1, "{}", 1000 / (16 * 30));
        let mut capped = two();
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
        let mut times = two();
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
        let mut times = two();
        // The task pool's first fold was preempted: 90 ms against its usual 9.
        for (pool, ms_taken) in [(TaskPool, 90), (Stealing, 50), (TaskPool, 9)] {
            assert_eq!(times.next(), pool);
            times.learn(pool, ms(ms_taken));
        }
        assert_eq!(times.next(), TaskPool);
    }

    /// With the spare-core candidate (two cores or more): each of the three is tried twice,
    /// the fastest kept, and each slower one tried again on its own schedule.
    #[test]
    fn three_candidates_each_tried_then_the_fastest_kept() {
        let mut times = HelperTimes::new(HelperPool::candidates(2));
        let cost = |pool| match pool {
            TaskPool => 40,
            Stealing => 12,
            SpareCore => 8,
        };
        let ran = run(&mut times, 600, cost);
        // The task pool, 5 times slower, is not run twice before the choice.
        assert_eq!(
            &ran[..5],
            [TaskPool, Stealing, SpareCore, Stealing, SpareCore]
        );
        let count = |pool| ran[5..].iter().filter(|&&p| p == pool).count();
        // Work stealing, 1.5 times slower, is tried after 2 × 24, then 96, 192 folds; the task
        // pool, 5 times slower, after 2 × 80, then 320.
        assert_eq!(count(Stealing), 3, "{ran:?}");
        assert_eq!(count(TaskPool), 2, "{ran:?}");
        assert_eq!(count(SpareCore), 600 - 5 - 3 - 2);
    }

    #[test]
    fn a_try_that_overturns_the_choice_starts_every_wait_over() {
        let mut times = HelperTimes::new(HelperPool::candidates(2));
        // Each once, then the spare core again (the others took over twice its time).
        let ran = run(&mut times, 4, |pool| if pool == SpareCore { 8 } else { 20 });
        assert_eq!(ran, [TaskPool, Stealing, SpareCore, SpareCore]);
        // Work stealing becomes the fastest; its next try (after 2 × 16 × 20 / 8 = 80 folds)
        // sees it, and it is kept from then on but for the others' tries.
        let ran = run(&mut times, 200, |pool| match pool {
            Stealing => 4,
            SpareCore => 8,
            TaskPool => 20,
        });
        let switched = ran.iter().position(|&p| p == Stealing).expect("tried");
        assert_eq!(switched, 80, "{ran:?}");
        assert_eq!(ran[switched + 1], Stealing, "the try overturned the choice");
        let after = &ran[switched..];
        let others = after.iter().filter(|&&p| p != Stealing).count();
        assert!(
            (1..=after.len() / 16).contains(&others),
            "{others} tries in {} folds",
            after.len()
        );
    }

    /// Items that wait: work stealing is far slower than the task pool, so its variant on a
    /// core fewer is not tried at all, until work stealing becomes the fastest.
    #[test]
    fn the_spare_core_is_tried_only_where_work_stealing_comes_close() {
        let mut times = HelperTimes::new(HelperPool::candidates(2));
        let ran = run(
            &mut times,
            200,
            |pool| if pool == TaskPool { 10 } else { 80 },
        );
        assert_eq!(&ran[..4], [TaskPool, Stealing, TaskPool, TaskPool]);
        assert!(!ran.contains(&SpareCore), "{ran:?}");
        // The work changes: work stealing's next try finds it fastest, and the spare core is
        // tried right after.
        let ran = run(&mut times, 400, |pool| match pool {
            TaskPool => 10,
            Stealing => 4,
            SpareCore => 3,
        });
        let switched = ran.iter().position(|&p| p == Stealing).expect("tried");
        assert_eq!(ran[switched + 1], SpareCore, "{ran:?}");
        let after = &ran[switched + 1..];
        let spare = after.iter().filter(|&&p| p == SpareCore).count();
        assert!(spare >= after.len() * 9 / 10, "{spare} of {}", after.len());
    }

    #[test]
    fn short_folds_teach_nothing() {
        let mut times = two();
        for _ in 0..5 {
            times.learn(times.next(), OBSERVED_AT_LEAST / 2);
        }
        assert_eq!(times, two());
    }
}
