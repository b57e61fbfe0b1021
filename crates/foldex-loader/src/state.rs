//! Exact resumption: what the consumer has received, as a small serializable value, and the
//! schedule that continues an epoch from it without replaying anything.
//!
//! Batches are numbered in epoch order. In ordered mode the consumer has received a prefix
//! `0..next_batch`. Unordered, it has received a prefix plus a few batches above it that
//! finished early; there are never many, since a batch above the prefix can only have been
//! delivered while an earlier one was still in progress or waiting, which the buffer bounds.

use crate::elastic::Remainder;
use crate::error::ResumeError;
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Where the consumer of an epoch stands: enough to continue with exactly the next batch, with
/// [`Loader::resume`](crate::Loader::resume). From [`Iter::state`](crate::Iter::state); small,
/// and serde-serializable (feature `serde`) so that it can go into a checkpoint. The states of
/// every rank of a sharded epoch merge into one that continues it in another world
/// ([`Loader::merge_states`](crate::Loader::merge_states)).
///
/// ```
/// use foldex_dataset::from_fn;
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// let loader = Loader::new(from_fn(10, |i| i), ThreadedEx::new().basesize(1)).batch_size(2).shuffle(3);
/// let mut first = loader.iter();
/// let head: Vec<Vec<usize>> = first.by_ref().take(2).collect();
/// let state = first.state();
/// drop(first);
/// let tail: Vec<Vec<usize>> = loader.resume(&state).unwrap().collect();
/// let whole: Vec<Vec<usize>> = loader.epoch_order(0).iter().collect::<Vec<_>>()
///     .chunks(2).map(<[usize]>::to_vec).collect();
/// assert_eq!([head, tail].concat(), whole);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct LoaderState {
    /// The shuffle seed (`None`: not shuffled).
    pub seed: Option<u64>,
    /// The epoch.
    pub epoch: u64,
    /// Every batch below this one was received.
    pub next_batch: usize,
    /// Batches above `next_batch` that were received too (unordered delivery only), ascending.
    pub received_above: Vec<usize>,
    /// The loader's batch size, checked on resumption.
    pub batch_size: usize,
    /// The number of observations in the epoch (after sharding), checked on resumption.
    pub len: usize,
    /// The loader's shard, `(rank, world)`: `(0, 1)` when it is not sharded. Checked on
    /// resumption, so that one rank's state never continues another rank's part. `None` only
    /// in a state written before the shard was recorded (the field is absent); such a state
    /// resumes only on a loader that is not sharded.
    #[cfg_attr(feature = "serde", serde(default))]
    pub shard: Option<(usize, usize)>,
    /// The sampler's kind ([`Sampler::name`](foldex_dataset::Sampler::name)), checked on resumption
    /// along with the seed. `None` only in a state written before the kind was recorded (the
    /// field is absent); such a state resumes under any sampler with its seed.
    #[cfg_attr(feature = "serde", serde(default))]
    pub sampler: Option<String>,
    /// What remained of the epoch when it was dealt to this loader's world in another world's
    /// stead ([`Loader::merge_states`](crate::Loader::merge_states)): the loader's part is its
    /// shard of these positions. `None` (or absent): its shard of the whole epoch.
    #[cfg_attr(feature = "serde", serde(default))]
    pub remainder: Option<Remainder>,
    /// The positions of the whole epoch, before sharding (the sampler's length), checked on
    /// resumption and merging. `None` only in a state written before it was recorded.
    #[cfg_attr(feature = "serde", serde(default))]
    pub epoch_len: Option<usize>,
}

