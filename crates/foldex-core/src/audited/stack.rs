//! Fork-join with the forked half on the stack: [`join_stack`] and [`offer`].

use super::task::{Repr, StackRef, TaskRef};
use crate::claim::{Claim, ClaimOrWait};
use crate::latch::JoinLatch;
use crate::panic::PanicPayload;
use std::cell::UnsafeCell;
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

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
/// use foldex_core::exec::join_stack;
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
/// use foldex_core::exec::offer;
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
