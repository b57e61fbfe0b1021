//! The byte cap of an epoch ([`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes)):
//! the bytes of the finished batches that wait for the consumer stay under a cap.
//!
//! **Admission.** A producer that has made a batch measures it ([`ByteSize`](crate::ByteSize))
//! and is *admitted* before it pushes it into the channel; the consumer *releases* the batch's
//! bytes when it takes it out. A producer is admitted at once when the batch fits beside the
//! bytes already admitted (`held + bytes <= cap`), when nothing is held (so that a batch
//! larger than the cap still travels, alone), or, ordered, when its batch is the one the
//! consumer needs next (that batch must never wait: the batches held may all be behind it).
//! Otherwise it waits until a release or a stop, and the wait is counted as time capped by
//! bytes.
//!
//! A thread that must not wait (the consumer helping, a thread that helps while it waits for
//! something below it on its stack: see `channel/mod.rs`) cannot wait here either: the batch
//! the consumer needs may be the one in the frame below it. Instead it *reserves* room before
//! it takes a batch number ([`ByteGate::reserve`]): as much as the largest batch admitted so
//! far, or the whole cap while none was. It gets room when no other reservation is held and
//! the room fits beside what is held, or nothing is held; otherwise it leaves the batch for
//! later. The batch it makes then takes the reservation's place, without waiting, whatever its
//! size: a batch's size is known only once it is made, so a batch larger than the room
//! overshoots it. One reservation at a time keeps that overshoot to one batch, whatever the
//! number of helping threads.
//!
//! **Recycled buffers.** With buffer reuse, a buffer the consumer hands back stays in the
//! loader's pool only while it fits beside what is held (else it is freed), and is counted
//! until a producer takes it again: `held` is the bytes admitted, reserved and pooled. The
//! rule "nothing is held" below looks at batches only (admitted or reserved), so that pooled
//! buffers never keep a batch from being made.
//!
//! **The bound**, for batches of any sizes, `L` the largest batch of the epoch: the bytes held
//! (admitted and pooled, as the peak counts them) never exceed `cap + L` unordered and
//! `cap + 2 L` ordered. Take a moment when they exceed `cap`, and the last moment before it
//! when `held` (reservations included) was at or under `cap`. Pooled bytes alone never exceed
//! `cap` (pooling needs a fit), so in between batches are held all along and nothing fits: no
//! batch is admitted and no room is reserved, by fitting or because nothing is held, and no
//! buffer is pooled. Only these add bytes in between:
//!
//! - the event that crossed `cap`, if it is a batch admitted, or room reserved, while nothing
//!   was held: at most `L` beyond the pooled bytes once its batch is made; no reservation was
//!   held before it, so none overshoots later;
//! - ordered, the batch the consumer needs next, at most `L`: one such batch is held at a time
//!   (the consumer takes it before it needs another, and that take releases what it added);
//! - the batch made in the one reservation held, at most `L` beyond its room.
//!
//! So at most one batch beyond `cap` unordered, two ordered. A batch admitted after a stop
//! (below) is not counted in the peak: it is dropped at once.
//!
//! **No hang.** A waiting producer holds a batch that is not needed next; the batch needed next
//! is admitted without waiting (ordered), or any admitted batch is deliverable (unordered); a
//! producer waits only while batches are held (admitted, or reserved by a thread that makes
//! one without waiting), so one is on its way to the consumer, whose take releases bytes and
//! wakes the waiters. A helping thread refused room makes no batch and does not wait; it is
//! refused only while batches are held (a reservation held is one: its thread makes its batch
//! without waiting, or gives the room back and wakes the waiters). A stop (cancel, failure)
//! wakes the waiters too: they are admitted, their push is refused, and they give the bytes
//! back ([`ByteGate::refund`]).

use crate::blocked::note_blocked;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How a batch's bytes are measured: the batch type's [`ByteSize`](crate::ByteSize), reached
/// through the loader's batch mode.
pub(crate) type Measure<T> = std::sync::Arc<dyn Fn(&T) -> usize + Send + Sync>;

#[derive(Debug, Default)]
struct Held {
    /// Bytes admitted and not yet taken by the consumer.
    bytes: usize,
    /// Room reserved by helping threads for the batches they make.
    reserved: usize,
    /// Bytes of the recycled buffers kept in the loader's pool ([`ByteGate::keep_pooled`]).
    pooled: usize,
    /// Of `bytes`, those admitted after a stop: dropped at once, not counted in the peak.
    /// A refund takes from these first.
    discarded: usize,
    /// The most `bytes - discarded + pooled` ever was (reservations are not memory yet).
    peak: usize,
    /// The largest batch admitted.
    largest: usize,
    /// Batches the consumer has taken: ordered, the position it needs next.
    taken: usize,
    /// Producers waiting for room.
    waiting: usize,
    /// Time producers waited for room, summed.
    capped: Duration,
}

