//! Folds for a helper (a data loader's driver): chosen from how the last one ran, never measured
//! on the caller.
//!
//! A loader's items are *turns*, each of which makes batches until the epoch has none left, so a
//! first item measured on the caller would be the whole epoch on one thread. Instead each such
//! fold runs on a pool straight away while [`Observed`] records, per piece on whichever thread
//! runs it, the wall time and the thread's CPU time, and the process's CPU time over the whole
//! fold; what it saw chooses the pool of the *next* helper fold of the same `AutoEx`:
//!
//! - the first fold goes to the task pool of many tasks per core
//!   ([`Choice::HelperTaskPool`]): if its items wait, the waits overlap; if they compute, the
//!   cores are still all busy, at the price of more threads than cores;
//! - after a fold there that kept the process's CPU time at [`BUSY_CORES_SHARE`] of every core,
//!   more tasks than cores bought nothing: the next fold goes to work stealing with one index per
//!   piece ([`Choice::HelperStealing`]), where a ready batch is not queued behind others' time
//!   slices;
//! - after a fold on work stealing whose pieces spent less than
//!   [`WAITING_CPU_SHARE`](crate::WAITING_CPU_SHARE) of their wall time on the CPU, the items
//!   wait: back to the task pool.
//!
//! A fold shorter than [`OBSERVED_AT_LEAST`] (the last round of an epoch, a tiny loader) teaches
//! nothing: its clocks are mostly start-up and wake-ups.

use crate::Choice;
use cpu_time::{ProcessTime, ThreadTime};
use foldex_core::{Job, Partial};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The share of every core's time that the process must have used over a helper fold on the task
/// pool for the next one to go to work stealing.
pub const BUSY_CORES_SHARE: f64 = 0.9;

/// A helper fold shorter than this does not change the choice.
pub const OBSERVED_AT_LEAST: Duration = Duration::from_millis(1);

/// What a helper fold's run showed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Observation {
    /// The fold's wall time, on the caller.
    pub wall: Duration,
    /// The process's CPU time over the fold; `None` without a process CPU clock.
    pub process_cpu: Option<Duration>,
    /// The pieces' wall time, summed over the threads that ran them.
    pub pieces_wall: Duration,
    /// The pieces' CPU time, summed likewise; `None` without a thread CPU clock.
    pub pieces_cpu: Option<Duration>,
    /// The cores the process may use.
    pub cores: usize,
}

impl Observation {
    /// The choice for the next helper fold, after one that ran on `ran`.
    pub fn next(&self, ran: Choice) -> Choice {
        if self.wall < OBSERVED_AT_LEAST {
            return ran;
        }
        match ran {
            Choice::HelperTaskPool { .. } => {
                let capacity = self.wall.as_secs_f64() * self.cores.max(1) as f64;
                let busy = self
                    .process_cpu
                    .is_some_and(|cpu| cpu.as_secs_f64() >= BUSY_CORES_SHARE * capacity);
                if busy {
                    Choice::HelperStealing
                } else {
                    ran
                }
            }
            Choice::HelperStealing => {
                let waits = self.pieces_cpu.is_some_and(|cpu| {
                    !self.pieces_wall.is_zero()
                        && cpu.as_secs_f64()
                            < crate::WAITING_CPU_SHARE * self.pieces_wall.as_secs_f64()
                });
                if waits {
                    crate::helper_task_pool()
                } else {
                    ran
                }
            }
            other => other,
        }
    }
}

/// A job that runs another and records its pieces' wall and CPU time; see the module docs.
pub(crate) struct Observed<'j, 'a> {
    job: &'j dyn Job<'a>,
    wall_nanos: AtomicU64,
    /// `u64::MAX` once a piece found no thread CPU clock.
    cpu_nanos: AtomicU64,
}

impl<'j, 'a> Observed<'j, 'a> {
    pub fn new(job: &'j dyn Job<'a>) -> Self {
        Self {
            job,
            wall_nanos: AtomicU64::new(0),
            cpu_nanos: AtomicU64::new(0),
        }
    }

