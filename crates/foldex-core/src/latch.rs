//! A counting completion latch: the one way a fold learns that every piece it handed out is done.

use crate::exec::sync::{fence, thread, AtomicUsize, Condvar, Mutex, MutexGuard, Ordering};
use std::time::Duration;

/// Counts pieces of work that are still outstanding; it is *set* once the count is zero.
///
/// Pooled executors wait on a latch to learn that every task of a fold has finished. A thread
/// that has nothing better to do blocks in [`Latch::wait`]; a pool worker that could help polls
/// [`Latch::is_set`] between tasks of its own, and may sleep briefly in [`Latch::wait_timeout`].
///
/// ```
/// use foldex_core::exec::Latch;
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
        assert!(
            before > 0,
            "Latch::count_down called more times than pieces were counted"
        );
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
    fn register_waiter(&self) -> MutexGuard<'_, ()> {
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

fn lock(mutex: &Mutex<()>) -> MutexGuard<'_, ()> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The latch of a [`task_scope`](crate::exec::task_scope), as its body and its waiter see it: they
/// can
/// wait for it, but only the scope's [`TaskRef`](crate::exec::TaskRef)s count it down, so that no
/// safe
/// code can end a scope while one of its tasks may still run.
///
/// ```compile_fail
/// use foldex_core::exec::task_scope;
/// // There is no way to count a scope's latch down by hand.
/// task_scope(|scope| scope.latch().count_down(), |_| {});
/// ```
#[derive(Debug)]
pub struct ScopeLatch(Latch);

impl ScopeLatch {
    /// A latch that is set after `pending` calls of [`ScopeLatch::count_down`].
    pub(crate) fn new(pending: usize) -> Self {
        Self(Latch::new(pending))
    }

    /// Adds one outstanding task; see [`Latch::count_up`].
    ///
    /// Called only by the audited module (`audited`), for each task a scope spawns.
    pub(crate) fn count_up(&self) {
        self.0.count_up();
    }

    /// Marks one task (or the scope's body) as finished; see [`Latch::count_down`].
    ///
    /// Called only by the audited module (`audited`): by a scope's `TaskRef` when it is dropped,
    /// after its closure has been run or dropped, and once for the scope's body. Soundness rests
    /// on it: a count-down from anywhere else could end a scope while a task still borrows from
    /// it.
    pub(crate) fn count_down(&self) {
        self.0.count_down();
    }

    /// `true` once every task of the scope has finished and its body has returned.
    pub fn is_set(&self) -> bool {
        self.0.is_set()
    }

    /// Blocks until the latch is set.
    pub fn wait(&self) {
        self.0.wait()
    }

    /// Blocks until the latch is set or `timeout` passes; returns [`ScopeLatch::is_set`].
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        self.0.wait_timeout(timeout)
    }
}

/// The latch of one [`join_stack`](crate::exec::join_stack): set once, by whichever thread ran (or
/// dropped) the forked closure, and built to live on the forking thread's stack.
///
/// A [`Latch`] cannot live there: its last `count_down` still touches the latch (to wake a
/// waiter) after another thread may have seen it set and returned. Here the setter's **last**
/// access is the store that makes [`JoinLatch::is_set`] true; once the owner sees it, nothing
/// touches the latch again, so the owner may free it at once.
///
/// The owner polls [`JoinLatch::is_set`] between tasks of its own, and sleeps in
/// [`JoinLatch::wait_timeout`] or [`JoinLatch::wait`] when it has none. The protocol
/// (model-checked with loom in `tests/loom.rs`, including "no access after set"): the owner
/// moves the state from `UNSET` to `SLEEPING` under the lock before it waits on the condition
/// variable, and back to `UNSET` under the lock when a timed wait runs out. The setter first
/// tries `UNSET → SET`, which needs no lock and is the whole cost when nobody sleeps. If that
/// fails, the owner sleeps (or is about to, or is just waking): under the lock the setter
/// moves to `WAKING`, notifies, unlocks, and only then stores `SET`. An owner that sees
/// `WAKING` waits for `SET` (the setter is between its unlock and that store).
#[derive(Debug)]
pub struct JoinLatch {
    state: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    /// Loom only: stands for the latch's memory, so that a setter touching the latch after the
    /// owner may have freed it is reported as a data race.
    #[cfg(loom)]
    alive: loom::cell::UnsafeCell<()>,
}

