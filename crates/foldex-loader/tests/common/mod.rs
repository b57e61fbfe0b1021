//! Executors every loader test runs with, built once per test binary.
#![allow(dead_code)]

use foldex_auto::AutoEx;
use foldex_core::exec::chunk;
use foldex_core::{Executor, Job, Partial};
use foldex_seq::SequentialEx;
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A hand-rolled executor: pieces of two indices, run by two scoped threads from the *last*
/// piece to the first, so that slots run in the opposite of index order. Once the job says it
/// is stopped, the pieces nobody took (a prefix) run as one.
pub struct BackwardsEx;

impl Executor for BackwardsEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let len = job.len();
        let pieces = len.div_ceil(2);
        let taken = AtomicUsize::new(0);
        let done = Mutex::new(BTreeMap::new());
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| loop {
                    if job.is_stopped(0) {
                        break;
                    }
                    let t = taken.fetch_add(1, Ordering::Relaxed);
                    if t >= pieces {
                        break;
                    }
                    let range = chunk(len, 2, pieces - 1 - t);
                    let partial = job.run(range.clone());
                    done.lock().unwrap().insert(range.start, partial);
                });
            }
        });
        let mut done = done.into_inner().unwrap();
        let untaken = pieces.saturating_sub(taken.load(Ordering::Relaxed));
        if untaken > 0 || len == 0 {
            done.insert(0, job.run(0..(untaken * 2).min(len)));
        }
        let mut parts = done.into_values();
        let first = parts.next().expect("at least one piece");
        parts.fold(first, |acc, p| job.combine(acc, p))
    }

    fn workers(&self) -> usize {
        2
    }
}

/// Every executor kind, with several basesizes, both TaskPoolEx modes and AutoEx.
pub fn executors() -> &'static [(&'static str, Arc<dyn Executor>)] {
    static ALL: OnceLock<Vec<(&'static str, Arc<dyn Executor>)>> = OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            ("SequentialEx", Arc::new(SequentialEx) as Arc<dyn Executor>),
            (
                "ThreadedEx basesize 1",
                Arc::new(ThreadedEx::new().basesize(1)),
            ),
            (
                "ThreadedEx 3 threads basesize 3",
                Arc::new(ThreadedEx::new().threads(3).basesize(3)),
            ),
            ("ThreadedEx auto basesize", Arc::new(ThreadedEx::new())),
            (
                "TaskPoolEx 3 tasks basesize 1",
                Arc::new(TaskPoolEx::new().ntasks(3).basesize(1)),
            ),
            (
                "TaskPoolEx 2 tasks basesize 4 background",
                Arc::new(TaskPoolEx::new().ntasks(2).basesize(4).background(true)),
            ),
            ("TaskPoolEx auto basesize", Arc::new(TaskPoolEx::new())),
            ("AutoEx", Arc::new(AutoEx::new())),
            ("BackwardsEx (hand-rolled)", Arc::new(BackwardsEx)),
        ]
    })
}

/// The number of threads in this process.
pub fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count())
}
