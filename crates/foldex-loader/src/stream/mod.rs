//! A loader over streams: items that come from iterators (lines of files, a directory walk,
//! records from a channel) instead of a dataset indexed by position. PyTorch's
//! `IterableDataset`, tf.data's `from_generator` with `interleave` and `shuffle`.
//!
//! **How an epoch runs.** One thread, the *puller*, opens this rank's shards, interleaves them
//! (`cycle_length` at a time, an item from each in turn), passes the items through the seeded
//! shuffle buffer, and hands them on in *windows* through a channel of one window: the first
//! window is one batch, each next one four times the one before, up to `window` batches. A window
//! is handed on once it is full or the stream has ended, so a stream that pauses holds back
//! the batches of the window being filled. Each window is an epoch of an ordinary [`Loader`] over those items
//! (its dataset computes item `i` of the window with `compute`), so everything the indexable
//! loader gives holds within a window: batches computed on the executor, bounded memory,
//! ordered or unordered delivery, panics with their payload. The consumer reads the windows
//! in order, one epoch at a time: the next window's loader starts once the current one has
//! delivered its last batch. Starting it earlier would let its producers, waiting for room
//! that only a consumer of that window makes, hold the executor's threads that the current
//! window still needs (a deadlock that a test reproduced); so the executor drains once per
//! window, which the growing windows make rare.
//!
//! **Memory.** At most three windows of pulled items: the one being delivered, the one the
//! puller has finished and waits to hand on, and the one it fills; plus the loader's buffer.
//!
//! **Order.** The stream's order is the shards' items interleaved, then shuffled by the buffer:
//! a function of the shards, `cycle_length`, the seed, the epoch and the buffer's size. Batches
//! cut that order into `batch_size` pieces; a window holds whole batches, so only the stream's
//! last batch can be short.
//!
//! **Dropping an epoch early.** Dropping the [`StreamIter`] cancels the window in flight (its
//! loader stops and returns, as a `Loader`'s epoch does) and tells the puller to stop, which it
//! does, dropping the shards' iterators, as soon as its current `next()` returns. The drop does not wait for that `next()`:
//! a stream that blocks forever (a channel whose senders never hang up) leaves its puller
//! blocked, not the consumer; end such a stream by closing its source (drop the senders), or
//! read it with a timeout.

mod pull;
mod window;

pub use window::{Computed, Policed, Windowing};

use crate::buffer_tune::BufferTuner;
use crate::collate::{Collate, VecCollate};
use crate::loader::{Iter, Loader};
use crate::policy::ErrorPolicy;
use crate::stats::Stats;
use crate::transport::CostMeter;
use foldex_core::exec::PanicPayload;
use foldex_core::{ConfigError, Executor};
use foldex_threaded::ThreadedEx;
use pull::{shuffle_rng, Open, PullPlan, Pulled, ShardIter, Windows};
use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Instant;

/// A loader over streams: each epoch pulls the items of its shards again, computes them on an
/// executor's threads and hands them to the training loop in batches.
///
/// `open` makes a shard's iterator (called once per shard and epoch, on the puller thread);
/// `compute` turns a pulled item into the batch's item on the executor's threads (decoding,
/// augmenting: the heavy part). Pulling is sequential, computing parallel.
///
/// ```
/// use foldex_loader::StreamLoader;
/// use foldex_threaded::ThreadedEx;
///
/// // Three "files" of records; each epoch reads them again, two at a time.
/// let files = vec![vec![1u32, 2, 3], vec![10, 20], vec![100]];
/// let loader = StreamLoader::from_shards(files, |f| f.clone(), |x: &u32| x * 2)
///     .executor(ThreadedEx::new().basesize(1))
///     .interleave(2)
///     .batch_size(2);
/// let batches: Vec<Vec<u32>> = loader.iter().collect();
/// assert_eq!(batches, [vec![2, 20], vec![4, 40], vec![6, 200]]);
/// ```
pub struct StreamLoader<R, T, C = VecCollate, W = Computed<R, T>> {
    shard_count: usize,
    open: Arc<Open<R>>,
    windowing: Arc<W>,
    item: PhantomData<fn() -> T>,
    collate: Arc<C>,
    executor: Arc<dyn Executor>,
    batch_size: NonZeroUsize,
    buffer: Option<usize>,
    partial: bool,
    ordered: bool,
    /// The shuffle buffer's size and seed.
    shuffle: Option<(NonZeroUsize, u64)>,
    cycle_length: NonZeroUsize,
    shard: Option<(usize, usize)>,
    window: NonZeroUsize,
    next_epoch: AtomicU64,
    /// What batches cost and the tuned default buffer, learnt across windows and epochs.
    cost: Arc<CostMeter>,
    tuner: Arc<BufferTuner>,
    /// The seed of the items' contexts.
    seed: Option<u64>,
}

