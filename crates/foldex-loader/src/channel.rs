//! The bounded channel between the producers of an epoch and its one consumer.
//!
//! Every batch of an epoch has a sequence number (`0..total`). Producers `push` finished
//! batches; the consumer takes them out in sequence order (`ordered`) or first-finished-first-out.
//! The channel holds the whole protocol of an epoch, so that the loom tests check all of it.
//!
//! **Positions.** Each pushed batch gets a *position*, the order in which the consumer takes
//! it: its sequence number when ordered, the order of arrival (a counter) when not. Position
//! `p` lives in slot `p % capacity` of a ring, which the consumer empties in position order; a
//! slot's stamp says which position fills it. The common paths take no shared lock: a push is
//! one short, uncontended per-slot lock and a stamp swap; a take the same plus one counter
//! increment. One mutex with two condvars is kept for sleeping only, and each side registers
//! as asleep in the very atomic word the other side changes, so that a wake-up is sent exactly
//! when someone may sleep and is never lost.
//!
//! - **Back pressure.** A push of position `p` waits while `p >= delivered + capacity`, where
//!   `delivered` is the position the consumer needs next; so at most `capacity` finished
//!   batches wait, in the buffer or (ordered) the reorder window. Position `delivered` itself
//!   never waits, which is why producers that take batches in sequence order can never all be
//!   stuck (see `epoch.rs`). A producer with no room yields for a while before it sleeps; only
//!   producers that hold a batch the consumer will need (ordered) all stay awake that long,
//!   otherwise one does and the others sleep at once (unordered, a producer takes its position
//!   only once there is room; ordered, [`Channel::should_skip`] waits for room before the
//!   batch number is taken). Sleeping producers are woken once half the room is free while
//!   nobody else refills it, or (ordered) when the consumer is about to run dry; not after
//!   every take.
//! - **Helping.** While the consumer lends its thread to the executor ([`Channel::recv`] calls
//!   `help`), no push waits: a producer the consumer's help is waiting for must not wait for the
//!   consumer. A push with no room then goes to a small overflow list beside the ring, and
//!   producers skip new batches (see [`Channel::should_skip`]), so the overshoot stays bounded.
//! - **Cancellation.** [`Channel::cancel`] (the consumer went away) and [`Channel::fail`] (a
//!   batch panicked) stop the epoch: every waiting producer wakes and drops its batch, and
//!   batches still buffered are dropped.
//! - **Completion.** The consumer learns that the epoch is over when every batch was delivered,
//!   or, if producers stopped before that (an executor that skipped indices), from
//!   [`Channel::close`].

use crate::sync::{AtomicBool, AtomicUsize, Backoff, Condvar, Mutex, MutexGuard, Ordering};
use foldex_core::PanicPayload;
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

/// `Channel::taken`: some producer sleeps (or is about to) for room.
const ASLEEP: usize = 1;
/// `Channel::taken`: the consumer is running executor work inside `recv`.
const HELPING: usize = 2;
/// `Channel::taken`: one delivered batch; the count sits above the two flags.
const ONE: usize = 4;

/// `Slot::stamp`: the consumer sleeps (or is about to) until this slot is filled.
const WAITING: usize = 1;
/// `Slot::stamp` of an empty slot.
const EMPTY: usize = 0;

/// The stamp of a slot that holds position `position`.
fn filled(position: usize) -> usize {
    (position + 1) << 1
}

fn lock<U>(mutex: &Mutex<U>) -> MutexGuard<'_, U> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// One place of the ring, on its own cache lines so that a producer filling one slot does not
/// slow the consumer emptying the next.
#[repr(align(128))]
struct Slot<T> {
    /// `filled(p)` once position `p` is in `item`, [`EMPTY`] after the take; bit [`WAITING`]
    /// may be set on top by a consumer about to sleep.
    stamp: AtomicUsize,
    /// Never contended in the common case: the producer writes before the stamp says so, and
    /// the consumer takes after. It is what lets a stop drop a batch exactly once.
    item: Mutex<Option<T>>,
}

