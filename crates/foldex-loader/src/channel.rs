//! The bounded channel between the producers of an epoch and its one consumer.
//!
//! Every batch of an epoch has a sequence number (`0..total`). Producers `push` finished
//! batches; the consumer takes them out in sequence order (`ordered`) or first-finished-first-out.
//! The channel holds the whole protocol of an epoch, so that the loom tests check all of it.
//!
//! **Positions and laps.** Each pushed batch gets a *position*, the order in which the consumer
//! takes it: its sequence number when ordered, the order of arrival (a counter) when not.
//! Position `p` lives in slot `p % capacity` of a ring, as in crossbeam-channel's array
//! flavour: a slot's stamp says which position it is free for, or which one it holds. Neither
//! side reads the other's counter on the common path: a producer learns that there is room for
//! `p` from slot `p`'s stamp ("free for `p`" once the consumer took `p - capacity`), and the
//! consumer learns that `p` arrived from the same stamp ("holds `p`"). A push is one short,
//! uncontended lock of the slot's cell and one add to its stamp; a take the same and one swap.
//!
//! **Parcels.** A push may carry several consecutive batches at one position (a *parcel*,
//! [`Channel::push_all`]): they share the slot, its stamp and its cache lines, and the consumer
//! takes them one by one, freeing the slot with the last. Then "batch" below reads "parcel":
//! positions, the capacity and the sequence numbers count parcels. With cheap items, the cache
//! lines that move between cores per batch, not the work, bound the throughput; a parcel of
//! `k` moves them once per `k` batches.
//!
//! **Sleeping.** One mutex with two condvars is kept for sleeping only. A side about to sleep
//! sets a bit in the stamp of the slot it waits for, in the same atomic word that the other
//! side changes next (the consumer's take swaps the stamp, a push adds to it), so each sees
//! the other: a wake-up is sent exactly when someone may sleep, and is never lost.
//!
//! - **Back pressure.** A push of position `p` waits while `p >= delivered + capacity`
//!   (slot `p` is not yet free for it), where `delivered` is the position the consumer needs
//!   next; so at most `capacity` finished batches wait, in the buffer or (ordered) the reorder
//!   window. Position `delivered` itself never waits, which is why producers that take batches
//!   in sequence order can never all be stuck (see `epoch.rs`). A producer with no room polls
//!   (spins, then yields) for a while before it sleeps: with cheap items, room comes back
//!   within microseconds, and a wake-up costs the consumer more than that. Producers
//!   that wait before they take a batch number ([`Channel::should_skip`]) leave the polling
//!   to one of them, and sleep until half the room is free, so that a wake-up refills
//!   several places rather than one; they hold no batch, and the consumer wakes every sleeper
//!   whenever it runs dry. (Letting one awake producer refill the buffer while the others
//!   sleep on was measured: with items that cost 100 µs, the sleepers stayed asleep for
//!   milliseconds while the consumer waited, and two workers did the work of 1.2.) A producer
//!   that holds a finished batch sleeps only until the place it needs is free.
//! - **Parcels are made before their place frees.** When batches travel in parcels (they cost
//!   under a microsecond), the making of a parcel must not sit on the consumer's path: the
//!   consumer empties a place in about the time a producer takes to make the next parcel.
//!   - *Unordered*, a producer takes its ticket without waiting for room, makes the parcel and
//!     waits with it in hand: the parcel takes whichever place frees first, so the consumer
//!     never waits for this producer in particular. And every producer polls, none leaves it
//!     to another: room comes back within the polling time, so they seldom sleep. (With all
//!     but one producer asleep, the last one and the consumer sometimes shared one core for a
//!     whole epoch while the other idled; see docs/benchmarks.md, "Loader throughput".)
//!   - *Ordered*, a parcel has one place, and the consumer needs exactly that parcel next, so
//!     a producer holding it in hand would make the consumer wait whenever that producer lost
//!     its core (with the default executor there is one thread more than cores). So one
//!     producer at a time, the one holding the *lead* ([`Channel::lead`]), makes its parcel
//!     without waiting for room and puts it in a cell beside the ring
//!     ([`Channel::push_ahead`]); it polls for the place and moves the parcel in as it frees,
//!     and if it is not there to, the consumer takes the parcel from the cell itself. The
//!     other producers wait for room before they take a ticket, as with single batches. The
//!     lead stays taken while its parcel is in the cell: one parcel at most beyond the window.
//!     (Without the lead, waiting for its own place before making the parcel, ordered ran at
//!     about 0.8 of unordered; with the parcel in the lead's hand, some epochs ran several
//!     times slower, the lead and the consumer sharing one core. See docs/benchmarks.md.)
//! - **Helping.** The consumer may lend its thread to the executor ([`Channel::recv`] calls
//!   `help`). `Executor::help` runs one piece whole and never waits on other threads, so
//!   producers may go on waiting for room meanwhile; only a batch made on the consumer's own
//!   thread must not wait (that thread is the one that makes room). It goes to a small overflow
//!   list beside the ring when there is no room. The consumer makes a batch only when it has
//!   nothing to deliver, and, when there is no room, only if the overflow is empty (see
//!   [`Channel::should_skip`]): a helping consumer keeps one batch (one ticket) at most beyond
//!   the window. So it helps even when no place can free before it has the next batch (an
//!   ordered buffer smaller than the producers), and the overshoot stays bounded: at most
//!   `capacity` batches wait in the ring, plus the consumer's ticket beside it (plus, with
//!   ordered parcels, the lead's parcel in its cell). Other helping threads (a pool worker
//!   that waits for a fold nested in a batch) must not wait for room either, and make a batch
//!   only into room.
//! - **Cancellation.** [`Channel::cancel`] (the consumer went away) and [`Channel::fail`] (a
//!   batch panicked) stop the epoch: every waiting producer wakes and drops its batch, and
//!   batches still buffered are dropped.
//! - **Completion.** The consumer learns that the epoch is over when every batch was delivered,
//!   or, if producers stopped before that (an executor that skipped indices), from
//!   [`Channel::close`].

