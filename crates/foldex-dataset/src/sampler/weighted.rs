//! Weighted sampling, with replacement (cumulative weights searched per draw) or without
//! (Efraimidis–Spirakis keys: each index draws `ln(u) / w` and the largest keys win, in order).

use super::{one_per_observation, Sampler};
use crate::order::EpochOrder;
use crate::rng::{rng_for, ItemRng};
use std::fmt;
use std::sync::Arc;

/// Draws the indices of each epoch with probabilities proportional to their weights
/// (PyTorch's `WeightedRandomSampler`; MLUtils.jl's `oversample` by weight), from
/// `(seed, epoch)`.
///
/// With replacement, each of the `samples` positions is an independent draw: index `i` with
/// probability `weights[i] / sum(weights)`. Without replacement, the `samples` indices are
/// distinct and drawn one after another, each with probability proportional to its weight
/// among those not drawn yet. A weight of 0 is never drawn.
///
/// ```
/// use foldex_dataset::{from_fn, sampler::Weighted};
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// // Class 1 is rare: draw it as often as class 0.
/// let labels = vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
/// let weights: Vec<f64> = labels.iter().map(|&y| if y == 1 { 9.0 } else { 1.0 }).collect();
/// let sampler = Weighted::with_replacement(weights, 1_000, 7)?;
/// let loader = Loader::new(labels, ThreadedEx::new().basesize(1)).sampler(sampler).unbatched();
/// let ones = loader.iter().filter(|&y| y == 1).count();
/// assert!((400..600).contains(&ones), "{ones}");
/// # Ok::<(), foldex_dataset::sampler::WeightsError>(())
/// ```
#[derive(Clone)]
pub struct Weighted {
    /// `weights[..=i]` summed, for draws with replacement; the weights themselves without.
    table: Arc<[f64]>,
    samples: usize,
    replacement: bool,
    seed: u64,
}

/// Why weights cannot be sampled from; the message names the weight.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum WeightsError {
    /// A weight is negative, NaN or infinite.
    Invalid {
        /// Its index.
        index: usize,
        /// The weight.
        weight: f64,
    },
    /// Every weight is 0 (or there are none), and samples were asked for.
    AllZero {
        /// The number of weights.
        len: usize,
    },
    /// Without replacement, more samples than weights above 0.
    TooFewPositive {
        /// The samples asked for.
        samples: usize,
        /// The weights above 0.
        positive: usize,
    },
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid { index, weight } => write!(
                f,
                "weights[{index}] is {weight}: a weight must be finite and at least 0"
            ),
            Self::AllZero { len } => write!(
                f,
                "every weight is 0 ({len} given): there is nothing to draw samples from"
            ),
            Self::TooFewPositive { samples, positive } => write!(
                f,
                "without replacement, each sample needs a weight above 0 of its own: \
                 {samples} asked for, {positive} available"
            ),
        }
    }
}

impl std::error::Error for WeightsError {}

/// Keeps draws apart from the observations' own generators of the same seed.
const SALT: u64 = 0x5EED_F5A3_F1E5_5A17;

impl Weighted {
    /// `samples` independent draws per epoch.
    ///
    /// # Errors
    /// A weight that is negative, NaN or infinite, or weights that are all 0 while `samples`
    /// is above 0 ([`WeightsError`]).
    pub fn with_replacement(
        weights: impl Into<Vec<f64>>,
        samples: usize,
        seed: u64,
    ) -> Result<Self, WeightsError> {
        let weights = checked(weights.into(), samples)?;
        // Summed as fractions of the largest, so that finite weights never sum to infinity.
        let largest = weights.iter().copied().fold(0.0, f64::max);
        let mut total = 0.0;
        let table = weights
            .iter()
            .map(|w| {
                total += w / largest;
                total
            })
            .collect();
        Ok(Self {
            table,
            samples,
            replacement: true,
            seed,
        })
    }

    /// `samples` distinct indices per epoch.
    ///
    /// # Errors
    /// As [`Weighted::with_replacement`], and more `samples` than weights above 0.
    pub fn without_replacement(
        weights: impl Into<Vec<f64>>,
        samples: usize,
        seed: u64,
    ) -> Result<Self, WeightsError> {
        let weights = checked(weights.into(), samples)?;
        let positive = weights.iter().filter(|&&w| w > 0.0).count();
        if samples > positive {
            return Err(WeightsError::TooFewPositive { samples, positive });
        }
        Ok(Self {
            table: weights.into(),
            samples,
            replacement: false,
            seed,
        })
    }

    fn rng(&self, epoch: u64) -> ItemRng {
        rng_for(self.seed ^ SALT, epoch, 0)
    }

    fn draw_with_replacement(&self, epoch: u64) -> Vec<usize> {
        let mut rng = self.rng(epoch);
        let total = self.table.last().copied().unwrap_or(0.0);
        (0..self.samples)
            .map(|_| {
                let target = rng.next_f64() * total;
                // The first index whose running sum passes the target: zero weights, whose
                // sums equal the one before, are never it. Rounding at the very top stays in range.
                self.table
                    .partition_point(|&sum| sum <= target)
                    .min(self.table.len() - 1)
            })
            .collect()
    }

