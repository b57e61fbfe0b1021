//! `ThreadedEx`: recursive halving down to `basesize`, the right halves offered to thieves.

use crate::inline;
use crate::pool::Pool;
use crate::registry::Context;
use crate::splitter::Splitter;
use crate::waiting::WAITING;
use foldex_core::exec::{offer, run_pieces, ChoiceTable, JoinHalf};
use foldex_core::{Basesize, Caller, ConfigError, Executor, Job, Partial, RunsInline};
use std::fmt;
use std::ops::Range;
use std::time::{Duration, Instant};

/// The work-stealing executor: splits `0..len` in halves down to `basesize`, offers each right
/// half to idle workers and runs the left one, then combines the halves' partials in order.
///
/// The default executor for CPU-bound and uneven work. A half that another worker steals is
/// split further there, so load balances itself without the caller tuning anything.
///
/// - **Pool.** [`ThreadedEx::new`] runs on the global [`Pool`] (one thread per core);
///   [`ThreadedEx::threads`] gives it a pool of its own; [`ThreadedEx::pool`] shares one.
/// - **`basesize`.** The floor on a leaf's length: a range is split only while longer than it.
///   The default, [`Basesize::Auto`], is about `len / (4 × threads)`, and pieces that idle
///   workers steal are split further (never below `len / (64 × threads)`), so uneven work
///   balances itself; a fold nested in a step while every worker is busy is split once, and
///   further only where a half is stolen; `basesize(1)` splits down to single items, for items that each take long
///   or vary a lot.
/// - **Calling thread.** It blocks until the fold is done; if it is a worker of the same pool
///   (a fold nested in a fold) it runs pool tasks while it waits, so nesting never deadlocks.
///   A fold no longer than `basesize` runs on the caller directly, and so, under the
///   automatic basesize, does a fold of a length whose last timed fold took less than a
///   wake-up shared among the pool's threads (one such fold in 16 is timed there, so that a
///   length whose items grew goes back to the pool).
///
/// ```
/// use foldex_core::ExecutorExt;
/// use foldex_threaded::ThreadedEx;
/// let ex = ThreadedEx::new().basesize(1_000);
/// let data: Vec<u64> = (0..100_000).collect();
/// assert_eq!(ex.sum::<u64>(&data), 4_999_950_000);
/// let (evens, odds) = ex.fold(&data, || (0, 0),
///     |(e, o), &x| if x % 2 == 0 { (e + 1, o) } else { (e, o + 1) },
///     |a, b| (a.0 + b.0, a.1 + b.1));
/// assert_eq!((evens, odds), (50_000, 50_000));
/// ```
#[derive(Clone, Default)]
pub struct ThreadedEx {
    /// `None`: the global pool, created on first use.
    pool: Option<Pool>,
    basesize: Basesize,
}

impl ThreadedEx {
    /// On the global pool, with the automatic basesize.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs on a pool of its own with `threads` workers (shared by this executor's clones;
    /// joined when the last of them is dropped).
    ///
    /// # Panics
    /// As [`Pool::new`]: if `threads` is 0 ("threads must be at least 1, got 0") or over
    /// [`MAX_THREADS`](crate::MAX_THREADS), or if the operating system refuses a worker thread (the workers already started are joined
    /// first). [`Pool::try_new`] with [`pool`](Self::pool) returns the error instead.
    #[track_caller]
    pub fn threads(mut self, threads: usize) -> Self {
        self.pool = Some(Pool::new(threads));
        self
    }

    /// As [`threads`](Self::threads), for a count that comes from users or configuration: the
    /// error names the setting (or the operating system's refusal) instead of panicking.
    ///
    /// ```
    /// use foldex_threaded::ThreadedEx;
    /// assert!(ThreadedEx::new().try_threads(2).is_ok());
    /// let err = ThreadedEx::new().try_threads(0).unwrap_err();
    /// assert_eq!(err.to_string(), "threads must be at least 1, got 0");
    /// ```
    pub fn try_threads(mut self, threads: usize) -> Result<Self, crate::PoolError> {
        self.pool = Some(Pool::try_new(threads)?);
        Ok(self)
    }

    /// Runs on `pool` (a [`Pool`] or an `Arc<Pool>`), shared with whoever else holds it.
    pub fn pool(mut self, pool: impl Into<Pool>) -> Self {
        self.pool = Some(pool.into());
        self
    }

