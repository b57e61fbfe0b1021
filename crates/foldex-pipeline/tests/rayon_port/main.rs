//! rayon's iterator tests (rayon-rs/rayon: `src/iter/test.rs` and the iterator files of
//! `tests/`), ported test by test: rayon's inputs and expected values, written with foldex
//! pipelines and run on every executor configuration through `&dyn Executor`. Each module (a
//! file of this folder) is one rayon file and each test keeps its rayon name; docs/rayon-port.md lists every rayon test
//! of those files with its status. Where rayon's answer is nondeterministic (`find_any`), the
//! test asserts foldex's deterministic one.

use foldex_auto::AutoEx;
use foldex_core::{Basesize, Executor};
use foldex_pipeline::{from_vec, IntoPipeline};
use foldex_seq::{NonThreadedEx, SequentialEx};
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::{DepthFirstEx, ThreadedEx};
use std::num::NonZeroUsize;

/// The conformance configurations: sequential, work stealing on 2 threads with basesizes
/// Auto, 1 and 7, the task pool (its own basesize, and a background pool with basesize 3),
/// `AutoEx`, `DepthFirstEx` (pieces claimed in input order by 2 lanes) and `NonThreadedEx`
/// with basesize 1 (a pool's call tree on one thread).
fn executors() -> Vec<(String, Box<dyn Executor>)> {
    let fixed = |n| Basesize::Fixed(NonZeroUsize::new(n).unwrap());
    let mut all: Vec<(String, Box<dyn Executor>)> =
        vec![("SequentialEx".into(), Box::new(SequentialEx))];
    for basesize in [Basesize::Auto, fixed(1), fixed(7)] {
        all.push((
            format!("ThreadedEx(2, {basesize})"),
            Box::new(ThreadedEx::new().threads(2).with_basesize(basesize)),
        ));
    }
    all.push((
        "TaskPoolEx(3)".into(),
        Box::new(TaskPoolEx::new().ntasks(3)),
    ));
    all.push((
        "TaskPoolEx(2, 3, background)".into(),
        Box::new(TaskPoolEx::new().ntasks(2).basesize(3).background(true)),
    ));
    all.push(("AutoEx".into(), Box::new(AutoEx::new())));
    all.push((
        "DepthFirstEx(2)".into(),
        Box::new(DepthFirstEx::on(ThreadedEx::new().threads(2))),
    ));
    all.push((
        "NonThreadedEx(1)".into(),
        Box::new(NonThreadedEx::new().basesize(1)),
    ));
    all
}

/// Runs `check` once per executor, with a text naming the test and the executor.
fn each(name: &str, mut check: impl FnMut(&dyn Executor, &str)) {
    watchdog(name, || {
        for (ex_name, ex) in &executors() {
            check(&**ex, &format!("{name} on {ex_name}"));
        }
    });
}

/// rayon's tests draw their inputs from a seeded `StdRng`; these are drawn from a seeded
/// splitmix64 instead (the expected values are computed from `std` on the same inputs).
fn seeded_i32s(n: usize) -> Vec<i32> {
    let mut state: u64 = 0x0123_4567_89AB_CDEF;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as i32
        })
        .collect()
}

mod iter_test;

#[cfg(panic = "unwind")]
mod collect;

#[cfg(panic = "unwind")]
mod iter_panic;

mod clones;

mod debug;

mod drain_vec;

mod issue671;

mod issue671_unzip;

mod intersperse;

mod octillion;

mod producer_split_at;

mod range;

mod range_inclusive;

mod sort_panic_safe;

mod strings;
