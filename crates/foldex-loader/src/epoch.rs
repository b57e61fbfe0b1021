//! The producer side of one epoch: a fold through the executor whose step computes a batch and
//! pushes it into the epoch's [`Channel`].
//!
//! **Tickets.** The job's indices are *turns*, not batches: a turn takes the next ticket from a
//! shared counter (`tickets`), computes that ticket's batches, and goes on with the next ticket
//! until none is left. A ticket stands for one batch, or for a parcel of consecutive batches when
//! batches are cheap (see `transport.rs`; below, "batch" then reads "parcel"). Batches are
//! therefore started in sequence order whatever order the executor runs its turns in (work
//! stealing, chunks of several turns, any custom executor), which is what keeps an epoch from
//! deadlocking (the argument is in `channel/mod.rs`).
//!
//! **Rounds.** A turn on a helping thread (the consumer inside `Executor::help`, or a pool worker
//! that runs it while it waits for a fold nested in a batch: `Job::run_while_waiting`) may
//! leave its batch for later (see [`Channel::should_skip`]): it makes one batch at most per call,
//! and none when a batch is ready, so that the consumer goes back to delivering, or when there is
//! no room, except that the consumer itself may keep one batch beyond the window (it is the thread
//! that makes room, and would otherwise only wait). Turns on other threads never skip; they wait
//! for room, which is safe because `Executor::help` never waits for them. If the executor's fold
//! returns with batches nobody took, the driver runs the job again over those, until every batch is
//! taken. Without helping there is one round.

use crate::byte_gate::{ByteGate, Measure};
use crate::channel::{Channel, Failure, Lead, Maker};
use crate::elastic::Deal;
use crate::loadable::LoadContext;
use crate::loading::{clear_loading, take_loading};
use crate::order::{Batches, EpochOrder};
use crate::produce::{Delivered, Produce};
use crate::stall::{InFlight, Naming};
use crate::state::Schedule;
use crate::stats::{Recorder, Run};
use crate::transport::{CostMeter, MAX_PARCEL};
use foldex_core::exec::PanicPayload;
use foldex_core::{Brand, Caller, Executor, Job, Partial};
use std::collections::HashSet;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle, ThreadId};
use std::time::Instant;

/// Everything the producers of one epoch share.
pub(crate) struct Epoch<P: Produce> {
    producer: P,
    order: EpochOrder,
    /// Which positions of the order this rank loads.
    deal: Deal,
    batches: Batches,
    /// Which batches this epoch runs (all of them, unless it resumes an earlier one).
    schedule: Schedule,
    /// How many batches the schedule runs.
    count: usize,
    /// Batches per ticket (a parcel); the last ticket may have fewer.
    parcel: usize,
    /// How many tickets there are: `count / parcel`, rounded up.
    ticket_count: usize,
    /// The next ticket to hand out: ticket `t` holds batches `schedule.batch(t * parcel ..)`.
    tickets: AtomicUsize,
    channel: Arc<Channel<Delivered<P::Out>>>,
    recorder: Arc<Recorder>,
    /// Where producers note what a batch costs, for the next epoch's parcel size.
    cost: Arc<CostMeter>,
    /// Time each run of batches (two clock readings per run).
    timing: bool,
    /// What each load's [`ItemContext`](foldex_dataset::ItemContext) says besides its index.
    items: ItemPlan,
    /// Which worker numbers ran `items.init` (each number is one thread's, but the last one
    /// when more threads produce than the recorder has room for).
    initialised: Box<[AtomicBool]>,
    /// The threads sharing the last worker number that ran `items.init`.
    overflow: Mutex<HashSet<ThreadId>>,
    /// The byte cap, and how a batch is measured for it (`byte_gate.rs`).
    bytes: Option<(Arc<ByteGate>, Measure<P::Out>)>,
}

/// What runs on a thread before its first load of an epoch: [`Loader::worker_init`](crate::Loader::worker_init).
pub(crate) type WorkerInit = dyn Fn(usize) + Send + Sync;

/// The epoch's part of every [`ItemContext`](foldex_dataset::ItemContext) (its number, the loader's
/// seed), and the loader's `worker_init`.
pub(crate) struct ItemPlan {
    pub epoch: u64,
    /// Added to each index: a stream loader's window starts at this stream position.
    pub offset: usize,
    pub seed: u64,
    pub init: Option<Arc<WorkerInit>>,
    /// With a timeout: where loads are noted, and what names them (see `stall.rs`).
    pub watch: Option<(Arc<InFlight>, Naming)>,
}