impl LoaderState {
    /// Checks that this state continues an epoch of the loader whose state at the start of an
    /// epoch is `fresh` (same sampler and seed, shard, batch size and length), and that the
    /// epoch after it can be numbered.
    pub(crate) fn check(&self, fresh: &LoaderState) -> Result<(), ResumeError> {
        let mismatch = |setting, state: String, loader: String| {
            Err(ResumeError::Mismatch {
                setting,
                state,
                loader,
            })
        };
        if self.seed != fresh.seed {
            return mismatch(
                "seed",
                format!("{:?}", self.seed),
                format!("{:?}", fresh.seed),
            );
        }
        if let (Some(state), Some(loader)) = (&self.sampler, &fresh.sampler)
            && state != loader
        {
            return mismatch("sampler", state.clone(), loader.clone());
        }
        let unsharded = Some((0, 1));
        if self.shard != fresh.shard && !(self.shard.is_none() && fresh.shard == unsharded) {
            return mismatch("shard", describe(self.shard), describe(fresh.shard));
        }
        if self.batch_size != fresh.batch_size {
            let (state, loader) = (self.batch_size, fresh.batch_size);
            return mismatch("batch_size", state.to_string(), loader.to_string());
        }
        if let (Some(state), Some(loader)) = (self.epoch_len, fresh.epoch_len)
            && state != loader
        {
            return mismatch("epoch length", state.to_string(), loader.to_string());
        }
        if self.len != fresh.len {
            return mismatch("len", self.len.to_string(), fresh.len.to_string());
        }
        if self.epoch == u64::MAX {
            return Err(ResumeError::LastEpoch { epoch: self.epoch });
        }
        Ok(())
    }
}

/// A shard as the error messages name it.
fn describe(shard: Option<(usize, usize)>) -> String {
    match shard {
        None => "none recorded".to_owned(),
        Some((0, 1)) => "rank 0 of 1 (not sharded)".to_owned(),
        Some((rank, world)) => format!("rank {rank} of {world}"),
    }
}

/// Which batches an epoch still has to run: all from `first` on, except `skip`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Schedule {
    pub first: usize,
    /// Ascending, all `>= first`.
    pub skip: Vec<usize>,
}

impl Schedule {
    /// The schedule that continues after `state`, for an epoch of `batches` batches.
    pub fn after(state: &LoaderState, batches: usize) -> Result<Self, ResumeError> {
        let mut skip = state.received_above.clone();
        skip.sort_unstable();
        skip.dedup();
        let in_range = state.next_batch <= batches
            && skip.iter().all(|&b| b > state.next_batch && b < batches);
        if !in_range {
            return Err(ResumeError::OutOfRange { batches });
        }
        Ok(Self {
            first: state.next_batch,
            skip,
        })
    }

    /// How many batches of an epoch of `batches` this schedule runs.
    pub fn count(&self, batches: usize) -> usize {
        batches - self.first - self.skip.len()
    }

    /// The batch number of the `ticket`-th batch this schedule runs, in O(skipped).
    pub fn batch(&self, ticket: usize) -> usize {
        let mut batch = self.first + ticket;
        for &s in &self.skip {
            if s > batch {
                break;
            }
            batch += 1;
        }
        batch
    }
}

/// What the consumer has received: a prefix, and a window of flags above it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Received {
    /// Every batch below this was received.
    low: usize,
    /// `above[j]`: batch `low + 1 + j` was received. Empty whenever delivery is in order, so
    /// ordered epochs never touch it; its capacity is reused, so it stops allocating.
    above: VecDeque<bool>,
}

impl Received {
    /// Starts after `schedule`: its skipped batches count as received.
    pub fn new(schedule: &Schedule) -> Self {
        let mut received = Self {
            low: schedule.first,
            above: VecDeque::new(),
        };
        for &b in &schedule.skip {
            received.record(b);
        }
        received
    }

    /// Counts batch `batch` as received.
    #[inline]
    pub fn record(&mut self, batch: usize) {
        // In order with nothing received above: what every ordered delivery takes.
        if batch == self.low && self.above.is_empty() {
            self.low += 1;
            return;
        }
        self.record_out_of_order(batch);
    }

    /// [`Received::record`] when flags above the prefix are kept (unordered delivery).
    #[inline(never)]
    fn record_out_of_order(&mut self, batch: usize) {
        if batch == self.low {
            self.low += 1;
            while self.above.pop_front() == Some(true) {
                self.low += 1;
            }
            // `pop_front` took one flag too many if it was `false` (batch `low` not yet here):
            // nothing to restore, since that flag stood for batch `low` itself.
        } else {
            debug_assert!(batch > self.low, "batch {batch} received twice");
            let j = batch - self.low - 1;
            if self.above.len() <= j {
                self.above.resize(j + 1, false);
            }
            self.above[j] = true;
        }
    }

