//! Per-observation randomness that depends only on `(seed, epoch, index)`.
//!
//! Augmentations (random crops, flips, noise) drawn from a generator shared between threads
//! change with the executor, the thread count and the timing. Drawing them from
//! [`rng_for`]`(seed, epoch, index)` instead makes every observation's randomness a pure
//! function of where it sits, so a run is reproducible on any executor.

use std::ops::Range;

/// The splitmix64 output function: a bijective mix of all 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The generator for observation `index` of epoch `epoch` of a run seeded with `seed`.
///
/// The same three numbers always give the same stream, on any thread; nearby numbers give
/// unrelated streams (each one is hashed through a full 64-bit mix).
///
/// ```
/// use foldex_dataset::{from_fn, rng_for};
/// use foldex_loader::Loader;
/// use foldex_seq::SequentialEx;
/// use foldex_threaded::ThreadedEx;
///
/// // A "random flip" per observation, reproducible on any executor.
/// let flips = |epoch| from_fn(100, move |i| rng_for(7, epoch, i).next_f32() < 0.5);
/// let a: Vec<bool> = Loader::new(flips(0), SequentialEx).iter().flatten().collect();
/// let b: Vec<bool> = Loader::new(flips(0), ThreadedEx::new()).iter().flatten().collect();
/// assert_eq!(a, b);
/// ```
pub fn rng_for(seed: u64, epoch: u64, index: usize) -> ItemRng {
    let state =
        mix(seed ^ mix(epoch.wrapping_add(GOLDEN) ^ mix((index as u64).wrapping_mul(GOLDEN))));
    ItemRng { state }
}

/// A small, fast generator (splitmix64) for one observation's augmentations; see [`rng_for`].
///
/// It is a [`rand_core::Rng`] (and so a `RngCore`), so `rand`'s distributions and its
/// `RngExt` methods draw from it. Not for cryptography. Serde-serializable (feature `serde`),
/// so that a generator part-way through its stream (a stream loader's shuffle buffer) can go
/// into a checkpoint.
///
/// ```
/// use foldex_dataset::rng_for;
/// use rand::RngExt;
/// let mut rng = rng_for(1, 0, 42);
/// let angle: f32 = rng.random_range(-10.0..10.0);
/// assert!((-10.0..10.0).contains(&angle));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ItemRng {
    state: u64,
}

impl ItemRng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix(self.state)
    }

    /// Uniform in `[0, 1)`, with 24 bits of precision.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Uniform in `[0, 1)`, with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (clamped to `[0, 1]`).
    pub fn gen_bool(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }

    /// Uniform in `range`, without modulo bias (Lemire's method).
    ///
    /// # Panics
    /// If `range` is empty.
    #[track_caller]
    pub fn gen_range(&mut self, range: Range<usize>) -> usize {
        assert!(
            !range.is_empty(),
            "gen_range needs a non-empty range, got {range:?}"
        );
        let bound = (range.end - range.start) as u64;
        let mut wide = u128::from(self.next_u64()) * u128::from(bound);
        if (wide as u64) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (wide as u64) < threshold {
                wide = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        range.start + (wide >> 64) as usize
    }
}

impl rand_core::TryRng for ItemRng {
    type Error = std::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok((self.next_u64() >> 32) as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(ItemRng::next_u64(self))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let bytes = ItemRng::next_u64(self).to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_coordinates_give_the_same_stream_and_neighbours_differ() {
        let draw = |s, e, i| {
            let mut r = rng_for(s, e, i);
            [r.next_u64(), r.next_u64()]
        };
        assert_eq!(draw(1, 2, 3), draw(1, 2, 3));
        let mut seen = std::collections::HashSet::new();
        for s in 0..4 {
            for e in 0..4 {
                for i in 0..64 {
                    assert!(
                        seen.insert(draw(s, e, i)),
                        "({s}, {e}, {i}) repeats a stream"
                    );
                }
            }
        }
    }

    #[test]
    fn floats_stay_in_the_unit_interval_and_ranges_in_range() {
        let mut r = rng_for(9, 0, 0);
        let mut sum = 0.0;
        for _ in 0..10_000 {
            let x = r.next_f32();
            assert!((0.0..1.0).contains(&x));
            sum += f64::from(x);
            let k = r.gen_range(3..10);
            assert!((3..10).contains(&k));
        }
        assert!(
            (sum / 10_000.0 - 0.5).abs() < 0.02,
            "mean {}",
            sum / 10_000.0
        );
        assert!(!r.gen_bool(0.0));
        assert!(r.gen_bool(1.0));
    }

    #[test]
    fn rand_draws_from_it_and_bytes_follow_the_words() {
        use rand::RngExt;
        let mut r = rng_for(3, 1, 4);
        let mut words = r.clone();
        let mut bytes = [0u8; 12];
        rand_core::Rng::fill_bytes(&mut r, &mut bytes);
        assert_eq!(bytes[..8], words.next_u64().to_le_bytes());
        assert_eq!(bytes[8..], words.next_u64().to_le_bytes()[..4]);
        let k: u8 = r.random_range(1..=6);
        assert!((1..=6).contains(&k));
    }

    #[test]
    fn gen_range_hits_every_value() {
        let mut r = rng_for(1, 1, 1);
        let mut counts = [0usize; 6];
        for _ in 0..6_000 {
            counts[r.gen_range(0..6)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }
}
