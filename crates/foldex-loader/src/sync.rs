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

/// Bounded backoff before a thread goes to sleep, as crossbeam's `Backoff`: spin a little
/// (1, 2, 4, ... 64 pause instructions), then yield a few times, then give up. With cheap items
/// the other side answers within a few hundred nanoseconds, well under what a sleep and a
/// wake-up cost the thread that has to wake the sleeper (measured on 2 cores with the channel's
/// throughput bench: yielding from the start, or yielding 30 times, was slower). Under loom it
/// gives up at once, so that the models check the sleeping protocol itself rather than the
/// polling around it.
pub(crate) struct Backoff {
    step: u32,
}

impl Backoff {
    #[cfg(not(loom))]
    const SPIN_LIMIT: u32 = 6;
    #[cfg(not(loom))]
    const YIELD_LIMIT: u32 = 10;

    pub(crate) fn new() -> Self {
        Self { step: 0 }
    }

    /// Waits a little (spins at first, yields later); `false` once it is time to sleep instead.
    #[cfg(not(loom))]
    pub(crate) fn snooze(&mut self) -> bool {
        if self.step > Self::YIELD_LIMIT {
            return false;
        }
        if self.step <= Self::SPIN_LIMIT {
            for _ in 0..1u32 << self.step {
                std::hint::spin_loop();
            }
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
