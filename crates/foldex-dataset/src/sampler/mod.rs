//! Samplers: which observations an epoch visits, and in which order (torch.utils.data's
//! samplers; MLUtils.jl's `shuffleobs`).
//!
//! A [`Sampler`] turns `(dataset length, epoch)` into an [`EpochOrder`]; the loader cuts the
//! order into batches, shards it between ranks (`Loader::shard`
//! applies after the sampler), and loads it on any executor. An order is a pure function of the
//! sampler's settings and the epoch, so every executor and every rank sees the same one, and a
//! resumed epoch continues exactly.

mod by_length;
mod weighted;

pub use by_length::ByLength;
pub use weighted::{Weighted, WeightsError};

use crate::order::EpochOrder;

/// Which observations an epoch visits, and in which order: set one with
/// `Loader::sampler`.
///
/// Implement it for an order of your own: `order` lists the indices with
/// [`EpochOrder::listed`] (or returns a [`Permutation`](crate::order::Permutation) or the identity),
/// and `len` says how many positions every epoch has. The loader checks both before an epoch
/// starts and refuses an order that does not fit the dataset
/// (`IterError::Sampler`).
///
/// ```
/// use foldex_dataset::{from_fn, EpochOrder, Sampler};
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
///
/// /// Every observation twice, in reverse.
/// struct Twice;
/// impl Sampler for Twice {
///     fn len(&self, dataset_len: usize) -> usize { 2 * dataset_len }
///     fn order(&self, dataset_len: usize, _epoch: u64) -> EpochOrder {
///         EpochOrder::listed((0..dataset_len).rev().chain((0..dataset_len).rev()).collect())
///     }
/// }
/// let loader = Loader::new(from_fn(3, |i| i), ThreadedEx::new().basesize(1)).sampler(Twice).unbatched();
/// assert_eq!(loader.iter().collect::<Vec<_>>(), vec![2, 1, 0, 2, 1, 0]);
/// ```
pub trait Sampler: Send + Sync {
    /// The positions of every epoch over a dataset of `dataset_len` observations (the length of
    /// what [`order`](Sampler::order) returns). The dataset's length by default.
    fn len(&self, dataset_len: usize) -> usize {
        dataset_len
    }

    /// Epoch `epoch`'s order: [`len`](Sampler::len)`(dataset_len)` positions, each an index
    /// below `dataset_len`. Called once per epoch, on the thread that starts it.
    fn order(&self, dataset_len: usize, epoch: u64) -> EpochOrder;

    /// Whether the sampler fits a dataset of `dataset_len` observations (a weight for each, say);
    /// `Err` says why not, and the loader refuses to start an epoch with it.
    fn check(&self, dataset_len: usize) -> Result<(), String> {
        let _ = dataset_len;
        Ok(())
    }

    /// The seed that a checkpoint records (`LoaderState::seed`),
    /// so that it resumes only under a sampler with the same seed; and the default seed of
    /// each observation's generator (`Loader::seed`). `None` by default.
    fn seed(&self) -> Option<u64> {
        None
    }

    /// The sampler's kind, recorded in a checkpoint
    /// (`LoaderState::sampler`) so that it resumes only under a
    /// sampler of the same kind: another kind with the same seed would continue another order,
    /// repeating some observations and skipping others.
    ///
    /// The type's name by default (`std::any::type_name`), which a new compiler may spell
    /// differently: give a fixed name where checkpoints outlive a build. A sampler that wraps
    /// another and keeps its order forwards `name` as it forwards `seed`. The built-in samplers
    /// answer `"Sequential"`, `"Shuffled"`, `"Weighted"` and `"ByLength"`. A state whose
    /// `sampler` is set to `None` skips the check.
    fn name(&self) -> &str {
        std::any::type_name::<Self>()
    }
}

/// `0..len` in order, every epoch (the loader's default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sequential;

impl Sampler for Sequential {
    fn order(&self, dataset_len: usize, _epoch: u64) -> EpochOrder {
        EpochOrder::Sequential(dataset_len)
    }

    fn name(&self) -> &str {
        "Sequential"
    }
}

/// A permutation of `0..len` from `(seed, epoch)`, new each epoch, in O(1) memory: what
/// `Loader::shuffle` sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shuffled {
    seed: u64,
}

impl Shuffled {
    /// Shuffled orders drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Self { seed }
    }
}

impl Sampler for Shuffled {
    fn order(&self, dataset_len: usize, epoch: u64) -> EpochOrder {
        EpochOrder::new(dataset_len, Some(self.seed), epoch)
    }

    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }

    fn name(&self) -> &str {
        "Shuffled"
    }
}

/// The sampler's order of `epoch`, checked against a dataset of `dataset_len`; `Err` says why it
/// does not fit (the message of `IterError::Sampler`).
pub fn checked_order(
    sampler: &dyn Sampler,
    dataset_len: usize,
    epoch: u64,
) -> Result<EpochOrder, String> {
    sampler.check(dataset_len)?;
    let order = sampler.order(dataset_len, epoch);
    let promised = sampler.len(dataset_len);
    if order.len() != promised {
        return Err(format!(
            "the sampler's order of epoch {epoch} has length {}, but its len() promised \
             {promised}",
            order.len()
        ));
    }
    if order.bound() > dataset_len {
        return Err(format!(
            "the sampler's order of epoch {epoch} visits index {}, beyond a dataset of \
             length {dataset_len}",
            order.bound() - 1
        ));
    }
    Ok(order)
}

/// `Ok` when a sampler holds one `what` (weight, length) per observation, else why not.
fn one_per_observation(
    sampler: &str,
    what: &str,
    given: usize,
    dataset_len: usize,
) -> Result<(), String> {
    if given == dataset_len {
        Ok(())
    } else {
        Err(format!(
            "{sampler} needs one {what} per observation: {given} given for a dataset of \
             length {dataset_len}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Liar;
    impl Sampler for Liar {
        fn len(&self, dataset_len: usize) -> usize {
            dataset_len
        }
        fn order(&self, dataset_len: usize, _: u64) -> EpochOrder {
            EpochOrder::listed(vec![dataset_len; dataset_len])
        }
    }

    #[test]
    fn orders_that_do_not_fit_are_refused_with_what_is_wrong() {
        let err = checked_order(&Liar, 3, 1).unwrap_err();
        assert!(
            err.contains("visits index 3, beyond a dataset of length 3"),
            "{err}"
        );
        let err = checked_order(&Liar, 1, 1).unwrap_err();
        assert!(
            err.ends_with("visits index 1, beyond a dataset of length 1"),
            "{err}"
        );
        struct Short;
        impl Sampler for Short {
            fn order(&self, _: usize, _: u64) -> EpochOrder {
                EpochOrder::listed(vec![0])
            }
        }
        let err = checked_order(&Short, 3, 0).unwrap_err();
        assert!(
            err.contains("has length 1, but its len() promised 3"),
            "{err}"
        );
        assert_eq!(checked_order(&Sequential, 4, 0).unwrap().len(), 4);
        let shuffled = checked_order(&Shuffled::new(5), 10, 2).unwrap();
        assert_eq!(shuffled, EpochOrder::new(10, Some(5), 2));
    }
}