    /// A fixed floor on the leaf size: ranges no longer than `basesize` are not split.
    ///
    /// # Panics
    /// If `basesize` is 0: "basesize must be at least 1, got 0".
    #[track_caller]
    pub fn basesize(self, basesize: usize) -> Self {
        let basesize = ConfigError::require_nonzero("basesize", basesize);
        self.with_basesize(Basesize::Fixed(basesize))
    }

    /// The basesize policy ([`Basesize::Auto`] by default).
    pub fn with_basesize(mut self, basesize: Basesize) -> Self {
        self.basesize = basesize;
        self
    }

    /// The basesize policy in use.
    pub fn basesize_policy(&self) -> Basesize {
        self.basesize
    }

    /// The pool this executor runs on (the global one unless set).
    pub fn current_pool(&self) -> Pool {
        self.pool.clone().unwrap_or_else(Pool::global)
    }

    fn with_pool<R>(&self, f: impl FnOnce(&Pool) -> R) -> R {
        match &self.pool {
            Some(pool) => f(pool),
            None => f(Pool::global_ref()),
        }
    }
}

impl fmt::Debug for ThreadedEx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("ThreadedEx");
        match &self.pool {
            Some(pool) => s.field("threads", &pool.threads()),
            None => s.field("pool", &"global"),
        };
        s.field("basesize", &self.basesize).finish()
    }
}

impl Executor for ThreadedEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        self.with_pool(|pool| {
            let registry = pool.registry();
            let len = job.len();
            let basesize = self.basesize.resolve(len, registry.threads());
            let bounds = job.piece_len();
            if bounds.split(0..len, basesize).is_none() {
                // One leaf: waking a worker for it would only add latency.
                return WAITING.run(job, 0..len);
            }
            let splitter = Splitter::new(self.basesize, len, registry.threads(), bounds);
            let caller = Context::current(registry);
            // Under the automatic basesize the fold is timed where the pool runs it, to learn
            // whether folds of its length should run inline (`inline.rs`); a loader's epoch
            // never runs inline.
            let learn = (self.basesize == Basesize::Auto && job.caller() != Caller::StandsIn)
                .then(|| caller.inline_table());
            match &caller {
                Context::Worker(_) => fold_root(&caller, job, splitter, true, learn),
                Context::Outside(_) => offer(
                    || fold_root(&Context::current(registry), job, splitter, false, learn),
                    |task| registry.inject(task),
                    |latch| registry.wait_for_offer(latch),
                ),
            }
        })
    }

    /// [`RunsInline::Yes`] with a fixed basesize for a fold no longer than it, and with the
    /// automatic one for a fold of one item, or of a length whose last timed fold took less
    /// than a wake-up shared among the pool's threads; one such fold in 16 is
    /// [`RunsInline::Timed`] instead, and [`ran_inline`](Executor::ran_inline) learns its
    /// length again (or forgets it) from what it took.
    fn runs_inline(&self, len: usize) -> RunsInline {
        match self.basesize {
            Basesize::Fixed(basesize) if len <= basesize.get() => RunsInline::Yes,
            Basesize::Fixed(_) => RunsInline::No,
            Basesize::Auto if len <= 1 => RunsInline::Yes,
            Basesize::Auto => self.with_pool(|pool| {
                inline::recall(Context::current(pool.registry()).inline_table(), len)
            }),
        }
    }

    /// Learns from a fold of a length remembered inline, timed on the caller: inline again if
    /// it took less than a wake-up shared among the pool's threads, else forgotten (the next
    /// fold of that length runs on the pool, timed).
    fn ran_inline(&self, len: usize, took: Duration) {
        self.with_pool(|pool| {
            let registry = pool.registry();
            let caller = Context::current(registry);
            inline::learn(caller.inline_table(), len, registry.threads(), took);
        });
    }

    fn workers(&self) -> usize {
        self.with_pool(Pool::threads)
    }

    fn is_worker_thread(&self) -> bool {
        self.with_pool(Pool::is_worker_thread)
    }

    /// Runs one queued task of this executor's pool on the calling thread, and never waits.
    /// From outside the pool it takes only a task a worker forked, and only while every worker
    /// is busy (a fold submitted from outside, or a task a worker looking for work is about to
    /// take, is left to the workers, who would otherwise sit idle while this thread runs it
    /// alone), and runs the task's whole range here as one leaf, since halves forked from here
    /// would have to be waited for, perhaps on workers that are themselves waiting for this
    /// thread (a loader's consumer, blocked producers). A pool worker (a fold nested in one of
    /// its tasks) forks and helps as usual.
    fn help(&self) -> bool {
        self.with_pool(|pool| {
            let ctx = Context::current(pool.registry());
            match ctx.find_work() {
                Some(task) => {
                    WAITING.while_waiting(|| task.run());
                    true
                }
                None => {
                    if matches!(ctx, Context::Outside(_)) {
                        pool.registry().request_share();
                    }
                    false
                }
            }
        })
    }

    /// Runs `first` here and leaves `second` pending on this worker's stack, shared with
    /// another worker only if one wants work before `first` is done (as every fork of a fold
    /// is). From outside the pool, the join goes to the workers as a fold does, and runs
    /// here if every worker is busy and none has started it.
    fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
        self.with_pool(|pool| {
            let registry = pool.registry();
            match Context::current(registry) {
                ctx @ Context::Worker(_) => ctx.join_halves(first, second),
                Context::Outside(_) => offer(
                    || Context::current(registry).join_halves(first, second),
                    |task| registry.inject(task),
                    |latch| registry.wait_for_offer(latch),
                ),
            }
        })
    }
}

