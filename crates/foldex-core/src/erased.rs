//! The audited module: the only `unsafe` code in foldex.
//!
//! Three things cannot be written in safe Rust, and all are wrapped here behind safe APIs:
//!
//! 1. **Type-erased partial results that may borrow.** A fold's accumulator may borrow from the
//!    caller's stack (`Vec<&T>`), so it is not `'static` and `Box<dyn Any>` cannot carry it.
//!    [`Partial`] erases the type, and a [`Brand`] (a unique id, tied to one type) is the only way
//!    to make and unwrap one, so an unwrap can never reinterpret a value as another type. A
//!    value of at most two words is held in place rather than boxed, so the partials of sums
//!    and counts cost no allocation per leaf or per combine.
//! 2. **Borrowed tasks on long-lived threads.** A pool's threads are `'static`, but a fold's pieces
//!    borrow the job from the caller's stack. [`task_scope`] turns a borrowing closure into a
//!    `'static` [`TaskRef`] and does not return, by value or by unwinding, until every `TaskRef`
//!    it made has run or been dropped. This is the completion-latch pattern that rayon uses,
//!    with the latch in an `Arc` so that the last `count_down` never touches freed memory. A
//!    closure of at most three words (a few borrows) is held in place rather than boxed.
//! 3. **Fork-join without allocating, and offers that can be taken back.** [`join_stack`] is
//!    rayon's `join` with a `StackJob`: the forked closure, its result slot and its
//!    [`JoinLatch`] live on the forking frame, and the [`TaskRef`] handed to other threads is a
//!    pointer to them. `join_stack` does not return or unwind until the latch is set; the latch
//!    is set exactly once, by the `TaskRef` that ran or dropped the closure, as its last access
//!    to the frame; and the latch's own setter never touches it after the store that sets it
//!    (so the owner may return at once). A fork costs no allocation and no reference count,
//!    where a one-task [`task_scope`] costs one of each (its scope's state). [`offer`] is the
//!    same with a claim flag in an `Arc`: whichever of the `TaskRef` and the owner claims the
//!    closure first runs it, so that an owner whose offer nobody has started can take it back
//!    and run it, without waiting for the `TaskRef` (the loser only reads the flag, never the
//!    frame).
//!
//! What needs no `unsafe` lives elsewhere, but these arguments also rest on it, and an audit of
//! this module takes it in: the latches in `latch.rs` ([`ScopeLatch`], whose crate-private
//! `count_up`/`count_down` only this module calls; [`JoinLatch`], whose crate-private `set` only
//! `StackJob::execute` calls, and whose protocol `tests/loom.rs` model-checks), and the claim
//! flag of `offer` in `claim.rs` (`Claim`, one winner per flag; `ClaimOrWait`, the owner's guard
//! that claims or waits for the latch).
//!
//! ## The ways in from safe code, and why each is sound
//!
//! - [`Brand::wrap`] / [`Brand::unwrap`]: the only constructor of a [`Partial`] is `wrap`, and
//!   `unwrap` checks the brand's unique id before it reads, so a value is only ever read back
//!   as the type it was written as.
//! - [`task_scope`] and [`Scope::spawn`]: a spawned task is counted on the scope's latch, and
//!   only dropping its [`TaskRef`] (after running or dropping the closure) counts it down. The
//!   body and the waiter see the latch only as a [`ScopeLatch`], which code outside the crate
//!   can wait on but never count down (its `count_up`/`count_down` are crate-private, and only
//!   this module calls them), so safe code cannot release a scope while a task that borrows
//!   from it lives. A leaked `TaskRef` keeps the scope waiting forever (a hang, never a
//!   dangling borrow).
//! - [`join_stack`] and [`offer`]: the frame is left (by return or unwind) only once the latch
//!   of its `StackJob` is set, or, for `offer`, once the owner has claimed the closure itself
//!   (`ClaimOrWait`); `JoinLatch::set` is crate-private, and is called once, by the `TaskRef`
//!   that claimed the job, as its last access to the frame.
//! - [`TaskRef::run`] and dropping a `TaskRef`: each runs or gives back its closure at most once
//!   (`Option::take`; a `StackRef`, one per job, is consumed by its `execute`), on any thread
//!   (`TaskRef` is `Send`, not `Sync`).
#![allow(unsafe_code)]