/// An epoch's settings, for [`Epoch::new`].
pub(crate) struct Plan<P> {
    pub order: EpochOrder,
    pub deal: Deal,
    pub batches: Batches,
    pub schedule: Schedule,
    /// Batches per parcel: 1, or up to [`MAX_PARCEL`] for producers that allow it.
    pub parcel: usize,
    pub cost: Arc<CostMeter>,
    pub timing: bool,
    pub items: ItemPlan,
    /// The byte cap (batches then travel one by one), and how a batch is measured for it.
    pub bytes: Option<(Arc<ByteGate>, Measure<P>)>,
}

impl<P: Produce> Epoch<P> {
    pub fn new(
        producer: P,
        plan: Plan<P::Out>,
        channel: Arc<Channel<Delivered<P::Out>>>,
        recorder: Arc<Recorder>,
    ) -> Self {
        let count = plan.schedule.count(plan.batches.count());
        debug_assert!(plan.parcel == 1 || (P::PARCELS && plan.parcel <= MAX_PARCEL));
        debug_assert!(plan.parcel == 1 || plan.bytes.is_none());
        Self {
            producer,
            order: plan.order,
            deal: plan.deal,
            batches: plan.batches,
            schedule: plan.schedule,
            count,
            parcel: plan.parcel,
            ticket_count: count.div_ceil(plan.parcel),
            tickets: AtomicUsize::new(0),
            channel,
            cost: plan.cost,
            timing: plan.timing,
            items: plan.items,
            initialised: (0..recorder.room())
                .map(|_| AtomicBool::new(false))
                .collect(),
            overflow: Mutex::default(),
            recorder,
            bytes: plan.bytes,
        }
    }

    /// How many tickets nobody has taken yet.
    fn untaken(&self) -> usize {
        self.ticket_count - self.tickets.load(Ordering::Acquire).min(self.ticket_count)
    }

    /// Takes the next ticket, computes its batches and pushes them; `false` when there was
    /// none to take (all taken, or left for a later round).
    fn run_ticket(&self, maker: Maker, run: &mut Run<'_>) -> bool {
        let helping = maker != Maker::Producer;
        let count = self.ticket_count;
        let next = self.tickets.load(Ordering::Relaxed);
        if next >= count || self.channel.is_stopping() {
            return false;
        }
        // The lead (ordered parcels only) makes its parcel whether there is room for it or not,
        // and sets it aside if not; the others ask first.
        let lead = if helping { None } else { self.channel.lead() };
        if lead.is_none() && self.channel.should_skip(next, maker) {
            return false;
        }
        // A helping thread cannot wait for the byte cap: it reserves room first (`byte_gate.rs`).
        let room = match &self.bytes {
            Some((gate, _)) if helping => match gate.reserve() {
                Some(room) => Some(room),
                None => return false,
            },
            _ => None,
        };
        // The buffer comes before the ticket, so that the batch the consumer needs next never
        // waits for one (see `buffer_pool.rs`). A helping thread never waits for a buffer.
        let channel = &self.channel;
        let may_wait = || !helping && !channel.is_stopping();
        let Some(buffer) = self.producer.buffer(may_wait) else {
            return false;
        };
        let t = self.tickets.fetch_add(1, Ordering::AcqRel);
        // A failure meanwhile cut the epoch below `t`: the batch is not needed.
        if t >= count || self.channel.drops(t) {
            return false;
        }
        // A few tickets are timed for the cost meter, at two clock readings each; not the
        // first, which pays for cold caches. The note comes before the hand-over, so that the
        // next epoch, which may start as soon as the consumer has the last batch, sees it.
        let started = (t % SAMPLE_EVERY == 1).then(Instant::now);
        let note = |batches| self.note_cost(started, batches);
        // `Ok(None)`: the batches will not be delivered (a stop, or a failure before them), and
        // their making stopped.
        clear_loading();
        if self.parcel == 1 {
            let made = panic::catch_unwind(AssertUnwindSafe(|| {
                self.compute(buffer, t, t, &self.load_context())
            }));
            match made {
                Ok(Some(delivered)) => {
                    note(1);
                    if let Some((gate, measure)) = &self.bytes {
                        let bytes = delivered.value.as_ref().map_or(0, |b| measure(b));
                        match room {
                            Some(room) => room.admit(bytes),
                            None => gate.admit(bytes, t, || self.channel.drops(t)),
                        }
                    }
                    self.hand_over(t, &mut [Some(delivered)], 1, helping, lead, run);
                }
                Ok(None) => {}
                Err(payload) => self.failed(t, t, payload),
            }
        } else {
            self.run_parcel(buffer, t, started, helping, lead, run);
        }
        true
    }

