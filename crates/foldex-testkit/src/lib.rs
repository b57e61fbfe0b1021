//! The conformance suite: the semantics every foldex executor must give, as property tests.
//!
//! Run it over your own executor with one line in a test file; each property becomes its own
//! `#[test]`:
//!
//! ```
//! use foldex_core::{Executor, Job, Partial};
//!
//! /// Runs the whole job on the calling thread.
//! struct Inline;
//! impl Executor for Inline {
//!     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
//!         job.run(0..job.len())
//!     }
//! }
//!
//! // In a test file: `foldex_testkit::conformance_tests!(|_basesize| Inline);`
//! // Or call the checks directly:
//! foldex_testkit::check_order(|_basesize| Inline);
//! ```
//!
//! The factory receives the [`Basesize`] to test with, so that the suite covers many leaf sizes;
//! executors without a basesize ignore it. Every check runs under a watchdog that aborts the
//! process with a message if the executor hangs (a generous bound, never a timing assertion).
//! The number of cases per property is proptest's (`PROPTEST_CASES`, default 32 here).
//!
//! [`check_reducer`] checks a user's own reduction (an identity and an associative `combine`)
//! across leaf sizes and combine trees. [`check_pipelines`] runs every pipeline adapter, transform and reduction on the executor
//! against `std::iter`, [`check_streams`] every fold over a `Stream`, and
//! [`check_compositions`] random chains of stages (stateful ones stacked, panics anywhere)
//! against `std::iter` (all part of [`conformance_tests!`]).
//!
//! [`check_piece_len`] checks that the pieces a fold runs in keep within the bounds the fold
//! sets on their lengths (a pipeline's `with_min_len` / `with_max_len`).
//!
//! [`check_join`] checks `ExecutorExt::join`: uneven trees of nested joins, panics by position,
//! nesting with folds, borrowing.
//!
//! [`check_roles`] checks the callers' roles of the protocol: folds called by a thread that
//! stands in for a helper ([`AsDriver`]), and pieces run inside `help`.
//!
//! [`ThroughBytes`] sends every partial through the job's codec, as between processes.
//!
//! [`InlineUpTo`] runs short folds inline (`Executor::runs_inline`), some of them timed, and
//! longer ones through another executor's `execute`, so that one run of the suite covers every
//! path of the typed layer.
//!
//! On Linux, [`spawn_failure`] is a harness for testing a pool whose workers cannot all start.
#![forbid(unsafe_code)]

pub mod compositions;
pub mod env;
mod inline;
mod join;
mod piece_len;
pub mod pipelines;
mod reducer;
mod roles;
#[cfg(target_os = "linux")]
pub mod spawn_failure;
pub mod streams;
mod through_bytes;

pub use compositions::check_compositions;
pub use inline::InlineUpTo;
pub use join::check_join;
pub use piece_len::check_piece_len;
pub use pipelines::check_pipelines;
pub use reducer::check_reducer;
pub use roles::{check_roles, AsDriver};
pub use streams::check_streams;
pub use through_bytes::ThroughBytes;

use foldex_core::{Basesize, Executor, ExecutorExt};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::ops::ControlFlow::{self, Break, Continue};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// How long one check may run before the watchdog declares a hang.
pub const WATCHDOG: Duration = Duration::from_secs(120);

/// Runs `body`; if it has not returned after [`WATCHDOG`], prints `what` and aborts the process,
/// so that a hang fails the test run instead of stalling it.
pub fn watchdog<R>(what: &str, body: impl FnOnce() -> R) -> R {
    let (done, finished) = mpsc::channel::<()>();
    let what = what.to_owned();
    std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(WATCHDOG) {
            eprintln!("foldex conformance: `{what}` did not finish within {WATCHDOG:?}: a hang");
            std::process::abort();
        }
    });
    let result = body();
    drop(done);
    result
}

