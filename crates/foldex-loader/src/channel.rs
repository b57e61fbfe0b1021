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
//!   within microseconds, and a wake-up costs the consumer more than that. Only ordered
//!   producers waiting before they take a batch number ([`Channel::should_skip`]) leave the
//!   polling to one of them, and sleep until half the room is free, so that a wake-up refills
//!   several places rather than one; they hold no batch, and the consumer wakes every sleeper
//!   whenever it runs dry. A producer that holds a finished batch sleeps only until the place
//!   it needs is free. (Letting one awake producer refill the buffer while the others sleep on
//!   was measured: with items that cost 100 µs, the sleepers stayed asleep for milliseconds
//!   while the consumer waited, and two workers did the work of 1.2.)
//! - **Helping.** The consumer may lend its thread to the executor ([`Channel::recv`] calls
//!   `help`). `Executor::help` runs one piece whole and never waits on other threads, so
//!   producers may go on waiting for room meanwhile; only a batch made on the consumer's own
//!   thread must not wait (that thread is the one that makes room). It goes to a small overflow
//!   list beside the ring when there is no room, and the consumer makes a batch only when it
//!   has room and nothing to deliver (see [`Channel::should_skip`]), so the overshoot stays
//!   bounded.
//! - **Cancellation.** [`Channel::cancel`] (the consumer went away) and [`Channel::fail`] (a
//!   batch panicked) stop the epoch: every waiting producer wakes and drops its batch, and
//!   batches still buffered are dropped.
//! - **Completion.** The consumer learns that the epoch is over when every batch was delivered,
//!   or, if producers stopped before that (an executor that skipped indices), from
//!   [`Channel::close`].

use crate::sync::{AtomicBool, AtomicUsize, Backoff, Condvar, Mutex, MutexGuard, Ordering};
use crossbeam_utils::CachePadded;
use foldex_core::PanicPayload;
use std::cmp::Ordering as Compare;
use std::mem;

/// What the consumer gets from [`Channel::recv`] or [`Channel::try_recv`].
#[derive(Debug)]
pub enum Recv<T> {
    /// The next batch.
    Item(T),
    /// Nothing deliverable yet (only from `try_recv`).
    Empty,
    /// Every batch of the epoch was delivered.
    Finished,
    /// A producer panicked with this payload; the epoch is stopped.
    Failed(PanicPayload),
    /// The producers finished without pushing every batch: the executor skipped indices.
    Incomplete {
        /// How many batches were delivered.
        delivered: usize,
    },
}

/// Stamp bit: the consumer sleeps (or is about to) until this slot holds its next position.
const CONSUMER_WAITS: usize = 1;
/// Stamp bit: some producer sleeps (or is about to) until this slot is free for a later lap.
const PRODUCER_WAITS: usize = 2;
/// Stamp bit: the slot holds its position (else it is free for it).
const FULL: usize = 4;
/// The position sits above the three bits.
const SHIFT: u32 = 3;
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

/// One place of the ring, on its own cache lines so that a producer filling one slot does not
/// slow the consumer emptying the next.
#[repr(align(128))]
struct Slot<T> {
    /// `free(p)` or `full(p)` for the position `p` of the slot's current lap, with the wait
    /// bits on top.
    stamp: AtomicUsize,
    /// Never contended in the common case: the producer writes before the stamp says so, and
    /// the consumer takes after. It is what lets a stop drop a batch exactly once.
    item: Mutex<Option<T>>,
}

/// A bounded, cancellable channel with an optional reorder window. See the module docs.
pub struct Channel<T> {
    slots: Box<[Slot<T>]>,
    /// The next position the consumer takes, i.e. the batches delivered. Only the consumer
    /// writes it; producers never read it on their common path.
    head: CachePadded<AtomicUsize>,
    /// Unordered: the next position to hand out.
    tail: CachePadded<AtomicUsize>,
    /// Batches the consumer made itself while there was no room, with their positions.
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
    sleep: CachePadded<Mutex<Option<PanicPayload>>>,
    /// Producers wait here for room.
    room: CachePadded<Condvar>,
    /// The consumer waits here for a batch.
    ready: CachePadded<Condvar>,
    capacity: usize,
    ordered: bool,
    total: usize,
}