    /// Notes for the cost meter what the batches of a timed ticket (`started`) cost.
    fn note_cost(&self, started: Option<Instant>, batches: usize) {
        if let Some(started) = started {
            self.cost.note(started.elapsed(), batches);
        }
    }

    /// Makes and hands over ticket `t` when it is a parcel (see [`Epoch::run_ticket`]). Kept
    /// out of `run_ticket`, so that only producers that make parcels (of batches small enough
    /// to stage) reserve the staging array on their stack.
    #[inline(never)]
    fn run_parcel(
        &self,
        buffer: P::Buffer,
        t: usize,
        started: Option<Instant>,
        helping: bool,
        lead: Option<Lead<'_>>,
        run: &mut Run<'_>,
    ) {
        // Staged outside the unwinding: a panic keeps the parcel's batches before it.
        let mut staged: Staged<P::Out> = std::array::from_fn(|_| None);
        let made = panic::catch_unwind(AssertUnwindSafe(|| {
            self.compute_parcel(&mut staged, buffer, t)
        }));
        match made {
            Ok(Some(batches)) => {
                self.note_cost(started, batches);
                self.hand_over(t, &mut staged, batches, helping, lead, run);
            }
            Ok(None) => {}
            Err(payload) => {
                let before = staged.iter().take_while(|cell| cell.is_some()).count();
                let rank = t * self.parcel + before;
                if before == 0 {
                    self.failed(t, rank, payload);
                } else {
                    // The consumer receives the failure after the batches before it, which
                    // travel as parcel `t`.
                    self.failed(t + 1, rank, payload);
                    self.hand_over(t, &mut staged, before, helping, lead, run);
                }
            }
        }
    }

    /// The schedule's `rank`-th batch panicked, in ticket `cut` (or, with `cut` one more, after
    /// the batches of its ticket that its maker pushes): the consumer receives the panic
    /// after every batch before it, and nothing after it is made.
    fn failed(&self, cut: usize, rank: usize, payload: PanicPayload) {
        let index = take_loading();
        self.channel
            .fail_from(cut, rank, Failure { payload, index });
        // Producers waiting for a buffer or for bytes look again: no new batch is needed.
        self.producer.wake_waiting();
        self.wake_capped();
    }

    /// Producers waiting for the byte cap look at whether their batch is still needed.
    fn wake_capped(&self) {
        if let Some((gate, _)) = &self.bytes {
            gate.wake_all();
        }
    }

    fn all_taken(&self) -> bool {
        self.tickets.load(Ordering::Relaxed) >= self.ticket_count
    }

    /// The dataset index at `position` of this rank's part of the epoch, and the key of its
    /// generator when that is not the index: an order a sampler listed may hold an index more
    /// than once, and each draw gets a generator of its own, keyed by its place in the epoch.
    #[inline]
    fn index(&self, position: usize) -> (usize, Option<usize>) {
        let position = self.deal.position(self.order.len(), position);
        let key = matches!(self.order, EpochOrder::Listed(_)).then_some(position);
        (self.order.get(position), key)
    }

    /// Pushes ticket `t`'s batches, the first `batches` of `staged`, taken out of it in place
    /// (a parcel's staging array is not copied); through the cell beside the ring if this
    /// producer holds the lead (see `Channel::lead`).
    fn hand_over(
        &self,
        t: usize,
        staged: &mut [Option<Delivered<P::Out>>],
        batches: usize,
        helping: bool,
        lead: Option<Lead<'_>>,
        run: &mut Run<'_>,
    ) {
        let staged = &mut staged[..batches];
        let items = staged.iter().flatten().map(|d| d.items).sum();
        let staged = staged.iter_mut().filter_map(Option::take);
        // `Err` means the batches will not be delivered (a stop, or a failure before them);
        // they are dropped here.
        let dropped = match lead {
            Some(lead) => self.channel.push_ahead(t, staged, lead).err(),
            None => self.channel.push_all(t, staged, !helping).err(),
        };
        if let (Some(dropped), Some((gate, measure))) = (dropped, &self.bytes) {
            // Batches travel one by one under a byte cap: this is the one admitted.
            for batch in dropped.flat_map(|d| d.value) {
                gate.refund(measure(&batch));
            }
        }
        // Counted once in the channel, not while the producer waits for room with them in hand
        // (the stats read pushed minus delivered as the buffer's occupancy). The consumer may
        // deliver them first: the occupancy it samples then is low by a parcel at most.
        run.pushed(batches, items);
    }

