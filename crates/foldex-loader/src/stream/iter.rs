//! The [`StreamIter`]: one epoch of a stream loader, window after window.

use super::cursor::{Cursor, StreamSettings, StreamState};
use super::pull::{Pulled, Windows};
use super::window::{Computed, Windowing};
use crate::buffer_tune::BufferTuner;
use crate::loader::{AnyMeasure, Iter, Loader};
use crate::stall::{LoadAt, Stalled, Watch};
use crate::state::LoaderState;
use crate::stats::Stats;
use crate::transport::CostMeter;
use foldex_core::exec::{message, PanicPayload};
use foldex_core::Executor;
use foldex_dataset::Collate;
use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

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
pub(super) struct WindowSettings<T, C, W> {
    pub(super) windowing: Arc<W>,
    pub(super) item: PhantomData<fn() -> T>,
    pub(super) collate: Arc<C>,
    pub(super) executor: Arc<dyn Executor>,
    pub(super) batch_size: usize,
    pub(super) buffer: Option<usize>,
    pub(super) partial: bool,
    pub(super) ordered: bool,
    pub(super) cost: Arc<CostMeter>,
    pub(super) tuner: Arc<BufferTuner>,
    pub(super) seed: u64,
    /// The stream loader's timeout, if it has one.
    pub(super) watch: Option<Watch>,
    /// The byte cap of each window's loader, and the measure of its batches.
    pub(super) byte_cap: Option<(NonZeroUsize, AnyMeasure)>,
}

/// Where an epoch starts: the cursor of its first window and what was received of that window
/// (`next_batch`, `received_above`), all of it before it for a fresh epoch.
pub(super) struct Start {
    pub(super) settings: StreamSettings,
    pub(super) cursor: Arc<Cursor>,
    pub(super) received: (usize, Vec<usize>),
}

/// One window being delivered: its first stream position and its loader's epoch.
struct Running<B> {
    offset: usize,
    iter: Iter<B>,
}

/// One epoch of a [`StreamLoader`](crate::StreamLoader): its batches, as they are computed.
///
/// Dropping it early cancels the epoch (see the module doc of `StreamLoader` for what a
/// blocked stream does). A panic in `compute`, in `collate` or in a shard's iterator reaches
/// `next()` with its original payload, after the whole batches before the one it happened in
/// (that batch is not delivered, even when it would be the stream's short last one);
/// [`failed_position`](Self::failed_position) then says which item of the stream it was. A
/// panic elsewhere on the thread that pulls the stream is never taken for the stream's end:
/// after the windows it pulled, `next()` panics with a message that says so and quotes it.
pub struct StreamIter<R, T, C: Collate<T>, W = Computed<R, T>> {
    settings: WindowSettings<T, C, W>,
    epoch: u64,
    /// The stream's settings and, when no window is running, the cursor of the window
    /// delivered last (or to be delivered first) and what was received of it.
    at: Start,
    /// The next window to start is `at`'s, resumed after what was received of it.
    resuming: bool,
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
    /// What `next()` raised once it timed out, and the pulls it left running.
    stall: Option<(Stalled, u64)>,
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
    /// The epoch `epoch`, whose windows the puller thread `puller` sends through `windows`
    /// until `hung_up` tells it to stop.
    pub(super) fn new(
        settings: WindowSettings<T, C, W>,
        (epoch, at): (u64, Start),
        windows: Windows<R>,
        hung_up: Arc<AtomicBool>,
        puller: JoinHandle<()>,
    ) -> Self {
        Self {
            settings,
            epoch,
            resuming: at.received != (0, Vec::new()),
            at,
            windows: Some(windows),
            hung_up,
            puller: Some(puller),
            current: None,
            failure: None,
            failed_position: None,
            finished_stats: None,
            started: Instant::now(),
            stall: None,
        }
    }

