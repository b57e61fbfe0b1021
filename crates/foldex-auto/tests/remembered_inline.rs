//! Folds of a length that `AutoEx` remembers running inline: they allocate nothing (counted
//! with an instrumented global allocator; allocations on every thread of the process count),
//! and they are measured again once their items grow costly. In a test binary of its own, one
//! test at a time: the allocator counts every thread, and the costly folds keep both cores
//! busy, which would upset the timing of other tests.

use foldex_auto::{AutoEx, Choice, MEASURE_EVERY};
use foldex_core::ExecutorExt;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Held by each test: one at a time.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static ONE: Mutex<()> = Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

fn spin(d: Duration) {
    let until = Instant::now() + d;
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

#[test]
fn remembered_inline_folds_allocate_nothing() {
    let _one = one_at_a_time();
    let ex = AutoEx::new();
    let v: Vec<u64> = (0..16).collect();
    let add = |a: u64, b: u64| a + b;
    // Learn the length (a measurement the scheduler interrupts may hand a fold on: then try
    // again), and let the pools that a measurement may start settle.
    for _ in 0..100 {
        assert_eq!(ex.sum::<u64>(&v), 120);
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    // 1000 folds, `MEASURE_EVERY` times over their turn to be measured again (a timed inline
    // fold). A run in which a fold did not run inline (a re-measurement that the scheduler
    // interrupted for a wake-up's time) does not count: a few tries.
    let mut counted = None;
    for _ in 0..5 {
        let region = Region::new(GLOBAL);
        let mut all_inline = true;
        for i in 0..1000 {
            let got = if i % 2 == 0 {
                ex.sum::<u64>(&v)
            } else {
                ex.fold(&v, || 0, |a, &x| a + x, add)
            };
            assert_eq!(got, 120);
            all_inline &= ex.last_choice() == Some(Choice::Inline);
        }
        let change = region.change();
        if all_inline {
            counted = Some(change);
            break;
        }
    }
    let change = counted.expect("a run of 1000 folds that all ran inline");
    assert_eq!(
        (change.allocations, change.reallocations),
        (0, 0),
        "1000 folds of 16 items ({} of them measured again): {change:?}",
        1000 / MEASURE_EVERY
    );
}

#[test]
fn a_shape_that_ran_inline_is_measured_again_once_it_grows() {
    let _one = one_at_a_time();
    let ex = AutoEx::new();
    let items: Vec<usize> = (0..16).collect();
    let cheap = |i: &usize| *i;
    assert_eq!(ex.map_reduce(&items, cheap, || 0, |a, b| a + b), 120);
    // A first fold in a cold process may measure slow and hand the length on: it is measured
    // again within `MEASURE_EVERY` folds.
    let learned = (0..=2 * MEASURE_EVERY).any(|_| {
        ex.map_reduce(&items, cheap, || 0, |a, b| a + b);
        ex.last_choice() == Some(Choice::Inline)
    });
    assert!(learned, "{:?}", ex.last_choice());
    // The same length with items of 50 µs each (800 µs a fold): remembered inline for at most
    // `MEASURE_EVERY` folds, then timed, forgotten, measured anew and handed on (to work
    // stealing, or to the task pool where the scheduler took the core for half the measurement).
    let costly = |i: &usize| {
        spin(Duration::from_micros(50));
        *i
    };
    let every = MEASURE_EVERY as usize;
    let mut choices = Vec::new();
    for _ in 0..2 * every + 2 {
        assert_eq!(ex.map_reduce(&items, costly, || 0, |a, b| a + b), 120);
        choices.push(ex.last_choice());
    }
    let handed_on =
        |c: &Option<Choice>| matches!(c, Some(Choice::Stealing | Choice::Waiting { .. }));
    assert!(
        choices[..every + 2].iter().any(handed_on),
        "measured again and handed on: {choices:?}"
    );
    assert!(handed_on(choices.last().unwrap()), "{choices:?}");
}