use crate::sync::{AtomicBool, AtomicUsize, Backoff, Condvar, Mutex, MutexGuard, Ordering};
use crossbeam_utils::CachePadded;
use foldex_core::exec::PanicPayload;
use std::cmp::Ordering as Compare;
use std::collections::VecDeque;
use std::mem;

/// A producer's panic as the consumer receives it.
#[derive(Debug)]
pub struct Failure {
    /// The panic's payload, re-raised on the consumer unchanged.
    pub payload: PanicPayload,
    /// The observation whose load panicked (`None`: the panic came from elsewhere, such as
    /// `collate` or the executor).
    pub index: Option<usize>,
}

impl Failure {
    /// A failure that names no observation.
    pub fn anywhere(payload: PanicPayload) -> Self {
        Failure {
            payload,
            index: None,
        }
    }
}

/// What the consumer gets from [`Channel::recv`] or [`Channel::try_recv`].
#[derive(Debug)]
pub enum Recv<T> {
    /// The next batch.
    Item(T),
    /// Nothing deliverable yet (only from `try_recv`).
    Empty,
    /// Every batch of the epoch was delivered.
    Finished,
    /// A producer panicked; the epoch is stopped. The first failure only.
    Failed(Failure),
    /// The producers finished without pushing every batch: the executor skipped indices.
    Incomplete,
}

/// Which thread asks [`Channel::should_skip`] whether to make a batch now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maker {
    /// A producer: it may wait for room.
    Producer,
    /// A thread that helps while it waits for something below it on its own stack (a pool
    /// worker waiting for a fold nested in a batch): it must not wait for room, which may come
    /// only once that frame resumes, so it makes a batch only into room.
    Helper,
    /// The consumer, helping while it waits for a batch: it must not wait either (it is the
    /// thread that makes room), and may keep one batch beyond the window.
    Consumer,
}

/// Stamp bit: the consumer sleeps (or is about to) until this slot holds its next position.
const CONSUMER_WAITS: usize = 1;
/// Stamp bit: some producer sleeps (or is about to) until this slot is free for a later lap.
const PRODUCER_WAITS: usize = 2;
/// Stamp bit: the slot holds its position (else it is free for it).
const FULL: usize = 4;
/// The position sits above the three bits.
const SHIFT: u32 = 3;

/// The most positions (batches or parcels) a channel numbers, and the most places it has: a
/// stamp holds a position of the lap after the last one, `position + capacity`, above
/// [`SHIFT`] bits.
pub(crate) const MAX_BATCHES: usize = usize::MAX >> (SHIFT + 1);

/// The most places a loader's buffer has: they are made when an epoch starts (two cache lines
/// each), so a buffer larger than this is refused for an epoch with more batches than this.
/// An epoch with fewer batches has as many places as batches, whatever the buffer.
pub const MAX_BUFFER: usize = 1 << 16;
const WAIT_BITS: usize = CONSUMER_WAITS | PRODUCER_WAITS;

/// The stamp of a slot that is free for position `position`.
fn free(position: usize) -> usize {
    position << SHIFT
}

/// The stamp of a slot that holds position `position`: a push adds [`FULL`] to `free(position)`,
/// keeping the wait bits.
fn full(position: usize) -> usize {
    free(position) | FULL
}

fn lock<U>(mutex: &Mutex<U>) -> MutexGuard<'_, U> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Empties `cell` and drops what it held once the lock is released, so that no batch's
/// destructor runs under it.
fn drop_contents<U: Default>(cell: &Mutex<U>) {
    let late = mem::take(&mut *lock(cell));
    drop(late);
}

/// One place of the ring, on its own cache lines so that a producer filling one slot does not
/// slow the consumer emptying the next.
struct Slot<T> {
    /// `free(p)` or `full(p)` for the position `p` of the slot's current lap, with the wait
    /// bits on top. Apart from the batches: producers waiting for room read the stamp over and
    /// over, which must not take the line from the consumer on each batch of a parcel.
    stamp: CachePadded<AtomicUsize>,
    /// The parcel at the slot's position, in push order. Never contended in the common case:
    /// the producer writes before the stamp says so, and the consumer takes after. It is what
    /// lets a stop drop a batch exactly once. Its capacity (a parcel) stays from lap to lap.
    items: CachePadded<Mutex<Parcel<T>>>,
}

/// The batches of one position, in push order. The first sits in place, on the slot's own cache
/// lines, so that a single batch costs no further memory to hand over; the rest of a parcel
/// follows in a queue whose capacity stays from lap to lap.
struct Parcel<T> {
    first: Option<T>,
    rest: VecDeque<T>,
}

impl<T> Parcel<T> {
    /// Room for `parcel` batches without allocating.
    fn with_capacity(parcel: usize) -> Self {
        Self {
            first: None,
            rest: VecDeque::with_capacity(parcel - 1),
        }
    }

    fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    fn push(&mut self, item: T) {
        if self.first.is_none() {
            self.first = Some(item);
        } else {
            self.rest.push_back(item);
        }
    }

    fn pop(&mut self) -> Option<T> {
        let item = self.first.take()?;
        self.first = self.rest.pop_front();
        Some(item)
    }
}

impl<T> Default for Parcel<T> {
    fn default() -> Self {
        Self {
            first: None,
            rest: VecDeque::new(),
        }
    }
}

impl<T> Extend<T> for Parcel<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        items.into_iter().for_each(|item| self.push(item));
    }
}

