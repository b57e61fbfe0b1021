//! [`FoldexDataLoader`]: burn's `DataLoader` trait over a foldex [`Loader`], and its builder.
//!
//! burn's training loop (`Learner`) calls `to_device` (or `slice`, to split the data among
//! devices) once, before training, and then `iter` once per epoch on what it got back. A
//! foldex `Loader` cannot change its device or dataset once built, so both build a new loader
//! with the same settings; it goes on with the epoch numbers (and so the shuffles) where the
//! loader it came from stands, through [`Loader::epoch_start`] and [`Loader::resume`]. A
//! loader and its `to_device` copies share one [`Record`] of the latest epoch, so that the
//! handle the user kept reports the state and stats of the epochs the training loop ran.

use crate::collate::BatcherCollate;
use crate::dataset::{FromBurn, Window};
use crate::iter::{BurnIter, Record};
use crate::policy::{checked, Policed};
use burn::data::dataloader::batcher::Batcher;
use burn::data::dataloader::{DataLoader, DataLoaderIterator};
use burn::data::dataset::{Dataset as BurnDataset, DatasetError};
use burn::tensor::Device;
use foldex_core::{ConfigError, Executor};
use foldex_loader::{Checked, ErrorPolicy, Iter, Loader, LoaderState, ResumeError, Stats};
use foldex_seq::SequentialEx;
use foldex_threaded::ThreadedEx;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// What the next `iter` runs.
enum Next<O> {
    /// The loader's next epoch.
    Fresh,
    /// The epoch this state describes, from where it stands.
    Resume(LoaderState),
    /// An epoch [`FoldexDataLoader::resume_from`] started.
    Started(Box<Iter<Result<O, DatasetError>>>),
}

/// Everything a loader is built from: what `to_device` and `slice` build another from.
struct Recipe<I, O> {
    window: Window<I>,
    batcher: Arc<dyn Batcher<I, O>>,
    executor: Arc<dyn Executor>,
    batch_size: usize,
    shuffle: Option<u64>,
    buffer: Option<usize>,
    policy: Option<ErrorPolicy>,
    device: Device,
}

impl<I, O> Clone for Recipe<I, O> {
    fn clone(&self) -> Self {
        Self {
            window: self.window.clone(),
            batcher: Arc::clone(&self.batcher),
            executor: Arc::clone(&self.executor),
            batch_size: self.batch_size,
            shuffle: self.shuffle,
            buffer: self.buffer,
            policy: self.policy,
            device: self.device.clone(),
        }
    }
}

type BurnLoader<I, O> = Loader<Checked<Policed<I>>, BatcherCollate<I, O>>;

impl<I: 'static, O> Recipe<I, O> {
    fn loader(&self) -> BurnLoader<I, O> {
        let dataset = checked(self.window.clone(), self.policy);
        let loader = Loader::new(dataset, Arc::clone(&self.executor))
            .batch_size(self.batch_size)
            .collate(BatcherCollate {
                batcher: Arc::clone(&self.batcher),
                device: self.device.clone(),
            });
        let loader = match self.shuffle {
            Some(seed) => loader.shuffle(seed),
            None => loader,
        };
        match self.buffer {
            Some(buffer) => loader.buffer(buffer),
            None => loader,
        }
    }
}

/// Builds a [`FoldexDataLoader`], with the settings of burn's `DataLoaderBuilder` (a batcher,
/// `batch_size`, `shuffle`, `num_workers`, `set_device`) and foldex's (any `executor`, a
/// `buffer`, an error policy: [`errors`](Self::errors)).
///
/// ```
/// use burn::data::dataloader::DataLoader;
/// use burn::data::dataloader::batcher::Batcher;
/// use burn::data::dataset::InMemDataset;
/// use burn::tensor::Device;
/// use foldex_burn::FoldexDataLoaderBuilder;
///
/// #[derive(Clone)]
/// struct Sum;
/// impl Batcher<u32, u32> for Sum {
///     fn batch(&self, items: Vec<u32>, _device: &Device) -> u32 {
///         items.iter().sum()
///     }
/// }
///
/// let loader = FoldexDataLoaderBuilder::new(Sum)
///     .batch_size(4)
///     .shuffle(42)
///     .num_workers(2)
///     .build(InMemDataset::new((0..10).collect()));
/// let total: u32 = loader.iter().map(|batch| batch.unwrap()).sum();
/// assert_eq!(total, 45);
/// assert_eq!(loader.num_items(), 10);
/// ```
pub struct FoldexDataLoaderBuilder<I, O> {
    batcher: Arc<dyn Batcher<I, O>>,
    executor: Option<Arc<dyn Executor>>,
    batch_size: usize,
    shuffle: Option<u64>,
    buffer: Option<usize>,
    policy: Option<ErrorPolicy>,
    device: Option<Device>,
}

