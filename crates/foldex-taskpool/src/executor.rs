//! [`TaskPoolEx`]: the builder and its [`Executor`] implementation.

use crate::pool::{Pool, Shared, Takers};
use crate::run::FoldRun;
use crate::waiting::WAITING;
use foldex_core::exec::{task_scope, JoinHalf, ScopeLatch};
use foldex_core::{
    available_parallelism, Basesize, ConfigError, Executor, ExecutorExt, Job, Partial, RunsInline,
};
use std::fmt;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// What the thread that calls `execute` does with the fold's chunks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CallersPart {
    /// Runs chunks, as one of the `ntasks` lanes.
    Runs,
    /// Stands in for a helper: its lane is queued for helpers only, and it waits.
    LeavesToHelpers,
    /// Stands in for a helper with no lane for the workers (`ntasks = 1`): it runs chunks,
    /// and a lane queued for helpers lets a waiting helper run chunks beside it.
    RunsBesideHelpers,
    /// Background mode: runs nothing and waits; all `ntasks` lanes go to the workers.
    Waits,
}

/// A pool of `ntasks` threads, started by the first fold that needs them.
struct Threads {
    ntasks: NonZeroUsize,
    pool: OnceLock<Pool>,
}

impl Threads {
    fn new(ntasks: NonZeroUsize) -> Arc<Self> {
        Arc::new(Self {
            ntasks,
            pool: OnceLock::new(),
        })
    }

    /// The pool, started by the first call. When a worker cannot start, the workers started
    /// before it are joined and this panics with a message that names `ntasks` and the
    /// operating system's error; the cell stays empty, so the next call tries again.
    fn pool(&self) -> &Pool {
        self.pool
            .get_or_init(|| Pool::start(self.ntasks.get()).unwrap_or_else(|e| panic!("{e}")))
    }
}

/// Runs folds on `ntasks` persistent worker threads that take chunks of `basesize`
/// consecutive indices from a shared cursor, in index order, with at most `ntasks` chunks in
/// flight. For I/O-bound work (`ntasks` may exceed the number of cores), back pressure and
/// bounded memory, and for keeping the caller's thread free ([`background`](Self::background)).
///
/// A `TaskPoolEx` is a cheap handle: clones share the same threads. The threads start with the
/// first fold, sleep when idle, and are joined when the last handle is dropped. Setting
/// [`ntasks`](Self::ntasks) gives the handle a new pool of its own; [`basesize`](Self::basesize)
/// and [`background`](Self::background) are per handle, so one pool can serve both modes.
///
/// A fold started inside a step of a fold on the same pool (on one of its workers, or, with
/// background off, on a caller that runs chunks) is *nested*. While every one of the pool's
/// `ntasks` runs chunks already (its busy workers and such callers), nobody could take part
/// of a nested fold: it runs whole on the thread that started it, as the sequential loop
/// would ([`Executor::runs_inline`] answers `true`), with no lane queued and no thread woken.
/// While a task is free, a nested fold queues lanes as any fold does, so that the free task
/// takes part of it at once (and items of it that wait for each other meet). Either way its
/// chunks start in index order and each runs once; its items that wait for each other meet
/// only if a task is free when it starts.
///
/// ```
/// use foldex_core::ExecutorExt;
/// use foldex_taskpool::TaskPoolEx;
///
/// let pool = TaskPoolEx::new().ntasks(8).basesize(1).background(true);
/// // Each item waits on I/O: 8 at a time, in index order, none on this thread.
/// let total = pool.map_reduce(0..32, |i| {
///     std::thread::sleep(std::time::Duration::from_millis(1));
///     i
/// }, || 0, |a, b| a + b);
/// assert_eq!(total, 496);
/// ```
#[derive(Clone)]
pub struct TaskPoolEx {
    threads: Arc<Threads>,
    basesize: Basesize,
    background: bool,
}

