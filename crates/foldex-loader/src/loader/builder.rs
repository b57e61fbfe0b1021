//! The [`Loader`]: its settings, and the calls that start an epoch.

use super::mode::{BatchMode, Owned, Reuse};
use super::Iter;
use crate::buffer_tune::BufferTuner;
use crate::channel::MAX_BUFFER;
use crate::epoch::WorkerInit;
use crate::error::IterError;
use crate::error::ResumeError;
use crate::loadable::Loadable;
use crate::order::{Batches, EpochOrder};
use crate::stall::Watch;
use crate::state::LoaderState;
use crate::stats::BufferOrigin;
use crate::transport::CostMeter;
use foldex_core::{ConfigError, Executor};
use foldex_dataset::collate::Unbatched;
use foldex_dataset::sampler::{checked_order, Sequential, Shuffled};
use foldex_dataset::{Collate, Sampler, Shard, Tail, VecCollate};
use std::any::Any;
use std::fmt;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Loads a [`Dataset`](foldex_dataset::Dataset) in parallel, batch by batch, through any executor; iterate `&loader`
/// once per epoch.
///
/// ```
/// use foldex_dataset::from_fn;
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// let loader = Loader::new(from_fn(10, |i| i * i), ThreadedEx::new().basesize(1)).batch_size(4).partial(false).shuffle(7);
/// assert_eq!(loader.len(), 2);
/// for epoch in 0..2 {
///     for batch in &loader {
///         assert_eq!(batch.len(), 4);
///     }
/// }
/// ```
///
/// - **Executor** (the second argument of [`Loader::new`]): any [`Executor`], `Box<dyn Executor>`
///   and `Arc<dyn Executor>` included. `ThreadedEx::new().basesize(1)` (a batch per piece, on
///   the global pool) suits most loads. Its threads persist between epochs.
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
    pub(super) dataset: Arc<D>,
    pub(super) collate: Arc<C>,
    pub(super) executor: Arc<dyn Executor>,
    pub(super) settings: Settings,
    pub(super) next_epoch: AtomicU64,
    /// What batches cost in the last epoch: whether the next one sends them in parcels.
    pub(super) cost: Arc<CostMeter>,
    /// The default buffer, grown after bursty epochs, when none is set.
    pub(super) tuner: Arc<BufferTuner>,
    /// What runs on each thread before its first load of an epoch.
    pub(super) worker_init: Option<Arc<WorkerInit>>,
    /// How a batch is measured for the byte cap (see `bytes.rs`).
    pub(super) byte_measure: Option<Arc<dyn Any + Send + Sync>>,
    pub(super) mode: M,
}

/// A loader's settings, as its builder methods set them.
#[derive(Debug, Clone)]
pub(super) struct Settings {
    pub buffer: Option<NonZeroUsize>,
    pub batch_size: NonZeroUsize,
    pub partial: bool,
    /// The epochs' order: [`Sequential`] unless set.
    pub sampler: SharedSampler,
    /// The seed of every [`ItemContext`](foldex_dataset::ItemContext); the shuffle's when unset.
    pub seed: Option<u64>,
    /// `(epoch, offset)` for a stream loader's window: its items' contexts name the stream's
    /// epoch, and index `i` is stream position `offset + i`.
    pub window: Option<(u64, usize)>,
    pub ordered: bool,
    /// `(rank, world)`.
    pub shard: Option<(usize, usize)>,
    pub tail: Tail,
    pub diagnostics: bool,
    /// The byte cap ([`Loader::max_buffer_bytes`]).
    pub max_buffer_bytes: Option<NonZeroUsize>,
    /// The timeout of `next()`'s wait, and where loads are noted meanwhile (see `stall.rs`).
    pub watch: Option<Watch>,
}

/// A sampler behind a pointer, as a loader keeps it.
#[derive(Clone)]
pub(crate) struct SharedSampler(pub std::sync::Arc<dyn Sampler>);

impl fmt::Debug for SharedSampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sampler")
            .field("seed", &self.0.seed())
            .finish_non_exhaustive()
    }
}

