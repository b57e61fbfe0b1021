//! rayon's `tests/sort-panic-safe.rs`: a comparator that panics after `k` comparisons, `k`
//! stepping through a whole sort, leaves every element in the slice exactly once (each dropped
//! once), in its latest version, for `par_sort_by` and `par_sort_unstable_by`.
//!
//! rayon draws its inputs from an unseeded `rand::rng()`; here a seeded splitmix64. rayon
//! sorts on its global pool, in a spawned thread; here each case runs under `catch_unwind` on
//! every executor of `executors()` up to length 500, and on one of them, taken in turn from
//! case to case, for the lengths 5 000 and 20 000 (each executor still sorts some of those),
//! so that the test stays cheap in a debug build.

use super::*;
use foldex_pipeline::sort::ParallelSort;
use std::cell::Cell;
use std::cmp::Ordering;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;

const LEN: usize = 20_000;

static VERSIONS: AtomicUsize = AtomicUsize::new(0);

static DROP_COUNTS: [AtomicUsize; LEN] = [const { AtomicUsize::new(0) }; LEN];

#[derive(Clone, Eq)]
struct DropCounter {
    x: u32,
    id: usize,
    version: Cell<usize>,
}

impl PartialEq for DropCounter {
    fn eq(&self, other: &Self) -> bool {
        self.partial_cmp(other) == Some(Ordering::Equal)
    }
}

#[allow(clippy::non_canonical_partial_ord_impl)]
impl PartialOrd for DropCounter {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.version.set(self.version.get() + 1);
        other.version.set(other.version.get() + 1);
        VERSIONS.fetch_add(2, Relaxed);
        self.x.partial_cmp(&other.x)
    }
}

impl Ord for DropCounter {
    fn cmp(&self, other: &Self) -> Ordering {
        self.partial_cmp(other).unwrap()
    }
}

impl Drop for DropCounter {
    fn drop(&mut self) {
        DROP_COUNTS[self.id].fetch_add(1, Relaxed);
        VERSIONS.fetch_sub(self.version.get(), Relaxed);
    }
}

thread_local!(static SILENCE_PANIC: Cell<bool> = const { Cell::new(false) });

/// A sort of a slice on an executor with a comparator: `par_sort_by` or `par_sort_unstable_by`.
type Sort =
    fn(&mut [DropCounter], &dyn Executor, &(dyn Fn(&DropCounter, &DropCounter) -> Ordering + Sync));

/// Sorts `input` with `sort` (a whole sort first, to count its comparisons), then again and
/// again with a comparator that panics after fewer and fewer comparisons, checking the drops
/// and versions after each.
fn test(input: &[DropCounter], ex: &dyn Executor, what: &str, sort: Sort) {
    let len = input.len();

    // The number of comparisons a whole sort makes ...
    let count = AtomicUsize::new(0);
    sort(&mut input.to_owned(), ex, &|a, b| {
        count.fetch_add(1, Relaxed);
        a.cmp(b)
    });

    let mut panic_countdown = count.load(Relaxed);
    let step = if len <= 100 {
        1
    } else {
        Ord::max(1, panic_countdown / 10)
    };

    // ... and then a panic after each `step` comparisons.
    loop {
        VERSIONS.store(0, Relaxed);
        for c in DROP_COUNTS.iter().take(len) {
            c.store(0, Relaxed);
        }

        let v = input.to_owned();
        let countdown = AtomicUsize::new(panic_countdown);
        let _ = panic::catch_unwind(AssertUnwindSafe(move || {
            let mut v = v;
            sort(&mut v, ex, &|a, b| {
                if countdown.fetch_sub(1, Relaxed) == 1 {
                    SILENCE_PANIC.set(true);
                    panic!();
                }
                a.cmp(b)
            })
        }));

        // Exactly the contents of `v` were dropped ...
        for (i, c) in DROP_COUNTS.iter().enumerate().take(len) {
            let count = c.load(Relaxed);
            assert!(
                count == 1,
                "found drop count == {count} for i == {i}, len == {len}: {what}"
            );
        }

        // ... in their most recent versions.
        assert_eq!(VERSIONS.load(Relaxed), 0, "len == {len}: {what}");

        if panic_countdown < step {
            break;
        }
        panic_countdown -= step;
    }
}

#[test]
fn sort_panic_safe() {
    let prev = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !SILENCE_PANIC.get() {
            prev(info);
        }
    }));

    let executors = executors();
    let mut case = 0;
    let mut random = seeded_i32s(1 << 20).into_iter().map(|x| x as u32).cycle();
    for &len in &[1, 2, 3, 4, 5, 10, 20, 100, 500, 5_000, 20_000] {
        watchdog(&format!("sort_panic_safe, len {len}"), || {
            for &modulus in &[5, 30, 1_000, 20_000] {
                for &has_runs in &[false, true] {
                    let mut input = (0..len)
                        .map(|id| DropCounter {
                            x: random.next().unwrap() % modulus,
                            id,
                            version: Cell::new(0),
                        })
                        .collect::<Vec<_>>();

                    if has_runs {
                        for c in &mut input {
                            c.x = c.id as u32;
                        }
                        for _ in 0..5 {
                            let a = random.next().unwrap() as usize % len;
                            let b = random.next().unwrap() as usize % len;
                            if a < b {
                                input[a..b].reverse();
                            } else {
                                input.swap(a, b);
                            }
                        }
                    }

                    // Every executor for the short lengths; for the long ones, one executor
                    // per case, taken in turn.
                    let chosen: Vec<_> = if len <= 500 {
                        executors.iter().collect()
                    } else {
                        case += 1;
                        vec![&executors[case % executors.len()]]
                    };
                    for (ex_name, ex) in chosen {
                        let what = format!("sort_panic_safe on {ex_name}");
                        test(
                            &input,
                            &**ex,
                            &format!("par_sort_by, {what}"),
                            |v, ex, f| v.par_sort_by(ex, f),
                        );
                        test(
                            &input,
                            &**ex,
                            &format!("par_sort_unstable_by, {what}"),
                            |v, ex, f| v.par_sort_unstable_by(ex, f),
                        );
                    }
                }
            }
        });
    }
}
