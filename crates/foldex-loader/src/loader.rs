//! The `Loader` builder and the iterator of one epoch.

use crate::channel::{Channel, Failure, Inbox, Recv, MAX_BATCHES, MAX_BUFFER};
use crate::collate::{Collate, Unbatched, VecCollate};
use crate::dataset::Dataset;
use crate::epoch::{as_consumer, spawn_driver, Epoch, Plan};
use crate::error::IterError;
use crate::order::{Batches, EpochOrder};
use crate::parcel::{CostMeter, Transport};
use crate::produce::{Delivered, Fresh, Produce, Recycled};
use crate::ring::{Reused, Ring};
use crate::shard::{Shard, Tail};
use crate::state::{LoaderState, Received, ResumeError, Schedule};
use crate::stats::{ConsumerStats, Recorder, Stats};
use foldex_core::{ConfigError, Executor};
use foldex_threaded::ThreadedEx;
use std::any::Any;
use std::fmt;
use std::iter::FusedIterator;
use std::num::NonZeroUsize;
use std::panic;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// Loads a [`Dataset`] in parallel, batch by batch, through any executor; iterate `&loader`
/// once per epoch.
///
/// ```
/// use foldex_loader::{from_fn, Loader};
/// let loader = Loader::new(from_fn(10, |i| i * i)).batch_size(4).partial(false).shuffle(7);
/// assert_eq!(loader.len(), 2);
/// for epoch in 0..2 {
///     for batch in &loader {
///         assert_eq!(batch.len(), 4);
///     }
/// }
/// ```
///
/// - **Executor** ([`Loader::executor`]): any [`Executor`], `Box<dyn Executor>` and
///   `Arc<dyn Executor>` included; by default `ThreadedEx::new().basesize(1)` on the global pool.
///   Its threads persist between epochs.
/// - **Bounded memory** ([`Loader::buffer`]): at most `buffer` finished batches wait for the
///   consumer (default: twice the executor's workers); producers wait when it is full.
/// - **Batches** ([`Loader::batch_size`], [`Loader::partial`], [`Loader::collate`]): the unit of
///   work is a batch; by default a batch is a `Vec` of observations, and the last, short batch
///   is kept.
/// - **Order** ([`Loader::shuffle`], [`Loader::ordered`]): epoch `e` visits the dataset in the
///   order [`Loader::epoch_order`]`(e)`, a permutation of `(seed, e)` that no executor or thread
///   count changes; batches arrive in that order unless `ordered(false)` lets them arrive as
///   they finish.
pub struct Loader<D, C = VecCollate, M = Owned> {
    dataset: Arc<D>,
    collate: Arc<C>,
    executor: Arc<dyn Executor>,
    buffer: Option<NonZeroUsize>,
    batch_size: NonZeroUsize,
    partial: bool,
    shuffle: Option<u64>,
    ordered: bool,
    next_epoch: AtomicU64,
    shard: Option<(usize, usize)>,
    tail: Tail,
    diagnostics: bool,
    /// What batches cost in the last epoch: whether the next one sends them in parcels.
    cost: Arc<CostMeter>,
    mode: M,
}

/// A [`Loader`] whose batches are fresh values the consumer owns (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct Owned;

/// A [`Loader`] whose batches are [`Reused`] guards over recycled buffers; see
/// [`Loader::reuse_buffers`].
pub struct Reuse {
    recycle: bool,
    /// The loader's ring of buffers (a `Ring<Item, Batch>`), kept from epoch to epoch so that
    /// later epochs start warm; made by the first epoch.
    ring: Mutex<Option<Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for Reuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reuse")
            .field("recycle", &self.recycle)
            .finish_non_exhaustive()
    }
}

impl Reuse {
    /// The ring for buffers of these types, with room for `budget` of them.
    fn ring<I, B>(&self, budget: usize) -> Arc<Ring<I, B>>
    where
        I: Send + 'static,
        B: Default + Send + 'static,
    {
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(typed) = ring.clone().and_then(|r| r.downcast::<Ring<I, B>>().ok()) {
            typed.reserve(budget);
            return typed;
        }
        let typed = Arc::new(Ring::<I, B>::new(budget, self.recycle));
        *ring = Some(Arc::clone(&typed) as Arc<dyn Any + Send + Sync>);
        typed
    }
}

