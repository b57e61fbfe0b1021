//! Borrowed tasks on `'static` threads: [`task_scope`] and [`Scope::spawn`].

use super::task::{Repr, ScopedTask, TaskRef};
use crate::latch::ScopeLatch;
use crate::panic::PanicSlot;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

pub(super) struct ScopeState {
    /// Counted up by `Scope::spawn`, down by `TaskRef::drop` (and once for the body).
    pub(super) latch: ScopeLatch,
    pub(super) panic: PanicSlot,
}
/// Handed to the closure of [`task_scope`]; spawns tasks that may borrow anything outliving
/// the scope.
pub struct Scope<'scope, 'env: 'scope> {
    state: Arc<ScopeState>,
    // Invariance in both lifetimes, as in `std::thread::Scope`.
    _scope: PhantomData<&'scope mut &'scope ()>,
    _env: PhantomData<&'env mut &'env ()>,
}

impl fmt::Debug for Scope<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope").finish_non_exhaustive()
    }
}

impl<'scope> Scope<'scope, '_> {
    /// Turns `task` into a [`TaskRef`] that any thread may run. The scope does not end until the
    /// returned `TaskRef` has run or been dropped.
    pub fn spawn<F>(&'scope self, task: F) -> TaskRef
    where
        F: FnOnce() + Send + 'scope,
    {
        self.state.latch.count_up();
        // `ScopedTask` holds the closure without its lifetime (in place, or in a box whose
        // lifetime it erases). The task may borrow data that lives for `'scope`, and `'scope`
        // ends only when `task_scope` returns or unwinds. Every path out of `task_scope` first
        // waits until the latch is set (`WaitOnExit`), and the latch counted this task up
        // above; it is counted down only in `TaskRef::drop`, after the closure has been called
        // or dropped. The closure is private to `TaskRef` and cannot be moved out. So the task
        // is never used after `'scope` ends.
        TaskRef {
            repr: Repr::Scoped {
                // SAFETY: see above: the task is run or dropped before `'scope` ends.
                task: Some(unsafe { ScopedTask::new(task) }),
                scope: Arc::clone(&self.state),
            },
        }
    }

    /// The scope's latch, set once every spawned task has finished (and the scope's own body
    /// has returned). It can be waited on, never counted down.
    pub fn latch(&self) -> &ScopeLatch {
        &self.state.latch
    }
}

/// Blocks until the scope's latch is set, on every exit path including unwinding.
struct WaitOnExit<'a>(&'a ScopeState);

impl Drop for WaitOnExit<'_> {
    fn drop(&mut self) {
        self.0.latch.wait();
    }
}

/// Runs `body` with a [`Scope`] whose tasks may borrow from the caller, and returns once every
/// task spawned in it has run or been dropped.
///
/// After `body` returns, `help` is called with the scope's latch: a pool worker passes a closure
/// that runs other tasks until the latch is set, so that waiting never idles a worker (and
/// nested folds do not deadlock). Whatever `help` does, `task_scope` then blocks until the latch
/// is set. If a task panicked, the first payload is re-raised here.
///
/// ```
/// use foldex_core::exec::task_scope;
/// let data = vec![1, 2, 3];
/// let mut total = 0;
/// let sum = std::sync::Mutex::new(0);
/// task_scope(
///     |scope| {
///         let task = scope.spawn(|| *sum.lock().unwrap() += data.iter().sum::<i32>());
///         std::thread::spawn(move || task.run()); // a 'static thread runs a borrowing task
///     },
///     |latch| latch.wait(),
/// );
/// total += *sum.lock().unwrap();
/// assert_eq!(total, 6);
/// ```
pub fn task_scope<'env, R>(
    body: impl for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> R,
    help: impl FnOnce(&ScopeLatch),
) -> R {
    // The count starts at one for `body` itself, so the latch cannot be set while `body` may
    // still spawn.
    let scope = Scope {
        state: Arc::new(ScopeState {
            latch: ScopeLatch::new(1),
            panic: PanicSlot::new(),
        }),
        _scope: PhantomData,
        _env: PhantomData,
    };
    let state = Arc::clone(&scope.state);
    let result = {
        let _wait = WaitOnExit(&state);
        // If `body` unwinds, this guard counts down for it and `_wait` still blocks.
        struct BodyDone<'a>(&'a ScopeLatch);
        impl Drop for BodyDone<'_> {
            fn drop(&mut self) {
                self.0.count_down();
            }
        }
        let result = {
            let _done = BodyDone(&state.latch);
            body(&scope)
        };
        help(&state.latch);
        result
    };
    state.panic.resume();
    result
}
