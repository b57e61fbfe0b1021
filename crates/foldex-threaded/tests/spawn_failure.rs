//! A pool whose workers cannot all start. Each test runs its body in a child process whose
//! address space is capped so that the operating system refuses worker threads once some have
//! started (the harness: [`foldex_testkit::spawn_failure`]).
#![cfg(target_os = "linux")]
#![forbid(unsafe_code)]

use foldex_core::ExecutorExt;
use foldex_testkit::spawn_failure::{
    assert_no_pool_thread_left, in_child, panic_under_cap, AddressSpaceCap,
};
use foldex_threaded::{Pool, ThreadedEx};

/// The prefix of the pool's thread names.
const POOL: &str = "foldex-threaded";
/// More workers than fit under the cap.
const THREADS: usize = 1000;

#[test]
fn try_new_joins_the_started_workers_and_names_the_setting() {
    in_child(
        "try_new_joins_the_started_workers_and_names_the_setting",
        || {
            let cap = AddressSpaceCap::set();
            let result = Pool::try_new(THREADS);
            drop(cap);
            let err = result.expect_err("a pool of 1000 threads started under the cap");
            assert_no_pool_thread_left(POOL);
            let worker = err.worker().expect("a worker that could not start");
            // Some workers had started: those are the ones that must not be left behind.
            assert!((1..THREADS).contains(&worker), "{err}");
            assert_eq!(err.setting(), "threads");
            let os = err.os_error().expect("the operating system's error");
            assert_eq!(
                err.to_string(),
                format!(
                    "foldex-threaded: could not start worker {worker} of {THREADS} \
                     (threads = {THREADS}): {os}"
                )
            );
            // Nothing is left half-made: a pool that fits starts and works.
            let pool = Pool::try_new(2).expect("a pool of 2");
            let ex = ThreadedEx::new().pool(pool).basesize(10);
            assert_eq!(ex.sum::<usize>(0..1000), 499_500);
        },
    );
}

#[test]
fn pool_new_panics_with_the_setting_once_the_started_workers_are_joined() {
    in_child(
        "pool_new_panics_with_the_setting_once_the_started_workers_are_joined",
        || {
            let message = panic_under_cap(|| Pool::new(THREADS));
            assert_no_pool_thread_left(POOL);
            assert!(
                message.starts_with("foldex-threaded: could not start worker ")
                    && message.contains(&format!(" of {THREADS} (threads = {THREADS}): ")),
                "{message}"
            );
        },
    );
}

#[test]
fn threaded_ex_threads_panics_with_the_setting_once_the_started_workers_are_joined() {
    in_child(
        "threaded_ex_threads_panics_with_the_setting_once_the_started_workers_are_joined",
        || {
            let message = panic_under_cap(|| ThreadedEx::new().threads(THREADS));
            assert_no_pool_thread_left(POOL);
            assert!(
                message.contains(&format!(" of {THREADS} (threads = {THREADS}): ")),
                "{message}"
            );
        },
    );
}