impl<I, O> fmt::Debug for FoldexDataLoaderBuilder<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldexDataLoaderBuilder")
            .field("batch_size", &self.batch_size)
            .field("shuffle", &self.shuffle)
            .field("buffer", &self.buffer)
            .field("policy", &self.policy)
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

impl<I: Send + 'static, O: Send + 'static> FoldexDataLoaderBuilder<I, O> {
    /// A builder whose batches `batcher` makes: batches of one item, in the dataset's order,
    /// on one background thread, on the default device.
    pub fn new(batcher: impl Batcher<I, O> + 'static) -> Self {
        Self {
            batcher: Arc::new(batcher),
            executor: None,
            batch_size: 1,
            shuffle: None,
            buffer: None,
            policy: None,
            device: None,
        }
    }

    /// `batch_size` items per batch; the last batch of an epoch may be shorter.
    ///
    /// # Panics
    /// If `batch_size` is 0: "batch_size must be at least 1, got 0".
    #[track_caller]
    pub fn batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = ConfigError::require_nonzero("batch_size", batch_size).get();
        self
    }

    /// Shuffles every epoch: epoch `e` visits the items in an order drawn from `(seed, e)`
    /// alone, the same for any executor and number of workers, and another every epoch.
    pub fn shuffle(mut self, seed: u64) -> Self {
        self.shuffle = Some(seed);
        self
    }

    /// Loads on `num_workers` threads of a pool of the loader's own (a
    /// `ThreadedEx::new().threads(num_workers).basesize(1)`), or, for 0, on the thread that
    /// iterates, as burn's builder does. Replaces [`executor`](Self::executor).
    ///
    /// # Panics
    /// If the operating system refuses a thread, or `num_workers` is over foldex-threaded's
    /// `MAX_THREADS`, with that crate's message.
    #[track_caller]
    pub fn num_workers(self, num_workers: usize) -> Self {
        if num_workers == 0 {
            self.executor(SequentialEx)
        } else {
            self.executor(ThreadedEx::new().threads(num_workers).basesize(1))
        }
    }

    /// Loads on `executor`: any foldex executor, `Arc<dyn Executor>` included (one pool may
    /// then serve several loaders). Replaces [`num_workers`](Self::num_workers).
    pub fn executor(mut self, executor: impl Executor + 'static) -> Self {
        self.executor = Some(Arc::new(executor));
        self
    }

    /// At most `buffer` finished batches wait for the training loop (by default twice the
    /// executor's workers; see `Loader::buffer`).
    ///
    /// # Panics
    /// If `buffer` is 0: "buffer must be at least 1, got 0".
    #[track_caller]
    pub fn buffer(mut self, buffer: usize) -> Self {
        self.buffer = Some(ConfigError::require_nonzero("buffer", buffer).get());
        self
    }

    /// What the loader does with an item the dataset fails to get, under foldex-loader's
    /// `policy` (its `Checked` loads the items):
    ///
    /// - without this setting, the batch that holds the item is an `Err` naming its index
    ///   ("observation 6 failed to load: ...": a `foldex_dataset::ItemError` whose `source` is
    ///   the dataset's error), and the epoch goes on (burn's training loop stops the run at
    ///   the first `Err`);
    /// - [`ErrorPolicy::fail_fast`]: the epoch ends: after the batches before the item's,
    ///   the iterator yields that `Err`, then `None` (burn's training loop stops the run at an
    ///   `Err`);
    /// - [`ErrorPolicy::skip`]: the item is left out of its batch (a batch left with none is
    ///   left out: the batcher is never called with no items) and recorded with its error in
    ///   the epoch's [`Stats::skipped`];
    /// - [`ErrorPolicy::retry`]`(n)`: the item is tried again up to `n` times (counted in
    ///   [`Stats::retries`]), then fails fast, or is skipped with `.then_skip()`.
    ///
    /// An index names the item in the loader's items (a `slice` counts from its start).
    /// Progress counts the epoch's items, skipped ones included.
    ///
    /// ```
    /// use burn::data::dataloader::DataLoader;
    /// use foldex_burn::{FeatureBatcher, FoldexDataLoaderBuilder, TryToBurn};
    /// use foldex_loader::ErrorPolicy;
    ///
    /// // Item 3 is a corrupt file.
    /// let files = TryToBurn::new(foldex_dataset::from_fn(8, |i| {
    ///     if i == 3 { Err(std::fmt::Error) } else { Ok((vec![i as f32], 0)) }
    /// }));
    /// let loader = FoldexDataLoaderBuilder::new(FeatureBatcher)
    ///     .batch_size(4)
    ///     .errors(ErrorPolicy::retry(2).then_skip())
    ///     .build(files);
    /// let sizes: Vec<usize> = loader.iter().map(|b| b.unwrap().targets.dims()[0]).collect();
    /// assert_eq!(sizes, vec![3, 4]);
    /// let stats = loader.stats().unwrap();
    /// assert_eq!((stats.skipped[0].index, stats.retries), (3, 2));
    /// ```
    pub fn errors(mut self, policy: ErrorPolicy) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Makes the batches on `device` (the batcher receives it).
    pub fn set_device(mut self, device: Device) -> Self {
        self.device = Some(device);
        self
    }

    /// The loader of a burn dataset.
    pub fn build(self, dataset: impl BurnDataset<I> + 'static) -> FoldexDataLoader<I, O> {
        self.build_foldex(FromBurn::new(dataset))
    }

    /// The loader of a foldex dataset of results, such as a [`FromBurn`] (or a plain one
    /// mapped with `Ok`).
    pub fn build_foldex(
        self,
        dataset: impl foldex_dataset::Dataset<Item = Result<I, DatasetError>> + 'static,
    ) -> FoldexDataLoader<I, O> {
        let len = dataset.len();
        let recipe = Recipe {
            window: Window {
                dataset: Arc::new(dataset),
                start: 0,
                len,
            },
            batcher: self.batcher,
            executor: self
                .executor
                .unwrap_or_else(|| Arc::new(ThreadedEx::new().threads(1).basesize(1))),
            batch_size: self.batch_size,
            shuffle: self.shuffle,
            buffer: self.buffer,
            policy: self.policy,
            device: self.device.unwrap_or_default(),
        };
        FoldexDataLoader::from_recipe(recipe, Arc::default(), Next::Fresh)
    }
}