    /// Makes the batches of ticket `t` when it is a parcel, staged in order into `staged` on
    /// the caller's stack (parcels are made only of batches small enough for that), and says
    /// how many there are; `None` if they will not be delivered (see [`Channel::drops`]). If
    /// one panics, the ones before it stay in `staged`.
    #[inline(never)]
    fn compute_parcel(
        &self,
        staged: &mut Staged<P::Out>,
        first: P::Buffer,
        t: usize,
    ) -> Option<usize> {
        let scheduled = t * self.parcel..((t + 1) * self.parcel).min(self.count);
        let batches = scheduled.len();
        let mut buffer = Some(first);
        let cx = &self.load_context();
        for (cell, n) in staged.iter_mut().zip(scheduled) {
            // Only producers whose buffers are always at hand make parcels.
            let buffer = buffer.take().or_else(|| self.producer.buffer(|| false))?;
            *cell = Some(self.compute(buffer, n, t, cx)?);
        }
        Some(batches)
    }

    /// This thread's worker number, after running the loader's `worker_init` on it if this is
    /// its first batch of the epoch. A panicking `init` leaves the thread uninitialised. The
    /// last number is shared by every thread beyond the recorder's room: those are told apart
    /// by their ids.
    fn worker(&self) -> usize {
        let worker = self.recorder.worker();
        let Some(init) = &self.items.init else {
            return worker;
        };
        if worker + 1 < self.initialised.len() {
            let done = &self.initialised[worker];
            if !done.load(Ordering::Relaxed) {
                init(worker);
                done.store(true, Ordering::Relaxed);
            }
        } else {
            let me = thread::current().id();
            let lock = || self.overflow.lock().unwrap_or_else(|e| e.into_inner());
            if !lock().contains(&me) {
                init(worker);
                lock().insert(me);
            }
        }
        worker
    }

    /// What the loads of one ticket see of the epoch, read once per ticket (a ticket's batches
    /// are made on one thread); runs `worker_init` first if this thread has not yet (see
    /// [`Epoch::worker`]), so it is called where a panic is caught.
    fn load_context(&self) -> LoadContext<'_> {
        LoadContext {
            recorder: Some(&self.recorder),
            seed: self.items.seed,
            epoch: self.items.epoch,
            offset: self.items.offset,
            worker: self.worker(),
            watch: self
                .items
                .watch
                .as_ref()
                .map(|(list, named)| (&**list, *named)),
        }
    }

    /// The schedule's `n`-th batch, of ticket `t`, loaded with `cx`; `None` if the ticket's
    /// batches turned out not to be delivered while it was computed (see [`Channel::drops`]).
    fn compute(
        &self,
        buffer: P::Buffer,
        n: usize,
        t: usize,
        cx: &LoadContext<'_>,
    ) -> Option<Delivered<P::Out>> {
        let batch = self.schedule.batch(n);
        let (value, items) = self.producer.make(
            buffer,
            self.batches.positions(batch),
            |p| self.index(p),
            cx,
            || self.channel.drops(t),
        )?;
        Some(Delivered {
            batch,
            items,
            value,
        })
    }
}

/// A parcel's batches, in order, on a producer's stack.
type Staged<T> = [Option<Delivered<T>>; MAX_PARCEL];

/// One ticket in this many is timed for the cost meter.
const SAMPLE_EVERY: usize = 16;

/// One round of an epoch, as the job an executor runs: `len` turns.
struct Round<'e, P: Produce> {
    epoch: &'e Epoch<P>,
    len: usize,
    brand: Brand<()>,
    /// How many non-empty pieces the executor ran.
    pieces: AtomicUsize,
}

