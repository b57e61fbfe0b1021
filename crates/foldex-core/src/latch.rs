//! A counting completion latch: the one way a fold learns that every piece it handed out is done.

use crate::sync::{AtomicUsize, Condvar, Mutex, Ordering};
use std::time::Duration;

/// Counts pieces of work that are still outstanding; it is *set* once the count is zero.
///
/// Pooled executors wait on a latch to learn that every task of a fold has finished. A thread
/// that has nothing better to do blocks in [`Latch::wait`]; a pool worker that could help polls
/// [`Latch::is_set`] between tasks of its own, and may sleep briefly in [`Latch::wait_timeout`].
///
/// ```
/// use foldex_core::Latch;
/// let latch = Latch::new(1);
/// std::thread::scope(|s| {
///     s.spawn(|| latch.count_down());
///     latch.wait();
/// });
/// assert!(latch.is_set());
/// ```
#[derive(Debug)]
pub struct Latch {
    pending: AtomicUsize,
    lock: Mutex<()>,
    done: Condvar,
}

impl Latch {
    /// A latch that is set after `pending` calls of [`Latch::count_down`].
    pub fn new(pending: usize) -> Self {
        Self {
            pending: AtomicUsize::new(pending),
            lock: Mutex::new(()),
            done: Condvar::new(),
        }
    }

    /// Adds one outstanding piece. Must be called before the latch is set.
    pub fn count_up(&self) {
        let before = self.pending.fetch_add(1, Ordering::Relaxed);
        debug_assert!(before > 0, "count_up on a latch that was already set");
    }

    /// Marks one piece as finished; the last one wakes every waiter.
    ///
    /// Everything the finishing thread wrote before this call is visible to a thread that then
    /// sees [`Latch::is_set`] return `true`.
    pub fn count_down(&self) {
        let before = self.pending.fetch_sub(1, Ordering::AcqRel);
        assert!(before > 0, "Latch::count_down called more times than pieces were counted");
        if before == 1 {
            // Taking the lock orders this notification after any waiter's check of `pending`:
            // a waiter either saw zero, or is already inside `Condvar::wait` and gets woken.
            let _guard = lock(&self.lock);
            self.done.notify_all();
        }
    }

    /// `true` once every piece has counted down.
    pub fn is_set(&self) -> bool {
        self.pending.load(Ordering::Acquire) == 0
    }

    /// Blocks the calling thread until the latch is set.
    pub fn wait(&self) {
        let mut guard = lock(&self.lock);
        while !self.is_set() {
            guard = self.done.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Blocks until the latch is set or `timeout` passes; returns [`Latch::is_set`].
    #[cfg(not(loom))]
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        let guard = lock(&self.lock);
        if self.is_set() {
            return true;
        }
        let _ = self
            .done
            .wait_timeout(guard, timeout)
            .unwrap_or_else(|e| e.into_inner());
        self.is_set()
    }

    /// Under loom there are no timeouts; this waits until the latch is set.
    #[cfg(loom)]
    pub fn wait_timeout(&self, _timeout: Duration) -> bool {
        self.wait();
        true
    }
}

fn lock(mutex: &Mutex<()>) -> crate::sync::MutexGuard<'_, ()> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
