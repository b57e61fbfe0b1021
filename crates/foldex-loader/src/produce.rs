//! How a batch is made: into fresh memory, or into a recycled buffer of the loader's pool.

use crate::buffer_pool::{BufferPool, Reused};
use crate::loadable::{LoadContext, Loadable};
use crate::loading::loading;
use foldex_dataset::Collate;
use std::ops::Range;
use std::sync::Arc;

/// What the channel carries: a batch, which one, and how many observations it holds.
pub(crate) struct Delivered<T> {
    /// The batch number in the epoch's order.
    pub batch: usize,
    /// Observations in the batch (fewer than its positions when the error policy skipped).
    pub items: usize,
    /// The batch; `None` for an unbatched observation that the error policy skipped.
    pub value: Option<T>,
}

/// The batch-making half of an epoch.
pub(crate) trait Produce: Send + Sync {
    /// What the consumer receives.
    type Out: Send;
    /// What a batch needs before its number is taken.
    type Buffer;
    /// Whether a buffer is always at hand ([`Produce::buffer`] never waits or fails), so that
    /// a producer may make several batches from one ticket (a parcel, see `transport.rs`).
    const PARCELS: bool;

    /// The buffer for the next batch, waiting for one while `may_wait()` allows; `None` when
    /// none is available (the batch is then left for later).
    fn buffer(&self, may_wait: impl FnMut() -> bool) -> Option<Self::Buffer>;

    /// Wakes the producers that wait in [`Produce::buffer`], so that they ask `may_wait`
    /// again: it turned false.
    fn wake_waiting(&self) {}

    /// Makes the batch of the epoch `positions`; `index(p)` is the dataset index at position
    /// `p`, and the key of its generator when that is not the index (see `Epoch::index`).
    /// `None` if `stopped()` turned true meanwhile.
    fn make(
        &self,
        buffer: Self::Buffer,
        positions: Range<usize>,
        index: impl Fn(usize) -> (usize, Option<usize>),
        cx: &LoadContext<'_>,
        stopped: impl Fn() -> bool,
    ) -> Option<(Option<Self::Out>, usize)>;
}

/// Batches in fresh memory: `get` each observation, `collate` them.
pub(crate) struct Fresh<D, C> {
    pub dataset: Arc<D>,
    pub collate: Arc<C>,
}

impl<D, C> Produce for Fresh<D, C>
where
    D: Loadable,
    C: Collate<D::Item>,
    C::Batch: Send,
{
    type Out = C::Batch;
    type Buffer = ();
    const PARCELS: bool = true;

    fn buffer(&self, _may_wait: impl FnMut() -> bool) -> Option<()> {
        Some(())
    }

    fn make(
        &self,
        (): (),
        positions: Range<usize>,
        index: impl Fn(usize) -> (usize, Option<usize>),
        cx: &LoadContext<'_>,
        stopped: impl Fn() -> bool,
    ) -> Option<(Option<C::Batch>, usize)> {
        if positions.len() == 1 {
            let (i, key) = index(positions.start);
            return Some(match loading(cx, i, key, || self.dataset.load(i, cx)) {
                Some(item) => (Some(self.collate.collate_one(item)), 1),
                None => (self.collate.collate_empty(), 0),
            });
        }
        let mut items = Vec::with_capacity(positions.len());
        for position in positions {
            if stopped() {
                return None;
            }
            let (i, key) = index(position);
            items.extend(loading(cx, i, key, || self.dataset.load(i, cx)));
        }
        let count = items.len();
        if count == 0 {
            return Some((self.collate.collate_empty(), 0));
        }
        Some((Some(self.collate.collate(items)), count))
    }
}

/// Batches in recycled buffers: `get_into` each observation's buffer, `collate_into` the
/// batch's.
pub(crate) struct Recycled<D: Loadable, C: Collate<D::Item>> {
    pub dataset: Arc<D>,
    pub collate: Arc<C>,
    pub pool: Arc<BufferPool<D::Item, C::Batch>>,
}

impl<D, C> Produce for Recycled<D, C>
where
    D: Loadable,
    D::Item: Send,
    C: Collate<D::Item>,
    C::Batch: Send + Default,
{
    type Out = Reused<D::Item, C::Batch>;
    type Buffer = Reused<D::Item, C::Batch>;
    const PARCELS: bool = false;

    fn buffer(&self, may_wait: impl FnMut() -> bool) -> Option<Self::Buffer> {
        self.pool.acquire(may_wait)
    }

    fn wake_waiting(&self) {
        self.pool.wake_all();
    }

    fn make(
        &self,
        mut buffer: Self::Buffer,
        positions: Range<usize>,
        index: impl Fn(usize) -> (usize, Option<usize>),
        cx: &LoadContext<'_>,
        stopped: impl Fn() -> bool,
    ) -> Option<(Option<Self::Out>, usize)> {
        let buffers = buffer.buffers_mut();
        let mut filled = 0;
        for position in positions {
            if stopped() {
                return None;
            }
            let (i, key) = index(position);
            if let Some(buf) = buffers.items.get_mut(filled) {
                filled += usize::from(loading(cx, i, key, || self.dataset.load_into(i, buf, cx)));
            } else if let Some(item) = loading(cx, i, key, || self.dataset.load(i, cx)) {
                buffers.items.push(item);
                filled += 1;
            }
        }
        if filled == 0 && self.collate.collate_empty().is_none() {
            return Some((None, 0));
        }
        // Spare buffers go only when a batch is shorter than the one before (the last one).
        buffers.items.truncate(filled);
        self.collate
            .collate_into(&mut buffers.items, &mut buffers.batch);
        Some((Some(buffer), filled))
    }
}
