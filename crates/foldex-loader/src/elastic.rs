//! Elastic resumption: an epoch stopped under `shard(rank, world)` continues under another world.
//!
//! **The model.** Positions are those of the *global* order (the sampler's, before sharding),
//! `0..len`. What remains of an epoch is a [`Remainder`]: every position below `start` and
//! those in `done` were delivered (by some rank); the others remain, in global order. A rank of
//! a world takes its part of the remainder as `shard` takes its part of a whole epoch: rank `r`
//! of `world` takes the remainder's `r`-th, `r + world`-th, … positions, and the loader's
//! [`Tail`](foldex_dataset::Tail) decides about its last `count % world`. A padded rank's
//! positions past the remainder's end repeat the epoch's first positions (`(i - count) % len`
//! for its `i`-th), as an uninterrupted epoch pads: so an epoch that resumes in the same world
//! after its ranks stopped in step delivers exactly what the uninterrupted one would have.
//!
//! **Merging.** One rank's state knows only its own part, so the remainder of a world's epoch
//! comes from every rank's state together ([`merge`], behind `Loader::merge_states`), or from
//! one state when every rank received the same number of batches (synchronous data-parallel
//! training; `Loader::merge_in_step`). Every position a rank of the old world received is
//! done; padding (a repeat) never counts; a position the old world left out (by `Tail::Drop`
//! or `partial(false)`) was not delivered, so it remains, and the new world's settings decide
//! about it. The merged remainder keeps `start` at the first position not delivered and lists
//! in `done` only what was delivered above it: in-step ranks leave nothing above it (O(1)
//! memory), ranks that stopped apart leave the positions between the slowest and the fastest
//! rank (O(their distance)), unordered ones a buffer's worth more.
//!
//! **Composition.** A state taken after an elastic resumption carries its remainder, so that
//! it resumes in its own world as any state does, or merges again with the states of its world.

use crate::error::ResumeError;
use foldex_dataset::Shard;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What remains of an epoch after some of it was delivered, in the positions of its global
/// order (before sharding): every position from `start` on that is not in `done`. Part of a
/// [`LoaderState`](crate::LoaderState) that continues an epoch in another world; see
/// [`Loader::merge_states`](crate::Loader::merge_states).
///
/// ```
/// use foldex_loader::Remainder;
/// let rest = Remainder { len: 10, start: 4, done: vec![5, 8] };
/// assert_eq!(rest.count(), 4);
/// assert_eq!((0..4).map(|i| rest.position(i)).collect::<Vec<_>>(), vec![4, 6, 7, 9]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Remainder {
    /// The positions of the whole epoch, before sharding (the sampler's length).
    pub len: usize,
    /// Every position below this one was delivered.
    pub start: usize,
    /// Positions at or above `start` that were delivered too, ascending.
    pub done: Vec<usize>,
}

impl Remainder {
    /// The whole epoch of `len` positions: nothing delivered.
    pub(crate) fn whole(len: usize) -> Self {
        Self {
            len,
            start: 0,
            done: Vec::new(),
        }
    }

    /// How many positions remain.
    pub fn count(&self) -> usize {
        self.len - self.start - self.done.len()
    }

