//! The adapters between burn's `Dataset<I>` and foldex's [`Dataset`]: each reads the other
//! item by item, through a shared pointer, and copies nothing in bulk.

use burn::data::dataset::{Dataset as BurnDataset, DatasetError};
use foldex_dataset::{Dataset, TryDataset};
use std::fmt;
use std::sync::Arc;

/// A burn dataset read as a foldex [`Dataset`] whose items are `Result<I, DatasetError>`, as
/// burn's `get` returns them: a [`TryDataset`], so foldex's error policies
/// (`foldex_loader::ErrorPolicy`) apply to it as to any fallible foldex dataset.
///
/// Cloning it clones a pointer; `get(i)` calls the burn dataset's `get(i)`.
///
/// ```
/// use burn::data::dataset::InMemDataset;
/// use foldex_burn::FromBurn;
/// use foldex_dataset::Dataset;
///
/// let data = FromBurn::new(InMemDataset::new(vec![10, 20, 30]));
/// assert_eq!(data.len(), 3);
/// assert_eq!(data.get(1).unwrap(), 20);
/// ```
pub struct FromBurn<I> {
    inner: Arc<dyn BurnDataset<I>>,
}

impl<I> FromBurn<I> {
    /// Reads `dataset`.
    pub fn new(dataset: impl BurnDataset<I> + 'static) -> Self {
        Self::from_arc(Arc::new(dataset))
    }

    /// Reads a burn dataset that is already shared.
    pub fn from_arc(dataset: Arc<dyn BurnDataset<I>>) -> Self {
        Self { inner: dataset }
    }

    /// The burn dataset.
    pub fn inner(&self) -> &Arc<dyn BurnDataset<I>> {
        &self.inner
    }
}

impl<I> Clone for FromBurn<I> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<I> fmt::Debug for FromBurn<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FromBurn")
            .field("len", &self.inner.len())
            .finish_non_exhaustive()
    }
}

impl<I> Dataset for FromBurn<I> {
    type Item = Result<I, DatasetError>;

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn get(&self, index: usize) -> Result<I, DatasetError> {
        self.inner.get(index)
    }
}

/// A foldex [`Dataset`] of `I` read as a burn `Dataset<I>`, whose `get` never fails inside
/// its length ([`TryToBurn`] reads a fallible one).
///
/// An index at or past the length is an [`OutOfBounds`] error naming both (burn 0.22's own
/// datasets panic there), rather than a call of the foldex dataset outside its length.
///
/// ```
/// use burn::data::dataset::Dataset as _;
/// use foldex_burn::ToBurn;
///
/// let squares = ToBurn::new(foldex_dataset::from_fn(4, |i| i * i));
/// assert_eq!(squares.get(3).unwrap(), 9);
/// assert_eq!(squares.get(4).unwrap_err().to_string(), "index 4 is out of bounds of a dataset of 4 items");
/// ```
#[derive(Debug, Clone)]
pub struct ToBurn<D> {
    inner: D,
}

impl<D> ToBurn<D> {
    /// Reads `dataset`, a foldex [`Dataset`].
    pub fn new(dataset: D) -> Self {
        Self { inner: dataset }
    }

    /// The foldex dataset.
    pub fn into_inner(self) -> D {
        self.inner
    }
}

/// A foldex [`TryDataset`] read as a burn `Dataset`: its errors become [`DatasetError`]s
/// (their source is the dataset's own error).
///
/// ```
/// use burn::data::dataset::Dataset as _;
/// use foldex_burn::TryToBurn;
///
/// let files = TryToBurn::new(foldex_dataset::from_fn(3, |i| {
///     if i == 1 { Err(std::fmt::Error) } else { Ok(i) }
/// }));
/// assert_eq!(files.get(2).unwrap(), 2);
/// assert!(files.get(1).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct TryToBurn<D> {
    inner: D,
}

impl<D> TryToBurn<D> {
    /// Reads `dataset`, a foldex [`TryDataset`] whose error is a standard error.
    pub fn new(dataset: D) -> Self {
        Self { inner: dataset }
    }

    /// The foldex dataset.
    pub fn into_inner(self) -> D {
        self.inner
    }
}

/// An index at or past a dataset's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The index asked for.
    pub index: usize,
    /// The dataset's length.
    pub len: usize,
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "index {} is out of bounds of a dataset of {} items",
            self.index, self.len
        )
    }
}

impl std::error::Error for OutOfBounds {}

/// `Ok(())` when `index < len`, else the [`OutOfBounds`] error as burn takes it.
fn check(index: usize, len: usize) -> Result<(), DatasetError> {
    if index < len {
        Ok(())
    } else {
        Err(DatasetError::new(OutOfBounds { index, len }))
    }
}

impl<D: Dataset> BurnDataset<D::Item> for ToBurn<D> {
    fn get(&self, index: usize) -> Result<D::Item, DatasetError> {
        check(index, self.inner.len())?;
        Ok(self.inner.get(index))
    }

    fn len(&self) -> usize {
        self.inner.len()
    }
}

impl<D> BurnDataset<D::Output> for TryToBurn<D>
where
    D: TryDataset,
    D::Error: std::error::Error + Send + Sync + 'static,
{
    fn get(&self, index: usize) -> Result<D::Output, DatasetError> {
        check(index, self.inner.len())?;
        self.inner.try_get(index).map_err(DatasetError::new)
    }

    fn len(&self) -> usize {
        self.inner.len()
    }
}

/// Items `start..start + len` of a type-erased dataset of results: what a
/// [`FoldexDataLoader`](crate::FoldexDataLoader) loads, and what its `slice` narrows without
/// nesting one window in another.
pub(crate) struct Window<I> {
    pub(crate) dataset: Arc<dyn Dataset<Item = Result<I, DatasetError>>>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl<I> Clone for Window<I> {
    fn clone(&self) -> Self {
        Self {
            dataset: Arc::clone(&self.dataset),
            start: self.start,
            len: self.len,
        }
    }
}

impl<I> Dataset for Window<I> {
    type Item = Result<I, DatasetError>;

    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, index: usize) -> Result<I, DatasetError> {
        self.dataset.get(self.start + index)
    }
}
