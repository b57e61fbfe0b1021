//! The automatic basesize measures the first items on the caller: a fold too small to be worth
//! a wake-up never leaves the calling thread, a costly one still reaches the workers.

use foldex_core::ExecutorExt;
use foldex_threaded::ThreadedEx;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread::{self, ThreadId};
use std::time::Duration;

fn threads_of(ex: &ThreadedEx, len: usize, item: Duration) -> HashSet<ThreadId> {
    let seen = Mutex::new(HashSet::new());
    ex.for_each(0..len, |_| {
        if !item.is_zero() {
            thread::sleep(item);
        }
        seen.lock().unwrap().insert(thread::current().id());
    });
    seen.into_inner().unwrap()
}

/// Whether every item of a fold of `len` cheap items ran on the calling thread.
fn stayed_on_the_caller(ex: &ThreadedEx, len: usize) -> bool {
    let caller = thread::current().id();
    let elsewhere = AtomicUsize::new(0);
    let sum = ex.map_reduce(
        0..len,
        |i| {
            if thread::current().id() != caller {
                elsewhere.fetch_add(1, Ordering::Relaxed);
            }
            i
        },
        || 0,
        |a, b| a + b,
    );
    assert_eq!(sum, len * len.saturating_sub(1) / 2);
    elsewhere.into_inner() == 0
}

#[test]
fn a_fold_of_a_few_cheap_items_stays_on_the_caller() {
    let ex = ThreadedEx::new().threads(2);
    for len in [1, 2, 8, 64] {
        // A measurement that the scheduler interrupts may hand a fold on: most must stay.
        let stayed = (0..10).filter(|_| stayed_on_the_caller(&ex, len)).count();
        assert!(
            stayed >= 8,
            "len {len}: {stayed} of 10 folds stayed on the caller"
        );
    }
}

#[test]
fn a_costly_fold_reaches_the_workers() {
    let ex = ThreadedEx::new().threads(2);
    let seen = threads_of(&ex, 40, Duration::from_millis(1));
    assert!(seen.len() >= 2, "{seen:?}");
}

#[test]
fn a_fixed_basesize_measures_nothing() {
    let ex = ThreadedEx::new().threads(2).basesize(1);
    // Eight items of 1 ms with a floor of 1: the workers take some, as they always did.
    let seen = threads_of(&ex, 8, Duration::from_millis(1));
    assert!(seen.len() >= 2, "{seen:?}");
}
