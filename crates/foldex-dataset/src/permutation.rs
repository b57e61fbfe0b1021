//! The shuffled order of an epoch: a seeded permutation of `0..len` in O(1) memory.
//!
//! A Feistel network is a bijection on the numbers of `bits` bits whatever its round function:
//! each round replaces one half of the number by itself xor a function of the other half,
//! which the next round can undo. Its domain is a power of two, the smallest one that covers
//! `len`; a position is mapped through the network, and through it again while the result
//! falls at or above `len` (*cycle walking*). Since the network permutes its domain, the walk
//! from a number below `len` comes back below `len` before it could repeat, and two positions
//! never meet: the walk restricted to `0..len` is a permutation of it. The domain is less than
//! twice `len`, so a walk takes fewer than two steps on average.
//!
//! So the order needs no table: any position is found in O(1) (an epoch resumed midway seeks
//! in O(1) too), and a dataset of 2^40 observations shuffles in a few dozen bytes.

use std::fmt;

/// Rounds of the network. Four rounds of a good mixing function make a strong pseudo-random
/// permutation (Luby–Rackoff); two more give margin for domains whose halves are a few bits.
const ROUNDS: usize = 6;

/// The splitmix64 output function: a bijective mix of all 64 bits, each output bit depending
/// on every input bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The splitmix64 generator, which draws the round keys from `(seed, epoch)`.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
}

/// The numbers below `2^bits` (`bits <= 32`).
fn mask(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

/// The permutation of `0..len` that epoch `epoch` of a loader shuffled with `seed` visits:
/// position `p` of the epoch loads observation [`get`](Self::get)`(p)`.
///
/// It is a function of `(len, seed, epoch)` alone, so every executor, thread count and rank
/// computes the same one. It holds a few round keys, not a table: building it and finding any
/// position cost O(1) time and memory, for any `len` up to `usize::MAX`.
///
/// ```
/// use foldex_dataset::Permutation;
/// let p = Permutation::new(10, 42, 0);
/// let mut order: Vec<usize> = (0..10).map(|i| p.get(i)).collect();
/// assert_eq!(p, Permutation::new(10, 42, 0));
/// order.sort_unstable();
/// assert_eq!(order, (0..10).collect::<Vec<_>>());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Permutation {
    len: usize,
    /// The domain is `0..2^(high_bits + low_bits)`, at least `len`; a number in it is
    /// `high << low_bits | low`. The halves differ by one bit at most.
    low_bits: u32,
    high_bits: u32,
    keys: [u64; ROUNDS],
}