impl<D, C, M> fmt::Debug for Loader<D, C, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loader")
            .field("buffer", &self.buffer)
            .field("batch_size", &self.batch_size)
            .field("partial", &self.partial)
            .field("shuffle", &self.shuffle)
            .field("ordered", &self.ordered)
            .field("shard", &self.shard)
            .field("next_epoch", &self.next_epoch.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<D: Dataset> Loader<D> {
    /// A loader over `dataset` with the default settings: batches of one observation as a
    /// `Vec`, in order, not shuffled, on `ThreadedEx` with basesize 1.
    pub fn new(dataset: D) -> Self {
        Self {
            dataset: Arc::new(dataset),
            collate: Arc::new(VecCollate),
            executor: Arc::new(ThreadedEx::new().basesize(1)),
            buffer: None,
            batch_size: NonZeroUsize::MIN,
            partial: true,
            shuffle: None,
            ordered: true,
            next_epoch: AtomicU64::new(0),
            shard: None,
            tail: Tail::default(),
            diagnostics: true,
            cost: Arc::default(),
            mode: Owned,
        }
    }
}

impl<D: Dataset, C, M> Loader<D, C, M> {
    /// Runs the loading on `executor` (any executor; `Box<dyn Executor>` and
    /// `Arc<dyn Executor>` work too).
    pub fn executor<E: Executor + 'static>(mut self, executor: E) -> Self {
        self.executor = Arc::new(executor);
        self
    }

    /// At most `buffer` finished batches wait for the consumer; the producers wait while it is
    /// full. In ordered mode this is also the reorder window. A helping consumer may keep one
    /// batch more beside it (see [`Executor::help`]).
    ///
    /// An epoch makes its places when it starts, as many as `buffer` or its batches, whichever
    /// is fewer: a buffer larger than the epoch costs nothing more. For an epoch with more
    /// batches than [`MAX_BUFFER`], a buffer above it is refused ([`IterError::BufferTooLarge`]).
    ///
    /// Batches that cost less than a microsecond travel in parcels of up to 8 from the second
    /// epoch on (one place of the buffer, one hand-over between threads), which the buffer
    /// counts batch by batch all the same; [`Stats::parcel`] says what an epoch used.
    ///
    /// ```
    /// use foldex_loader::{from_fn, Loader};
    /// let loader = Loader::new(from_fn(10_000, |i| i)).buffer(16).unbatched();
    /// let first = loader.iter(); // nothing timed yet: batches travel one by one
    /// assert_eq!(first.stats().parcel, 1);
    /// assert_eq!(first.count(), 10_000);
    /// let second = loader.iter(); // parcels of 16 / 2 places
    /// assert_eq!(second.stats().parcel, 8);
    /// assert_eq!(second.count(), 10_000);
    /// ```
    ///
    /// # Panics
    /// If `buffer` is 0: "buffer must be at least 1, got 0".
    #[track_caller]
    pub fn buffer(mut self, buffer: usize) -> Self {
        self.buffer = Some(ConfigError::require_nonzero("buffer", buffer));
        self
    }

    /// `batch_size` observations per batch.
    ///
    /// # Panics
    /// If `batch_size` is 0: "batch_size must be at least 1, got 0".
    #[track_caller]
    pub fn batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = ConfigError::require_nonzero("batch_size", batch_size);
        self
    }

    /// Keep (`true`, the default) or drop the last batch when it is shorter than `batch_size`.
    pub fn partial(mut self, partial: bool) -> Self {
        self.partial = partial;
        self
    }

    /// Shuffle every epoch: epoch `e` visits the dataset in the order
    /// [`Permutation::new`](crate::Permutation::new)`(len, seed, e)`, which takes O(1) memory
    /// and finds any position in O(1), whatever the length.
    pub fn shuffle(mut self, seed: u64) -> Self {
        self.shuffle = Some(seed);
        self
    }

    /// Deliver batches in epoch order (`true`, the default), or as they finish (`false`:
    /// first finished, first out; a little faster when item costs vary).
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// Builds each batch with `collate` (on the executor's threads) from its observations in
    /// epoch order. Any `Fn(Vec<Item>) -> Batch + Send + Sync` closure works.
    ///
    /// ```
    /// use foldex_loader::{from_fn, Loader};
    /// let loader = Loader::new(from_fn(6, |i| i as f32)).batch_size(3).collate(|xs: Vec<f32>| {
    ///     xs.iter().sum::<f32>() / xs.len() as f32
    /// });
    /// assert_eq!(loader.iter().collect::<Vec<_>>(), vec![1.0, 4.0]);
    /// ```
    pub fn collate<C2: Collate<D::Item>>(self, collate: C2) -> Loader<D, C2, M> {
        self.rebuild(Arc::new(collate), |mode| mode)
    }

    fn rebuild<C2, M2>(self, collate: Arc<C2>, mode: impl FnOnce(M) -> M2) -> Loader<D, C2, M2> {
        Loader {
            dataset: self.dataset,
            collate,
            executor: self.executor,
            buffer: self.buffer,
            batch_size: self.batch_size,
            partial: self.partial,
            shuffle: self.shuffle,
            ordered: self.ordered,
            next_epoch: self.next_epoch,
            shard: self.shard,
            tail: self.tail,
            diagnostics: self.diagnostics,
            cost: self.cost,
            mode: mode(self.mode),
        }
    }

    /// Recycle batch buffers: the iterator yields [`Reused`] guards (dereferencing to the
    /// batch) whose buffers go back to the loader when dropped, observations are loaded with
    /// [`Dataset::get_into`] into buffers of earlier batches, and batches are built with
    /// [`Collate::collate_into`]. Once warm, loading allocates nothing per observation.
    ///
    /// Holding a guard is safe: its buffers are not reused before it is dropped; producers
    /// wait for a free buffer instead (there are `buffer + workers + 2`). With `false` the
    /// guards free their buffers instead of recycling them (for comparisons).
    ///
    /// ```
    /// use foldex_loader::{Dataset, Loader};
    /// struct Rows;
    /// impl Dataset for Rows {
    ///     type Item = Vec<f32>;
    ///     fn len(&self) -> usize { 100 }
    ///     fn get(&self, i: usize) -> Vec<f32> { vec![i as f32; 256] }
    ///     fn get_into(&self, i: usize, row: &mut Vec<f32>) {
    ///         row.clear();
    ///         row.resize(256, i as f32);
    ///     }
    /// }
    /// let loader = Loader::new(Rows).batch_size(10).reuse_buffers(true);
    /// for batch in &loader {
    ///     // `batch` is a guard; `*batch` is the `Vec<Vec<f32>>`.
    ///     assert_eq!(batch.len(), 10);
    /// } // each guard hands its buffers back here
    /// ```
    pub fn reuse_buffers(self, recycle: bool) -> Loader<D, C, Reuse> {
        let collate = Arc::clone(&self.collate);
        self.rebuild(collate, |_| Reuse {
            recycle,
            ring: Mutex::new(None),
        })
    }

    /// Load only rank `rank`'s part of each epoch, of `world` ranks (PyTorch's
    /// `DistributedSampler`): every rank computes the same epoch order, and rank `r` takes its
    /// positions `r, r + world, r + 2 * world, ...`. Set the same seed on every rank. When
    /// `world` does not divide the dataset, [`Loader::shard_tail`] decides (default:
    /// [`Tail::Pad`]).
    ///
    /// ```
    /// use foldex_loader::{from_fn, Loader, Tail};
    /// let rank = |r| Loader::new(from_fn(10, |i| i)).shuffle(1).shard(r,
    /// 3).shard_tail(Tail::Uneven);
    /// let mut all: Vec<usize> = (0..3).flat_map(|r|
    /// rank(r).iter().flatten().collect::<Vec<_>>()).collect();
    /// all.sort();
    /// assert_eq!(all, (0..10).collect::<Vec<_>>());
    /// ```
    ///
    /// # Panics
    /// If `world` is 0 or `rank >= world`.
    #[track_caller]
    pub fn shard(mut self, rank: usize, world: usize) -> Self {
        Shard::new(rank, world, self.tail);
        self.shard = Some((rank, world));
        self
    }

    /// What sharding does with the last `len % world` observations; see [`Tail`].
    pub fn shard_tail(mut self, tail: Tail) -> Self {
        self.tail = tail;
        self
    }

    /// Switches the clock readings and per-worker counters of [`Iter::stats`] off; exists to
    /// measure what they cost.
    #[doc(hidden)]
    pub fn diagnostics(mut self, on: bool) -> Self {
        self.diagnostics = on;
        self
    }

    /// Delivers each observation as it is, not in a batch: batches of one with the
    /// [`Unbatched`] collate.
    ///
    /// ```
    /// use foldex_loader::{from_fn, Loader};
    /// let loader = Loader::new(from_fn(3, |i| i * 10)).unbatched();
    /// assert_eq!(loader.iter().collect::<Vec<_>>(), vec![0, 10, 20]);
    /// ```
    pub fn unbatched(self) -> Loader<D, Unbatched, M> {
        self.batch_size(1).collate(Unbatched)
    }

    /// The number of batches per epoch.
    pub fn len(&self) -> usize {
        self.batches().count()
    }

    /// `true` when an epoch has no batch.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of finished batches that may wait for the consumer: the [`Loader::buffer`]
    /// setting, by default twice the executor's workers ([`MAX_BUFFER`] at most, whatever
    /// number of workers the executor reports). An epoch with fewer batches sizes its buffer
    /// by them instead: no place is made that the epoch could never fill.
    pub fn buffer_size(&self) -> usize {
        self.buffer.map_or_else(
            || {
                let workers = self.executor.workers().max(1);
                workers.saturating_mul(2).min(MAX_BUFFER)
            },
            NonZeroUsize::get,
        )
    }

    /// The number the next epoch will have (0 for the first iteration).
    pub fn next_epoch(&self) -> u64 {
        self.next_epoch.load(Ordering::Relaxed)
    }

    /// The dataset.
    pub fn dataset(&self) -> &D {
        &self.dataset
    }

    /// The order in which epoch `epoch` visits the dataset: batch `k` holds positions
    /// `k * batch_size ..` of it.
    pub fn epoch_order(&self, epoch: u64) -> EpochOrder {
        EpochOrder::new(self.dataset.len(), self.shuffle, epoch)
    }

    /// This rank's sharding, if any.
    pub fn sharding(&self) -> Option<Shard> {
        self.shard
            .map(|(rank, world)| Shard::new(rank, world, self.tail))
    }

    /// The observations per epoch: the dataset's, or this rank's part of them.
    fn epoch_len(&self) -> usize {
        let len = self.dataset.len();
        self.sharding().map_or(len, |shard| shard.len(len))
    }

    /// The state at the start of epoch `epoch` (nothing received yet).
    fn initial_state(&self, epoch: u64) -> LoaderState {
        LoaderState {
            seed: self.shuffle,
            epoch,
            next_batch: 0,
            received_above: Vec::new(),
            batch_size: self.batch_size.get(),
            len: self.epoch_len(),
            shard: Some(self.shard.unwrap_or((0, 1))),
        }
    }

    /// Refuses an epoch whose batches the channel cannot number, or whose buffer it cannot
    /// make: the places of an epoch's buffer are made when it starts, as many as the buffer
    /// or the epoch's batches, whichever is fewer.
    fn check_size(&self) -> Result<(), IterError> {
        let batches = self.batches().count();
        if batches > MAX_BATCHES {
            return Err(IterError::TooManyBatches {
                batches,
                batch_size: self.batch_size.get(),
            });
        }
        let buffer = self.buffer_size();
        if buffer.min(batches) > MAX_BUFFER {
            return Err(IterError::BufferTooLarge { buffer, batches });
        }
        Ok(())
    }

    /// Claims the next epoch and starts it with `start`, or refuses, before the epoch number is
    /// taken, on a worker thread of the loader's own executor (that thread would wait for
    /// batches that the pool, with one worker fewer, may never compute) or for an epoch too
    /// large ([`Loader::check_size`]); or refuses when no epoch number is left.
    fn begin_next_epoch<B>(
        &self,
        start: impl FnOnce(&LoaderState) -> Iter<B>,
    ) -> Result<Iter<B>, IterError> {
        if self.executor.is_worker_thread() {
            return Err(IterError::InsideExecutorPool);
        }
        self.check_size()?;
        let epoch = self
            .next_epoch
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |e| e.checked_add(1))
            .map_err(|_| IterError::LastEpoch)?;
        Ok(start(&self.initial_state(epoch)))
    }

    /// Checks `state`, claims its epoch (the next one is the epoch after it) and starts it
    /// with `start`.
    ///
    /// # Panics
    /// On a worker thread of the loader's own executor, or for an epoch too large (see
    /// [`Loader::try_iter`]).
    #[track_caller]
    fn resumed_epoch<B>(
        &self,
        state: &LoaderState,
        start: impl FnOnce(&LoaderState) -> Iter<B>,
    ) -> Result<Iter<B>, ResumeError> {
        if let Err(e) = self.check_size() {
            panic!("{e}");
        }
        if self.executor.is_worker_thread() {
            panic!("{}", IterError::InsideExecutorPool);
        }
        state.check(&self.initial_state(state.epoch))?;
        Schedule::after(state, self.batches().count())?;
        // `check` refused `u64::MAX`.
        self.next_epoch.store(state.epoch + 1, Ordering::Relaxed);
        Ok(start(state))
    }

    /// Starts epoch `state.epoch` after what `state` says was received, making batches with
    /// `producer`. The caller has checked that this thread may iterate.
    fn start<P: Produce + 'static>(
        &self,
        state: &LoaderState,
        producer: impl FnOnce(usize) -> (P, Option<Arc<dyn RingHook>>),
    ) -> Iter<P::Out>
    where
        P::Out: 'static,
    {
        let batches = self.batches();
        let schedule = Schedule::after(state, batches.count())
            .expect("a checked state names batches of the epoch");
        let total = schedule.count(batches.count());
        let buffer = self.buffer_size();
        let Transport { parcel, cheap } = self.cost.plan::<P>(buffer);
        // No more places than the epoch has parcels: a place beyond them would never be used.
        let tickets = total.div_ceil(parcel);
        let places = (buffer / parcel).min(tickets).max(1);
        let channel =
            Arc::new(Channel::with_parcels(places, parcel, self.ordered, tickets).patient(cheap));
        // What this epoch's buffer can hold, in batches.
        let capacity = buffer.min(total).max(1);
        let workers = self.executor.workers();
        let recorder = Arc::new(Recorder::new(workers.saturating_add(2)));
        let received = Received::new(&schedule);
        // Producers hold one buffer each, at most: the executor's workers (no more of them than
        // there are batches), the driver thread and the helping consumer.
        let (producer, ring) = producer(capacity + workers.min(total) + 2);
        let driver = (total > 0).then(|| {
            let plan = Plan {
                order: self.epoch_order(state.epoch),
                shard: self.sharding(),
                batches,
                schedule,
                parcel,
                cost: Arc::clone(&self.cost),
                timing: self.diagnostics,
            };
            let producers = Epoch::new(producer, plan, Arc::clone(&channel), Arc::clone(&recorder));
            spawn_driver(Arc::new(producers), Arc::clone(&self.executor))
        });
        Iter {
            channel,
            inbox: Inbox::with_capacity(parcel),
            driver,
            executor: Arc::clone(&self.executor),
            remaining: total,
            total,
            epoch: state.epoch,
            finished: false,
            failed_index: None,
            recorder,
            consumer: ConsumerStats::default(),
            received,
            ring,
            capacity,
            parcel,
            fresh: self.initial_state(state.epoch),
            diagnostics: self.diagnostics,
        }
    }

    fn batches(&self) -> Batches {
        Batches {
            len: self.epoch_len(),
            batch_size: self.batch_size.get(),
            partial: self.partial,
        }
    }
}