/// A bounded, cancellable channel with an optional reorder window. See the module docs.
pub struct Channel<T> {
    slots: Box<[Slot<T>]>,
    /// Batches pushed without room while the consumer helped (or by the consumer itself), with
    /// their positions.
    overflow: Mutex<Vec<(usize, T)>>,
    /// `overflow.len()`, so that the consumer looks there only when something is in it.
    overflow_len: AtomicUsize,
    /// `delivered * ONE | HELPING | ASLEEP`: the consumer's progress and the two flags the
    /// producers must see together with it.
    taken: AtomicUsize,
    /// Unordered: the next position to hand out.
    arrivals: AtomicUsize,
    /// How many producers wait for room awake, spinning and yielding (one at most).
    spinning: AtomicUsize,
    /// The producers have stopped, by cancellation or failure. Set under `sleep`.
    stopped: AtomicBool,
    /// No more pushes will come.
    closed: AtomicBool,
    /// For sleeping only; holds the first failure.
    sleep: Mutex<Option<PanicPayload>>,
    /// Producers wait here for room.
    room: Condvar,
    /// The consumer waits here for a batch.
    ready: Condvar,
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
                .map(|_| Slot {
                    stamp: AtomicUsize::new(EMPTY),
                    item: Mutex::new(None),
                })
                .collect(),
            overflow: Mutex::new(Vec::new()),
            overflow_len: AtomicUsize::new(0),
            taken: AtomicUsize::new(0),
            arrivals: AtomicUsize::new(0),
            spinning: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            sleep: Mutex::new(None),
            room: Condvar::new(),
            ready: Condvar::new(),
            capacity,
            ordered,
            total,
        }
    }

    /// The number of batches of the epoch.
    pub fn total(&self) -> usize {
        self.total
    }

    /// `true` while the consumer lends its thread to the executor: producers must not wait.
    pub fn is_helping(&self) -> bool {
        self.taken.load(Ordering::Acquire) & HELPING != 0
    }

    /// `true` once the epoch is cancelled or failed: producers should stop.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    fn slot(&self, position: usize) -> &Slot<T> {
        &self.slots[position % self.capacity]
    }

    /// Whether position `position` fits, given the word `taken` read from the channel.
    fn has_room(&self, position: usize, taken: usize) -> bool {
        position < taken / ONE + self.capacity
    }

    /// Whether position `position` is in its slot.
    fn in_slot(&self, position: usize) -> bool {
        self.slot(position).stamp.load(Ordering::Acquire) & !WAITING == filled(position)
    }

    fn in_overflow(&self, position: usize) -> bool {
        self.overflow_len.load(Ordering::Acquire) > 0
            && lock(&self.overflow).iter().any(|(p, _)| *p == position)
    }

    /// Pushes batch `seq`, waiting while there is no room for it (unless the consumer is
    /// helping, or `wait` is false). Returns the batch if the epoch was stopped, so that the
    /// caller drops it.
    pub fn push(&self, seq: usize, item: T, wait: bool) -> Result<(), T> {
        loop {
            if self.is_stopped() {
                return Err(item);
            }
            let taken = self.taken.load(Ordering::Acquire);
            // Unordered, a producer takes a position only once there is room for it, so that
            // no sleeping producer holds a position the consumer needs next.
            let position = if self.ordered {
                assert!(seq >= taken / ONE, "a batch was pushed twice");
                seq
            } else {
                self.arrivals.load(Ordering::Relaxed)
            };
            if self.has_room(position, taken) {
                if !self.ordered
                    && self
                        .arrivals
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
            if !wait || taken & HELPING != 0 {
                let position = if self.ordered {
                    seq
                } else {
                    self.arrivals.fetch_add(1, Ordering::Relaxed)
                };
                self.put_aside(position, item);
                return Ok(());
            }
            // Ordered, this producer holds batch `seq`, which the consumer will need: it stays
            // awake as long as it may. Unordered it holds nothing, and one spinner is enough.
            self.wait_for_room(|| self.next_position(seq), !self.ordered);
        }
    }

    /// The next position a producer would take: its own batch number when ordered.
    fn next_position(&self, seq: usize) -> usize {
        if self.ordered {
            seq
        } else {
            self.arrivals.load(Ordering::Relaxed)
        }
    }

    /// Waits until `position()` may have room, the consumer helps or the epoch stops (or
    /// spuriously): the caller looks again. With `exclusive`, only one producer spins and
    /// yields before it sleeps; the others sleep at once.
    fn wait_for_room(&self, position: impl Fn() -> usize, exclusive: bool) {
        let mut backoff = Backoff::new();
        let mut spinner = if exclusive {
            Spinner::try_begin(&self.spinning)
        } else {
            Some(Spinner::always(&self.spinning))
        };
        loop {
            if self.is_stopped() {
                return;
            }
            let taken = self.taken.load(Ordering::Acquire);
            if self.has_room(position(), taken) || taken & HELPING != 0 {
                return;
            }
            if spinner.is_none() || !backoff.snooze() {
                break;
            }
        }
        // Sleeping now: the consumer must not count on this producer to keep up.
        drop(spinner.take());
        let guard = lock(&self.sleep);
        let taken = self.taken.fetch_or(ASLEEP, Ordering::AcqRel);
        // `stopped` is only set under `sleep`: read here, it cannot change before the wait.
        // `position()` only grows: a stale value merely sends the caller round once more.
        if self.stopped.load(Ordering::Relaxed)
            || self.has_room(position(), taken)
            || taken & HELPING != 0
        {
            return;
        }
        // The consumer sees `ASLEEP` with (or after) its next take or its start of helping,
        // and wakes us under `sleep`.
        let asleep = std::time::Instant::now();
        drop(self.room.wait(guard).unwrap_or_else(|e| e.into_inner()));
        crate::stats::note_blocked(asleep);
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
        let stamp = slot.stamp.swap(filled(position), Ordering::AcqRel);
        if stamp & WAITING != 0 {
            self.wake_consumer();
        }
        if self.is_stopped() {
            // The stop may have emptied the slots before this batch arrived: drop it now.
            let late = lock(&slot.item).take();
            drop(late);
        }
    }

    /// Keeps position `position` beside the ring: there is no room, and the push may not wait.
    fn put_aside(&self, position: usize, item: T) {
        {
            let mut overflow = lock(&self.overflow);
            overflow.push((position, item));
            self.overflow_len.fetch_add(1, Ordering::Release);
        }
        // Rare (only while the consumer helps), so the consumer is always told.
        self.wake_consumer();
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

    fn wake_producers(&self) {
        let _guard = lock(&self.sleep);
        // Sleepers set the flag again under `sleep` if they still find no room.
        self.taken.fetch_and(!ASLEEP, Ordering::AcqRel);
        self.room.notify_all();
    }

    /// Whether a producer should leave batch `seq` to a later round instead of computing it
    /// now. `on_consumer` says the producer runs on the consumer's thread, inside its help.
    ///
    /// On the consumer's thread: skip if a batch is ready, so that the consumer goes back to
    /// delivering it. Elsewhere: skip only while the consumer helps and there is no room (a push
    /// would have to overshoot the bound, since it may not wait then).
    ///
    /// Ordered, a producer that finds no room for `seq` (the next batch number) waits here
    /// first, before it takes that number: waiting without a batch in hand, it may sleep
    /// without the consumer ever waiting for it.
    pub fn should_skip(&self, seq: usize, on_consumer: bool) -> bool {
        let taken = self.taken.load(Ordering::Acquire);
        if !on_consumer && taken & HELPING == 0 {
            if self.ordered && !self.has_room(seq, taken) {
                self.wait_for_room(|| seq, true);
            }
            return false;
        }
        let position = if self.ordered {
            seq
        } else {
            self.arrivals.load(Ordering::Relaxed)
        };
        let no_room = !self.has_room(position, taken);
        if on_consumer {
            let next = taken / ONE;
            no_room || (next < self.total && (self.in_slot(next) || self.in_overflow(next)))
        } else {
            no_room
        }
    }

    /// Whether to wake the sleeping producers once `delivered` batches are taken. Not after
    /// every take: a producer woken for one free place pushes one batch and sleeps again, a
    /// wake-up per batch. Wake them once half the room is free, so that each wake-up fills
    /// several places; unordered, only if no producer is awake to refill it (sleepers hold no
    /// position, so the consumer never waits for one). Ordered, a sleeper may hold the batch
    /// the consumer needs: wake them also whenever it is about to run dry.
    fn worth_waking(&self, delivered: usize) -> bool {
        let half = (self.capacity / 2).max(1);
        if self.ordered {
            delivered.is_multiple_of(half) || !self.in_slot(delivered)
        } else {
            delivered.is_multiple_of(half) && self.spinning.load(Ordering::Relaxed) == 0
        }
    }

    /// Position `position`, if it has arrived.
    fn take_at(&self, position: usize) -> Option<T> {
        let slot = self.slot(position);
        if slot.stamp.load(Ordering::Acquire) & !WAITING == filled(position) {
            let item = lock(&slot.item).take();
            // Published to producers by the release of the count's increment.
            slot.stamp.store(EMPTY, Ordering::Relaxed);
            return item;
        }
        if self.overflow_len.load(Ordering::Acquire) == 0 {
            return None;
        }
        let mut overflow = lock(&self.overflow);
        let index = overflow.iter().position(|(p, _)| *p == position)?;
        self.overflow_len.fetch_sub(1, Ordering::Release);
        Some(overflow.swap_remove(index).1)
    }

    fn deliver(&self, position: usize, item: T) -> Recv<T> {
        let before = self.taken.fetch_add(ONE, Ordering::AcqRel);
        if before & ASLEEP != 0 && self.worth_waking(position + 1) {
            self.wake_producers();
        }
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
        // Only the consumer changes the count.
        let next = self.taken.load(Ordering::Relaxed) / ONE;
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

    /// Takes the next batch, waiting for it. While nothing is deliverable, `help` is called
    /// (with producers told not to wait) as long as it returns `true`; then the consumer sleeps
    /// until a batch, a failure or the end arrives.
    pub fn recv(&self, mut help: impl FnMut() -> bool) -> Recv<T> {
        loop {
            match self.try_recv() {
                Recv::Empty => {}
                other => return other,
            }
            let helped = {
                let _helping = HelpingGuard::begin(self);
                help()
            };
            if !helped {
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
        let next = self.taken.load(Ordering::Relaxed) / ONE;
        if next >= self.total {
            return;
        }
        let stamp = self.slot(next).stamp.fetch_or(WAITING, Ordering::AcqRel);
        // A push into the slot swaps the stamp after this or before: it sees `WAITING`, or we
        // see its stamp. Overflow pushes, stops and the close always notify under `sleep`.
        if stamp & !WAITING == filled(next)
            || self.stopped.load(Ordering::Relaxed)
            || self.closed.load(Ordering::Acquire)
            || self.in_overflow(next)
        {
            return;
        }
        drop(self.ready.wait(guard).unwrap_or_else(|e| e.into_inner()));
    }

    fn set_helping(&self, helping: bool) {
        if helping {
            let before = self.taken.fetch_or(HELPING, Ordering::AcqRel);
            if before & ASLEEP != 0 {
                // A waiting producer may be the very work the consumer's help waits for.
                self.wake_producers();
            }
        } else {
            self.taken.fetch_and(!HELPING, Ordering::AcqRel);
        }
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

/// The one producer that waits for room awake; the others sleep at once. Spinning producers
/// take the CPU from the consumer on a busy machine, and one is enough to refill the buffer as
/// it drains: the sleepers are woken when the consumer is about to run dry, or once half the
/// room is free if nobody spins.
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

/// Marks the consumer as helping for the duration of one `help` call, even if it unwinds.
struct HelpingGuard<'c, T>(&'c Channel<T>);

impl<'c, T> HelpingGuard<'c, T> {
    fn begin(channel: &'c Channel<T>) -> Self {
        channel.set_helping(true);
        Self(channel)
    }
}

impl<T> Drop for HelpingGuard<'_, T> {
    fn drop(&mut self) {
        self.0.set_helping(false);
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
    fn while_the_consumer_helps_pushes_never_wait() {
        let ch = Channel::new(1, true, 3);
        let mut pushed = false;
        let got = ch.recv(|| {
            if pushed {
                return false;
            }
            pushed = true;
            // No room for batch 2: the consumer's thread leaves it for later.
            assert!(ch.should_skip(2, true));
            // Batch 1 is beyond the window of one, yet the push does not wait.
            ch.push(1, 1, true).unwrap();
            ch.push(0, 0, true).unwrap();
            true
        });
        assert!(matches!(got, Recv::Item(0)));
        assert!(matches!(ch.try_recv(), Recv::Item(1)));
    }
}
