//! Borrowed tasks on `'static` threads: [`task_scope`] and [`Scope::spawn`].

use super::task::TaskRef;
use crate::latch::ScopeLatch;
use crate::panic::PanicSlot;
#[cfg(not(loom))]
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::{align_of, size_of, MaybeUninit};
use std::ptr::NonNull;
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
        let scope = Arc::clone(&self.state);
        // The task may borrow data that lives for `'scope`, and `'scope` ends only when
        // `task_scope` returns or unwinds. Every path out of `task_scope` first waits until the
        // latch is set (`WaitOnExit`), and the latch counted this task up above; it is counted
        // down only after the closure has been called or dropped. So the task is never used
        // after `'scope` ends, whichever thread runs it. The box is this `TaskRef`'s alone.
        if fits_small::<F>() {
            let mut slot = take_spare().unwrap_or_else(|| {
                Box::new(SmallTask {
                    bytes: MaybeUninit::uninit(),
                    call: call_small::<F>,
                    scope: None,
                })
            });
            // SAFETY: `fits_small` checked that the room is large and aligned enough; the room
            // holds no value (a fresh box, or a spare whose closure was moved out).
            unsafe { slot.bytes.as_mut_ptr().cast::<F>().write(task) };
            slot.call = call_small::<F>;
            slot.scope = Some(scope);
            let data = NonNull::from(Box::leak(slot)).cast();
            // SAFETY: `execute_small` takes back the box made or reused just above, once, and
            // calls or drops the closure through `call_small::<F>`, which matches what `bytes`
            // holds; then it counts the scope down (see above for why that is in time).
            unsafe { TaskRef::from_raw(data, execute_small) }
        } else {
            let job = Box::new(ScopedJob { task, scope });
            let data = NonNull::from(Box::leak(job)).cast();
            // SAFETY: `execute_scoped::<F>` takes back the box made just above, once, and runs
            // or drops the task, then counts the scope down (see above).
            unsafe { TaskRef::from_raw(data, execute_scoped::<F>) }
        }
    }

    /// The scope's latch, set once every spawned task has finished (and the scope's own body
    /// has returned). It can be waited on, never counted down.
    pub fn latch(&self) -> &ScopeLatch {
        &self.state.latch
    }
}

/// Counts a scope down on every way out of a task, after the task and its captures are gone.
struct CountDown(Arc<ScopeState>);

impl Drop for CountDown {
    fn drop(&mut self) {
        self.0.latch.count_down();
    }
}

/// A spawned task larger than [`SmallTask`]'s room, with its scope, boxed behind a [`TaskRef`].
struct ScopedJob<F> {
    task: F,
    scope: Arc<ScopeState>,
}

/// Runs (`run`) or drops the task of a boxed `ScopedJob<F>`, then counts its scope down (also
/// when the closure or its drop unwinds). A panic of the closure goes to the scope.
///
/// # Safety
/// `data` is a `Box<ScopedJob<F>>` made raw by `Scope::spawn`, not used again.
unsafe fn execute_scoped<F: FnOnce()>(data: NonNull<()>, run: bool) {
    // SAFETY: the caller passes the box `Scope::spawn` leaked, once.
    let job = unsafe { Box::from_raw(data.cast::<ScopedJob<F>>().as_ptr()) };
    let ScopedJob { task, scope } = *job;
    let scope = CountDown(scope);
    if run {
        // The closure and everything it captured are dropped inside `catch`.
        scope.0.panic.catch(task);
    } else {
        drop(task);
    }
}

/// A spawned task of at most three words (a few borrows, as a task-pool lane is) with its
/// scope. Every such task has this one type, so a finished task's box is kept as its thread's
/// spare and reused by the next spawn there: a consumer lent to a task pool queues a task per
/// chunk it runs, and allocates nothing once warm.
struct SmallTask {
    /// The closure while the task is queued; nothing once `call` has moved it out.
    bytes: MaybeUninit<[usize; 3]>,
    /// Moves the closure out of `bytes` and calls it (`true`) or drops it (`false`).
    call: unsafe fn(*mut MaybeUninit<[usize; 3]>, bool),
    /// `Some` while queued.
    scope: Option<Arc<ScopeState>>,
}

const fn fits_small<F>() -> bool {
    size_of::<F>() <= size_of::<[usize; 3]>() && align_of::<F>() <= align_of::<[usize; 3]>()
}

/// Moves the `F` in `bytes` out and calls it (`run`) or drops it.
///
/// # Safety
/// `bytes` holds an initialised `F`, which is not used again.
unsafe fn call_small<F: FnOnce()>(bytes: *mut MaybeUninit<[usize; 3]>, run: bool) {
    // SAFETY: the caller guarantees a live `F` at `bytes`; `fits_small` made sure of the room.
    let task = unsafe { bytes.cast::<F>().read() };
    if run {
        task();
    }
}

/// Runs (`run`) or drops the closure of a boxed `SmallTask`, counts its scope down (also when
/// the closure or its drop unwinds), and keeps the box as this thread's spare if it has none.
///
/// # Safety
/// `data` is a `Box<SmallTask>` made raw by `Scope::spawn`, holding a closure that matches its
/// `call`, not used again.
unsafe fn execute_small(data: NonNull<()>, run: bool) {
    // SAFETY: the caller passes the box `Scope::spawn` leaked, once.
    let mut slot = unsafe { Box::from_raw(data.cast::<SmallTask>().as_ptr()) };
    let scope = CountDown(slot.scope.take().expect("a queued task holds its scope"));
    let (call, bytes) = (slot.call, &mut slot.bytes as *mut _);
    if run {
        // SAFETY: `bytes` holds the closure `call` was made for (the caller's guarantee); it
        // is moved out here, once. A panic of the closure goes to the scope.
        scope.0.panic.catch(|| unsafe { call(bytes, true) });
    } else {
        // SAFETY: as above; dropped instead of called.
        unsafe { call(bytes, false) };
    }
    // The room holds nothing now: the box may serve the next spawn on this thread.
    keep_spare(slot);
}

#[cfg(not(loom))]
std::thread_local! {
    static SPARE: Cell<Option<Box<SmallTask>>> = const { Cell::new(None) };
}

fn take_spare() -> Option<Box<SmallTask>> {
    #[cfg(not(loom))]
    return SPARE.try_with(Cell::take).ok().flatten();
    #[cfg(loom)]
    None
}

fn keep_spare(slot: Box<SmallTask>) {
    #[cfg(not(loom))]
    {
        let mut slot = Some(slot);
        // Keeps the spare already held, if any; the box left in `slot` is freed.
        let _ = SPARE.try_with(|spare| {
            let held = spare.take();
            spare.set(held.or_else(|| slot.take()));
        });
    }
    #[cfg(loom)]
    drop(slot);
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
