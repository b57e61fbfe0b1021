//! The `Loader` builder and the iterator of one epoch.

use crate::channel::{Channel, Recv};
use crate::collate::{Collate, Unbatched, VecCollate};
use crate::dataset::Dataset;
use crate::epoch::{as_helping_consumer, spawn_driver, Epoch};
use crate::order::{Batches, EpochOrder};
use foldex_core::{ConfigError, Executor};
use foldex_threaded::ThreadedEx;
use std::fmt;
use std::iter::FusedIterator;
use std::num::NonZeroUsize;
use std::panic;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

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
pub struct Loader<D, C = VecCollate> {
    dataset: Arc<D>,
    collate: Arc<C>,
    executor: Arc<dyn Executor>,
    buffer: Option<NonZeroUsize>,
    batch_size: NonZeroUsize,
    partial: bool,
    shuffle: Option<u64>,
    ordered: bool,
    next_epoch: AtomicU64,
}

impl<D, C> fmt::Debug for Loader<D, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loader")
            .field("buffer", &self.buffer)
            .field("batch_size", &self.batch_size)
            .field("partial", &self.partial)
            .field("shuffle", &self.shuffle)
            .field("ordered", &self.ordered)
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
        }
    }
}

impl<D: Dataset, C> Loader<D, C> {
    /// Runs the loading on `executor` (any executor; `Box<dyn Executor>` and
    /// `Arc<dyn Executor>` work too).
    pub fn executor<E: Executor + 'static>(mut self, executor: E) -> Self {
        self.executor = Arc::new(executor);
        self
    }

    /// At most `buffer` finished batches wait for the consumer; the producers wait while it is
    /// full. In ordered mode this is also the reorder window.
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
    /// [`permutation`](crate::permutation)`(len, seed, e)`.
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
    pub fn collate<C2: Collate<D::Item>>(self, collate: C2) -> Loader<D, C2> {
        Loader {
            dataset: self.dataset,
            collate: Arc::new(collate),
            executor: self.executor,
            buffer: self.buffer,
            batch_size: self.batch_size,
            partial: self.partial,
            shuffle: self.shuffle,
            ordered: self.ordered,
            next_epoch: self.next_epoch,
        }
    }

    /// Delivers each observation as it is, not in a batch: batches of one with the
    /// [`Unbatched`] collate.
    ///
    /// ```
    /// use foldex_loader::{from_fn, Loader};
    /// let loader = Loader::new(from_fn(3, |i| i * 10)).unbatched();
    /// assert_eq!(loader.iter().collect::<Vec<_>>(), vec![0, 10, 20]);
    /// ```
    pub fn unbatched(self) -> Loader<D, Unbatched> {
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

    /// The number of finished batches that may wait for the consumer.
    pub fn buffer_size(&self) -> usize {
        self.buffer
            .map_or_else(|| 2 * self.executor.workers().max(1), NonZeroUsize::get)
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

    fn batches(&self) -> Batches {
        Batches {
            len: self.dataset.len(),
            batch_size: self.batch_size.get(),
            partial: self.partial,
        }
    }
}

impl<D, C> Loader<D, C>
where
    D: Dataset + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + 'static,
{
    /// Starts the next epoch.
    ///
    /// # Panics
    /// On a worker thread of the loader's own executor (see [`Loader::try_iter`]).
    #[track_caller]
    pub fn iter(&self) -> Iter<C::Batch> {
        self.try_iter().unwrap_or_else(|e| panic!("{e}"))
    }

    /// Starts the next epoch, or refuses on a worker thread of the loader's own executor: that
    /// thread would wait for batches that the pool, with one worker fewer, may never compute.
    pub fn try_iter(&self) -> Result<Iter<C::Batch>, IterError> {
        if self.executor.is_worker_thread() {
            return Err(IterError::InsideExecutorPool);
        }
        let epoch = self.next_epoch.fetch_add(1, Ordering::Relaxed);
        let batches = self.batches();
        let total = batches.count();
        let channel = Arc::new(Channel::new(self.buffer_size(), self.ordered, total));
        let driver = (total > 0).then(|| {
            let producers = Epoch::new(
                Arc::clone(&self.dataset),
                Arc::clone(&self.collate),
                self.epoch_order(epoch),
                batches,
                Arc::clone(&channel),
            );
            spawn_driver(Arc::new(producers), Arc::clone(&self.executor))
        });
        Ok(Iter {
            channel,
            driver,
            executor: Arc::clone(&self.executor),
            remaining: total,
            epoch,
            finished: false,
        })
    }
}

impl<D, C> IntoIterator for &Loader<D, C>
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

/// Why a loader refused to start an epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IterError {
    /// The calling thread is a worker of the executor that feeds the loader.
    InsideExecutorPool,
}

