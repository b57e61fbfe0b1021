//! The order of an epoch: the identity, a [`Permutation`] of `(seed, epoch)`, or a list a
//! [`Sampler`](crate::sampler::Sampler) made.
//!
//! An order is a pure function of the settings: no executor, thread count or timing changes it.

pub use crate::permutation::{permutation, Permutation};
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
    /// use foldex_dataset::EpochOrder;
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
    #[inline]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_and_shuffled_orders() {
        assert_eq!(
            EpochOrder::new(3, None, 9).iter().collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        let shuffled = EpochOrder::new(50, Some(4), 2);
        assert_eq!(shuffled.iter().collect::<Vec<_>>(), permutation(50, 4, 2));
    }
}
