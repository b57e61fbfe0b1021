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
    /// core ([`default_threads`]); workers named `foldex-threaded-N`; the platform's stack size.
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of worker threads, at most [`MAX_THREADS`] (checked by
    /// [`build`](Self::build)). 0, as for rayon's `ThreadPoolBuilder::num_threads`, means the
    /// default: [`default_threads`].
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
            Some(0) | None => default_threads(),
            Some(threads) => check_threads(threads),
        }
        .map_err(PoolError::config)?;
        if let Some(bytes) = self.options.stack_size {
            ConfigError::nonzero("stack_size", bytes).map_err(PoolError::config)?;
        }
        Pool::start(threads, self.options)
    }
}

/// The thread count of [`NUM_THREADS_VAR`] when it is set to a whole number from 1 to
/// [`MAX_THREADS`], else (unset, empty or 0, as rayon reads `RAYON_NUM_THREADS`) one per
/// available core, at most [`MAX_THREADS`]; or why the variable's value cannot be used (not a
/// whole number, or over the cap), naming the variable and the value.
///
/// ```
/// // With FOLDEX_NUM_THREADS unset (as in this test), one thread per available core.
/// assert_eq!(foldex_threaded::default_threads(), Ok(foldex_core::available_parallelism()));
/// ```
pub fn default_threads() -> Result<usize, ConfigError> {
    threads_from_var(std::env::var(NUM_THREADS_VAR).ok().as_deref())
}

/// The thread count that [`NUM_THREADS_VAR`] set to `value` (`None`: unset) gives.
fn threads_from_var(value: Option<&str>) -> Result<usize, ConfigError> {
    let text = value.map_or("", str::trim);
    if text.is_empty() {
        return Ok(cores());
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ConfigError::new(
            NUM_THREADS_VAR,
            format!("{:?}", value.unwrap_or_default()),
            "a whole number (0 or empty: one thread per available core)",
        ));
    }
    // All digits: only a value too large for `usize` fails to parse, and it is over the cap.
    match text.parse::<usize>() {
        Ok(0) => Ok(cores()),
        Ok(threads) if threads <= MAX_THREADS => Ok(threads),
        _ => Err(over_the_cap(
            NUM_THREADS_VAR,
            format!("{:?}", value.unwrap_or_default()),
        )),
    }
}

/// One thread per available core, at most [`MAX_THREADS`].
fn cores() -> usize {
    foldex_core::available_parallelism().min(MAX_THREADS)
}

/// The literal of [`MAX_THREADS`], for the messages that name it.
macro_rules! max_threads {
    () => {
        4096
    };
}

/// The most worker threads a pool may have: 4096, more than the cores of all but the largest
/// single machines, and far below where starting threads exhausts the process's memory
/// maps (the standard library then aborts the process while setting up a thread's signal
/// stack). A larger count, from [`PoolBuilder::threads`], [`Pool::try_new`] or
/// [`NUM_THREADS_VAR`], is refused with an error that names the setting, this cap and the value.
pub const MAX_THREADS: usize = max_threads!();

/// `setting` was given `value`, over [`MAX_THREADS`].
fn over_the_cap(setting: &'static str, value: impl fmt::Display) -> ConfigError {
    ConfigError::new(
        setting,
        value,
        concat!(
            "at most ",
            max_threads!(),
            " (foldex_threaded::MAX_THREADS)"
        ),
    )
}

/// `threads` for a pool, checked against [`MAX_THREADS`] (a zero is the caller's to refuse or to
/// read as the default).
fn check_threads(threads: usize) -> Result<usize, ConfigError> {
    if threads > MAX_THREADS {
        Err(over_the_cap("threads", threads))
    } else {
        Ok(threads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_empty_and_zero_mean_one_thread_per_core_as_for_rayon() {
        let cores = foldex_core::available_parallelism().min(MAX_THREADS);
        for value in [None, Some(""), Some("  "), Some("0"), Some(" 0 ")] {
            assert_eq!(threads_from_var(value), Ok(cores), "{value:?}");
        }
    }

    #[test]
    fn a_whole_number_up_to_the_cap_is_the_count() {
        assert_eq!(threads_from_var(Some("1")), Ok(1));
        assert_eq!(threads_from_var(Some(" 12\n")), Ok(12));
        let cap = MAX_THREADS.to_string();
        assert_eq!(threads_from_var(Some(&cap)), Ok(MAX_THREADS));
    }

    #[test]
    fn over_the_cap_is_refused_naming_the_variable_the_cap_and_the_value() {
        for value in [
            "100000",
            &(MAX_THREADS + 1).to_string(),
            "99999999999999999999999",
        ] {
            let err = threads_from_var(Some(value)).unwrap_err();
            assert_eq!(err.setting(), NUM_THREADS_VAR);
            assert_eq!(
                err.to_string(),
                format!(
                    "FOLDEX_NUM_THREADS must be at most {MAX_THREADS} \
                     (foldex_threaded::MAX_THREADS), got \"{value}\""
                )
            );
        }
    }

    #[test]
    fn not_a_number_is_refused_naming_the_variable_and_the_value() {
        for value in ["many", "-1", "2.5", "0x10", "4 threads"] {
            let err = threads_from_var(Some(value)).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!(
                    "FOLDEX_NUM_THREADS must be a whole number (0 or empty: one thread per \
                     available core), got \"{value}\""
                )
            );
        }
    }
}