impl<D, C> Loader<D, C, Owned>
where
    D: Dataset + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + 'static,
{
    /// Starts the next epoch.
    ///
    /// # Panics
    /// Where [`Loader::try_iter`] refuses, with its error's message.
    #[track_caller]
    pub fn iter(&self) -> Iter<C::Batch> {
        self.try_iter().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts the next epoch, or refuses ([`IterError`]): on a worker thread of the loader's
    /// own executor (that thread would wait for batches that the pool, with one worker fewer,
    /// may never compute), for an epoch of more batches than a loader can number or with a
    /// buffer larger than a loader makes for it, or when no epoch number is left.
    pub fn try_iter(&self) -> Result<Iter<C::Batch>, IterError> {
        self.begin_next_epoch(|state| self.start_owned(state))
    }

    /// Continues the epoch that `state` (from [`Iter::state`]) describes with exactly the
    /// batch after what was received, without loading anything received before; the next
    /// iteration after it is the following epoch. See [`LoaderState`].
    ///
    /// A state from other settings (seed, shard, batch size, length) is refused with
    /// [`ResumeError`], and so is one whose epoch is `u64::MAX`: no epoch could follow it.
    ///
    /// # Panics
    /// On a worker thread of the loader's own executor, or for an epoch too large (see
    /// [`Loader::try_iter`]).
    #[track_caller]
    pub fn resume(&self, state: &LoaderState) -> Result<Iter<C::Batch>, ResumeError> {
        self.resumed_epoch(state, |state| self.start_owned(state))
    }

    fn start_owned(&self, state: &LoaderState) -> Iter<C::Batch> {
        let (dataset, collate) = (Arc::clone(&self.dataset), Arc::clone(&self.collate));
        self.start(state, |_| (Fresh { dataset, collate }, None))
    }
}

impl<D, C> Loader<D, C, Reuse>
where
    D: Dataset + 'static,
    D::Item: Send + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + Default + 'static,
{
    /// Starts the next epoch; its batches are [`Reused`] guards.
    ///
    /// # Panics
    /// Where [`Loader::try_iter`] refuses, with its error's message.
    #[track_caller]
    pub fn iter(&self) -> Iter<Reused<D::Item, C::Batch>> {
        self.try_iter().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts the next epoch, or refuses as [`Loader::try_iter`] does.
    pub fn try_iter(&self) -> Result<Iter<ReusedBatch<D, C>>, IterError> {
        self.begin_next_epoch(|state| self.start_reused(state))
    }

    /// Continues the epoch that `state` describes; see [`Loader::resume`].
    ///
    /// # Panics
    /// As [`Loader::resume`] does.
    #[track_caller]
    pub fn resume(&self, state: &LoaderState) -> Result<Iter<ReusedBatch<D, C>>, ResumeError> {
        self.resumed_epoch(state, |state| self.start_reused(state))
    }

    fn start_reused(&self, state: &LoaderState) -> Iter<ReusedBatch<D, C>> {
        let (dataset, collate) = (Arc::clone(&self.dataset), Arc::clone(&self.collate));
        self.start(state, |budget| {
            let ring = self.mode.ring(budget);
            let hook = Arc::clone(&ring) as Arc<dyn RingHook>;
            (
                Recycled {
                    dataset,
                    collate,
                    ring,
                },
                Some(hook),
            )
        })
    }
}

/// The batches of a `Loader<D, C>` with [`Loader::reuse_buffers`]: [`Reused`] guards that
/// dereference to `C`'s batch.
pub type ReusedBatch<D, C> =
    Reused<<D as Dataset>::Item, <C as Collate<<D as Dataset>::Item>>::Batch>;

/// What the consumer tells an epoch's ring of buffers.
pub(crate) trait RingHook: Send + Sync {
    /// Before waiting for a batch that is not there.
    fn ensure_progress(&self);
    /// The epoch is over.
    fn wake_all(&self);
}

impl<I: Send, B: Default + Send> RingHook for Ring<I, B> {
    fn ensure_progress(&self) {
        Ring::ensure_progress(self);
    }
    fn wake_all(&self) {
        Ring::wake_all(self);
    }
}

impl<D, C> IntoIterator for &Loader<D, C, Owned>
where
    D: Dataset + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + 'static,
{
    type Item = C::Batch;
    type IntoIter = Iter<C::Batch>;

    fn into_iter(self) -> Iter<C::Batch> {
        self.iter()
    }
}

impl<D, C> IntoIterator for &Loader<D, C, Reuse>
where
    D: Dataset + 'static,
    D::Item: Send + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + Default + 'static,
{
    type Item = Reused<D::Item, C::Batch>;
    type IntoIter = Iter<Reused<D::Item, C::Batch>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Every observation of `dataset`, loaded in parallel on `executor`, in the order they finish
/// (first finished, first out), with a buffer of twice the executor's workers.
///
/// The shorthand for a [`Loader`] of unbatched observations; use a `Loader` for batches,
/// shuffling, ordered delivery or a chosen buffer.
///
/// ```
/// use foldex_loader::{eachobsparallel, from_fn};
/// use foldex_threaded::ThreadedEx;
/// let mut seen: Vec<usize> = eachobsparallel(from_fn(100, |i| i), ThreadedEx::new()).collect();
/// seen.sort();
/// assert_eq!(seen, (0..100).collect::<Vec<_>>());
/// ```
///
/// # Panics
/// On a worker thread of `executor`'s own pool (see [`Loader::try_iter`]).
#[track_caller]
pub fn eachobsparallel<D, E>(dataset: D, executor: E) -> Iter<D::Item>
where
    D: Dataset + 'static,
    D::Item: Send + 'static,
    E: Executor + 'static,
{
    Loader::new(dataset)
        .executor(executor)
        .ordered(false)
        .unbatched()
        .iter()
}

/// One epoch of a [`Loader`]: its batches, as they are loaded.
///
/// An [`ExactSizeIterator`] (progress bars work on it). Dropping it early cancels the epoch: no
/// new batch starts, producers waiting for room wake, and the drop returns once the batches in
/// progress have stopped; no thread of the epoch is left running.
///
/// A panic in the dataset's `get` or in `collate` reaches `next()` with its original payload,
/// after the epoch's producers have stopped; the loader can start another epoch afterwards.
pub struct Iter<B> {
    channel: Arc<Channel<Delivered<B>>>,
    /// The parcel being handed out.
    inbox: Inbox<Delivered<B>>,
    driver: Option<JoinHandle<()>>,
    executor: Arc<dyn Executor>,
    remaining: usize,
    /// The batches this epoch runs (fewer than the loader's when it resumes).
    total: usize,
    epoch: u64,
    finished: bool,
    /// The observation whose load panicked, once the consumer has received that panic.
    failed_index: Option<usize>,
    recorder: Arc<Recorder>,
    consumer: ConsumerStats,
    received: Received,
    ring: Option<Arc<dyn RingHook>>,
    capacity: usize,
    /// Batches per place of the buffer in this epoch.
    parcel: usize,
    /// The state at the start of this epoch: what [`Iter::state`] completes.
    fresh: LoaderState,
    diagnostics: bool,
}

impl<B> fmt::Debug for Iter<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("epoch", &self.epoch)
            .field("remaining", &self.remaining)
            .finish_non_exhaustive()
    }
}

impl<B> Iter<B> {
    /// The number of this epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// After `next()` re-raised a panic from the dataset's `get`, the index of the observation
    /// whose `get` panicked (`None` before that, or when the panic came from `collate`).
    ///
    /// ```
    /// use foldex_loader::{from_fn, Loader};
    /// use foldex_seq::SequentialEx;
    /// use std::panic::{catch_unwind, AssertUnwindSafe};
    ///
    /// let loader = Loader::new(from_fn(10, |i| if i == 7 { panic!("bad file") } else { i }))
    ///     .executor(SequentialEx)
    ///     .unbatched();
    /// let mut epoch = loader.iter();
    /// let caught = catch_unwind(AssertUnwindSafe(|| epoch.by_ref().count()));
    /// assert_eq!(caught.unwrap_err().downcast_ref::<&str>(), Some(&"bad file"));
    /// assert_eq!(epoch.failed_index(), Some(7));
    /// ```
    pub fn failed_index(&self) -> Option<usize> {
        self.failed_index
    }

    /// The epoch's figures so far: what was delivered, where the time went, and a verdict
    /// (`Display` prints one line). See [`Stats`].
    pub fn stats(&self) -> Stats {
        self.recorder
            .snapshot(&self.consumer, self.capacity, self.parcel)
    }

    /// What the consumer has received of this epoch, as a small serializable value:
    /// [`Loader::resume`] continues from it with exactly the next batch.
    pub fn state(&self) -> LoaderState {
        self.received.state(&self.fresh)
    }

    /// Takes the next batch without sleeping; when none is there, polls a little first, since
    /// with cheap items the next one is usually microseconds away, and a sleep and wake-up (or
    /// a round of helping) costs more than that.
    ///
    /// It spins first and yields only a few times, unless batches are cheap (then a wake-up
    /// costs more than waiting for the next): a yield on a machine whose cores are busy with
    /// producers may give the core away for a whole time slice, while the producers wait for
    /// room that only this thread makes.
    fn poll(&mut self) -> Recv<Delivered<B>> {
        let mut backoff = self.channel.backoff();
        loop {
            match self.channel.try_recv(&mut self.inbox) {
                Recv::Empty if backoff.snooze() => {}
                other => return other,
            }
        }
    }

    /// Waits for the next batch: polls, then helps the executor or sleeps.
    fn wait(&mut self) -> Recv<Delivered<B>> {
        if let Some(ring) = &self.ring {
            ring.ensure_progress();
        }
        match self.poll() {
            Recv::Empty => {
                if self.executor.is_worker_thread() {
                    self.finished = true;
                    panic!("{}", IterError::InsideExecutorPool);
                }
                let executor = &self.executor;
                self.channel.recv(&mut self.inbox, || {
                    as_consumer(|| foldex_core::exec::as_helper(|| executor.help()))
                })
            }
            other => other,
        }
    }

    /// Stops the producers and waits until they have.
    fn shut_down(&mut self) {
        self.finished = true;
        self.remaining = 0;
        if let Some(driver) = self.driver.take() {
            self.channel.cancel();
            if let Some(ring) = &self.ring {
                ring.wake_all();
            }
            // The driver catches every panic it can meet; nothing is left to report here.
            let _ = driver.join();
        }
    }
}

impl<B> Iterator for Iter<B> {
    type Item = B;

    fn next(&mut self) -> Option<B> {
        loop {
            if self.finished {
                return None;
            }
            // The clock is read only when the consumer has to wait: a batch that is ready
            // costs no timing at all.
            let received = match self.channel.try_recv(&mut self.inbox) {
                Recv::Empty => {
                    let since = Instant::now();
                    let received = self.wait();
                    self.consumer.waited += since.elapsed();
                    received
                }
                other => other,
            };
            match received {
                Recv::Item(delivered) => {
                    self.remaining -= 1;
                    self.received.record(delivered.batch);
                    if self.diagnostics {
                        let (recorder, capacity) = (&self.recorder, self.capacity);
                        self.consumer.delivered(delivered.items, recorder, capacity);
                    }
                    match delivered.value {
                        Some(batch) => return Some(batch),
                        // An unbatched observation the error policy skipped.
                        None => continue,
                    }
                }
                Recv::Finished => {
                    self.shut_down();
                    return None;
                }
                Recv::Failed(Failure { payload, index }) => {
                    self.shut_down();
                    // The payload stays the dataset's own; the index travels beside it, in
                    // `failed_index()` for code that catches the panic.
                    self.failed_index = index;
                    panic::resume_unwind(payload)
                }
                Recv::Incomplete => {
                    let (total, delivered) = (self.total, self.total - self.remaining);
                    self.shut_down();
                    panic!(
                        "foldex-loader: the executor returned after {delivered} of {total} \
                         batches of epoch {}: it did not run every index of its job",
                        self.epoch
                    )
                }
                Recv::Empty => unreachable!("a blocking receive returns something"),
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<B> ExactSizeIterator for Iter<B> {}

impl<B> FusedIterator for Iter<B> {}

impl<B> Drop for Iter<B> {
    fn drop(&mut self) {
        self.shut_down();
    }
}