impl<R, T, C, W> StreamLoader<R, T, C, W> {
    /// The same loader, loading its windows with `windowing` and collating with `collate`.
    fn rebuild<T2, C2, W2>(
        self,
        windowing: Arc<W2>,
        collate: Arc<C2>,
    ) -> StreamLoader<R, T2, C2, W2> {
        StreamLoader {
            shard_count: self.shard_count,
            open: self.open,
            windowing,
            item: PhantomData,
            collate,
            executor: self.executor,
            batch_size: self.batch_size,
            buffer: self.buffer,
            partial: self.partial,
            ordered: self.ordered,
            shuffle: self.shuffle,
            cycle_length: self.cycle_length,
            shard: self.shard,
            window: self.window,
            next_epoch: self.next_epoch,
            cost: self.cost,
            tuner: self.tuner,
            seed: self.seed,
        }
    }
}

impl<R, T, C, W> fmt::Debug for StreamLoader<R, T, C, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamLoader")
            .field("shards", &self.shard_count)
            .field("batch_size", &self.batch_size)
            .field("buffer", &self.buffer)
            .field("ordered", &self.ordered)
            .field("shuffle", &self.shuffle)
            .field("cycle_length", &self.cycle_length)
            .field("shard", &self.shard)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

/// Batches per window by default: long next to the buffer, so that the hand-over between
/// windows is rare, and small enough that three windows of pulled items stay small.
pub const DEFAULT_WINDOW: usize = 256;

impl<R, T> StreamLoader<R, T>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
{
    /// A loader over one stream: `open()` makes the epoch's iterator; `compute` makes each
    /// item of a batch from a pulled one. Defaults: batches of one item as a `Vec`, in order,
    /// not shuffled, on `ThreadedEx` with basesize 1, windows of [`DEFAULT_WINDOW`] batches.
    ///
    /// ```
    /// use foldex_loader::StreamLoader;
    /// use std::io::BufRead;
    ///
    /// let loader = StreamLoader::new(
    ///     || std::io::Cursor::new("3\n1\n4\n1\n5\n").lines().map(Result::unwrap),
    ///     |line: &String| line.parse::<u32>().unwrap(),
    /// )
    /// .batch_size(2);
    /// let batches: Vec<Vec<u32>> = loader.iter().collect();
    /// assert_eq!(batches, [vec![3, 1], vec![4, 1], vec![5]]);
    /// ```
    pub fn new<I, O, F>(open: O, compute: F) -> Self
    where
        O: Fn() -> I + Send + Sync + 'static,
        I: IntoIterator<Item = R>,
        I::IntoIter: Send + 'static,
        F: Fn(&R) -> T + Send + Sync + 'static,
    {
        Self::with_open(1, move |_| Box::new(open().into_iter()), compute)
    }

    /// A loader over several streams, its *shards* (files, say): `open(&shard)` makes a
    /// shard's iterator. Shards are read one after another unless
    /// [`interleave`](Self::interleave) reads several at once, and are dealt to ranks by
    /// [`shard`](Self::shard).
    pub fn from_shards<S, I, O, F>(shards: Vec<S>, open: O, compute: F) -> Self
    where
        S: Send + Sync + 'static,
        O: Fn(&S) -> I + Send + Sync + 'static,
        I: IntoIterator<Item = R>,
        I::IntoIter: Send + 'static,
        F: Fn(&R) -> T + Send + Sync + 'static,
    {
        let count = shards.len();
        Self::with_open(
            count,
            move |i| Box::new(open(&shards[i]).into_iter()),
            compute,
        )
    }

