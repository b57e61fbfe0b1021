//! A ready-made burn batcher for the commonest items: a feature vector and its class.

use burn::data::dataloader::batcher::Batcher;
use burn::tensor::{Device, Int, Tensor, TensorData};

/// Makes a [`FeatureBatch`] of items `(features, class)`: the feature vectors stacked into one
/// `[batch, width]` float tensor, the classes into a `[batch]` int tensor, both on the
/// loader's device. Each vector is copied once, into the batch's buffer, which the tensor then
/// takes over.
///
/// ```
/// use burn::data::dataloader::DataLoader;
/// use burn::data::dataset::InMemDataset;
/// use foldex_burn::{FeatureBatcher, FoldexDataLoaderBuilder};
///
/// let items = (0..10).map(|i| (vec![i as f32; 3], i % 2)).collect();
/// let loader = FoldexDataLoaderBuilder::new(FeatureBatcher)
///     .batch_size(4)
///     .build(InMemDataset::new(items));
/// let batch = loader.iter().next().unwrap().unwrap();
/// assert_eq!(batch.features.dims(), [4, 3]);
/// assert_eq!(batch.targets.into_data().try_to_vec::<i64>().unwrap(), vec![0, 1, 0, 1]);
/// ```
///
/// # Panics
/// If an item's vector is not as long as the batch's first, naming both lengths (the panic
/// reaches the training loop's `next()`, as any panic of a batcher does).
#[derive(Debug, Clone, Copy, Default)]
pub struct FeatureBatcher;

/// A batch of [`FeatureBatcher`].
#[derive(Debug, Clone)]
pub struct FeatureBatch {
    /// `[batch, width]`: row `k` is the feature vector of the batch's item `k`.
    pub features: Tensor<2>,
    /// `[batch]`: the classes.
    pub targets: Tensor<1, Int>,
}

impl Batcher<(Vec<f32>, i64), FeatureBatch> for FeatureBatcher {
    fn batch(&self, items: Vec<(Vec<f32>, i64)>, device: &Device) -> FeatureBatch {
        let n = items.len();
        let width = items.first().map_or(0, |(x, _)| x.len());
        let mut features = Vec::with_capacity(n * width);
        let mut targets = Vec::with_capacity(n);
        for (k, (x, class)) in items.into_iter().enumerate() {
            assert_eq!(
                x.len(),
                width,
                "item {k} of the batch has {} features, its first item {width}",
                x.len()
            );
            features.extend_from_slice(&x);
            targets.push(class);
        }
        FeatureBatch {
            features: Tensor::from_data(TensorData::new(features, [n, width]), device),
            targets: Tensor::from_data(TensorData::new(targets, [n]), device),
        }
    }
}
