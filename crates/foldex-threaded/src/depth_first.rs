//! [`DepthFirstEx`]: pieces claimed in input order from a cursor, by lanes that run on a pool.

use crate::ThreadedEx;
use foldex_core::exec::{Chunking, JoinHalf, OrderedCombiner};
use foldex_core::{Basesize, ConfigError, Executor, ExecutorExt, Job, Partial, RunsInline};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

foldex_core::wait_depth! {
    /// This thread's waits inside [`DepthFirstEx::help`], in which it runs lanes' pieces.
    static WAITING;
}

/// Runs a fold's pieces in input order: `workers()` *lanes*, forked on the pool of an inner
/// executor (a [`ThreadedEx`] by default), each claim the leftmost piece not yet claimed, run
/// it, and claim again; partials are combined in index order as they finish
/// (FoldsThreads.jl's `DepthFirstEx`).
///
/// A work-stealing pool splits a range in halves and its idle threads steal the largest
/// piece waiting, far to the right; here the threads work side by side from the left. So a
/// `find_first`, `any`, `take_while` or a fold that stops with `Break` early in its input
/// reaches its answer with the work to the right of it mostly not started: at most one piece
/// per lane runs past the stop. Pieces are [`Basesize`] long (`len / (4 × workers)` for
/// [`Basesize::Auto`]). Where the whole input is needed, a `ThreadedEx` balances uneven
/// pieces better (it splits a stolen range again; here a slow piece is one lane's alone).
///
/// A fold nested in a piece runs on whatever executor the piece calls; on this one, its lanes
/// are forked on the same pool, whose threads run other work while they wait.
///
/// ```
/// use foldex_core::ExecutorExt;
/// use foldex_threaded::DepthFirstEx;
///
/// let ex = DepthFirstEx::new();
/// assert_eq!(ex.sum::<u64>(&(1..=100u64).collect::<Vec<_>>()[..]), 5050);
/// ```
#[derive(Debug, Clone)]
pub struct DepthFirstEx<E = ThreadedEx> {
    inner: E,
    basesize: Basesize,
}

impl DepthFirstEx {
    /// Lanes on a default [`ThreadedEx`] (the global pool: one thread per core),
    /// [`Basesize::Auto`].
    pub fn new() -> Self {
        Self::on(ThreadedEx::new())
    }
}

impl Default for DepthFirstEx {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Executor> DepthFirstEx<E> {
    /// Lanes forked on `inner`'s pool: one per [`Executor::workers`] of `inner`, forked with
    /// its [`Executor::join_halves`] (an executor that runs joins in turn runs the lanes in
    /// turn, and the first lane then runs every piece).
    ///
    /// ```
    /// use foldex_core::ExecutorExt;
    /// use foldex_threaded::{DepthFirstEx, ThreadedEx};
    /// let ex = DepthFirstEx::on(ThreadedEx::new().threads(2)).basesize(64);
    /// let sum = ex.map_reduce(0..1000usize, |i| i % 7, || 0, |a, b| a + b);
    /// assert_eq!(sum, (0..1000).map(|i| i % 7).sum::<usize>());
    /// ```
    pub fn on(inner: E) -> Self {
        Self {
            inner,
            basesize: Basesize::Auto,
        }
    }

    /// Pieces of `basesize` consecutive indices. Panics on 0, naming the setting.
    #[track_caller]
    pub fn basesize(self, basesize: usize) -> Self {
        self.with_basesize(Basesize::Fixed(ConfigError::require_nonzero(
            "basesize", basesize,
        )))
    }

    /// The piece-size policy; [`Basesize::Auto`] (the default) gives `len / (4 × workers)`.
    pub fn with_basesize(mut self, basesize: Basesize) -> Self {
        self.basesize = basesize;
        self
    }

    /// The executor whose pool runs the lanes.
    pub fn inner(&self) -> &E {
        &self.inner
    }
}

/// One fold: the cursor over its pieces and the partials combined so far.
struct Lanes<'j, 'a> {
    job: &'j dyn Job<'a>,
    /// How `0..len` is cut in pieces.
    cut: Chunking,
    pieces: usize,
    /// The number of the next piece to claim; `pieces` or more once none is left.
    cursor: AtomicUsize,
    combiner: Mutex<OrderedCombiner<'a>>,
}

impl<'a> Lanes<'_, 'a> {
    /// Claims and runs pieces until none is left or the job has stopped before the next one,
    /// or one piece only (a lane inside this executor's `help`), so that a helper is lent for one piece
    /// (whoever forked the lanes claims what is left once they return). Every claimed piece is
    /// pushed, so the combiner always holds pieces `0..k`.
    fn run(&self, one_piece: bool) {
        loop {
            let index = self.cursor.fetch_add(1, Ordering::Relaxed);
            if index >= self.pieces {
                return;
            }
            let range: Range<usize> = self.cut.chunk(index);
            if self.job.is_stopped(range.start) {
                // Nothing from here on can change the result: no lane claims more.
                self.cursor.fetch_max(self.pieces, Ordering::Relaxed);
            }
            // Cheap when stopped: `run` returns at once. Inside this executor's `help`, the
            // piece runs as one that its thread runs while it waits.
            let partial = WAITING.run(self.job, range);
            self.combiner
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(self.job, index, partial);
            if one_piece {
                return;
            }
        }
    }

    /// Forks `lanes` lanes on `ex` (`lanes ≥ 1`) and returns when all have returned.
    fn fork<E: Executor + ?Sized>(&self, ex: &E, lanes: usize) {
        if lanes <= 1 {
            self.run(WAITING.is_waiting());
            return;
        }
        let left = lanes / 2;
        ex.join(|| self.fork(ex, left), || self.fork(ex, lanes - left));
    }
}

impl<E: Executor> Executor for DepthFirstEx<E> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let len = job.len();
        let workers = self.inner.workers().max(1);
        // Within the job's bounds on piece lengths.
        let cut = job
            .piece_len()
            .chunking(len, self.basesize.resolve(len, workers));
        // An empty job is one empty piece, so that its identity is made where pieces run.
        let pieces = cut.count().max(1);
        let lanes = Lanes {
            job,
            cut,
            pieces,
            cursor: AtomicUsize::new(0),
            combiner: Mutex::new(OrderedCombiner::new()),
        };
        lanes.fork(&self.inner, workers.min(pieces));
        // Pieces left by lanes that helpers ran (one piece each): none in the common case.
        lanes.run(false);
        lanes
            .combiner
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .finish(job)
    }

    /// [`RunsInline::No`]: every fold is cut in pieces of its own.
    fn runs_inline(&self, _len: usize) -> RunsInline {
        RunsInline::No
    }

    fn ran_inline(&self, _len: usize, _took: Duration) {}

    fn workers(&self) -> usize {
        self.inner.workers()
    }

    fn is_worker_thread(&self) -> bool {
        self.inner.is_worker_thread()
    }

    /// Lanes wait in the inner pool as its join halves: a helper runs what waits there, and
    /// the pieces of a lane it takes go through [`Job::run_while_waiting`].
    fn help(&self) -> bool {
        WAITING.while_waiting(|| self.inner.help())
    }

    fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
        self.inner.join_halves(first, second)
    }
}