fn runner() -> TestRunner {
    let cases = env::cases("PROPTEST_CASES", 32);
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Basesizes worth testing: auto, the smallest ones, odd ones, and large ones.
pub fn basesizes() -> impl Strategy<Value = Basesize> {
    prop_oneof![
        Just(Basesize::Auto),
        (1usize..=8).prop_map(|b| Basesize::fixed(b).expect("nonzero")),
        (9usize..=3000).prop_map(|b| Basesize::fixed(b).expect("nonzero")),
    ]
}

fn run_property<T: std::fmt::Debug>(
    name: &str,
    strategy: impl Strategy<Value = T>,
    test: impl Fn(T) -> Result<(), TestCaseError>,
) {
    watchdog(name, || {
        if let Err(e) = runner().run(&strategy, test) {
            panic!("conformance property `{name}` failed: {e}");
        }
    });
}

/// Order: a fold whose `combine` is associative but not commutative (concatenation) equals the
/// sequential fold, for lengths `0..=2000` and many basesizes.
pub fn check_order<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_order_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_order`] through `&dyn Executor`, compiled once.
fn check_order_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    run_property("order", (0usize..=2000, basesizes()), |(len, bs)| {
        let ex = make(bs);
        let got = ex.fold(
            0..len,
            Vec::new,
            |mut v, i| {
                v.push(i);
                v
            },
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        );
        prop_assert_eq!(got, (0..len).collect::<Vec<_>>());
        let words: Vec<String> = (0..len).map(|i| format!("{i},")).collect();
        let joined = ex.fold(&words, String::new, |s, w| s + w, |a, b| a + &b);
        prop_assert_eq!(joined, words.concat());
        Ok(())
    });
}

/// Exactly once: every index is visited once, no more, no fewer.
pub fn check_exactly_once<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_exactly_once_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_exactly_once`] through `&dyn Executor`, compiled once.
fn check_exactly_once_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    run_property("exactly once", (0usize..=2000, basesizes()), |(len, bs)| {
        let ex = make(bs);
        let visits: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
        ex.for_each(0..len, |i| {
            visits[i].fetch_add(1, Ordering::Relaxed);
        });
        for (i, v) in visits.iter().enumerate() {
            prop_assert_eq!(v.load(Ordering::Relaxed), 1, "index {} of {}", i, len);
        }
        Ok(())
    });
}

/// Early termination: `try_fold` returns exactly what a sequential `try_fold` returns, for a
/// `Break` at a random index (or none).
pub fn check_try_fold<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_try_fold_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_try_fold`] through `&dyn Executor`, compiled once.
fn check_try_fold_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (0usize..=2000, 0usize..=2100, basesizes());
    run_property("try_fold", cases, |(len, stop, bs)| {
        let ex = make(bs);
        let step = |mut acc: Vec<usize>, i: usize| {
            acc.push(i);
            if i == stop {
                Break(acc)
            } else {
                Continue(acc)
            }
        };
        let want = (0..len).try_fold(Vec::new(), step);
        let got = ex.try_fold(0..len, Vec::new, step, |mut a, mut b| {
            a.append(&mut b);
            a
        });
        prop_assert_eq!(got, want);
        Ok(())
    });
}

/// Early termination is prompt: on a range far too large to run, a `Break` near the start ends
/// the fold after a small part of it, for basesize 1 and auto.
pub fn check_early_termination_is_prompt<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_early_termination_is_prompt_dyn(&|basesize| -> Box<dyn Executor + 'e> {
        Box::new(make(basesize))
    });
}

/// [`check_early_termination_is_prompt`] through `&dyn Executor`, compiled once.
fn check_early_termination_is_prompt_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    watchdog("prompt early termination", || {
        for bs in [Basesize::Auto, Basesize::fixed(1).expect("nonzero")] {
            let ex = make(bs);
            let visited = AtomicUsize::new(0);
            let huge = 1usize << 40;
            let got: ControlFlow<usize, usize> = ex.try_fold(
                0..huge,
                || 0,
                |n, i| {
                    visited.fetch_add(1, Ordering::Relaxed);
                    if i == 1000 {
                        Break(n + 1)
                    } else {
                        Continue(n + 1)
                    }
                },
                |a, b| a + b,
            );
            assert_eq!(got, Break(1001), "basesize {bs}");
            let visited = visited.into_inner();
            assert!(
                visited < 1 << 30,
                "basesize {bs}: a Break at index 1000 still visited {visited} items"
            );
        }
    });
}

/// A panic payload no other code raises, to check that the original payload arrives.
#[derive(Debug, PartialEq, Eq)]
pub struct Boom(pub usize);

fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    panic::catch_unwind(AssertUnwindSafe(f))
}

/// Panics: a panic in `step` reaches the caller with its original payload, a panic in `combine`
/// too, and the executor works normally afterwards.
pub fn check_panics<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_panics_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_panics`] through `&dyn Executor`, compiled once.
fn check_panics_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    let cases = (1usize..=2000, 0usize..2000, basesizes());
    run_property("panics", cases, |(len, at, bs)| {
        let at = at % len;
        let ex = make(bs);
        let in_step = quietly(|| {
            ex.for_each(0..len, |i| {
                if i == at {
                    panic::panic_any(Boom(i));
                }
            })
        });
        let payload = in_step.expect_err("a panic in step must reach the caller");
        prop_assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(at)));

        let in_combine = quietly(|| {
            ex.fold(
                0..len,
                || 1usize,
                |n, _| n,
                |_, _| panic::panic_any(Boom(usize::MAX)),
            )
        });
        if let Err(payload) = in_combine {
            prop_assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(usize::MAX)));
        }

        // Reuse after a panic: the same executor still folds correctly.
        prop_assert_eq!(ex.sum::<usize>(0..len), len * (len - 1) / 2);
        Ok(())
    });
}

