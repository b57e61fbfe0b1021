//! A `TaskPoolEx` whose workers cannot all start (its pool starts with the first fold). Each
//! test runs its body in a child process whose address space is capped so that the operating
//! system refuses worker threads once some have started (the harness:
//! [`foldex_testkit::spawn_failure`]).
#![cfg(target_os = "linux")]
#![forbid(unsafe_code)]

use foldex_core::ExecutorExt;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::spawn_failure::{
    assert_no_pool_thread_left, in_child, panic_under_cap, wait_for_pool_threads,
};

/// The prefix of the pool's thread names.
const POOL: &str = "foldex-taskpool";
/// More workers than fit under the cap.
const NTASKS: usize = 400;

#[test]
fn a_pool_that_cannot_start_joins_its_workers_panics_on_the_fold_and_can_start_later() {
    in_child(
        "a_pool_that_cannot_start_joins_its_workers_panics_on_the_fold_and_can_start_later",
        || {
            let ex = TaskPoolEx::new().ntasks(NTASKS).basesize(1);
            // Every fold tries to start the pool again, and fails the same way: nothing is
            // left half-started in between.
            for _ in 0..2 {
                let message = panic_under_cap(|| ex.sum::<usize>(0..10_000));
                assert_no_pool_thread_left(POOL);
                let worker: usize = message
                    .strip_prefix("foldex-taskpool: could not start worker ")
                    .and_then(|rest| rest.split(' ').next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("no worker index in {message:?}"));
                // Some workers had started: those are the ones that must not be left behind.
                assert!((1..NTASKS).contains(&worker), "{message}");
                assert!(
                    message.contains(&format!(" of {NTASKS} (ntasks = {NTASKS}): ")),
                    "{message}"
                );
            }
            // Once threads can start, the same executor starts its pool and folds.
            assert_eq!(ex.sum::<usize>(0..10_000), 49_995_000);
            wait_for_pool_threads(POOL, NTASKS);
            drop(ex);
            assert_no_pool_thread_left(POOL);
        },
    );
}
