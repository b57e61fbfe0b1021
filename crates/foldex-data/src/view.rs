//! Views over datasets that copy no observation: a subset (a range or a list of indices into a
//! shared dataset), two datasets one after the other (`Chained`), and two side by side.

use foldex_dataset::Dataset;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// Which indices of the underlying dataset a [`Subset`] shows.
#[derive(Clone, PartialEq, Eq)]
enum Indices {
    /// A contiguous run, kept as its bounds (`take`, `skip`).
    Range(Range<usize>),
    /// Any indices, repeats allowed (splits, folds, filters, resampling).
    List(Arc<[usize]>),
}

/// Some observations of a dataset, by index, without copying them (PyTorch's `Subset`,
/// MLUtils.jl's `obsview`): observation `i` of the view is observation `indices[i]` of the
/// dataset. Views of one dataset share it.
///
/// Made by [`DatasetExt`](crate::DatasetExt)'s `subset`, `take`, `skip`, `split`, `k_folds`,
/// `filter`, `oversample` and `undersample`. Cloning a view shares its dataset.
pub struct Subset<D> {
    dataset: Arc<D>,
    indices: Indices,
}

impl<D> Clone for Subset<D> {
    fn clone(&self) -> Self {
        Self {
            dataset: Arc::clone(&self.dataset),
            indices: self.indices.clone(),
        }
    }
}

impl<D> Subset<D> {
    /// A view of the indices `range` of `dataset` (`range.end <= dataset.len()`).
    pub(crate) fn range(dataset: Arc<D>, range: Range<usize>) -> Self {
        Self {
            dataset,
            indices: Indices::Range(range),
        }
    }

    /// A view of `indices` of `dataset` (each below `dataset.len()`).
    pub(crate) fn list(dataset: Arc<D>, indices: impl Into<Arc<[usize]>>) -> Self {
        Self {
            dataset,
            indices: Indices::List(indices.into()),
        }
    }

    /// The dataset's index of the view's observation `i`.
    ///
    /// # Panics
    /// If `i` is not below the view's length.
    pub fn source_index(&self, i: usize) -> usize {
        match &self.indices {
            Indices::Range(range) => {
                assert!(i < range.len(), "index {i} of a view of {}", range.len());
                range.start + i
            }
            Indices::List(list) => list[i],
        }
    }

    /// Every index of the underlying dataset this view shows, in the view's order.
    pub fn source_indices(&self) -> Vec<usize> {
        match &self.indices {
            Indices::Range(range) => range.clone().collect(),
            Indices::List(list) => list.to_vec(),
        }
    }

    /// The dataset viewed.
    pub fn dataset(&self) -> &Arc<D> {
        &self.dataset
    }

    /// A view of this view's `positions`, as one view of the same dataset.
    pub(crate) fn compose(&self, positions: impl IntoIterator<Item = usize>) -> Self {
        let indices: Arc<[usize]> = positions
            .into_iter()
            .map(|p| self.source_index(p))
            .collect();
        Self::list(Arc::clone(&self.dataset), indices)
    }
}

impl<D> fmt::Debug for Subset<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let len = match &self.indices {
            Indices::Range(range) => range.len(),
            Indices::List(list) => list.len(),
        };
        f.debug_struct("Subset")
            .field("len", &len)
            .finish_non_exhaustive()
    }
}

impl<D: Dataset> Dataset for Subset<D> {
    type Item = D::Item;

    fn len(&self) -> usize {
        match &self.indices {
            Indices::Range(range) => range.len(),
            Indices::List(list) => list.len(),
        }
    }

    fn get(&self, index: usize) -> D::Item {
        self.dataset.get(self.source_index(index))
    }

    fn get_into(&self, index: usize, buf: &mut D::Item) {
        self.dataset.get_into(self.source_index(index), buf);
    }
}

/// Two datasets of the same observations, one after the other (PyTorch's `ConcatDataset`,
/// MLUtils.jl's `joinobs`): [`DatasetExt::chain`](crate::DatasetExt::chain).
#[derive(Debug, Clone)]
pub struct Chained<A, B> {
    first: A,
    second: B,
}

impl<A, B> Chained<A, B> {
    pub(crate) fn new(first: A, second: B) -> Self {
        Self { first, second }
    }
}

impl<A, B> Dataset for Chained<A, B>
where
    A: Dataset,
    B: Dataset<Item = A::Item>,
{
    type Item = A::Item;

    /// The sum of both lengths (saturating at `usize::MAX`).
    fn len(&self) -> usize {
        self.first.len().saturating_add(self.second.len())
    }

    fn get(&self, index: usize) -> A::Item {
        let split = self.first.len();
        if index < split {
            self.first.get(index)
        } else {
            self.second.get(index - split)
        }
    }

    fn get_into(&self, index: usize, buf: &mut A::Item) {
        let split = self.first.len();
        if index < split {
            self.first.get_into(index, buf);
        } else {
            self.second.get_into(index - split, buf);
        }
    }
}

/// Two datasets of the same length side by side, observation `i` being the pair of theirs
/// (MLUtils.jl's `(X, y)` tuples): [`DatasetExt::zip`](crate::DatasetExt::zip).
#[derive(Debug, Clone)]
pub struct Zipped<A, B> {
    left: A,
    right: B,
}

impl<A, B> Zipped<A, B> {
    pub(crate) fn new(left: A, right: B) -> Self {
        Self { left, right }
    }
}

impl<A: Dataset, B: Dataset> Dataset for Zipped<A, B> {
    type Item = (A::Item, B::Item);

    fn len(&self) -> usize {
        self.left.len()
    }

    fn get(&self, index: usize) -> Self::Item {
        (self.left.get(index), self.right.get(index))
    }

    fn get_into(&self, index: usize, buf: &mut Self::Item) {
        self.left.get_into(index, &mut buf.0);
        self.right.get_into(index, &mut buf.1);
    }
}
