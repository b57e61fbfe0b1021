//! Splitting each epoch between the ranks of a distributed job (PyTorch's
//! `DistributedSampler`).
//!
//! Every rank computes the same epoch order (it depends only on `(seed, epoch)`), and rank `r`
//! of `world` takes the positions `r, r + world, r + 2 * world, ...` of it, so that the ranks'
//! parts are disjoint. When `world` does not divide the dataset, the [`Tail`] decides.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// What to do with the last `len % world` positions of an epoch when sharding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub enum Tail {
    /// Every rank gets `ceil(len / world)` observations: the short ranks repeat observations
    /// from the start of the epoch order (PyTorch's default). Ranks stay in lockstep; a few
    /// observations are seen twice per epoch.
    #[default]
    Pad,
    /// Every rank gets `floor(len / world)` observations; the last `len % world` of the epoch
    /// order are left out of this epoch.
    Drop,
    /// The first `len % world` ranks get one observation more than the others; the ranks'
    /// parts together are exactly the epoch.
    Uneven,
}

/// Rank `rank` of `world` ranks, with a [`Tail`] policy: which positions of an epoch this
/// rank loads. See `Loader::shard`.
///
/// ```
/// use foldex_dataset::{Shard, Tail};
/// let shard = Shard::new(1, 3, Tail::Uneven);
/// assert_eq!(shard.len(10), 3);
/// assert_eq!((0..3).map(|p| shard.position(10, p)).collect::<Vec<_>>(), vec![1, 4, 7]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Shard {
    rank: usize,
    world: usize,
    tail: Tail,
}

impl Shard {
    /// Rank `rank` of `world`.
    ///
    /// # Panics
    /// If `world` is 0 ("world must be at least 1, got 0") or `rank >= world`.
    #[track_caller]
    pub fn new(rank: usize, world: usize, tail: Tail) -> Self {
        let world = foldex_core::ConfigError::require_nonzero("world", world).get();
        assert!(
            rank < world,
            "rank must be below world ({world}), got {rank}"
        );
        Self { rank, world, tail }
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn world(&self) -> usize {
        self.world
    }

    /// The tail policy.
    pub fn tail(&self) -> Tail {
        self.tail
    }

    /// How many observations of an epoch of `len` this rank loads.
    pub fn len(&self, len: usize) -> usize {
        match self.tail {
            Tail::Pad if len == 0 => 0,
            Tail::Pad => len.div_ceil(self.world),
            Tail::Drop => len / self.world,
            Tail::Uneven => len / self.world + usize::from(self.rank < len % self.world),
        }
    }

    /// The epoch position (in `0..len`) of this rank's `p`-th observation (`p < self.len(len)`).
    pub fn position(&self, len: usize, p: usize) -> usize {
        debug_assert!(
            p < self.len(len),
            "position {p} out of this rank's {}",
            self.len(len)
        );
        // Only `Pad` can run past the end; it wraps to the start of the order. Past the end
        // near `usize::MAX` the sum overflows: computed wide, it wraps the same way.
        match p
            .checked_mul(self.world)
            .and_then(|q| q.checked_add(self.rank))
        {
            Some(position) => position % len,
            None => ((p as u128 * self.world as u128 + self.rank as u128) % len as u128) as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn part(shard: Shard, len: usize) -> Vec<usize> {
        (0..shard.len(len))
            .map(|p| shard.position(len, p))
            .collect()
    }

    proptest! {
        #[test]
        fn uneven_parts_are_disjoint_and_cover_the_epoch(len in 0usize..200, world in 1usize..9) {
            let mut all: Vec<usize> = (0..world)
                .flat_map(|r| part(Shard::new(r, world, Tail::Uneven), len))
                .collect();
            all.sort_unstable();
            prop_assert_eq!(all, (0..len).collect::<Vec<_>>());
        }

        #[test]
        fn pad_gives_every_rank_the_same_count_and_covers_the_epoch(
            len in 1usize..200, world in 1usize..9,
        ) {
            let parts: Vec<Vec<usize>> =
                (0..world).map(|r| part(Shard::new(r, world, Tail::Pad), len)).collect();
            prop_assert!(parts.iter().all(|p| p.len() == len.div_ceil(world)));
            let mut seen: Vec<usize> = parts.concat();
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen, (0..len).collect::<Vec<_>>());
        }

        #[test]
        fn drop_gives_every_rank_the_same_count_without_repeats(
            len in 0usize..200, world in 1usize..9,
        ) {
            let mut all: Vec<usize> = (0..world)
                .flat_map(|r| part(Shard::new(r, world, Tail::Drop), len))
                .collect();
            prop_assert_eq!(all.len(), len / world * world);
            all.sort_unstable();
            prop_assert_eq!(all, (0..len / world * world).collect::<Vec<_>>());
        }
    }

    #[test]
    fn lengths_near_usize_max_do_not_overflow() {
        let len = usize::MAX;
        for tail in [Tail::Pad, Tail::Drop, Tail::Uneven] {
            let world = 7;
            let total: u128 = (0..world)
                .map(|r| Shard::new(r, world, tail).len(len) as u128)
                .sum();
            let expected = match tail {
                Tail::Pad => len.div_ceil(world) as u128 * world as u128,
                Tail::Drop => (len / world * world) as u128,
                Tail::Uneven => len as u128,
            };
            assert_eq!(total, expected, "{tail:?}");
            for r in 0..world {
                let shard = Shard::new(r, world, tail);
                let last = shard.len(len) - 1;
                assert!(shard.position(len, last) < len);
                assert_eq!(shard.position(len, 1), r + world);
            }
        }
        // Pad's last rank runs past the end and wraps to the start of the order.
        let pad = Shard::new(6, 7, Tail::Pad);
        let last = pad.len(len) - 1;
        let wrapped = (last as u128 * 7 + 6 - len as u128) as usize;
        assert_eq!(pad.position(len, last), wrapped);
    }

    #[test]
    #[should_panic(expected = "rank must be below world (2), got 2")]
    fn rank_must_be_below_world() {
        Shard::new(2, 2, Tail::Pad);
    }

    #[test]
    #[should_panic(expected = "world must be at least 1, got 0")]
    fn world_must_be_nonzero() {
        Shard::new(0, 0, Tail::Pad);
    }
}
