//! `reduce_all` with every reducer and tuples of them against separate reductions and
//! `std::iter`, `group_by` with the same reducers, and `with_progress` (counts, totals, reads
//! from another thread while a fold runs, panics), on every executor configuration, over
//! lengths 0, 1, primes and 10^5.

mod common;
use common::executors;

use foldex_core::progress::Progress;
use foldex_core::{Executor, ExecutorExt, Stream};
use foldex_pipeline::reducers::{
    all, any, count, first, fold, last, map, max, max_by, max_by_key, mean, min, min_by,
    min_by_key, product, reduce_with, sum,
};
use foldex_pipeline::{from_stream, IntoPipeline};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::ThreadedEx;
use std::collections::HashMap;
use std::num::Wrapping;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const LENGTHS: [usize; 9] = [0, 1, 2, 3, 7, 31, 97, 1009, 100_000];

/// Runs `check` for every executor of the shared list and every length of [`LENGTHS`].
fn each_case(name: &str, check: impl Fn(&dyn Executor, &[u64], &str)) {
    common::each_case(name, &LENGTHS, 54, check)
}

#[test]
fn reduce_all_matches_separate_reductions_and_std() {
    each_case("reduce_all", |ex, data, what| {
        let pipe = data.pipe().copied();
        let got = pipe.reduce_all(ex, (count(), sum::<u64>(), min(), max()));
        let separate = (
            pipe.count(ex),
            pipe.sum::<u64>(ex),
            pipe.min(ex),
            pipe.max(ex),
        );
        let it = || data.iter().copied();
        let want = (it().count(), it().sum::<u64>(), it().min(), it().max());
        assert_eq!(got, want, "count, sum, min, max: {what}");
        assert_eq!(separate, want, "separately: {what}");

        // Ties: keys repeat (x % 10), so the first least and the last greatest must win.
        let key = |x: &u64| x % 10;
        let got = data.pipe().enumerate().map(|(i, &x)| (i, x)).reduce_all(
            ex,
            (
                min_by_key(|p: &(usize, u64)| key(&p.1)),
                max_by_key(|p: &(usize, u64)| key(&p.1)),
                min_by(|a: &(usize, u64), b: &(usize, u64)| key(&a.1).cmp(&key(&b.1))),
                max_by(|a: &(usize, u64), b: &(usize, u64)| key(&a.1).cmp(&key(&b.1))),
            ),
        );
        let pairs = || data.iter().copied().enumerate();
        let want = (
            pairs().min_by_key(|p| key(&p.1)).map(|p| (key(&p.1), p)),
            pairs().max_by_key(|p| key(&p.1)).map(|p| (key(&p.1), p)),
            pairs().min_by_key(|p| key(&p.1)),
            pairs().max_by_key(|p| key(&p.1)),
        );
        assert_eq!(got, want, "by key, ties: {what}");

        let odd = data.pipe().copied().filter(|x| x % 2 == 1);
        let got = odd.reduce_all(
            ex,
            (
                first(),
                last(),
                any(|x: u64| x > 1000),
                all(|x: u64| x < 1000),
                map(Wrapping, product::<Wrapping<u64>>()),
                map(|x: u64| x as u32, mean()),
            ),
        );
        let odd = || data.iter().copied().filter(|x| x % 2 == 1);
        let n = odd().count();
        let want = (
            odd().next(),
            odd().next_back(),
            odd().any(|x| x > 1000),
            odd().all(|x| x < 1000),
            odd().map(Wrapping).product::<Wrapping<u64>>(),
            (n > 0).then(|| odd().sum::<u64>() as f64 / n as f64),
        );
        assert_eq!(
            (got.0, got.1, got.2, got.3, got.4, got.5.get()),
            want,
            "first, last, any, all, product, mean after filter: {what}"
        );

        // A custom fold (per-piece start, in-place merge) and reduce_with, beside a count:
        // the order of the items is kept.
        // A polynomial hash, associative and order-sensitive: (hash, 31^len) of each part.
        let join = |(h1, p1): (u64, u64), (h2, p2): (u64, u64)| {
            (h1.wrapping_mul(p2).wrapping_add(h2), p1.wrapping_mul(p2))
        };
        let got = data.pipe().copied().reduce_all(
            ex,
            (
                fold(
                    Vec::new,
                    |v: &mut Vec<u64>, x| v.push(x),
                    |a, mut b| a.append(&mut b),
                ),
                map(|x: u64| (x, 31), reduce_with(join)),
                count(),
            ),
        );
        let hash = data.iter().map(|&x| (x, 31)).reduce(join);
        assert_eq!(
            got,
            (data.to_vec(), hash, data.len()),
            "fold, reduce_with: {what}"
        );
    });
}

