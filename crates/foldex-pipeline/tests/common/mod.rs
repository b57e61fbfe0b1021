//! The executors and the loop over cases that the pipeline crate's std-differential tests share.
#![allow(dead_code)]

use foldex_core::{Basesize, Executor};
use foldex_seq::{NonThreadedEx, SequentialEx};
use foldex_taskpool::TaskPoolEx;
use foldex_testkit::watchdog;
use foldex_threaded::{DepthFirstEx, ThreadedEx};
use std::num::NonZeroUsize;

/// Every executor, in the configurations that put piece boundaries everywhere: sequential, work
/// stealing and task pools with the automatic basesize, 1 and 7, a task pool in background
/// mode, pieces in input order, and a pool's call tree on one thread.
pub fn executors() -> Vec<(String, Box<dyn Executor>)> {
    executors_with_basesizes(&[0, 1, 7])
}

/// [`executors`], with the work-stealing and task-pool executors at each of `basesizes`
/// (0: the automatic basesize).
pub fn executors_with_basesizes(basesizes: &[usize]) -> Vec<(String, Box<dyn Executor>)> {
    let mut all = sized_executors(basesizes);
    all.push((
        "TaskPoolEx(2, background)".into(),
        Box::new(TaskPoolEx::new().ntasks(2).basesize(3).background(true)),
    ));
    all.push((
        "DepthFirstEx(2, 7)".into(),
        Box::new(DepthFirstEx::on(ThreadedEx::new().threads(2)).basesize(7)),
    ));
    all.push((
        "NonThreadedEx(1)".into(),
        Box::new(NonThreadedEx::new().basesize(1)),
    ));
    all
}

/// Sequential, and the work-stealing and task-pool executors at each of `basesizes`.
fn sized_executors(basesizes: &[usize]) -> Vec<(String, Box<dyn Executor>)> {
    let mut all: Vec<(String, Box<dyn Executor>)> =
        vec![("SequentialEx".into(), Box::new(SequentialEx))];
    for &n in basesizes {
        let basesize = NonZeroUsize::new(n).map_or(Basesize::Auto, Basesize::Fixed);
        all.push((
            format!("ThreadedEx(2, {basesize})"),
            Box::new(ThreadedEx::new().threads(2).with_basesize(basesize)),
        ));
        all.push((
            format!("TaskPoolEx(3, {basesize})"),
            Box::new(TaskPoolEx::new().ntasks(3).with_basesize(basesize)),
        ));
    }
    all
}

/// Inputs of at least this many items run only on executors that make long pieces of them
/// (see [`each_case_with_basesizes`]).
const LONG: usize = 1 << 16;

/// A fixed basesize from which pieces count as long: a fold's block between stop checks.
const LONG_PIECE: usize = 4096;

/// Runs `check` for every executor of [`executors`] and each of `lengths`, under a watchdog,
/// with fixed pseudo-random data of `len` `u64`s below `2^(64 - shift)` (a large shift gives
/// repeats and ties); see [`each_case_with_basesizes`] for the long inputs.
pub fn each_case(
    name: &str,
    lengths: &[usize],
    shift: u32,
    check: impl Fn(&dyn Executor, &[u64], &str),
) {
    each_case_with_basesizes(name, &[0, 1, 7], lengths, shift, check);
}

/// [`each_case`] on [`executors_with_basesizes`]`(basesizes)`.
///
/// An input of at least [`LONG`] items runs only on `SequentialEx` and the work-stealing and
/// task-pool executors whose basesize makes long pieces of it (the automatic one, or
/// [`LONG_PIECE`] and more): long pieces (a fold's block between stop checks and longer,
/// large buffers) are what a long input is there for. With a fixed basesize of 1 to 7 it
/// would be tens of thousands of short pieces, of the kind the shorter lengths (1009 items)
/// already make on those executors, and most of the suite's time in debug builds.
pub fn each_case_with_basesizes(
    name: &str,
    basesizes: &[usize],
    lengths: &[usize],
    shift: u32,
    check: impl Fn(&dyn Executor, &[u64], &str),
) {
    watchdog(name, || {
        let all = executors_with_basesizes(basesizes);
        let long_pieces: Vec<usize> = (basesizes.iter().copied())
            .filter(|&b| b == 0 || b >= LONG_PIECE)
            .collect();
        let long = sized_executors(&long_pieces);
        for &len in lengths {
            let data: Vec<u64> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift)
                .collect();
            let executors = if len >= LONG { &long } else { &all };
            for (ex_name, ex) in executors {
                check(&**ex, &data, &format!("{name}, {ex_name}, len {len}"));
            }
        }
    });
}
