//! `with_min_len` / `with_max_len`: the pieces a pipeline's reduction runs in keep the bounds on
//! every executor, after index-preserving adapters too, min wins a conflict, and
//! `with_max_len(1)` spreads a few expensive items over a pool whose basesize is automatic.

mod common;

use foldex_auto::AutoEx;
use foldex_core::Executor;
use foldex_pipeline::IntoPipeline;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::time::{Duration, Instant};

/// Every executor of the shared list, and `AutoEx`.
fn all_executors() -> Vec<(String, Box<dyn Executor>)> {
    let mut all = common::executors();
    all.push(("AutoEx".into(), Box::new(AutoEx::new())));
    all
}

/// The lengths of the pieces `0..len` runs in, with `min` / `max` set (0: not set), after a
/// `map`, a `zip` and an `enumerate`.
fn piece_lens(ex: &dyn Executor, len: usize, min: usize, max: usize) -> Vec<usize> {
    let other: Vec<usize> = (0..len).collect();
    (0..len)
        .pipe()
        .with_min_len(min)
        .with_max_len(if max == 0 { usize::MAX } else { max })
        .map(|x| x * 2)
        .zip(&other)
        .enumerate()
        .fold_pieces(|| 0, |n, _| n + 1)
        .collect(ex)
}

#[test]
fn bounds_hold_on_every_executor_after_adapters() {
    watchdog("bounds_hold_on_every_executor_after_adapters", || {
        // Seeded: lengths, mins and maxes from a fixed linear congruential sequence.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |below: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 33) % below) as usize
        };
        let cases: Vec<(usize, usize, usize)> =
            (0..24).map(|_| (next(3000), next(40), next(40))).collect();
        for (name, ex) in &all_executors() {
            for &(len, min, max) in &cases {
                let lens = piece_lens(&**ex, len, min, max);
                let what = format!("{name}: len {len}, min {min}, max {max}: {lens:?}");
                assert_eq!(lens.iter().sum::<usize>(), len, "{what}");
                let min = min.max(1);
                let max = if max == 0 {
                    usize::MAX
                } else {
                    max.max(2 * min - 1)
                };
                assert!(
                    lens.iter()
                        .all(|&n| n <= max && (n >= min || lens.len() == 1)),
                    "{what}"
                );
            }
        }
    });
}

/// rayon's rule: min wins. `with_min_len(3).with_max_len(4)` keeps a range of 5 whole (a
/// split would leave a half of 2), on every executor.
#[test]
fn min_wins_a_conflict() {
    watchdog("min_wins_a_conflict", || {
        for (name, ex) in &all_executors() {
            let lens: Vec<usize> = (0..5)
                .pipe()
                .with_min_len(3)
                .with_max_len(4)
                .fold_pieces(|| 0, |n, _| n + 1)
                .collect(&**ex);
            assert_eq!(lens, [5], "{name}");
            let lens: Vec<usize> = (0..100)
                .pipe()
                .with_max_len(2)
                .with_min_len(10)
                .fold_pieces(|| 0, |n, _| n + 1)
                .collect(&**ex);
            assert!(
                lens.iter().all(|&n| (10..20).contains(&n)),
                "{name}: {lens:?}"
            );
        }
    });
}

#[test]
fn zero_max_is_refused_naming_the_setting_and_zero_min_is_no_bound() {
    let refused = std::panic::catch_unwind(|| (0..10).pipe().with_max_len(0));
    let message = refused.expect_err("with_max_len(0) is refused");
    assert_eq!(
        message.downcast_ref::<String>().map(String::as_str),
        Some("with_max_len must be at least 1, got 0")
    );
    let one: Vec<usize> = (0..10)
        .pipe()
        .with_min_len(0)
        .fold_pieces(|| 0, |n, _| n + 1)
        .collect(&foldex_seq::SequentialEx);
    assert_eq!(one, [10]);
}

/// Four items of 50 ms among 64 on two threads with the automatic basesize: the first leaf
/// (8 items) holds all four, one thread's 200 ms; `with_max_len(1)` splits them apart, so both
/// threads sleep through two each, in about 100 ms. Sleeps, not spins: the figure does not
/// depend on how busy the machine's cores are. The best of three runs is checked.
#[test]
fn with_max_len_one_spreads_a_few_expensive_items() {
    watchdog("with_max_len_one_spreads_a_few_expensive_items", || {
        let ex = ThreadedEx::new().threads(2);
        let cost = |i: usize| {
            if i < 4 {
                std::thread::sleep(Duration::from_millis(50));
            }
            i
        };
        let best = |max_len: Option<usize>| {
            (0..3)
                .map(|_| {
                    let started = Instant::now();
                    let sum: usize = match max_len {
                        Some(max) => (0..64usize).pipe().with_max_len(max).map(cost).sum(&ex),
                        None => (0..64usize).pipe().map(cost).sum(&ex),
                    };
                    assert_eq!(sum, 64 * 63 / 2);
                    started.elapsed()
                })
                .min()
                .unwrap()
        };
        let bounded = best(Some(1));
        let unbounded = best(None);
        assert!(
            bounded < Duration::from_millis(150),
            "with_max_len(1): {bounded:?} (without: {unbounded:?}), 4 × 50 ms on 2 threads"
        );
        // The figures, shown with `--nocapture`.
        eprintln!("4 x 50 ms of 64 items, ThreadedEx(2, auto): with_max_len(1) {bounded:?}, without {unbounded:?}");
    });
}
