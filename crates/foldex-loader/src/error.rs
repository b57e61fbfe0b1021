//! Why a loader refuses to start an epoch.

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
