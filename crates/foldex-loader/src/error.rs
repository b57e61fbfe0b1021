//! Why a loader refuses to start or resume an epoch.

use crate::channel::{MAX_BATCHES, MAX_BUFFER};
use crate::counted::counted;
use std::fmt;

/// Why a loader refused to start an epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IterError {
    /// The calling thread is a worker of the executor that feeds the loader.
    InsideExecutorPool,
    /// The epoch has more batches than a loader can number (`usize::MAX / 16`: the channel
    /// keeps a batch's number and three flags in one word, with room for a lap beyond it).
    TooManyBatches {
        /// The batches in the epoch.
        batches: usize,
        /// The loader's batch size.
        batch_size: usize,
    },
    /// The buffer is larger than [`MAX_BUFFER`], and so is the epoch: the epoch's buffer
    /// would have more places than a loader makes (they are made when the epoch starts).
    BufferTooLarge {
        /// The loader's buffer.
        buffer: usize,
        /// The batches in the epoch.
        batches: usize,
    },
    /// The last epoch number was used: epochs are numbered below `u64::MAX`, and wrapping to
    /// 0 would repeat epoch 0's order. Only a resumed state near `u64::MAX` gets here.
    LastEpoch,
    /// The sampler's order does not fit the dataset (the message says how).
    Sampler(String),
}

impl fmt::Display for IterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InsideExecutorPool => f.write_str(
                "foldex-loader: a loader cannot be iterated on a worker thread of the executor \
                 that feeds it (the consumer would wait for batches that only its own pool can \
                 compute); iterate it outside that pool, or give the loader another executor",
            ),
            Self::TooManyBatches {
                batches,
                batch_size,
            } => write!(
                f,
                "foldex-loader: an epoch of {} (batch_size {batch_size}) is more than a loader \
                 can number (at most {MAX_BATCHES}); raise batch_size or load a part of the \
                 dataset",
                counted(*batches as u64, "batch", "batches")
            ),
            Self::BufferTooLarge { buffer, batches } => write!(
                f,
                "foldex-loader: buffer {buffer} is more than a loader makes room for in an \
                 epoch of {} (at most {MAX_BUFFER}, made when the epoch starts); lower buffer",
                counted(*batches as u64, "batch", "batches")
            ),
            Self::LastEpoch => write!(
                f,
                "foldex-loader: no epoch can follow epoch {}: epochs are numbered below \
                 u64::MAX, and wrapping to 0 would repeat epoch 0's order",
                u64::MAX - 1
            ),
            Self::Sampler(why) => write!(f, "foldex-loader: {why}"),
        }
    }
}

impl std::error::Error for IterError {}

/// Why a loader refused to resume from a [`LoaderState`](crate::LoaderState).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResumeError {
    /// The state was taken from a loader with other settings (sampler, seed, shard, batch size
    /// or dataset length; for a [`StreamState`](crate::stream::StreamState), shards,
    /// interleave, shuffle buffer or a stream position this loader cannot have reached);
    /// resuming would not continue the same epoch.
    Mismatch {
        /// Which setting differs.
        setting: &'static str,
        /// Its value in the state.
        state: String,
        /// Its value in this loader.
        loader: String,
    },
    /// The state names batches this epoch does not have.
    OutOfRange {
        /// The batches in the epoch.
        batches: usize,
    },
    /// The state's epoch is `u64::MAX`, which no loader reaches by counting: the epoch after
    /// it would have no number of its own (wrapping to 0 would repeat epoch 0's order).
    LastEpoch {
        /// The state's epoch.
        epoch: u64,
    },
    /// The states do not describe one epoch of one world (a rank missing or given twice,
    /// states of different worlds, epochs or remainders, a malformed remainder), or ranks
    /// cannot be taken to be in step; the message names what and both sides.
    Inconsistent(String),
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Mismatch { setting, state, loader } => write!(
                f,
                "foldex-loader: cannot resume: the state has {setting} {state}, this loader {loader}"
            ),
            Self::OutOfRange { batches } => write!(
                f,
                "foldex-loader: cannot resume: the state names batches beyond the epoch's {batches}"
            ),
            Self::LastEpoch { epoch } => write!(
                f,
                "foldex-loader: cannot resume: the state has epoch {epoch}, and epochs are \
                 numbered below u64::MAX (the epoch after it would have no number); the state \
                 is corrupt"
            ),
            Self::Inconsistent(why) => write!(f, "foldex-loader: cannot resume: {why}"),
        }
    }
}

impl std::error::Error for ResumeError {}
