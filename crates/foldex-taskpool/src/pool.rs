//! The persistent worker threads and the queue they take tasks from.

use foldex_core::exec::sync::AtomicUsize;
use foldex_core::exec::sync::{thread, Condvar, Mutex, MutexGuard};
use foldex_core::exec::TaskRef;
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[cfg(not(loom))]
std::thread_local! {
    /// The id of the pool whose worker this thread is (0: none).
    static WORKER_OF: Cell<u64> = const { Cell::new(0) };
    /// The id of the pool whose fold this thread, from outside the pool, runs chunks of as
    /// its caller (0: none).
    static CALLER_OF: Cell<u64> = const { Cell::new(0) };
}

#[cfg(loom)]
loom::thread_local! {
    static WORKER_OF: Cell<u64> = Cell::new(0);
    static CALLER_OF: Cell<u64> = Cell::new(0);
}

/// Ids for pools and folds; 0 is never handed out.
pub(crate) fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Which threads may take a queued task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Takers {
    /// The pool's workers only: the lanes of folds in background mode, so that their chunks
    /// never run on a helping consumer.
    Workers,
    /// The workers, or a thread outside the pool through `Executor::help`
    /// ([`Shared::try_pop_helpable`]): the lanes of folds in foreground mode.
    Anyone,
    /// A helping thread only: the lane a caller that stands in for a helper leaves to it
    /// (a job whose `Job::caller` is `Caller::StandsIn`). Workers pass it by, so that it waits for the
    /// helper instead of going to an idle worker.
    Helpers,
}

impl Takers {
    fn workers(self) -> bool {
        self != Takers::Helpers
    }

    fn helpers(self) -> bool {
        self != Takers::Workers
    }
}

/// A queued task, tagged with the fold it belongs to so that a finished fold can take back
/// the tasks it no longer needs.
struct Queued {
    fold: u64,
    takers: Takers,
    task: TaskRef,
}

#[derive(Default)]
struct Queue {
    tasks: VecDeque<Queued>,
    sleeping: usize,
    /// Tasks the workers have taken so far: a waiting caller sees from it whether they move.
    taken: u64,
    shutdown: bool,
}

/// What the workers and the folds share: a FIFO of tasks and the condition workers sleep on.
pub(crate) struct Shared {
    id: u64,
    /// How many workers the pool has.
    threads: usize,
    /// Workers inside a task they took; changed under the queue lock, read without it by
    /// [`Shared::has_free_task`].
    busy: AtomicUsize,
    /// Threads from outside the pool that run chunks of a fold on it as its caller (foreground
    /// mode), each counted once (see [`Shared::as_caller`]).
    callers: AtomicUsize,
    queue: Mutex<Queue>,
    work: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // No user code runs under this lock, so poisoning cannot leave the queue half-changed.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `true` on one of this pool's worker threads.
    pub(crate) fn is_current_worker(&self) -> bool {
        WORKER_OF.with(|id| id.get() == self.id)
    }

    /// `true` on a thread from outside the pool that runs chunks of a fold on this pool as its
    /// caller, inside [`Shared::as_caller`]: a fold started there is nested in a step of it.
    pub(crate) fn is_current_caller(&self) -> bool {
        CALLER_OF.with(|id| id.get() == self.id)
    }

    /// `true` while fewer of the pool's threads run chunks than it has workers: the busy
    /// workers and the callers from outside that run chunks (each one of a fold's `ntasks`)
    /// leave a task free to take a queued lane. Two relaxed loads: a hint, which a worker that
    /// is just taking or leaving a task may make stale at once.
    pub(crate) fn has_free_task(&self) -> bool {
        let running = self.busy.load(Ordering::Relaxed) + self.callers.load(Ordering::Relaxed);
        running < self.threads
    }

