//! Batches of similar lengths: shuffle, sort each pool of a few dozen batches by length, cut
//! the pools into batches, shuffle the batches (torchtext's `BucketIterator`; the "bucketing"
//! of tf.data's `bucket_by_sequence_length`).

use super::{one_per_observation, Sampler};
use crate::order::EpochOrder;
use crate::permutation::Permutation;
use foldex_core::ConfigError;
use std::fmt;
use std::num::NonZeroUsize;
use std::sync::Arc;

/// An order whose batches hold observations of similar lengths (sequences to pad), so that
/// padding wastes little, while each epoch still mixes the data differently.
///
/// Each epoch shuffles the indices from `(seed, epoch)`, cuts them into pools of
/// `pool_batches` batches, sorts each pool by length, cuts it into batches of `batch_size`
/// and shuffles the order of the full batches; the one short batch, if any, comes last. Give
/// the loader the same `batch_size`, so that its batches are these. With
/// `Loader::shard`, each rank takes every `world`-th position of this
/// order, which keeps lengths close within a rank's batches, not equal.
///
/// ```
/// use foldex_dataset::sampler::ByLength;
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// let sentences: Vec<String> = (0..100).map(|i| "w ".repeat(1 + i * 7 % 40)).collect();
/// let lengths: Vec<usize> = sentences.iter().map(String::len).collect();
/// let loader = Loader::new(sentences, ThreadedEx::new().basesize(1)).batch_size(10).sampler(ByLength::new(lengths, 10, 3));
/// for batch in &loader {
///     let (shortest, longest) = (batch.iter().map(String::len).min(), batch.iter().map(String::len).max());
///     assert!(longest.unwrap() - shortest.unwrap() <= 16); // sorted within pools of 100
/// }
/// ```
#[derive(Clone)]
pub struct ByLength {
    lengths: Arc<[usize]>,
    batch_size: NonZeroUsize,
    pool_batches: NonZeroUsize,
    seed: u64,
}

/// Batches per pool by default: enough for lengths to sort well, few enough to keep epochs
/// mixed.
const POOL_BATCHES: usize = 64;

impl ByLength {
    /// Buckets for observations of these `lengths` (one per observation) in batches of
    /// `batch_size`, from `seed`; pools of 64 batches.
    ///
    /// # Panics
    /// If `batch_size` is 0, naming it.
    #[track_caller]
    pub fn new(lengths: impl Into<Vec<usize>>, batch_size: usize, seed: u64) -> Self {
        Self {
            lengths: lengths.into().into(),
            batch_size: ConfigError::require_nonzero("batch_size", batch_size),
            pool_batches: NonZeroUsize::new(POOL_BATCHES).expect("not zero"),
            seed,
        }
    }

    /// Sorts pools of `batches` batches (default 64): more sorts lengths closer, fewer mixes
    /// epochs more. A pool of `usize::MAX` batches sorts the whole epoch.
    ///
    /// # Panics
    /// If `batches` is 0, naming it.
    #[track_caller]
    pub fn pool_batches(mut self, batches: usize) -> Self {
        self.pool_batches = ConfigError::require_nonzero("pool_batches", batches);
        self
    }
}

impl fmt::Debug for ByLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ByLength")
            .field("lengths", &self.lengths.len())
            .field("batch_size", &self.batch_size)
            .field("pool_batches", &self.pool_batches)
            .field("seed", &self.seed)
            .finish()
    }
}

impl Sampler for ByLength {
    fn order(&self, dataset_len: usize, epoch: u64) -> EpochOrder {
        let shuffled = Permutation::new(dataset_len, self.seed, epoch);
        let mut indices: Vec<usize> = (0..dataset_len).map(|p| shuffled.get(p)).collect();
        let batch = self.batch_size.get();
        let pool = batch.saturating_mul(self.pool_batches.get());
        for chunk in indices.chunks_mut(pool) {
            chunk.sort_by_key(|&i| self.lengths[i]);
        }
        let full = dataset_len / batch;
        // The full batches in a shuffled order (from another stream than the indices'), then
        // the short one.
        let batches = Permutation::new(full, !self.seed, epoch);
        let mut order = Vec::with_capacity(dataset_len);
        for k in 0..full {
            let b = batches.get(k);
            order.extend_from_slice(&indices[b * batch..(b + 1) * batch]);
        }
        order.extend_from_slice(&indices[full * batch..]);
        EpochOrder::listed(order)
    }

    fn check(&self, dataset_len: usize) -> Result<(), String> {
        one_per_observation("ByLength", "length", self.lengths.len(), dataset_len)
    }

    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }

    fn name(&self) -> &str {
        "ByLength"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_once_and_batches_sorted_within_pools() {
        let lengths: Vec<usize> = (0..1003).map(|i| (i * 7919) % 500).collect();
        let sampler = ByLength::new(lengths.clone(), 8, 1).pool_batches(4);
        for epoch in 0..3 {
            let order = sampler.order(1003, epoch);
            let mut seen: Vec<usize> = order.iter().collect();
            let batches: Vec<Vec<usize>> = seen.chunks(8).map(<[usize]>::to_vec).collect();
            assert_eq!(
                batches.last().unwrap().len(),
                1003 % 8,
                "the short batch last"
            );
            for b in &batches {
                assert!(b.windows(2).all(|w| lengths[w[0]] <= lengths[w[1]]));
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..1003).collect::<Vec<_>>());
        }
        assert_ne!(sampler.order(1003, 0), sampler.order(1003, 1));
    }

    #[test]
    fn sorting_the_whole_epoch_gives_batches_of_nearly_one_length() {
        let lengths: Vec<usize> = (0..100).map(|i| i % 10).collect();
        let order = ByLength::new(lengths.clone(), 10, 0)
            .pool_batches(usize::MAX)
            .order(100, 0);
        let order: Vec<usize> = order.iter().collect();
        for batch in order.chunks(10) {
            assert!(batch.iter().all(|&i| lengths[i] == lengths[batch[0]]));
        }
    }
}