    /// Runs the job through `execute` and reports what it saw.
    pub fn run_with(
        &self,
        cores: usize,
        execute: impl FnOnce(&dyn Job<'a>) -> Partial<'a>,
    ) -> (Partial<'a>, Observation) {
        let process_before = ProcessTime::try_now().ok();
        let started = Instant::now();
        let partial = execute(self);
        let wall = started.elapsed();
        let cpu = self.cpu_nanos.load(Ordering::Relaxed);
        let observation = Observation {
            wall,
            process_cpu: process_before.map(|before| before.elapsed()),
            pieces_wall: Duration::from_nanos(self.wall_nanos.load(Ordering::Relaxed)),
            pieces_cpu: (cpu != u64::MAX).then(|| Duration::from_nanos(cpu)),
            cores,
        };
        (partial, observation)
    }
}

fn add_nanos(total: &AtomicU64, d: Duration) {
    let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX - 1);
    // Saturating below `u64::MAX`, which marks a missing clock.
    let _ = total.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
        (t != u64::MAX).then(|| t.saturating_add(nanos).min(u64::MAX - 1))
    });
}

impl<'a> Job<'a> for Observed<'_, 'a> {
    fn len(&self) -> usize {
        self.job.len()
    }

    fn run(&self, range: Range<usize>) -> Partial<'a> {
        let cpu_before = ThreadTime::try_now().ok();
        let started = Instant::now();
        let partial = self.job.run(range);
        add_nanos(&self.wall_nanos, started.elapsed());
        match cpu_before {
            Some(before) => add_nanos(&self.cpu_nanos, before.elapsed()),
            None => self.cpu_nanos.store(u64::MAX, Ordering::Relaxed),
        }
        partial
    }

    fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a> {
        self.job.combine(left, right)
    }

    fn is_stopped(&self, from: usize) -> bool {
        self.job.is_stopped(from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observation(wall_ms: u64, process_ms: u64, pieces: (u64, u64)) -> Observation {
        Observation {
            wall: Duration::from_millis(wall_ms),
            process_cpu: Some(Duration::from_millis(process_ms)),
            pieces_wall: Duration::from_millis(pieces.0),
            pieces_cpu: Some(Duration::from_millis(pieces.1)),
            cores: 2,
        }
    }

    #[test]
    fn a_task_pool_that_kept_every_core_busy_gives_way_to_work_stealing() {
        let pool = crate::helper_task_pool();
        // 100 ms on 2 cores: 190 ms of CPU is busy, 150 ms is not.
        assert_eq!(
            observation(100, 190, (1600, 190)).next(pool),
            Choice::HelperStealing
        );
        assert_eq!(observation(100, 150, (1600, 150)).next(pool), pool);
        let no_clock = Observation {
            process_cpu: None,
            ..observation(100, 190, (1600, 190))
        };
        assert_eq!(
            no_clock.next(pool),
            pool,
            "no clock: stay where waits overlap"
        );
    }

    #[test]
    fn work_stealing_whose_pieces_wait_goes_back_to_the_task_pool() {
        let stealing = Choice::HelperStealing;
        assert_eq!(
            observation(100, 20, (200, 20)).next(stealing),
            crate::helper_task_pool()
        );
        assert_eq!(observation(100, 190, (200, 190)).next(stealing), stealing);
        let nothing_ran = observation(100, 0, (0, 0));
        assert_eq!(nothing_ran.next(stealing), stealing);
    }

    #[test]
    fn a_short_fold_teaches_nothing() {
        let short = Observation {
            wall: OBSERVED_AT_LEAST / 2,
            ..observation(0, 0, (0, 0))
        };
        assert_eq!(short.next(Choice::HelperStealing), Choice::HelperStealing);
    }

    #[test]
    fn clocks_saturate_and_a_missing_thread_clock_sticks() {
        let total = AtomicU64::new(u64::MAX - 5);
        add_nanos(&total, Duration::from_secs(1));
        assert_eq!(total.load(Ordering::Relaxed), u64::MAX - 1);
        let missing = AtomicU64::new(u64::MAX);
        add_nanos(&missing, Duration::from_secs(1));
        assert_eq!(missing.load(Ordering::Relaxed), u64::MAX);
    }
}
