//! The consumer's side of an epoch: the iterator that takes batches out of the channel,
//! helps the executor while it waits, and stops the producers when it is dropped.

use super::mode::PoolHook;
use crate::buffer_tune::BufferTuner;
use crate::byte_gate::{ByteGate, Measure};
use crate::channel::{Channel, Failure, Inbox, Recv};
use crate::counted::counted;
use crate::error::IterError;
use crate::produce::Delivered;
use crate::stall::{LoadAt, Stalled, Watch};
use crate::state::{LoaderState, Received};
use crate::stats::{EpochTally, Stats};
use foldex_core::Executor;
use std::fmt;
use std::iter::FusedIterator;
use std::panic;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One epoch of a [`Loader`](crate::Loader): its batches, as they are loaded.
///
/// An [`ExactSizeIterator`] (progress bars work on it). Dropping it early cancels the epoch: no
/// new batch starts, producers waiting for room wake, and the drop returns once the batches in
/// progress have stopped; no thread of the epoch is left running. With a
/// [`Loader::timeout`](crate::Loader::timeout), the drop waits that long at most, and loads
/// still running then are abandoned (left to finish on their threads, counted in the stats).
///
/// A panic in the dataset's `get` or in `collate` reaches `next()` with its original payload,
/// after every batch before the one it happened in (that batch is not delivered) and after the
/// epoch's producers have stopped; the loader can start another epoch afterwards. Unordered,
/// batches after the failing one that finished first may come before the panic too.
pub struct Iter<B> {
    pub(super) channel: Arc<Channel<Delivered<B>>>,
    /// The parcel being handed out.
    pub(super) inbox: Inbox<Delivered<B>>,
    pub(super) driver: Option<JoinHandle<()>>,
    pub(super) executor: Arc<dyn Executor>,
    /// The epoch's buffer pool, when batches reuse buffers.
    pub(super) pool: Option<Arc<dyn PoolHook>>,
    pub(super) remaining: usize,
    /// The batches this epoch runs (fewer than the loader's when it resumes).
    pub(super) total: usize,
    /// The loader's timeout and the list of its running loads, if it has a timeout, and the
    /// epoch its loads are noted under (a stream loader's window: the stream's epoch).
    pub(super) watch: Option<(Watch, u64)>,
    /// What `next()` raised once it timed out.
    pub(super) stall: Option<Stalled>,
    /// How many of this epoch's loads were left running when it was abandoned.
    pub(super) abandoned: u64,
    pub(super) finished: bool,
    /// The observation whose load panicked, once the consumer has received that panic.
    pub(super) failed_index: Option<usize>,
    pub(super) received: Received,
    /// The state at the start of this epoch: what [`Iter::state`] completes.
    pub(super) fresh: LoaderState,
    pub(super) tally: EpochTally,
    /// The loader's buffer tuner and default buffer, when this epoch's buffer is the tuned
    /// default: a finished epoch teaches it.
    pub(super) tuner: Option<(Arc<BufferTuner>, usize)>,
    /// The byte cap, and how a batch is measured for it: each batch taken releases its bytes.
    pub(super) bytes: Option<(Arc<ByteGate>, Measure<B>)>,
}

impl<B> fmt::Debug for Iter<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("epoch", &self.fresh.epoch)
            .field("remaining", &self.remaining)
            .finish_non_exhaustive()
    }
}

impl<B> Iter<B> {
    /// The number of this epoch.
    pub fn epoch(&self) -> u64 {
        self.fresh.epoch
    }

