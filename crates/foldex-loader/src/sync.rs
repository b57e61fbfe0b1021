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

/// Bounded backoff before a thread goes to sleep, after crossbeam's `Backoff`, but yielding
/// almost at once instead of spinning: the loader runs more threads than cores (producers and
/// the consumer), and a spinning waiter holds the very core that the thread it waits for needs.
/// Measured on 2 cores, spinning first made the throughput bench slower. Under
/// loom it gives up at once, so that the models check the sleeping protocol itself rather than
/// the polling around it.
pub(crate) struct Backoff {
    step: u32,
}

impl Backoff {
    #[cfg(not(loom))]
    const YIELD_LIMIT: u32 = 30;

    pub(crate) fn new() -> Self {
        Self { step: 0 }
    }

    /// Waits a little (a spin the first time, a yield after); `false` once it is time to
    /// sleep instead.
    #[cfg(not(loom))]
    pub(crate) fn snooze(&mut self) -> bool {
        if self.step > Self::YIELD_LIMIT {
            return false;
        }
        if self.step == 0 {
            // The first look again is nearly free; every later one lets another thread run.
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
        self.step += 1;
        true
    }

    /// Under loom: sleep at once.
    #[cfg(loom)]
    pub(crate) fn snooze(&mut self) -> bool {
        let _ = self.step;
        false
    }
}
