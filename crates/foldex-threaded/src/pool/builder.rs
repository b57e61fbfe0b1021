//! [`PoolBuilder`]: a [`Pool`] with the options a rayon user expects (thread names, stack size,
//! start and exit handlers, the thread count from `FOLDEX_NUM_THREADS`).

use crate::error::PoolError;
use crate::pool::Pool;
use crate::registry::WorkerOptions;
use foldex_core::ConfigError;
use std::fmt;
use std::sync::Arc;

/// The environment variable that sets the default thread count of pools built without
/// [`PoolBuilder::threads`], the global pool's included.
pub const NUM_THREADS_VAR: &str = "FOLDEX_NUM_THREADS";

/// Settings for a [`Pool`], as rayon's `ThreadPoolBuilder`; [`build`](Self::build) returns the
/// pool or why it could not be made.
///
/// ```
/// use foldex_threaded::{Pool, ThreadedEx};
/// use foldex_core::ExecutorExt;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
///
/// let started = Arc::new(AtomicUsize::new(0));
/// let counter = Arc::clone(&started);
/// let pool = Pool::builder()
///     .threads(2)
///     .thread_name(|i| format!("solver-{i}"))
///     .stack_size(4 << 20)
///     .start_handler(move |_| { counter.fetch_add(1, Ordering::Relaxed); })
///     .build()?;
/// assert_eq!(ThreadedEx::new().pool(pool).sum::<usize>(0..100), 4950);
/// assert_eq!(started.load(Ordering::Relaxed), 2);
/// # Ok::<(), foldex_threaded::PoolError>(())
/// ```
pub struct PoolBuilder {
    threads: Option<usize>,
    options: WorkerOptions,
}

impl fmt::Debug for PoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PoolBuilder")
            .field("threads", &self.threads)
            .field("stack_size", &self.options.stack_size)
            .finish_non_exhaustive()
    }
}

impl Default for PoolBuilder {
    fn default() -> Self {
        Self {
            threads: None,
            options: WorkerOptions {
                name: Arc::new(|index| format!("foldex-threaded-{index}")),
                stack_size: None,
                on_start: None,
                on_exit: None,
            },
        }
    }
}

impl PoolBuilder {
    /// The default settings: as many threads as [`NUM_THREADS_VAR`] says, or one per available
    /// core; workers named `foldex-threaded-N`; the platform's stack size.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of worker threads (checked by [`build`](Self::build): at least 1).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// The name of worker `index` (seen in debuggers, `top -H` and panic messages).
    pub fn thread_name(mut self, name: impl Fn(usize) -> String + Send + Sync + 'static) -> Self {
        self.options.name = Arc::new(name);
        self
    }

    /// The stack size of each worker, in bytes (checked by [`build`](Self::build): at least 1).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.options.stack_size = Some(bytes);
        self
    }

    /// Runs on each worker, with its index, before it takes any work. A panic in it is caught;
    /// the worker goes on.
    pub fn start_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.options.on_start = Some(Arc::new(handler));
        self
    }

    /// Runs on each worker, with its index, when the pool stops it (the last handle to the
    /// pool was dropped). A panic in it is caught; the worker exits.
    pub fn exit_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.options.on_exit = Some(Arc::new(handler));
        self
    }

    /// The pool; or why not: a setting out of range (naming it, [`NUM_THREADS_VAR`] included),
    /// or a worker the operating system refused (the workers started before it are joined).
    pub fn build(self) -> Result<Pool, PoolError> {
        let threads = match self.threads {
            Some(threads) => threads,
            None => default_threads().map_err(PoolError::config)?,
        };
        let threads = ConfigError::nonzero("threads", threads)
            .map_err(PoolError::config)?
            .get();
        if let Some(bytes) = self.options.stack_size {
            ConfigError::nonzero("stack_size", bytes).map_err(PoolError::config)?;
        }
        Pool::start(threads, self.options)
    }
}

/// The thread count of [`NUM_THREADS_VAR`] when it is set, else one per available core.
///
/// ```
/// // With FOLDEX_NUM_THREADS unset (as in this test), one thread per available core.
/// assert_eq!(foldex_threaded::default_threads(), Ok(foldex_core::available_parallelism()));
/// ```
pub fn default_threads() -> Result<usize, ConfigError> {
    match std::env::var(NUM_THREADS_VAR) {
        Ok(value) => value
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                ConfigError::new(
                    NUM_THREADS_VAR,
                    format!("{value:?}"),
                    "a whole number of at least 1",
                )
            }),
        Err(_) => Ok(foldex_core::available_parallelism()),
    }
}
