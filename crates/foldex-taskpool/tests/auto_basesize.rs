//! The automatic basesize in foreground mode measures the first items on the caller: a fold too
//! small to be worth a wake-up never leaves the calling thread; background mode keeps the
//! caller free whatever the fold.

use foldex_core::ExecutorExt;
use foldex_taskpool::TaskPoolEx;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

/// How many of `len` items ran off the calling thread.
fn off_the_caller(ex: &TaskPoolEx, len: usize, item: Duration) -> usize {
    let caller = thread::current().id();
    let elsewhere = AtomicUsize::new(0);
    ex.for_each(0..len, |_| {
        if !item.is_zero() {
            thread::sleep(item);
        }
        if thread::current().id() != caller {
            elsewhere.fetch_add(1, Ordering::Relaxed);
        }
    });
    elsewhere.into_inner()
}

#[test]
fn a_fold_of_a_few_cheap_items_stays_on_the_caller() {
    let ex = TaskPoolEx::new().ntasks(2);
    for len in [1, 2, 8, 64] {
        // A measurement that the scheduler interrupts may hand a fold on: most must stay.
        let stayed = (0..10)
            .filter(|_| off_the_caller(&ex, len, Duration::ZERO) == 0)
            .count();
        assert!(
            stayed >= 8,
            "len {len}: {stayed} of 10 folds stayed on the caller"
        );
    }
}

#[test]
fn a_costly_fold_reaches_the_workers() {
    let ex = TaskPoolEx::new().ntasks(2);
    assert!(off_the_caller(&ex, 40, Duration::from_millis(1)) > 0);
}

#[test]
fn background_mode_never_runs_on_the_caller() {
    let ex = TaskPoolEx::new().ntasks(2).background(true);
    assert_eq!(off_the_caller(&ex, 8, Duration::ZERO), 8);
}
