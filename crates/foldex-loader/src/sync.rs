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

/// Bounded backoff before a thread goes to sleep: crossbeam's `Backoff` (spin 1, 2, 4, ... 64
/// pause instructions, then yield a few times), asked once per look whether it is time to sleep
/// instead. With cheap items the other side answers within a few hundred nanoseconds, well under
/// what a sleep and a wake-up cost the thread that has to wake the sleeper (measured on 2 cores
/// with the channel's throughput bench: yielding from the start, or yielding 30 times, was
/// slower). Under loom it gives up at once, so that the models check the sleeping protocol
/// itself rather than the polling around it.
pub(crate) struct Backoff {
    #[cfg(not(loom))]
    inner: crossbeam_utils::Backoff,
}

impl Backoff {
    pub(crate) fn new() -> Self {
        Self {
            #[cfg(not(loom))]
            inner: crossbeam_utils::Backoff::new(),
        }
    }

    /// Waits a little (spins at first, yields later); `false` once it is time to sleep instead.
    #[cfg(not(loom))]
    pub(crate) fn snooze(&mut self) -> bool {
        if self.inner.is_completed() {
            return false;
        }
        self.inner.snooze();
        true
    }

    /// Under loom: sleep at once.
    #[cfg(loom)]
    pub(crate) fn snooze(&mut self) -> bool {
        false
    }
}
