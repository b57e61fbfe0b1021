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

use foldex_core::exec::run_pieces;
use foldex_core::{Executor, Job, Partial, RunsInline};

/// Runs the whole range as one piece on the calling thread. No threads, no knobs.
///
/// A fold that bounds its pieces' lengths ([`Job::piece_len`], a pipeline's `with_max_len`)
/// runs as consecutive pieces within them, still in order on the caller, so that a fold that
/// observes its pieces (a fold per piece) sees the same bounds here as on a pool.
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
        // One piece, unless the job bounds its length: the job itself checks for an early stop
        // between blocks of items.
        run_pieces(job, 0..job.len(), |range| job.run(range))
    }

    /// Always [`RunsInline::Yes`]: every fold runs whole, in order, on the caller, so a typed
    /// fold over a source needs no job (the typed layer asks only where the fold's bounds on
    /// its pieces allow one piece of `len`).
    fn runs_inline(&self, _len: usize) -> RunsInline {
        RunsInline::Yes
    }
}
