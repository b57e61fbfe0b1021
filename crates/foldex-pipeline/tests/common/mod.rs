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

/// Runs `check` for every executor and each of `lengths`, under a watchdog, with fixed
/// pseudo-random data of `len` `u64`s below `2^(64 - shift)` (a large shift gives repeats and
/// ties).
pub fn each_case(
    name: &str,
    lengths: &[usize],
    shift: u32,
    check: impl Fn(&dyn Executor, &[u64], &str),
) {
    watchdog(name, || {
        let executors = executors();
        for &len in lengths {
            let data: Vec<u64> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift)
                .collect();
            for (ex_name, ex) in &executors {
                check(&**ex, &data, &format!("{name}, {ex_name}, len {len}"));
            }
        }
    });
}