impl Held {
    /// Bytes admitted or reserved: batches on their way to the consumer.
    fn in_flight(&self) -> usize {
        self.bytes.saturating_add(self.reserved)
    }

    /// Bytes admitted, reserved or pooled: what a new batch must fit beside.
    fn total(&self) -> usize {
        self.in_flight().saturating_add(self.pooled)
    }

    fn note_peak(&mut self) {
        let delivered = self.bytes.saturating_sub(self.discarded);
        self.peak = self.peak.max(delivered.saturating_add(self.pooled));
    }
}

/// The byte cap of one epoch. See the module docs.
#[derive(Debug)]
pub(crate) struct ByteGate {
    cap: usize,
    ordered: bool,
    held: Mutex<Held>,
    released: Condvar,
}

/// Room a thread that must not wait holds for the batch it makes ([`ByteGate::reserve`]).
pub(crate) struct Reservation<'g> {
    gate: &'g ByteGate,
    /// The room held; `None` once used.
    bytes: Option<usize>,
}

impl Reservation<'_> {
    /// The batch made, of `bytes`, takes the room's place.
    pub fn admit(mut self, bytes: usize) {
        if let Some(reserved) = self.bytes.take() {
            self.gate.exchange(reserved, bytes);
        }
    }
}

impl Drop for Reservation<'_> {
    /// No batch was made (none was left, the epoch stopped, or the batch panicked).
    fn drop(&mut self) {
        if let Some(reserved) = self.bytes.take() {
            self.gate.exchange(reserved, 0);
        }
    }
}

/// What a byte gate saw, for the epoch's stats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ByteFigures {
    pub cap: usize,
    pub peak: usize,
    pub largest: usize,
    pub capped: Duration,
}