#[test]
fn eight_reducers_in_one_pass_and_per_group() {
    each_case("eight and group_by", |ex, data, what| {
        let got = data.pipe().copied().reduce_all(
            ex,
            (
                count(),
                sum::<u64>(),
                min(),
                max(),
                first(),
                last(),
                any(|x: u64| x == 7),
                all(|x: u64| x != 7),
            ),
        );
        let it = || data.iter().copied();
        let want = (
            it().count(),
            it().sum::<u64>(),
            it().min(),
            it().max(),
            it().next(),
            it().next_back(),
            it().any(|x| x == 7),
            it().all(|x| x != 7),
        );
        assert_eq!(got, want, "eight: {what}");

        let got = data
            .pipe()
            .copied()
            .group_by(ex, |x| x % 5, (count(), max(), last()));
        let mut want: HashMap<u64, (usize, Option<u64>, Option<u64>)> = HashMap::new();
        for x in it() {
            let e = want.entry(x % 5).or_insert((0, None, None));
            e.0 += 1;
            e.1 = e.1.max(Some(x));
            e.2 = Some(x);
        }
        assert_eq!(got, want, "group_by with a tuple: {what}");
    });
}

#[test]
fn a_panic_in_a_reducer_reaches_the_caller_with_its_payload() {
    watchdog("reducer panics", || {
        for (name, ex) in executors() {
            for at in [0u64, 17, 999] {
                let caught = panic::catch_unwind(AssertUnwindSafe(|| {
                    let boom = fold(
                        || 0u64,
                        |acc: &mut u64, x: u64| {
                            if x == at {
                                panic::panic_any(at);
                            }
                            *acc += x;
                        },
                        |a, b| *a += b,
                    );
                    (0..1000u64).pipe().reduce_all(&*ex, (count(), boom))
                }));
                let payload = caught.expect_err("the fold panics");
                assert_eq!(payload.downcast_ref::<u64>(), Some(&at), "{name}, at {at}");
            }
            let r = (0..1000u64)
                .pipe()
                .reduce_all(&*ex, (count(), sum::<u64>()));
            assert_eq!(r, (1000, 499_500), "{name}: the executor lives on");
        }
    });
}

#[test]
fn progress_ends_at_the_total_on_every_run() {
    each_case("progress totals", |ex, data, what| {
        let n = data.len();
        let progress = Progress::new();
        assert_eq!((progress.done(), progress.total()), (0, None), "{what}");

        let counted = data.pipe().copied().with_progress(&progress);
        assert_eq!(counted.sum::<u64>(ex), data.iter().sum::<u64>(), "{what}");
        assert_eq!(
            (progress.done(), progress.total()),
            (n, Some(n)),
            "sum: {what}"
        );
        // A second run starts afresh.
        let evens = counted.filter(|x| x % 2 == 0).count(ex);
        assert_eq!(evens, data.iter().filter(|x| *x % 2 == 0).count(), "{what}");
        assert_eq!(
            (progress.done(), progress.total()),
            (n, Some(n)),
            "filter: {what}"
        );
        // Collected in place, and folded by the core API over a tracked source.
        let v: Vec<u64> = data.pipe().with_progress(&progress).copied().collect(ex);
        assert_eq!(
            (v.as_slice(), progress.done()),
            (data, n),
            "collect: {what}"
        );
        let total = ex.fold(progress.track(data), || 0u64, |a, x| a + x, |a, b| a + b);
        assert_eq!(total, data.iter().sum::<u64>(), "{what}");
        assert_eq!(
            (progress.done(), progress.total()),
            (n, Some(n)),
            "core fold: {what}"
        );
        assert_eq!(progress.fraction(), Some(1.0), "{what}");

        // An early stop counts what was folded, no more than the total.
        if n > 0 {
            let stop = data[n / 2];
            let found = data
                .pipe()
                .with_progress(&progress)
                .position_first(ex, |&x| x == stop);
            assert_eq!(found, data.iter().position(|&x| x == stop), "{what}");
            assert!(progress.done() <= n, "early stop: {what}");
            assert!(progress.done() > found.unwrap(), "early stop: {what}");
        }

        // A stream: the items pulled, no total.
        let streamed = from_stream(Stream::new(data.iter().copied())).with_progress(&progress);
        assert_eq!(streamed.count(ex), n, "{what}");
        assert_eq!(
            (progress.done(), progress.total()),
            (n, None),
            "stream: {what}"
        );
    });
}