use crate::claim::{Claim, ClaimOrWait};
use crate::latch::JoinLatch;
pub use crate::latch::ScopeLatch;
use crate::panic::{PanicPayload, PanicSlot};
use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::mem::{align_of, size_of, ManuallyDrop, MaybeUninit};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

// ----------------------------------------------------------------------------------------------
// Partials
// ----------------------------------------------------------------------------------------------

/// A partial result of a job, with its type erased so that executors stay object-safe.
///
/// Executors move partials between threads and hand them back to [`Job::combine`]; they never
/// look inside. Only the [`Brand`] that made a partial can unwrap it.
///
/// [`Job::combine`]: crate::Job::combine
pub struct Partial<'a> {
    value: Value<'a>,
    brand: u64,
}

/// A partial's value: in place when it fits in two words (sums, counts, small tuples: no
/// allocation per leaf and per combine), boxed otherwise.
enum Value<'a> {
    Inline(Inline<'a>),
    Boxed(Box<dyn Send + 'a>),
}

/// Room for a value of at most two words, and the function that drops it.
struct Inline<'a> {
    bytes: MaybeUninit<[usize; 2]>,
    drop: unsafe fn(*mut MaybeUninit<[usize; 2]>),
    // Owns a `Send + 'a` value: `Send`, not `Sync`, and bound by `'a`, as the box is.
    _owns: PhantomData<Box<dyn Send + 'a>>,
}

impl Drop for Inline<'_> {
    fn drop(&mut self) {
        // SAFETY: `Brand::wrap` pairs `bytes`, which holds an initialised `T`, with
        // `drop_inline::<T>`; `Brand::unwrap` moves the value out only through `ManuallyDrop`,
        // so this `Drop` runs only for a value still in place, and only once.
        unsafe { (self.drop)(&mut self.bytes) }
    }
}

/// Drops the `T` that `Brand::wrap` wrote into `bytes`.
///
/// # Safety
/// `bytes` holds an initialised `T`, which is not used again.
unsafe fn drop_inline<T>(bytes: *mut MaybeUninit<[usize; 2]>) {
    // SAFETY: the caller guarantees a live `T` at `bytes`; `fits_inline::<T>` made sure the
    // room is large and aligned enough for it.
    unsafe { std::ptr::drop_in_place(bytes.cast::<T>()) }
}

/// `true` when a `T` fits in an `Inline`'s room, size and alignment.
const fn fits_inline<T>() -> bool {
    size_of::<T>() <= size_of::<[usize; 2]>() && align_of::<T>() <= align_of::<[usize; 2]>()
}

impl fmt::Debug for Partial<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Partial")
            .field("brand", &self.brand)
            .finish_non_exhaustive()
    }
}

/// The unique key that wraps values of type `T` into [`Partial`]s and unwraps them again.
///
/// Each brand has an id no other brand shares, and a brand only ever wraps values of its own
/// type `T`; so a partial that carries this brand's id holds a `T`. A custom [`Job`] makes one
/// brand per run.
///
/// ```
/// use foldex_core::Brand;
/// let brand = Brand::<Vec<&str>>::new();
/// let partial = brand.wrap(vec!["a"]);
/// assert_eq!(brand.unwrap(partial), vec!["a"]);
/// ```
///
/// [`Job`]: crate::Job
pub struct Brand<T> {
    id: u64,
    // `fn(T) -> T`: the brand neither owns a `T` nor constrains `T`'s variance or auto traits.
    _type: PhantomData<fn(T) -> T>,
}

