//! [`TaskRef`]: a piece of borrowed work, made `'static` so that any thread can run it.

use super::scope::ScopeState;
use crate::claim::Claim;
use std::fmt;
use std::mem::{align_of, size_of, ManuallyDrop, MaybeUninit};
use std::ptr::NonNull;
use std::sync::Arc;

/// A piece of work that borrows from a [`task_scope`](crate::exec::task_scope), made `'static` so
/// that it can be queued on any thread (a crossbeam deque, an injector, a channel to a pool
/// worker).
///
/// Run it once with [`TaskRef::run`]. Dropping it unrun also releases the scope. A `TaskRef`
/// that is leaked (`mem::forget`) keeps its scope waiting forever: a hang, never a dangling
/// borrow.
pub struct TaskRef {
    pub(super) repr: Repr,
}

pub(super) enum Repr {
    /// Made by [`Scope::spawn`].
    Scoped {
        // Lifetime-erased: really `'scope`. See `Scope::spawn` for why this is sound.
        task: Option<ScopedTask>,
        scope: Arc<ScopeState>,
    },
    /// Made by [`join_stack`] or [`offer`]. `None` once the job has been executed, or its
    /// claim lost.
    Stack(Option<StackRef>),
}

/// A `StackJob` on an owner's frame, as a [`TaskRef`] holds it. Made once per job, by
/// [`join_stack`] or [`offer`], and neither `Clone` nor `Copy`: [`StackRef::execute`] consumes
/// it, so the job is executed at most once.
pub(super) struct StackRef {
    pub(super) job: NonNull<()>,
    /// Runs the job (`true`) or gives it back unrun (`false`), then sets its latch.
    pub(super) execute: unsafe fn(NonNull<()>, bool),
    /// `Some` when made by [`offer`]: the job may be used only after winning this claim against
    /// the owner, who may take the job back and leave the frame without waiting for us.
    pub(super) claim: Option<Claim>,
}

impl StackRef {
    /// Runs the job (`run`) or gives it back unrun for the owner to run (`!run`), then sets its
    /// latch; for an offer, only if this wins the claim, and otherwise without touching the job.
    fn execute(self, run: bool) {
        if self.claim.as_ref().is_some_and(|claim| !claim.claim()) {
            // The owner claimed the job first: it may have left the frame already.
            return;
        }
        // SAFETY: `job` and `execute` were paired by `join_stack` or `offer`, which keep the
        // `StackJob` alive until its latch is set: `join_stack` always, `offer` once a `TaskRef`
        // has won the claim, as this one has (checked above). `self` is consumed here and was
        // the only `StackRef` for this job, so this is the only call of `execute` for it, and
        // `execute` sets the latch as its last access to the job.
        unsafe { (self.execute)(self.job, run) }
    }
}

/// The closure of a [`Scope::spawn`]: in place when it fits in three words (a task that
/// borrows a few things from its scope, as a task-pool slot does: no allocation per task),
/// boxed otherwise.
pub(super) enum ScopedTask {
    Inline(InlineTask),
    Boxed(Box<dyn FnOnce() + Send + 'static>),
}

/// Room for a closure of at most three words, the function that calls it (moving it out) and
/// the function that drops it unrun. Exactly one of the two runs, once.
pub(super) struct InlineTask {
    bytes: MaybeUninit<[usize; 3]>,
    call: unsafe fn(*mut MaybeUninit<[usize; 3]>),
    drop: unsafe fn(*mut MaybeUninit<[usize; 3]>),
}

impl ScopedTask {
    /// `task` in place if it fits, else in a box; either way without its lifetime.
    ///
    /// # Safety
    /// The result must be run or dropped before anything `task` borrows goes away
    /// (`Scope::spawn` ensures it; see there).
    pub(super) unsafe fn new<F: FnOnce() + Send>(task: F) -> ScopedTask {
        if size_of::<F>() <= size_of::<[usize; 3]>() && align_of::<F>() <= align_of::<[usize; 3]>()
        {
            let mut bytes = MaybeUninit::<[usize; 3]>::uninit();
            // SAFETY: the check above: the room is at least as large and as aligned as an `F`.
            unsafe { bytes.as_mut_ptr().cast::<F>().write(task) };
            ScopedTask::Inline(InlineTask {
                bytes,
                call: call_inline::<F>,
                drop: drop_inline_task::<F>,
            })
        } else {
            let task: Box<dyn FnOnce() + Send + '_> = Box::new(task);
            // SAFETY: only the lifetime changes; the layout of the box is the same. The caller
            // runs or drops it while what it borrows is alive.
            ScopedTask::Boxed(unsafe {
                std::mem::transmute::<
                    Box<dyn FnOnce() + Send + '_>,
                    Box<dyn FnOnce() + Send + 'static>,
                >(task)
            })
        }
    }

