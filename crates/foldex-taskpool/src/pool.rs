//! The persistent worker threads and the queue they take tasks from.

use crate::sync::{thread, Condvar, Mutex, MutexGuard};
use foldex_core::TaskRef;
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[cfg(not(loom))]
std::thread_local! {
    /// The id of the pool whose worker this thread is (0: none).
    static WORKER_OF: Cell<u64> = const { Cell::new(0) };
}

#[cfg(loom)]
loom::thread_local! {
    static WORKER_OF: Cell<u64> = Cell::new(0);
}

/// Ids for pools and folds; 0 is never handed out.
pub(crate) fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Which threads may take a queued task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Takers {
    /// The pool's workers only: the slots of folds in background mode, so that their chunks
    /// never run on a helping consumer.
    Workers,
    /// The workers, or a thread outside the pool through `Executor::help`
    /// ([`Shared::try_pop_helpable`]): the slots of folds in foreground mode.
    Anyone,
    /// A helping thread only: the slot a caller that stands in for a helper leaves to it
    /// (`foldex_core::stand_in_for_helper`). Workers pass it by, so that it waits for the
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
    shutdown: bool,
}

/// What the workers and the folds share: a FIFO of tasks and the condition workers sleep on.
pub(crate) struct Shared {
    id: u64,
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

    /// Removes every queued task of `fold` and returns them, to be dropped (unrun) outside the
    /// lock.
    pub(crate) fn take_back(&self, fold: u64) -> Vec<TaskRef> {
        let mut queue = self.lock();
        if !queue.tasks.iter().any(|q| q.fold == fold) {
            return Vec::new();
        }
        let (mine, others): (VecDeque<Queued>, VecDeque<Queued>) =
            queue.tasks.drain(..).partition(|q| q.fold == fold);
        queue.tasks = others;
        mine.into_iter().map(|q| q.task).collect()
    }

    /// Blocks until a task that a worker may take is queued (`Some`), or the pool shuts down
    /// with none left (`None`). Tasks left to helpers stay queued.
    fn next_task(&self) -> Option<TaskRef> {
        let mut queue = self.lock();
        loop {
            // Tasks for helpers only are rare (one per fold whose caller stands in), so this
            // nearly always takes the front.
            if let Some(at) = queue.tasks.iter().position(|q| q.takers.workers()) {
                let queued = queue.tasks.remove(at).expect("a found position");
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
    while let Some(task) = shared.next_task() {
        // `TaskRef::run` catches a panic and hands it to the fold's caller: the worker lives on.
        task.run();
    }
}

/// The running threads of one pool; dropping it stops and joins them.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Pool {
    /// Starts `threads` workers named `foldex-taskpool-0`, `foldex-taskpool-1`...
    pub(crate) fn start(threads: usize) -> Self {
        let shared = Arc::new(Shared {
            id: next_id(),
            queue: Mutex::new(Queue::default()),
            work: Condvar::new(),
        });
        let threads = (0..threads)
            .map(|i| {
                let shared = Arc::clone(&shared);
                thread::Builder::new()
                    .name(format!("foldex-taskpool-{i}"))
                    .spawn(move || work(shared))
                    .expect("foldex-taskpool: failed to start a worker thread")
            })
            .collect();
        Self { shared, threads }
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