impl fmt::Debug for TaskPoolEx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskPoolEx")
            .field("ntasks", &self.threads.ntasks)
            .field("basesize", &self.basesize)
            .field("background", &self.background)
            .finish()
    }
}

impl Default for TaskPoolEx {
    fn default() -> Self {
        Self::new()
    }
}

impl TaskPoolEx {
    /// One task per core, [`Basesize::Auto`] (`len / (4 × ntasks)`), background off.
    pub fn new() -> Self {
        let ntasks = NonZeroUsize::new(available_parallelism()).unwrap_or(NonZeroUsize::MIN);
        Self {
            threads: Threads::new(ntasks),
            basesize: Basesize::Auto,
            background: false,
        }
    }

    /// Runs at most `ntasks` chunks at once, on `ntasks` threads of a new pool. May exceed the
    /// number of cores, for work that waits.
    ///
    /// # Panics
    /// If `ntasks` is 0: "ntasks must be at least 1, got 0". The threads start with the first
    /// fold; if the operating system refuses one, that fold panics with a message that names
    /// `ntasks` and the system's error, once the threads already started are joined.
    #[track_caller]
    pub fn ntasks(mut self, ntasks: usize) -> Self {
        let ntasks = ConfigError::require_nonzero("ntasks", ntasks);
        if ntasks != self.threads.ntasks {
            self.threads = Threads::new(ntasks);
        }
        self
    }

    /// As [`ntasks`](Self::ntasks), for a count that comes from users or configuration: a zero
    /// is an error naming the setting, not a panic.
    ///
    /// ```
    /// use foldex_taskpool::TaskPoolEx;
    /// assert!(TaskPoolEx::new().try_ntasks(4).is_ok());
    /// let err = TaskPoolEx::new().try_ntasks(0).unwrap_err();
    /// assert_eq!(err.to_string(), "ntasks must be at least 1, got 0");
    /// ```
    pub fn try_ntasks(self, ntasks: usize) -> Result<Self, ConfigError> {
        ConfigError::nonzero("ntasks", ntasks)?;
        Ok(self.ntasks(ntasks))
    }

    /// Chunks of exactly `basesize` consecutive indices (the last may be shorter).
    ///
    /// # Panics
    /// If `basesize` is 0: "basesize must be at least 1, got 0".
    #[track_caller]
    pub fn basesize(self, basesize: usize) -> Self {
        self.with_basesize(Basesize::Fixed(ConfigError::require_nonzero(
            "basesize", basesize,
        )))
    }

    /// The chunk-size policy; [`Basesize::Auto`] (the default) gives `len / (4 × ntasks)`.
    pub fn with_basesize(mut self, basesize: Basesize) -> Self {
        self.basesize = basesize;
        self
    }

    /// `true`: no chunk ever runs on the thread that called the fold, which stays free (it
    /// sleeps until the result is ready), and [`Executor::help`] declines. `false` (the
    /// default): the caller of a blocking fold runs chunks too, as one of the `ntasks`, and a
    /// waiting consumer may run the next chunk through [`Executor::help`].
    ///
    /// A fold started on one of the pool's own workers (a nested fold) always runs chunks on
    /// that worker: it is a pool thread, not a caller to keep free, and waiting idle there
    /// could leave the pool without a thread to run the nested fold. See the type's docs for
    /// how a nested fold shares its chunks.
    ///
    /// With background off, a caller that only stands in for a helper (a job whose
    /// [`Job::caller`] is [`Caller::StandsIn`](foldex_core::Caller::StandsIn), as a loader's
    /// driver passes) runs no chunk:
    /// its lane is left to [`Executor::help`] (the loader's consumer), and the caller waits.
    /// Only when none of the work would go to the workers (`ntasks = 1`, or a single chunk)
    /// does such a caller run chunks itself, so that the fold never depends on a helper; with
    /// `ntasks = 1` a helper may still run chunks beside it, one per `help` call.
    /// Since a helper runs one chunk per `help` call, [`Basesize::Auto`] then means chunks of
    /// one index (the loader's default), not `len / (4 × ntasks)`; a fixed basesize is kept.
    pub fn background(mut self, background: bool) -> Self {
        self.background = background;
        self
    }