/// Folds the whole of `job` on the thread that starts it. A fold nested in a piece of work on
/// this pool (`nested`), or one taken from outside while no thread wants work, hands its forks
/// over only on demand ([`Splitter::on_busy_pool`]): a thread that wants work then gets the
/// oldest pending fork, an outer fold's larger piece. A loader's epoch always hands them over
/// (its helper needs every fork queued). With `learn`, the fold is timed, and what it took is
/// learned into that table (the caller's: `inline.rs`).
fn fold_root<'a>(
    ctx: &Context<'_>,
    job: &dyn Job<'a>,
    splitter: Splitter,
    nested: bool,
    learn: Option<&ChoiceTable>,
) -> Partial<'a> {
    let on_demand = matches!(ctx, Context::Worker(_))
        && (nested || !ctx.registry().wants_work())
        && job.caller() != Caller::StandsIn;
    let splitter = if on_demand {
        splitter.on_busy_pool()
    } else {
        splitter
    };
    let started = learn.map(|table| (table, Instant::now()));
    let partial = fold_range(ctx, job, 0..job.len(), splitter);
    // A fold that stopped early (a `Break`, a panic) cost less than its length will: it
    // teaches nothing.
    if let Some((table, started)) = started
        && !job.is_stopped(job.len() - 1)
    {
        let took = started.elapsed();
        inline::learn(table, job.len(), ctx.registry().threads(), took);
    }
    partial
}

/// Folds `range`: one leaf if the splitter says so (or the job has stopped, or this thread is
/// outside the pool), else fork the right half, fold the left one here, and combine.
fn fold_range<'a>(
    ctx: &Context<'_>,
    job: &dyn Job<'a>,
    range: Range<usize>,
    splitter: Splitter,
) -> Partial<'a> {
    if job.is_stopped(range.start) {
        // Cheap: `run` of a stopped range returns at once; it must still give its partial.
        return WAITING.run(job, range);
    }
    let Context::Worker(worker) = ctx else {
        // A task taken by `help` from outside the pool: this thread has no deque, and could
        // only wait for forked halves, so it runs the whole range, in pieces within the job's
        // bounds.
        return run_pieces(job, range, |piece| WAITING.run(job, piece));
    };
    let Some((left, right, splitter)) = splitter.split(range.clone()) else {
        return WAITING.run(job, range);
    };
    let registry = ctx.registry();
    let forked_on = worker.index();
    let (left_partial, right_partial) = ctx.join(
        splitter.share,
        || fold_range(ctx, job, left, splitter),
        move || {
            let ctx = Context::current(registry);
            let splitter = match &ctx {
                Context::Worker(w) if w.index() == forked_on => splitter,
                _ => splitter.stolen(),
            };
            fold_range(&ctx, job, right, splitter)
        },
    );
    job.combine(left_partial, right_partial)
}