impl fmt::Display for IterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InsideExecutorPool => f.write_str(
                "foldex-loader: a loader cannot be iterated on a worker thread of the executor \
                 that feeds it (the consumer would wait for batches that only its own pool can \
                 compute); iterate it outside that pool, or give the loader another executor",
            ),
        }
    }
}

impl std::error::Error for IterError {}

/// How many times the consumer looks for a batch, yielding in between, before it helps or
/// sleeps.
const POLL_ROUNDS: usize = 16;

/// One epoch of a [`Loader`]: its batches, as they are loaded.
///
/// An [`ExactSizeIterator`] (progress bars work on it). Dropping it early cancels the epoch: no
/// new batch starts, producers waiting for room wake, and the drop returns once the batches in
/// progress have stopped; no thread of the epoch is left running.
///
/// A panic in the dataset's `get` or in `collate` reaches `next()` with its original payload,
/// after the epoch's producers have stopped; the loader can start another epoch afterwards.
pub struct Iter<B> {
    channel: Arc<Channel<B>>,
    driver: Option<JoinHandle<()>>,
    executor: Arc<dyn Executor>,
    remaining: usize,
    epoch: u64,
    finished: bool,
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

    /// Takes the next batch without sleeping; when none is there, polls a little first, since
    /// with cheap items the next one is usually microseconds away, and a sleep and wake-up (or
    /// a round of helping) costs more than that.
    fn poll(&self) -> Recv<B> {
        for _ in 0..POLL_ROUNDS {
            match self.channel.try_recv() {
                Recv::Empty => std::thread::yield_now(),
                other => return other,
            }
        }
        self.channel.try_recv()
    }

    /// Stops the producers and waits until they have.
    fn shut_down(&mut self) {
        self.finished = true;
        self.remaining = 0;
        if let Some(driver) = self.driver.take() {
            self.channel.cancel();
            // The driver catches every panic it can meet; nothing is left to report here.
            let _ = driver.join();
        }
    }
}

impl<B> Iterator for Iter<B> {
    type Item = B;

    fn next(&mut self) -> Option<B> {
        if self.finished {
            return None;
        }
        let received = match self.poll() {
            Recv::Empty => {
                if self.executor.is_worker_thread() {
                    self.finished = true;
                    panic!("{}", IterError::InsideExecutorPool);
                }
                let executor = &self.executor;
                self.channel
                    .recv(|| as_helping_consumer(|| executor.help()))
            }
            other => other,
        };
        match received {
            Recv::Item(batch) => {
                self.remaining -= 1;
                Some(batch)
            }
            Recv::Finished => {
                self.shut_down();
                None
            }
            Recv::Failed(payload) => {
                self.shut_down();
                panic::resume_unwind(payload)
            }
            Recv::Incomplete { delivered } => {
                let total = self.channel.total();
                self.shut_down();
                panic!(
                    "foldex-loader: the executor returned after {delivered} of {total} batches \
                     of epoch {}: it did not run every index of its job",
                    self.epoch
                )
            }
            Recv::Empty => unreachable!("a blocking receive returns something"),
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
