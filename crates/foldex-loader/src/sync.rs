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

/// How long a thread waiting on cheap batches (under a microsecond) polls before it sleeps. A
/// sleep and the wake-up that ends it cost the two threads about that much: on the 2-core
/// machine of docs/benchmarks.md, a hand-over through a condvar took 6 to 8 µs in the median
/// (`cargo bench -p foldex-benches --bench loader -- loader_wake_up`), and a wake-up waits for
/// its thread to be scheduled besides. Polling for a few microseconds only, the producer and
/// the consumer put each other to sleep every few parcels, and with one worker an epoch of
/// cheap batches took 10 to 30 times longer (docs/benchmarks.md, "Loader throughput"). Polling
/// for 8 µs measured the same as 20 on the same workload. Batches that cost more keep the short polling: a consumer
/// that polls while CPU-bound producers use every core takes time from them.
#[cfg(not(loom))]
pub(crate) const POLL_FOR: std::time::Duration = std::time::Duration::from_micros(20);

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