impl<D, C, M> fmt::Debug for Loader<D, C, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loader")
            .field("settings", &self.settings)
            .field("next_epoch", &self.next_epoch.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<D: Loadable> Loader<D> {
    /// A loader over `dataset` that loads on `executor` (any executor; `Box<dyn Executor>` and
    /// `Arc<dyn Executor>` work too), with the default settings: batches of one observation as
    /// a `Vec`, in order, not shuffled.
    pub fn new<E: Executor + 'static>(dataset: D, executor: E) -> Self {
        Self {
            dataset: Arc::new(dataset),
            collate: Arc::new(VecCollate),
            executor: Arc::new(executor),
            settings: Settings {
                buffer: None,
                batch_size: NonZeroUsize::MIN,
                partial: true,
                sampler: SharedSampler(Arc::new(Sequential)),
                seed: None,
                window: None,
                ordered: true,
                shard: None,
                tail: Tail::default(),
                diagnostics: true,
                max_buffer_bytes: None,
                watch: None,
            },
            next_epoch: AtomicU64::new(0),
            cost: Arc::default(),
            tuner: Arc::default(),
            worker_init: None,
            byte_measure: None,
            mode: Owned,
        }
    }
}

impl<D: Loadable, C, M> Loader<D, C, M> {
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
    /// counts batch by batch all the same; [`Stats::parcel`](crate::Stats::parcel) says what an epoch used.
    ///
    /// Without this setting the buffer is twice the executor's workers, and grows (doubling,
    /// up to 8 times that) after an epoch that was bursty: its consumer waited for batches at
    /// least 10% of the time while at least 10% of the sampled deliveries found the buffer
    /// full, and it had at least four buffers of batches. A steady epoch leaves it as it is;
    /// [`Stats::buffer_origin`](crate::Stats::buffer_origin) and the stats line say when it grew.
    ///
    /// ```
    /// use foldex_dataset::from_fn;
    /// use foldex_loader::Loader;
    /// use foldex_threaded::ThreadedEx;
    /// let loader = Loader::new(from_fn(10_000, |i| i), ThreadedEx::new().basesize(1)).buffer(16).unbatched();
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
        self.settings.buffer = Some(ConfigError::require_nonzero("buffer", buffer));
        self
    }

    /// `batch_size` observations per batch.
    ///
    /// # Panics
    /// If `batch_size` is 0: "batch_size must be at least 1, got 0".
    #[track_caller]
    pub fn batch_size(mut self, batch_size: usize) -> Self {
        self.settings.batch_size = ConfigError::require_nonzero("batch_size", batch_size);
        self
    }

    /// Keep (`true`, the default) or drop the last batch when it is shorter than `batch_size`.
    pub fn partial(mut self, partial: bool) -> Self {
        self.settings.partial = partial;
        self
    }

    /// Shuffle every epoch: epoch `e` visits the dataset in the order
    /// [`Permutation::new`](foldex_dataset::Permutation::new)`(len, seed, e)`, which takes O(1) memory
    /// and finds any position in O(1), whatever the length.
    pub fn shuffle(self, seed: u64) -> Self {
        self.sampler(Shuffled::new(seed))
    }

    /// Each epoch visits the observations `sampler` lists, in its order: weighted draws
    /// ([`Weighted`](foldex_dataset::sampler::Weighted)), batches of similar lengths ([`ByLength`](foldex_dataset::sampler::ByLength)),
    /// or a [`Sampler`] of your own. Replaces [`shuffle`](Loader::shuffle) (a [`Shuffled`]
    /// sampler); [`shard`](Loader::shard) takes its part of the sampler's order.
    ///
    /// An epoch whose order does not fit the dataset (a weight for each observation, indices
    /// below its length, as many positions as [`Sampler::len`] says) is refused when it starts
    /// ([`IterError::Sampler`]).
    pub fn sampler(mut self, sampler: impl Sampler + 'static) -> Self {
        self.settings.sampler = SharedSampler(Arc::new(sampler));
        self
    }

    /// The seed of each observation's generator, [`ItemContext::rng`](foldex_dataset::ItemContext::rng)
    /// (`rng_for(seed, epoch, index)`); without it, the [`shuffle`](Loader::shuffle) seed, or
    /// 0 when not shuffled.
    pub fn seed(mut self, seed: u64) -> Self {
        self.settings.seed = Some(seed);
        self
    }

    /// Runs `init` on each thread before its first load of each epoch (PyTorch's
    /// `worker_init_fn`, whose workers start again each epoch), with the thread's worker
    /// number ([`ItemContext::worker`](foldex_dataset::ItemContext::worker)). For state such as an open
    /// file, keep it in a `thread_local!` that `init` fills when empty and
    /// [`Dataset::get`](foldex_dataset::Dataset::get) reads.
    ///
    /// A panic in `init` reaches the consumer as a producer's panic does.
    ///
    /// ```
    /// use foldex_dataset::from_fn;
    /// use foldex_loader::Loader;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// use foldex_threaded::ThreadedEx;
    ///
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let counted = Arc::clone(&started);
    /// let loader = Loader::new(from_fn(1_000, |i| i), ThreadedEx::new().basesize(1))
    ///     .worker_init(move |_worker| { counted.fetch_add(1, Ordering::Relaxed); });
    /// assert_eq!(loader.iter().count(), 1_000);
    /// assert!(started.load(Ordering::Relaxed) >= 1);
    /// ```
    pub fn worker_init(mut self, init: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.worker_init = Some(Arc::new(init));
        self
    }

    /// The seed every [`ItemContext`](foldex_dataset::ItemContext) of this loader carries.
    pub(super) fn item_seed(&self) -> u64 {
        self.settings
            .seed
            .or(self.settings.sampler.0.seed())
            .unwrap_or(0)
    }

    /// Deliver batches in epoch order (`true`, the default), or as they finish (`false`:
    /// first finished, first out; a little faster when item costs vary).
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.settings.ordered = ordered;
        self
    }

    /// Builds each batch with `collate` (on the executor's threads) from its observations in
    /// epoch order. Any `Fn(Vec<Item>) -> Batch + Send + Sync` closure works.
    ///
    /// ```
    /// use foldex_dataset::from_fn;
    /// use foldex_loader::Loader;
    /// use foldex_threaded::ThreadedEx;
    /// let loader = Loader::new(from_fn(6, |i| i as f32), ThreadedEx::new().basesize(1)).batch_size(3).collate(|xs: Vec<f32>| {
    ///     xs.iter().sum::<f32>() / xs.len() as f32
    /// });
    /// assert_eq!(loader.iter().collect::<Vec<_>>(), vec![1.0, 4.0]);
    /// ```
    ///
    /// # Panics
    /// After [`Loader::max_buffer_bytes`], which measures the batches of the collate set
    /// before it: set the byte cap after the collate.
    #[track_caller]
    pub fn collate<C2: Collate<D::Item>>(self, collate: C2) -> Loader<D, C2, M> {
        assert!(
            self.settings.max_buffer_bytes.is_none(),
            "collate must come before max_buffer_bytes, which measures the collate's batches"
        );
        self.rebuild(Arc::new(collate), |mode| mode)
    }

    fn rebuild<C2, M2>(self, collate: Arc<C2>, mode: impl FnOnce(M) -> M2) -> Loader<D, C2, M2> {
        Loader {
            dataset: self.dataset,
            collate,
            executor: self.executor,
            settings: self.settings,
            next_epoch: self.next_epoch,
            cost: self.cost,
            tuner: self.tuner,
            worker_init: self.worker_init,
            byte_measure: self.byte_measure,
            mode: mode(self.mode),
        }
    }

    /// Recycle batch buffers: the iterator yields [`Reused`](crate::reuse::Reused) guards (dereferencing to the
    /// batch) whose buffers go back to the loader when dropped, observations are loaded with
    /// [`Dataset::get_into`](foldex_dataset::Dataset::get_into) into buffers of earlier batches, and batches are built with
    /// [`Collate::collate_into`]. Once warm, loading allocates nothing per observation.
    ///
    /// Holding a guard is safe: its buffers are not reused before it is dropped; producers
    /// wait for a free buffer instead (there are `buffer + workers + 2`). With `false` the
    /// guards free their buffers instead of recycling them (for comparisons).
    ///
    /// ```
    /// use foldex_dataset::Dataset;
    /// use foldex_loader::Loader;
    /// use foldex_threaded::ThreadedEx;
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
    /// let loader = Loader::new(Rows, ThreadedEx::new().basesize(1)).batch_size(10).reuse_buffers(true);
    /// for batch in &loader {
    ///     // `batch` is a guard; `*batch` is the `Vec<Vec<f32>>`.
    ///     assert_eq!(batch.len(), 10);
    /// } // each guard hands its buffers back here
    /// ```
    pub fn reuse_buffers(self, recycle: bool) -> Loader<D, C, Reuse> {
        let collate = Arc::clone(&self.collate);
        self.rebuild(collate, |_| Reuse::new(recycle))
    }

    /// Load only rank `rank`'s part of each epoch, of `world` ranks (PyTorch's
    /// `DistributedSampler`): every rank computes the same epoch order, and rank `r` takes its
    /// positions `r, r + world, r + 2 * world, ...`. Set the same seed on every rank. When
    /// `world` does not divide the dataset, [`Loader::shard_tail`] decides (default:
    /// [`Tail::Pad`]).
    ///
    /// ```
    /// use foldex_dataset::{from_fn, Tail};
    /// use foldex_loader::Loader;
    /// use foldex_threaded::ThreadedEx;
    /// let rank = |r| Loader::new(from_fn(10, |i| i), ThreadedEx::new().basesize(1)).shuffle(1).shard(r,
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
        Shard::new(rank, world, self.settings.tail);
        self.settings.shard = Some((rank, world));
        self
    }

    /// Learns what batches cost and how large the default buffer should grow in `cost` and
    /// `tuner`, shared with other loaders of the same input (a stream loader's windows), instead
    /// of starting afresh.
    pub(crate) fn learning_in(mut self, cost: &Arc<CostMeter>, tuner: &Arc<BufferTuner>) -> Self {
        self.cost = Arc::clone(cost);
        self.tuner = Arc::clone(tuner);
        self
    }

    /// Loads window `offset..` of a stream loader's epoch `epoch`, seeding its items'
    /// generators with `seed`.
    pub(crate) fn window_of_stream(mut self, (epoch, offset): (u64, usize), seed: u64) -> Self {
        self.settings.window = Some((epoch, offset));
        self.settings.seed = Some(seed);
        self
    }

    /// Makes a stall an error: when `next()` has waited `timeout` for a batch, it raises a
    /// [`Stalled`](crate::Stalled) naming the observations still loading and for how long each
    /// has been (as a panic payload from `next()`, or as `Err` from
    /// [`Iter::try_next`]), and the epoch is abandoned: it stops, and its drop does not wait
    /// for the loads still running. A load stuck in the dataset's `get` cannot be interrupted:
    /// it goes on on its thread until it returns, and its result is dropped. The clock starts
    /// when `next()` finds no batch ready; any batch that comes ends the wait.
    ///
    /// While waiting, the consumer does not help the executor (a load it ran could be the one
    /// that hangs). On `SequentialEx` the loads run on the epoch's
    /// driver thread, not on the consumer's, so the timeout works there as on a pool. Each
    /// load is noted in a list (a short lock as it starts and ends) while a timeout is set;
    /// without one, loads cost what they did. docs/loader.md says what a later epoch
    /// meets while an abandoned load still runs.
    ///
    /// # Panics
    /// If `timeout` is zero: "timeout must be more than zero, got 0ns".
    #[track_caller]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.settings.watch = Some(Watch::new(timeout));
        self
    }

    /// Notes loads in `watch` and waits for batches as long as it says (a stream loader's
    /// windows share the stream loader's).
    pub(crate) fn watched_by(mut self, watch: Option<&Watch>) -> Self {
        self.settings.watch = watch.cloned();
        self
    }

    /// What sharding does with the last `len % world` observations; see [`Tail`].
    pub fn shard_tail(mut self, tail: Tail) -> Self {
        self.settings.tail = tail;
        self
    }

    /// Switches the clock readings and per-worker counters of [`Iter::stats`] off; exists to
    /// measure what they cost.
    #[doc(hidden)]
    pub fn diagnostics(mut self, on: bool) -> Self {
        self.settings.diagnostics = on;
        self
    }

    /// Delivers each observation as it is, not in a batch: batches of one with the
    /// [`Unbatched`] collate.
    ///
    /// ```
    /// use foldex_dataset::from_fn;
    /// use foldex_loader::Loader;
    /// use foldex_threaded::ThreadedEx;
    /// let loader = Loader::new(from_fn(3, |i| i * 10), ThreadedEx::new().basesize(1)).unbatched();
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

    /// The number of finished batches that may wait for the consumer in the next epoch: the
    /// [`Loader::buffer`] setting, by default twice the executor's workers ([`MAX_BUFFER`] at
    /// most, whatever number of workers the executor reports), grown after bursty epochs. An
    /// epoch with fewer batches sizes its buffer by them instead: no place is made that the
    /// epoch could never fill.
    pub fn buffer_size(&self) -> usize {
        self.planned_buffer().0
    }

    /// The next epoch's buffer, and where its size comes from.
    pub(super) fn planned_buffer(&self) -> (usize, BufferOrigin) {
        match self.settings.buffer {
            Some(buffer) => (buffer.get(), BufferOrigin::Set),
            None => self.tuner.size(self.default_buffer()),
        }
    }

    /// Twice the executor's workers, [`MAX_BUFFER`] at most.
    pub(super) fn default_buffer(&self) -> usize {
        let workers = self.executor.workers().max(1);
        workers.saturating_mul(2).min(MAX_BUFFER)
    }

    /// The number the next epoch will have (0 for the first iteration).
    pub fn next_epoch(&self) -> u64 {
        self.next_epoch.load(Ordering::Relaxed)
    }

    /// The state at the start of epoch `epoch`, nothing received: [`Loader::resume`] runs that
    /// epoch whole, and the iterations after it the epochs after it. A loader built anew with
    /// the same settings (after a restart, or for another device) thus goes on with the epoch
    /// numbers, and so the shuffles, where an earlier one stopped.
    ///
    /// ```
    /// use foldex_dataset::from_fn;
    /// use foldex_loader::Loader;
    /// use foldex_seq::SequentialEx;
    /// let loader = Loader::new(from_fn(6, |i| i), SequentialEx).shuffle(1).unbatched();
    /// let third: Vec<usize> = loader.resume(&loader.epoch_start(2)).unwrap().collect();
    /// assert_eq!(third, loader.epoch_order(2).iter().collect::<Vec<_>>());
    /// assert_eq!(loader.next_epoch(), 3);
    /// ```
    pub fn epoch_start(&self, epoch: u64) -> LoaderState {
        self.initial_state(epoch)
    }

    /// The dataset.
    pub fn dataset(&self) -> &D {
        &self.dataset
    }

    /// The order in which epoch `epoch` visits the dataset: batch `k` holds positions
    /// `k * batch_size ..` of it.
    ///
    /// # Panics
    /// If the sampler's order does not fit the dataset (see [`Loader::sampler`]).
    #[track_caller]
    pub fn epoch_order(&self, epoch: u64) -> EpochOrder {
        self.checked_order(epoch).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Epoch `epoch`'s order, checked against the dataset.
    pub(super) fn checked_order(&self, epoch: u64) -> Result<EpochOrder, IterError> {
        checked_order(&*self.settings.sampler.0, self.dataset.input_len(), epoch)
            .map_err(IterError::Sampler)
    }

    /// This rank's sharding, if any.
    pub fn sharding(&self) -> Option<Shard> {
        self.settings
            .shard
            .map(|(rank, world)| Shard::new(rank, world, self.settings.tail))
    }

    /// The observations per epoch: the dataset's, or this rank's part of them.
    pub(super) fn epoch_len(&self) -> usize {
        let len = self.settings.sampler.0.len(self.dataset.input_len());
        self.sharding().map_or(len, |shard| shard.len(len))
    }

    pub(super) fn batches(&self) -> Batches {
        Batches {
            len: self.epoch_len(),
            batch_size: self.settings.batch_size.get(),
            partial: self.settings.partial,
        }
    }
}

