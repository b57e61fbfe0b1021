//! The object-safe protocol between a fold and the executor that runs it.

use crate::audited::Partial;
use crate::codec::PartialCodec;
use std::ops::Range;
use std::sync::Arc;

/// A fold over the indices `0..len`, with its types erased. Built by the typed API
/// ([`ExecutorExt`](crate::ExecutorExt)); executors receive it as `&dyn Job`.
///
/// `run` and `combine` never panic: the typed layer catches panics in user code, stops the job,
/// and re-raises the payload once the executor has returned.
pub trait Job<'a>: Sync {
    /// The number of indices; the job covers `0..len()`.
    fn len(&self) -> usize;

    /// `true` when there is nothing to run.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Folds `range` sequentially on the current thread and returns its partial result.
    ///
    /// Cheap when the job is stopped at or before `range.start` (see [`Job::is_stopped`]).
    fn run(&self, range: Range<usize>) -> Partial<'a>;

    /// Combines the partials of two *adjacent* ranges, `left` covering the indices just before
    /// `right`'s.
    fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a>;

    /// A hint: `true` once no index at or after `from` can change the result (a `Break` or a
    /// panic at an index before `from`, a cancelled fold, or an executor bug the typed layer
    /// caught). An executor should then stop splitting and scheduling work from `from` on;
    /// `run` of such a range returns at once.
    fn is_stopped(&self, from: usize) -> bool;

    /// How this job's partials become bytes and back, for an executor that runs pieces in
    /// other processes; `None` (the default) when the fold's caller gave no
    /// [`Codec`](crate::Codec), and then the job cannot leave this process.
    fn codec(&self) -> Option<&dyn PartialCodec<'a>> {
        None
    }
}

/// Runs a [`Job`]: decides how to split `0..len`, where the pieces run, and in which tree their
/// partials are combined.
///
/// The whole contract:
/// - every index in `0..job.len()` is passed to [`Job::run`] in exactly one range (ranges may
///   be empty only when the job itself is empty: then run `0..0` once);
/// - partials are combined only with their adjacent neighbour, the left one first, until one
///   partial covers `0..len`, which `execute` returns;
/// - `execute` returns only after every piece it started has finished.
///
/// The trait is object-safe, so an executor can be chosen at run time:
///
/// ```
/// use foldex_core::{Executor, ExecutorExt, Job, Partial};
///
/// /// Runs the whole job on the calling thread.
/// struct Inline;
/// impl Executor for Inline {
///     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
///         job.run(0..job.len())
///     }
/// }
///
/// let ex: Box<dyn Executor> = Box::new(Inline);
/// assert_eq!(ex.sum::<usize>(0..10), 45);
/// ```
pub trait Executor: Send + Sync {
    /// Runs `job` over `0..job.len()` and returns the partial that covers all of it.
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a>;

    /// How many threads may run pieces at once (a consumer may size a bounded buffer from it).
    fn workers(&self) -> usize {
        1
    }

    /// `true` when the calling thread is one of this executor's pool workers. A consumer that
    /// would block waiting for such a pool (one iterating results inside it) refuses instead of
    /// deadlocking.
    fn is_worker_thread(&self) -> bool {
        false
    }

    /// Runs, on the calling thread, one piece of work that is waiting in this executor, and
    /// returns `true`; returns `false` if nothing was waiting or this executor keeps callers'
    /// threads free (`TaskPoolEx` in background mode).
    ///
    /// A thread that would otherwise sleep waiting for this executor's results (a consumer that
    /// finds its buffer empty) calls it to lend its core instead. The default
    /// never helps.
    ///
    /// Contract: `help` runs the piece it takes whole, and never waits for a piece that another
    /// thread holds. The helper may be the very thread those pieces wait for (a consumer whose
    /// producers are blocked on its full buffer), so a `help` that forked and waited could
    /// deadlock. A thread that calls `execute` only on behalf of such a helper (a driver that
    /// feeds it) wraps the call in [`stand_in_for_helper`](crate::exec::stand_in_for_helper),
    /// so that the executor leaves the caller's share of the work to `help`.
    fn help(&self) -> bool {
        false
    }
}

macro_rules! forward_executor {
    ($($ptr:ty),*) => {$(
        impl<E: Executor + ?Sized> Executor for $ptr {
            fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
                (**self).execute(job)
            }
            fn workers(&self) -> usize {
                (**self).workers()
            }
            fn is_worker_thread(&self) -> bool {
                (**self).is_worker_thread()
            }
            fn help(&self) -> bool {
                (**self).help()
            }
        }
    )*};
}

forward_executor!(&E, Box<E>, Arc<E>);
