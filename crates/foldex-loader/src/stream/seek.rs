//! Shards that can be opened at an item position, so that a stream loader resumes them there
//! instead of replaying them from their start ([`StreamLoader::from_seekable`](crate::StreamLoader::from_seekable)).

use super::pull::ShardIter;
use foldex_dataset::Dataset;
use std::sync::Arc;

/// A shard of a stream that can be opened at any item position: a file of fixed-size records, a
/// file whose items start at known byte offsets, an in-memory `Vec`.
///
/// A stream loader made with [`StreamLoader::from_seekable`](crate::StreamLoader::from_seekable)
/// opens each shard with `open_at(0)` in an epoch, and, when it resumes from a
/// [`StreamState`](super::StreamState), opens the shards it was reading at the positions they
/// had reached and fetches the shuffle buffer's items with [`item_at`](Self::item_at), instead
/// of reading every shard again from its start.
///
/// `open_at(p)` must give the items that `open_at(0)` gives from the `p`-th on (none when `p`
/// is at or past the end): resumption is exact only then.
///
/// Implemented for `Vec<T>` (its tail cloned at each opening) and for any
/// [`Dataset`] behind an `Arc` (`Arc<Vec<T>>`, `Arc<foldex_data::Records>`: its items read by
/// index, nothing cloned ahead).
///
/// ```
/// use foldex_loader::stream::SeekShard;
/// let shard = vec![10, 20, 30];
/// assert_eq!(shard.open_at(1).collect::<Vec<_>>(), [20, 30]);
/// assert_eq!(shard.item_at(2), Some(30));
/// assert_eq!(shard.open_at(5).next(), None);
/// ```
pub trait SeekShard: Send + Sync + 'static {
    /// The shard's items.
    type Item;
    /// The iterator over the shard's items from a position on.
    type Iter: Iterator<Item = Self::Item> + Send + 'static;

    /// The shard's items from the `position`-th on (none at or past the end).
    fn open_at(&self, position: usize) -> Self::Iter;

    /// The item at `position` (`None` past the end): by default the first of
    /// [`open_at(position)`](Self::open_at).
    fn item_at(&self, position: usize) -> Option<Self::Item> {
        self.open_at(position).next()
    }
}

impl<T: Clone + Send + Sync + 'static> SeekShard for Vec<T> {
    type Item = T;
    type Iter = std::vec::IntoIter<T>;

    fn open_at(&self, position: usize) -> Self::Iter {
        let tail = <[T]>::get(self, position..).unwrap_or_default();
        // Owned: the iterator outlives the borrow of the shard.
        let tail: Vec<T> = tail.to_vec();
        tail.into_iter()
    }

    fn item_at(&self, position: usize) -> Option<T> {
        <[T]>::get(self, position).cloned()
    }
}

impl<D> SeekShard for Arc<D>
where
    D: Dataset + Send + Sync + 'static + ?Sized,
    D::Item: 'static,
{
    type Item = D::Item;
    type Iter = DatasetItems<D>;

    fn open_at(&self, position: usize) -> DatasetItems<D> {
        DatasetItems {
            dataset: Arc::clone(self),
            next: position,
        }
    }

    fn item_at(&self, position: usize) -> Option<D::Item> {
        (position < self.len()).then(|| self.get(position))
    }
}

/// The items of a [`Dataset`] from a position on, read by index: what [`SeekShard::open_at`]
/// gives for an `Arc` of a dataset.
#[derive(Debug)]
pub struct DatasetItems<D: ?Sized> {
    dataset: Arc<D>,
    next: usize,
}

impl<D: Dataset + ?Sized> Iterator for DatasetItems<D> {
    type Item = D::Item;

    fn next(&mut self) -> Option<D::Item> {
        let item = (self.next < self.dataset.len()).then(|| self.dataset.get(self.next))?;
        self.next += 1;
        Some(item)
    }
}

/// The loader's view of seekable shards, by their index in the loader's list.
pub(crate) trait Seek<R>: Send + Sync {
    /// Shard `shard`'s items from `position` on.
    fn open_at(&self, shard: usize, position: usize) -> ShardIter<R>;
    /// Shard `shard`'s item at `position`.
    fn item_at(&self, shard: usize, position: usize) -> Option<R>;
}

impl<S: SeekShard> Seek<S::Item> for Vec<S> {
    fn open_at(&self, shard: usize, position: usize) -> ShardIter<S::Item> {
        Box::new(self[shard].open_at(position))
    }

    fn item_at(&self, shard: usize, position: usize) -> Option<S::Item> {
        self[shard].item_at(position)
    }
}