    fn run(self) {
        match self {
            ScopedTask::Boxed(task) => task(),
            ScopedTask::Inline(task) => {
                let mut task = ManuallyDrop::new(task);
                // SAFETY: `new` paired `bytes`, which holds an initialised `F`, with
                // `call_inline::<F>`; `ManuallyDrop` keeps `InlineTask`'s `Drop` from dropping
                // the `F` that `call` moves out, so it is used exactly once.
                unsafe { (task.call)(&mut task.bytes) }
            }
        }
    }
}

impl Drop for InlineTask {
    fn drop(&mut self) {
        // SAFETY: `ScopedTask::new` pairs `bytes`, which holds an initialised `F`, with
        // `drop_inline_task::<F>`; `ScopedTask::run` moves the closure out only through
        // `ManuallyDrop`, so this runs only for a closure still in place, and only once.
        unsafe { (self.drop)(&mut self.bytes) }
    }
}

/// Moves the `F` that `ScopedTask::new` wrote into `bytes` out, and calls it.
///
/// # Safety
/// `bytes` holds an initialised `F`, which is not used again.
unsafe fn call_inline<F: FnOnce()>(bytes: *mut MaybeUninit<[usize; 3]>) {
    // SAFETY: the caller guarantees a live `F` at `bytes`, large and aligned enough room.
    let task = unsafe { bytes.cast::<F>().read() };
    task();
}

/// Drops the `F` that `ScopedTask::new` wrote into `bytes`, unrun.
///
/// # Safety
/// `bytes` holds an initialised `F`, which is not used again.
unsafe fn drop_inline_task<F>(bytes: *mut MaybeUninit<[usize; 3]>) {
    // SAFETY: as in `call_inline`.
    unsafe { std::ptr::drop_in_place(bytes.cast::<F>()) }
}

// SAFETY: a `Scoped` task is `Send` by construction (its closure is `Send`, `ScopeState` is
// `Sync`). A `Stack` task is a pointer to a `StackJob<B, RB>` made by `join_stack` or `offer`
// with `B: Send` and `RB: Send` (and, for `offer`, a claim flag that is an atomic in an `Arc`);
// the one thing done through it is `execute`, once, on whichever thread holds the `TaskRef`: it
// takes the closure out (moving a `B` to this thread), writes an `RB` (or a panic payload,
// which is `Send`) back, and sets a `JoinLatch`, which is `Sync`. The owner touches the closure
// and the result only after the latch is set. `TaskRef` stays `!Sync`, as the boxed closure
// makes it.
unsafe impl Send for TaskRef {}

impl fmt::Debug for TaskRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRef").finish_non_exhaustive()
    }
}

impl TaskRef {
    /// Runs the task on the current thread. A panic is captured and re-raised by the scope's
    /// owner, after every task of the scope has finished.
    pub fn run(mut self) {
        match &mut self.repr {
            Repr::Scoped { task, scope } => {
                if let Some(task) = task.take() {
                    // The closure and everything it captured are dropped inside `catch`,
                    // before the count-down in `Drop` releases the scope.
                    scope.panic.catch(|| task.run());
                }
            }
            // `take`: `Drop` then finds `None`.
            Repr::Stack(job) => {
                if let Some(job) = job.take() {
                    job.execute(true);
                }
            }
        }
    }
}

impl Drop for TaskRef {
    fn drop(&mut self) {
        match &mut self.repr {
            Repr::Scoped { task, scope } => {
                // An unrun task is dropped here, while the scope still waits for us.
                drop(task.take());
                scope.latch.count_down();
            }
            // Not run: `false` leaves the closure in place for the owner to run.
            Repr::Stack(job) => {
                if let Some(job) = job.take() {
                    job.execute(false);
                }
            }
        }
    }
}