/// burn's `DataLoader` over a foldex [`Loader`]: give it to burn's `Learner` (as an
/// `Arc<dyn DataLoader<O>>`) or iterate it in a loop of your own.
///
/// Each `iter` is an epoch of the foldex loader: its batches computed in parallel on the
/// executor's threads, delivered in the epoch's order, the shuffle a function of
/// `(seed, epoch)` only. Keep a clone of the `Arc` you give the training loop:
/// [`state`](FoldexDataLoader::state) says where it stands in the current epoch, to save
/// beside burn's checkpoint, and [`resume_from`](FoldexDataLoader::resume_from) continues from it after a
/// restart; [`stats`](FoldexDataLoader::stats) are the latest epoch's diagnostics.
///
/// Built by [`FoldexDataLoaderBuilder`].
pub struct FoldexDataLoader<I, O> {
    loader: BurnLoader<I, O>,
    recipe: Recipe<I, O>,
    record: Arc<Mutex<Record>>,
    next: Mutex<Next<O>>,
}

impl<I, O> fmt::Debug for FoldexDataLoader<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FoldexDataLoader")
            .field("loader", &self.loader)
            .field("device", &self.recipe.device)
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<I: Send + 'static, O: Send + 'static> FoldexDataLoader<I, O> {
    /// A builder whose batches `batcher` makes.
    pub fn builder(batcher: impl Batcher<I, O> + 'static) -> FoldexDataLoaderBuilder<I, O> {
        FoldexDataLoaderBuilder::new(batcher)
    }

    fn from_recipe(recipe: Recipe<I, O>, record: Arc<Mutex<Record>>, next: Next<O>) -> Self {
        Self {
            loader: recipe.loader(),
            recipe,
            record,
            next: Mutex::new(next),
        }
    }

    /// Where the consumer of the latest epoch stands (`None` before any): save it beside
    /// burn's checkpoint, and give it to [`resume_from`](Self::resume_from) after a restart.
    /// The latest epoch of this loader or of its `to_device` copies, which share it.
    pub fn state(&self) -> Option<LoaderState> {
        lock(&self.record).state.clone()
    }

    /// The diagnostics of the latest epoch that ended or was dropped (`None` before any):
    /// what was delivered, where the time went, and a verdict (`Display` prints one line).
    pub fn stats(&self) -> Option<Stats> {
        lock(&self.record).stats.clone()
    }

    /// The device the batches are made on.
    pub fn device(&self) -> &Device {
        &self.recipe.device
    }

    /// The epoch a loader made from this one starts with: the one after the latest epoch of
    /// this loader and of the copies it shares its record with.
    fn continued_epoch(&self) -> u64 {
        let recorded = lock(&self.record)
            .state
            .as_ref()
            .map_or(0, |s| s.epoch.saturating_add(1));
        recorded.max(self.loader.next_epoch())
    }

    /// The next `iter` continues the epoch `state` describes with exactly the batch after
    /// what was received (the iterations after it run the epochs after it), and so do the
    /// loaders `to_device` makes of this one before that `iter`. The epoch starts loading now.
    ///
    /// A state of other settings (seed, batch size, length) is refused with the
    /// [`ResumeError`] that names the mismatch.
    ///
    /// # Panics
    /// On a worker thread of the loader's executor (see `Loader::resume`).
    pub fn resume_from(&self, state: &LoaderState) -> Result<(), ResumeError> {
        let epoch = self.loader.resume(state)?;
        *lock(&self.next) = Next::Started(Box::new(epoch));
        Ok(())
    }

    /// What a loader made from this one runs first: the same resumption, or the epoch after
    /// the latest one. An epoch that [`resume_from`](Self::resume_from) started here stops
    /// (this loader resumes it again if it is iterated): the training loop iterates the copy.
    fn handed_on(&self, with: &BurnLoader<I, O>) -> Next<O> {
        let mut next = lock(&self.next);
        let started = match &*next {
            Next::Started(epoch) => Some(epoch.state()),
            _ => None,
        };
        if let Some(state) = started {
            *next = Next::Resume(state);
        }
        if let Next::Resume(state) = &*next {
            return Next::Resume(state.clone());
        }
        drop(next);
        match self.continued_epoch() {
            0 => Next::Fresh,
            epoch => Next::Resume(with.epoch_start(epoch)),
        }
    }
}

