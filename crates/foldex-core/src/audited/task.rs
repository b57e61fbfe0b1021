//! [`TaskRef`]: a piece of borrowed work, made `'static` so that any thread can run it.

use std::fmt;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;

/// A piece of work that borrows from a [`task_scope`](crate::exec::task_scope), a
/// [`join_stack`](crate::exec::join_stack) or an [`offer`](crate::exec::offer), made `'static`
/// so that it can be queued on any thread (a crossbeam deque, an injector, a channel to a pool
/// worker).
///
/// Run it once with [`TaskRef::run`]. Dropping it unrun also releases what it borrows from. A
/// `TaskRef` that is leaked (`mem::forget`) keeps its owner waiting forever: a hang, never a
/// dangling borrow.
///
/// Two words, like rayon's `JobRef`: it moves through registers and deque slots without a
/// memory round trip, which is a measurable share of a fork.
pub struct TaskRef {
    /// What the task runs: a `StackJob` on its owner's frame, an offer's ticket (an `Arc` made
    /// raw), or a boxed scoped task. `execute` knows which.
    data: NonNull<()>,
    /// Runs the task (`true`) or drops it unrun (`false`), consuming `data`.
    execute: unsafe fn(NonNull<()>, bool),
}

impl TaskRef {
    /// A task that `execute(data, run)` runs or drops.
    ///
    /// # Safety
    /// Calling `execute(data, run)` once, with either `run`, on any thread, at any time while
    /// the `TaskRef` exists, must be sound, and must release whatever `data` holds. `data` must
    /// stay unique to this `TaskRef` while it exists: a live `StackJob` that no other `TaskRef`
    /// points to, or memory that this `TaskRef` owns (`Forked::take_back` tells its own job
    /// apart by address).
    pub(super) unsafe fn from_raw(
        data: NonNull<()>,
        execute: unsafe fn(NonNull<()>, bool),
    ) -> Self {
        Self { data, execute }
    }

    /// The address the task runs from (see [`TaskRef::from_raw`]).
    pub(super) fn data(&self) -> NonNull<()> {
        self.data
    }

    /// Consumes the `TaskRef` without running or dropping its task: whoever owns `data` takes
    /// it over. Used only by `Forked::take_back`, for a `StackJob` whose owner runs it itself.
    pub(super) fn disown(self) {
        let _ = ManuallyDrop::new(self);
    }

    /// Runs the task on the current thread. A panic is captured and re-raised by the task's
    /// owner (the scope's, the fork's or the offer's caller).
    pub fn run(self) {
        let task = ManuallyDrop::new(self);
        // SAFETY: `from_raw`'s contract makes this call sound; `ManuallyDrop` keeps `Drop` from
        // making a second one.
        unsafe { (task.execute)(task.data, true) }
    }
}

impl Drop for TaskRef {
    fn drop(&mut self) {
        // SAFETY: `from_raw`'s contract; `run` and `disown` consume the `TaskRef` without
        // dropping it, so this is the only call.
        unsafe { (self.execute)(self.data, false) }
    }
}

// SAFETY: every constructor's `execute` may be called on any thread (`from_raw`'s contract):
// a scoped task's closure is `Send` and its scope's state `Sync`; a `StackJob<B, RB>` has
// `B: Send` and `RB: Send`, and the owner touches the closure and the result only once the
// latch, which is `Sync`, is set; an offer's ticket is shared through an `Arc` and its claim
// is atomic. `TaskRef` is not `Sync`: nothing is done through `&TaskRef`.
unsafe impl Send for TaskRef {}

impl fmt::Debug for TaskRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRef").finish_non_exhaustive()
    }
}
