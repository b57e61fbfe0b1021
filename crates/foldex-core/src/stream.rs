//! Inputs that cannot be indexed: an iterator, folded on any executor by pulling it in batches.

use crate::config::ConfigError;
use std::fmt;
use std::num::NonZeroUsize;
use std::time::Duration;

/// What an automatic batch aims to cost at the least, pulled and folded: long next to what it
/// pays once (the pull lock, handed to a thread that may have to be woken, and the ordered
/// combine), short enough that the threads share a stream's end evenly. A fold whose `init` and
/// `combine` cost more aims longer, so that they stay a small share of its work (the balance is
/// in `crates/foldex-core/src/fold/stream.rs`).
pub const STREAM_BATCH_TIME: Duration = Duration::from_micros(200);

/// The largest automatic batch, in items (65 536): the bound on what one turn holds. Batches
/// this large come only from a fold whose `init` and `combine` cost far more than its items
/// (a `HashMap` per piece over cheap lines), where fewer pieces pay for the memory.
pub const MAX_AUTO_BATCH: usize = 1 << 16;

/// An iterator given to a fold as its input: lines of a file, a directory walk, messages from
/// a channel, anything that is `Iterator + Send` and cannot be indexed (rayon's `par_bridge`,
/// with the order kept).
///
/// One thread at a time pulls the next batch of items; batches are folded as pieces on the
/// executor's threads and combined in input order, so the result is the sequential fold's on
/// every executor. At most one batch per thread running the fold is held at once, and a
/// `Break` or a panic stops the pulling at once. The iterator's `next` runs under the pull
/// lock, on whichever thread pulls: do the heavy work per item in the fold's step. A panic in
/// `next` is raised as a panic of the fold (unless a `Break` comes before it), after the items
/// before it were folded. `crates/foldex-core/src/fold/stream.rs` explains the mechanism.
///
/// ```
/// use foldex_core::{ExecutorExt, Stream};
/// use foldex_seq::SequentialEx;
/// use std::io::BufRead;
///
/// let text = "to fold\nor not\nto fold\n";
/// let lines = std::io::Cursor::new(text).lines().map(Result::unwrap);
/// let words = SequentialEx.map_reduce(
///     Stream::new(lines),
///     |line| line.split_whitespace().count(),
///     || 0,
///     |a, b| a + b,
/// );
/// assert_eq!(words, 6);
/// ```
#[must_use = "a stream does nothing until a fold runs it"]
pub struct Stream<I> {
    pub(crate) iter: I,
    pub(crate) batch_size: Option<NonZeroUsize>,
}

impl<I: Iterator> Stream<I> {
    /// The items of `iter`, pulled in batches whose size adapts to what an item costs (see
    /// [`Stream::batch_size`]).
    pub fn new(iter: impl IntoIterator<IntoIter = I>) -> Self {
        Self {
            iter: iter.into_iter(),
            batch_size: None,
        }
    }

    /// Pulls exactly `batch_size` items per batch (the last may be shorter). By default the
    /// size adapts: one item at first, then as many as take about
    /// [`STREAM_BATCH_TIME`] to pull and fold, or longer where `init` and `combine` are costly
    /// (a `HashMap` per piece), so that the fold makes a few accumulators rather than one per
    /// batch; at most [`MAX_AUTO_BATCH`].
    ///
    /// # Panics
    /// On zero, with a message that names the setting; [`Stream::try_batch_size`] returns the
    /// error instead.
    #[track_caller]
    pub fn batch_size(self, batch_size: usize) -> Self {
        Self {
            batch_size: Some(ConfigError::require_nonzero("batch_size", batch_size)),
            ..self
        }
    }

    /// [`Stream::batch_size`], with zero refused as an error that names the setting.
    ///
    /// ```
    /// use foldex_core::Stream;
    /// let err = Stream::new(0..3).try_batch_size(0).err().unwrap();
    /// assert_eq!(err.to_string(), "batch_size must be at least 1, got 0");
    /// ```
    pub fn try_batch_size(self, batch_size: usize) -> Result<Self, ConfigError> {
        let batch_size = ConfigError::nonzero("batch_size", batch_size)?;
        Ok(Self {
            batch_size: Some(batch_size),
            ..self
        })
    }
}

impl<I> Stream<I> {
    /// The same stream, batch size included, over the iterator `adapt` makes of this one's:
    /// for a layer that numbers or guards the items on their way into a fold.
    ///
    /// ```
    /// use foldex_core::{ExecutorExt, Stream};
    /// use foldex_seq::SequentialEx;
    /// let numbered = Stream::new(["a", "b"]).batch_size(1).adapt(|it| it.enumerate());
    /// assert_eq!(SequentialEx.collect_vec(numbered), [(0, "a"), (1, "b")]);
    /// ```
    pub fn adapt<J: Iterator>(self, adapt: impl FnOnce(I) -> J) -> Stream<J> {
        Stream {
            iter: adapt(self.iter),
            batch_size: self.batch_size,
        }
    }
}

impl<I> fmt::Debug for Stream<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream")
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}
