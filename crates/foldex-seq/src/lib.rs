//! [`SequentialEx`]: runs a fold on the calling thread, in index order; [`NonThreadedEx`]: runs
//! a parallel executor's call tree there, to debug what only a parallel run shows.
//!
//! The baseline every other executor is compared with, the executor to debug with, and the
//! right one for inputs too small to split.
//!
//! ```
//! use foldex_core::ExecutorExt;
//! use foldex_seq::SequentialEx;
//! assert_eq!(SequentialEx.sum::<u64>(&[1u64, 2, 3][..]), 6);
//! ```
#![forbid(unsafe_code)]

mod non_threaded;

pub use non_threaded::NonThreadedEx;

use foldex_core::{Executor, Job, Partial, RunsInline};

/// Runs the whole range as one piece on the calling thread. No threads, no knobs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SequentialEx;

impl SequentialEx {
    /// The sequential executor (also `SequentialEx::default()`, or just `SequentialEx`).
    pub fn new() -> Self {
        Self
    }
}

impl Executor for SequentialEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        // One piece: the job itself checks for an early stop between blocks of items.
        job.run(0..job.len())
    }

    /// Always [`RunsInline::Yes`]: every fold runs whole, in order, on the caller, so a typed
    /// fold over a source needs no job.
    fn runs_inline(&self, _len: usize) -> RunsInline {
        RunsInline::Yes
    }
}