    /// Runs `f` with the calling thread (from outside the pool) counted among the threads
    /// that run chunks, and known as a caller of this pool ([`Shared::is_current_caller`]);
    /// a thread already counted is not counted twice. Restored when `f` returns or unwinds.
    pub(crate) fn as_caller<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Leave<'s> {
            shared: &'s Shared,
            previous: u64,
        }
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                CALLER_OF.with(|id| id.set(self.previous));
                if self.previous != self.shared.id {
                    self.shared.callers.fetch_sub(1, Ordering::Relaxed);
                }
            }
        }
        let previous = CALLER_OF.with(|id| id.replace(self.id));
        if previous != self.id {
            self.callers.fetch_add(1, Ordering::Relaxed);
        }
        let _leave = Leave {
            shared: self,
            previous,
        };
        f()
    }

    /// Queues `count` tasks that `make` makes, unless `still_wanted` says (under the queue lock)
    /// that the fold needs no more of them. Taking the decision under the lock orders it against
    /// [`Shared::take_back`]: once a fold has taken its tasks back, no new one appears.
    pub(crate) fn push_if(
        &self,
        fold: u64,
        takers: Takers,
        still_wanted: impl FnOnce() -> bool,
        count: usize,
        mut make: impl FnMut() -> TaskRef,
    ) {
        let mut queue = self.lock();
        if !still_wanted() {
            return;
        }
        // A task only a helper may take would wake a worker for nothing.
        let wake = if takers.workers() {
            count.min(queue.sleeping)
        } else {
            0
        };
        queue.tasks.extend((0..count).map(|_| Queued {
            fold,
            takers,
            task: make(),
        }));
        drop(queue);
        for _ in 0..wake {
            self.work.notify_one();
        }
    }

    /// Takes the oldest queued task that a thread outside the pool may run, if any.
    pub(crate) fn try_pop_helpable(&self) -> Option<TaskRef> {
        let mut queue = self.lock();
        let at = queue.tasks.iter().position(|q| q.takers.helpers())?;
        queue.tasks.remove(at).map(|q| q.task)
    }

    /// `true` when a task of `fold` that the workers may take is queued while every worker is
    /// inside a task and none has taken a task since the last call (`taken` holds the count
    /// seen then): the workers are held up elsewhere, perhaps by the caller itself.
    pub(crate) fn is_stalled(&self, fold: u64, taken: &mut u64) -> bool {
        let queue = self.lock();
        let moved = std::mem::replace(taken, queue.taken) != queue.taken;
        !moved
            && self.busy.load(Ordering::Relaxed) == self.threads
            && queue
                .tasks
                .iter()
                .any(|q| q.fold == fold && q.takers.workers())
    }

    /// Removes every queued task of `fold` and returns them, to be dropped (unrun) outside the
    /// lock.
    pub(crate) fn take_back(&self, fold: u64) -> Vec<TaskRef> {
        self.take_back_where(fold, |_| true)
    }

    /// Removes the queued tasks of `fold` that the workers may take, and returns them; a task
    /// left to helpers stays queued for them.
    pub(crate) fn take_back_workers_tasks(&self, fold: u64) -> Vec<TaskRef> {
        self.take_back_where(fold, Takers::workers)
    }

    fn take_back_where(&self, fold: u64, takers: impl Fn(Takers) -> bool) -> Vec<TaskRef> {
        let mut queue = self.lock();
        let wanted = |q: &Queued| q.fold == fold && takers(q.takers);
        if !queue.tasks.iter().any(wanted) {
            return Vec::new();
        }
        let (mine, others): (VecDeque<Queued>, VecDeque<Queued>) =
            queue.tasks.drain(..).partition(wanted);
        queue.tasks = others;
        mine.into_iter().map(|q| q.task).collect()
    }

    /// Blocks until a task that a worker may take is queued (`Some`), or the pool shuts down
    /// with none left (`None`). Tasks left to helpers stay queued.
    /// `finished` says that the calling worker has just finished the task it took before.
    fn next_task(&self, finished: bool) -> Option<TaskRef> {
        let mut queue = self.lock();
        if finished {
            self.busy.fetch_sub(1, Ordering::Relaxed);
        }
        loop {
            // Tasks for helpers only are rare (one per fold whose caller stands in), so this
            // nearly always takes the front.
            if let Some(at) = queue.tasks.iter().position(|q| q.takers.workers()) {
                let queued = queue.tasks.remove(at).expect("a found position");
                self.busy.fetch_add(1, Ordering::Relaxed);
                queue.taken += 1;
                return Some(queued.task);
            }
            if queue.shutdown {
                return None;
            }
            queue.sleeping += 1;
            queue = self.work.wait(queue).unwrap_or_else(|e| e.into_inner());
            queue.sleeping -= 1;
        }
    }
}

fn work(shared: Arc<Shared>) {
    WORKER_OF.with(|id| id.set(shared.id));
    let mut finished = false;
    while let Some(task) = shared.next_task(finished) {
        // `TaskRef::run` catches a panic and hands it to the fold's caller: the worker lives on.
        task.run();
        finished = true;
    }
}

/// Starts one worker thread and returns once it runs (`spawn_running`: running out of memory is
/// then the next spawn's error, not an abort); under loom, a model thread.
#[cfg(not(loom))]
fn start_worker(
    name: String,
    body: impl FnOnce() + Send + 'static,
) -> std::io::Result<thread::JoinHandle<()>> {
    foldex_core::exec::spawn_running(thread::Builder::new().name(name), body)
}

#[cfg(loom)]
fn start_worker(
    name: String,
    body: impl FnOnce() + Send + 'static,
) -> std::io::Result<thread::JoinHandle<()>> {
    thread::Builder::new().name(name).spawn(body)
}

/// The running threads of one pool; dropping it stops and joins them.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Pool {
    /// Starts `ntasks` workers named `foldex-taskpool-0`, `foldex-taskpool-1`...
    ///
    /// When the operating system refuses one (a limit on threads, no memory for its stack),
    /// the workers started before it are stopped and joined, and the error says which worker
    /// of how many could not start, under which setting, and why: "foldex-taskpool: could not
    /// start worker 299 of 1000 (ntasks = 1000): Resource temporarily unavailable (os error
    /// 11)".
    pub(crate) fn start(ntasks: usize) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            id: next_id(),
            threads: ntasks,
            busy: AtomicUsize::new(0),
            callers: AtomicUsize::new(0),
            queue: Mutex::new(Queue::default()),
            work: Condvar::new(),
        });
        let mut pool = Self {
            shared,
            threads: Vec::with_capacity(ntasks),
        };
        for i in 0..ntasks {
            let shared = Arc::clone(&pool.shared);
            match start_worker(format!("foldex-taskpool-{i}"), move || work(shared)) {
                Ok(thread) => pool.threads.push(thread),
                // Dropping the pool stops the workers started so far and joins them.
                Err(e) => {
                    return Err(std::io::Error::new(
                        e.kind(),
                        format!(
                            "foldex-taskpool: could not start worker {i} of {ntasks} \
                             (ntasks = {ntasks}): {e}"
                        ),
                    ))
                }
            }
        }
        Ok(pool)
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.work.notify_all();
        let me = thread::current().id();
        for thread in self.threads.drain(..) {
            // The last handle may be dropped by a task on one of our own workers: that worker
            // exits by itself once its task returns, and cannot join itself.
            if thread.thread().id() != me {
                let _ = thread.join();
            }
        }
    }
}
