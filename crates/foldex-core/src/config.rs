//! Settings shared by every executor, and the error for a setting out of range.

use std::fmt;
use std::num::NonZeroUsize;

/// A setting that was given a value out of its range. The message names both.
///
/// ```
/// use foldex_core::Basesize;
/// let err = Basesize::fixed(0).unwrap_err();
/// assert_eq!(err.to_string(), "basesize must be at least 1, got 0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    setting: &'static str,
    value: String,
    expected: &'static str,
}

impl ConfigError {
    /// `setting` was given `value`, but it `expected` (for example "at least 1").
    pub fn new(setting: &'static str, value: impl fmt::Display, expected: &'static str) -> Self {
        Self {
            setting,
            value: value.to_string(),
            expected,
        }
    }

    /// The name of the setting, as the builder method spells it (`basesize`, `ntasks`...).
    pub fn setting(&self) -> &'static str {
        self.setting
    }

    /// Refuses a zero for `setting`; otherwise returns the value as a `NonZeroUsize`.
    pub fn nonzero(setting: &'static str, value: usize) -> Result<NonZeroUsize, Self> {
        NonZeroUsize::new(value).ok_or_else(|| Self::new(setting, value, "at least 1"))
    }

    /// For builder setters (`.basesize(n)`, `.ntasks(n)`...): the value, or a panic whose
    /// message is this error's, naming the setting and the value. Zero is a programming error,
    /// as `slice::chunks(0)` is; code that takes sizes from users validates with
    /// [`ConfigError::nonzero`] first.
    ///
    /// ```should_panic
    /// foldex_core::ConfigError::require_nonzero("ntasks", 0); // "ntasks must be at least 1, got 0"
    /// ```
    #[track_caller]
    pub fn require_nonzero(setting: &'static str, value: usize) -> NonZeroUsize {
        // A `match`, not `unwrap_or_else`: a closure would report its own line, not the caller's.
        match Self::nonzero(setting, value) {
            Ok(value) => value,
            Err(e) => panic!("{e}"),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} must be {}, got {}",
            self.setting, self.expected, self.value
        )
    }
}

impl std::error::Error for ConfigError {}

/// The smallest number of consecutive indices an executor runs as one sequential piece.
///
/// `Auto` gives `len / (4 × workers)` (at least 1): four pieces per worker, enough to even out
/// uneven work without paying per-piece overhead on cheap items. A fixed basesize is a floor
/// on the leaf size; it is never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Basesize {
    /// `len / (4 × workers)`, at least 1.
    #[default]
    Auto,
    /// Exactly this floor.
    Fixed(NonZeroUsize),
}

impl Basesize {
    /// How many pieces per worker `Auto` aims for.
    pub const PIECES_PER_WORKER: usize = 4;

    /// A fixed basesize; zero is refused with an error that names the setting.
    pub fn fixed(basesize: usize) -> Result<Self, ConfigError> {
        ConfigError::nonzero("basesize", basesize).map(Self::Fixed)
    }

    /// The leaf size for a job of `len` indices on `workers` threads (always at least 1).
    pub fn resolve(self, len: usize, workers: usize) -> usize {
        match self {
            Self::Fixed(n) => n.get(),
            Self::Auto => (len / (Self::PIECES_PER_WORKER * workers.max(1))).max(1),
        }
    }
}

impl fmt::Display for Basesize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Fixed(n) => write!(f, "{n}"),
        }
    }
}

/// The number of threads this machine can run in parallel (at least 1).
pub fn available_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}
