//! [`DatasetExt`]: views, splits, folds, filters and resampling for every dataset.
//!
//! Every method returns a view ([`Subset`], [`Chained`], [`Zipped`]) that shares the dataset and
//! copies no observation; only index lists are made. Orders drawn at random are functions of
//! the seed alone (through [`Permutation`]), so a split is the same on every machine and run.

use crate::error::DataError;
use crate::view::{Chained, Subset, Zipped};
use foldex_core::{Executor, ExecutorExt};
use foldex_dataset::{rng_for, Dataset, Permutation};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A training set and the validation set left out of it: one of [`DatasetExt::k_folds`].
#[derive(Debug)]
pub struct KFold<D> {
    /// Every observation outside this fold.
    pub train: Subset<D>,
    /// The observations of this fold.
    pub validation: Subset<D>,
}

/// Views, splits, folds, filters and resampling for every [`Dataset`] (MLUtils.jl's
/// `obsview`, `splitobs`, `kfolds`, `filterobs`, `joinobs`, `oversample`, `undersample`;
/// PyTorch's `Subset`, `random_split`, `ConcatDataset`).
///
/// ```
/// use foldex_data::DatasetExt;
/// use foldex_dataset::{from_fn, Dataset};
///
/// let images = from_fn(100, |i| i); // stands in for decoded images
/// let labels: Vec<u8> = (0..100).map(|i| (i % 4 == 0) as u8).collect();
/// let parts = images.stratified_split(&[0.8, 0.2], &labels, 7)?;
/// let (train, test) = (&parts[0], &parts[1]);
/// assert_eq!((train.len(), test.len()), (80, 20));
/// let positives = |d: &foldex_data::view::Subset<_>| (0..d.len()).filter(|&i| d.get(i) % 4 == 0).count();
/// assert_eq!((positives(train), positives(test)), (20, 5)); // a quarter in each
/// # Ok::<(), foldex_data::DataError>(())
/// ```
pub trait DatasetExt: Dataset + Sized {
    /// The observations at `indices`, in that order (repeats allowed).
    ///
    /// # Errors
    /// An index not below the dataset's length, named with its position.
    fn subset(self, indices: impl Into<Vec<usize>>) -> Result<Subset<Self>, DataError> {
        let indices = indices.into();
        let len = self.len();
        if let Some((position, &index)) = indices.iter().enumerate().find(|&(_, &i)| i >= len) {
            return Err(DataError::IndexOutOfRange {
                position,
                index,
                len,
            });
        }
        Ok(Subset::list(Arc::new(self), indices))
    }

    /// The first `n` observations (all of them if there are fewer).
    fn take(self, n: usize) -> Subset<Self> {
        let end = n.min(self.len());
        Subset::range(Arc::new(self), 0..end)
    }

    /// Every observation after the first `n` (none if there are fewer).
    fn skip(self, n: usize) -> Subset<Self> {
        let len = self.len();
        Subset::range(Arc::new(self), n.min(len)..len)
    }

    /// This dataset's observations, then `other`'s.
    fn chain<B: Dataset<Item = Self::Item>>(self, other: B) -> Chained<Self, B> {
        Chained::new(self, other)
    }

    /// Pairs of this dataset's and `other`'s observations of the same index.
    ///
    /// # Errors
    /// Datasets of different lengths.
    fn zip<B: Dataset>(self, other: B) -> Result<Zipped<Self, B>, DataError> {
        check_len("zip", self.len(), other.len())?;
        Ok(Zipped::new(self, other))
    }

    /// The observations for which `keep` is true, in order. Each observation is loaded once,
    /// now, on `executor` (give it the loader's), to make the index list; the view loads them
    /// again when it is read.
    ///
    /// ```
    /// use foldex_data::DatasetExt;
    /// use foldex_dataset::{from_fn, Dataset};
    /// use foldex_threaded::ThreadedEx;
    /// let even = from_fn(10, |i| i).filter(&ThreadedEx::new(), |&x| x % 2 == 0);
    /// assert_eq!((even.len(), even.get(4)), (5, 8));
    /// ```
    fn filter<E, F>(self, executor: &E, keep: F) -> Subset<Self>
    where
        E: Executor + ?Sized,
        F: Fn(&Self::Item) -> bool + Sync,
    {
        let kept = executor.fold(
            0..self.len(),
            Vec::new,
            |mut kept, i| {
                if keep(&self.get(i)) {
                    kept.push(i);
                }
                kept
            },
            |mut left, right| {
                left.extend(right);
                left
            },
        );
        Subset::list(Arc::new(self), kept)
    }