/// Nesting: a fold started inside a fold on the same executor completes (no deadlock).
pub fn check_nesting<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_nesting_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_nesting`] through `&dyn Executor`, compiled once.
fn check_nesting_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    run_property(
        "nesting",
        (0usize..=64, 0usize..=64, basesizes()),
        |(outer, inner, bs)| {
            let ex = make(bs);
            let got = ex.map_reduce(
                0..outer,
                |i| ex.sum::<usize>(0..inner) + i,
                || 0,
                |a, b| a + b,
            );
            prop_assert_eq!(
                got,
                outer * (inner * inner.saturating_sub(1) / 2) + outer * outer.saturating_sub(1) / 2
            );
            Ok(())
        },
    );
}

/// Borrowing: a fold over a slice on the caller's stack, with an accumulator that borrows it.
pub fn check_borrowing<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_borrowing_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_borrowing`] through `&dyn Executor`, compiled once.
fn check_borrowing_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    run_property("borrowing", (0usize..=2000, basesizes()), |(len, bs)| {
        let ex = make(bs);
        let data: Vec<u64> = (0..len as u64).map(|i| i * 7 % 1000).collect();
        let refs: Vec<&u64> = ex.collect_vec(&data);
        prop_assert!(refs.iter().zip(&data).all(|(r, d)| std::ptr::eq(*r, d)));
        let max = ex.fold(
            data.as_slice(),
            || None,
            |m: Option<&u64>, x| m.max(Some(x)),
            |a, b| a.max(b),
        );
        prop_assert_eq!(max, data.iter().max());
        Ok(())
    });
}

/// Every check above, in turn.
pub fn check_all<'e, E: Executor + 'e>(make: impl Fn(Basesize) -> E) {
    check_all_dyn(&|basesize| -> Box<dyn Executor + 'e> { Box::new(make(basesize)) });
}

/// [`check_all`] through `&dyn Executor`, compiled once.
fn check_all_dyn<'e>(make: &dyn Fn(Basesize) -> Box<dyn Executor + 'e>) {
    check_order_dyn(make);
    check_exactly_once_dyn(make);
    check_try_fold_dyn(make);
    check_early_termination_is_prompt_dyn(make);
    check_panics_dyn(make);
    check_nesting_dyn(make);
    check_borrowing_dyn(make);
    join::check_join_dyn(make);
    check_pipelines(make);
    check_streams(make);
    check_compositions(make);
}

/// Expands to one `#[test]` per conformance property, for the executor that `$make` (a
/// `Fn(Basesize) -> impl Executor`) builds.
///
/// ```ignore
/// foldex_testkit::conformance_tests!(|basesize| MyEx::new().basesize(basesize));
/// ```
#[macro_export]
macro_rules! conformance_tests {
    ($make:expr) => {
        #[test]
        fn conformance_order() {
            $crate::check_order($make);
        }
        #[test]
        fn conformance_exactly_once() {
            $crate::check_exactly_once($make);
        }
        #[test]
        fn conformance_try_fold() {
            $crate::check_try_fold($make);
        }
        #[test]
        fn conformance_early_termination_is_prompt() {
            $crate::check_early_termination_is_prompt($make);
        }
        #[test]
        #[cfg(panic = "unwind")]
        fn conformance_panics() {
            $crate::check_panics($make);
        }
        #[test]
        fn conformance_nesting() {
            $crate::check_nesting($make);
        }
        #[test]
        fn conformance_borrowing() {
            $crate::check_borrowing($make);
        }
        #[test]
        #[cfg(panic = "unwind")]
        fn conformance_join() {
            $crate::check_join($make);
        }
        #[test]
        #[cfg(panic = "unwind")]
        fn conformance_pipelines() {
            $crate::check_pipelines($make);
        }
        #[test]
        fn conformance_piece_len() {
            $crate::check_piece_len($make);
        }
        #[test]
        fn conformance_streams() {
            $crate::check_streams($make);
        }
        #[test]
        #[cfg(panic = "unwind")]
        fn conformance_roles() {
            $crate::check_roles($make);
        }
        #[test]
        #[cfg(panic = "unwind")]
        fn conformance_compositions() {
            $crate::check_compositions($make);
        }
    };
}