    fn with_open(
        shard_count: usize,
        open: impl Fn(usize) -> ShardIter<R> + Send + Sync + 'static,
        compute: impl Fn(&R) -> T + Send + Sync + 'static,
    ) -> Self {
        Self {
            shard_count,
            open: Arc::new(open),
            windowing: Arc::new(Computed(Arc::new(compute))),
            item: PhantomData,
            collate: Arc::new(VecCollate),
            executor: Arc::new(ThreadedEx::new().basesize(1)),
            batch_size: NonZeroUsize::MIN,
            buffer: None,
            partial: true,
            ordered: true,
            shuffle: None,
            cycle_length: NonZeroUsize::MIN,
            shard: None,
            window: NonZeroUsize::new(DEFAULT_WINDOW).expect("not zero"),
            next_epoch: AtomicU64::new(0),
            cost: Arc::default(),
            tuner: Arc::default(),
            seed: None,
        }
    }
}

impl<R, U, E, C> StreamLoader<R, Result<U, E>, C>
where
    R: Send + Sync + 'static,
    U: Send + 'static,
    E: fmt::Display + Send + 'static,
{
    /// Loads the items of a `compute` that returns `Result`s under `policy` (as
    /// [`Checked`](crate::Checked) does for a dataset): batches hold the `Ok` values; a
    /// failure is retried, skipped (and listed in [`StreamIter::stats`] with its stream
    /// position) or fails the epoch with an [`ItemError`](crate::ItemError) whose `index` is
    /// the stream position.
    ///
    /// ```
    /// use foldex_loader::{ErrorPolicy, StreamLoader};
    ///
    /// let records = ["1", "2", "x", "4"];
    /// let loader = StreamLoader::new(move || records, |s: &&str| s.parse::<u32>())
    ///     .errors(ErrorPolicy::skip())
    ///     .batch_size(2);
    /// let mut epoch = loader.iter();
    /// let batches: Vec<Vec<u32>> = epoch.by_ref().collect();
    /// assert_eq!(batches, [vec![1, 2], vec![4]]);
    /// assert_eq!(epoch.stats().skipped[0].index, 2);
    /// ```
    pub fn errors(self, policy: ErrorPolicy) -> StreamLoader<R, U, C, Policed<R, U, E>> {
        let compute = Arc::clone(&self.windowing.0);
        let collate = Arc::clone(&self.collate);
        self.rebuild(Arc::new(Policed { compute, policy }), collate)
    }
}

