//! What a loader's batches are: fresh values the consumer owns ([`Owned`]), or guards over
//! recycled buffers ([`Reuse`]). One sealed trait, so that the loader has one way to start an
//! epoch and one iterator for both.

use super::{Iter, Loader};
use crate::buffer_pool::{BufferPool, Reused};
use crate::byte_gate::Measure;
use crate::loadable::Loadable;
use crate::order::EpochOrder;
use crate::produce::{Fresh, Recycled};
use crate::state::LoaderState;
use foldex_dataset::Collate;
use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex};

/// How a [`Loader`]'s batches reach the consumer: [`Owned`] (the default) or [`Reuse`]
/// ([`Loader::reuse_buffers`]). Sealed: the loader implements it for these two.
pub trait BatchMode<D: Loadable, C: Collate<D::Item>>: sealed::StartEpoch<D, C> {
    /// What the epoch's iterator yields.
    type Batch: Send + 'static;
}

pub(super) mod sealed {
    use super::*;

    /// The loader's side of a [`BatchMode`]: how an epoch of this mode starts.
    pub trait StartEpoch<D: Loadable, C: Collate<D::Item>>: Sized {
        /// Starts epoch `state.epoch` of `loader`, in `order`, after what `state` says was
        /// received.
        fn start_epoch(
            loader: &Loader<D, C, Self>,
            state: &LoaderState,
            order: EpochOrder,
        ) -> Iter<Self::Batch>
        where
            Self: BatchMode<D, C>;
    }
}

/// A [`Loader`] whose batches are fresh values the consumer owns (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct Owned;

impl<D, C> BatchMode<D, C> for Owned
where
    D: Loadable + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + 'static,
{
    type Batch = C::Batch;
}

impl<D, C> sealed::StartEpoch<D, C> for Owned
where
    D: Loadable + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + 'static,
{
    fn start_epoch(
        loader: &Loader<D, C, Self>,
        state: &LoaderState,
        order: EpochOrder,
    ) -> Iter<<Self as BatchMode<D, C>>::Batch> {
        let (dataset, collate) = (Arc::clone(&loader.dataset), Arc::clone(&loader.collate));
        let measure = loader.measure::<C::Batch>();
        loader.start(state, order, measure, |_, _| {
            (Fresh { dataset, collate }, None)
        })
    }
}

/// A [`Loader`] whose batches are [`Reused`] guards over recycled buffers; see
/// [`Loader::reuse_buffers`].
pub struct Reuse {
    recycle: bool,
    /// The loader's pool of buffers (a `BufferPool<Item, Batch>`), kept from epoch to epoch so
    /// that later epochs start warm; made by the first epoch.
    pool: Mutex<Option<Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Reuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reuse")
            .field("recycle", &self.recycle)
            .finish_non_exhaustive()
    }
}

impl Reuse {
    pub(super) fn new(recycle: bool) -> Self {
        Self {
            recycle,
            pool: Mutex::new(None),
        }
    }

    /// The pool for buffers of these types, with room for `budget` of them.
    fn pool<I, B>(&self, budget: usize) -> Arc<BufferPool<I, B>>
    where
        I: Send + 'static,
        B: Default + Send + 'static,
    {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(typed) = pool
            .clone()
            .and_then(|p| p.downcast::<BufferPool<I, B>>().ok())
        {
            typed.reserve(budget);
            return typed;
        }
        let typed = Arc::new(BufferPool::<I, B>::new(budget, self.recycle));
        *pool = Some(Arc::clone(&typed) as Arc<dyn Any + Send + Sync>);
        typed
    }
}

impl<D, C> BatchMode<D, C> for Reuse
where
    D: Loadable + 'static,
    D::Item: Send + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + Default + 'static,
{
    type Batch = Reused<D::Item, C::Batch>;
}

impl<D, C> sealed::StartEpoch<D, C> for Reuse
where
    D: Loadable + 'static,
    D::Item: Send + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + Default + 'static,
{
    fn start_epoch(
        loader: &Loader<D, C, Self>,
        state: &LoaderState,
        order: EpochOrder,
    ) -> Iter<<Self as BatchMode<D, C>>::Batch> {
        let (dataset, collate) = (Arc::clone(&loader.dataset), Arc::clone(&loader.collate));
        // A guard is measured by its batch, and so is a recycled buffer.
        let batch_measure = loader.measure::<C::Batch>();
        let measure = batch_measure.clone().map(|measure| {
            Arc::new(move |guard: &Reused<D::Item, C::Batch>| measure(guard)) as Measure<_>
        });
        loader.start(state, order, measure, |budget, gate| {
            let pool = loader.mode.pool(budget);
            pool.cap_bytes(gate.map(Arc::clone).zip(batch_measure));
            let hook = Arc::clone(&pool) as Arc<dyn PoolHook>;
            (
                Recycled {
                    dataset,
                    collate,
                    pool,
                },
                Some(hook),
            )
        })
    }
}

/// The batches of a `Loader<D, C>` with [`Loader::reuse_buffers`]: [`Reused`] guards that
/// dereference to `C`'s batch.
pub type ReusedBatch<D, C> = <Reuse as BatchMode<D, C>>::Batch;

/// What the consumer tells an epoch's pool of buffers.
pub(crate) trait PoolHook: Send + Sync {
    /// Before waiting for a batch that is not there.
    fn ensure_progress(&self);
    /// The epoch is over.
    fn wake_all(&self);
}

impl<I: Send, B: Default + Send> PoolHook for BufferPool<I, B> {
    fn ensure_progress(&self) {
        BufferPool::ensure_progress(self);
    }
    fn wake_all(&self) {
        BufferPool::wake_all(self);
    }
}