impl<T> Channel<T> {
    /// A channel for `total` batches that holds at most `capacity` finished ones (`capacity >= 1`).
    pub fn new(capacity: usize, ordered: bool, total: usize) -> Self {
        assert!(
            capacity >= 1,
            "a loader channel needs room for at least one batch"
        );
        Self {
            slots: (0..capacity)
                .map(|i| Slot {
                    stamp: AtomicUsize::new(free(i)),
                    item: Mutex::new(None),
                })
                .collect(),
            head: CachePadded::new(AtomicUsize::new(0)),
            tail: CachePadded::new(AtomicUsize::new(0)),
            // Rarely more than one batch: reserved up front, so that the consumer's first batch
            // put aside allocates nothing mid-epoch.
            overflow: Mutex::new(Vec::with_capacity(4)),
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
        }
    }

    /// The number of batches of the epoch.
    pub fn total(&self) -> usize {
        self.total
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
    pub fn push(&self, seq: usize, item: T, wait: bool) -> Result<(), T> {
        loop {
            if self.is_stopped() {
                return Err(item);
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
                    self.put(position, item);
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
                self.put_aside(position, item);
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
        let mut backoff = Backoff::new();
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

    /// Puts position `position` into its slot (there is room for it) and wakes the consumer if
    /// it sleeps on that slot.
    fn put(&self, position: usize, item: T) {
        let slot = self.slot(position);
        {
            let mut cell = lock(&slot.item);
            assert!(cell.is_none(), "a batch was pushed twice");
            *cell = Some(item);
        }
        let stamp = slot.stamp.fetch_add(FULL, Ordering::AcqRel);
        debug_assert_eq!(stamp & !WAIT_BITS, free(position));
        if stamp & CONSUMER_WAITS != 0 {
            self.wake_consumer();
        }
        if self.is_stopped() {
            // The stop may have emptied the slots before this batch arrived: drop it now.
            let late = lock(&slot.item).take();
            drop(late);
        }
    }

    /// Keeps position `position` beside the ring: the consumer made it, and there is no room.
    fn put_aside(&self, position: usize, item: T) {
        {
            let mut overflow = lock(&self.overflow);
            overflow.push((position, item));
            self.overflow_len.fetch_add(1, Ordering::Release);
        }
        if self.is_stopped() {
            let late = mem::take(&mut *lock(&self.overflow));
            self.overflow_len.store(0, Ordering::Release);
            drop(late);
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

    /// Whether a producer should leave batch `seq` to a later round instead of computing it
    /// now. `on_consumer` says the producer runs on the consumer's thread, inside its help.
    ///
    /// On the consumer's thread: skip if there is no room or a batch is ready, so that the
    /// consumer goes back to delivering. Elsewhere never; but ordered, a producer that finds no
    /// room for `seq` (the next batch number) waits here first, before it takes that number:
    /// waiting without a batch in hand, it may sleep without the consumer ever waiting for it.
    pub fn should_skip(&self, seq: usize, on_consumer: bool) -> bool {
        if !on_consumer {
            if self.ordered && self.room_for(seq) == Compare::Less {
                self.wait_for_room(|| seq, |seq| self.refill_target(seq), true);
            }
            return false;
        }
        let next = self.head.load(Ordering::Relaxed);
        self.room_for(self.next_position(seq)) == Compare::Less
            || (next < self.total && (self.in_slot(next) || self.in_overflow(next)))
    }

    /// Position `position`, if it has arrived; its slot is then free for the next lap.
    fn take_at(&self, position: usize) -> Option<T> {
        let slot = self.slot(position);
        let item = if slot.stamp.load(Ordering::Acquire) & !WAIT_BITS == full(position) {
            lock(&slot.item).take()
        } else {
            if self.overflow_len.load(Ordering::Acquire) == 0 {
                return None;
            }
            let mut overflow = lock(&self.overflow);
            let index = overflow.iter().position(|(p, _)| *p == position)?;
            self.overflow_len.fetch_sub(1, Ordering::Release);
            Some(overflow.swap_remove(index).1)
        };
        let stamp = slot
            .stamp
            .swap(free(position + self.capacity), Ordering::AcqRel);
        if stamp & PRODUCER_WAITS != 0 {
            self.wake_producers();
        }
        item
    }

    fn deliver(&self, position: usize, item: T) -> Recv<T> {
        self.head.store(position + 1, Ordering::Release);
        Recv::Item(item)
    }

    /// What a stopped epoch gives the consumer: the failure, once.
    fn stopped_recv(&self, next: usize) -> Recv<T> {
        if let Some(payload) = lock(&self.sleep).take() {
            Recv::Failed(payload)
        } else if next == self.total {
            Recv::Finished
        } else {
            Recv::Empty
        }
    }

    /// Takes the next batch if one is deliverable, without waiting.
    pub fn try_recv(&self) -> Recv<T> {
        // Only the consumer changes it.
        let next = self.head.load(Ordering::Relaxed);
        if self.is_stopped() {
            return self.stopped_recv(next);
        }
        if next == self.total {
            return Recv::Finished;
        }
        if let Some(item) = self.take_at(next) {
            return self.deliver(next, item);
        }
        if self.closed.load(Ordering::Acquire) {
            // Every push happened before the close: look once more, now that all are visible.
            if self.is_stopped() {
                return self.stopped_recv(next);
            }
            return match self.take_at(next) {
                Some(item) => self.deliver(next, item),
                None => Recv::Incomplete { delivered: next },
            };
        }
        Recv::Empty
    }

    /// Takes the next batch, waiting for it. While nothing is deliverable, `help` is called as
    /// long as it returns `true`; then the consumer sleeps until a batch, a failure or the end
    /// arrives.
    pub fn recv(&self, mut help: impl FnMut() -> bool) -> Recv<T> {
        self.wake_sleepers();
        loop {
            match self.try_recv() {
                Recv::Empty => {}
                other => return other,
            }
            if !help() {
                break;
            }
        }
        loop {
            match self.try_recv() {
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
        // see its stamp. Stops and the close always notify under `sleep`; overflow pushes come
        // from this very thread.
        if stamp & !WAIT_BITS == full(next)
            || self.stopped.load(Ordering::Relaxed)
            || self.closed.load(Ordering::Acquire)
            || self.in_overflow(next)
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
            let item = lock(&slot.item).take();
            drop(item);
        }
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

    /// A producer panicked: the epoch stops and the consumer receives `payload` (the first one
    /// only) from its next `recv`.
    pub fn fail(&self, payload: PanicPayload) {
        let late = {
            let mut failure = lock(&self.sleep);
            let late = if self.stopped.load(Ordering::Relaxed) || failure.is_some() {
                Some(payload)
            } else {
                *failure = Some(payload);
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
        let mut out = Vec::new();
        loop {
            match ch.recv(|| false) {
                Recv::Item(x) => out.push(x),
                Recv::Finished => return out,
                _ => panic!("unexpected end"),
            }
        }
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
        assert!(matches!(ch.try_recv(), Recv::Finished));
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
        let ahead = {
            let ch = Arc::clone(&ch);
            thread::spawn(move || ch.push(1, 1, true))
        };
        // Batch 1 is outside the window of one until batch 0 is taken.
        thread::sleep(std::time::Duration::from_millis(20));
        assert!(matches!(ch.try_recv(), Recv::Empty));
        ch.push(0, 0, true).unwrap();
        assert!(matches!(ch.recv(|| false), Recv::Item(0)));
        ahead.join().unwrap().unwrap();
        assert!(matches!(ch.recv(|| false), Recv::Item(1)));
        assert!(matches!(ch.recv(|| false), Recv::Finished));
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
        ch.push(0, 0, true).unwrap();
        ch.fail(Box::new("boom"));
        match ch.recv(|| false) {
            Recv::Failed(p) => assert_eq!(p.downcast_ref::<&str>(), Some(&"boom")),
            _ => panic!("expected the failure"),
        }
    }

    #[test]
    fn closing_early_is_reported_as_incomplete() {
        let ch = Channel::new(4, true, 3);
        ch.push(0, 0, true).unwrap();
        ch.close();
        assert!(matches!(ch.recv(|| false), Recv::Item(0)));
        assert!(matches!(
            ch.recv(|| false),
            Recv::Incomplete { delivered: 1 }
        ));
    }

    #[test]
    fn batches_the_consumer_makes_never_wait() {
        let ch = Channel::new(1, true, 3);
        let mut pushed = false;
        let got = ch.recv(|| {
            if pushed {
                return false;
            }
            pushed = true;
            // No room for batch 2: the consumer's thread leaves it for later.
            assert!(ch.should_skip(2, true));
            // Batch 1 is beyond the window of one, yet the consumer's own push does not wait.
            ch.push(1, 1, false).unwrap();
            ch.push(0, 0, false).unwrap();
            true
        });
        assert!(matches!(got, Recv::Item(0)));
        assert!(matches!(ch.try_recv(), Recv::Item(1)));
        // Batch 2's place is free again once batch 1 left the overflow.
        ch.push(2, 2, true).unwrap();
        assert!(matches!(ch.try_recv(), Recv::Item(2)));
        assert!(matches!(ch.try_recv(), Recv::Finished));
    }
}