impl fmt::Debug for Permutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permutation")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl Permutation {
    /// The permutation of `0..len` for epoch `epoch` of a loader shuffled with `seed`.
    pub fn new(len: usize, seed: u64, epoch: u64) -> Self {
        // The smallest power of two at or above `len`: `2^bits`.
        let bits = match len {
            0 | 1 => 0,
            _ => usize::BITS - (len - 1).leading_zeros(),
        };
        // The epoch goes through one generator step of its own, so that nearby (seed, epoch)
        // pairs give unrelated keys.
        let mut rng = SplitMix64(seed ^ SplitMix64(epoch).next());
        Self {
            len,
            low_bits: bits / 2,
            high_bits: bits - bits / 2,
            keys: std::array::from_fn(|_| rng.next()),
        }
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` for the permutation of nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The observation at `position`, in O(1): fewer than two passes through the network on
    /// average.
    ///
    /// # Panics
    /// If `position >= len`.
    pub fn get(&self, position: usize) -> usize {
        assert!(
            position < self.len,
            "position {position} out of 0..{}",
            self.len
        );
        // `usize` has at most 64 bits, so both conversions are exact, and the walk ends
        // below `len` (see the module docs).
        let len = self.len as u64;
        let mut x = position as u64;
        loop {
            x = self.encrypt(x);
            if x < len {
                return x as usize;
            }
        }
    }

    /// One pass through the network: a bijection on `0..2^(high_bits + low_bits)`.
    fn encrypt(&self, x: u64) -> u64 {
        let (low_mask, high_mask) = (mask(self.low_bits), mask(self.high_bits));
        let mut low = x & low_mask;
        let mut high = x >> self.low_bits;
        for (round, key) in self.keys.iter().enumerate() {
            if round % 2 == 0 {
                high ^= mix(low ^ key) & high_mask;
            } else {
                low ^= mix(high ^ key) & low_mask;
            }
        }
        (high << self.low_bits) | low
    }

    /// Every observation, in the permutation's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        (0..self.len).map(|p| self.get(p))
    }
}

/// The permutation of `0..len` for epoch `epoch` of a loader shuffled with `seed`, written out:
/// [`Permutation::new`]`(len, seed, epoch)` collected. It takes `len` words of memory; the
/// loader itself never writes the order out.
///
/// ```
/// use foldex_dataset::order::permutation;
/// let p = permutation(5, 42, 0);
/// let mut sorted = p.clone();
/// sorted.sort();
/// assert_eq!(sorted, vec![0, 1, 2, 3, 4]);
/// assert_eq!(p, permutation(5, 42, 0));
/// ```
pub fn permutation(len: usize, seed: u64, epoch: u64) -> Vec<usize> {
    Permutation::new(len, seed, epoch).iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn permutations_are_permutations(len in 0usize..600, seed: u64, epoch: u64) {
            let mut p = permutation(len, seed, epoch);
            p.sort_unstable();
            prop_assert_eq!(p, (0..len).collect::<Vec<_>>());
        }

        #[test]
        fn huge_lengths_give_distinct_positions_in_range(seed: u64, epoch: u64, shift in 0u32..64) {
            let len = usize::MAX >> shift;
            let p = Permutation::new(len, seed, epoch);
            let mut firsts: Vec<usize> = (0..64.min(len)).map(|i| p.get(i)).collect();
            let last = p.get(len - 1);
            prop_assert!(firsts.iter().chain([&last]).all(|&i| i < len));
            firsts.sort_unstable();
            firsts.dedup();
            prop_assert_eq!(firsts.len(), 64.min(len));
        }
    }

    /// Every index exactly once, for small lengths (each power of two and its neighbours,
    /// primes) and a few seeds.
    #[test]
    fn small_lengths_and_primes_are_permutations() {
        let powers = (0..12).flat_map(|k: u32| {
            let n = 1usize << k;
            [n - 1, n, n + 1]
        });
        let primes = [2, 3, 5, 7, 11, 13, 97, 101, 257, 1009, 4093, 65_521];
        for len in powers.chain(primes).chain(0..40) {
            for seed in [0, 1, 42, 0xDEAD_BEEF, u64::MAX] {
                for epoch in [0, 1, 7, u64::MAX - 1] {
                    let mut p = permutation(len, seed, epoch);
                    p.sort_unstable();
                    assert!(
                        p.iter().copied().eq(0..len),
                        "len {len}, seed {seed}, epoch {epoch}"
                    );
                }
            }
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
        assert!(Permutation::new(0, 1, 1).is_empty());
    }

    /// A shuffled order looks shuffled: few fixed points (a uniform permutation has one on
    /// average), few neighbours kept next to each other, and no long runs of the identity.
    #[test]
    fn orders_look_shuffled() {
        for seed in [0, 1, 2, 42, 1 << 40, u64::MAX] {
            for epoch in 0..4 {
                let p = permutation(1000, seed, epoch);
                let fixed = p.iter().enumerate().filter(|&(i, &x)| i == x).count();
                assert!(
                    fixed < 10,
                    "seed {seed}, epoch {epoch}: {fixed} fixed points"
                );
                let successors = p.windows(2).filter(|w| w[1] == w[0] + 1).count();
                assert!(
                    successors < 10,
                    "seed {seed}, epoch {epoch}: {successors} runs"
                );
                // Each tenth of the order draws from the whole dataset, not from one region.
                for tenth in p.chunks(100) {
                    let mean = tenth.iter().sum::<usize>() as f64 / 100.0;
                    assert!((300.0..700.0).contains(&mean), "seed {seed}: mean {mean}");
                }
            }
        }
    }

    #[test]
    fn every_order_of_three_is_about_equally_likely() {
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

    #[test]
    fn every_position_draws_every_observation_about_equally() {
        // Where observation 0 lands in an order of 10, over 10_000 epochs: ~1000 each.
        let mut counts = [0usize; 10];
        for epoch in 0..10_000 {
            let p = Permutation::new(10, 5, epoch);
            counts[p.iter().position(|x| x == 0).unwrap()] += 1;
        }
        assert!(
            counts.iter().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
    }
}