    /// The state naming what was received of the epoch whose state at its start is `fresh`.
    pub fn state(&self, fresh: &LoaderState) -> LoaderState {
        let received_above = self
            .above
            .iter()
            .enumerate()
            .filter(|&(_, &got)| got)
            .map(|(j, _)| self.low + 1 + j)
            .collect();
        LoaderState {
            next_batch: self.low,
            received_above,
            ..fresh.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn state(next_batch: usize, received_above: Vec<usize>) -> LoaderState {
        LoaderState {
            next_batch,
            received_above,
            ..fresh(0)
        }
    }

    /// The state at the start of epoch `epoch` of an unsharded loader of 40 batches of one.
    fn fresh(epoch: u64) -> LoaderState {
        LoaderState {
            seed: None,
            epoch,
            next_batch: 0,
            received_above: vec![],
            batch_size: 1,
            len: 40,
            shard: Some((0, 1)),
            sampler: Some("Sequential".to_owned()),
            remainder: None,
            epoch_len: Some(40),
        }
    }

    proptest! {
        /// Receiving any permutation of a prefix of batches, then resuming, runs exactly the
        /// batches not received.
        #[test]
        fn a_schedule_runs_exactly_what_was_not_received(
            order in Just((0..40usize).collect::<Vec<_>>()).prop_shuffle(),
            cut in 0usize..40,
        ) {
            let mut received = Received::default();
            for &b in &order[..cut] {
                received.record(b);
            }
            let st = received.state(&fresh(0));
            let schedule = Schedule::after(&st, 40).unwrap();
            let rest: Vec<usize> = (0..schedule.count(40)).map(|t| schedule.batch(t)).collect();
            let mut expected: Vec<usize> = order[cut..].to_vec();
            expected.sort_unstable();
            prop_assert_eq!(&rest, &expected);
            // And resuming twice composes.
            let mut again = Received::new(&schedule);
            for t in 0..schedule.count(40) / 2 {
                again.record(schedule.batch(t));
            }
            let second = Schedule::after(&again.state(&fresh(0)), 40).unwrap();
            let tail: Vec<usize> = (0..second.count(40)).map(|t| second.batch(t)).collect();
            let mut expected_tail = expected.clone();
            expected_tail.drain(..schedule.count(40) / 2);
            prop_assert_eq!(tail, expected_tail);
        }
    }

    #[test]
    fn in_order_delivery_keeps_no_window() {
        let mut received = Received::default();
        for b in 0..1000 {
            received.record(b);
        }
        assert_eq!(
            received.state(&fresh(2)),
            LoaderState {
                next_batch: 1000,
                ..fresh(2)
            }
        );
    }

    #[test]
    fn states_beyond_the_epoch_are_refused() {
        assert!(Schedule::after(&state(11, vec![]), 10).is_err());
        assert!(Schedule::after(&state(3, vec![10]), 10).is_err());
        assert!(Schedule::after(&state(3, vec![3]), 10).is_err());
        assert_eq!(
            Schedule::after(&state(10, vec![]), 10).unwrap().count(10),
            0
        );
    }

    #[test]
    fn a_state_without_a_shard_resumes_only_unsharded() {
        let old = LoaderState {
            shard: None,
            ..fresh(3)
        };
        assert_eq!(old.check(&fresh(3)), Ok(()));
        let rank_1 = LoaderState {
            shard: Some((1, 2)),
            ..fresh(3)
        };
        let err = old.check(&rank_1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "foldex-loader: cannot resume: the state has shard none recorded, this loader \
             rank 1 of 2"
        );
    }

    #[test]
    fn a_state_resumes_only_under_its_samplers_kind() {
        let shuffled = |sampler: Option<&str>| LoaderState {
            seed: Some(7),
            sampler: sampler.map(str::to_owned),
            ..fresh(3)
        };
        let err = shuffled(Some("Shuffled"))
            .check(&shuffled(Some("ByLength")))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "foldex-loader: cannot resume: the state has sampler Shuffled, this loader ByLength"
        );
        assert_eq!(
            shuffled(Some("Shuffled")).check(&shuffled(Some("Shuffled"))),
            Ok(())
        );
        // A state written before the kind was recorded resumes under any sampler with its seed.
        assert_eq!(shuffled(None).check(&shuffled(Some("ByLength"))), Ok(()));
    }

    #[test]
    fn the_last_epoch_number_is_refused() {
        let last = fresh(u64::MAX);
        let err = last.check(&fresh(0)).unwrap_err();
        assert_eq!(err, ResumeError::LastEpoch { epoch: u64::MAX });
        assert!(err.to_string().contains("18446744073709551615"), "{err}");
        assert_eq!(fresh(u64::MAX - 1).check(&fresh(0)), Ok(()));
    }
}