    /// The chunk-size policy.
    pub fn basesize_policy(&self) -> Basesize {
        self.basesize
    }

    /// Whether background mode is on.
    pub fn is_background(&self) -> bool {
        self.background
    }
}

impl Executor for TaskPoolEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let ntasks = self.threads.ntasks.get();
        let pool = self.threads.pool();
        let shared = pool.shared();
        let len = job.len();
        let on_worker = shared.is_current_worker();
        // A thread that is itself helping (inside `help`) cannot leave work to a helper.
        let stands_in = !self.background
            && !on_worker
            && job.caller() == foldex_core::Caller::StandsIn
            && !WAITING.is_waiting();
        let chunk_len = match self.basesize {
            // A helper runs one chunk per `help` call: automatic chunks (4 x ntasks of them)
            // would leave it only a handful to take. One index per chunk is the loader's
            // default, and a loader's driver is what stands in.
            Basesize::Auto if stands_in => 1,
            basesize => basesize.resolve(len, ntasks),
        };
        let worker_lanes = if self.background {
            Takers::Workers
        } else {
            Takers::Anyone
        };
        let run = FoldRun::new(job, shared, chunk_len, worker_lanes);
        // How many lanes go to the workers, and what the caller does. In foreground mode the
        // caller is one of the `ntasks`: a caller that stands in for a helper leaves its lane
        // to the helper alongside a lane for the workers (which ends the fold even if nobody
        // helps); with no lane for the workers it keeps running chunks itself, so the fold
        // never waits for a helper, and a helper that would otherwise wait runs chunks too.
        let (queued, caller) = if !stands_in && self.nested_with_no_free_task() {
            // Nobody could take part of it: the calling thread runs it all, queueing nothing.
            (0, CallersPart::Runs)
        } else if on_worker || !self.background {
            let queued = (ntasks - 1).min(run.nchunks() - 1);
            if stands_in && queued > 0 {
                (queued, CallersPart::LeavesToHelpers)
            } else if stands_in && run.nchunks() > 1 {
                (queued, CallersPart::RunsBesideHelpers)
            } else {
                (queued, CallersPart::Runs)
            }
        } else {
            (ntasks.min(run.nchunks()), CallersPart::Waits)
        };
        // A caller from outside the pool counts among the threads that run its chunks.
        let run_here = || {
            if on_worker {
                run.run_inline();
            } else {
                shared.as_caller(|| run.run_inline());
            }
        };
        if queued == 0 && caller == CallersPart::Runs {
            run_here();
        } else {
            // The queued lanes, the caller's or the helper's, and a helper on a queued one.
            run.expect_lanes(queued + 2);
            task_scope(
                |scope| {
                    run.queue_lanes(scope, queued);
                    match caller {
                        CallersPart::Runs => run_here(),
                        CallersPart::LeavesToHelpers => run.queue_helper_lane(scope),
                        CallersPart::RunsBesideHelpers => {
                            run.queue_helper_lane(scope);
                            run.run_inline();
                        }
                        CallersPart::Waits => {}
                    }
                },
                |latch| wait_or_take_back(&run, latch),
            );
        }
        run.finish()
    }

    /// [`RunsInline::Yes`] when one chunk covers the whole fold (`len` at most the basesize,
    /// resolved for `len`) and the caller runs chunks (background off, or a fold nested on a
    /// worker): `execute` would then run that chunk on the caller, queueing nothing. Also for
    /// a nested fold while every task is busy (see [`TaskPoolEx`]).
    fn runs_inline(&self, len: usize) -> RunsInline {
        let one_chunk = len <= self.basesize.resolve(len, self.threads.ntasks.get());
        if one_chunk && (!self.background || self.is_worker_thread())
            || self.nested_with_no_free_task()
        {
            RunsInline::Yes
        } else {
            RunsInline::No
        }
    }

    /// `ntasks`.
    fn workers(&self) -> usize {
        self.threads.ntasks.get()
    }

    fn is_worker_thread(&self) -> bool {
        self.threads
            .pool
            .get()
            .is_some_and(|pool| pool.shared().is_current_worker())
    }

    /// With background off: takes the next chunk of a fold in flight on this pool in
    /// foreground mode, whose lane waits for a thread (the lane a caller standing in for a
    /// helper left, or one queued for the workers), and runs it on the calling thread; the
    /// lane goes back to the queue before the chunk runs. Exactly one chunk per call. With
    /// background on: always `false`. Chunks of folds in background mode are never lent to a helper.
    fn help(&self) -> bool {
        if self.background {
            return false;
        }
        let Some(task) = self
            .threads
            .pool
            .get()
            .and_then(|pool| pool.shared().try_pop_helpable())
        else {
            return false;
        };
        WAITING.while_waiting(|| task.run());
        true
    }

    /// A fold over the two halves, one per chunk: the second goes to a task (or, in the
    /// foreground, the caller takes both if no task is free), with the nesting and
    /// background promises of any fold on this pool.
    fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
        let (first, second) = (Mutex::new(Some(first)), Mutex::new(Some(second)));
        let one_each = Self {
            basesize: Basesize::Fixed(NonZeroUsize::MIN),
            ..self.clone()
        };
        fn run_once(half: &Mutex<Option<JoinHalf<'_>>>) {
            if let Some(half) = half.lock().unwrap_or_else(PoisonError::into_inner).take() {
                half.run();
            }
        }
        one_each.for_each(0..2usize, |i| match i {
            0 => run_once(&first),
            _ => run_once(&second),
        });
    }
}

