//! The thread a piece of a fold runs on, as the executor sees it, and what it does while it
//! waits for a forked half.

use super::worker::{current_worker, Searching, WorkerCtx};
use super::{Registry, PAUSE_ROUNDS, SPIN_ROUNDS};
use foldex_core::exec::{join_pending, ChoiceTable, Forked, JoinHalf, TaskRef};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::Duration;

/// A waiting worker that found nothing to steal sleeps on its latch this long before it looks
/// again (new work does not wake a latch, so it must poll; it is woken at once when its latch
/// is set).
const HELP_POLL: Duration = Duration::from_micros(200);
/// How many tasks a waiting worker may have stolen on top of each other on its stack. Beyond
/// it, it only takes back its own forked halves (which end the wait it is in) and sleeps
/// otherwise, so that folds nested in folds cannot grow a worker's stack without bound.
pub(super) const MAX_HELP_DEPTH: usize = 32;

/// When a worker hands a fork to other threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Share {
    /// At every fork, the oldest pending one goes to the deque: for a fold that starts while
    /// threads want work (a fold from outside, on a pool with idle workers), whose few, large
    /// pieces thieves should find at once, and for a loader's epoch (its turns run until the
    /// epoch is done, so its helper needs every fork queued).
    Always,
    /// Only when a thread wants work and the worker's deque is empty: for a fold that starts
    /// while every worker is busy, and for `join`, whose forks are frequent.
    WhenWanted,
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

    /// The lengths this thread's folds learned to run inline (`inline.rs`): the worker's own
    /// table, or the registry's for callers outside the pool.
    pub(crate) fn inline_table(&self) -> &ChoiceTable {
        match self {
            Self::Worker(w) => &w.inline_lengths,
            Self::Outside(r) => &r.inline_lengths,
        }
    }

    pub(crate) fn registry(&self) -> &Registry {
        match self {
            Self::Worker(w) => &w.registry,
            Self::Outside(r) => r,
        }
    }

    /// Runs `a`, then `b`, here; on a worker, `b` (or an older pending fork) is shared with
    /// other threads as `share` says, at this fork and at every fork nested in `a`
    /// ([`WorkerCtx::share_if_wanted`]), and if `b` was, this thread helps until it is done. A
    /// thread outside the pool (a task taken by `help`) runs both in turn: it has no deque.
    pub(crate) fn join<RA, RB>(
        &self,
        share: Share,
        a: impl FnOnce() -> RA,
        b: impl FnOnce() -> RB + Send,
    ) -> (RA, RB)
    where
        RB: Send,
    {
        match self {
            Self::Worker(w) => join_pending(
                &w.pending,
                a,
                b,
                || match share {
                    Share::Always => w.share_oldest(),
                    Share::WhenWanted => w.share_if_wanted(),
                },
                |forked| self.help_until(forked),
            ),
            Self::Outside(_) => (a(), b()),
        }
    }

    /// Runs both halves of a user's join ([`Context::join`]).
    pub(crate) fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
        self.join(Share::WhenWanted, || first.run(), || second.run());
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
        // Counted as looking for work while it finds none: the thread running the forked
        // half then shares its own pending forks.
        let mut searching = None;
        while !forked.is_done() {
            if let Some(task) = self.find_help() {
                drop(searching.take());
                if let Some(task) = forked.take_back(task) {
                    self.run_helping(task);
                }
                idle_rounds = 0;
            } else if idle_rounds < SPIN_ROUNDS {
                if searching.is_none() {
                    searching = Some(Searching::begin(&self.registry().searching));
                }
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