    /// The global position of the `i`-th remaining one (`i < self.count()`), in O(log done).
    pub fn position(&self, i: usize) -> usize {
        // `done[c] - start - c` positions below `done[c]` remain; it grows with `c`, so the
        // entries of `done` below the answer are those where it is at most `i`.
        let (mut lo, mut hi) = (0, self.done.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.done[mid] - self.start - mid <= i {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.start + i + lo
    }

    /// Refuses a remainder that is not one of an epoch of `len` positions.
    pub(crate) fn check(&self, len: usize) -> Result<(), ResumeError> {
        if self.len != len {
            return Err(ResumeError::Mismatch {
                setting: "epoch length",
                state: self.len.to_string(),
                loader: len.to_string(),
            });
        }
        let ascending = self.done.windows(2).all(|w| w[0] < w[1]);
        let inside = self.done.first().is_none_or(|&d| d >= self.start)
            && self.done.last().is_none_or(|&d| d < self.len);
        if self.start > self.len || !ascending || !inside {
            return Err(ResumeError::Inconsistent(format!(
                "the state's remainder is not one of an epoch of {len} positions (start {}, {} \
                 done above it: they must be ascending, at or above start and below {len})",
                self.start,
                self.done.len()
            )));
        }
        Ok(())
    }
}

/// Which positions of the global order one rank loads: its shard of the whole epoch, or of a
/// remainder when the epoch resumed in another world.
#[derive(Debug, Clone, Default)]
pub(crate) struct Deal {
    pub shard: Option<Shard>,
    pub remainder: Option<Arc<Remainder>>,
}

impl Deal {
    /// How many observations this rank loads of an epoch of `len` positions (or of
    /// `remainder`, when there is one).
    pub fn len(shard: Option<Shard>, remainder: Option<&Remainder>, len: usize) -> usize {
        let len = remainder.map_or(len, Remainder::count);
        shard.map_or(len, |shard| shard.len(len))
    }

    /// The global position of this rank's `p`-th observation, of an epoch of `len` positions.
    #[inline]
    pub fn position(&self, len: usize, p: usize) -> usize {
        if self.shard.is_none() && self.remainder.is_none() {
            return p;
        }
        self.dealt(len, p)
    }

    /// [`Deal::position`] for a rank of a world or a remainder: kept out of the inlined path
    /// that a single process without a remainder takes for every observation.
    #[inline(never)]
    fn dealt(&self, len: usize, p: usize) -> usize {
        let Some(remainder) = &self.remainder else {
            return self.shard.map_or(p, |shard| shard.position(len, p));
        };
        let count = remainder.count();
        // The rank's `p`-th is the remainder's `i`-th; past its end (a padded rank), the
        // epoch's `(i - count) % len`-th. Near `usize::MAX` computed wide.
        let i = match self.shard {
            None => p as u128,
            Some(shard) => p as u128 * shard.world() as u128 + shard.rank() as u128,
        };
        if i < count as u128 {
            remainder.position(i as usize)
        } else {
            ((i - count as u128) % len as u128) as usize
        }
    }
}

/// One rank's part of a world's remainder, and what its consumer received of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Progress<'a> {
    /// The rank's observations (its shard of the remainder).
    pub len: usize,
    /// The rank received its observations below this one (at most `len`).
    pub prefix: usize,
    /// Batches above the prefix that it received too (unordered delivery), ascending.
    pub above: &'a [usize],
    pub batch_size: usize,
}

impl Progress<'_> {
    /// Whether the rank received its `q`-th observation.
    fn received(&self, q: usize) -> bool {
        q < self.len
            && (q < self.prefix || self.above.binary_search(&(q / self.batch_size)).is_ok())
    }

    /// One past the last observation the rank received (0 when none).
    fn end(&self) -> usize {
        let above = self
            .above
            .last()
            .map_or(0, |&b| b.saturating_add(1).saturating_mul(self.batch_size));
        self.prefix.max(above).min(self.len)
    }
}