#[test]
fn progress_read_during_a_slow_fold_rises_to_the_total() {
    watchdog("progress while running", || {
        let n = 600usize;
        let runs: Vec<(&str, Box<dyn Executor>)> = vec![
            ("SequentialEx", Box::new(SequentialEx)),
            (
                "ThreadedEx(2, 7)",
                Box::new(ThreadedEx::new().threads(2).basesize(7)),
            ),
            (
                "TaskPoolEx(3, 1)",
                Box::new(TaskPoolEx::new().ntasks(3).basesize(1)),
            ),
        ];
        for (name, ex) in runs {
            let progress = Progress::new();
            let finished = AtomicBool::new(false);
            let seen = std::thread::scope(|s| {
                let watcher = s.spawn(|| {
                    let mut seen = vec![progress.done()];
                    while !finished.load(Ordering::Acquire) {
                        std::thread::sleep(Duration::from_micros(500));
                        seen.push(progress.done());
                    }
                    seen
                });
                let sum = (0..n)
                    .pipe()
                    .with_progress(&progress)
                    .map(|x| {
                        std::thread::sleep(Duration::from_micros(300));
                        x
                    })
                    .sum::<usize>(&*ex);
                assert_eq!(sum, n * (n - 1) / 2, "{name}");
                assert_eq!(progress.done(), n, "{name}: done when the fold returns");
                finished.store(true, Ordering::Release);
                watcher.join().unwrap()
            });
            assert!(
                seen.windows(2).all(|w| w[0] <= w[1]),
                "{name}: monotone: {seen:?}"
            );
            assert!(seen.iter().all(|&d| d <= n), "{name}: within the total");
            assert!(
                seen.iter().any(|&d| 0 < d && d < n),
                "{name}: intermediate values seen: {seen:?}"
            );
        }
        // A fold that can stop early (items taken one by one) counts as it goes too.
        let progress = Progress::new();
        let finished = AtomicBool::new(false);
        let seen = std::thread::scope(|s| {
            let watcher = s.spawn(|| {
                let mut seen = vec![progress.done()];
                while !finished.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_micros(500));
                    seen.push(progress.done());
                }
                seen
            });
            let found = (0..n)
                .pipe()
                .with_progress(&progress)
                .any(&SequentialEx, |x| {
                    std::thread::sleep(Duration::from_micros(300));
                    x == n - 100
                });
            assert!(found);
            assert_eq!(
                progress.done(),
                n - 99,
                "any: the items folded, up to the hit"
            );
            finished.store(true, Ordering::Release);
            watcher.join().unwrap()
        });
        assert!(
            seen.windows(2).all(|w| w[0] <= w[1]),
            "any: monotone: {seen:?}"
        );
        assert!(
            seen.iter().any(|&d| 0 < d && d < n - 99),
            "any: intermediate values: {seen:?}"
        );
    });
}

#[test]
fn a_panic_with_progress_reaches_the_caller_and_the_next_run_counts_afresh() {
    watchdog("progress panics", || {
        for (name, ex) in executors() {
            let progress = Progress::new();
            let pipe = (0..10_000usize).pipe().with_progress(&progress);
            let caught = panic::catch_unwind(AssertUnwindSafe(|| {
                pipe.for_each(&*ex, |x| {
                    if x == 4321 {
                        panic::panic_any("at 4321");
                    }
                })
            }));
            let payload = caught.expect_err("the fold panics");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"at 4321"), "{name}");
            assert!(progress.done() <= 10_000, "{name}");
            assert_eq!(pipe.count(&*ex), 10_000, "{name}");
            assert_eq!(progress.done(), 10_000, "{name}");
        }
    });
}

#[cfg(feature = "indicatif")]
#[test]
fn a_bar_driven_by_progress_ends_at_the_total() {
    let progress = Progress::new();
    let bar = foldex_core::progress::indicatif::ProgressBar::hidden();
    let ex = ThreadedEx::new().threads(2);
    let sum = progress.drive_bar(&bar, || {
        (0..100_000u64)
            .pipe()
            .with_progress(&progress)
            .sum::<u64>(&ex)
    });
    assert_eq!(sum, 4_999_950_000);
    assert_eq!((bar.position(), bar.length()), (100_000, Some(100_000)));
    // A panic in the run reaches the caller; the watching thread is gone.
    let caught = panic::catch_unwind(AssertUnwindSafe(|| {
        progress.drive_bar(&bar, || panic::panic_any(7u8))
    }));
    assert_eq!(caught.unwrap_err().downcast_ref::<u8>(), Some(&7));
}
