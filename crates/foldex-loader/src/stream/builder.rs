//! The [`StreamLoader`](crate::StreamLoader): its settings, and the call that starts an epoch.

use super::cursor::{Cursor, StreamSettings, StreamState};
use super::iter::{Start, StreamIter, WindowSettings};
use super::pull::{shuffle_rng, watched, watched_seek, Open, PullPlan, ShardIter};
use super::seek::{Seek, SeekShard};
use super::window::{Computed, Policed, Windowing};
use crate::buffer_tune::BufferTuner;
use crate::byte_size::ByteSize;
use crate::channel::MAX_BUFFER;
use crate::error::ResumeError;
use crate::loader::{measure_of, AnyMeasure};
use crate::policy::ErrorPolicy;
use crate::stall::Watch;
use crate::transport::CostMeter;
use foldex_core::{ConfigError, Executor};
use foldex_dataset::{Collate, VecCollate};
use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self};
use std::time::Duration;

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
/// let loader = StreamLoader::from_shards(files, |f| f.clone(), |x: &u32| x * 2, ThreadedEx::new().basesize(1))
///     .interleave(2)
///     .batch_size(2);
/// let batches: Vec<Vec<u32>> = loader.iter().collect();
/// assert_eq!(batches, [vec![2, 20], vec![4, 40], vec![6, 200]]);
/// ```
pub struct StreamLoader<R, T, C = VecCollate, W = Computed<R, T>> {
    shard_count: usize,
    open: Arc<Open<R>>,
    /// The shards opened at a position, when they can be: resumption seeks instead of replaying.
    seek: Option<Arc<dyn Seek<R>>>,
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
    /// The byte cap of each window's loader, and the measure of its batches.
    byte_cap: Option<(NonZeroUsize, AnyMeasure)>,
    /// The timeout of `next()`'s wait, and where loads are noted meanwhile.
    watch: Option<Watch>,
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
            seek: self.seek,
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
            byte_cap: self.byte_cap,
            watch: self.watch,
        }
    }
}

impl<R, T, C, W> StreamLoader<R, T, C, W> {
    /// This loader reading the shards of rank `shard.0` of `shard.1` instead, sharing its
    /// shards, executor and learnt figures: what resumes an old rank's stream in another world
    /// (`world.rs`).
    pub(super) fn as_rank(&self, shard: (usize, usize)) -> Self {
        Self {
            shard_count: self.shard_count,
            open: Arc::clone(&self.open),
            seek: self.seek.clone(),
            windowing: Arc::clone(&self.windowing),
            item: PhantomData,
            collate: Arc::clone(&self.collate),
            executor: Arc::clone(&self.executor),
            batch_size: self.batch_size,
            buffer: self.buffer,
            partial: self.partial,
            ordered: self.ordered,
            shuffle: self.shuffle,
            cycle_length: self.cycle_length,
            shard: Some(shard),
            window: self.window,
            next_epoch: AtomicU64::new(self.next_epoch.load(Ordering::Relaxed)),
            cost: Arc::clone(&self.cost),
            tuner: Arc::clone(&self.tuner),
            seed: self.seed,
            byte_cap: self.byte_cap.clone(),
            watch: self.watch.clone(),
        }
    }