    /// The number of this epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// After `next()` re-raised a panic, the stream position of the item whose `compute` or
    /// whose pulling panicked (`None` before that, for a panic in `collate`, or when the
    /// thread that pulls the stream died outside the stream's iterators).
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
        if let Some((stalled, pulls)) = &self.stall {
            stats.stalled.clone_from(&stalled.loading);
            stats.abandoned += pulls;
        }
        stats
    }

    /// What the consumer has received of this epoch, as a small serializable value:
    /// [`StreamLoader::resume`](crate::StreamLoader::resume) continues from it with exactly
    /// the next batch. See [`StreamState`] for what it holds.
    pub fn state(&self) -> StreamState {
        let (next_batch, received_above) = match &self.current {
            Some(running) => {
                let LoaderState {
                    next_batch,
                    received_above,
                    ..
                } = running.iter.state();
                (next_batch, received_above)
            }
            None => self.at.received.clone(),
        };
        StreamState {
            epoch: self.epoch,
            settings: self.at.settings.clone(),
            cursor: Cursor::clone(&self.at.cursor),
            next_batch,
            received_above,
        }
    }

    /// After `next()` raised a [`Stalled`] (see
    /// [`StreamLoader::timeout`](crate::StreamLoader::timeout)), what it raised.
    pub fn stalled(&self) -> Option<&Stalled> {
        self.stall.as_ref().map(|(stalled, _)| stalled)
    }

    /// The next batch as [`Iterator::next`] gives it, but a stall comes back as `Err` instead
    /// of a panic (see [`Iter::try_next`]).
    pub fn try_next(&mut self) -> Result<Option<C::Batch>, Stalled> {
        loop {
            if self.current.is_none() {
                self.current = self.start_window()?;
            }
            let Some(running) = &mut self.current else {
                if let Some((position, payload)) = self.failure.take() {
                    self.fail(Some(position), payload);
                }
                self.shut_down();
                return Ok(None);
            };
            let delivered = panic::catch_unwind(AssertUnwindSafe(|| running.iter.try_next()));
            match delivered {
                Ok(Ok(Some(batch))) => return Ok(Some(batch)),
                Ok(Ok(None)) => {
                    let done = self.current.take().expect("a window is running");
                    let state = done.iter.state();
                    self.at.received = (state.next_batch, state.received_above);
                    absorb(&mut self.finished_stats, done.iter.stats(), done.offset);
                }
                Ok(Err(stalled)) => {
                    // The window's loader has abandoned its loads; its figures say how many.
                    let done = self.current.take().expect("a window is running");
                    absorb(&mut self.finished_stats, done.iter.stats(), done.offset);
                    return Err(self.stalled_now(stalled));
                }
                Err(mut payload) => {
                    let position = running.iter.failed_index().map(|i| running.offset + i);
                    self.settings.windowing.place(&mut payload, running.offset);
                    self.fail(position, payload);
                }
            }
        }
    }

    /// The epoch stalled with `stalled`: it is abandoned, the puller with it (not waited for),
    /// and the pulls still running counted.
    #[cold]
    fn stalled_now(&mut self, stalled: Stalled) -> Stalled {
        let epoch = self.epoch;
        let pulls = self.settings.watch.as_ref().map_or(0, |watch| {
            let running = watch
                .in_flight
                .running(|at, e| e == epoch && matches!(at, LoadAt::Pull { .. }));
            running.len() as u64
        });
        self.stall = Some((stalled.clone(), pulls));
        self.shut_down();
        stalled
    }

    /// The next window's loader, started; `None` at the end of the stream or at its failure,
    /// `Err` when the puller sent nothing within the timeout.
    fn start_window(&mut self) -> Result<Option<Running<C::Batch>>, Stalled> {
        let Some(windows) = self.windows.as_ref() else {
            return Ok(None);
        };
        let pulled = match &self.settings.watch {
            None => windows.recv().map_err(|_| ()),
            Some(watch) => match windows.recv_timeout(watch.timeout) {
                Ok(pulled) => Ok(pulled),
                Err(RecvTimeoutError::Disconnected) => Err(()),
                Err(RecvTimeoutError::Timeout) => {
                    let stalled = watch.stalled(self.epoch);
                    return Err(self.stalled_now(stalled));
                }
            },
        };
        Ok(match pulled {
            Ok(Pulled::Window { start, items }) => {
                let offset = start.offset;
                self.at.cursor = start;
                let received = std::mem::take(&mut self.at.received);
                let s = &self.settings;
                let window = s.windowing.window(items);
                let mut loader = Loader::new(window, Arc::clone(&s.executor))
                    .watched_by(s.watch.as_ref())
                    .collate(SharedCollate(Arc::clone(&s.collate)))
                    .batch_size(s.batch_size)
                    .partial(s.partial)
                    .ordered(s.ordered)
                    .learning_in(&s.cost, &s.tuner)
                    .window_of_stream((self.epoch, offset), s.seed);
                if let Some(buffer) = s.buffer {
                    loader = loader.buffer(buffer);
                }
                if let Some((bytes, measure)) = &s.byte_cap {
                    loader = loader.with_byte_cap(*bytes, Arc::clone(measure));
                }
                let iter = if std::mem::take(&mut self.resuming) {
                    let (next_batch, received_above) = received;
                    let state = LoaderState {
                        next_batch,
                        received_above,
                        ..loader.initial_state(0)
                    };
                    match loader.resume(&state) {
                        Ok(iter) => iter,
                        Err(e) => {
                            let why = format!(
                                "foldex-loader: cannot resume the stream's window at position \
                                 {offset}: {e} (the shards changed since the state was taken)"
                            );
                            self.fail(None, Box::new(why))
                        }
                    }
                } else {
                    loader.iter()
                };
                Some(Running { offset, iter })
            }
            Ok(Pulled::Failed { position, payload }) => {
                self.failure = Some((position, payload));
                self.windows = None;
                None
            }
            Err(_) => {
                // The puller hung up: it returned at the end of the stream, or it panicked
                // outside the stream's iterators (those panics come as `Failed`), and the
                // epoch is not whole.
                self.windows = None;
                let died = self.puller.take().and_then(|puller| puller.join().err());
                if let Some(payload) = died {
                    let why = format!(
                        "foldex-loader: the thread that pulls the stream panicked ({}); the \
                         epoch ends there, the rest of its stream not delivered",
                        message(&*payload)
                    );
                    self.fail(None, Box::new(why));
                }
                None
            }
        })
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
        if self.puller.as_ref().is_some_and(JoinHandle::is_finished)
            && let Some(puller) = self.puller.take()
        {
            // A panic of its own is not raised over the one being raised; at the end of the
            // stream, `start_window` joined it already.
            let _ = puller.join();
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
        match self.try_next() {
            Ok(batch) => batch,
            Err(stalled) => panic::resume_unwind(Box::new(stalled)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use foldex_dataset::VecCollate;
    use foldex_seq::SequentialEx;
    use std::sync::mpsc::sync_channel;

    #[test]
    fn a_puller_that_dies_is_not_read_as_the_end_of_the_stream() {
        let (send, windows) = sync_channel::<Pulled<usize>>(1);
        let puller = std::thread::spawn(move || {
            let first = Pulled::Window {
                start: Arc::new(Cursor::first(2, None)),
                items: vec![1, 2, 3],
            };
            assert!(send.send(first).is_ok());
            panic!("the puller broke");
        });
        let settings = WindowSettings {
            windowing: Arc::new(Computed(Arc::new(|&x: &usize| x))),
            item: PhantomData,
            collate: Arc::new(VecCollate),
            executor: Arc::new(SequentialEx),
            batch_size: 2,
            buffer: None,
            partial: true,
            ordered: true,
            cost: Arc::default(),
            tuner: Arc::default(),
            seed: 0,
            watch: None,
            byte_cap: None,
        };
        let hung_up = Arc::new(AtomicBool::new(false));
        let at = Start {
            settings: StreamSettings {
                shards: 1,
                shard: (0, 1),
                interleave: 1,
                shuffle: None,
                batch_size: 2,
                seed: 0,
            },
            cursor: Arc::new(Cursor::first(2, None)),
            received: (0, Vec::new()),
        };
        let mut epoch = StreamIter::new(settings, (0, at), windows, hung_up, puller);
        assert_eq!(epoch.next(), Some(vec![1, 2]));
        assert_eq!(epoch.next(), Some(vec![3]));
        let caught = panic::catch_unwind(AssertUnwindSafe(|| epoch.next()));
        let payload = caught.expect_err("the puller's death reaches the consumer");
        let message = foldex_core::exec::message(&*payload);
        assert!(
            message.contains("the thread that pulls the stream panicked")
                && message.contains("the puller broke"),
            "{message}"
        );
        assert_eq!(epoch.failed_position(), None);
    }
}