    /// Random parts of sizes in proportion to `fractions` (PyTorch's `random_split`,
    /// MLUtils.jl's `splitobs` with `shuffle`), each observation in exactly one, from `seed`.
    /// Part sizes are `fraction × len` rounded down, the observations left over going one each
    /// to the parts with the largest remainders.
    ///
    /// # Errors
    /// A fraction that is not in `[0, 1]`, or fractions whose sum is not 1.
    fn random_split(self, fractions: &[f64], seed: u64) -> Result<Vec<Subset<Self>>, DataError> {
        let sizes = part_sizes(fractions, self.len())?;
        let order = Permutation::new(self.len(), seed, 0);
        let dataset = Arc::new(self);
        let mut start = 0;
        Ok(sizes
            .into_iter()
            .map(|size| {
                let part: Vec<usize> = (start..start + size).map(|p| order.get(p)).collect();
                start += size;
                Subset::list(Arc::clone(&dataset), part)
            })
            .collect())
    }

    /// As [`random_split`](DatasetExt::random_split), within each class of `labels` (one label
    /// per observation), so that every part has the classes in the dataset's proportions
    /// (MLUtils.jl's `stratifiedobs`). Each part lists its observations class by class.
    ///
    /// # Errors
    /// As `random_split`, and labels of another length than the dataset.
    fn stratified_split<L: Ord>(
        self,
        fractions: &[f64],
        labels: &[L],
        seed: u64,
    ) -> Result<Vec<Subset<Self>>, DataError> {
        check_len("labels", self.len(), labels.len())?;
        // The parts' sizes are those of a random split; each class gives each part its share
        // rounded down, and its leftover observations one by one to the part furthest below
        // its size, so that ties do not all go to the first part.
        let mut deficit = part_sizes(fractions, self.len())?;
        let mut parts = vec![Vec::new(); fractions.len()];
        for (class, members) in classes(labels).into_values().enumerate() {
            let order = Permutation::new(members.len(), seed, class as u64);
            let mut sizes: Vec<usize> = fractions
                .iter()
                .map(|f| (f * members.len() as f64).floor() as usize)
                .collect();
            for (d, &n) in deficit.iter_mut().zip(&sizes) {
                *d = d.saturating_sub(n);
            }
            for _ in sizes.iter().sum::<usize>()..members.len() {
                let (k, _) = deficit
                    .iter()
                    .enumerate()
                    .rev()
                    .max_by_key(|&(_, d)| *d)
                    .expect("a part");
                sizes[k] += 1;
                deficit[k] = deficit[k].saturating_sub(1);
            }
            let mut start = 0;
            for (part, size) in parts.iter_mut().zip(sizes) {
                part.extend((start..start + size).map(|p| members[order.get(p)]));
                start += size;
            }
        }
        let dataset = Arc::new(self);
        Ok(parts
            .into_iter()
            .map(|part| Subset::list(Arc::clone(&dataset), part))
            .collect())
    }

    /// `k` folds for cross-validation (MLUtils.jl's `kfolds`): the observations are shuffled
    /// from `seed` and cut into `k` parts whose sizes differ by one at most; fold `i` validates
    /// on part `i` and trains on the others.
    ///
    /// # Errors
    /// `k` below 2 or above the number of observations.
    fn k_folds(self, k: usize, seed: u64) -> Result<Vec<KFold<Self>>, DataError> {
        let len = self.len();
        if k < 2 || k > len {
            return Err(DataError::Folds { k, len });
        }
        let order = Permutation::new(len, seed, 0);
        let whole = Subset::range(Arc::new(self), 0..len);
        let shuffled = whole.compose((0..len).map(|p| order.get(p)));
        // Part `i` starts at `i * len / k`: sizes differ by one at most.
        let start = |i: usize| (len as u128 * i as u128 / k as u128) as usize;
        Ok((0..k)
            .map(|i| {
                let part = start(i)..start(i + 1);
                KFold {
                    train: shuffled.compose((0..part.start).chain(part.end..len)),
                    validation: shuffled.compose(part),
                }
            })
            .collect())
    }

    /// Every class of `labels` as large as the largest: the observations of a smaller class
    /// all stay, and more are drawn from it with replacement, from `seed` (MLUtils.jl's
    /// `oversample`). The view lists indices in ascending order, repeats side by side; shuffle
    /// it with the loader.
    ///
    /// # Errors
    /// Labels of another length than the dataset.
    fn oversample<L: Ord>(self, labels: &[L], seed: u64) -> Result<Subset<Self>, DataError> {
        check_len("labels", self.len(), labels.len())?;
        let classes = classes(labels);
        let largest = classes.values().map(Vec::len).max().unwrap_or(0);
        let mut kept = Vec::with_capacity(largest * classes.len());
        for (class, members) in classes.into_values().enumerate() {
            let mut rng = rng_for(seed, 0, class);
            kept.extend(&members);
            kept.extend((members.len()..largest).map(|_| members[rng.gen_range(0..members.len())]));
        }
        kept.sort_unstable();
        Ok(Subset::list(Arc::new(self), kept))
    }