impl<I: Send + 'static, O: Send + 'static> DataLoader<O> for FoldexDataLoader<I, O> {
    /// Starts the next epoch (or the resumed one).
    ///
    /// # Panics
    /// As `Loader::iter`: on a worker thread of the loader's executor.
    fn iter<'a>(&'a self) -> Box<dyn DataLoaderIterator<O> + 'a> {
        let next = std::mem::replace(&mut *lock(&self.next), Next::Fresh);
        let epoch = match next {
            Next::Fresh => self.loader.iter(),
            // Made by this crate from a state of the same settings: never refused.
            Next::Resume(state) => self.loader.resume(&state).unwrap_or_else(|e| panic!("{e}")),
            Next::Started(epoch) => *epoch,
        };
        Box::new(BurnIter::new(epoch, Arc::clone(&self.record)))
    }

    fn num_items(&self) -> usize {
        self.recipe.window.len
    }

    /// The same loader making its batches on `device`; it shares this one's record of the
    /// latest epoch, and goes on with its epochs (or its resumption).
    fn to_device(&self, device: &Device) -> Arc<dyn DataLoader<O>> {
        let recipe = Recipe {
            device: device.clone(),
            ..self.recipe.clone()
        };
        let loader = recipe.loader();
        let next = self.handed_on(&loader);
        Arc::new(Self {
            loader,
            recipe,
            record: Arc::clone(&self.record),
            next: Mutex::new(next),
        })
    }

    /// The loader of items `start..end` of this one's dataset (in the dataset's order, before
    /// shuffling), with the same settings, going on with this one's epoch numbers; it keeps a
    /// record of its own.
    ///
    /// # Panics
    /// If `start > end` or `end` is past [`num_items`](DataLoader::num_items), naming both.
    fn slice(&self, start: usize, end: usize) -> Arc<dyn DataLoader<O>> {
        let len = self.recipe.window.len;
        assert!(
            start <= end && end <= len,
            "slice {start}..{end} is not within the loader's {len} items"
        );
        let recipe = Recipe {
            window: Window {
                dataset: Arc::clone(&self.recipe.window.dataset),
                start: self.recipe.window.start + start,
                len: end - start,
            },
            ..self.recipe.clone()
        };
        let loader = recipe.loader();
        let next = match self.continued_epoch() {
            0 => Next::Fresh,
            epoch => Next::Resume(loader.epoch_start(epoch)),
        };
        Arc::new(Self {
            loader,
            recipe,
            record: Arc::default(),
            next: Mutex::new(next),
        })
    }
}
