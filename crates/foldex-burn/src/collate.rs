//! A burn `Batcher` as a foldex [`Collate`]: the batch is made on the executor's thread that
//! loaded it, on the loader's device.

use burn::data::dataloader::batcher::Batcher;
use burn::data::dataset::DatasetError;
use burn::tensor::Device;
use foldex_dataset::Collate;
use std::sync::Arc;

/// Collates the results of a burn dataset with a burn [`Batcher`] on `device`: the first
/// error among the items is the batch's error (burn's own loader fails a batch on the first
/// item it cannot get), and otherwise the batcher's output is the batch. A batch whose every
/// item the error policy skipped is not delivered: burn's batchers are never called with no
/// items.
pub(crate) struct BatcherCollate<I, O> {
    pub(crate) batcher: Arc<dyn Batcher<I, O>>,
    pub(crate) device: Device,
}

impl<I, O> Collate<Result<I, DatasetError>> for BatcherCollate<I, O> {
    type Batch = Result<O, DatasetError>;

    fn collate(&self, items: Vec<Result<I, DatasetError>>) -> Result<O, DatasetError> {
        let items = items
            .into_iter()
            .collect::<Result<Vec<I>, DatasetError>>()?;
        Ok(self.batcher.batch(items, &self.device))
    }

    fn collate_empty(&self) -> Option<Result<O, DatasetError>> {
        None
    }
}