    /// Every class of `labels` as small as the smallest, keeping a random choice of each
    /// class's observations, from `seed` (MLUtils.jl's `undersample`). The view lists indices
    /// in ascending order.
    ///
    /// # Errors
    /// Labels of another length than the dataset.
    fn undersample<L: Ord>(self, labels: &[L], seed: u64) -> Result<Subset<Self>, DataError> {
        check_len("labels", self.len(), labels.len())?;
        let classes = classes(labels);
        let smallest = classes.values().map(Vec::len).min().unwrap_or(0);
        let mut kept = Vec::with_capacity(smallest * classes.len());
        for (class, members) in classes.into_values().enumerate() {
            let order = Permutation::new(members.len(), seed, class as u64);
            kept.extend((0..smallest).map(|p| members[order.get(p)]));
        }
        kept.sort_unstable();
        Ok(Subset::list(Arc::new(self), kept))
    }
}

impl<D: Dataset> DatasetExt for D {}

impl<D> Clone for KFold<D> {
    fn clone(&self) -> Self {
        Self {
            train: self.train.clone(),
            validation: self.validation.clone(),
        }
    }
}

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), DataError> {
    if expected == got {
        Ok(())
    } else {
        Err(DataError::Lengths {
            what,
            expected,
            got,
        })
    }
}

/// The indices of each label, classes in the labels' order.
fn classes<L: Ord>(labels: &[L]) -> BTreeMap<&L, Vec<usize>> {
    let mut classes: BTreeMap<&L, Vec<usize>> = BTreeMap::new();
    for (i, label) in labels.iter().enumerate() {
        classes.entry(label).or_default().push(i);
    }
    classes
}

/// How far the fractions' sum may be from 1 (decimal fractions such as 0.7 + 0.2 + 0.1 do not
/// sum to 1 exactly in binary).
const SUM_TOLERANCE: f64 = 1e-9;

/// The sizes of parts of `len` observations in proportion to `fractions`: rounded down, then
/// one more for each of the largest remainders (the first such part on a tie), so that they
/// sum to `len`.
fn part_sizes(fractions: &[f64], len: usize) -> Result<Vec<usize>, DataError> {
    let valid = fractions.iter().all(|f| (0.0..=1.0).contains(f));
    let sum: f64 = fractions.iter().sum();
    if fractions.is_empty() || !valid || (sum - 1.0).abs() > SUM_TOLERANCE {
        return Err(DataError::Fractions(fractions.to_vec()));
    }
    // As fractions of their sum, so that rounding down never gives more than `len`.
    let exact: Vec<f64> = fractions.iter().map(|f| f / sum * len as f64).collect();
    let mut sizes: Vec<usize> = exact
        .iter()
        .map(|e| (e.floor() as usize).min(len))
        .collect();
    let left = len.saturating_sub(sizes.iter().sum());
    let mut by_remainder: Vec<usize> = (0..fractions.len()).collect();
    by_remainder.sort_by(|&a, &b| {
        let rem = |k: usize| exact[k] - exact[k].floor();
        rem(b).total_cmp(&rem(a)).then(a.cmp(&b))
    });
    for &k in by_remainder.iter().cycle().take(left) {
        sizes[k] += 1;
    }
    Ok(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_sizes_sum_to_the_length_and_follow_the_fractions() {
        assert_eq!(part_sizes(&[0.7, 0.2, 0.1], 10).unwrap(), vec![7, 2, 1]);
        assert_eq!(part_sizes(&[0.5, 0.5], 7).unwrap(), vec![4, 3]);
        assert_eq!(part_sizes(&[1.0 / 3.0; 3], 10).unwrap(), vec![4, 3, 3]);
        assert_eq!(part_sizes(&[0.9, 0.1], 0).unwrap(), vec![0, 0]);
        let huge = part_sizes(&[0.5 + 4e-10; 2], 10_000_000_000).unwrap();
        assert_eq!(huge.iter().sum::<usize>(), 10_000_000_000);
        for bad in [&[0.5, 0.4][..], &[1.2, -0.2], &[f64::NAN, 1.0], &[]] {
            let err = part_sizes(bad, 10).unwrap_err();
            assert!(err
                .to_string()
                .contains("must each be in [0, 1] and sum to 1"));
        }
    }
}
