//! The producer side of one epoch: a fold through the executor whose step computes a batch and
//! pushes it into the epoch's [`Channel`].
//!
//! **Tickets.** The job's indices are *slots*, not batches: a slot takes the next batch number
//! from a shared counter (`tickets`), computes that batch, and goes on with the next number
//! until none is left. Batches are therefore started in
//! sequence order whatever order the executor runs its slots in (work stealing, chunks of
//! several slots, any custom executor). That is what makes the ordered window deadlock-free:
//! every batch below a producer's is already finished or being computed by a producer that does
//! not wait, so the batch the consumer needs next is always on its way.
//!
//! **Rounds.** A slot may leave its batch for later (see [`Channel::should_skip`]): on the
//! consumer's thread, which helps for one batch at most per call so that it goes back to
//! delivering, and on a worker while the consumer helps and the buffer is full, so that a
//! consumer waiting inside the executor's `help` for that worker never waits forever. The driver
//! runs the job again over the batches nobody took, until every batch is taken. Without helping
//! there is one round.

use crate::channel::Channel;
use crate::collate::Collate;
use crate::dataset::Dataset;
use crate::order::{Batches, EpochOrder};
use foldex_core::{Brand, Executor, Job, Partial};
use std::cell::Cell;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

thread_local! {
    /// Set while this thread is a loader's consumer lending itself to an executor (inside
    /// `Executor::help`). A batch computed here must never wait for room: this very thread is
    /// the one that makes room.
    static CONSUMER_HELPING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `help` with this thread marked as a helping consumer.
pub(crate) fn as_helping_consumer(help: impl FnOnce() -> bool) -> bool {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            CONSUMER_HELPING.with(|h| h.set(self.0));
        }
    }
    let _restore = Restore(CONSUMER_HELPING.with(|h| h.replace(true)));
    help()
}

fn on_helping_consumer() -> bool {
    CONSUMER_HELPING.with(Cell::get)
}

/// Everything the producers of one epoch share.
pub(crate) struct Epoch<D, C>
where
    D: Dataset,
    C: Collate<D::Item>,
{
    dataset: Arc<D>,
    collate: Arc<C>,
    order: EpochOrder,
    batches: Batches,
    /// The next batch number to hand out.
    tickets: AtomicUsize,
    channel: Arc<Channel<C::Batch>>,
}

impl<D, C> Epoch<D, C>
where
    D: Dataset,
    C: Collate<D::Item>,
{
    pub fn new(
        dataset: Arc<D>,
        collate: Arc<C>,
        order: EpochOrder,
        batches: Batches,
        channel: Arc<Channel<C::Batch>>,
    ) -> Self {
        Self {
            dataset,
            collate,
            order,
            batches,
            tickets: AtomicUsize::new(0),
            channel,
        }
    }

    /// How many batches nobody has taken yet.
    fn untaken(&self) -> usize {
        let count = self.batches.count();
        count - self.tickets.load(Ordering::Acquire).min(count)
    }

    /// Takes the next batch, computes it and pushes it; `false` when there was none to take
    /// (all taken, or left for a later round).
    fn run_batch(&self, on_consumer: bool) -> bool {
        let count = self.batches.count();
        let next = self.tickets.load(Ordering::Relaxed);
        if next >= count || self.channel.should_skip(next, on_consumer) {
            return false;
        }
        let k = self.tickets.fetch_add(1, Ordering::AcqRel);
        if k >= count {
            return false;
        }
        match panic::catch_unwind(AssertUnwindSafe(|| self.compute(k))) {
            Ok(Some(batch)) => {
                // `Err` means the epoch was stopped meanwhile; the batch is dropped here.
                let _ = self.channel.push(k, batch, !on_consumer);
            }
            Ok(None) => {}
            Err(payload) => self.channel.fail(payload),
        }
        true
    }

    fn all_taken(&self) -> bool {
        self.tickets.load(Ordering::Relaxed) >= self.batches.count()
    }

    /// Batch `k`, or `None` if the epoch was stopped while computing it.
    fn compute(&self, k: usize) -> Option<C::Batch> {
        let positions = self.batches.positions(k);
        if positions.len() == 1 {
            let item = self.dataset.get(self.order.get(positions.start));
            return Some(self.collate.collate_one(item));
        }
        let mut items = Vec::with_capacity(positions.len());
        for position in positions {
            if self.channel.is_stopped() {
                return None;
            }
            items.push(self.dataset.get(self.order.get(position)));
        }
        Some(self.collate.collate(items))
    }
}

