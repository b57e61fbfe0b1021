//! Breaking out of an epoch early: the drop is prompt, little work happens after it, and no
//! thread is left behind. One test per file: it counts the process's threads.

mod common;

use foldex_core::{Executor, ExecutorExt};
use foldex_dataset::from_fn;
use foldex_loader::Loader;
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const N: usize = 1_000_000;

fn settle_to(expected: usize) -> usize {
    // A joined thread may linger in /proc for a moment after `join` returns.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = common::thread_count();
        if now == expected || Instant::now() > deadline {
            return now;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The thread count once threads that just finished have left /proc.
fn stable_thread_count() -> usize {
    let mut last = common::thread_count();
    loop {
        std::thread::sleep(Duration::from_millis(20));
        let now = common::thread_count();
        if now == last {
            return now;
        }
        last = now;
    }
}

fn break_after_ten(name: &str, executor: Arc<dyn Executor>, ordered: bool) {
    // Start the executor's threads before counting.
    executor.for_each(0..64, |_| {});
    let computed = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&computed);
    let loader = Loader::new(
        from_fn(N, move |i| {
            std::thread::sleep(Duration::from_millis(1));
            counter.fetch_add(1, Ordering::Relaxed);
            i
        }),
        Arc::clone(&executor),
    )
    .ordered(ordered);
    let before = stable_thread_count();
    let mut iter = loader.iter();
    assert_eq!(iter.len(), N);
    let mut taken = 0;
    for _batch in iter.by_ref() {
        taken += 1;
        if taken == 10 {
            break;
        }
    }
    let stopped_at = computed.load(Ordering::Relaxed);
    let start = Instant::now();
    drop(iter);
    let drop_time = start.elapsed();
    let after_drop = computed.load(Ordering::Relaxed);
    std::thread::sleep(Duration::from_millis(50));
    let finally = computed.load(Ordering::Relaxed);
    let threads_after = settle_to(before);
    println!(
        "{name} (ordered {ordered}): drop took {drop_time:?}; {stopped_at} items computed at the \
         break, {finally} in all; threads {before} -> {threads_after}"
    );
    assert!(
        drop_time < Duration::from_secs(1),
        "{name}: drop took {drop_time:?}"
    );
    assert_eq!(
        after_drop, finally,
        "{name}: work went on after the drop returned"
    );
    // Computed after the consumer stopped: at most the buffer plus the items in progress
    // (one per worker, and one for the driver thread, which some executors let help), plus the
    // one a helping consumer may keep beside the buffer.
    let bound = 10 + loader.buffer_size() + executor.workers() + 2;
    assert!(
        finally <= bound,
        "{name}: {finally} items computed, bound {bound}"
    );
    assert_eq!(threads_after, before, "{name}: a thread was left behind");
}

#[test]
fn break_returns_promptly_and_leaves_no_thread_behind() {
    watchdog("early exit", || {
        let executors: Vec<(&str, Arc<dyn Executor>)> = vec![
            (
                "ThreadedEx (default)",
                Arc::new(ThreadedEx::new().basesize(1)),
            ),
            (
                "ThreadedEx 4 threads",
                Arc::new(ThreadedEx::new().threads(4).basesize(1)),
            ),
            (
                "TaskPoolEx",
                Arc::new(TaskPoolEx::new().ntasks(4).basesize(1)),
            ),
            (
                "TaskPoolEx background",
                Arc::new(TaskPoolEx::new().ntasks(4).basesize(1).background(true)),
            ),
            ("SequentialEx", Arc::new(SequentialEx)),
            ("BackwardsEx", Arc::new(common::BackwardsEx)),
        ];
        for (name, executor) in executors {
            for ordered in [true, false] {
                break_after_ten(name, Arc::clone(&executor), ordered);
            }
        }
    });
}
