//! The object-safe protocol between a fold and the executor that runs it.

use crate::audited::Partial;
use crate::codec::PartialCodec;
use crate::piece_len::PieceLen;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

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

    /// Who calls [`Executor::execute`] with this job, and so whether the calling thread should
    /// run a share of it; see [`Caller`]. [`Caller::Waits`] (the default) for every fold of the
    /// typed API.
    fn caller(&self) -> Caller {
        Caller::Waits
    }

    /// Folds `range` as [`Job::run`] does, on a thread that took this piece while it waits
    /// for something below it on its own stack: a pool worker waiting for a half it forked, or
    /// a consumer inside [`Executor::help`]. That frame cannot resume before the piece returns,
    /// so the piece must not block on anything outside its own fold (a data loader's producer
    /// then leaves a batch for later rather than wait for room in its buffer).
    ///
    /// An executor calls it, instead of `run`, for every piece it runs in such a wait, and for
    /// the pieces of its own folds nested in such a piece on the same thread (each executor
    /// knows its own waits; one that hands jobs to other executors while it waits passes them
    /// [`WhileWaiting`](crate::exec::WhileWaiting)). The default is `run`: only jobs whose
    /// pieces may block (a loader's epoch) tell the two apart.
    fn run_while_waiting(&self, range: Range<usize>) -> Partial<'a> {
        self.run(range)
    }

    /// Bounds on the length of the pieces this job is run in: the fold's `with_min_len` /
    /// `with_max_len`. [`PieceLen::ANY`] (the default) leaves them to the executor. The
    /// protocol, and the chunking that honours it, is [`PieceLen`]'s; a job that passes another
    /// on forwards it.
    fn piece_len(&self) -> PieceLen {
        PieceLen::ANY
    }
}

/// Who calls [`Executor::execute`] for a [`Job`] ([`Job::caller`]): a role in the protocol that
/// an executor which runs a share of the work on its caller must respect.
///
/// ```
/// use foldex_core::exec::StandIn;
/// use foldex_core::{Caller, Executor, ExecutorExt, Job, Partial};
/// use std::sync::atomic::{AtomicBool, Ordering};
///
/// /// Runs the whole job on the calling thread, and notes who called.
/// #[derive(Default)]
/// struct Inline(AtomicBool);
/// impl Executor for Inline {
///     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
///         self.0.store(job.caller() == Caller::StandsIn, Ordering::Relaxed);
///         job.run(0..job.len())
///     }
/// }
///
/// /// Runs every fold as a data loader's driver does, standing in for a helper.
/// struct Driver(Inline);
/// impl Executor for Driver {
///     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
///         self.0.execute(&StandIn(job))
///     }
/// }
///
/// let inline = Inline::default();
/// assert_eq!(inline.sum::<usize>(0..10), 45);
/// assert!(!inline.0.load(Ordering::Relaxed), "a typed fold's caller waits");
/// let driver = Driver(Inline::default());
/// assert_eq!(driver.sum::<usize>(0..10), 45);
/// assert!(driver.0 .0.load(Ordering::Relaxed));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Caller {
    /// The calling thread waits for the result and may run pieces of the job meanwhile: every
    /// fold of the typed API.
    #[default]
    Waits,
    /// The calling thread only stands in for another thread, a *helper*, that consumes what
    /// the job's pieces produce and calls [`Executor::help`] on this executor whenever it runs
    /// out (a data loader's driver, whose consumer helps). An executor that would run a share
    /// of the job on its caller should leave that share to `help` (`TaskPoolEx` does), and one
    /// that measures the job on its caller should not (`AutoEx` times it on its pools instead):
    /// the caller's thread is an extra one, and the helper is the thread meant to do that
    /// share. Executors that never run work on their caller may ignore it.
    ///
    /// Such a job is only started while a helper keeps calling `help`. An executor must still
    /// finish it if the helper stops helping (its own threads take the share eventually),
    /// except where nothing of the work would go to its own threads: then the caller runs it.
    StandsIn,
}

