//! The bounded channel between the producers of an epoch and its one consumer.
//!
//! Every batch of an epoch has a sequence number (`0..total`). Producers `push` finished
//! batches; the consumer takes them out in sequence order (`ordered`) or first-finished-first-out.
//! The channel holds the whole protocol of an epoch, so that the loom tests check all of it:
//!
//! - **Back pressure.** Unordered, a push waits while `capacity` batches are waiting for the
//!   consumer. Ordered, a push of batch `k` waits while `k >= next + capacity`, where `next` is
//!   the batch the consumer needs next; so at most `capacity` finished batches wait in the reorder
//!   window. Batch `next` itself never waits, which is why producers that take batches in
//!   sequence order can never all be stuck (see `epoch.rs`). Waiting producers are woken once
//!   half the room is free (or the consumer is about to run dry), not after every take.
//! - **Helping.** While the consumer lends its thread to the executor ([`Channel::recv`] calls
//!   `help`), no push waits: a producer the consumer's help is waiting for must not wait for the
//!   consumer. Producers skip new batches instead (see [`Channel::should_skip`]), so the overshoot
//!   stays bounded.
//! - **Cancellation.** [`Channel::cancel`] (the consumer went away) and [`Channel::fail`] (a
//!   batch panicked) stop the epoch: every waiting producer wakes and drops its batch, and
//!   batches still buffered are dropped.
//! - **Completion.** The consumer learns that the epoch is over when every batch was delivered,
//!   or, if producers stopped before that (an executor that skipped indices), from
//!   [`Channel::close`].

use crate::sync::{AtomicBool, Condvar, Mutex, MutexGuard, Ordering};
use foldex_core::PanicPayload;
use std::collections::VecDeque;
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

struct State<T> {
    /// Unordered: finished batches, first finished first.
    fifo: VecDeque<T>,
    /// Ordered: `window[j]` is batch `next + j`, if it has finished.
    window: VecDeque<Option<T>>,
    /// How many batches the consumer has taken (ordered: also the sequence number it needs next).
    delivered: usize,
    /// The producers have stopped, by cancellation or failure.
    stopped: bool,
    /// No more pushes will come.
    closed: bool,
    failure: Option<PanicPayload>,
    /// The consumer is running executor work inside `recv`.
    helping: bool,
    producers_waiting: usize,
    consumer_waiting: bool,
}

/// A bounded, cancellable channel with an optional reorder window. See the module docs.
pub struct Channel<T> {
    state: Mutex<State<T>>,
    /// Producers wait here for room.
    room: Condvar,
    /// The consumer waits here for a batch.
    ready: Condvar,
    capacity: usize,
    ordered: bool,
    total: usize,
    /// Mirrors `State::stopped`, for checks between items without the lock.
    stopped: AtomicBool,
    /// Mirrors `State::helping`, so that producers take the lock only while the consumer helps.
    helping: AtomicBool,
}

impl<T> Channel<T> {
    /// A channel for `total` batches that holds at most `capacity` finished ones (`capacity >= 1`).
    pub fn new(capacity: usize, ordered: bool, total: usize) -> Self {
        assert!(
            capacity >= 1,
            "a loader channel needs room for at least one batch"
        );
        Self {
            state: Mutex::new(State {
                fifo: VecDeque::new(),
                window: VecDeque::new(),
                delivered: 0,
                stopped: false,
                closed: false,
                failure: None,
                helping: false,
                producers_waiting: 0,
                consumer_waiting: false,
            }),
            room: Condvar::new(),
            ready: Condvar::new(),
            capacity,
            ordered,
            total,
            stopped: AtomicBool::new(false),
            helping: AtomicBool::new(false),
        }
    }

