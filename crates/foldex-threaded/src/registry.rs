//! The machinery behind a [`Pool`](crate::Pool): its worker threads, one deque per worker, an
//! injector for outside calls, and the sleep of idle workers.
//!
//! - [`Registry`] (here): what the workers share, and how a thread outside the pool queues a
//!   task and waits for a fold it offered.
//! - [`Workers`] (here): the running threads of a registry, started one at a time and stopped
//!   and joined when it is dropped.
//! - `worker`: a worker thread's own state and its loop.
//! - `context`: the thread a piece of a fold runs on, as the executor sees it (a worker with its
//!   deque, or a thread outside the pool), and the help loop of a thread that waits for a fork.
//! - `sleep`: parking idle workers without lost wake-ups.

mod context;
#[cfg(loom)]
#[doc(hidden)]
pub mod sleep;
#[cfg(not(loom))]
mod sleep;
mod worker;

pub(crate) use self::context::{Context, Share};
pub(crate) use self::worker::current_worker;

use self::sleep::Sleep;
use self::worker::{WorkerCtx, CURRENT};
use crate::error::PoolError;
use crossbeam_deque::{Injector, Steal, Stealer, Worker};
use foldex_core::exec::{spawn_running, ChoiceTable, JoinLatch, PendingForks, TaskRef};
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// Rounds an idle worker looks for work before it parks: long enough that back-to-back folds
/// find it awake (no futex wake on their critical path), short enough that an idle pool costs
/// nothing measurable. Why 256: docs/benchmarks.md.
const SPIN_ROUNDS: u32 = 256;
/// Of those, the first ones only pause the core; later ones yield it to other threads.
const PAUSE_ROUNDS: u32 = 16;
/// A thread outside the pool that offered a fold to it checks this often whether every worker
/// is busy; if so and none has started the fold, it takes the fold back and runs it itself.
const RECLAIM_POLL: Duration = Duration::from_millis(1);

/// A function of the worker's index, run on the worker.
pub(crate) type Handler = Arc<dyn Fn(usize) + Send + Sync>;

/// What a pool's workers are made with.
#[derive(Clone)]
pub(crate) struct WorkerOptions {
    pub(crate) name: Arc<dyn Fn(usize) -> String + Send + Sync>,
    pub(crate) stack_size: Option<usize>,
    pub(crate) on_start: Option<Handler>,
    pub(crate) on_exit: Option<Handler>,
}

/// What the workers share.
pub(crate) struct Registry {
    injector: Injector<TaskRef>,
    stealers: Box<[Stealer<TaskRef>]>,
    sleep: Sleep,
    /// Workers looking for work: before they count as idle, or while they wait for a stolen
    /// half with nothing to run. A helper from outside leaves work to them (one of them is
    /// about to take it), and a forking worker shares a pending fork with them.
    searching: AtomicUsize,
    /// A thread outside the pool found nothing to help with (`ThreadedEx::help`): the next
    /// worker to fork shares a pending fork even though no worker is idle.
    share_requested: AtomicBool,
    /// The lengths of folds started outside the pool that run inline (`inline.rs`).
    pub(crate) inline_lengths: ChoiceTable,
    terminate: AtomicBool,
}

impl Registry {
    /// Blocks a thread outside the pool on the latch of a fold it offered
    /// ([`foldex_core::exec::offer`]) until the latch is set, or until every worker was seen busy
    /// (none idle, none looking for work) at two polls in a row, in which case the offer is
    /// taken back if no worker has started it. A worker of another pool does not run its own
    /// pool's tasks meanwhile:
    /// stacking them here could nest without bound, and taking the offer back already ensures
    /// that no two pools can each hold the threads the other waits for.
    pub(crate) fn wait_for_offer(&self, latch: &JoinLatch) {
        let mut busy_polls = 0;
        while !latch.wait_timeout(RECLAIM_POLL) {
            if self.sleep.any_idle() || self.searching.load(Ordering::Relaxed) > 0 {
                busy_polls = 0;
            } else if busy_polls == 1 {
                return;
            } else {
                busy_polls += 1;
            }
        }
    }

    /// `true` when some thread would take work that a forking worker shares: a worker idle or
    /// looking for work (waiting workers with nothing to run count as looking), or a helper
    /// from outside that found nothing. Relaxed loads of lines that change only when a
    /// thread's state does: a worker reads them at every fork.
    #[inline]
    pub(crate) fn wants_work(&self) -> bool {
        self.searching.load(Ordering::Relaxed) > 0
            || self.sleep.any_idle_relaxed()
            || self.share_requested.load(Ordering::Relaxed)
    }

    /// Asks the workers to share a pending fork at their next fork (see
    /// [`Registry::wants_work`]).
    pub(crate) fn request_share(&self) {
        if !self.share_requested.load(Ordering::Relaxed) {
            self.share_requested.store(true, Ordering::Relaxed);
        }
    }

    pub(crate) fn threads(&self) -> usize {
        self.stealers.len()
    }

    /// Queues a task from a thread outside the pool.
    pub(crate) fn inject(&self, task: TaskRef) {
        self.injector.push(task);
        self.sleep.notify_work();
    }

