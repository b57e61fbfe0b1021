//! A counting completion latch: the one way a fold learns that every piece it handed out is done.

use crate::sync::{fence, AtomicUsize, Condvar, Mutex, Ordering};
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
    /// Threads inside `wait`/`wait_timeout`. The last count-down signals only when there are
    /// some: a condition variable's notify is a system call even with nobody waiting, and a
    /// pooled executor counts down one latch per fork.
    waiters: AtomicUsize,
    lock: Mutex<()>,
    done: Condvar,
}

impl Latch {
    /// A latch that is set after `pending` calls of [`Latch::count_down`].
    pub fn new(pending: usize) -> Self {
        Self {
            pending: AtomicUsize::new(pending),
            waiters: AtomicUsize::new(0),
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
            // With the fence in `wait_registered` (Dekker's pattern): either a waiter sees
            // `pending == 0`, or this sees it counted in `waiters`. Taking the lock then orders
            // the notification after that waiter's check of `pending`: it is already inside
            // `Condvar::wait` and gets woken.
            fence(Ordering::SeqCst);
            if self.waiters.load(Ordering::Relaxed) > 0 {
                let _guard = lock(&self.lock);
                self.done.notify_all();
            }
        }
    }

    /// `true` once every piece has counted down.
    pub fn is_set(&self) -> bool {
        self.pending.load(Ordering::Acquire) == 0
    }

    /// Blocks the calling thread until the latch is set.
    pub fn wait(&self) {
        if self.is_set() {
            return;
        }
        let mut guard = self.register_waiter();
        while !self.is_set() {
            guard = self.done.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        drop(guard);
        self.waiters.fetch_sub(1, Ordering::Relaxed);
    }

    /// Takes the lock and counts the caller among the waiters, before it checks `pending`.
    fn register_waiter(&self) -> crate::sync::MutexGuard<'_, ()> {
        let guard = lock(&self.lock);
        self.waiters.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        guard
    }

    /// Blocks until the latch is set or `timeout` passes; returns [`Latch::is_set`].
    #[cfg(not(loom))]
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        if self.is_set() {
            return true;
        }
        let guard = self.register_waiter();
        if !self.is_set() {
            let _ = self
                .done
                .wait_timeout(guard, timeout)
                .unwrap_or_else(|e| e.into_inner());
        }
        self.waiters.fetch_sub(1, Ordering::Relaxed);
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