/// The consumer's own side of a [`Channel`]: the parcel it took, handed out batch by batch
/// without touching the ring.
pub struct Inbox<T> {
    /// What is left of the parcel at `position`, in order.
    items: Parcel<T>,
    position: usize,
}

impl<T> Inbox<T> {
    /// An inbox with room for a parcel of `parcel` batches.
    pub fn with_capacity(parcel: usize) -> Self {
        Self {
            items: Parcel::with_capacity(parcel),
            position: 0,
        }
    }
}

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Self::with_capacity(1)
    }
}

/// A bounded, cancellable channel with an optional reorder window. See the module docs.
pub struct Channel<T> {
    slots: Box<[Slot<T>]>,
    /// The next position the consumer takes, i.e. the batches delivered. Only the consumer
    /// writes it; producers never read it on their common path.
    head: CachePadded<AtomicUsize>,
    /// Unordered: the next position to hand out.
    tail: CachePadded<AtomicUsize>,
    /// Batches the consumer made itself while there was no room, with their positions (a
    /// parcel's batches share one, in push order).
    overflow: Mutex<Vec<(usize, T)>>,
    /// `overflow.len()`, so that the consumer looks there only when something is in it.
    overflow_len: AtomicUsize,
    /// How many producers wait for room awake, spinning and yielding. Like every field that
    /// changes while the epoch runs, on its own cache line: the consumer reads the read-mostly
    /// ones on every take.
    spinning: CachePadded<AtomicUsize>,
    /// How many producers sleep for room; changed under `sleep`.
    sleepers: CachePadded<AtomicUsize>,
    /// The producers have stopped, by cancellation or failure. Set under `sleep`.
    stopped: AtomicBool,
    /// No more pushes will come.
    closed: AtomicBool,
    /// For sleeping only; holds the first failure.
    sleep: CachePadded<Mutex<Option<Failure>>>,
    /// Producers wait here for room.
    room: CachePadded<Condvar>,
    /// The consumer waits here for a batch.
    ready: CachePadded<Condvar>,
    capacity: usize,
    ordered: bool,
    total: usize,
    /// Batches travel in parcels, which they do only when they are cheap: then producers make
    /// them before their place frees, and every producer polls (see the module docs).
    parcels: bool,
    /// Batches are cheap (in parcels or not): waiting producers poll longer before they sleep.
    patient: bool,
    /// Ordered parcels: a producer holds the lead ([`Channel::lead`]), or its parcel waits
    /// beside the ring for room.
    lead: CachePadded<AtomicBool>,
    /// `p + 1` while the lead's parcel `p` waits in `ahead_items` for room, else 0. Changed
    /// under `ahead_items`.
    ahead: CachePadded<AtomicUsize>,
    /// The lead's parcel while it waits for room, beside the ring.
    ahead_items: CachePadded<Mutex<Parcel<T>>>,
}

impl<T> Channel<T> {
    /// A channel for `total` batches that holds at most `capacity` finished ones (`capacity >= 1`).
    #[cfg(any(test, loom))]
    pub fn new(capacity: usize, ordered: bool, total: usize) -> Self {
        Self::with_parcels(capacity, 1, ordered, total)
    }

    /// A channel for `total` parcels of up to `parcel` batches each (see [`Channel::push_all`])
    /// that holds at most `capacity` parcels. The room for them is made here, so that the
    /// epoch allocates nothing in the channel afterwards.
    pub fn with_parcels(capacity: usize, parcel: usize, ordered: bool, total: usize) -> Self {
        assert!(
            capacity >= 1 && parcel >= 1,
            "a loader channel needs room for at least one batch"
        );
        assert!(
            total <= MAX_BATCHES && capacity <= MAX_BATCHES,
            "a loader channel numbers at most {MAX_BATCHES} positions and places"
        );
        Self {
            slots: (0..capacity)
                .map(|i| Slot {
                    stamp: CachePadded::new(AtomicUsize::new(free(i))),
                    items: CachePadded::new(Mutex::new(Parcel::with_capacity(parcel))),
                })
                .collect(),
            head: CachePadded::new(AtomicUsize::new(0)),
            tail: CachePadded::new(AtomicUsize::new(0)),
            // Rarely more than one parcel: reserved up front, so that the consumer's first
            // parcel put aside allocates nothing mid-epoch.
            overflow: Mutex::new(Vec::with_capacity(4 * parcel)),
            overflow_len: AtomicUsize::new(0),
            spinning: CachePadded::new(AtomicUsize::new(0)),
            sleepers: CachePadded::new(AtomicUsize::new(0)),
            stopped: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            sleep: CachePadded::new(Mutex::new(None)),
            room: CachePadded::new(Condvar::new()),
            ready: CachePadded::new(Condvar::new()),
            capacity,
            ordered,
            total,
            parcels: parcel > 1,
            patient: parcel > 1,
            lead: CachePadded::new(AtomicBool::new(false)),
            ahead: CachePadded::new(AtomicUsize::new(0)),
            ahead_items: CachePadded::new(Mutex::new(Parcel::with_capacity(parcel))),
        }
    }

    /// Whether waiting producers poll for `sync::POLL_FOR` before they sleep: the batches are
    /// cheap. Parcels imply it; this says it of cheap batches that travel one by one.
    pub fn patient(mut self, patient: bool) -> Self {
        self.patient = patient;
        self
    }

    /// How a thread of this epoch, producer or consumer, polls before it sleeps: for
    /// `sync::POLL_FOR` when the batches are cheap, briefly otherwise.
    pub(crate) fn backoff(&self) -> Backoff {
        Backoff::new(self.patient)
    }

