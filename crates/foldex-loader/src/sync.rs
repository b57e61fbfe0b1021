//! Synchronisation primitives for the channel, swapped for loom's model-checked ones under
//! `cfg(loom)`, so that the loom tests check the very code the loader runs.

#[cfg(loom)]
pub(crate) use loom::sync::{
    atomic::{AtomicBool, AtomicUsize, Ordering},
    Condvar, Mutex, MutexGuard,
};

#[cfg(not(loom))]
pub(crate) use std::sync::{
    atomic::{AtomicBool, AtomicUsize, Ordering},
    Condvar, Mutex, MutexGuard,
};

/// How long a waiting thread polls before it sleeps. A sleep and the wake-up that ends it cost
/// the two threads about that much: on the 2-core machine of docs/benchmarks.md, a hand-over
/// through a condvar took 6 to 23 µs (`cargo bench -p foldex-benches --bench loader --
/// loader_wake_up`), so polling for as long as a wake-up costs keeps the waste within a small
/// factor of the best choice made in hindsight, the classic spin-then-block bound. Polling for a
/// few microseconds only made the producer and the consumer put each other to sleep every few
/// batches of cheap items: with one worker, an epoch of 100 000 observations took 75 to 92 ms
/// instead of 7. Polling for 8 µs measured the same as 20 on the throughput bench.
#[cfg(not(loom))]
pub(crate) const POLL_FOR: std::time::Duration = std::time::Duration::from_micros(20);

/// Bounded backoff before a thread goes to sleep: crossbeam's `Backoff` (spin 1, 2, 4, ... 64
/// pause instructions, then yield a few times), then more yields for [`POLL_FOR`], asked once
/// per look whether it is time to sleep instead. Yielding hands the
/// core to a thread that has work, if there is one: spinning alone would keep it from a
/// producer on a machine with fewer cores than threads. Under loom it gives up at once, so
/// that the models check the sleeping protocol itself rather than the polling around it.
pub(crate) struct Backoff {
    #[cfg(not(loom))]
    inner: crossbeam_utils::Backoff,
    /// When polling ends; set once crossbeam's spinning is over, so that a thread that finds
    /// what it waits for within a few spins never reads the clock.
    #[cfg(not(loom))]
    deadline: Option<std::time::Instant>,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Self {
            #[cfg(not(loom))]
            inner: crossbeam_utils::Backoff::new(),
            #[cfg(not(loom))]
            deadline: None,
        }
    }

    /// Waits a little (spins at first, yields later); `false` once it is time to sleep instead.
    #[cfg(not(loom))]
    pub(crate) fn snooze(&mut self) -> bool {
        if !self.inner.is_completed() {
            self.inner.snooze();
            return true;
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