    /// After `next()` re-raised a panic from the dataset's `get`, the index of the observation
    /// whose `get` panicked (`None` before that, or when the panic came from `collate`).
    ///
    /// ```
    /// use foldex_dataset::from_fn;
    /// use foldex_loader::Loader;
    /// use foldex_seq::SequentialEx;
    /// use std::panic::{catch_unwind, AssertUnwindSafe};
    ///
    /// let loader = Loader::new(from_fn(10, |i| if i == 7 { panic!("bad file") } else { i }), SequentialEx)
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
        let mut stats = self.tally.snapshot();
        if let Some(stalled) = &self.stall {
            stats.stalled.clone_from(&stalled.loading);
        }
        stats.abandoned = self.abandoned;
        stats
    }

    /// After `next()` raised a [`Stalled`] (see [`Loader::timeout`](crate::Loader::timeout)),
    /// what it raised.
    pub fn stalled(&self) -> Option<&Stalled> {
        self.stall.as_ref()
    }

    /// What the consumer has received of this epoch, as a small serializable value:
    /// [`Loader::resume`](crate::Loader::resume) continues from it with exactly the next batch.
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

    /// Waits for the next batch: polls, then helps the executor or sleeps; with a timeout,
    /// sleeps until `since` plus the timeout at most, and `None` when that passed.
    fn wait(&mut self, since: Instant) -> Option<Recv<Delivered<B>>> {
        if let Some(pool) = &self.pool {
            pool.ensure_progress();
        }
        match self.poll() {
            Recv::Empty => {
                if self.executor.is_worker_thread() {
                    self.finished = true;
                    panic!("{}", IterError::InsideExecutorPool);
                }
                match &self.watch {
                    None => {
                        let executor = &self.executor;
                        Some(self.channel.recv(&mut self.inbox, || executor.help()))
                    }
                    Some((watch, _)) => self
                        .channel
                        .recv_until(&mut self.inbox, since.checked_add(watch.timeout)),
                }
            }
            other => Some(other),
        }
    }

    /// `next()` waited the whole timeout: names the loads still running, abandons the epoch
    /// (see [`Iter::shut_down`]) and returns the error.
    #[cold]
    fn stalled_now(&mut self) -> Stalled {
        let (watch, epoch) = self.watch.as_ref().expect("only a timed wait times out");
        let stalled = watch.stalled(*epoch);
        self.stall = Some(stalled.clone());
        self.shut_down();
        stalled
    }

    /// Stops the producers and waits until they have; with a timeout, for the timeout at most
    /// (and not at all once it fired): then the epoch is abandoned, its driver and the loads
    /// still running left to finish on their own threads, and counted in the stats.
    fn shut_down(&mut self) {
        self.finished = true;
        self.remaining = 0;
        if let Some(driver) = self.driver.take() {
            self.channel.cancel();
            if let Some(pool) = &self.pool {
                pool.wake_all();
            }
            if let Some((gate, _)) = &self.bytes {
                gate.wake_all();
            }
            let Some((watch, epoch)) = &self.watch else {
                // The driver catches every panic it can meet; nothing is left to report here.
                let _ = driver.join();
                return;
            };
            let patience = if self.stall.is_some() {
                Duration::ZERO
            } else {
                watch.timeout
            };
            if finishes_within(&driver, patience) {
                let _ = driver.join();
                return;
            }
            // Dropping the handle detaches the driver: it closes the stopped channel and ends
            // once the executor's fold returns, that is once the stuck loads return.
            let running = watch
                .in_flight
                .running(|at, e| e == *epoch && !matches!(at, LoadAt::Pull { .. }));
            self.abandoned = running.len() as u64;
        }
    }
}

impl<B> Iterator for Iter<B> {
    type Item = B;

    fn next(&mut self) -> Option<B> {
        match self.try_next() {
            Ok(batch) => batch,
            // As a dataset's error under `ErrorPolicy::fail_fast`: the error is the payload.
            Err(stalled) => panic::resume_unwind(Box::new(stalled)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<B> Iter<B> {
    /// The next batch as [`Iterator::next`] gives it, but a stall (see
    /// [`Loader::timeout`](crate::Loader::timeout)) comes back as `Err` instead of a panic.
    /// A panic in the dataset still reaches this call as a panic. After the `Err`, the epoch
    /// is over: the next call returns `Ok(None)`.
    pub fn try_next(&mut self) -> Result<Option<B>, Stalled> {
        loop {
            if self.finished {
                return Ok(None);
            }
            // The clock is read only when the consumer has to wait: a batch that is ready
            // costs no timing at all.
            let received = match self.channel.try_recv(&mut self.inbox) {
                Recv::Empty => {
                    let since = Instant::now();
                    let received = self.wait(since);
                    self.tally.waited(since.elapsed());
                    match received {
                        Some(received) => received,
                        None => return Err(self.stalled_now()),
                    }
                }
                other => other,
            };
            match received {
                Recv::Item(delivered) => {
                    if let Some((gate, measure)) = &self.bytes {
                        gate.release(delivered.value.as_ref().map_or(0, |b| measure(b)));
                    }
                    self.remaining -= 1;
                    self.received.record(delivered.batch);
                    self.tally.delivered(delivered.items);
                    match delivered.value {
                        Some(batch) => return Ok(Some(batch)),
                        // An unbatched observation the error policy skipped.
                        None => continue,
                    }
                }
                Recv::Finished => {
                    self.shut_down();
                    if let Some((tuner, default)) = self.tuner.take() {
                        tuner.learn(&self.tally.snapshot(), default);
                    }
                    return Ok(None);
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
                        "foldex-loader: the executor returned after {delivered} of {} of \
                         epoch {}: it did not run every index of its job",
                        counted(total as u64, "batch", "batches"),
                        self.fresh.epoch
                    )
                }
                Recv::Empty => unreachable!("a blocking receive returns something"),
            }
        }
    }
}

/// Waits until `driver` has finished, for `patience` at most; whether it has. A patience too
/// long for the clock to name has no end: `true` at once, and the caller joins. Sleeps between looks, from 10µs doubling to 1ms,
/// so that an epoch that ends at once is not held up.
fn finishes_within(driver: &JoinHandle<()>, patience: Duration) -> bool {
    let Some(deadline) = Instant::now().checked_add(patience) else {
        return true;
    };
    let mut nap = Duration::from_micros(10);
    while !driver.is_finished() {
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        std::thread::sleep(nap.min(deadline - now));
        nap = (nap * 2).min(Duration::from_millis(1));
    }
    true
}

impl<B> ExactSizeIterator for Iter<B> {}

impl<B> FusedIterator for Iter<B> {}

impl<B> Drop for Iter<B> {
    fn drop(&mut self) {
        self.shut_down();
    }
}