/// One round of an epoch, as the job an executor runs: `len` slots.
struct Round<'e, D, C>
where
    D: Dataset,
    C: Collate<D::Item>,
{
    epoch: &'e Epoch<D, C>,
    len: usize,
    brand: Brand<()>,
    /// How many non-empty pieces the executor ran.
    pieces: AtomicUsize,
}

impl<'e, D, C> Job<'e> for Round<'e, D, C>
where
    D: Dataset,
    C: Collate<D::Item>,
    C::Batch: Send,
{
    fn len(&self) -> usize {
        self.len
    }

    /// A slot takes batches until none is left: the executor decides how many slots run at
    /// once and on which threads, and each running slot keeps its thread busy with one batch
    /// after another (one counter increment per batch, no task per batch). Once every batch is
    /// taken, the remaining slots return at once.
    fn run(&self, range: Range<usize>) -> Partial<'e> {
        let on_consumer = on_helping_consumer();
        if !range.is_empty() {
            self.pieces.fetch_add(1, Ordering::Relaxed);
            if on_consumer {
                // One batch per help call, so that the consumer goes back to delivering.
                self.epoch.run_batch(true);
            } else {
                while !self.epoch.channel.is_stopped() && self.epoch.run_batch(false) {}
            }
        }
        self.brand.wrap(())
    }

    fn combine(&self, _left: Partial<'e>, right: Partial<'e>) -> Partial<'e> {
        right
    }

    /// Stopped for everyone once the epoch is cancelled or failed, or every batch is taken; and
    /// always on a helping consumer's thread, so that an executor does not split or queue work
    /// from there (work the consumer would then have to wait for): it hands the piece to `run`
    /// whole, which computes one batch at most.
    fn is_stopped(&self, _from: usize) -> bool {
        self.epoch.channel.is_stopped() || self.epoch.all_taken() || on_helping_consumer()
    }
}

/// Starts the thread that runs the epoch's rounds through `executor`, then closes the channel.
pub(crate) fn spawn_driver<D, C>(
    epoch: Arc<Epoch<D, C>>,
    executor: Arc<dyn Executor>,
) -> JoinHandle<()>
where
    D: Dataset + 'static,
    C: Collate<D::Item> + 'static,
    C::Batch: Send + 'static,
{
    thread::Builder::new()
        .name("foldex-loader".into())
        .spawn(move || {
            let driven = panic::catch_unwind(AssertUnwindSafe(|| drive(&epoch, &*executor)));
            if let Err(payload) = driven {
                // The executor itself panicked (a bug in it): the consumer gets the payload.
                epoch.channel.fail(payload);
            }
            epoch.channel.close();
        })
        .expect("foldex-loader: failed to start the thread that drives an epoch")
}

fn drive<D, C>(epoch: &Epoch<D, C>, executor: &dyn Executor)
where
    D: Dataset,
    C: Collate<D::Item>,
    C::Batch: Send,
{
    loop {
        let len = epoch.untaken();
        if len == 0 || epoch.channel.is_stopped() {
            return;
        }
        let round = Round {
            epoch,
            len,
            brand: Brand::new(),
            pieces: AtomicUsize::new(0),
        };
        let partial = executor.execute(&round);
        round.brand.unwrap(partial);
        if round.pieces.load(Ordering::Relaxed) == 0 {
            // The executor ran nothing at all, and would not next time either: the consumer
            // learns from the closed channel that batches are missing.
            return;
        }
        if epoch.untaken() == len {
            // Nobody took a batch: every slot was left for later while the consumer was busy
            // with the ones already finished. Let it catch up before the next round.
            thread::yield_now();
        }
    }
}