const UNSET: usize = 0;
const SLEEPING: usize = 1;
const WAKING: usize = 2;
const SET: usize = 3;

impl Default for JoinLatch {
    fn default() -> Self {
        Self::new()
    }
}

impl JoinLatch {
    /// A latch that is not set.
    pub fn new() -> Self {
        Self {
            state: AtomicUsize::new(UNSET),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            #[cfg(loom)]
            alive: loom::cell::UnsafeCell::new(()),
        }
    }

    /// `true` once the latch is set. Everything the setter wrote before setting it is then
    /// visible, and the setter will not touch the latch again.
    pub fn is_set(&self) -> bool {
        self.state.load(Ordering::Acquire) == SET
    }

    /// Sets the latch, waking the owner if it sleeps. Call at most once. The last access to
    /// `self` is the store that sets it: the owner may free the latch as soon as it sees it
    /// set, so this never touches it afterwards.
    pub(crate) fn set(&self) {
        self.touch();
        if self
            .state
            .compare_exchange(UNSET, SET, Ordering::Release, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
        // The owner sleeps, or is about to, or has just timed out: settle it under the lock,
        // which the owner holds whenever it changes the state.
        self.touch();
        let guard = lock(&self.lock);
        self.touch();
        if self.state.swap(WAKING, Ordering::Relaxed) == SLEEPING {
            self.wake.notify_one();
        }
        self.touch();
        drop(guard);
        self.touch();
        self.state.store(SET, Ordering::Release);
    }

    /// Blocks until the latch is set.
    pub fn wait(&self) {
        self.sleep(None);
    }

    /// Blocks until the latch is set or about `timeout` passes (spurious returns are allowed);
    /// returns [`JoinLatch::is_set`]. Under loom the timeout is taken as expired at once.
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        self.sleep(Some(timeout));
        self.is_set()
    }

    fn sleep(&self, timeout: Option<Duration>) {
        if self.is_set() {
            return;
        }
        let mut guard = lock(&self.lock);
        if self
            .state
            .compare_exchange(UNSET, SLEEPING, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            match timeout {
                None => {
                    while self.state.load(Ordering::Relaxed) == SLEEPING {
                        guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
                    }
                }
                Some(timeout) => {
                    guard = wait_timeout(&self.wake, guard, timeout);
                    // Still unset: go back to polling. The setter changes `SLEEPING` only
                    // under the lock, which we hold.
                    let _ = self.state.compare_exchange(
                        SLEEPING,
                        UNSET,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    );
                }
            }
        }
        drop(guard);
        // `WAKING`: the setter has unlocked, or is about to, and then stores `SET`.
        while self.state.load(Ordering::Acquire) == WAKING {
            thread::yield_now();
        }
    }

    /// Marks the point where the owner is done with the latch and may free it (loom checks
    /// that no setter access comes after it); nothing outside loom.
    #[inline]
    pub(crate) fn retire(&self) {
        #[cfg(loom)]
        self.alive.with_mut(|_| ());
    }

    #[inline]
    fn touch(&self) {
        #[cfg(loom)]
        self.alive.with(|_| ());
    }
}

#[cfg(not(loom))]
fn wait_timeout<'g>(
    wake: &Condvar,
    guard: MutexGuard<'g, ()>,
    timeout: Duration,
) -> MutexGuard<'g, ()> {
    wake.wait_timeout(guard, timeout)
        .map(|(guard, _)| guard)
        .unwrap_or_else(|e| e.into_inner().0)
}

/// Loom has no clock: a timed wait is modelled as one that times out at once, which is the
/// path that exercises the owner's return to polling.
#[cfg(loom)]
fn wait_timeout<'g>(
    _wake: &Condvar,
    guard: MutexGuard<'g, ()>,
    _timeout: Duration,
) -> MutexGuard<'g, ()> {
    guard
}