/// What remains of `base` after the ranks of a world of `world` received what `progress` says
/// of their parts (`progress(r)` for rank `r`). O(ranks) time, and O(the positions between
/// the slowest and the fastest rank) beside `base.done`.
pub(crate) fn merge<'a>(
    base: &Remainder,
    world: usize,
    progress: impl Fn(usize) -> Progress<'a>,
) -> Remainder {
    let count = base.count();
    // Rank `r`'s `q`-th observation is the base's `r + q * world`-th position. Only ranks below
    // `count` hold any of its positions (the others hold padding at most).
    let at = |r: usize, q: usize| q.saturating_mul(world).saturating_add(r);
    let ranks = world.min(count);
    // Below `lo` every position was received, from `hi` on none: each rank's first position
    // not received, and one past its last one received.
    let (mut lo, mut hi) = (count, 0);
    for r in 0..ranks {
        let p = progress(r);
        lo = lo.min(at(r, p.prefix.min(p.len)));
        let end = p.end();
        if end > 0 {
            hi = hi.max(at(r, end - 1).saturating_add(1));
        }
    }
    let hi = hi.clamp(lo, count);
    let start = if lo < count {
        base.position(lo)
    } else {
        base.len
    };
    // Between them, the positions received, merged with the base's done above `start`.
    let band = (lo..hi)
        .filter(|&i| progress(i % world).received(i / world))
        .map(|i| base.position(i));
    let kept = base.done.iter().copied().filter(|&d| d >= start);
    let mut done: Vec<usize> = kept.chain(band).collect();
    done.sort_unstable();
    Remainder {
        len: base.len,
        start,
        done,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foldex_dataset::Tail;
    use proptest::prelude::*;

    /// The positions of `remainder`, listed one by one.
    fn listed(remainder: &Remainder) -> Vec<usize> {
        (remainder.start..remainder.len)
            .filter(|p| !remainder.done.contains(p))
            .collect()
    }

    proptest! {
        #[test]
        fn position_finds_the_ith_remaining(
            len in 0usize..60,
            start_frac in 0.0f64..1.0,
            marks in proptest::collection::vec(any::<bool>(), 60),
        ) {
            let start = (len as f64 * start_frac) as usize;
            let done: Vec<usize> = (start..len).filter(|&p| marks[p]).collect();
            let remainder = Remainder { len, start, done };
            prop_assert_eq!(remainder.check(len), Ok(()));
            let by_position: Vec<usize> =
                (0..remainder.count()).map(|i| remainder.position(i)).collect();
            prop_assert_eq!(by_position, listed(&remainder));
        }

        /// Merging the ranks' progress leaves exactly the positions no rank received, whatever
        /// each rank received.
        #[test]
        fn merge_leaves_what_no_rank_received(
            len in 0usize..80,
            world in 1usize..9,
            batch_size in 1usize..5,
            tail in prop_oneof![Just(Tail::Pad), Just(Tail::Drop), Just(Tail::Uneven)],
            cuts in proptest::collection::vec((0.0f64..=1.0, any::<bool>()), 9),
        ) {
            let base = Remainder::whole(len);
            let shares: Vec<usize> =
                (0..world).map(|r| Shard::new(r, world, tail).len(len)).collect();
            let aboves: Vec<Vec<usize>> = (0..world)
                .map(|r| {
                    let prefix_batch = (shares[r] as f64 * cuts[r].0) as usize / batch_size;
                    let batches = shares[r].div_ceil(batch_size);
                    if cuts[r].1 && prefix_batch + 2 < batches {
                        vec![prefix_batch + 2]
                    } else {
                        vec![]
                    }
                })
                .collect();
            let progress = |r: usize| Progress {
                len: shares[r],
                prefix: ((shares[r] as f64 * cuts[r].0) as usize / batch_size * batch_size)
                    .min(shares[r]),
                above: &aboves[r],
                batch_size,
            };
            let merged = merge(&base, world, progress);
            prop_assert_eq!(merged.check(len), Ok(()));
            let mut received = vec![false; len];
            for (r, &share) in shares.iter().enumerate() {
                let shard = Shard::new(r, world, tail);
                for q in 0..share {
                    let i = q * world + r;
                    if i < len && progress(r).received(q) {
                        received[shard.position(len, q)] = true;
                    }
                }
            }
            let expected: Vec<usize> = (0..len).filter(|&p| !received[p]).collect();
            prop_assert_eq!(listed(&merged), expected);
        }
    }

    #[test]
    fn a_padded_rank_repeats_the_epochs_first_positions() {
        let deal = Deal {
            shard: Some(Shard::new(2, 3, Tail::Pad)),
            remainder: Some(Arc::new(Remainder {
                len: 10,
                start: 6,
                done: vec![7],
            })),
        };
        // Remaining: 6, 8, 9; rank 2 of 3 takes the 2nd (9) and pads with position 0.
        let len = Deal::len(deal.shard, deal.remainder.as_deref(), 10);
        assert_eq!(len, 1);
        assert_eq!(deal.position(10, 0), 9);
        let rank_0 = Deal {
            shard: Some(Shard::new(0, 2, Tail::Pad)),
            ..deal.clone()
        };
        assert_eq!(Deal::len(rank_0.shard, rank_0.remainder.as_deref(), 10), 2);
        assert_eq!([rank_0.position(10, 0), rank_0.position(10, 1)], [6, 9]);
        let rank_1 = Deal {
            shard: Some(Shard::new(1, 2, Tail::Pad)),
            ..deal
        };
        assert_eq!([rank_1.position(10, 0), rank_1.position(10, 1)], [8, 0]);
    }

    #[test]
    fn malformed_remainders_are_refused() {
        let bad = |start, done: Vec<usize>| {
            Remainder {
                len: 10,
                start,
                done,
            }
            .check(10)
        };
        assert!(bad(11, vec![]).is_err());
        assert!(bad(3, vec![2]).is_err());
        assert!(bad(3, vec![5, 5]).is_err());
        assert!(bad(3, vec![10]).is_err());
        assert_eq!(bad(3, vec![4, 9]), Ok(()));
        let err = Remainder::whole(10).check(12).unwrap_err();
        assert_eq!(
            err.to_string(),
            "foldex-loader: cannot resume: the state has epoch length 10, this loader 12"
        );
    }
}
