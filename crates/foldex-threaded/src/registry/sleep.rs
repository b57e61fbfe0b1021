//! Parking idle workers, and waking them when work arrives, without lost wake-ups.
//!
//! The protocol (model-checked in `tests/loom.rs`):
//!
//! - **A worker about to sleep** calls [`Sleep::announce_idle`] (which counts it idle, issues a
//!   `SeqCst` fence and reads the wake epoch into a [`Ticket`]), then looks for work **once
//!   more**. If it finds some it calls [`Sleep::cancel_idle`]; otherwise [`Sleep::sleep`] parks
//!   it, unless the epoch moved since the ticket was taken.
//! - **A thread that made work available** (pushed a task) calls [`Sleep::notify_work`]: a
//!   `SeqCst` fence, then a read of the idle count. With nobody idle it returns at once, so a
//!   busy pool pays one fence per push. Otherwise it bumps the epoch and, under the lock, wakes
//!   one sleeper.
//!
//! - **A worker that forked** (pushed a half onto its own deque) calls
//!   [`Sleep::notify_own_work`]: the same without the fence. It may miss a worker that is just
//!   announcing itself idle, but it loses no task: the forking worker takes the half back if
//!   nobody steals it. The cost of a miss is parallelism for as long as the forking worker makes
//!   no further push (its next fork, or any other notification, wakes the sleeper); the fence it
//!   saves is a large share of a fork (rayon makes the same trade for a worker's own jobs).
//!
//! Why no wake-up is lost: the two fences order "count idle, then look for work" against "push,
//! then read the idle count" (Dekker's pattern), so either the worker's last look finds the task,
//! or the pusher sees the worker idle and bumps the epoch. A bump before the worker's check under
//! the lock makes it not sleep; a bump after it is followed by the pusher taking the lock, which
//! it gets only once the worker waits on the condition variable, so the notification reaches it.
//! A ticket that already shows the bump is no danger either: reading the bumped epoch acquires
//! the push, so the worker's last look finds the task.

use foldex_core::exec::sync::{fence, AtomicUsize, Condvar, Mutex, MutexGuard, Ordering};

/// Where idle workers park.
#[derive(Debug)]
pub struct Sleep {
    /// Workers between `announce_idle` and the end of `sleep` (or `cancel_idle`).
    idle: AtomicUsize,
    /// Bumped by every notification that found a worker idle.
    epoch: AtomicUsize,
    /// How many workers wait on `wake`; read under the lock, so a notifier only pays for a
    /// system call when someone sleeps.
    sleeping: Mutex<usize>,
    wake: Condvar,
}

/// The wake epoch a worker saw when it announced itself idle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(usize);

impl Default for Sleep {
    fn default() -> Self {
        Self::new()
    }
}

impl Sleep {
    /// Nobody idle, nobody asleep.
    pub fn new() -> Self {
        Self {
            idle: AtomicUsize::new(0),
            epoch: AtomicUsize::new(0),
            sleeping: Mutex::new(0),
            wake: Condvar::new(),
        }
    }

    /// Counts the calling worker idle. It must look for work once more after this, then call
    /// [`Sleep::cancel_idle`] or [`Sleep::sleep`].
    pub fn announce_idle(&self) -> Ticket {
        self.idle.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        Ticket(self.epoch.load(Ordering::SeqCst))
    }

    /// The worker found work after all.
    pub fn cancel_idle(&self) {
        self.idle.fetch_sub(1, Ordering::SeqCst);
    }

    /// Parks the worker until a notification newer than `ticket` (returns at once if one came
    /// already). Spurious returns are allowed: the caller looks for work again either way.
    pub fn sleep(&self, ticket: Ticket) {
        let mut sleeping = lock(&self.sleeping);
        if self.epoch.load(Ordering::SeqCst) == ticket.0 {
            *sleeping += 1;
            sleeping = self.wake.wait(sleeping).unwrap_or_else(|e| e.into_inner());
            *sleeping -= 1;
        }
        drop(sleeping);
        self.idle.fetch_sub(1, Ordering::SeqCst);
    }

    /// Work was made available (call after the push): wakes one sleeping worker if any worker
    /// is idle.
    pub fn notify_work(&self) {
        fence(Ordering::SeqCst);
        if self.idle.load(Ordering::SeqCst) == 0 {
            return;
        }
        self.wake_one();
    }

    /// A worker pushed a task onto its own deque, which it will run itself if nobody else
    /// does: wakes one sleeping worker if it sees one idle, without a fence (a worker announcing
    /// itself idle at this very moment may be missed; see the module doc).
    #[inline]
    pub fn notify_own_work(&self) {
        if self.idle.load(Ordering::Relaxed) == 0 {
            return;
        }
        self.wake_one();
    }

    #[cold]
    fn wake_one(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        let sleeping = lock(&self.sleeping);
        if *sleeping > 0 {
            self.wake.notify_one();
        }
    }

    /// Whether some worker is idle: about to sleep, asleep, or woken and not yet back at work.
    pub fn any_idle(&self) -> bool {
        self.idle.load(Ordering::SeqCst) > 0
    }

    /// As [`Sleep::any_idle`], with no ordering: a hint, for a worker deciding at a fork
    /// whether to share it (a stale answer only delays sharing to its next fork).
    #[inline]
    pub fn any_idle_relaxed(&self) -> bool {
        self.idle.load(Ordering::Relaxed) > 0
    }

    /// Wakes every worker, idle or not yet (for shutting the pool down: call after setting the
    /// flag the workers check).
    pub fn notify_all(&self) {
        fence(Ordering::SeqCst);
        self.epoch.fetch_add(1, Ordering::SeqCst);
        let _sleeping = lock(&self.sleeping);
        self.wake.notify_all();
    }
}

fn lock(mutex: &Mutex<usize>) -> MutexGuard<'_, usize> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
