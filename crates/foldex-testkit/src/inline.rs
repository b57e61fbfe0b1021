//! [`InlineUpTo`]: every path of the typed layer, the inline ones and the job, in one executor.

use foldex_core::exec::JoinHalf;
use foldex_core::{Executor, Job, Partial, RunsInline};
use std::time::Duration;

/// An executor that runs folds of at most `up_to` items inline and hands longer ones to `ex`'s
/// [`Executor::execute`], which it never asks whether it runs them inline. It answers
/// [`Executor::runs_inline`] [`RunsInline::Yes`] for an even length up to `up_to` and
/// [`RunsInline::Timed`] for an odd one, so that the typed layer folds both on the caller
/// without a job, and times the odd ones; [`Executor::ran_inline`] panics unless the fold it
/// hears of is one it answered `Timed` for. One conformance run over it covers every path, which
/// must give the same results:
///
/// ```
/// use foldex_core::{Executor, ExecutorExt, Job, Partial, RunsInline};
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
/// assert_eq!(ex.runs_inline(8), RunsInline::Yes);
/// assert_eq!(ex.runs_inline(7), RunsInline::Timed);
/// assert_eq!(ex.runs_inline(9), RunsInline::No);
/// assert_eq!(ex.sum::<usize>(0..8), 28); // no job
/// assert_eq!(ex.sum::<usize>(0..7), 21); // no job, timed
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
    fn runs_inline(&self, len: usize) -> RunsInline {
        match len {
            len if len > self.up_to => RunsInline::No,
            len if len % 2 == 0 => RunsInline::Yes,
            _ => RunsInline::Timed,
        }
    }
    /// # Panics
    /// If `runs_inline(len)` is not [`RunsInline::Timed`]: the typed layer reported a fold it
    /// was not asked to time.
    fn ran_inline(&self, len: usize, _took: Duration) {
        assert_eq!(
            self.runs_inline(len),
            RunsInline::Timed,
            "ran_inline for a fold of {len} items that was not timed"
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use foldex_core::ExecutorExt;
    use std::ops::ControlFlow::{Break, Continue};
    use std::panic::{self, AssertUnwindSafe};

    /// Runs the job as one piece.
    struct Whole;
    impl Executor for Whole {
        fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
            job.run(0..job.len())
        }
    }

    #[test]
    fn every_length_takes_its_path_and_gives_the_loops_result() {
        let ex = InlineUpTo {
            up_to: 9,
            ex: Whole,
        };
        for len in 0..20usize {
            let want = match len {
                0..=9 if len % 2 == 0 => RunsInline::Yes,
                0..=9 => RunsInline::Timed,
                _ => RunsInline::No,
            };
            assert_eq!(ex.runs_inline(len), want, "len {len}");
            assert_eq!(ex.sum::<usize>(0..len), (0..len).sum::<usize>());
            let stop = |a: usize, i: usize| if i == 4 { Break(a) } else { Continue(a + i) };
            assert_eq!(
                ex.try_fold(0..len, || 0, stop, |a, b| a + b),
                (0..len).try_fold(0, stop)
            );
            #[cfg(panic = "unwind")]
            let panicked = panic::catch_unwind(AssertUnwindSafe(|| {
                ex.for_each(0..len, |i| assert!(i != 2, "boom"));
            }));
            #[cfg(panic = "unwind")]
            assert_eq!(panicked.is_err(), len > 2);
        }
    }

    #[test]
    #[should_panic(expected = "ran_inline for a fold of 4 items that was not timed")]
    fn a_report_of_a_fold_not_timed_panics() {
        InlineUpTo {
            up_to: 9,
            ex: Whole,
        }
        .ran_inline(4, Duration::ZERO);
    }
}
