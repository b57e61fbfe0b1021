//! Loom models of the pool: queueing slots, workers sleeping and waking, the shared cursor,
//! taking slots back once the cursor runs out, and shutting the threads down.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p foldex-taskpool --release --test loom`.
#![cfg(loom)]

use foldex_core::{Executor, ExecutorExt};
use foldex_taskpool::TaskPoolEx;

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
