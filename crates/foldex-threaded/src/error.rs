//! [`PoolError`]: why a [`Pool`](crate::Pool) could not be made.

use foldex_core::ConfigError;
use std::error::Error;
use std::fmt;
use std::io;

/// Why [`Pool::try_new`](crate::Pool::try_new) could not make a pool: the `threads` setting is
/// out of range, or the operating system refused to start a worker thread (a limit on
/// processes or threads such as `ulimit -u`, or no memory left for a thread's stack).
///
/// When a worker could not start, the workers started before it have already been told to stop
/// and have been joined: no thread of the pool is left behind. The message names the setting
/// and the operating system's error, for example "foldex-threaded: could not start worker 299
/// of 1000 (threads = 1000): Resource temporarily unavailable (os error 11)".
///
/// ```
/// use foldex_threaded::Pool;
///
/// let err = Pool::try_new(0).unwrap_err();
/// assert_eq!(err.setting(), "threads");
/// assert_eq!(err.to_string(), "threads must be at least 1, got 0");
/// assert!(err.os_error().is_none());
/// ```
#[derive(Debug)]
pub struct PoolError {
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// The setting is out of range.
    Config(ConfigError),
    /// Worker `worker` of `threads` could not start.
    Spawn {
        worker: usize,
        threads: usize,
        error: io::Error,
    },
}

impl PoolError {
    /// The setting is out of range.
    pub(crate) fn config(error: ConfigError) -> Self {
        Self {
            kind: Kind::Config(error),
        }
    }

    /// Worker `worker` of a pool of `threads` could not start; the ones before it are joined.
    pub(crate) fn spawn(worker: usize, threads: usize, error: io::Error) -> Self {
        Self {
            kind: Kind::Spawn {
                worker,
                threads,
                error,
            },
        }
    }

    /// The setting the error is about, as the builder method spells it: `threads`.
    pub fn setting(&self) -> &'static str {
        match &self.kind {
            Kind::Config(error) => error.setting(),
            Kind::Spawn { .. } => "threads",
        }
    }

    /// The operating system's error when a worker thread could not start; `None` when the
    /// setting is out of range.
    pub fn os_error(&self) -> Option<&io::Error> {
        match &self.kind {
            Kind::Config(_) => None,
            Kind::Spawn { error, .. } => Some(error),
        }
    }

    /// The index of the worker that could not start, which is also the number of workers that
    /// had started (and have been joined since); `None` when the setting is out of range.
    pub fn worker(&self) -> Option<usize> {
        match &self.kind {
            Kind::Config(_) => None,
            Kind::Spawn { worker, .. } => Some(*worker),
        }
    }
}

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Config(error) => error.fmt(f),
            Kind::Spawn {
                worker,
                threads,
                error,
            } => write!(
                f,
                "foldex-threaded: could not start worker {worker} of {threads} \
                 (threads = {threads}): {error}"
            ),
        }
    }
}

/// The message already includes the underlying error, so [`Error::source`] is `None`;
/// [`PoolError::os_error`] gives the operating system's error itself.
impl Error for PoolError {}