impl<T> fmt::Debug for Brand<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Brand").field("id", &self.id).finish()
    }
}

impl<T> Default for Brand<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Brand<T> {
    /// A brand with an id that no other brand in this process has.
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            _type: PhantomData,
        }
    }

    /// Wraps `value` into a partial that only this brand can unwrap.
    pub fn wrap<'a>(&self, value: T) -> Partial<'a>
    where
        T: Send + 'a,
    {
        let value = if fits_inline::<T>() {
            let mut bytes = MaybeUninit::<[usize; 2]>::uninit();
            // SAFETY: `fits_inline::<T>()`: the room is at least as large and as aligned as a
            // `T`, so writing one at its start is in bounds and aligned.
            unsafe { bytes.as_mut_ptr().cast::<T>().write(value) };
            Value::Inline(Inline {
                bytes,
                drop: drop_inline::<T>,
                _owns: PhantomData,
            })
        } else {
            Value::Boxed(Box::new(value))
        };
        Partial {
            value,
            brand: self.id,
        }
    }

    /// Unwraps a partial made by [`Brand::wrap`] of this brand.
    ///
    /// # Panics
    /// If the partial was made by another brand: an executor mixed up the partials of two jobs.
    pub fn unwrap(&self, partial: Partial<'_>) -> T {
        assert_eq!(
            partial.brand, self.id,
            "foldex: a partial result was handed to a job that did not make it (executor bug)"
        );
        let boxed = match partial.value {
            Value::Inline(inline) => {
                let inline = ManuallyDrop::new(inline);
                // SAFETY: the brand check above means this partial was made by `wrap` of this
                // brand, hence of type `T` (ids are unique per brand, a `Brand<T>` wraps only
                // `T`s, and `wrap` is the only constructor of `Partial`), and `wrap` put it in
                // place, initialised, at the start of `bytes`. `ManuallyDrop` keeps `Inline`'s
                // `Drop` from dropping it again after this read moves it out.
                return unsafe { inline.bytes.as_ptr().cast::<T>().read() };
            }
            Value::Boxed(boxed) => boxed,
        };
        let raw: *mut (dyn Send + '_) = Box::into_raw(boxed);
        // SAFETY: `partial.brand == self.id`, and the only function that creates a `Partial`
        // is `Brand::wrap`, which stores a `Box<T>` under its own id. Ids are unique per brand
        // (a global counter) and a `Brand<T>` only wraps `T`s, so `raw` points to a live `T`
        // allocated by `Box::<T>::new`. Casting the fat pointer to a thin `*mut T` keeps the
        // address; `Box::from_raw` then takes back ownership of that same allocation, once,
        // since `boxed` was consumed by `into_raw`.
        unsafe { *Box::from_raw(raw.cast::<T>()) }
    }
}

// ----------------------------------------------------------------------------------------------
// Borrowed tasks on 'static threads
// ----------------------------------------------------------------------------------------------

struct ScopeState {
    /// Counted up by `Scope::spawn`, down by `TaskRef::drop` (and once for the body).
    latch: ScopeLatch,
    panic: PanicSlot,
}

/// A piece of work that borrows from a [`task_scope`], made `'static` so that it can be queued
/// on any thread (a crossbeam deque, an injector, a channel to a pool worker).
///
/// Run it once with [`TaskRef::run`]. Dropping it unrun also releases the scope. A `TaskRef`
/// that is leaked (`mem::forget`) keeps its scope waiting forever: a hang, never a dangling
/// borrow.
pub struct TaskRef {
    repr: Repr,
}

