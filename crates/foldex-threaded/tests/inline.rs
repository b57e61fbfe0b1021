//! Folds too small to share, under the automatic basesize: a length whose fold took less than a
//! wake-up shared among the threads runs inline, one fold in 16 of it timed there, and a length
//! whose items grew goes back to the pool at its turn.
#![cfg(not(loom))]

use foldex_core::{Executor, ExecutorExt, Job, Partial, RunsInline};
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Forwards to a `ThreadedEx`, noting what `runs_inline` answered and what `ran_inline` heard.
struct Spy<'e> {
    ex: &'e ThreadedEx,
    answers: Mutex<Vec<RunsInline>>,
    reports: Mutex<Vec<(usize, Duration)>>,
}

impl Executor for Spy<'_> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        self.ex.execute(job)
    }
    fn runs_inline(&self, len: usize) -> RunsInline {
        let answer = self.ex.runs_inline(len);
        self.answers.lock().unwrap().push(answer);
        answer
    }
    fn ran_inline(&self, len: usize, took: Duration) {
        self.reports.lock().unwrap().push((len, took));
        self.ex.ran_inline(len, took);
    }
}

#[test]
fn a_small_length_runs_inline_is_timed_at_its_turn_and_goes_back_when_its_items_grow() {
    watchdog("inline lengths", || {
        let ex = ThreadedEx::new().threads(2);
        // On a worker (each worker keeps its own lengths), where a fold of cheap items is
        // learned inline unless the scheduler interrupts it.
        let (fast, grown) = ex.clone().basesize(1).map_reduce(
            0..2usize,
            |_| {
                let slow = AtomicBool::new(false);
                let step = |a: usize, i: usize| {
                    if slow.load(Ordering::Relaxed) {
                        let until = Instant::now() + Duration::from_micros(20);
                        while Instant::now() < until {
                            std::hint::spin_loop();
                        }
                    }
                    a + i
                };
                assert!(ex.is_worker_thread());
                let spy = Spy {
                    ex: &ex,
                    answers: Mutex::default(),
                    reports: Mutex::default(),
                };
                for _ in 0..100 {
                    assert_eq!(spy.fold(0..64usize, || 0, step, |a, b| a + b), 2016);
                }
                let fast = (
                    std::mem::take(&mut *spy.answers.lock().unwrap()),
                    std::mem::take(&mut *spy.reports.lock().unwrap()),
                );
                slow.store(true, Ordering::Relaxed);
                for _ in 0..40 {
                    assert_eq!(spy.fold(0..64usize, || 0, step, |a, b| a + b), 2016);
                }
                let grown = spy.answers.into_inner().unwrap();
                (vec![fast], vec![grown])
            },
            || (Vec::new(), Vec::new()),
            |mut a, b| {
                a.0.extend(b.0);
                a.1.extend(b.1);
                a
            },
        );
        for ((answers, reports), grown) in fast.iter().zip(&grown) {
            let count = |of: RunsInline| answers.iter().filter(|&&a| a == of).count();
            assert!(count(RunsInline::Yes) >= 15, "{answers:?}");
            assert!(count(RunsInline::Timed) >= 1, "{answers:?}");
            // Every timed fold ran to its end, and was reported, with its length.
            assert_eq!(reports.len(), count(RunsInline::Timed));
            assert!(reports.iter().all(|&(len, _)| len == 64));
            // A timed fold that took more than a wake-up shared among the threads forgets its
            // length, and a fold on the pool that slow does not learn it again.
            let first_no = grown
                .iter()
                .position(|&a| a == RunsInline::No)
                .expect("handed back to the pool");
            assert!(first_no <= 16, "{grown:?}");
            assert!(
                grown[first_no..].iter().all(|&a| a == RunsInline::No),
                "{grown:?}"
            );
        }
    });
}

/// A fold that stops early took less than its length costs: it teaches nothing, so a whole fold
/// of that length after it still runs on the pool.
#[test]
fn a_fold_that_stopped_early_does_not_make_its_length_inline() {
    watchdog("a fold stopped early", || {
        let ex = ThreadedEx::new().threads(2);
        let len = 1 << 20;
        for _ in 0..3 {
            let first = ex.try_fold(
                0..len,
                || 0usize,
                |_, i| std::ops::ControlFlow::Break(i),
                |a, _| a,
            );
            assert_eq!(first, std::ops::ControlFlow::Break(0));
        }
        assert_eq!(ex.runs_inline(len), RunsInline::No);
    });
}
