//! An epoch's order ([`EpochOrder`], from its sampler) cut into batches.
//!
//! Both are pure functions of the settings: no executor, thread count or timing changes them.

pub(crate) use foldex_dataset::EpochOrder;
use std::ops::Range;

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