    /// The number of batches of the epoch.
    pub fn total(&self) -> usize {
        self.total
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `true` while the consumer lends its thread to the executor: producers must not wait.
    pub fn is_helping(&self) -> bool {
        self.helping.load(Ordering::Acquire)
    }

    /// `true` once the epoch is cancelled or failed: producers should stop.
    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    fn has_room(&self, s: &State<T>, seq: usize) -> bool {
        if self.ordered {
            seq < s.delivered + self.capacity
        } else {
            s.fifo.len() < self.capacity
        }
    }

    fn has_deliverable(&self, s: &State<T>) -> bool {
        if self.ordered {
            matches!(s.window.front(), Some(Some(_)))
        } else {
            !s.fifo.is_empty()
        }
    }

    /// Pushes batch `seq`, waiting while there is no room for it (unless the consumer is
    /// helping, or `wait` is false). Returns the batch if the epoch was stopped, so that the
    /// caller drops it outside the lock.
    pub fn push(&self, seq: usize, item: T, wait: bool) -> Result<(), T> {
        let mut s = self.lock();
        loop {
            if s.stopped {
                return Err(item);
            }
            if !wait || s.helping || self.has_room(&s, seq) {
                break;
            }
            s.producers_waiting += 1;
            let asleep = std::time::Instant::now();
            s = self.room.wait(s).unwrap_or_else(|e| e.into_inner());
            crate::stats::note_blocked(asleep);
            s.producers_waiting -= 1;
        }
        let deliverable = if self.ordered {
            let offset = seq
                .checked_sub(s.delivered)
                .expect("a batch was pushed twice");
            if s.window.len() <= offset {
                s.window.resize_with(offset + 1, || None);
            }
            let slot = &mut s.window[offset];
            assert!(slot.is_none(), "a batch was pushed twice");
            *slot = Some(item);
            offset == 0
        } else {
            s.fifo.push_back(item);
            true
        };
        if deliverable && s.consumer_waiting {
            self.ready.notify_one();
        }
        Ok(())
    }

    /// Whether a producer should leave batch `seq` to a later round instead of computing it
    /// now. `on_consumer` says the producer runs on the consumer's thread, inside its help.
    ///
    /// On the consumer's thread: skip if a batch is ready, so that the consumer goes back to
    /// delivering it. Elsewhere: skip only while the consumer helps and there is no room (a push
    /// would have to overshoot the bound, since it may not wait then).
    pub fn should_skip(&self, seq: usize, on_consumer: bool) -> bool {
        if !on_consumer && !self.helping.load(Ordering::Acquire) {
            return false;
        }
        let s = self.lock();
        if on_consumer {
            self.has_deliverable(&s) || !self.has_room(&s, seq)
        } else {
            s.helping && !self.has_room(&s, seq)
        }
    }

    /// Whether to wake the waiting producers after a take. Not after every take: a producer
    /// woken for one free place pushes one batch and sleeps again, a wake-up per batch. Wake
    /// them once half the room is free, so that each wake-up fills several places; and always
    /// when the consumer is about to run dry, so that it never waits on a sleeping producer.
    fn worth_waking(&self, s: &State<T>) -> bool {
        let half = (self.capacity / 2).max(1);
        if self.ordered {
            !self.has_deliverable(s) || s.delivered % half == 0
        } else {
            s.fifo.len() + half <= self.capacity
        }
    }

    fn take(&self, s: &mut State<T>) -> Recv<T> {
        if let Some(payload) = s.failure.take() {
            return Recv::Failed(payload);
        }
        let item = if self.ordered {
            match s.window.front() {
                Some(Some(_)) => s.window.pop_front().flatten(),
                _ => None,
            }
        } else {
            s.fifo.pop_front()
        };
        if let Some(item) = item {
            s.delivered += 1;
            if s.producers_waiting > 0 && self.worth_waking(s) {
                self.room.notify_all();
            }
            return Recv::Item(item);
        }
        if s.delivered == self.total {
            Recv::Finished
        } else if s.closed && !s.stopped {
            Recv::Incomplete {
                delivered: s.delivered,
            }
        } else {
            Recv::Empty
        }
    }

    /// Takes the next batch if one is deliverable, without waiting.
    pub fn try_recv(&self) -> Recv<T> {
        let mut s = self.lock();
        self.take(&mut s)
    }

    /// Takes the next batch, waiting for it. While nothing is deliverable, `help` is called
    /// (without the lock, with producers told not to wait) as long as it returns `true`; then
    /// the consumer sleeps until a batch, a failure or the end arrives.
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
        let mut s = self.lock();
        loop {
            match self.take(&mut s) {
                Recv::Empty => {}
                other => return other,
            }
            s.consumer_waiting = true;
            s = self.ready.wait(s).unwrap_or_else(|e| e.into_inner());
            s.consumer_waiting = false;
        }
    }

    fn set_helping(&self, helping: bool) {
        let mut s = self.lock();
        s.helping = helping;
        self.helping.store(helping, Ordering::Release);
        if helping && s.producers_waiting > 0 {
            // A waiting producer may be the very work the consumer's help waits for.
            self.room.notify_all();
        }
    }

    fn stop(&self, s: &mut State<T>) -> (VecDeque<T>, VecDeque<Option<T>>) {
        s.stopped = true;
        self.stopped.store(true, Ordering::Release);
        self.room.notify_all();
        (mem::take(&mut s.fifo), mem::take(&mut s.window))
    }

    /// The consumer went away: producers stop, waiting ones wake, buffered batches are dropped.
    pub fn cancel(&self) {
        let dropped = {
            let mut s = self.lock();
            self.stop(&mut s)
        };
        drop(dropped);
    }

    /// A producer panicked: the epoch stops and the consumer receives `payload` (the first one
    /// only) from its next `recv`.
    pub fn fail(&self, payload: PanicPayload) {
        let (dropped, late) = {
            let mut s = self.lock();
            let late = if s.stopped || s.failure.is_some() {
                Some(payload)
            } else {
                s.failure = Some(payload);
                None
            };
            let dropped = self.stop(&mut s);
            self.ready.notify_one();
            (dropped, late)
        };
        drop(dropped);
        drop(late);
    }

    /// No more pushes will come (the producers' fold returned).
    pub fn close(&self) {
        let mut s = self.lock();
        s.closed = true;
        self.ready.notify_one();
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