enum Repr {
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
struct StackRef {
    job: NonNull<()>,
    /// Runs the job (`true`) or gives it back unrun (`false`), then sets its latch.
    execute: unsafe fn(NonNull<()>, bool),
    /// `Some` when made by [`offer`]: the job may be used only after winning this claim against
    /// the owner, who may take the job back and leave the frame without waiting for us.
    claim: Option<Claim>,
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
enum ScopedTask {
    Inline(InlineTask),
    Boxed(Box<dyn FnOnce() + Send + 'static>),
}

/// Room for a closure of at most three words, the function that calls it (moving it out) and
/// the function that drops it unrun. Exactly one of the two runs, once.
struct InlineTask {
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
    unsafe fn new<F: FnOnce() + Send>(task: F) -> ScopedTask {
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
/// use foldex_core::task_scope;
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

// ----------------------------------------------------------------------------------------------
// Fork-join with the forked half on the stack
// ----------------------------------------------------------------------------------------------

/// The forked half of a [`join_stack`], on the forking frame.
struct StackJob<B, RB> {
    latch: JoinLatch,
    /// Taken by whoever runs the job; left in place by a `TaskRef` dropped unrun, for the
    /// owner to run.
    func: UnsafeCell<Option<B>>,
    /// Written by whoever runs the job, before it sets the latch.
    result: UnsafeCell<Option<Result<RB, PanicPayload>>>,
}

impl<B, RB> StackJob<B, RB>
where
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    /// Runs the job (`run`) or leaves it for the owner (`!run`), then sets the latch.
    ///
    /// # Safety
    /// `job` points to a live `StackJob<B, RB>` whose latch is not set, and this is the only
    /// call for it.
    unsafe fn execute(job: NonNull<()>, run: bool) {
        let job = job.cast::<Self>().as_ptr();
        if run {
            // SAFETY: the caller guarantees the job is alive and that this is the only
            // execution; the owner reads `func` and `result` only once the latch is set, which
            // happens below, after these accesses. No reference to the job outlives this
            // block.
            unsafe {
                if let Some(func) = (*(*job).func.get()).take() {
                    let result = panic::catch_unwind(AssertUnwindSafe(func));
                    *(*job).result.get() = Some(result);
                }
            }
        }
        // SAFETY: the job is alive until its latch is set, and `JoinLatch::set` makes the store
        // that sets it its last access to the latch: the owner may free the job the moment it
        // sees the latch set, and nothing here touches the job after that.
        unsafe { JoinLatch::set(&(*job).latch) }
    }
}

/// Blocks until `latch` is set, on every exit path out of `join_stack` including unwinding.
struct WaitOnLatch<'a>(&'a JoinLatch);

impl Drop for WaitOnLatch<'_> {
    fn drop(&mut self) {
        self.0.wait();
    }
}

/// Runs `a` here and offers `b` to other threads, rayon's `join` with the forked half on the
/// stack: no allocation, no reference count.
///
/// `push` receives the [`TaskRef`] that runs `b` (a worker pushes it onto its deque, where it
/// may take it back or a thief may steal it). After `a`, `wait` is called with `b`'s latch: a
/// pool worker passes a closure that runs other tasks (its own deque first, which usually
/// gives `b` back at once) until the latch is set. Whatever `wait` does, `join_stack` then
/// blocks until the latch is set, and does not return or unwind before that. If the `TaskRef`
/// is dropped unrun, `b` runs here. A panic in `a` or `b` is re-raised here once both are done
/// (`a`'s first).
///
/// ```
/// use foldex_core::join_stack;
/// let data = vec![1, 2, 3, 4];
/// let (left, right) = join_stack(
///     || data[..2].iter().sum::<i32>(),
///     || data[2..].iter().sum::<i32>(),
///     |task| { std::thread::scope(|s| { s.spawn(move || task.run()); }); },
///     |latch| latch.wait(),
/// );
/// assert_eq!((left, right), (3, 7));
/// ```
pub fn join_stack<A, B, RA, RB>(
    a: A,
    b: B,
    push: impl FnOnce(TaskRef),
    wait: impl FnOnce(&JoinLatch),
) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    let job = StackJob {
        latch: JoinLatch::new(),
        func: UnsafeCell::new(Some(b)),
        result: UnsafeCell::new(None),
    };
    let ra = {
        // From here on, every way out of this block (unwinding included) first waits for the
        // latch: the `TaskRef` below points into `job`.
        let _wait = WaitOnLatch(&job.latch);
        let task = TaskRef {
            repr: Repr::Stack(Some(StackRef {
                job: NonNull::from(&job).cast(),
                execute: StackJob::<B, RB>::execute,
                claim: None,
            })),
        };
        push(task);
        let ra = panic::catch_unwind(AssertUnwindSafe(a));
        wait(&job.latch);
        ra
    };
    // `_wait` has returned: the latch is set. (Lifetimes: `B` may borrow from the caller's
    // frame; the `TaskRef` erased that, and it is sound because the job, and everything `B`
    // borrows, outlive every use of the pointer, which ends when the latch is set.)
    job.latch.retire();
    let rb = job.into_result();
    match (ra, rb) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(payload), _) | (Ok(_), Err(payload)) => panic::resume_unwind(payload),
    }
}

