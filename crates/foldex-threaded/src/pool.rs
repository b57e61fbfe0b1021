//! The work-stealing pool: one deque per worker, an injector for outside calls, parked idlers.

pub(crate) mod builder;

use self::builder::{PoolBuilder, WorkerOptions};
use crate::sleep::Sleep;
use crossbeam_deque::{Injector, Steal, Stealer, Worker};
use foldex_core::exec::{spawn_running, Forked, JoinLatch, TaskRef};
use std::cell::{Cell, OnceCell};
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// Rounds an idle worker looks for work before it parks: long enough that back-to-back folds
/// find it awake (no futex wake on their critical path), short enough that an idle pool costs
/// nothing measurable. Why 256: docs/architecture.md, "Why it changed".
const SPIN_ROUNDS: u32 = 256;
/// Of those, the first ones only pause the core; later ones yield it to other threads.
const PAUSE_ROUNDS: u32 = 16;
/// A waiting worker that found nothing to steal sleeps on its latch this long before it looks
/// again (new work does not wake a latch, so it must poll; it is woken at once when its latch
/// is set).
const HELP_POLL: Duration = Duration::from_micros(200);
/// How many tasks a waiting worker may have stolen on top of each other on its stack. Beyond
/// it, it only takes back its own forked halves (which end the wait it is in) and sleeps
/// otherwise, so that folds nested in folds cannot grow a worker's stack without bound.
const MAX_HELP_DEPTH: usize = 32;
/// A thread outside the pool that offered a fold to it checks this often whether every worker
/// is busy; if so and none has started the fold, it takes the fold back and runs it itself.
const RECLAIM_POLL: Duration = Duration::from_millis(1);

