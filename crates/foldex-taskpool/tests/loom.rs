//! Loom models of the pool: queueing lanes, workers sleeping and waking, the shared cursor,
//! taking lanes back once the cursor runs out, a caller that stands in for a helper, and
//! shutting the threads down.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p foldex-taskpool --release --test loom`.
#![cfg(loom)]

use foldex_core::exec::StandIn;
use foldex_core::{Executor, ExecutorExt, Job, Partial};
use foldex_taskpool::TaskPoolEx;

/// Calls `execute` as a loader's driver does: the caller stands in for a helper.
struct AsDriver<'p>(&'p TaskPoolEx);

impl Executor for AsDriver<'_> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        self.0.execute(&StandIn(job))
    }
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(f);
}

#[test]
fn background_fold_on_two_workers() {
    model(|| {
        let pool = TaskPoolEx::new().ntasks(2).basesize(1).background(true);
        assert_eq!(pool.collect_vec(0..3), vec![0, 1, 2]);
        drop(pool); // joins both workers
    });
}

#[test]
fn caller_and_one_worker_share_the_cursor() {
    model(|| {
        let pool = TaskPoolEx::new().ntasks(2).basesize(1).background(false);
        assert_eq!(pool.collect_vec(0..3), vec![0, 1, 2]);
    });
}

#[test]
fn a_helper_and_the_pool_finish_a_fold_together() {
    model(|| {
        let pool = TaskPoolEx::new().ntasks(2).basesize(1);
        let helper = pool.clone();
        let t = loom::thread::spawn(move || {
            let _ = helper.help();
        });
        assert_eq!(pool.sum::<usize>(0..3), 3);
        t.join().unwrap();
    });
}

#[test]
fn a_standing_in_caller_waits_while_a_worker_and_a_helper_share_the_cursor() {
    model(|| {
        let pool = TaskPoolEx::new().ntasks(2).basesize(1);
        let helper = pool.clone();
        let t = loom::thread::spawn(move || {
            let _ = helper.help();
        });
        let caller = loom::thread::current().id();
        let on_caller = std::sync::atomic::AtomicUsize::new(0);
        let sum = AsDriver(&pool).map_reduce(
            0..3,
            |i| {
                if loom::thread::current().id() == caller {
                    on_caller.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                i
            },
            || 0,
            |a, b| a + b,
        );
        assert_eq!(sum, 3);
        assert_eq!(on_caller.into_inner(), 0);
        t.join().unwrap();
    });
}

#[test]
fn a_standing_in_caller_that_nobody_helps_still_finishes() {
    model(|| {
        // The worker's lane runs every chunk and takes back the lane left for a helper.
        let pool = TaskPoolEx::new().ntasks(2).basesize(1);
        let got = AsDriver(&pool).collect_vec(0..2);
        assert_eq!(got, vec![0, 1]);
    });
}