impl ByteGate {
    /// A gate that holds `cap` bytes (`cap >= 1`) of batches delivered `ordered` or not.
    pub fn new(cap: usize, ordered: bool) -> Self {
        Self {
            cap: cap.max(1),
            ordered,
            held: Mutex::new(Held::default()),
            released: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Room for the batch of a thread that must not wait, or `None` (it should leave the
    /// batch for later): the largest batch so far (the whole cap before any), when no other
    /// reservation is held and the room fits beside the bytes held, or nothing is held. The
    /// room comes back when the reservation is dropped unless [`Reservation::admit`] used it.
    pub fn reserve(&self) -> Option<Reservation<'_>> {
        let mut held = self.lock();
        let bytes = if held.largest == 0 {
            self.cap
        } else {
            held.largest
        };
        // One reservation at a time: each batch made in one may overshoot its room.
        let fits = held.reserved == 0 && held.total().saturating_add(bytes) <= self.cap;
        if held.in_flight() > 0 && !fits {
            return None;
        }
        held.reserved = held.reserved.saturating_add(bytes);
        Some(Reservation {
            gate: self,
            bytes: Some(bytes),
        })
    }

    /// Counts `bytes` in place of a reservation of `reserved`.
    fn exchange(&self, reserved: usize, bytes: usize) {
        let mut held = self.lock();
        held.reserved = held.reserved.saturating_sub(reserved);
        held.bytes = held.bytes.saturating_add(bytes);
        held.note_peak();
        held.largest = held.largest.max(bytes);
        let wake = held.waiting > 0 && bytes < reserved;
        drop(held);
        if wake {
            self.released.notify_all();
        }
    }

    /// Admits `bytes` of the batch at position `seq` (its ticket), waiting for room while
    /// `stopped()` is false (see the module docs).
    pub fn admit(&self, bytes: usize, seq: usize, stopped: impl Fn() -> bool) {
        let mut held = self.lock();
        let mut since = None::<Instant>;
        loop {
            let fits = held.in_flight() == 0
                || held.total().saturating_add(bytes) <= self.cap
                || (self.ordered && seq == held.taken);
            if fits {
                break;
            }
            if stopped() {
                // Counted until its refund, but not as held for the consumer.
                held.discarded = held.discarded.saturating_add(bytes);
                break;
            }
            since.get_or_insert_with(Instant::now);
            held.waiting += 1;
            held = self.released.wait(held).unwrap_or_else(|e| e.into_inner());
            held.waiting -= 1;
        }
        held.bytes = held.bytes.saturating_add(bytes);
        held.note_peak();
        held.largest = held.largest.max(bytes);
        if let Some(since) = since {
            held.capped += since.elapsed();
            drop(held);
            note_blocked(since);
        }
    }

    /// Whether a recycled buffer of `bytes` may stay in the loader's pool: it fits beside
    /// what is held (else the pool frees it). Counted until [`ByteGate::unpool`].
    pub fn keep_pooled(&self, bytes: usize) -> bool {
        let mut held = self.lock();
        if held.total().saturating_add(bytes) > self.cap {
            return false;
        }
        held.pooled += bytes;
        held.note_peak();
        true
    }

    /// A pooled buffer of `bytes` was taken for a new batch.
    pub fn unpool(&self, bytes: usize) {
        let mut held = self.lock();
        held.pooled = held.pooled.saturating_sub(bytes);
        let wake = held.waiting > 0 && bytes > 0;
        drop(held);
        if wake {
            self.released.notify_all();
        }
    }

    /// The consumer took a batch of `bytes`.
    pub fn release(&self, bytes: usize) {
        let mut held = self.lock();
        held.bytes = held.bytes.saturating_sub(bytes);
        held.taken += 1;
        let wake = held.waiting > 0;
        drop(held);
        if wake {
            self.released.notify_all();
        }
    }

    /// An admitted batch will not be delivered (its push was refused): its bytes come back.
    pub fn refund(&self, bytes: usize) {
        let mut held = self.lock();
        held.bytes = held.bytes.saturating_sub(bytes);
        held.discarded = held.discarded.saturating_sub(bytes);
        let wake = held.waiting > 0;
        drop(held);
        if wake {
            self.released.notify_all();
        }
    }

    /// The epoch stopped, or a failure cut it: waiting producers look at `stopped()` again.
    /// Under the lock, so that a producer that saw `stopped()` false is already waiting.
    pub fn wake_all(&self) {
        let _held = self.lock();
        self.released.notify_all();
    }

    /// The figures so far.
    pub fn figures(&self) -> ByteFigures {
        let held = self.lock();
        ByteFigures {
            cap: self.cap,
            peak: held.peak,
            largest: held.largest,
            capped: held.capped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn a_batch_over_the_cap_passes_alone_and_others_wait_for_room() {
        let gate = Arc::new(ByteGate::new(100, false));
        gate.admit(250, 0, || false);
        let waiter = {
            let gate = Arc::clone(&gate);
            thread::spawn(move || gate.admit(60, 1, || false))
        };
        thread::sleep(Duration::from_millis(20));
        assert_eq!(gate.figures().peak, 250, "the second batch waits");
        gate.release(250);
        waiter.join().unwrap();
        let figures = gate.figures();
        assert_eq!((figures.peak, figures.largest), (250, 250));
        assert!(figures.capped >= Duration::from_millis(10), "{figures:?}");
    }

    #[test]
    fn ordered_the_next_batch_never_waits_and_a_stop_lets_waiters_go() {
        let gate = ByteGate::new(100, true);
        gate.admit(90, 3, || false);
        gate.admit(90, 0, || false); // the consumer's next position
        assert_eq!(gate.figures().peak, 180);
        gate.admit(90, 5, || true); // stopped: admitted, then refunded
        gate.refund(90);
        gate.release(90);
        assert!(
            gate.reserve().is_none(),
            "90 of 100 bytes held: 90 more would not fit"
        );
        gate.release(90);
        let room = gate.reserve().expect("nothing held");
        assert!(
            gate.reserve().is_none(),
            "the room of the largest batch, 90, is held"
        );
        room.admit(20);
        assert!(gate.reserve().is_none(), "20 bytes held, 90 would not fit");
        gate.release(20);
        drop(gate.reserve().expect("nothing held"));
        assert_eq!(
            gate.figures().peak,
            180,
            "not with the batch admitted after the stop"
        );
        let pooled = ByteGate::new(100, false);
        assert!(pooled.keep_pooled(70));
        assert!(!pooled.keep_pooled(40), "70 + 40 > 100");
        pooled.admit(50, 0, || false); // pooled bytes never keep a batch from being made
        assert_eq!(pooled.figures().peak, 120);
        pooled.unpool(70);
        let unknown = ByteGate::new(100, false);
        let first = unknown.reserve().expect("nothing held");
        assert!(
            unknown.reserve().is_none(),
            "before any batch, a reservation is the cap"
        );
        drop(first);
        assert!(
            unknown.reserve().is_some(),
            "a dropped reservation gives its room back"
        );
    }

    #[test]
    fn one_reservation_at_a_time_so_a_batch_over_its_room_overshoots_by_one_batch() {
        let gate = ByteGate::new(100, false);
        gate.admit(10, 0, || false);
        let room = gate.reserve().expect("10 + 10 of 100 bytes");
        assert!(gate.reserve().is_none(), "one reservation at a time");
        room.admit(150); // its size was known only once made
        assert_eq!(gate.figures().peak, 160);
        assert!(gate.reserve().is_none(), "160 bytes held, over the cap");
        gate.release(10);
        gate.release(150);
        let room = gate.reserve().expect("nothing held");
        room.admit(40);
        assert!(gate.reserve().is_none(), "40 + 150 > 100");
        assert!(gate.keep_pooled(60), "40 + 60 of 100 bytes");
        gate.release(40);
        let room = gate.reserve().expect("only pooled bytes: no batch held");
        room.admit(150);
        assert_eq!(
            gate.figures().peak,
            210,
            "the pool, under the cap, and one batch"
        );
    }
}
