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
//! the consumer needs may be the one in the frame below it. It starts a batch only while one
//! as large as the largest so far fits beside the bytes held, or nothing is held, and is
//! admitted without waiting for the batch it made.
//!
//! **The bound.** Waiting admissions keep `held` at or under `cap`, except the two exceptions
//! above, which add one batch at most beyond it. A helping thread's batch fits when it starts;
//! it goes beyond the cap only when batches admitted while it was made took its room, by one
//! batch at most per helping thread. So the bytes held never exceed `cap` plus the largest
//! batch, plus one batch per thread that makes batches while it helps, and then only in a
//! race.
//!
//! **No hang.** A waiting producer holds a batch that is not needed next; the batch needed next
//! is admitted without waiting (ordered), or any admitted batch is deliverable (unordered), and
//! `held > 0` means such a batch is on its way to the consumer, whose take releases bytes and
//! wakes the waiters. A stop (cancel, failure) wakes them too: they are admitted, their push is
//! refused, and they give the bytes back ([`ByteGate::refund`]).

use crate::stats::note_blocked;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How a batch's bytes are measured: the batch type's [`ByteSize`](crate::ByteSize), reached
/// through the loader's batch mode.
pub(crate) type Measure<T> = std::sync::Arc<dyn Fn(&T) -> usize + Send + Sync>;

#[derive(Debug, Default)]
struct Held {
    /// Bytes admitted and not yet taken by the consumer.
    bytes: usize,
    /// The most `bytes` ever was.
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

/// The byte cap of one epoch. See the module docs.
#[derive(Debug)]
pub(crate) struct ByteGate {
    cap: usize,
    ordered: bool,
    held: Mutex<Held>,
    released: Condvar,
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

    /// Whether a thread that must not wait should leave its batch for later: a batch as large
    /// as the largest so far would not fit, and a held batch is on its way to the consumer.
    pub fn is_full(&self) -> bool {
        let held = self.lock();
        held.bytes > 0 && held.bytes.saturating_add(held.largest.max(1)) > self.cap
    }

    /// Admits `bytes` of the batch at position `seq` (its ticket), waiting for room while
    /// `wait` is true and `stopped()` is false (see the module docs).
    pub fn admit(&self, bytes: usize, seq: usize, wait: bool, stopped: impl Fn() -> bool) {
        let mut held = self.lock();
        let mut since = None::<Instant>;
        loop {
            let fits = held.bytes == 0
                || held.bytes.saturating_add(bytes) <= self.cap
                || (self.ordered && seq == held.taken);
            if fits || !wait || stopped() {
                break;
            }
            since.get_or_insert_with(Instant::now);
            held.waiting += 1;
            held = self.released.wait(held).unwrap_or_else(|e| e.into_inner());
            held.waiting -= 1;
        }
        held.bytes = held.bytes.saturating_add(bytes);
        held.peak = held.peak.max(held.bytes);
        held.largest = held.largest.max(bytes);
        if let Some(since) = since {
            held.capped += since.elapsed();
            drop(held);
            note_blocked(since);
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
        gate.admit(250, 0, true, || false);
        let waiter = {
            let gate = Arc::clone(&gate);
            thread::spawn(move || gate.admit(60, 1, true, || false))
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
        gate.admit(90, 3, true, || false);
        gate.admit(90, 0, true, || false); // the consumer's next position
        assert_eq!(gate.figures().peak, 180);
        gate.admit(90, 5, true, || true); // stopped: admitted, then refunded
        gate.refund(90);
        gate.release(90);
        assert!(gate.is_full(), "90 of 100 bytes held: a batch of 90 would not fit");
        gate.admit(20, 6, false, || false); // a helping thread's batch does not wait
        gate.release(90);
        assert!(gate.is_full(), "20 bytes held: a batch of 90 does not fit beside them");
        gate.release(20);
        assert!(!gate.is_full(), "nothing held");
    }
}