/// What [`Executor::runs_inline`] answers for a fold: whether the executor would run it whole,
/// in index order, on the calling thread, so that the typed layer folds it there with no job,
/// and whether the typed layer times it for the executor.
///
/// ```
/// use foldex_core::{Executor, ExecutorExt, Job, Partial, RunsInline};
/// use std::sync::Mutex;
/// use std::time::Duration;
///
/// /// Runs every fold on the calling thread; the first fold of each length is timed.
/// #[derive(Default)]
/// struct FirstTimed(Mutex<Vec<usize>>);
/// impl Executor for FirstTimed {
///     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
///         job.run(0..job.len())
///     }
///     fn runs_inline(&self, len: usize) -> RunsInline {
///         if self.0.lock().unwrap().contains(&len) {
///             RunsInline::Yes
///         } else {
///             RunsInline::Timed
///         }
///     }
///     fn ran_inline(&self, len: usize, _took: Duration) {
///         self.0.lock().unwrap().push(len);
///     }
/// }
///
/// let ex = FirstTimed::default();
/// assert_eq!(ex.sum::<usize>(0..10), 45);
/// assert_eq!(ex.sum::<usize>(0..10), 45);
/// assert_eq!(*ex.0.lock().unwrap(), [10], "timed once");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunsInline {
    /// The fold goes to [`Executor::execute`] as a job.
    #[default]
    No,
    /// The typed layer folds the items on the calling thread, with no job.
    Yes,
    /// As [`RunsInline::Yes`], and the typed layer times the fold and reports what it took to
    /// [`Executor::ran_inline`] if it ran to its end: an executor that remembers which folds
    /// run inline checks them so now and then, at the cost of two clock reads.
    Timed,
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

    /// Whether this executor would run a fold of `len` items whole, in index order, on the
    /// calling thread ([`RunsInline`]). The typed layer asks before it builds the job of a fold
    /// over a [`Source`](crate::Source), and on [`RunsInline::Yes`] or [`RunsInline::Timed`]
    /// folds the items itself, right there, with no job: `execute` is not called for that fold.
    /// On `Timed` it also times the fold and reports what it took to
    /// [`ran_inline`](Self::ran_inline). The default, [`RunsInline::No`], always calls
    /// `execute`.
    ///
    /// Running inline gives nothing up: the fold's result, its `Break`s and its panics (with
    /// their payloads: on one thread the first panic met is the one the sequential fold meets)
    /// are exactly those of `execute` running the job as one piece, `job.run(0..len)`, on the
    /// caller. An executor that answers `Yes` or `Timed` only for some lengths, or some folds,
    /// promises that much for each fold it answers so; one that counts or measures its folds
    /// counts a fold it answers so here, since `execute` will not see it. A wrapper that
    /// forwards `execute` to an inner executor forwards this and `ran_inline` too, unless it
    /// changes how the job runs (one that passes the job on wrapped, or cuts it in pieces of
    /// its own, keeps the defaults).
    fn runs_inline(&self, len: usize) -> RunsInline {
        let _ = len;
        RunsInline::No
    }

    /// What a fold of `len` items that [`runs_inline`](Self::runs_inline) answered
    /// [`RunsInline::Timed`] for took on the calling thread, from its first `init()` to its
    /// last item; called by the typed layer on that thread, right after the fold, and only for
    /// a fold that ran to its end. A fold that stopped early (a `Break`) or panicked is not
    /// reported: it is shorter than its length says, so it tells nothing of the next fold of
    /// that length, and the executor's memory of that length stays as it was. The default does
    /// nothing.
    fn ran_inline(&self, len: usize, took: Duration) {
        let _ = (len, took);
    }

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
    /// deadlock. Every piece it runs goes through [`Job::run_while_waiting`], since the
    /// helper's own frame waits below it. A thread that calls `execute` only on behalf of such a
    /// helper (a driver that feeds it) passes a job whose [`Job::caller`] is
    /// [`Caller::StandsIn`], so that the executor leaves the caller's share of the work to
    /// `help`.
    fn help(&self) -> bool {
        false
    }

    /// Runs both halves of a fork–join ([`ExecutorExt::join`](crate::ExecutorExt::join)),
    /// perhaps at once, and returns only once both have run. The default runs `first`, then
    /// `second`, on the calling thread: correct for every executor, parallel for none.
    ///
    /// A pool runs `first` here and offers `second` to its other threads; a half runs once
    /// and never panics (the typed layer catches and re-raises its panic), and returning
    /// before both ran is reported as an executor bug. Nested joins must not deadlock: a
    /// thread that waits for a half runs other work meanwhile, or runs the half itself.
    fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
        first.run();
        second.run();
    }
}

macro_rules! forward_executor {
    ($($ptr:ty),*) => {$(
        impl<E: Executor + ?Sized> Executor for $ptr {
            fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
                (**self).execute(job)
            }
            fn runs_inline(&self, len: usize) -> RunsInline {
                (**self).runs_inline(len)
            }
            fn ran_inline(&self, len: usize, took: Duration) {
                (**self).ran_inline(len, took)
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
            fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
                (**self).join_halves(first, second)
            }
        }
    )*};
}

forward_executor!(&E, Box<E>, Arc<E>);

/// One half of a fork–join, its types erased, for [`Executor::join_halves`]: run it once with
/// [`JoinHalf::run`], on any thread (it is `Send`), before `join_halves` returns. It never
/// panics: the typed layer catches the closure's panic and re-raises it after `join_halves`.
pub struct JoinHalf<'h> {
    half: &'h mut (dyn FnMut() + Send),
}

impl<'h> JoinHalf<'h> {
    /// The half that runs `half`; made by the typed layer only.
    pub(crate) fn new(half: &'h mut (dyn FnMut() + Send)) -> Self {
        Self { half }
    }

    /// Runs the half here.
    #[inline]
    pub fn run(self) {
        (self.half)();
    }
}

impl fmt::Debug for JoinHalf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHalf").finish_non_exhaustive()
    }
}