impl TaskPoolEx {
    /// `true` for a fold started inside a step of a fold on this pool, where the thread may
    /// run chunks (one of the pool's workers; with background off, a caller from outside that
    /// runs chunks of a fold on the pool), while every one of the pool's `ntasks` runs chunks
    /// already (busy workers and such callers): no task is free to take part of it, so the
    /// calling thread runs it whole, as the sequential loop would, with no lane queued and no
    /// thread woken.
    fn nested_with_no_free_task(&self) -> bool {
        self.threads.pool.get().is_some_and(|pool| {
            let shared = pool.shared();
            self.is_nested(shared) && !shared.has_free_task()
        })
    }

    /// `true` on a thread that runs chunks of a fold on this pool and may run this handle's
    /// chunks: one of the pool's workers, or, with background off, a caller from outside that
    /// runs chunks of a fold on the pool.
    fn is_nested(&self, shared: &Shared) -> bool {
        shared.is_current_worker() || (!self.background && shared.is_current_caller())
    }
}

/// How often a waiting caller checks whether its fold is stalled (see [`wait_or_take_back`]).
const STALL_POLL: Duration = Duration::from_millis(1);

/// Waits for the fold's lanes. Every chunk still to run is claimed by a running lane, or will
/// be by a queued one, which runs until the cursor is empty and then takes back the lanes still
/// queued. But the workers may all be blocked on this very thread (a fold nested across two
/// pools, a `FoldHandle` joined inside a step): if a lane of this fold sits in the queue for a
/// whole poll while the workers are busy and take nothing, the caller takes the rest of the
/// fold back and runs it itself. It then replaces the lanes it took back, so no more than
/// `ntasks` chunks run at once.
fn wait_or_take_back(run: &FoldRun<'_, '_>, latch: &ScopeLatch) {
    let mut taken = u64::MAX;
    while !latch.wait_timeout(STALL_POLL) {
        if run.is_stalled(&mut taken) {
            run.take_over();
            latch.wait();
            return;
        }
    }
}