impl<R, T, C, W> StreamLoader<R, T, C, W>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
    C: Collate<T> + 'static,
    C::Batch: Send + 'static,
    W: Windowing<R, Item = T>,
{
    /// The executor that computes the batches (as [`Loader::executor`]).
    pub fn executor<E: Executor + 'static>(mut self, executor: E) -> Self {
        self.executor = Arc::new(executor);
        self
    }

    /// Items per batch (as [`Loader::batch_size`]).
    ///
    /// # Panics
    /// On zero, naming the setting.
    #[track_caller]
    pub fn batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = ConfigError::require_nonzero("batch_size", batch_size);
        self
    }

    /// Finished batches that may wait for the consumer (as [`Loader::buffer`]).
    ///
    /// # Panics
    /// On zero, naming the setting.
    #[track_caller]
    pub fn buffer(mut self, buffer: usize) -> Self {
        self.buffer = Some(ConfigError::require_nonzero("buffer", buffer).get());
        self
    }

    /// Whether the stream's last batch is delivered when it is short (default `true`).
    pub fn partial(mut self, partial: bool) -> Self {
        self.partial = partial;
        self
    }

    /// In stream order (default), or first finished first (as [`Loader::ordered`]).
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// Shuffles the stream through a buffer of `size` items (tf.data's `shuffle`): each item
    /// handed on is drawn at random from the buffer, then replaced by the next one pulled. The
    /// order is a function of the seed, the epoch and `size`; a larger buffer mixes more, and
    /// holds more.
    ///
    /// # Panics
    /// On a buffer of 0 items, naming the setting.
    #[track_caller]
    pub fn shuffle_buffer(mut self, size: usize, seed: u64) -> Self {
        self.shuffle = Some((ConfigError::require_nonzero("shuffle_buffer", size), seed));
        self
    }

    /// The seed of each item's generator, [`ItemContext::rng`](crate::ItemContext::rng), whose
    /// index is the item's position in the epoch's stream; without it, the shuffle buffer's
    /// seed, or 0. As [`Loader::seed`].
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Reads `cycle_length` shards at once, an item from each in turn (tf.data's
    /// `interleave`); default 1, one shard after another.
    ///
    /// # Panics
    /// On zero, naming the setting.
    #[track_caller]
    pub fn interleave(mut self, cycle_length: usize) -> Self {
        self.cycle_length = ConfigError::require_nonzero("interleave", cycle_length);
        self
    }

    /// Reads only the shards of rank `rank` of `world`: shard `i` belongs to rank
    /// `i % world`. Shards, not items, are dealt, since a stream cannot be split by position.
    ///
    /// # Panics
    /// If `world` is 0 or `rank >= world`.
    #[track_caller]
    pub fn shard(mut self, rank: usize, world: usize) -> Self {
        assert!(world >= 1, "shard: world must be at least 1, got 0");
        assert!(
            rank < world,
            "shard: rank must be below world ({world}), got {rank}"
        );
        self.shard = Some((rank, world));
        self
    }

    /// Batches per window (see the module's doc); default [`DEFAULT_WINDOW`].
    ///
    /// # Panics
    /// On zero, naming the setting.
    #[track_caller]
    pub fn window(mut self, batches: usize) -> Self {
        self.window = ConfigError::require_nonzero("window", batches);
        self
    }

    /// Makes batches with `collate` (as [`Loader::collate`]).
    pub fn collate<C2>(self, collate: C2) -> StreamLoader<R, T, C2, W>
    where
        C2: Collate<T> + 'static,
        C2::Batch: Send + 'static,
    {
        let windowing = Arc::clone(&self.windowing);
        self.rebuild(windowing, Arc::new(collate))
    }

    /// The shards this loader reads (all of them, or its rank's), in order.
    pub fn shards(&self) -> Vec<usize> {
        let (rank, world) = self.shard.unwrap_or((0, 1));
        (rank..self.shard_count).step_by(world).collect()
    }

    /// Starts the next epoch.
    ///
    /// # Panics
    /// On a worker thread of the loader's executor, as [`Loader::iter`] does.
    pub fn iter(&self) -> StreamIter<R, T, C, W> {
        let epoch = self.next_epoch.fetch_add(1, Ordering::Relaxed);
        let window = self.window.get().saturating_mul(self.batch_size.get());
        let hung_up = Arc::new(AtomicBool::new(false));
        let plan = PullPlan {
            open: Arc::clone(&self.open),
            shards: self.shards(),
            cycle_length: self.cycle_length.get(),
            shuffle: self
                .shuffle
                .map(|(size, seed)| (size.get(), shuffle_rng(seed, epoch, size.get()))),
            batch: self.batch_size.get(),
            window,
            hung_up: Arc::clone(&hung_up),
        };
        let (send, windows) = std::sync::mpsc::sync_channel(1);
        let puller = thread::Builder::new()
            .name("foldex-stream-puller".into())
            .spawn(move || plan.run(&send))
            .expect("foldex-loader: failed to start the thread that pulls a stream");
        StreamIter {
            settings: WindowSettings {
                windowing: Arc::clone(&self.windowing),
                item: PhantomData,
                collate: Arc::clone(&self.collate),
                executor: Arc::clone(&self.executor),
                batch_size: self.batch_size.get(),
                buffer: self.buffer,
                partial: self.partial,
                ordered: self.ordered,
                cost: Arc::clone(&self.cost),
                tuner: Arc::clone(&self.tuner),
                seed: self
                    .seed
                    .or(self.shuffle.map(|(_, seed)| seed))
                    .unwrap_or(0),
            },
            epoch,
            windows: Some(windows),
            hung_up,
            puller: Some(puller),
            current: None,
            failure: None,
            failed_position: None,
            finished_stats: None,
            started: Instant::now(),
        }
    }
}