    /// Ordered parcels only: the lead, if no other producer holds it and no parcel made ahead
    /// still waits for room. Its holder takes a ticket without waiting for room first
    /// ([`Channel::should_skip`] is not asked), makes the parcel, and hands it over with
    /// [`Channel::push_ahead`], which never leaves the consumer waiting for this thread.
    /// `None` for single batches and unordered parcels.
    pub fn lead(&self) -> Option<Lead<'_>> {
        // A plain load first: the lead changes hands once per parcel, and a failed attempt
        // would take the line from its holder.
        if !(self.parcels && self.ordered)
            || self.lead.load(Ordering::Relaxed)
            || self
                .lead
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return None;
        }
        Some(Lead(&self.lead))
    }

    /// `true` once the epoch is cancelled or failed: producers should stop.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    fn slot(&self, position: usize) -> &Slot<T> {
        &self.slots[position % self.capacity]
    }

    /// Where slot `position` stands for `position`: `Equal` when it is free for it (room),
    /// `Less` while it still serves an earlier lap (no room), `Greater` if `position` was
    /// already pushed and taken (the caller's position is stale).
    fn room_for(&self, position: usize) -> Compare {
        let stamp = self.slot(position).stamp.load(Ordering::Acquire) & !WAIT_BITS;
        stamp.cmp(&free(position))
    }

    /// Whether position `position` is in its slot.
    fn in_slot(&self, position: usize) -> bool {
        self.slot(position).stamp.load(Ordering::Acquire) & !WAIT_BITS == full(position)
    }

    fn in_overflow(&self, position: usize) -> bool {
        self.overflow_len.load(Ordering::Acquire) > 0
            && lock(&self.overflow).iter().any(|(p, _)| *p == position)
    }

    /// The next position a producer would take: its own batch number when ordered.
    fn next_position(&self, seq: usize) -> usize {
        if self.ordered {
            seq
        } else {
            self.tail.load(Ordering::Relaxed)
        }
    }

    /// Pushes batch `seq`, waiting while there is no room for it (unless `wait` is false: the
    /// consumer's own batch). Returns the batch if the epoch was stopped, so that the caller
    /// drops it.
    #[cfg(any(test, loom))]
    pub fn push(&self, seq: usize, item: T, wait: bool) -> Result<(), T> {
        self.push_all(seq, std::iter::once(item), wait)
            .map_err(|mut once| once.next().expect("a stopped push hands its batch back"))
    }

    /// Pushes parcel `seq`: `items`, which take one place of the ring together and reach the
    /// consumer one by one, in order, from one take of the slot (the consumer's next position
    /// stays on the parcel until its last batch is taken). Waits as [`Channel::push`] does;
    /// returns the batches, not yet moved, if the epoch was stopped.
    pub fn push_all<I: Iterator<Item = T>>(
        &self,
        seq: usize,
        items: I,
        wait: bool,
    ) -> Result<(), I> {
        loop {
            if self.is_stopped() {
                return Err(items);
            }
            // Unordered, a producer takes a position only once there is room for it, so that
            // no sleeping producer holds a position the consumer needs next.
            let position = self.next_position(seq);
            match self.room_for(position) {
                Compare::Equal => {
                    if !self.ordered
                        && self
                            .tail
                            .compare_exchange_weak(
                                position,
                                position + 1,
                                Ordering::Relaxed,
                                Ordering::Relaxed,
                            )
                            .is_err()
                    {
                        continue;
                    }
                    self.put(position, items);
                    return Ok(());
                }
                Compare::Greater => {
                    assert!(!self.ordered, "a batch was pushed twice");
                    continue;
                }
                Compare::Less => {}
            }
            if !wait {
                let position = if self.ordered {
                    seq
                } else {
                    self.tail.fetch_add(1, Ordering::Relaxed)
                };
                self.put_aside(position, items);
                return Ok(());
            }
            // This producer holds a finished batch: it stays awake as long as it may, and sleeps
            // only until the very place it needs is free (ordered, the consumer will need this
            // batch; unordered, any free place will do).
            let position = || self.next_position(seq);
            self.wait_for_room(position, |position| position, false);
        }
    }

    /// The position whose room a producer that holds no batch sleeps for, when it wants
    /// `position`: half the buffer further, so that one wake-up lets it push several batches.
    /// The consumer takes `target - capacity` before it can need `position` (which is
    /// smaller), so it wakes this sleeper before it could ever wait for it.
    fn refill_target(&self, position: usize) -> usize {
        position + (self.capacity / 2).max(1) - 1
    }

    /// Waits until position `position()` may have room or the epoch stops (or spuriously): the
    /// caller looks again. It polls for that room a while, then sleeps until position
    /// `target(position)` (at or after it) has room. With `exclusive`, only one producer polls;
    /// the others sleep at once.
    fn wait_for_room(
        &self,
        position: impl Fn() -> usize,
        target: impl Fn(usize) -> usize,
        exclusive: bool,
    ) {
        let mut backoff = self.backoff();
        let mut spinner = if exclusive {
            Spinner::try_begin(&self.spinning)
        } else {
            Some(Spinner::always(&self.spinning))
        };
        loop {
            if self.is_stopped() || self.room_for(position()) != Compare::Less {
                return;
            }
            if spinner.is_none() || !backoff.snooze() {
                break;
            }
        }
        drop(spinner.take());
        let guard = lock(&self.sleep);
        // `stopped` is only set under `sleep`: read here, it cannot change before the wait.
        if self.stopped.load(Ordering::Relaxed) || !self.register_producer(target(position())) {
            return;
        }
        // The consumer's take of the slot's position swaps the stamp after our bit, sees it,
        // and wakes us under `sleep`.
        let asleep = std::time::Instant::now();
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        let guard = self.room.wait(guard).unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_sub(1, Ordering::Relaxed);
        drop(guard);
        crate::stats::note_blocked(asleep);
    }

    /// Marks slot `target` as waited for by a producer, unless it is already free for
    /// `target` (then `false`: no need to sleep). The bit goes only on a slot of an earlier lap,
    /// so that the consumer's take of that lap is sure to see it and no stale bit is left.
    fn register_producer(&self, target: usize) -> bool {
        let stamp = &self.slot(target).stamp;
        let mut current = stamp.load(Ordering::Acquire);
        loop {
            if current & !WAIT_BITS >= free(target) {
                return false;
            }
            match stamp.compare_exchange_weak(
                current,
                current | PRODUCER_WAITS,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(now) => current = now,
            }
        }
    }

    /// Hands over the lead's parcel `seq` (see [`Channel::lead`]) without making the consumer
    /// depend on this thread: into its place if there is room; else into a cell beside the
    /// ring, where this thread polls for the place and moves the parcel in the moment it
    /// frees, and where the consumer takes it itself if it needs it first (this thread lost
    /// its core, or stopped polling). The lead stays taken until the parcel leaves the cell,
    /// so that one parcel at most waits beyond the window. Returns the batches if the epoch
    /// was stopped.
    pub fn push_ahead<I: Iterator<Item = T>>(
        &self,
        seq: usize,
        items: I,
        lead: Lead<'_>,
    ) -> Result<(), I> {
        debug_assert!(self.parcels && self.ordered);
        if self.is_stopped() {
            return Err(items);
        }
        match self.room_for(seq) {
            Compare::Equal => {
                self.put(seq, items);
                return Ok(());
            }
            Compare::Greater => panic!("a batch was pushed twice"),
            Compare::Less => {}
        }
        {
            let mut cell = lock(&self.ahead_items);
            cell.extend(items);
            self.ahead.store(seq + 1, Ordering::Release);
        }
        // From here the lead is the parcel's: whoever moves it on gives the lead back.
        mem::forget(lead);
        // A read-modify-write, ordered with the consumer's on the stamp: the consumer, were it
        // about to sleep for `seq`, sees the parcel beside the ring or is woken.
        if self.slot(seq).stamp.fetch_or(0, Ordering::AcqRel) & CONSUMER_WAITS != 0 {
            self.wake_consumer();
        }
        if self.is_stopped() {
            // The stop may have emptied the cell before this parcel arrived: drop it now.
            drop_contents(&self.ahead_items);
            return Ok(());
        }
        // Wait for the place, to put the parcel in it the moment it frees; the consumer takes
        // it from beside the ring if this thread is not there to (it polled too long, or lost
        // its core).
        let mut backoff = self.backoff();
        loop {
            if self.ahead.load(Ordering::Relaxed) != seq + 1 || self.is_stopped() {
                return Ok(());
            }
            if self.room_for(seq) != Compare::Less {
                break;
            }
            if !backoff.snooze() {
                return Ok(());
            }
        }
        {
            let mut cell = lock(&self.ahead_items);
            if self.ahead.load(Ordering::Relaxed) != seq + 1 {
                return Ok(());
            }
            self.ahead.store(0, Ordering::Relaxed);
            let mut slot = lock(&self.slot(seq).items);
            assert!(slot.is_empty(), "a batch was pushed twice");
            // The slot's empty parcel, with its room, stays for the next one made ahead.
            mem::swap(&mut *slot, &mut *cell);
        }
        self.publish(seq);
        self.lead.store(false, Ordering::Release);
        Ok(())
    }

    /// Puts position `position` into its slot (there is room for it) and wakes the consumer if
    /// it sleeps on that slot.
    fn put(&self, position: usize, items: impl Iterator<Item = T>) {
        {
            let mut cell = lock(&self.slot(position).items);
            assert!(cell.is_empty(), "a batch was pushed twice");
            cell.extend(items);
        }
        self.publish(position);
    }

    /// Announces the batches just put in the slot of `position`.
    fn publish(&self, position: usize) {
        let slot = self.slot(position);
        let stamp = slot.stamp.fetch_add(FULL, Ordering::AcqRel);
        debug_assert_eq!(stamp & !WAIT_BITS, free(position));
        if stamp & CONSUMER_WAITS != 0 {
            self.wake_consumer();
        }
        if self.is_stopped() {
            // The stop may have emptied the slots before this parcel arrived: drop it now.
            drop_contents(&slot.items);
        }
    }

    /// Keeps position `position` beside the ring: the consumer made it, and there is no room.
    fn put_aside(&self, position: usize, items: impl Iterator<Item = T>) {
        {
            let mut overflow = lock(&self.overflow);
            let before = overflow.len();
            overflow.extend(items.map(|item| (position, item)));
            self.overflow_len
                .fetch_add(overflow.len() - before, Ordering::Release);
        }
        // A read-modify-write, ordered with the consumer's on the stamp, as for the lead's
        // parcel: the consumer, were it about to sleep for `position`, sees the batch beside the
        // ring or is woken. The helping thread that made it need not be the consumer (a pool
        // worker helps while it waits for a fold nested in a batch).
        if self.slot(position).stamp.fetch_or(0, Ordering::AcqRel) & CONSUMER_WAITS != 0 {
            self.wake_consumer();
        }
        if self.is_stopped() {
            self.drop_overflow();
        }
    }

    fn wake_consumer(&self) {
        let _guard = lock(&self.sleep);
        self.ready.notify_one();
    }

    /// Wakes the producers that sleep for room, if any: the consumer is about to wait.
    pub fn wake_sleepers(&self) {
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            self.wake_producers();
        }
    }

    fn wake_producers(&self) {
        let _guard = lock(&self.sleep);
        self.room.notify_all();
    }

    /// Whether `maker` should leave batch `seq` to a later round instead of computing it now.
    ///
    /// A helping thread skips if a batch is ready, so that the consumer goes back to
    /// delivering, and if there is no room, unless it is the consumer and keeps no batch beside
    /// the ring yet. So a consumer that would otherwise wait always helps, with one batch (one
    /// ticket) at most beyond the window: with an ordered buffer smaller than the producers, the
    /// place of every untaken batch frees only once the consumer has the next one. A producer
    /// never skips; but one that finds no room for the position it would push to (`seq` itself
    /// when ordered, the next arrival when not) waits here first, before it takes a batch
    /// number: waiting without a batch in hand, it may sleep without the consumer ever waiting
    /// for it. Parcels are made earlier (see the module docs).
    pub fn should_skip(&self, seq: usize, maker: Maker) -> bool {
        if maker == Maker::Producer {
            if self.parcels && !self.ordered {
                // The parcel will take whichever place frees first, so the consumer never waits
                // for this producer in particular: it may as well make the parcel now and wait
                // with it in hand, to push it the moment a place frees.
                return false;
            }
            let position = || self.next_position(seq);
            if self.room_for(position()) == Compare::Less {
                // Single batches leave the polling to one producer; with parcels every producer
                // polls (see the module docs).
                self.wait_for_room(position, |p| self.refill_target(p), !self.parcels);
            }
            return false;
        }
        let next = self.head.load(Ordering::Relaxed);
        let keeps_one = || maker == Maker::Helper || self.overflow_len.load(Ordering::Acquire) > 0;
        (next < self.total && (self.in_slot(next) || self.in_overflow(next) || self.is_ahead(next)))
            || (self.room_for(self.next_position(seq)) == Compare::Less && keeps_one())
    }

    /// Moves position `position` into `inbox`, if it has arrived; `false` if not. Its slot
    /// stays taken until the inbox is empty ([`Channel::release`]), so that the batches
    /// waiting for the consumer, in the ring or its inbox, never exceed the capacity.
    fn take_at(&self, position: usize, inbox: &mut Inbox<T>) -> bool {
        debug_assert!(inbox.items.is_empty());
        let slot = self.slot(position);
        if slot.stamp.load(Ordering::Acquire) & !WAIT_BITS == full(position) {
            // One lock per parcel: the slot gets the inbox's empty parcel (and keeps its
            // capacity for the next lap). Empty only if a stop drained the slot meanwhile.
            mem::swap(&mut *lock(&slot.items), &mut inbox.items);
        } else if self.is_ahead(position) && self.take_ahead(position, inbox) {
            // The lead's parcel, taken before its producer moved it into the ring.
        } else {
            if self.overflow_len.load(Ordering::Acquire) == 0 {
                return false;
            }
            let mut overflow = lock(&self.overflow);
            let before = overflow.len();
            // In order: a parcel's batches keep theirs.
            inbox.items.extend(
                overflow
                    .extract_if(.., |(p, _)| *p == position)
                    .map(|(_, item)| item),
            );
            self.overflow_len
                .fetch_sub(before - overflow.len(), Ordering::Release);
        }
        inbox.position = position;
        !inbox.items.is_empty()
    }

    /// Whether the lead's parcel `position` waits beside the ring.
    fn is_ahead(&self, position: usize) -> bool {
        self.ahead.load(Ordering::Acquire) == position + 1
    }

    /// Moves the lead's parcel `position` from beside the ring into `inbox`, and gives the
    /// lead back; `false` if its producer moved it into the ring meanwhile.
    fn take_ahead(&self, position: usize, inbox: &mut Inbox<T>) -> bool {
        let mut cell = lock(&self.ahead_items);
        if self.ahead.load(Ordering::Relaxed) != position + 1 {
            return false;
        }
        self.ahead.store(0, Ordering::Relaxed);
        mem::swap(&mut *cell, &mut inbox.items);
        drop(cell);
        self.lead.store(false, Ordering::Release);
        true
    }

    /// The next batch in `inbox`; the last one frees its position's slot for the next lap.
    fn unpack(&self, inbox: &mut Inbox<T>) -> Option<T> {
        let item = inbox.items.pop()?;
        if inbox.items.is_empty() {
            self.release(inbox.position);
        }
        Some(item)
    }

    /// The consumer is done with position `position`: its slot is free for the next lap.
    fn release(&self, position: usize) {
        let stamp = self
            .slot(position)
            .stamp
            .swap(free(position + self.capacity), Ordering::AcqRel);
        if stamp & PRODUCER_WAITS != 0 {
            self.wake_producers();
        }
        self.head.store(position + 1, Ordering::Release);
    }

    /// What a stopped epoch gives the consumer: the failure, once.
    fn stopped_recv(&self, next: usize) -> Recv<T> {
        if let Some(failure) = lock(&self.sleep).take() {
            Recv::Failed(failure)
        } else if next == self.total {
            Recv::Finished
        } else {
            Recv::Empty
        }
    }

    /// Takes the next batch if one is deliverable, without waiting; `inbox` is the consumer's
    /// (the same one for the whole epoch).
    pub fn try_recv(&self, inbox: &mut Inbox<T>) -> Recv<T> {
        if self.is_stopped() {
            return self.stopped_recv(self.head.load(Ordering::Relaxed));
        }
        if let Some(item) = self.unpack(inbox) {
            return Recv::Item(item);
        }
        // Only the consumer changes it.
        let next = self.head.load(Ordering::Relaxed);
        if next == self.total {
            return Recv::Finished;
        }
        if self.take_at(next, inbox) {
            return self.unpack(inbox).map_or(Recv::Empty, Recv::Item);
        }
        if self.closed.load(Ordering::Acquire) {
            // Every push happened before the close: look once more, now that all are visible.
            if self.is_stopped() {
                return self.stopped_recv(next);
            }
            return match self.take_at(next, inbox) {
                true => self.unpack(inbox).map_or(Recv::Empty, Recv::Item),
                false => Recv::Incomplete,
            };
        }
        Recv::Empty
    }

    /// Takes the next batch, waiting for it. While nothing is deliverable, `help` is called as
    /// long as it returns `true` and the consumer keeps no batch beside the ring (it would
    /// make none: see [`Channel::should_skip`], and a help that makes nothing may still use
    /// up a piece of the executor's job); then the consumer sleeps until a batch, a failure
    /// or the end arrives.
    pub fn recv(&self, inbox: &mut Inbox<T>, mut help: impl FnMut() -> bool) -> Recv<T> {
        self.wake_sleepers();
        loop {
            match self.try_recv(inbox) {
                Recv::Empty => {}
                other => return other,
            }
            if self.overflow_len.load(Ordering::Acquire) > 0 || !help() {
                break;
            }
        }
        loop {
            match self.try_recv(inbox) {
                Recv::Empty => {}
                other => return other,
            }
            self.sleep_for_next();
        }
    }

    /// Sleeps until the next batch may have arrived, the epoch stopped or closed (or spuriously).
    fn sleep_for_next(&self) {
        let guard = lock(&self.sleep);
        let next = self.head.load(Ordering::Relaxed);
        if next >= self.total {
            return;
        }
        let stamp = self
            .slot(next)
            .stamp
            .fetch_or(CONSUMER_WAITS, Ordering::AcqRel);
        // A push into the slot adds to the stamp after this or before: it sees our bit, or we
        // see its stamp; the lead, setting its parcel aside, changes the stamp too for that
        // reason, and so does a batch put beside the ring. Stops and the close always notify
        // under `sleep`.
        if stamp & !WAIT_BITS == full(next)
            || self.stopped.load(Ordering::Relaxed)
            || self.closed.load(Ordering::Acquire)
            || self.in_overflow(next)
            || self.is_ahead(next)
        {
            return;
        }
        drop(self.ready.wait(guard).unwrap_or_else(|e| e.into_inner()));
    }

    /// Stops the epoch (under `sleep`, which the caller holds) and wakes everyone.
    fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        self.room.notify_all();
        self.ready.notify_all();
    }

    /// Drops the buffered batches of a stopped epoch. A push that lands after this drops its
    /// own batch (it checks `stopped` after filling its slot).
    fn drain(&self) {
        for slot in self.slots.iter() {
            drop_contents(&slot.items);
        }
        self.drop_overflow();
        drop_contents(&self.ahead_items);
    }

    /// Drops the batches beside the ring.
    fn drop_overflow(&self) {
        let aside = mem::take(&mut *lock(&self.overflow));
        self.overflow_len.store(0, Ordering::Release);
        drop(aside);
    }

    /// The consumer went away: producers stop, waiting ones wake, buffered batches are dropped.
    pub fn cancel(&self) {
        {
            let _guard = lock(&self.sleep);
            self.stop();
        }
        self.drain();
    }

    /// A producer panicked: the epoch stops and the consumer receives `failure` from its next
    /// `recv`, if it is the first one; a later one is dropped, payload and index together.
    pub fn fail(&self, failure: Failure) {
        let late = {
            let mut first = lock(&self.sleep);
            let late = if self.stopped.load(Ordering::Relaxed) || first.is_some() {
                Some(failure)
            } else {
                *first = Some(failure);
                None
            };
            self.stop();
            late
        };
        drop(late);
        self.drain();
    }

    /// No more pushes will come (the producers' fold returned).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let _guard = lock(&self.sleep);
        self.ready.notify_one();
    }
}

