//! Waiting and waking: how a side that finds nothing to do polls, then sleeps, and is woken.
//!
//! One mutex with two condvars is kept for sleeping only ([`Waiters`]). A side about to sleep
//! sets a bit in the stamp of the place it waits for (see `ring.rs`), in the same atomic word
//! that the other side changes next (the consumer's release swaps the stamp, a push adds to
//! it), so each sees the other: a wake-up is sent exactly when someone may sleep, and is never
//! lost. Everything that stops or closes the epoch notifies under the mutex.
//!
//! Before it sleeps, a side polls ([`Backoff`]): with cheap batches, what it waits for comes
//! back within microseconds, and a wake-up costs the other side more than that.

use super::{ring::lock, Channel};
use crate::failure::Failure;
use crossbeam_utils::CachePadded;
use foldex_core::exec::sync::{AtomicUsize, Condvar, Mutex, Ordering};
use std::cmp::Ordering as Compare;

/// How long a thread waiting on cheap batches (under a microsecond) polls before it sleeps:
/// about what a sleep and the wake-up that ends it cost the two threads, so that polling costs
/// no more than the sleep it avoids. Batches that cost more poll briefly: a consumer that polls
/// while CPU-bound producers use every core takes time from them. The measurements behind the
/// value are in docs/architecture.md, "Why it changed".
#[cfg(not(loom))]
const POLL_FOR: std::time::Duration = std::time::Duration::from_micros(20);

/// Bounded backoff before a thread goes to sleep: crossbeam's `Backoff` (spin 1, 2, 4, ... 64
/// pause instructions, then yield a few times), then, when `patient`, more yields for
/// [`POLL_FOR`], asked once per look whether it is time to sleep instead. Yielding hands the
/// core to a thread that has work, if there is one: spinning alone would keep it from a
/// producer on a machine with fewer cores than threads. Under loom it gives up at once, so
/// that the models check the sleeping protocol itself rather than the polling around it.
pub(crate) struct Backoff {
    #[cfg(not(loom))]
    inner: crossbeam_utils::Backoff,
    /// When polling ends: `None` until crossbeam's backoff is over (so that a thread that finds
    /// what it waits for within a few spins never reads the clock); never set when not patient.
    #[cfg(not(loom))]
    deadline: Option<std::time::Instant>,
    #[cfg(not(loom))]
    patient: bool,
}

impl Backoff {
    /// A backoff that polls for [`POLL_FOR`] when `patient` (the batches are cheap), else only
    /// through crossbeam's steps.
    #[cfg_attr(loom, allow(unused_variables))]
    pub(crate) fn new(patient: bool) -> Self {
        Self {
            #[cfg(not(loom))]
            inner: crossbeam_utils::Backoff::new(),
            #[cfg(not(loom))]
            deadline: None,
            #[cfg(not(loom))]
            patient,
        }
    }

    /// Waits a little (spins at first, yields later); `false` once it is time to sleep instead.
    #[cfg(not(loom))]
    pub(crate) fn snooze(&mut self) -> bool {
        if !self.inner.is_completed() {
            self.inner.snooze();
            return true;
        }
        if !self.patient {
            return false;
        }
        let now = std::time::Instant::now();
        let deadline = *self.deadline.get_or_insert(now + POLL_FOR);
        if now >= deadline {
            return false;
        }
        std::thread::yield_now();
        true
    }

    /// Under loom: sleep at once.
    #[cfg(loom)]
    pub(crate) fn snooze(&mut self) -> bool {
        false
    }
}

/// The sleeping side of a channel. Each field that changes while the epoch runs sits on its own
/// cache line: the consumer reads the read-mostly ones on every take.
pub(super) struct Waiters {
    /// How many producers wait for room awake, spinning and yielding.
    spinning: CachePadded<AtomicUsize>,
    /// How many producers sleep for room; changed under `lock`.
    sleepers: CachePadded<AtomicUsize>,
    /// For sleeping only; holds the epoch's first failure.
    pub(super) lock: CachePadded<Mutex<Option<Failure>>>,
    /// Producers wait here for room.
    room: CachePadded<Condvar>,
    /// The consumer waits here for a batch.
    ready: CachePadded<Condvar>,
}

impl Waiters {
    pub(super) fn new() -> Self {
        Self {
            spinning: CachePadded::new(AtomicUsize::new(0)),
            sleepers: CachePadded::new(AtomicUsize::new(0)),
            lock: CachePadded::new(Mutex::new(None)),
            room: CachePadded::new(Condvar::new()),
            ready: CachePadded::new(Condvar::new()),
        }
    }