impl<R, T, C, W> IntoIterator for &StreamLoader<R, T, C, W>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
    C: Collate<T> + 'static,
    C::Batch: Send + 'static,
    W: Windowing<R, Item = T>,
{
    type Item = C::Batch;
    type IntoIter = StreamIter<R, T, C, W>;
    fn into_iter(self) -> StreamIter<R, T, C, W> {
        self.iter()
    }
}

/// The stream loader's collate, shared by its windows' loaders.
struct SharedCollate<C>(Arc<C>);

impl<T, C: Collate<T>> Collate<T> for SharedCollate<C> {
    type Batch = C::Batch;
    fn collate(&self, items: Vec<T>) -> C::Batch {
        self.0.collate(items)
    }
    fn collate_one(&self, item: T) -> C::Batch {
        self.0.collate_one(item)
    }
    fn collate_into(&self, items: &mut Vec<T>, out: &mut C::Batch) {
        self.0.collate_into(items, out);
    }
    fn collate_empty(&self) -> Option<C::Batch> {
        self.0.collate_empty()
    }
}

/// What each window's loader is made with.
struct WindowSettings<T, C, W> {
    windowing: Arc<W>,
    item: PhantomData<fn() -> T>,
    collate: Arc<C>,
    executor: Arc<dyn Executor>,
    batch_size: usize,
    buffer: Option<usize>,
    partial: bool,
    ordered: bool,
    cost: Arc<CostMeter>,
    tuner: Arc<BufferTuner>,
    seed: u64,
}

/// One window being delivered: its first stream position and its loader's epoch.
struct Running<B> {
    offset: usize,
    iter: Iter<B>,
}

/// One epoch of a [`StreamLoader`]: its batches, as they are computed.
///
/// Dropping it early cancels the epoch (see the module doc of `StreamLoader` for what a
/// blocked stream does). A panic in `compute`, in `collate` or in a shard's iterator reaches
/// `next()` with its original payload, after the whole batches before the one it happened in
/// (that batch is not delivered, even when it would be the stream's short last one);
/// [`failed_position`](Self::failed_position) then says which item of the stream it was.
pub struct StreamIter<R, T, C: Collate<T>, W = Computed<R, T>> {
    settings: WindowSettings<T, C, W>,
    epoch: u64,
    windows: Option<Windows<R>>,
    /// Tells the puller to stop.
    hung_up: Arc<AtomicBool>,
    puller: Option<JoinHandle<()>>,
    current: Option<Running<C::Batch>>,
    /// The puller's panic, raised once the windows before it are delivered.
    failure: Option<(usize, PanicPayload)>,
    failed_position: Option<usize>,
    /// The figures of the windows delivered so far.
    finished_stats: Option<Stats>,
    started: Instant,
}

impl<R, T, C: Collate<T>, W> fmt::Debug for StreamIter<R, T, C, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamIter")
            .field("epoch", &self.epoch)
            .finish_non_exhaustive()
    }
}

