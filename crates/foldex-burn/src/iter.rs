//! The epoch a [`FoldexDataLoader`](crate::FoldexDataLoader) hands burn: a foldex [`Iter`]
//! that reports its progress in items, keeps the loader's [`Record`] up to date, and ends an
//! epoch that failed fast with an `Err` rather than a panic.

use crate::policy::as_dataset_error;
use burn::data::dataloader::{DataLoaderIterator, Progress};
use burn::data::dataset::DatasetError;
use foldex_loader::{Iter, LoaderState, Stats};
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError};

/// The latest epoch of a loader (and of its `to_device` copies), as its iterator left it.
#[derive(Debug, Default)]
pub(crate) struct Record {
    /// Where its consumer stands, updated at each batch.
    pub(crate) state: Option<LoaderState>,
    /// Its stats, once it has ended or was dropped.
    pub(crate) stats: Option<Stats>,
}

/// The items in the batches that `state` says were received: batch `k` of an epoch holds its
/// positions `k * batch_size ..`, the last one what remains.
pub(crate) fn items_received(state: &LoaderState) -> usize {
    let batch = |k: usize| {
        let start = k.saturating_mul(state.batch_size).min(state.len);
        let end = start.saturating_add(state.batch_size).min(state.len);
        end - start
    };
    let prefix = state
        .next_batch
        .saturating_mul(state.batch_size)
        .min(state.len);
    prefix
        + state
            .received_above
            .iter()
            .map(|&k| batch(k))
            .sum::<usize>()
}

/// One epoch, as burn's training loop iterates it.
pub(crate) struct BurnIter<O> {
    epoch: Iter<Result<O, DatasetError>>,
    record: Arc<Mutex<Record>>,
    /// Whether the record has this epoch's stats.
    recorded: bool,
}

impl<O> BurnIter<O> {
    pub(crate) fn new(epoch: Iter<Result<O, DatasetError>>, record: Arc<Mutex<Record>>) -> Self {
        let this = Self {
            epoch,
            record,
            recorded: false,
        };
        this.update(|record, epoch| {
            record.state = Some(epoch.state());
            record.stats = None;
        });
        this
    }

    fn update(&self, f: impl FnOnce(&mut Record, &Iter<Result<O, DatasetError>>)) {
        let mut record = self.record.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut record, &self.epoch);
    }

    /// Records the epoch's state and stats, once.
    fn finish(&mut self) {
        if !self.recorded {
            self.recorded = true;
            self.update(|record, epoch| {
                record.state = Some(epoch.state());
                record.stats = Some(epoch.stats());
            });
        }
    }
}

impl<O> Iterator for BurnIter<O> {
    type Item = Result<O, DatasetError>;

    /// The next batch; when the error policy failed fast, the item's error, after which the
    /// epoch is over (`None`). Any other panic of the epoch is re-raised as it came.
    fn next(&mut self) -> Option<Self::Item> {
        // After a panic the foldex epoch has stopped its producers and ends (`None`).
        match panic::catch_unwind(AssertUnwindSafe(|| self.epoch.next())) {
            Ok(Some(batch)) => {
                self.update(|record, epoch| record.state = Some(epoch.state()));
                Some(batch)
            }
            Ok(None) => {
                self.finish();
                None
            }
            Err(payload) => {
                self.finish();
                match as_dataset_error(payload) {
                    Ok(error) => Some(Err(error)),
                    Err(payload) => panic::resume_unwind(payload),
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.epoch.size_hint()
    }
}

impl<O> DataLoaderIterator<O> for BurnIter<O> {
    /// The items of the batches received so far of the epoch (a resumed epoch counts those
    /// received before it stopped), of all its items.
    fn progress(&self) -> Progress {
        let state = self.epoch.state();
        Progress::new(items_received(&state), state.len, Some("items".to_owned()))
    }
}

impl<O> Drop for BurnIter<O> {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_received_counts_the_short_last_batch_once() {
        let mut state = LoaderState {
            seed: None,
            epoch: 0,
            next_batch: 2,
            received_above: vec![3],
            batch_size: 4,
            len: 14,
            shard: None,
            sampler: None,
            remainder: None,
            epoch_len: None,
        };
        assert_eq!(items_received(&state), 8 + 2);
        state.next_batch = 4;
        state.received_above.clear();
        assert_eq!(items_received(&state), 14);
    }
}
