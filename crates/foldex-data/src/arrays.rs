//! `ndarray` arrays stacked into one batch array with a leading batch axis (the `ndarray`
//! feature).

use foldex_dataset::Collate;
use ndarray::{Array, ArrayView, Axis, Dimension, RemoveAxis};

/// Stacks arrays of one shape into one array with a leading batch axis: a batch of `C × H × W`
/// images becomes `N × C × H × W` (PyTorch's `default_collate`).
///
/// A batch whose arrays differ in shape panics, naming the array and both shapes. An empty
/// batch (every observation left out by an error policy) is left out.
///
/// ```
/// use foldex_data::StackArrays;
/// use foldex_dataset::from_fn;
/// use foldex_loader::Loader;
/// use ndarray::Array3;
/// use foldex_threaded::ThreadedEx;
/// let images = from_fn(10, |i| Array3::<f32>::from_elem((3, 4, 4), i as f32));
/// let loader = Loader::new(images, ThreadedEx::new().basesize(1)).batch_size(4).collate(StackArrays);
/// let first = loader.iter().next().unwrap();
/// assert_eq!(first.shape(), &[4, 3, 4, 4]);
/// assert_eq!(first[[2, 0, 0, 0]], 2.0);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct StackArrays;

impl<A, D> Collate<Array<A, D>> for StackArrays
where
    A: Clone + Send + Sync,
    D: Dimension + Send + Sync,
    D::Larger: RemoveAxis,
{
    type Batch = Array<A, D::Larger>;

    fn collate(&self, items: Vec<Array<A, D>>) -> Self::Batch {
        let first = items
            .first()
            .expect("StackArrays: an empty batch has no shape (collate_empty leaves it out)");
        if let Some((k, odd)) = items
            .iter()
            .enumerate()
            .find(|(_, a)| a.shape() != first.shape())
        {
            panic!(
                "StackArrays: array {k} of the batch has shape {:?}, array 0 has {:?}",
                odd.shape(),
                first.shape()
            );
        }
        let views: Vec<ArrayView<'_, A, D>> = items.iter().map(Array::view).collect();
        ndarray::stack(Axis(0), &views).expect("arrays of one shape stack")
    }

    fn collate_empty(&self) -> Option<Self::Batch> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn arrays_of_other_shapes_are_named() {
        let caught = std::panic::catch_unwind(|| {
            StackArrays.collate(vec![Array2::<u8>::zeros((2, 2)), Array2::zeros((2, 3))])
        });
        let message = caught.unwrap_err().downcast::<String>().unwrap();
        assert_eq!(
            *message,
            "StackArrays: array 1 of the batch has shape [2, 3], array 0 has [2, 2]"
        );
        let stacked = StackArrays.collate(vec![Array2::from_elem((1, 2), 7u8); 3]);
        assert_eq!(stacked.shape(), &[3, 1, 2]);
    }
}
