//! The consumer's side of an epoch: the iterator that takes batches out of the channel,
//! helps the executor while it waits, and stops the producers when it is dropped.

use super::mode::PoolHook;
use crate::buffer_tune::BufferTuner;
use crate::byte_gate::{ByteGate, Measure};
use crate::channel::{Channel, Failure, Inbox, Recv};
use crate::counted::counted;
use crate::error::IterError;
use crate::produce::Delivered;
use crate::state::{LoaderState, Received};
use crate::stats::{EpochTally, Stats};
use foldex_core::Executor;
use std::fmt;
use std::iter::FusedIterator;
use std::panic;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// One epoch of a [`Loader`](crate::Loader): its batches, as they are loaded.
///
/// An [`ExactSizeIterator`] (progress bars work on it). Dropping it early cancels the epoch: no
/// new batch starts, producers waiting for room wake, and the drop returns once the batches in
/// progress have stopped; no thread of the epoch is left running.
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
        self.tally.snapshot()
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

    /// Waits for the next batch: polls, then helps the executor or sleeps.
    fn wait(&mut self) -> Recv<Delivered<B>> {
        if let Some(pool) = &self.pool {
            pool.ensure_progress();
        }
        match self.poll() {
            Recv::Empty => {
                if self.executor.is_worker_thread() {
                    self.finished = true;
                    panic!("{}", IterError::InsideExecutorPool);
                }
                let executor = &self.executor;
                self.channel.recv(&mut self.inbox, || executor.help())
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
            if let Some(pool) = &self.pool {
                pool.wake_all();
            }
            if let Some((gate, _)) = &self.bytes {
                gate.wake_all();
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
                    self.tally.waited(since.elapsed());
                    received
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
                        Some(batch) => return Some(batch),
                        // An unbatched observation the error policy skipped.
                        None => continue,
                    }
                }
                Recv::Finished => {
                    self.shut_down();
                    if let Some((tuner, default)) = self.tuner.take() {
                        tuner.learn(&self.tally.snapshot(), default);
                    }
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
