//! [`Pool`], the public handle to a pool of worker threads: making one (directly or through
//! [`PoolBuilder`]), sharing it, asking about it. The threads, deques and sleep behind it are
//! the registry's (`crate::registry`).

pub(crate) mod builder;

use self::builder::PoolBuilder;
use crate::registry::{current_worker, Registry, WorkerOptions, Workers};
use foldex_core::ConfigError;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A pool of worker threads for [`ThreadedEx`](crate::ThreadedEx); a cheap handle, shared by
/// cloning.
///
/// Each worker owns a deque (it pops its own tasks newest first, thieves steal oldest first);
/// calls from outside the pool enter through a shared injector. Idle workers spin briefly, then
/// park and use no CPU until work arrives. Threads are named `foldex-threaded-N`.
///
/// Dropping the last handle to a pool made with [`Pool::new`] stops and joins its threads.
/// [`Pool::global`] is created on first use, sized by the available parallelism, and lives as
/// long as the process.
///
/// ```
/// use foldex_core::ExecutorExt;
/// use foldex_threaded::{Pool, ThreadedEx};
/// let pool = Pool::new(2);
/// let a = ThreadedEx::new().pool(pool.clone());
/// let b = ThreadedEx::new().pool(pool).basesize(100);
/// assert_eq!(a.sum::<usize>(0..1000), b.sum::<usize>(0..1000));
/// ```
#[derive(Clone)]
pub struct Pool {
    workers: Arc<Workers>,
}

impl Pool {
    /// A pool of `threads` worker threads.
    ///
    /// # Panics
    /// With the message of [`Pool::try_new`]'s error: if `threads` is 0 ("threads must be at
    /// least 1, got 0") or over [`MAX_THREADS`](crate::MAX_THREADS), or if the operating system refuses a worker thread ("foldex-threaded:
    /// could not start worker 299 of 1000 (threads = 1000): Resource temporarily unavailable
    /// (os error 11)"), once the workers already started are stopped and joined.
    #[track_caller]
    pub fn new(threads: usize) -> Self {
        match Self::try_new(threads) {
            Ok(pool) => pool,
            Err(e) => panic!("{e}"),
        }
    }

    /// A pool of `threads` worker threads, or why it could not be made: `threads` is 0 (a pool
    /// of no thread; [`PoolBuilder::threads`] is where 0 means the default, as in rayon's
    /// builder) or over [`MAX_THREADS`](crate::MAX_THREADS), or the operating system refused to
    /// start a worker (a limit on threads such as `ulimit -u`, or no memory for its stack). In
    /// the last case the workers started before it are stopped and joined before this returns:
    /// a pool that fails to start leaves no thread behind.
    ///
    /// For thread counts that come from users or configuration, where [`Pool::new`]'s panic
    /// would be the wrong answer.
    ///
    /// ```
    /// use foldex_threaded::Pool;
    ///
    /// let pool = Pool::try_new(2)?;
    /// assert_eq!(pool.threads(), 2);
    /// let err = Pool::try_new(0).unwrap_err();
    /// assert_eq!(err.to_string(), "threads must be at least 1, got 0");
    /// # Ok::<(), foldex_threaded::PoolError>(())
    /// ```
    pub fn try_new(threads: usize) -> Result<Self, crate::error::PoolError> {
        ConfigError::nonzero("threads", threads).map_err(crate::error::PoolError::config)?;
        Self::builder().threads(threads).build()
    }

    /// Settings for a pool beyond its thread count: thread names, stack size, start and exit
    /// handlers; see [`PoolBuilder`].
    pub fn builder() -> PoolBuilder {
        PoolBuilder::new()
    }

    /// Starts `threads` workers (at least 1) made with `options`.
    pub(crate) fn start(
        threads: usize,
        options: WorkerOptions,
    ) -> Result<Self, crate::error::PoolError> {
        Ok(Self {
            workers: Arc::new(Workers::start(threads, options)?),
        })
    }

    /// The process-wide pool, created on first use with [`PoolBuilder`]'s defaults: as many
    /// threads as `FOLDEX_NUM_THREADS` says, or one per available core.
    ///
    /// # Panics
    /// If `FOLDEX_NUM_THREADS` is not a whole number, or is over
    /// [`MAX_THREADS`](crate::MAX_THREADS), or the operating system refuses a worker, with
    /// [`PoolBuilder::build`]'s message.
    pub fn global() -> Self {
        Self::global_ref().clone()
    }

    /// The global pool, borrowed: a fold on it touches no reference count (two workers cloning
    /// one `Arc` per nested fold would fight over its cache line).
    pub(crate) fn global_ref() -> &'static Pool {
        static GLOBAL: OnceLock<Pool> = OnceLock::new();
        GLOBAL.get_or_init(|| match PoolBuilder::new().build() {
            Ok(pool) => pool,
            Err(e) => panic!("{e}"),
        })
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.workers.registry().threads()
    }

    /// `true` when the calling thread is one of this pool's workers.
    pub fn is_worker_thread(&self) -> bool {
        current_worker(self.workers.registry()).is_some()
    }

    /// The index (the `N` of `foldex-threaded-N`) of the calling thread in this pool, or `None`
    /// outside it.
    pub fn current_thread_index(&self) -> Option<usize> {
        current_worker(self.workers.registry()).map(|w| w.index())
    }

    /// `true` when both handles refer to the same pool.
    pub fn ptr_eq(&self, other: &Pool) -> bool {
        Arc::ptr_eq(&self.workers, &other.workers)
    }

    pub(crate) fn registry(&self) -> &Registry {
        self.workers.registry()
    }
}

impl From<Arc<Pool>> for Pool {
    fn from(pool: Arc<Pool>) -> Self {
        (*pool).clone()
    }
}

impl From<&Pool> for Pool {
    fn from(pool: &Pool) -> Self {
        pool.clone()
    }
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads())
            .finish_non_exhaustive()
    }
}