    /// Makes `epoch` the next epoch that [`iter`](Self::iter) starts.
    pub(super) fn set_next_epoch(&self, epoch: u64) {
        self.next_epoch.store(epoch, Ordering::Relaxed);
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
    /// item of a batch from a pulled one, on `executor`'s threads (any executor, as for
    /// [`Loader::new`](crate::Loader::new)). Defaults: batches of one item as a `Vec`, in
    /// order, not shuffled, windows of [`DEFAULT_WINDOW`] batches.
    ///
    /// ```
    /// use foldex_loader::StreamLoader;
    /// use std::io::BufRead;
    /// use foldex_threaded::ThreadedEx;
    ///
    /// let loader = StreamLoader::new(
    ///     || std::io::Cursor::new("3\n1\n4\n1\n5\n").lines().map(Result::unwrap),
    ///     |line: &String| line.parse::<u32>().unwrap(),
    ///     ThreadedEx::new().basesize(1),
    /// )
    /// .batch_size(2);
    /// let batches: Vec<Vec<u32>> = loader.iter().collect();
    /// assert_eq!(batches, [vec![3, 1], vec![4, 1], vec![5]]);
    /// ```
    pub fn new<I, O, F, E>(open: O, compute: F, executor: E) -> Self
    where
        E: Executor + 'static,
        O: Fn() -> I + Send + Sync + 'static,
        I: IntoIterator<Item = R>,
        I::IntoIter: Send + 'static,
        F: Fn(&R) -> T + Send + Sync + 'static,
    {
        Self::with_open(
            1,
            move |_| Box::new(open().into_iter()),
            compute,
            Arc::new(executor),
        )
    }

    /// A loader over several streams, its *shards* (files, say): `open(&shard)` makes a
    /// shard's iterator. Shards are read one after another unless
    /// [`interleave`](Self::interleave) reads several at once, and are dealt to ranks by
    /// [`shard`](Self::shard).
    pub fn from_shards<S, I, O, F, E>(shards: Vec<S>, open: O, compute: F, executor: E) -> Self
    where
        E: Executor + 'static,
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
            Arc::new(executor),
        )
    }

    /// A loader over shards that can be opened at any item position ([`SeekShard`]: a `Vec`, an
    /// `Arc` of a [`Dataset`](foldex_dataset::Dataset) such as `foldex_data::Records`):
    /// [`resume`](Self::resume) opens them where the state says instead of reading them again
    /// from their start. Otherwise as [`from_shards`](Self::from_shards) with `open` being
    /// `open_at(0)`.
    ///
    /// ```
    /// use foldex_loader::StreamLoader;
    /// use foldex_threaded::ThreadedEx;
    /// use std::sync::Arc;
    ///
    /// let shards = vec![Arc::new(vec![1u32, 2, 3]), Arc::new(vec![10, 20])];
    /// let loader = StreamLoader::from_seekable(shards, |x: &u32| x + 1, ThreadedEx::new().basesize(1))
    ///     .interleave(2)
    ///     .batch_size(2);
    /// let batches: Vec<Vec<u32>> = loader.iter().collect();
    /// assert_eq!(batches, [vec![2, 11], vec![3, 21], vec![4]]);
    /// ```
    pub fn from_seekable<S, F, E>(shards: Vec<S>, compute: F, executor: E) -> Self
    where
        E: Executor + 'static,
        S: SeekShard<Item = R>,
        F: Fn(&R) -> T + Send + Sync + 'static,
    {
        let shards = Arc::new(shards);
        let reader = Arc::clone(&shards);
        let mut loader = Self::with_open(
            shards.len(),
            move |i| Box::new(reader[i].open_at(0)),
            compute,
            Arc::new(executor),
        );
        loader.seek = Some(shards);
        loader
    }

    fn with_open(
        shard_count: usize,
        open: impl Fn(usize) -> ShardIter<R> + Send + Sync + 'static,
        compute: impl Fn(&R) -> T + Send + Sync + 'static,
        executor: Arc<dyn Executor>,
    ) -> Self {
        Self {
            shard_count,
            open: Arc::new(open),
            seek: None,
            windowing: Arc::new(Computed(Arc::new(compute))),
            item: PhantomData,
            collate: Arc::new(VecCollate),
            executor,
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
            byte_cap: None,
            watch: None,
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
    /// position) or fails the epoch with an [`ItemError`](foldex_dataset::ItemError) whose `index` is
    /// the stream position.
    ///
    /// ```
    /// use foldex_loader::{ErrorPolicy, StreamLoader};
    /// use foldex_threaded::ThreadedEx;
    ///
    /// let records = ["1", "2", "x", "4"];
    /// let loader = StreamLoader::new(move || records, |s: &&str| s.parse::<u32>(), ThreadedEx::new().basesize(1))
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
    /// Items per batch (as [`Loader::batch_size`](crate::Loader::batch_size)). A batch size
    /// beyond the stream's length (up to `usize::MAX`) makes one batch of the whole stream,
    /// left out by [`partial(false)`](Self::partial); room is made as items come, not for
    /// `batch_size` items up front.
    ///
    /// # Panics
    /// On zero, naming the setting.
    #[track_caller]
    pub fn batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = ConfigError::require_nonzero("batch_size", batch_size);
        self
    }

    /// Finished batches that may wait for the consumer (as [`Loader::buffer`](crate::Loader::buffer)).
    /// A buffer above [`MAX_BUFFER`] lets [`MAX_BUFFER`] batches wait: each window's loader
    /// makes its places when it starts, and a stream, whose length is not known ahead, would
    /// otherwise have its buffer refused in the middle of an epoch, at its first window of
    /// more batches than that.
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

    /// In stream order (default), or first finished first (as [`Loader::ordered`](crate::Loader::ordered)).
    pub fn ordered(mut self, ordered: bool) -> Self {
        self.ordered = ordered;
        self
    }

    /// Shuffles the stream through a buffer of `size` items (tf.data's `shuffle`): each item
    /// handed on is drawn at random from the buffer, then replaced by the next one pulled. The
    /// order is a function of the seed, the epoch and `size`; a larger buffer mixes more, and
    /// holds more. A buffer larger than the stream (up to `usize::MAX`) holds all of it and
    /// shuffles it whole; room is made as items come, not for `size` items up front.
    ///
    /// # Panics
    /// On a buffer of 0 items, naming the setting.
    #[track_caller]
    pub fn shuffle_buffer(mut self, size: usize, seed: u64) -> Self {
        self.shuffle = Some((ConfigError::require_nonzero("shuffle_buffer", size), seed));
        self
    }

    /// The seed of each item's generator, [`ItemContext::rng`](foldex_dataset::ItemContext::rng), whose
    /// index is the item's position in the epoch's stream; without it, the shuffle buffer's
    /// seed, or 0. As [`Loader::seed`](crate::Loader::seed).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Makes a stall an error, as [`Loader::timeout`](crate::Loader::timeout) does: when
    /// `next()` has waited `timeout` for a batch, it raises a [`Stalled`](crate::Stalled)
    /// naming the loads still running, with how long each has been: items' `compute` by
    /// stream position ([`LoadAt::Position`](crate::stats::LoadAt)), and a shard iterator's
    /// `next()` (or the opening of a shard) by shard and item
    /// ([`LoadAt::Pull`](crate::stats::LoadAt)); on [`resume`](Self::resume), the replay of
    /// the shards, or, when they seek, their `open_at` and `item_at`, by shard and the position
    /// asked for. The epoch is abandoned: neither its window's loads nor the puller are waited
    /// for; each stuck call goes on on its thread until it returns, and what it returns is
    /// dropped.
    ///
    /// # Panics
    /// If `timeout` is zero: "timeout must be more than zero, got 0ns".
    #[track_caller]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.watch = Some(Watch::new(timeout));
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

    /// Makes batches with `collate` (as [`Loader::collate`](crate::Loader::collate)).
    ///
    /// # Panics
    /// After [`StreamLoader::max_buffer_bytes`], which measures the batches of the collate
    /// set before it: set the byte cap after the collate.
    #[track_caller]
    pub fn collate<C2>(self, collate: C2) -> StreamLoader<R, T, C2, W>
    where
        C2: Collate<T> + 'static,
        C2::Batch: Send + 'static,
    {
        assert!(
            self.byte_cap.is_none(),
            "collate must come before max_buffer_bytes, which measures the collate's batches"
        );
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
    /// On a worker thread of the loader's executor, as [`Loader::iter`](crate::Loader::iter) does.
    pub fn iter(&self) -> StreamIter<R, T, C, W> {
        let epoch = self.next_epoch.fetch_add(1, Ordering::Relaxed);
        let rng = self
            .shuffle
            .map(|(size, seed)| shuffle_rng(seed, epoch, size.get()));
        let first = self.batch_size.get().min(self.window_items());
        let start = Start {
            settings: self.stream_settings(),
            cursor: Arc::new(Cursor::first(first, rng)),
            received: (0, Vec::new()),
        };
        self.start(epoch, start)
    }

    /// Continues the epoch that `state` (from [`StreamIter::state`]) describes with exactly the
    /// batch after what was received, in the order the whole epoch would have had (unordered,
    /// every item not received, once); the next iteration after it is the following epoch.
    /// See [`StreamState`] for what it holds, and the [`stream`](crate::stream) module for how
    /// the shards are reopened: at their positions when they can seek
    /// ([`from_seekable`](Self::from_seekable)), else the epoch's pulling replayed from its
    /// start up to the state (the shards read again, nothing computed).
    ///
    /// A state from other settings (shards, shard, interleave, shuffle buffer, batch size, item
    /// seed) is refused with [`ResumeError::Mismatch`] naming both sides, and so is one whose
    /// epoch is `u64::MAX`. The window size, the buffer, the delivery order and the executor
    /// may differ. A shard that has fewer items than the state says were read from it fails
    /// the resumed epoch, at its first `next()`, with a panic naming the shard (seeking) or
    /// giving the shards' positions in the state and those the replay reached (replaying).
    /// The states of every rank of a world resume in a world of another size with
    /// [`resume_in_world`](Self::resume_in_world).
    ///
    /// # Panics
    /// On a worker thread of the loader's executor, as [`iter`](Self::iter) does.
    pub fn resume(&self, state: &StreamState) -> Result<StreamIter<R, T, C, W>, ResumeError> {
        state.check(&self.stream_settings(), &self.shards())?;
        // `check` refused `u64::MAX`.
        self.next_epoch.store(state.epoch + 1, Ordering::Relaxed);
        let start = Start {
            settings: state.settings.clone(),
            cursor: Arc::new(state.cursor.clone()),
            received: (state.next_batch, state.received_above.clone()),
        };
        Ok(self.start(state.epoch, start))
    }

    /// Items per window, at most.
    fn window_items(&self) -> usize {
        self.window.get().saturating_mul(self.batch_size.get())
    }

    /// The settings a [`StreamState`] of this loader records.
    pub(super) fn stream_settings(&self) -> StreamSettings {
        StreamSettings {
            shards: self.shard_count,
            shard: self.shard.unwrap_or((0, 1)),
            interleave: self.cycle_length.get(),
            shuffle: self.shuffle.map(|(size, seed)| (size.get(), seed)),
            batch_size: self.batch_size.get(),
            seed: self.item_seed(),
        }
    }

    /// The seed of the items' contexts.
    fn item_seed(&self) -> u64 {
        self.seed
            .or(self.shuffle.map(|(_, seed)| seed))
            .unwrap_or(0)
    }

    /// Starts epoch `epoch` at `start`.
    fn start(&self, epoch: u64, start: Start) -> StreamIter<R, T, C, W> {
        let hung_up = Arc::new(AtomicBool::new(false));
        let plan = PullPlan {
            open: match &self.watch {
                None => Arc::clone(&self.open),
                Some(watch) => watched(&self.open, &watch.in_flight, epoch),
            },
            seek: match (&self.seek, &self.watch) {
                (Some(seek), Some(watch)) => Some(watched_seek(seek, &watch.in_flight, epoch)),
                (seek, _) => seek.clone(),
            },
            shards: self.shards(),
            cycle_length: self.cycle_length.get(),
            shuffle: self
                .shuffle
                .map(|(size, seed)| (size.get(), shuffle_rng(seed, epoch, size.get()))),
            start: Cursor::clone(&start.cursor),
            batch: self.batch_size.get(),
            window: self.window_items(),
            hung_up: Arc::clone(&hung_up),
        };
        let (send, windows) = std::sync::mpsc::sync_channel(1);
        let puller = thread::Builder::new()
            .name("foldex-stream-puller".into())
            .spawn(move || plan.run(&send))
            .expect("foldex-loader: failed to start the thread that pulls a stream");
        StreamIter::new(
            WindowSettings {
                windowing: Arc::clone(&self.windowing),
                item: PhantomData,
                collate: Arc::clone(&self.collate),
                executor: Arc::clone(&self.executor),
                batch_size: self.batch_size.get(),
                buffer: self.buffer.map(|buffer| buffer.min(MAX_BUFFER)),
                partial: self.partial,
                ordered: self.ordered,
                cost: Arc::clone(&self.cost),
                tuner: Arc::clone(&self.tuner),
                byte_cap: self.byte_cap.clone(),
                seed: self.item_seed(),
                watch: self.watch.clone(),
            },
            (epoch, start),
            windows,
            hung_up,
            puller,
        )
    }
}

impl<R, T, C, W> StreamLoader<R, T, C, W>
where
    C: Collate<T>,
    C::Batch: ByteSize + 'static,
{
    /// At most about `bytes` bytes of finished batches wait for the consumer, measured with
    /// [`ByteSize`] (as [`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes), which
    /// says what is guaranteed), in each window. The pulled items of the windows (see the
    /// module docs) are not counted. Set it after [`collate`](StreamLoader::collate).
    ///
    /// ```
    /// use foldex_loader::StreamLoader;
    /// use foldex_threaded::ThreadedEx;
    /// let loader = StreamLoader::new(|| 0..32u32, |&i: &u32| vec![i as u8; 4096], ThreadedEx::new().basesize(1))
    ///     .batch_size(2)
    ///     .max_buffer_bytes(16 << 10);
    /// let mut epoch = loader.iter();
    /// assert_eq!(epoch.by_ref().count(), 16);
    /// assert!(epoch.stats().peak_bytes <= (16 << 10) + 2 * epoch.stats().largest_batch_bytes);
    /// ```
    ///
    /// # Panics
    /// If `bytes` is 0: "max_buffer_bytes must be at least 1, got 0".
    #[track_caller]
    pub fn max_buffer_bytes(mut self, bytes: usize) -> Self {
        let bytes = ConfigError::require_nonzero("max_buffer_bytes", bytes);
        self.byte_cap = Some((bytes, measure_of::<C::Batch>()));
        self
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
