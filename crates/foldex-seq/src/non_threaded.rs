//! [`NonThreadedEx`]: a parallel executor's call tree, run on the calling thread.

use foldex_core::exec::PieceLen;
use foldex_core::{available_parallelism, Basesize, ConfigError, Executor, Job, Partial};
use std::ops::Range;

/// Runs the call tree a parallel executor runs (the range halved until pieces are no longer
/// than the basesize, each piece folded, partials combined pairwise up the tree) on the
/// calling thread, left to right (FoldsThreads.jl's `NonThreadedEx`).
///
/// For debugging what only a parallel run shows, with none of its nondeterminism: a combine
/// that is not associative, or an `init` that is not an identity, gives here the wrong answer a
/// pool gives, every time, where [`SequentialEx`](crate::SequentialEx) (one piece, no
/// combine) gives the right one. [`Basesize::Auto`] (the default) cuts `len` in
/// `4 × threads` pieces, as a pool of [`threads`](Self::threads) threads would (default: one
/// per core).
///
/// ```
/// use foldex_core::ExecutorExt;
/// use foldex_seq::{NonThreadedEx, SequentialEx};
///
/// // Subtraction is not associative: one piece hides it, the tree shows it.
/// let items = &[1i64, 2, 3, 4][..];
/// let minus = |ex: &dyn foldex_core::Executor| {
///     ex.fold(items, || 0, |acc, &x| acc - x, |a, b| a - b)
/// };
/// assert_eq!(minus(&SequentialEx), -10);
/// assert_ne!(minus(&NonThreadedEx::new().basesize(1)), -10);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonThreadedEx {
    basesize: Basesize,
    threads: usize,
}

impl Default for NonThreadedEx {
    fn default() -> Self {
        Self::new()
    }
}

impl NonThreadedEx {
    /// [`Basesize::Auto`] for a pool of one thread per core.
    pub fn new() -> Self {
        Self {
            basesize: Basesize::Auto,
            threads: available_parallelism(),
        }
    }

    /// Pieces of at most `basesize` indices. Panics on 0, naming the setting.
    #[track_caller]
    pub fn basesize(self, basesize: usize) -> Self {
        self.with_basesize(Basesize::Fixed(ConfigError::require_nonzero(
            "basesize", basesize,
        )))
    }

    /// The piece-size policy.
    pub fn with_basesize(mut self, basesize: Basesize) -> Self {
        self.basesize = basesize;
        self
    }

    /// The pool size whose tree [`Basesize::Auto`] imitates. Panics on 0, naming the setting.
    #[track_caller]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = ConfigError::require_nonzero("threads", threads).get();
        self
    }
}

/// Folds `range` as a pool would: halves until `floor`, left before right. A right half at
/// or after a stop is one cheap `run`, not a tree of them.
/// The split stays within the job's bounds on piece lengths (`bounds`).
fn tree<'a>(job: &dyn Job<'a>, range: Range<usize>, floor: usize, bounds: PieceLen) -> Partial<'a> {
    match bounds.split(range.clone(), floor) {
        None => job.run(range),
        Some((left, right)) => {
            let left = tree(job, left, floor, bounds);
            let right = if job.is_stopped(right.start) {
                job.run(right)
            } else {
                tree(job, right, floor, bounds)
            };
            job.combine(left, right)
        }
    }
}

impl Executor for NonThreadedEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let len = job.len();
        let floor = self.basesize.resolve(len, self.threads);
        tree(job, 0..len, floor, job.piece_len())
    }
}
