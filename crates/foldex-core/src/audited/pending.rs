//! Forks that stay on their owner's stack until somebody wants them: [`PendingForks`] and
//! [`join_pending`].

use super::stack::{Forked, StackJob, WaitOnLatch};
use super::task::TaskRef;
use crate::latch::JoinLatch;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

/// A forked half that no other thread can see yet: the address of its `StackJob` and the
/// function that runs or drops it.
struct Pending {
    job: NonNull<()>,
    execute: unsafe fn(NonNull<()>, bool),
}

/// The forks of one thread's [`join_pending`] calls that are still running their first half,
/// oldest first: the work a thread can *promote* to a [`TaskRef`] when another thread wants
/// some ([`PendingForks::promote_oldest`]).
///
/// A fork costs a push and a pop on this list and no synchronisation at all while nobody asks
/// for work: its second half runs on the forking thread right after the first, as in the
/// sequential program. This is lazy task creation (heartbeat scheduling's promotion, with the
/// executor choosing when to promote): the oldest fork is the largest piece of work, so one
/// promotion gives a thief the most.
///
/// Neither `Send` nor `Sync`: a thread's forks are its own, and it alone promotes them (a
/// pool keeps one per worker, in the worker's own state).
///
/// ```
/// use foldex_core::exec::{join_pending, PendingForks};
/// let forks = PendingForks::new();
/// let mut promoted = None;
/// let (a, b) = join_pending(
///     &forks,
///     || {
///         // Inside the first half: the fork is pending; promote it, as an executor does
///         // when a thread wants work, and run the second half here.
///         assert_eq!(forks.pending(), 1);
///         promoted = forks.promote_oldest();
///         promoted.take().unwrap().run();
///         1
///     },
///     || 2,
///     || {},
///     |forked| assert!(forked.is_done()),
/// );
/// assert_eq!((a, b), (1, 2));
/// assert_eq!(forks.pending(), 0);
/// ```
pub struct PendingForks {
    /// Every fork whose first half is running on this thread, in the order they were made
    /// (a stack: nested forks end before the forks they run in).
    forks: RefCell<Vec<Pending>>,
    /// How many of `forks`, from the oldest, were promoted: promotion goes oldest first, so
    /// the promoted ones are always a prefix.
    promoted: Cell<usize>,
}

impl Default for PendingForks {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for PendingForks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingForks")
            .field("forks", &self.forks.borrow().len())
            .field("promoted", &self.promoted.get())
            .finish()
    }
}

impl PendingForks {
    /// No forks.
    pub const fn new() -> Self {
        Self {
            forks: RefCell::new(Vec::new()),
            promoted: Cell::new(0),
        }
    }

    /// How many forks could be promoted now.
    pub fn pending(&self) -> usize {
        self.forks.borrow().len() - self.promoted.get()
    }

    /// Promotes the oldest pending fork: returns the [`TaskRef`] that runs its second half, for
    /// the caller to queue where other threads take work (or to run, or drop: then its owner
    /// runs the half itself). Its [`join_pending`] then waits for that `TaskRef` as
    /// [`join_stack`](crate::exec::join_stack) waits for its forked half. `None` when no fork
    /// is pending.
    pub fn promote_oldest(&self) -> Option<TaskRef> {
        let forks = self.forks.borrow();
        let promoted = self.promoted.get();
        let pending = forks.get(promoted)?;
        self.promoted.set(promoted + 1);
        // SAFETY: a pending fork's `StackJob` is alive on its owner's frame, which is below
        // this call on this thread's stack (forks are `!Send`, and `join_pending` removes its
        // fork before it returns or unwinds). From here the fork counts as promoted: its
        // owner will not leave the frame before the latch is set by this `TaskRef`'s
        // `execute`, as its last access, or before it took this `TaskRef` back
        // (`RecordGuard`); and it runs the half itself only after either. A fork is promoted
        // once (`promoted` only moves past it once), so this is its only `TaskRef`.
        Some(unsafe { TaskRef::from_raw(pending.job, pending.execute) })
    }

    /// Records a fork; returns its place in the list.
    #[inline]
    fn push(&self, pending: Pending) -> usize {
        let mut forks = self.forks.borrow_mut();
        forks.push(pending);
        forks.len() - 1
    }

    #[inline]
    fn is_promoted(&self, index: usize) -> bool {
        index < self.promoted.get()
    }

    /// Removes the fork at `index`, the newest: forks nest, so every fork made after it has
    /// been removed already.
    #[inline]
    fn pop(&self, index: usize) {
        let mut forks = self.forks.borrow_mut();
        assert_eq!(
            forks.len(),
            index + 1,
            "foldex: pending forks removed out of order"
        );
        forks.pop();
        if self.promoted.get() > index {
            self.promoted.set(index);
        }
    }
}

/// Removes a fork from its [`PendingForks`] on every way out of [`join_pending`], unwinding
/// included; if the fork was promoted, first waits for its latch unless the owner took its
/// `TaskRef` back.
struct RecordGuard<'a> {
    forks: &'a PendingForks,
    index: usize,
    latch: &'a JoinLatch,
    taken_back: &'a Cell<bool>,
}

impl Drop for RecordGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.forks.is_promoted(self.index) {
            drop(WaitOnLatch {
                latch: self.latch,
                taken_back: self.taken_back,
            });
        }
        self.forks.pop(self.index);
    }
}

/// Runs `a`, then `b`, on this thread, unless `b` was promoted meanwhile
/// ([`PendingForks::promote_oldest`], by this thread: in `share`, called once the fork is
/// recorded, or in any fork nested in `a`), in which case the thread that took the promoted
/// `TaskRef` may run `b` while this one runs `a`: then `wait` is called with the [`Forked`]
/// half, as in [`join_stack`](crate::exec::join_stack), which this is with the push deferred.
///
/// Whatever happens, `join_pending` returns or unwinds only once `b` has run (here or
/// elsewhere) and no `TaskRef` of it is left. A panic in `a` or `b` is re-raised here once
/// both are done (`a`'s first). See [`PendingForks`] for an example.
#[inline]
pub fn join_pending<A, B, RA, RB>(
    forks: &PendingForks,
    a: A,
    b: B,
    share: impl FnOnce(),
    wait: impl FnOnce(&Forked<'_>),
) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    let job = StackJob::new(b);
    let taken_back = Cell::new(false);
    let job_ptr = NonNull::from(&job).cast();
    let ra = {
        // From here on, every way out of this block removes the fork, and if it was
        // promoted, first waits until its `TaskRef` has finished with `job` (or was taken
        // back).
        let guard = RecordGuard {
            forks,
            index: forks.push(Pending {
                job: job_ptr,
                execute: StackJob::<B, RB>::execute,
            }),
            latch: &job.latch,
            taken_back: &taken_back,
        };
        share();
        let ra = panic::catch_unwind(AssertUnwindSafe(a));
        if forks.is_promoted(guard.index) {
            wait(&Forked::new(&job.latch, job_ptr, &taken_back));
        }
        ra
    };
    // The fork is removed: no `TaskRef` of it exists (never promoted, taken back, or run or
    // dropped, which set the latch as its last access to `job`). `job` is ours alone.
    job.finish(ra)
}