    pub(super) fn wake_consumer(&self) {
        let _guard = lock(&self.lock);
        self.ready.notify_one();
    }

    pub(super) fn wake_producers(&self) {
        let _guard = lock(&self.lock);
        self.room.notify_all();
    }

    /// Wakes everyone; the caller holds `lock`.
    pub(super) fn wake_all_locked(&self) {
        self.room.notify_all();
        self.ready.notify_all();
    }
}

impl<T> Channel<T> {
    /// How a thread of this epoch, producer or consumer, polls before it sleeps: for
    /// `POLL_FOR` when the batches are cheap, briefly otherwise.
    pub(crate) fn backoff(&self) -> Backoff {
        Backoff::new(self.patient)
    }

    /// Wakes the producers that sleep for room, if any: the consumer is about to wait.
    pub fn wake_sleepers(&self) {
        if self.waiters.sleepers.load(Ordering::Relaxed) > 0 {
            self.waiters.wake_producers();
        }
    }

    /// The position whose room a producer that holds no batch sleeps for, when it wants
    /// `position`: half the buffer further, so that one wake-up lets it push several batches.
    /// The consumer releases `target - capacity` before it can need `position` (which is
    /// smaller), so it wakes this sleeper before it could ever wait for it.
    pub(super) fn refill_target(&self, position: usize) -> usize {
        position + (self.ring.capacity() / 2).max(1) - 1
    }

    /// Waits until position `position()` may have room or `give_up()` turns true (or
    /// spuriously): the caller looks again. It polls for that room a while, then sleeps until
    /// position `target(position)` (at or after it) has room. With `exclusive`, only one
    /// producer polls; the others sleep at once. `give_up` must turn true only through a stop
    /// or a failure ([`Channel::fail_from`]), which wake every sleeper under the lock.
    pub(super) fn wait_for_room(
        &self,
        position: impl Fn() -> usize,
        target: impl Fn(usize) -> usize,
        exclusive: bool,
        give_up: impl Fn() -> bool,
    ) {
        let mut backoff = self.backoff();
        let spinning = &self.waiters.spinning;
        let mut spinner = if exclusive {
            Spinner::try_begin(spinning)
        } else {
            Some(Spinner::always(spinning))
        };
        loop {
            if give_up() || self.ring.room_for(position()) != Compare::Less {
                return;
            }
            if spinner.is_none() || !backoff.snooze() {
                break;
            }
        }
        drop(spinner.take());
        let guard = lock(&self.waiters.lock);
        // Stops and failures are only made under the lock: read here, `give_up` cannot change
        // before the wait.
        if give_up() || !self.ring.mark_producer_waits(target(position())) {
            return;
        }
        // The consumer's release of the place swaps the stamp after our bit, sees it, and wakes
        // us under the lock.
        let asleep = std::time::Instant::now();
        self.waiters.sleepers.fetch_add(1, Ordering::Relaxed);
        let guard = self
            .waiters
            .room
            .wait(guard)
            .unwrap_or_else(|e| e.into_inner());
        self.waiters.sleepers.fetch_sub(1, Ordering::Relaxed);
        drop(guard);
        crate::blocked::note_blocked(asleep);
    }

    /// Sleeps until the next batch may have arrived, the epoch stopped or closed, or
    /// (ordered) a failure cut the epoch at the next position (or spuriously), or, with a
    /// `deadline`, until it passes.
    pub(super) fn sleep_for_next(&self, deadline: Option<std::time::Instant>) {
        let guard = lock(&self.waiters.lock);
        let next = self.head.load(Ordering::Relaxed);
        if next >= self.total || (self.ordered && next >= self.cut.load(Ordering::Relaxed)) {
            return;
        }
        // A push into the place adds to the stamp after this or before: it sees our bit, or we
        // see its stamp; the lead, setting its parcel aside, changes the stamp too for that
        // reason, and so does a batch put beside the ring. Stops and the close always notify
        // under the lock.
        if self.ring.mark_consumer_waits(next)
            || self.stopped.load(Ordering::Relaxed)
            || self.closed.load(Ordering::Acquire)
            || self.overflow.holds(next)
            || self.is_ahead(next)
        {
            return;
        }
        let ready = &self.waiters.ready;
        match deadline {
            None => drop(ready.wait(guard).unwrap_or_else(|e| e.into_inner())),
            Some(deadline) => {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                drop(
                    ready
                        .wait_timeout(guard, left)
                        .unwrap_or_else(|e| e.into_inner()),
                );
            }
        }
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
