//! The items a [`FoldexDataLoader`](crate::FoldexDataLoader) loads, and where their errors go:
//! into the batch (no error policy), or to foldex-loader's [`ErrorPolicy`] through its
//! [`Checked`] dataset, which retries, skips and records them in the epoch's stats.
//!
//! Either way the loader is a foldex `Loader` over a `Checked<Policed<I>>` whose items are
//! `Result<I, DatasetError>`: without a policy the dataset's errors are items (the batch that
//! holds one is an `Err`) and `Checked` sees none; with one, they are `Checked`'s to handle,
//! and every item that reaches a batch is `Ok`. Under [`ErrorPolicy::fail_fast`] (and a
//! `retry` that does not skip) `Checked` ends the epoch with an [`ItemError`] as the panic
//! payload the consumer's `next()` receives; [`as_dataset_error`] turns it into the `Err` that
//! burn's training loop expects.

use crate::dataset::Window;
use burn::data::dataset::DatasetError;
use foldex_core::exec::PanicPayload;
use foldex_dataset::{Dataset, ItemError, TryDataset};
use foldex_loader::{Checked, ErrorPolicy};

/// The loader's items: `window`'s, with their errors naming the index, left to the batch
/// (`policed: false`) or to the error policy (`policed: true`).
pub(crate) struct Policed<I> {
    pub(crate) window: Window<I>,
    pub(crate) policed: bool,
}

/// An item's error as the training loop sees it: "observation {index} failed to load: ..."
/// (the index in the loader's items: a `slice` counts from its start), with the dataset's
/// error as its `source`.
fn naming(index: usize, error: DatasetError) -> DatasetError {
    DatasetError::new(ItemError { index, error })
}

impl<I> TryDataset for Policed<I> {
    type Output = Result<I, DatasetError>;
    type Error = DatasetError;

    fn len(&self) -> usize {
        self.window.len
    }

    fn try_get(&self, index: usize) -> Result<Result<I, DatasetError>, DatasetError> {
        match self.window.get(index) {
            Ok(item) => Ok(Ok(item)),
            Err(error) if self.policed => Err(error),
            Err(error) => Ok(Err(naming(index, error))),
        }
    }
}

/// The dataset a loader of `window` reads under `policy` (`None`: failed items fail their
/// batch, and the epoch goes on).
pub(crate) fn checked<I>(window: Window<I>, policy: Option<ErrorPolicy>) -> Checked<Policed<I>> {
    let policed = Policed {
        window,
        policed: policy.is_some(),
    };
    Checked::new(policed, policy.unwrap_or_default())
}

/// The error a fail-fast policy ended the epoch with, from the panic payload `next()` received;
/// any other payload (a panic of the dataset or the batcher) back, to be re-raised unchanged.
pub(crate) fn as_dataset_error(payload: PanicPayload) -> Result<DatasetError, PanicPayload> {
    payload
        .downcast::<ItemError<DatasetError>>()
        .map(|failed| naming(failed.index, failed.error))
}