    /// One task from the injector or any worker's deque, probing from `start`.
    fn steal(&self, start: usize) -> Option<TaskRef> {
        self.steal_from(start, true)
    }

    /// A task from the workers' deques, and from the injector too if `injected`.
    fn steal_from(&self, start: usize, injected: bool) -> Option<TaskRef> {
        let n = self.stealers.len();
        loop {
            let mut retry = false;
            for i in 0..n {
                match self.stealers[(start + i) % n].steal() {
                    Steal::Success(task) => return Some(task),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if injected {
                match self.injector.steal() {
                    Steal::Success(task) => return Some(task),
                    Steal::Retry => retry = true,
                    Steal::Empty => {}
                }
            }
            if !retry {
                return None;
            }
        }
    }
}

/// The running worker threads of a registry; dropping it stops and joins them.
pub(crate) struct Workers {
    registry: Arc<Registry>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Workers {
    /// Starts `threads` workers (at least 1) made with `options`, or stops and joins those
    /// started before the operating system refused one.
    pub(crate) fn start(threads: usize, options: WorkerOptions) -> Result<Self, PoolError> {
        let deques: Vec<Worker<TaskRef>> = (0..threads).map(|_| Worker::new_lifo()).collect();
        let registry = Arc::new(Registry {
            injector: Injector::new(),
            stealers: deques.iter().map(Worker::stealer).collect(),
            sleep: Sleep::new(),
            // Each worker counts as looking for work from the start (its loop takes the count
            // over): it is about to, and a helper from outside must leave work to it meanwhile.
            searching: AtomicUsize::new(threads),
            share_requested: AtomicBool::new(false),
            inline_lengths: crate::inline::new_table(),
            terminate: AtomicBool::new(false),
        });
        // The workers wait at this gate until every one of them has started (`Some(true)`), or
        // leave at once when one could not (`Some(false)`): none looks for work while the
        // others are still being created, and a pool that fails to start stops without delay.
        let gate = Arc::new((Mutex::new(None::<bool>), Condvar::new()));
        let open = |go: bool| {
            let (state, opened) = &*gate;
            *state.lock().unwrap_or_else(PoisonError::into_inner) = Some(go);
            opened.notify_all();
        };
        static SEED: AtomicUsize = AtomicUsize::new(0x9E37_79B9);
        let mut handles = Vec::with_capacity(threads);
        for (index, deque) in deques.into_iter().enumerate() {
            let seed = SEED.fetch_add(0x9E37_79B9, Ordering::Relaxed) as u64 | 1;
            let worker_registry = Arc::clone(&registry);
            let gate = Arc::clone(&gate);
            let mut builder = thread::Builder::new().name((options.name)(index));
            if let Some(bytes) = options.stack_size {
                builder = builder.stack_size(bytes);
            }
            let (on_start, on_exit) = (options.on_start.clone(), options.on_exit.clone());
            let spawned = spawn_running(builder, move || {
                let go = {
                    let (state, opened) = &*gate;
                    let state = state.lock().unwrap_or_else(PoisonError::into_inner);
                    let state = opened
                        .wait_while(state, |go| go.is_none())
                        .unwrap_or_else(PoisonError::into_inner);
                    *state == Some(true)
                };
                drop(gate);
                if !go {
                    return;
                }
                // Made here: a worker's pending forks never leave its thread.
                let worker = Rc::new(WorkerCtx {
                    registry: worker_registry,
                    index,
                    deque,
                    rng: Cell::new(seed),
                    help_depth: Cell::new(0),
                    pending: PendingForks::new(),
                    shared_at: Cell::new(None),
                    inline_lengths: crate::inline::new_table(),
                });
                CURRENT.with(|current| {
                    current.set(Rc::clone(&worker)).ok();
                });
                if let Some(on_start) = on_start {
                    let _ = panic::catch_unwind(AssertUnwindSafe(|| on_start(index)));
                }
                worker.main_loop();
                if let Some(on_exit) = on_exit {
                    let _ = panic::catch_unwind(AssertUnwindSafe(|| on_exit(index)));
                }
            });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(error) => {
                    open(false);
                    // Dropping them stops the workers started so far and joins them.
                    drop(Self {
                        registry,
                        threads: Mutex::new(handles),
                    });
                    return Err(PoolError::spawn(index, threads, error));
                }
            }
        }
        open(true);
        Ok(Self {
            registry,
            threads: Mutex::new(handles),
        })
    }

    /// What the workers share.
    pub(crate) fn registry(&self) -> &Registry {
        &self.registry
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.registry.terminate.store(true, Ordering::SeqCst);
        self.registry.sleep.notify_all();
        let handles = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        let me = thread::current().id();
        for handle in handles {
            // The last handle may be dropped by a task on one of the pool's own threads: that
            // thread cannot join itself, and exits on its own once its task returns.
            if handle.thread().id() != me {
                // A worker never panics (tasks catch their panics), so there is nothing to report.
                let _ = handle.join();
            }
        }
    }
}