/// What the workers share.
pub(crate) struct Registry {
    injector: Injector<TaskRef>,
    stealers: Box<[Stealer<TaskRef>]>,
    sleep: Sleep,
    /// Workers looking for work before they count as idle. A helper from outside leaves work
    /// to them: one of them is about to take it.
    searching: AtomicUsize,
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

/// A worker thread's own state, reachable from the tasks it runs through a thread-local.
pub(crate) struct WorkerCtx {
    registry: Arc<Registry>,
    index: usize,
    deque: Worker<TaskRef>,
    rng: Cell<u64>,
    /// Tasks stolen while waiting, stacked on this thread now (see [`MAX_HELP_DEPTH`]).
    help_depth: Cell<usize>,
}

thread_local! {
    static CURRENT: OnceCell<Rc<WorkerCtx>> = const { OnceCell::new() };
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

    fn find_work(&self) -> Option<TaskRef> {
        self.deque
            .pop()
            .or_else(|| self.registry.steal(self.next_victim()))
    }

    fn main_loop(&self) {
        let sleep = &self.registry.sleep;
        'outer: loop {
            let mut searching = None;
            for round in 0..SPIN_ROUNDS {
                if let Some(task) = self.find_work() {
                    drop(searching);
                    task.run();
                    continue 'outer;
                }
                if round == 0 {
                    searching = Some(Searching::begin(&self.registry.searching));
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
            // Counted idle first, so that a helper never sees this worker as neither.
            drop(searching);
            if let Some(task) = self.find_work() {
                sleep.cancel_idle();
                task.run();
                continue;
            }
            if self.registry.terminate.load(Ordering::SeqCst) {
                sleep.cancel_idle();
                return;
            }
            sleep.sleep(ticket);
        }
    }
}

/// Counts a worker in [`Registry::searching`] while it exists.
struct Searching<'r>(&'r AtomicUsize);

impl<'r> Searching<'r> {
    fn begin(count: &'r AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::Relaxed);
        Self(count)
    }
}

impl Drop for Searching<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The thread a piece of a fold runs on, as seen by the fold: a worker of the pool (its own
/// deque, it helps while it waits) or a thread outside it (it pushes to the injector).
pub(crate) enum Context<'r> {
    Worker(Rc<WorkerCtx>),
    Outside(&'r Registry),
}

impl<'r> Context<'r> {
    /// The context of the calling thread with respect to `registry`.
    pub(crate) fn current(registry: &'r Registry) -> Self {
        match current_worker(registry) {
            Some(worker) => Self::Worker(worker),
            None => Self::Outside(registry),
        }
    }

    pub(crate) fn registry(&self) -> &Registry {
        match self {
            Self::Worker(w) => &w.registry,
            Self::Outside(r) => r,
        }
    }

    /// Makes `task` available to thieves (it runs the right half of a fork).
    pub(crate) fn push(&self, task: TaskRef) {
        match self {
            Self::Worker(w) => {
                w.deque.push(task);
                w.registry.sleep.notify_own_work();
            }
            Self::Outside(r) => {
                r.injector.push(task);
                r.sleep.notify_work();
            }
        }
    }

    /// Any task of the pool this thread may run now. Outside the pool, only a task a worker
    /// forked: a fold submitted from outside waits in the injector for the workers, since a
    /// helper from outside runs what it takes as one leaf, and taking a whole fold that way
    /// would leave the workers idle (a loader's consumer polling for batches took every
    /// round's root before a parked worker woke, and the epoch ran on one thread).
    ///
    /// Nor while a worker looks for work or is idle: it is about to take the task (every push
    /// wakes an idle one), and a forked task is a share of a fold that a worker runs with all
    /// its splitting, while a helper runs it as a single leaf.
    pub(crate) fn find_work(&self) -> Option<TaskRef> {
        match self {
            Self::Worker(w) => w.find_work(),
            Self::Outside(r) if r.sleep.any_idle() || r.searching.load(Ordering::Relaxed) > 0 => {
                None
            }
            Self::Outside(r) => r.steal_from(0, false),
        }
    }

    /// Work for a waiting thread: as [`Context::find_work`], but a worker that is already
    /// [`MAX_HELP_DEPTH`] stolen tasks deep only takes back its own forked halves.
    fn find_help(&self) -> Option<TaskRef> {
        match self {
            Self::Worker(w) if w.help_depth.get() >= MAX_HELP_DEPTH => w.deque.pop(),
            _ => self.find_work(),
        }
    }

    /// Runs a task taken while waiting, counted in the worker's help depth and as waiting
    /// (`waiting.rs`).
    fn run_helping(&self, task: TaskRef) {
        match self {
            Self::Worker(w) => {
                w.help_depth.set(w.help_depth.get() + 1);
                crate::waiting::WAITING.while_waiting(|| task.run());
                w.help_depth.set(w.help_depth.get() - 1);
            }
            Self::Outside(_) => crate::waiting::WAITING.while_waiting(|| task.run()),
        }
    }

    /// Runs other tasks of the pool until the `forked` half is done, sleeping on its latch
    /// only when there is nothing to steal. This is what keeps a waiting worker busy, and what
    /// lets a fold nested in a fold on the same pool finish: the waiter runs the very tasks it
    /// waits for if nobody else does. The forked half itself, found unstarted on the deque, is
    /// taken back, to run on this frame as the other half did.
    ///
    /// The other tasks it runs count as waiting (`waiting.rs`): this frame cannot resume
    /// before they return. A worker already [`MAX_HELP_DEPTH`] stolen tasks deep
    /// only pops its own deque.
    pub(crate) fn help_until(&self, forked: &Forked<'_>) {
        let mut idle_rounds = 0;
        while !forked.is_done() {
            if let Some(task) = self.find_help() {
                if let Some(task) = forked.take_back(task) {
                    self.run_helping(task);
                }
                idle_rounds = 0;
            } else if idle_rounds < SPIN_ROUNDS {
                idle_rounds += 1;
                if idle_rounds < PAUSE_ROUNDS {
                    std::hint::spin_loop();
                } else {
                    thread::yield_now();
                }
            } else {
                forked.latch().wait_timeout(HELP_POLL);
            }
        }
    }
}

fn current_worker(registry: &Registry) -> Option<Rc<WorkerCtx>> {
    CURRENT.with(|current| {
        current
            .get()
            .filter(|w| std::ptr::eq(&*w.registry, registry))
            .cloned()
    })
}

/// A pool of worker threads for [`ThreadedEx`](crate::ThreadedEx); a cheap handle, shared by
/// cloning.
///
/// Each worker owns a deque (it pops its own tasks newest first, thieves steal oldest first);
/// calls from outside the pool enter through a shared injector. Idle workers spin briefly, then
/// park and use no CPU until work arrives. Threads are named `foldex-threaded-N`.
///
/// Dropping the last handle to a pool made with [`Pool::new`] stops and joins its threads.
/// [`Pool::global`] is created on first use, sized by the available parallelism, and lives as
/// long as the process.
///
/// ```
/// use foldex_core::ExecutorExt;
/// use foldex_threaded::{Pool, ThreadedEx};
/// let pool = Pool::new(2);
/// let a = ThreadedEx::new().pool(pool.clone());
/// let b = ThreadedEx::new().pool(pool).basesize(100);
/// assert_eq!(a.sum::<usize>(0..1000), b.sum::<usize>(0..1000));
/// ```
#[derive(Clone)]
pub struct Pool {
    shared: Arc<PoolShared>,
}

struct PoolShared {
    registry: Arc<Registry>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Pool {
    /// A pool of `threads` worker threads.
    ///
    /// # Panics
    /// With the message of [`Pool::try_new`]'s error: if `threads` is 0 ("threads must be at
    /// least 1, got 0"), or if the operating system refuses a worker thread ("foldex-threaded:
    /// could not start worker 299 of 1000 (threads = 1000): Resource temporarily unavailable
    /// (os error 11)"), once the workers already started are stopped and joined.
    #[track_caller]
    pub fn new(threads: usize) -> Self {
        match Self::try_new(threads) {
            Ok(pool) => pool,
            Err(e) => panic!("{e}"),
        }
    }

    /// A pool of `threads` worker threads, or why it could not be made: `threads` is 0, or the
    /// operating system refused to start a worker (a limit on threads such as `ulimit -u`, or
    /// no memory for its stack). In the second case the workers started before it are stopped
    /// and joined before this returns: a pool that fails to start leaves no thread behind.
    ///
    /// For thread counts that come from users or configuration, where [`Pool::new`]'s panic
    /// would be the wrong answer.
    ///
    /// ```
    /// use foldex_threaded::Pool;
    ///
    /// let pool = Pool::try_new(2)?;
    /// assert_eq!(pool.threads(), 2);
    /// let err = Pool::try_new(0).unwrap_err();
    /// assert_eq!(err.to_string(), "threads must be at least 1, got 0");
    /// # Ok::<(), foldex_threaded::PoolError>(())
    /// ```
    pub fn try_new(threads: usize) -> Result<Self, crate::error::PoolError> {
        Self::builder().threads(threads).build()
    }

    /// Settings for a pool beyond its thread count: thread names, stack size, start and exit
    /// handlers; see [`PoolBuilder`].
    pub fn builder() -> PoolBuilder {
        PoolBuilder::new()
    }

    /// Starts `threads` workers (at least 1) made with `options`.
    pub(crate) fn start(
        threads: usize,
        options: WorkerOptions,
    ) -> Result<Self, crate::error::PoolError> {
        use crate::error::PoolError;
        use std::sync::{Condvar, PoisonError};

        let deques: Vec<Worker<TaskRef>> = (0..threads).map(|_| Worker::new_lifo()).collect();
        let registry = Arc::new(Registry {
            injector: Injector::new(),
            stealers: deques.iter().map(Worker::stealer).collect(),
            sleep: Sleep::new(),
            // Each worker counts as looking for work until it enters its loop: it is about to,
            // and a helper from outside must leave work to it meanwhile.
            searching: AtomicUsize::new(threads),
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
            let worker = WorkerCtx {
                registry: Arc::clone(&registry),
                index,
                deque,
                rng: Cell::new(seed),
                help_depth: Cell::new(0),
            };
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
                let worker = Rc::new(worker);
                CURRENT.with(|current| {
                    current.set(Rc::clone(&worker)).ok();
                });
                if let Some(on_start) = on_start {
                    let _ = panic::catch_unwind(AssertUnwindSafe(|| on_start(index)));
                }
                worker.registry.searching.fetch_sub(1, Ordering::Relaxed);
                worker.main_loop();
                if let Some(on_exit) = on_exit {
                    let _ = panic::catch_unwind(AssertUnwindSafe(|| on_exit(index)));
                }
            });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(error) => {
                    open(false);
                    // Dropping the pool's state stops the workers started so far and joins them.
                    drop(PoolShared {
                        registry,
                        threads: Mutex::new(handles),
                    });
                    return Err(PoolError::spawn(index, threads, error));
                }
            }
        }
        open(true);
        Ok(Self {
            shared: Arc::new(PoolShared {
                registry,
                threads: Mutex::new(handles),
            }),
        })
    }

    /// The process-wide pool, created on first use with [`PoolBuilder`]'s defaults: as many
    /// threads as `FOLDEX_NUM_THREADS` says, or one per available core.
    ///
    /// # Panics
    /// If `FOLDEX_NUM_THREADS` is not a whole number of at least 1, or the operating system
    /// refuses a worker, with [`PoolBuilder::build`]'s message.
    pub fn global() -> Self {
        static GLOBAL: OnceLock<Pool> = OnceLock::new();
        GLOBAL
            .get_or_init(|| match PoolBuilder::new().build() {
                Ok(pool) => pool,
                Err(e) => panic!("{e}"),
            })
            .clone()
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.shared.registry.threads()
    }

    /// `true` when the calling thread is one of this pool's workers.
    pub fn is_worker_thread(&self) -> bool {
        current_worker(&self.shared.registry).is_some()
    }

    /// The index (the `N` of `foldex-threaded-N`) of the calling thread in this pool, or `None`
    /// outside it.
    pub fn current_thread_index(&self) -> Option<usize> {
        current_worker(&self.shared.registry).map(|w| w.index)
    }

    /// `true` when both handles refer to the same pool.
    pub fn ptr_eq(&self, other: &Pool) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    pub(crate) fn registry(&self) -> &Registry {
        &self.shared.registry
    }
}

impl From<Arc<Pool>> for Pool {
    fn from(pool: Arc<Pool>) -> Self {
        (*pool).clone()
    }
}

impl From<&Pool> for Pool {
    fn from(pool: &Pool) -> Self {
        pool.clone()
    }
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads())
            .finish_non_exhaustive()
    }
}

impl Drop for PoolShared {
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
