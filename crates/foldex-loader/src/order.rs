//! The order of an epoch (identity, a permutation from `(seed, epoch)`, or a list a
//! [`Sampler`](crate::Sampler) made) and its batches.
//!
//! Both are pure functions of the settings: no executor, thread count or timing changes them.

use crate::permutation::Permutation;
use std::ops::Range;
use std::sync::Arc;

/// The order in which an epoch visits the dataset: position `p` of the epoch loads index
/// `order.get(p)`. Any position is found in O(1), and the order takes O(1) memory whatever the
/// dataset's length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EpochOrder {
    /// `0..len`, in order.
    Sequential(usize),
    /// A permutation of `0..len`.
    Shuffled(Permutation),
    /// Indices a sampler listed (weighted draws, buckets by length); see [`EpochOrder::listed`].
    Listed(Listed),
}

/// An epoch's indices as a list, with the bound they stay below: [`EpochOrder::listed`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    indices: Arc<[usize]>,
    /// One more than the largest index (0 for an empty list).
    bound: usize,
}

impl Listed {
    /// The indices, in epoch order.
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// One more than the largest index: the loader checks that it is at most the dataset's
    /// length before an epoch starts.
    pub fn bound(&self) -> usize {
        self.bound
    }
}

impl EpochOrder {
    /// The order for `epoch`: sequential without a seed, else
    /// [`Permutation::new`]`(len, seed, epoch)`.
    pub fn new(len: usize, shuffle: Option<u64>, epoch: u64) -> Self {
        match shuffle {
            None => Self::Sequential(len),
            Some(seed) => Self::Shuffled(Permutation::new(len, seed, epoch)),
        }
    }

    /// An order that visits `indices` in turn (an index may repeat, or be left out).
    ///
    /// ```
    /// use foldex_loader::EpochOrder;
    /// let order = EpochOrder::listed(vec![3, 3, 0]);
    /// assert_eq!((order.len(), order.get(1), order.bound()), (3, 3, 4));
    /// ```
    pub fn listed(indices: Vec<usize>) -> Self {
        let bound = indices.iter().max().map_or(0, |&max| max.saturating_add(1));
        Self::Listed(Listed {
            indices: indices.into(),
            bound,
        })
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        match self {
            Self::Sequential(len) => *len,
            Self::Shuffled(permutation) => permutation.len(),
            Self::Listed(listed) => listed.indices.len(),
        }
    }

    /// One more than the largest index the order visits, at most: a dataset must have at
    /// least this many observations.
    pub fn bound(&self) -> usize {
        match self {
            Self::Listed(listed) => listed.bound,
            _ => self.len(),
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
            Self::Shuffled(permutation) => permutation.get(position),
            Self::Listed(listed) => listed.indices[position],
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

    /// The epoch positions of batch `k` (`k < self.count()`).
    pub fn positions(&self, k: usize) -> Range<usize> {
        let start = k * self.batch_size;
        start..start.saturating_add(self.batch_size).min(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
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
    fn sequential_and_shuffled_orders() {
        assert_eq!(
            EpochOrder::new(3, None, 9).iter().collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        let shuffled = EpochOrder::new(50, Some(4), 2);
        assert_eq!(
            shuffled.iter().collect::<Vec<_>>(),
            crate::permutation(50, 4, 2)
        );
    }

    #[test]
    fn the_last_batch_of_a_dataset_of_usize_max_ends_at_its_end() {
        let b = Batches {
            len: usize::MAX,
            batch_size: 1 << 20,
            partial: true,
        };
        let last = b.positions(b.count() - 1);
        assert_eq!(last.end, usize::MAX);
        assert_eq!(last.len(), usize::MAX % (1 << 20));
    }
}
