//! A worker thread's own state, reachable from the tasks it runs, and the loop it runs: take
//! work from its deque or steal it, spin a while when there is none, then park.

use super::{Registry, PAUSE_ROUNDS, SPIN_ROUNDS};
use crossbeam_deque::Worker;
use foldex_core::exec::{ChoiceTable, PendingForks, TaskRef};
use std::cell::{Cell, OnceCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// A worker thread's own state, reachable from the tasks it runs through a thread-local.
pub(crate) struct WorkerCtx {
    pub(super) registry: Arc<Registry>,
    pub(super) index: usize,
    pub(super) deque: Worker<TaskRef>,
    pub(super) rng: Cell<u64>,
    /// Tasks stolen while waiting, stacked on this thread now (see [`MAX_HELP_DEPTH`](super::context::MAX_HELP_DEPTH)).
    pub(super) help_depth: Cell<usize>,
    /// The forks this worker has made and not shared: see [`WorkerCtx::share_if_wanted`].
    pub(super) pending: PendingForks,
    /// When this worker last shared a fork on demand.
    pub(super) shared_at: Cell<Option<Instant>>,
    /// The lengths of folds started on this worker that run inline (`inline.rs`).
    pub(super) inline_lengths: ChoiceTable,
}

/// A worker shares a pending fork on demand at most this often: a thread that wants work while
/// every piece left is small would otherwise be handed pieces one by one, each costing both
/// threads more than it holds (heartbeat scheduling's bound, with the clock read only while
/// some thread wants work).
pub(crate) const SHARE_EVERY: Duration = Duration::from_micros(50);

thread_local! {
    pub(super) static CURRENT: OnceCell<Rc<WorkerCtx>> = const { OnceCell::new() };
}

impl WorkerCtx {
    /// This worker's index in its pool.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// A random start for probing the other deques, so that thieves spread out.
    fn next_victim(&self) -> usize {
        // xorshift64: good enough to spread thieves, and free.
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        (x % self.registry.threads() as u64) as usize
    }

    /// Called at every fork: if another thread wants work and this worker has none queued,
    /// hands its oldest pending fork (the largest piece it holds) to its deque. Otherwise a
    /// fork costs no synchronisation: its second half runs here after the first.
    #[inline]
    pub(super) fn share_if_wanted(&self) {
        if self.registry.wants_work() && self.deque.is_empty() {
            self.share_paced();
        }
    }

    /// Shares the oldest pending fork unless this worker shared one on demand less than
    /// [`SHARE_EVERY`] ago.
    #[cold]
    fn share_paced(&self) {
        let now = Instant::now();
        if self
            .shared_at
            .get()
            .is_some_and(|at| now.duration_since(at) < SHARE_EVERY)
        {
            return;
        }
        if self.pending.pending() > 0 {
            self.shared_at.set(Some(now));
            self.share_oldest();
        }
    }

    /// Hands this worker's oldest pending fork to its deque, and wakes a sleeper if any.
    pub(super) fn share_oldest(&self) {
        if let Some(task) = self.pending.promote_oldest() {
            self.deque.push(task);
            self.registry
                .share_requested
                .store(false, Ordering::Relaxed);
            self.registry.sleep.notify_own_work();
        }
    }

    pub(super) fn find_work(&self) -> Option<TaskRef> {
        self.deque
            .pop()
            .or_else(|| self.registry.steal(self.next_victim()))
    }

    /// The worker's loop. Between two tasks a worker always counts as looking for work (in
    /// [`Registry::searching`]), and also as idle from before its last look until it wakes:
    /// a thread outside the pool that sees a worker neither idle nor looking knows it holds a
    /// task (`Registry::wait_for_offer` relies on it), however long the system leaves the
    /// worker unscheduled. Readers take the two counts together, so counting both is harmless.
    pub(super) fn main_loop(&self) {
        let sleep = &self.registry.sleep;
        // The registry counted this worker as looking for work since it was created.
        let mut searching = Searching::adopt(&self.registry.searching);
        'outer: loop {
            for round in 0..SPIN_ROUNDS {
                if let Some(task) = self.find_work() {
                    searching = self.run_between_searches(searching, task);
                    continue 'outer;
                }
                if round < PAUSE_ROUNDS {
                    std::hint::spin_loop();
                } else {
                    thread::yield_now();
                }
            }
            if self.registry.terminate.load(Ordering::SeqCst) {
                return;
            }
            let ticket = sleep.announce_idle();
            if let Some(task) = self.find_work() {
                sleep.cancel_idle();
                searching = self.run_between_searches(searching, task);
                continue;
            }
            if self.registry.terminate.load(Ordering::SeqCst) {
                sleep.cancel_idle();
                return;
            }
            sleep.sleep(ticket);
        }
    }

    /// Runs `task`, counted as looking for work before and after it but not while it runs.
    fn run_between_searches<'r>(
        &'r self,
        searching: Searching<'r>,
        task: TaskRef,
    ) -> Searching<'r> {
        drop(searching);
        task.run();
        Searching::begin(&self.registry.searching)
    }
}

/// Counts a worker in [`Registry::searching`] while it exists.
pub(super) struct Searching<'r>(&'r AtomicUsize);

impl<'r> Searching<'r> {
    pub(super) fn begin(count: &'r AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::Relaxed);
        Self(count)
    }

    /// Takes over a count already made for this thread.
    fn adopt(count: &'r AtomicUsize) -> Self {
        Self(count)
    }
}

impl Drop for Searching<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The calling thread's worker state, if it is a worker of `registry`.
pub(crate) fn current_worker(registry: &Registry) -> Option<Rc<WorkerCtx>> {
    CURRENT.with(|current| {
        current
            .get()
            .filter(|w| std::ptr::eq(&*w.registry, registry))
            .cloned()
    })
}