impl<D, C, M> Loader<D, C, M>
where
    D: Loadable + 'static,
    C: Collate<D::Item> + 'static,
    M: BatchMode<D, C>,
{
    /// Starts the next epoch.
    ///
    /// # Panics
    /// Where [`Loader::try_iter`] refuses, with its error's message.
    #[track_caller]
    pub fn iter(&self) -> Iter<M::Batch> {
        self.try_iter().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts the next epoch, or refuses ([`IterError`]): on a worker thread of the loader's
    /// own executor (that thread would wait for batches that the pool, with one worker fewer,
    /// may never compute), for an epoch of more batches than a loader can number or with a
    /// buffer larger than a loader makes for it, or when no epoch number is left.
    pub fn try_iter(&self) -> Result<Iter<M::Batch>, IterError> {
        self.begin_next_epoch(|state, order| M::start_epoch(self, state, order))
    }

    /// Continues the epoch that `state` (from [`Iter::state`]) describes with exactly the
    /// batch after what was received, without loading anything received before; the next
    /// iteration after it is the following epoch. See [`LoaderState`].
    ///
    /// A state from other settings (sampler, seed, shard, batch size, length) is refused with
    /// [`ResumeError`], and so is one whose epoch is `u64::MAX`: no epoch could follow it.
    /// A state merged from a world's states ([`Loader::merge_states`]) resumes on any shard:
    /// this rank deals itself its part of what remains.
    ///
    /// # Panics
    /// On a worker thread of the loader's own executor, or for an epoch too large (see
    /// [`Loader::try_iter`]).
    #[track_caller]
    pub fn resume(&self, state: &LoaderState) -> Result<Iter<M::Batch>, ResumeError> {
        self.resumed_epoch(state, |state, order| M::start_epoch(self, state, order))
    }
}

impl<D, C, M> IntoIterator for &Loader<D, C, M>
where
    D: Loadable + 'static,
    C: Collate<D::Item> + 'static,
    M: BatchMode<D, C>,
{
    type Item = M::Batch;
    type IntoIter = Iter<M::Batch>;

    fn into_iter(self) -> Iter<M::Batch> {
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
/// use foldex_dataset::from_fn;
/// use foldex_loader::eachobsparallel;
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
    D: Loadable + 'static,
    D::Item: Send + 'static,
    E: Executor + 'static,
{
    Loader::new(dataset, executor)
        .ordered(false)
        .unbatched()
        .iter()
}