    fn draw_without_replacement(&self, epoch: u64) -> Vec<usize> {
        let mut rng = self.rng(epoch);
        let mut keyed: Vec<(f64, usize)> = self
            .table
            .iter()
            .enumerate()
            .filter(|&(_, &w)| w > 0.0)
            .map(|(i, &w)| {
                let u = 1.0 - rng.next_f64(); // in (0, 1]: ln is finite
                (u.ln() / w, i)
            })
            .collect();
        let by_key = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if self.samples < keyed.len() {
            keyed.select_nth_unstable_by(self.samples, by_key);
            keyed.truncate(self.samples);
        }
        keyed.sort_unstable_by(by_key);
        keyed.into_iter().map(|(_, i)| i).collect()
    }
}

fn checked(weights: Vec<f64>, samples: usize) -> Result<Vec<f64>, WeightsError> {
    if let Some((index, &weight)) = weights
        .iter()
        .enumerate()
        .find(|(_, w)| !w.is_finite() || **w < 0.0)
    {
        return Err(WeightsError::Invalid { index, weight });
    }
    if samples > 0 && weights.iter().all(|&w| w == 0.0) {
        return Err(WeightsError::AllZero { len: weights.len() });
    }
    Ok(weights)
}

impl fmt::Debug for Weighted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Weighted")
            .field("weights", &self.table.len())
            .field("samples", &self.samples)
            .field("replacement", &self.replacement)
            .field("seed", &self.seed)
            .finish()
    }
}

impl Sampler for Weighted {
    fn len(&self, _dataset_len: usize) -> usize {
        self.samples
    }

    fn order(&self, _dataset_len: usize, epoch: u64) -> EpochOrder {
        EpochOrder::listed(if self.replacement {
            self.draw_with_replacement(epoch)
        } else {
            self.draw_without_replacement(epoch)
        })
    }

    fn check(&self, dataset_len: usize) -> Result<(), String> {
        one_per_observation("Weighted", "weight", self.table.len(), dataset_len)
    }

    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }

    fn name(&self) -> &str {
        "Weighted"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_weights_are_named() {
        let err = Weighted::with_replacement(vec![1.0, -2.0], 3, 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "weights[1] is -2: a weight must be finite and at least 0"
        );
        let nan = Weighted::without_replacement(vec![f64::NAN], 1, 0).unwrap_err();
        assert!(matches!(nan, WeightsError::Invalid { index: 0, .. }));
        let inf = Weighted::with_replacement(vec![0.0, f64::INFINITY], 1, 0).unwrap_err();
        assert!(matches!(inf, WeightsError::Invalid { index: 1, .. }));
        let zero = Weighted::with_replacement(vec![0.0; 4], 1, 0).unwrap_err();
        assert_eq!(
            zero.to_string(),
            "every weight is 0 (4 given): there is nothing to draw samples from"
        );
        let one_zero = Weighted::with_replacement(vec![0.0], 1, 0).unwrap_err();
        assert_eq!(
            one_zero.to_string(),
            "every weight is 0 (1 given): there is nothing to draw samples from"
        );
        let one_positive = Weighted::without_replacement(vec![1.0, 0.0], 2, 0).unwrap_err();
        assert_eq!(
            one_positive.to_string(),
            "without replacement, each sample needs a weight above 0 of its own: 2 asked for, \
             1 available"
        );
        let few = Weighted::without_replacement(vec![1.0, 0.0, 2.0], 3, 0).unwrap_err();
        assert_eq!(
            few,
            WeightsError::TooFewPositive {
                samples: 3,
                positive: 2
            }
        );
        assert!(Weighted::with_replacement(Vec::new(), 0, 0).is_ok());
    }

    #[test]
    fn zero_weights_are_never_drawn_and_draws_without_replacement_are_distinct() {
        let weights = vec![0.0, 1.0, 0.0, 3.0, 0.0];
        let with = Weighted::with_replacement(weights.clone(), 1_000, 1).unwrap();
        let drawn = with.draw_with_replacement(0);
        assert!(drawn.iter().all(|&i| i == 1 || i == 3));
        let without = Weighted::without_replacement(weights, 2, 1).unwrap();
        for epoch in 0..20 {
            let mut drawn = without.draw_without_replacement(epoch);
            drawn.sort_unstable();
            assert_eq!(drawn, vec![1, 3]);
        }
        assert_ne!(with.draw_with_replacement(0), with.draw_with_replacement(1));
        let huge = Weighted::with_replacement(vec![1e308, 1e308, 0.0], 1_000, 2).unwrap();
        let drawn = huge.draw_with_replacement(0);
        let first = drawn.iter().filter(|&&i| i == 0).count();
        assert!(
            (400..600).contains(&first),
            "weights near f64::MAX: {first} of 1000"
        );
        assert_eq!(with.draw_with_replacement(2), with.draw_with_replacement(2));
    }

    #[test]
    fn a_sampler_for_other_lengths_is_refused() {
        let w = Weighted::with_replacement(vec![1.0; 3], 5, 0).unwrap();
        assert!(w.check(3).is_ok());
        assert_eq!(
            w.check(4).unwrap_err(),
            "Weighted needs one weight per observation: 3 given for a dataset of length 4"
        );
        let one = Weighted::with_replacement(vec![1.0], 5, 0).unwrap();
        assert_eq!(
            one.check(2).unwrap_err(),
            "Weighted needs one weight per observation: 1 given for a dataset of length 2"
        );
    }
}