impl<R, T, C, W> StreamIter<R, T, C, W>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
    C: Collate<T> + 'static,
    C::Batch: Send + 'static,
    W: Windowing<R, Item = T>,
{
    /// The number of this epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// After `next()` re-raised a panic, the stream position of the item whose `compute` or
    /// whose pulling panicked (`None` before that, or for a panic in `collate`).
    pub fn failed_position(&self) -> Option<usize> {
        self.failed_position
    }

    /// The epoch's figures so far (as [`Iter::stats`]), over every window delivered or being
    /// delivered; the indices of skipped items are stream positions.
    pub fn stats(&self) -> Stats {
        let mut stats = self.finished_stats.clone();
        if let Some(running) = &self.current {
            absorb(&mut stats, running.iter.stats(), running.offset);
        }
        let mut stats = stats.unwrap_or_else(|| Stats::empty(self.settings.buffer.unwrap_or(1)));
        stats.wall = self.started.elapsed();
        stats
    }

    /// The next window's loader, started; `None` at the end of the stream or at its failure.
    fn start_window(&mut self) -> Option<Running<C::Batch>> {
        let pulled = self.windows.as_ref()?.recv();
        match pulled {
            Ok(Pulled::Window { offset, items }) => {
                let s = &self.settings;
                let window = s.windowing.window(items);
                let mut loader = Loader::new(window)
                    .executor(Arc::clone(&s.executor))
                    .collate(SharedCollate(Arc::clone(&s.collate)))
                    .batch_size(s.batch_size)
                    .partial(s.partial)
                    .ordered(s.ordered)
                    .learning_in(&s.cost, &s.tuner)
                    .window_of_stream((self.epoch, offset), s.seed);
                if let Some(buffer) = s.buffer {
                    loader = loader.buffer(buffer);
                }
                Some(Running {
                    offset,
                    iter: loader.iter(),
                })
            }
            Ok(Pulled::Failed { position, payload }) => {
                self.failure = Some((position, payload));
                self.windows = None;
                None
            }
            Err(_) => {
                self.windows = None;
                None
            }
        }
    }

    /// Stops everything in flight and raises `payload`.
    fn fail(&mut self, position: Option<usize>, payload: PanicPayload) -> ! {
        self.failed_position = position;
        self.shut_down();
        panic::resume_unwind(payload)
    }

    fn shut_down(&mut self) {
        self.hung_up.store(true, Ordering::Relaxed);
        self.current = None;
        self.windows = None;
        if self.puller.as_ref().is_some_and(JoinHandle::is_finished) {
            if let Some(puller) = self.puller.take() {
                // The puller catches the panics of the stream; it cannot panic itself.
                let _ = puller.join();
            }
        }
    }
}

impl<R, T, C, W> Iterator for StreamIter<R, T, C, W>
where
    R: Send + Sync + 'static,
    T: Send + 'static,
    C: Collate<T> + 'static,
    C::Batch: Send + 'static,
    W: Windowing<R, Item = T>,
{
    type Item = C::Batch;

    fn next(&mut self) -> Option<C::Batch> {
        loop {
            if self.current.is_none() {
                self.current = self.start_window();
            }
            let Some(running) = &mut self.current else {
                if let Some((position, payload)) = self.failure.take() {
                    self.fail(Some(position), payload);
                }
                self.shut_down();
                return None;
            };
            let delivered = panic::catch_unwind(AssertUnwindSafe(|| running.iter.next()));
            match delivered {
                Ok(Some(batch)) => return Some(batch),
                Ok(None) => {
                    let done = self.current.take().expect("a window is running");
                    absorb(&mut self.finished_stats, done.iter.stats(), done.offset);
                }
                Err(mut payload) => {
                    let position = running.iter.failed_index().map(|i| running.offset + i);
                    self.settings.windowing.place(&mut payload, running.offset);
                    self.fail(position, payload);
                }
            }
        }
    }
}

impl<R, T, C: Collate<T>, W> Drop for StreamIter<R, T, C, W> {
    fn drop(&mut self) {
        // The window's loader stops and returns first; then the puller, told to stop, ends
        // when its current `next()` returns (not waited for).
        self.hung_up.store(true, Ordering::Relaxed);
        self.current = None;
        self.windows = None;
    }
}

/// Adds a window's figures to the epoch's; `offset` turns the window's indices into stream
/// positions.
fn absorb(total: &mut Option<Stats>, mut window: Stats, offset: usize) {
    for skipped in &mut window.skipped {
        skipped.index += offset;
    }
    match total {
        None => *total = Some(window),
        Some(total) => total.absorb(window),
    }
}