/// The lead of an ordered epoch in parcels, given back when dropped (see [`Channel::lead`]).
pub struct Lead<'c>(&'c AtomicBool);

impl Drop for Lead<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Counts a producer that waits for room awake, so that ordered producers waiting before they
/// take a batch number can leave the polling to one of them: polling takes the CPU from the
/// consumer on a busy machine.
struct Spinner<'c>(&'c AtomicUsize);

impl<'c> Spinner<'c> {
    fn always(spinning: &'c AtomicUsize) -> Self {
        spinning.fetch_add(1, Ordering::Relaxed);
        Self(spinning)
    }

    fn try_begin(spinning: &'c AtomicUsize) -> Option<Self> {
        if spinning.fetch_add(1, Ordering::Relaxed) == 0 {
            Some(Self(spinning))
        } else {
            spinning.fetch_sub(1, Ordering::Relaxed);
            None
        }
    }
}

impl Drop for Spinner<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;

    fn drain<T>(ch: &Channel<T>) -> Vec<T> {
        drain_with(ch, &mut Inbox::default())
    }

    #[test]
    fn ordered_delivers_in_sequence_whatever_the_push_order() {
        let ch = Channel::new(4, true, 4);
        for seq in [3, 1, 0, 2] {
            ch.push(seq, seq, true).unwrap();
        }
        assert_eq!(drain(&ch), vec![0, 1, 2, 3]);
    }

    #[test]
    fn unordered_is_first_in_first_out() {
        let ch = Channel::new(3, false, 3);
        for seq in [2, 0, 1] {
            ch.push(seq, seq, true).unwrap();
        }
        assert_eq!(drain(&ch), vec![2, 0, 1]);
    }

    #[test]
    fn empty_epoch_is_finished_at_once() {
        let ch = Channel::<u8>::new(1, true, 0);
        let mut inbox = Inbox::default();
        assert!(matches!(ch.try_recv(&mut inbox), Recv::Finished));
    }

    #[test]
    fn a_full_channel_makes_producers_wait_until_the_consumer_takes() {
        let ch = Arc::new(Channel::new(2, false, 100));
        let producer = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || (0..100).for_each(|i| ch.push(i, i, true).unwrap()))
        };
        let got = drain(&ch);
        producer.join().unwrap();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn ordered_window_holds_back_batches_beyond_it() {
        let ch = Arc::new(Channel::new(1, true, 2));
        let mut inbox = Inbox::default();
        let ahead = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || ch.push(1, 1, true))
        };
        // Batch 1 is outside the window of one until batch 0 is taken.
        thread::sleep(std::time::Duration::from_millis(20));
        assert!(matches!(ch.try_recv(&mut inbox), Recv::Empty));
        ch.push(0, 0, true).unwrap();
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(0)));
        ahead.join().unwrap().unwrap();
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(1)));
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
    }

    #[test]
    fn cancel_wakes_waiting_producers_and_hands_back_their_batches() {
        let ch = Arc::new(Channel::new(1, false, 10));
        ch.push(0, 0, true).unwrap();
        let blocked = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || ch.push(1, 1, true))
        };
        thread::sleep(std::time::Duration::from_millis(20));
        ch.cancel();
        assert_eq!(blocked.join().unwrap(), Err(1));
        assert_eq!(ch.push(2, 2, true), Err(2));
        assert!(ch.is_stopped());
    }

    #[test]
    fn a_failure_reaches_the_consumer_first() {
        let ch = Channel::new(4, false, 4);
        let mut inbox = Inbox::default();
        ch.push(0, 0, true).unwrap();
        ch.fail(Failure::anywhere(Box::new("boom")));
        match ch.recv(&mut inbox, || false) {
            Recv::Failed(f) => assert_eq!(f.payload.downcast_ref::<&str>(), Some(&"boom")),
            _ => panic!("expected the failure"),
        }
    }

    #[test]
    fn closing_early_is_reported_as_incomplete() {
        let ch = Channel::new(4, true, 3);
        let mut inbox = Inbox::default();
        ch.push(0, 0, true).unwrap();
        ch.close();
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(0)));
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Incomplete));
    }

    #[test]
    fn batches_the_consumer_makes_never_wait() {
        let ch = Channel::new(1, true, 3);
        let mut inbox = Inbox::default();
        let mut pushed = false;
        let got = ch.recv(&mut inbox, || {
            if pushed {
                return false;
            }
            pushed = true;
            // No room for batch 1, but nothing beside the ring yet: the consumer may make it.
            assert!(!ch.should_skip(1, Maker::Consumer));
            // Batch 1 is beyond the window of one, yet the consumer's own push does not wait.
            ch.push(1, 1, false).unwrap();
            // Now it keeps one beyond the window: it leaves batch 2 for later.
            assert!(ch.should_skip(2, Maker::Consumer));
            ch.push(0, 0, false).unwrap();
            true
        });
        assert!(matches!(got, Recv::Item(0)));
        assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(1)));
        // Batch 2's place is free again once batch 1 left the overflow.
        ch.push(2, 2, true).unwrap();
        assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(2)));
        assert!(matches!(ch.try_recv(&mut inbox), Recv::Finished));
    }
    #[test]
    fn a_parcel_arrives_batch_by_batch_in_order_and_holds_its_place_until_emptied() {
        let ch = Arc::new(Channel::with_parcels(1, 3, true, 2));
        let mut inbox = Inbox::with_capacity(3);
        ch.push_all(0, [10, 11, 12].into_iter(), true).unwrap();
        let next = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || ch.push_all(1, [13, 14].into_iter(), true).unwrap())
        };
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(10)));
        assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(11)));
        // The place is still the first parcel's: the second cannot be in it yet.
        thread::sleep(std::time::Duration::from_millis(20));
        assert!(!ch.in_slot(1));
        assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(12)));
        next.join().unwrap();
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(13)));
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Item(14)));
        assert!(matches!(ch.recv(&mut inbox, || false), Recv::Finished));
    }

    #[test]
    fn a_parcel_the_consumer_put_aside_keeps_its_order() {
        let ch = Channel::with_parcels(1, 2, true, 3);
        let mut inbox = Inbox::with_capacity(2);
        // Parcel 0 waits in the ring; parcels 2 and 1, made on the consumer's thread without
        // room, go beside it.
        ch.push_all(0, [0, 1].into_iter(), true).unwrap();
        ch.push_all(2, [4, 5].into_iter(), false).unwrap();
        ch.push_all(1, [2, 3].into_iter(), false).unwrap();
        assert_eq!(drain_with(&ch, &mut inbox), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_stop_drops_the_parcels_in_the_ring() {
        let token = Arc::new(());
        let ch = Channel::with_parcels(2, 2, false, 4);
        let mut inbox = Inbox::with_capacity(2);
        let parcel = || [Arc::clone(&token), Arc::clone(&token)].into_iter();
        ch.push_all(0, parcel(), true).unwrap();
        ch.push_all(1, parcel(), true).unwrap();
        assert!(matches!(ch.try_recv(&mut inbox), Recv::Item(_)));
        ch.cancel();
        assert!(ch.push_all(2, parcel(), true).is_err());
        // The consumer's inbox holds the rest of its parcel; nothing else is left.
        drop(inbox);
        assert_eq!(Arc::strong_count(&token), 1);
    }

    fn drain_with<T>(ch: &Channel<T>, inbox: &mut Inbox<T>) -> Vec<T> {
        let mut out = Vec::new();
        loop {
            match ch.recv(inbox, || false) {
                Recv::Item(x) => out.push(x),
                Recv::Finished => return out,
                _ => panic!("unexpected end"),
            }
        }
    }
}