impl<B, RB> StackJob<B, RB>
where
    B: FnOnce() -> RB,
{
    /// The job's result once no `TaskRef` can touch it any more: the one written by whoever
    /// ran it, or, if it was given back or never claimed, the closure's, run here.
    fn into_result(self) -> Result<RB, PanicPayload> {
        let StackJob { func, result, .. } = self;
        match result.into_inner() {
            Some(result) => result,
            None => {
                let b = func
                    .into_inner()
                    .expect("foldex: a forked closure was taken but left no result");
                panic::catch_unwind(AssertUnwindSafe(b))
            }
        }
    }
}

/// Offers `task` to other threads, and runs it here instead if nobody has started it by the
/// time `wait` returns; returns its result either way.
///
/// `push` receives the [`TaskRef`] that runs `task` (an executor queues it for its workers).
/// `wait` is then called with the task's latch, and returns when it likes: at once, after a
/// timeout, or once the latch is set. If the task has not been started by then, the owner takes
/// it back and runs it on the calling thread (the queued `TaskRef` will find it gone and do
/// nothing); if it has, `offer` blocks until it is done. So a thread that offers work to a pool
/// whose threads are all blocked can always make progress itself. A panic in `task` is re-raised
/// here. This costs one allocation (the claim flag), unlike [`join_stack`].
///
/// ```
/// use foldex_core::offer;
/// // Nobody takes the offer: the closure runs here once `wait` gives up.
/// let mut queue = Vec::new();
/// let n = offer(|| 6 * 7, |task| queue.push(task), |_latch| {});
/// assert_eq!(n, 42);
/// queue.pop().unwrap().run(); // the stale offer does nothing
/// ```
pub fn offer<T, R>(task: T, push: impl FnOnce(TaskRef), wait: impl FnOnce(&JoinLatch)) -> R
where
    T: FnOnce() -> R + Send,
    R: Send,
{
    let claim = Claim::new();
    let job = StackJob {
        latch: JoinLatch::new(),
        func: UnsafeCell::new(Some(task)),
        result: UnsafeCell::new(None),
    };
    {
        // From here on, every way out of this block (unwinding included) first claims the job
        // or waits for the `TaskRef` that claimed it: the `TaskRef` points into `job`.
        let _claim = ClaimOrWait {
            claim: &claim,
            latch: &job.latch,
        };
        push(TaskRef {
            repr: Repr::Stack(Some(StackRef {
                job: NonNull::from(&job).cast(),
                execute: StackJob::<T, R>::execute,
                claim: Some(claim.share()),
            })),
        });
        wait(&job.latch);
    }
    // The owner claimed the job (no `TaskRef` will touch it), or the one that did has set the
    // latch as its last access: `job` is ours alone.
    job.latch.retire();
    match job.into_result() {
        Ok(result) => result,
        Err(payload) => panic::resume_unwind(payload),
    }
}