impl<'e, P: Produce> Job<'e> for Round<'e, P> {
    fn len(&self) -> usize {
        self.len
    }

    /// A turn takes batches until none is left: the executor decides how many turns run at
    /// once and on which threads, and each running turn keeps its thread busy with one batch
    /// after another (one counter increment per batch, no task per batch). Once every batch is
    /// taken, the remaining turns return at once.
    fn run(&self, range: Range<usize>) -> Partial<'e> {
        self.turn(range, false)
    }

    fn run_while_waiting(&self, range: Range<usize>) -> Partial<'e> {
        self.turn(range, true)
    }

    /// The epoch's driver only stands in for the consumer, which helps while its buffer is
    /// empty: an executor that runs pieces on its caller leaves that share to the consumer.
    fn caller(&self) -> Caller {
        Caller::StandsIn
    }

    fn combine(&self, _left: Partial<'e>, right: Partial<'e>) -> Partial<'e> {
        right
    }

    /// Stopped once the epoch is cancelled or a batch failed, or every batch is taken. A helping
    /// consumer never waits for pieces it did not run: `Executor::help` runs one piece whole
    /// (its contract), and `run` on the consumer computes one batch at most.
    fn is_stopped(&self, _from: usize) -> bool {
        self.epoch.channel.is_stopping() || self.epoch.all_taken()
    }
}

impl<'e, P: Produce> Round<'e, P> {
    /// A turn over `range`; `waiting` when the executor runs it on a thread that waits for
    /// something below it on its stack.
    fn turn(&self, range: Range<usize>, waiting: bool) -> Partial<'e> {
        // A thread that helps while it waits (a consumer inside `Executor::help`, a pool worker
        // waiting for a nested fold) must never wait for room: the room may only come once the
        // frame below it resumes. It runs one ticket, as the consumer does.
        let maker = self.epoch.channel.maker(waiting);
        if !range.is_empty() {
            self.pieces.fetch_add(1, Ordering::Relaxed);
            let epoch = self.epoch;
            // A helping thread computes one batch per call: timing that would cost two clock
            // readings per batch, so its runs are counted, not timed.
            let mut run = epoch.recorder.run(epoch.timing && maker == Maker::Producer);
            if maker == Maker::Producer {
                while !epoch.channel.is_stopping() && epoch.run_ticket(maker, &mut run) {}
            } else if !epoch.channel.is_stopping() {
                // One ticket per help call, so that the consumer goes back to delivering. None
                // once the epoch is stopping: an executor may still run turns it forked before,
                // and each would start a batch.
                epoch.run_ticket(maker, &mut run);
            }
        }
        self.brand.wrap(())
    }
}

/// Starts the thread that runs the epoch's rounds through `executor`, then closes the channel.
pub(crate) fn spawn_driver<P>(epoch: Arc<Epoch<P>>, executor: Arc<dyn Executor>) -> JoinHandle<()>
where
    P: Produce + 'static,
    P::Out: 'static,
{
    thread::Builder::new()
        .name("foldex-loader".into())
        .spawn(move || {
            let driven = panic::catch_unwind(AssertUnwindSafe(|| drive(&epoch, &*executor)));
            if let Err(payload) = driven {
                // The executor itself panicked (a bug in it): the consumer gets the payload.
                epoch.channel.fail(Failure::anywhere(payload));
                epoch.wake_capped();
            }
            epoch.channel.close();
        })
        .expect("foldex-loader: failed to start the thread that drives an epoch")
}

fn drive<P: Produce>(epoch: &Epoch<P>, executor: &dyn Executor) {
    loop {
        let len = epoch.untaken();
        if len == 0 || epoch.channel.is_stopping() {
            return;
        }
        let round = Round {
            epoch,
            len,
            brand: Brand::new(),
            pieces: AtomicUsize::new(0),
        };
        // The round's `caller` says that this thread only stands in for the consumer.
        let partial = executor.execute(&round);
        round.brand.unwrap(partial);
        if round.pieces.load(Ordering::Relaxed) == 0 {
            // The executor ran nothing at all, and would not next time either: the consumer
            // learns from the closed channel that batches are missing.
            return;
        }
        if epoch.untaken() == len {
            // Nobody took a batch: every turn was left for later while the consumer was busy
            // with the ones already finished. Let it catch up before the next round.
            thread::yield_now();
        }
    }
}
