//! The order of an epoch (identity, or a permutation from `(seed, epoch)`) and its batches.
//!
//! Both are pure functions of the settings: no executor, thread count or timing changes them.

use std::ops::Range;
use std::sync::Arc;

/// The splitmix64 generator: tiny, fast, and good enough to shuffle with.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound > 0`), without modulo bias (Lemire's method).
    fn below(&mut self, bound: u64) -> u64 {
        let mut wide = u128::from(self.next()) * u128::from(bound);
        if (wide as u64) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (wide as u64) < threshold {
                wide = u128::from(self.next()) * u128::from(bound);
            }
        }
        (wide >> 64) as u64
    }
}

/// The permutation of `0..len` for epoch `epoch` of a loader shuffled with `seed`
/// (Fisher–Yates driven by splitmix64). The same arguments always give the same permutation.
///
/// ```
/// use foldex_loader::permutation;
/// let p = permutation(5, 42, 0);
/// let mut sorted = p.clone();
/// sorted.sort();
/// assert_eq!(sorted, vec![0, 1, 2, 3, 4]);
/// assert_eq!(p, permutation(5, 42, 0));
/// ```
pub fn permutation(len: usize, seed: u64, epoch: u64) -> Vec<usize> {
    // Mix the epoch in through one generator step, so that nearby (seed, epoch) pairs give
    // unrelated streams.
    let mut rng = SplitMix64(seed ^ SplitMix64(epoch).next());
    let mut order: Vec<usize> = (0..len).collect();
    for i in (1..len).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    order
}

/// The order in which an epoch visits the dataset: position `p` of the epoch loads index
/// `order.get(p)`. Any position is found in O(1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EpochOrder {
    /// `0..len`, in order.
    Sequential(usize),
    /// A permutation of `0..len`.
    Shuffled(Arc<[usize]>),
}

impl EpochOrder {
    /// The order for `epoch`: sequential without a seed, else [`permutation`]`(len, seed, epoch)`.
    pub fn new(len: usize, shuffle: Option<u64>, epoch: u64) -> Self {
        match shuffle {
            None => Self::Sequential(len),
            Some(seed) => Self::Shuffled(permutation(len, seed, epoch).into()),
        }
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        match self {
            Self::Sequential(len) => *len,
            Self::Shuffled(order) => order.len(),
        }
    }

    /// `true` for an empty dataset.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dataset index loaded at `position`.
    pub fn get(&self, position: usize) -> usize {
        match self {
            Self::Sequential(len) => {
                assert!(position < *len, "position {position} out of 0..{len}");
                position
            }
            Self::Shuffled(order) => order[position],
        }
    }

    /// Every index, in epoch order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        (0..self.len()).map(|p| self.get(p))
    }
}

/// How an epoch of `len` observations is cut into batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Batches {
    pub len: usize,
    pub batch_size: usize,
    /// Keep the last, short batch.
    pub partial: bool,
}

impl Batches {
    /// The number of batches.
    pub fn count(&self) -> usize {
        if self.partial {
            self.len.div_ceil(self.batch_size)
        } else {
            self.len / self.batch_size
        }
    }

    /// The epoch positions of batch `k`.
    pub fn positions(&self, k: usize) -> Range<usize> {
        let start = k * self.batch_size;
        start..(start + self.batch_size).min(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn permutations_are_permutations(len in 0usize..500, seed: u64, epoch in 0u64..8) {
            let mut p = permutation(len, seed, epoch);
            p.sort_unstable();
            prop_assert_eq!(p, (0..len).collect::<Vec<_>>());
        }

        #[test]
        fn below_stays_below(seed: u64, bound in 1u64..1000) {
            let mut rng = SplitMix64(seed);
            for _ in 0..100 {
                prop_assert!(rng.below(bound) < bound);
            }
        }

        #[test]
        fn batches_cover_the_epoch(len in 0usize..300, batch_size in 1usize..40, partial: bool) {
            let b = Batches { len, batch_size, partial };
            let covered: Vec<usize> = (0..b.count()).flat_map(|k| b.positions(k)).collect();
            let expected = if partial { len } else { len / batch_size * batch_size };
            prop_assert_eq!(covered, (0..expected).collect::<Vec<_>>());
            prop_assert!((0..b.count()).all(|k| !b.positions(k).is_empty()));
        }
    }

    #[test]
    fn reproducible_per_seed_and_epoch_and_different_across_them() {
        assert_eq!(permutation(100, 7, 3), permutation(100, 7, 3));
        assert_ne!(permutation(100, 7, 3), permutation(100, 7, 4));
        assert_ne!(permutation(100, 7, 3), permutation(100, 8, 3));
        assert_ne!(permutation(100, 7, 0), (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn tiny_orders() {
        assert!(permutation(0, 1, 1).is_empty());
        assert_eq!(permutation(1, 1, 1), vec![0]);
        assert_eq!(
            EpochOrder::new(3, None, 9).iter().collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
    }

    #[test]
    fn every_position_is_equally_likely() {
        // Each of the 6 permutations of 3 items, over 6000 epochs, should appear ~1000 times.
        let mut counts = std::collections::HashMap::new();
        for epoch in 0..6000 {
            *counts.entry(permutation(3, 11, epoch)).or_insert(0usize) += 1;
        }
        assert_eq!(counts.len(), 6);
        assert!(
            counts.values().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }
}
