//! [`InlineUpTo`]: both paths of the typed layer, the inline one and the job, in one executor.

use foldex_core::exec::JoinHalf;
use foldex_core::{Executor, Job, Partial};

/// An executor that runs folds of at most `up_to` items inline (it answers
/// [`Executor::runs_inline`] `true` for them, so that the typed layer folds them on the caller
/// without a job) and hands longer ones to `ex`'s [`Executor::execute`], which it never asks
/// whether it runs them inline. One conformance run over it covers both paths, which must give
/// the same results:
///
/// ```
/// use foldex_core::{Executor, ExecutorExt, Job, Partial};
/// use foldex_testkit::InlineUpTo;
///
/// struct Inline;
/// impl Executor for Inline {
///     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
///         job.run(0..job.len())
///     }
/// }
///
/// let ex = InlineUpTo { up_to: 8, ex: Inline };
/// assert!(ex.runs_inline(8) && !ex.runs_inline(9));
/// assert_eq!(ex.sum::<usize>(0..8), 28); // no job
/// assert_eq!(ex.sum::<usize>(0..9), 36); // a job, run by `Inline`
/// ```
#[derive(Debug, Clone)]
pub struct InlineUpTo<E> {
    /// The longest fold run inline.
    pub up_to: usize,
    /// The executor of longer folds.
    pub ex: E,
}

impl<E: Executor> Executor for InlineUpTo<E> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        self.ex.execute(job)
    }
    fn runs_inline(&self, len: usize) -> bool {
        len <= self.up_to
    }
    fn workers(&self) -> usize {
        self.ex.workers()
    }
    fn is_worker_thread(&self) -> bool {
        self.ex.is_worker_thread()
    }
    fn help(&self) -> bool {
        self.ex.help()
    }
    fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
        self.ex.join_halves(first, second)
    }
}
