//! Fork-join with the forked half on the stack: [`join_stack`] and [`offer`].

use super::task::TaskRef;
use crate::claim::{Claim, ClaimOrWait};
use crate::exec::sync::Arc;
use crate::latch::JoinLatch;
use crate::panic::PanicPayload;
use std::cell::{Cell, UnsafeCell};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;

/// The forked half of a [`join_stack`] or [`join_pending`](super::join_pending), on the
/// forking frame.
pub(super) struct StackJob<B, RB> {
    pub(super) latch: JoinLatch,
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
    pub(super) fn new(func: B) -> Self {
        Self {
            latch: JoinLatch::new(),
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
        }
    }

    /// Runs the job (`run`) or leaves it for the owner (`!run`), then sets the latch.
    ///
    /// # Safety
    /// `job` points to a live `StackJob<B, RB>` whose latch is not set, and this is the only
    /// call for it.
    pub(super) unsafe fn execute(job: NonNull<()>, run: bool) {
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

/// Blocks until `latch` is set, unless the owner took the job back, on every exit path out of
/// `join_stack` including unwinding.
pub(super) struct WaitOnLatch<'a> {
    pub(super) latch: &'a JoinLatch,
    pub(super) taken_back: &'a Cell<bool>,
}

impl Drop for WaitOnLatch<'_> {
    fn drop(&mut self) {
        if !self.taken_back.get() {
            self.latch.wait();
        }
    }
}

/// What the `wait` of a [`join_stack`] is given: the forked half's latch, and the way to take
/// the half back when the owner finds it unstarted in its own queue (then it runs on the owner
/// with no synchronisation at all, as rayon's `join` runs a job it pops back).
///
/// Neither `Send` nor `Sync`: only the owner, inside `wait`, can use it.
pub struct Forked<'j> {
    latch: &'j JoinLatch,
    /// The job's address, which only this fork's `TaskRef` points to while the fork lasts.
    job: NonNull<()>,
    taken_back: &'j Cell<bool>,
}

impl<'j> Forked<'j> {
    pub(super) fn new(latch: &'j JoinLatch, job: NonNull<()>, taken_back: &'j Cell<bool>) -> Self {
        Self {
            latch,
            job,
            taken_back,
        }
    }

    /// The latch that the thread that runs the forked half sets. Once [`take_back`] succeeded
    /// it is never set: wait on [`Forked::wait`] or poll [`Forked::is_done`] instead.
    ///
    /// [`take_back`]: Forked::take_back
    #[inline]
    pub fn latch(&self) -> &JoinLatch {
        self.latch
    }

    /// `true` once the forked half has run elsewhere or been taken back: `wait` may return.
    #[inline]
    pub fn is_done(&self) -> bool {
        self.taken_back.get() || self.latch.is_set()
    }

    /// Takes `task` back if it is this fork's own half, unstarted: `join_stack` runs the half
    /// on the owner as soon as `wait` returns, and [`Forked::is_done`] is now `true`. Any other
    /// task is returned as it was, for the caller to run or queue.
    ///
    /// ```
    /// use foldex_core::exec::join_stack;
    /// use std::cell::RefCell;
    /// let queue = RefCell::new(Vec::new());
    /// let (a, b) = join_stack(
    ///     || 1,
    ///     || 2,
    ///     |task| queue.borrow_mut().push(task),
    ///     |forked| {
    ///         let task = queue.borrow_mut().pop().expect("the forked half");
    ///         assert!(forked.take_back(task).is_none());
    ///         assert!(forked.is_done());
    ///     },
    /// );
    /// assert_eq!((a, b), (1, 2));
    /// ```
    pub fn take_back(&self, task: TaskRef) -> Option<TaskRef> {
        // A `TaskRef`'s address is a live `StackJob` that no other `TaskRef` points to, or
        // memory that `TaskRef` owns (`TaskRef::from_raw`); this fork's job is alive and on
        // this frame, so a `TaskRef` with its address is this fork's own, and, being here, has
        // not been started by anybody.
        if task.data() != self.job {
            return Some(task);
        }
        // Consumed unexecuted: the closure stays in the frame, and the latch is never set.
        task.disown();
        self.taken_back.set(true);
        None
    }

    /// Blocks until the forked half is done elsewhere (returns at once if it was taken back).
    pub fn wait(&self) {
        if !self.taken_back.get() {
            self.latch.wait();
        }
    }
}

/// Runs `a` here and offers `b` to other threads, rayon's `join` with the forked half on the
/// stack: no allocation, no reference count.
///
/// `push` receives the [`TaskRef`] that runs `b` (a worker pushes it onto its deque, where it
/// may take it back or a thief may steal it). After `a`, `wait` is called with the [`Forked`]
/// half: a pool worker passes a closure that runs other tasks (its own deque first, which
/// usually gives `b` back at once: [`Forked::take_back`]) until [`Forked::is_done`]. Whatever
/// `wait` does, `join_stack` then blocks until `b` has run elsewhere (its latch is set) or was
/// taken back, and does not return or unwind before that. If `b` was taken back, or its
/// `TaskRef` dropped unrun, `b` runs here. A panic in `a` or `b` is re-raised here once both
/// are done (`a`'s first).
///
/// ```
/// use foldex_core::exec::join_stack;
/// let data = vec![1, 2, 3, 4];
/// let (left, right) = join_stack(
///     || data[..2].iter().sum::<i32>(),
///     || data[2..].iter().sum::<i32>(),
///     |task| { std::thread::scope(|s| { s.spawn(move || task.run()); }); },
///     |forked| forked.wait(),
/// );
/// assert_eq!((left, right), (3, 7));
/// ```
#[inline]
pub fn join_stack<A, B, RA, RB>(
    a: A,
    b: B,
    push: impl FnOnce(TaskRef),
    wait: impl FnOnce(&Forked<'_>),
) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    let job = StackJob::new(b);
    let taken_back = Cell::new(false);
    let ra = {
        // From here on, every way out of this block (unwinding included) first waits for the
        // latch, unless the `TaskRef` below, which points into `job`, was taken back.
        let _wait = WaitOnLatch {
            latch: &job.latch,
            taken_back: &taken_back,
        };
        let job_ptr = NonNull::from(&job).cast();
        // SAFETY: `StackJob::execute` may run once on any thread while the job is alive, and
        // the job outlives the `TaskRef`: this frame is not left before the latch is set
        // (`_wait`), which `execute` does as its last access, or before the `TaskRef` was taken
        // back unexecuted. This is the only `TaskRef` of the job.
        let task = unsafe { TaskRef::from_raw(job_ptr, StackJob::<B, RB>::execute) };
        push(task);
        let ra = panic::catch_unwind(AssertUnwindSafe(a));
        wait(&Forked::new(&job.latch, job_ptr, &taken_back));
        ra
    };
    // `_wait` has returned: the latch is set, or the `TaskRef` was consumed unexecuted by
    // `Forked::take_back`. (Lifetimes: `B` may borrow from the caller's frame; the `TaskRef`
    // erased that, and it is sound because the job, and everything `B` borrows, outlive every
    // use of the pointer, which ends when the latch is set or the `TaskRef` is taken back.)
    job.finish(ra)
}

impl<B, RB> StackJob<B, RB>
where
    B: FnOnce() -> RB,
{
    /// Both halves' results, once no `TaskRef` of the job is left (its latch was set, it was
    /// taken back, or it never existed): `b` runs here if nobody ran it, and `a`'s panic, if
    /// any, is raised after that (`b`'s own is then dropped).
    pub(super) fn finish<RA>(self, ra: std::thread::Result<RA>) -> (RA, RB) {
        self.latch.retire();
        match ra {
            Err(payload) => {
                drop(self.into_result());
                panic::resume_unwind(payload)
            }
            // Nothing is left to wait for: a panic of `b`, run here, unwinds as it is.
            Ok(ra) => (ra, self.into_value()),
        }
    }

    /// As [`StackJob::into_result`], with a panic raised here: the closure, if it runs here,
    /// runs without `catch_unwind`, so its result moves straight out.
    fn into_value(self) -> RB {
        let StackJob { func, result, .. } = self;
        match result.into_inner() {
            Some(Ok(value)) => value,
            Some(Err(payload)) => panic::resume_unwind(payload),
            None => func
                .into_inner()
                .expect("foldex: a forked closure was taken but left no result")(
            ),
        }
    }

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

/// What an offer's `TaskRef` points to: the claim it races the owner for, and the job it may run
/// only after winning it (the owner may have left the job's frame otherwise).
struct OfferTicket {
    claim: Claim,
    job: NonNull<()>,
    /// `StackJob::<T, R>::execute` for the offered job.
    execute: unsafe fn(NonNull<()>, bool),
}

// SAFETY: after it is made, only the ticket's claim changes, and it is atomic; the job pointer
// is followed only by `execute_offer`, on whichever thread holds the `TaskRef`, after winning
// the claim (argued there), as `TaskRef`'s own `Send` argues for the job's types.
unsafe impl Send for OfferTicket {}
// SAFETY: as for `Send`: shared access only reads the pointer and the function, or swaps the
// atomic claim.
unsafe impl Sync for OfferTicket {}

/// Runs (`run`) or gives back the offered job if this share of the ticket wins its claim, and
/// releases the share.
///
/// # Safety
/// `data` is a share of an `Arc<OfferTicket>` made raw by `offer`, not used again.
unsafe fn execute_offer(data: NonNull<()>, run: bool) {
    // SAFETY: the caller passes a share that `offer` made raw, once.
    let ticket = unsafe { Arc::from_raw(data.cast::<OfferTicket>().as_ptr()) };
    if ticket.claim.claim() {
        // SAFETY: won the claim, so the owner waits for the latch before it leaves the job's
        // frame; `execute` sets it as its last access. The owner made only this one share.
        unsafe { (ticket.execute)(ticket.job, run) }
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
    let job = StackJob::new(task);
    let ticket = Arc::new(OfferTicket {
        claim: Claim::new(),
        job: NonNull::from(&job).cast(),
        execute: StackJob::<T, R>::execute,
    });
    {
        // From here on, every way out of this block (unwinding included) first claims the job
        // or waits for the `TaskRef` that claimed it: the `TaskRef` points into `job`.
        let _claim = ClaimOrWait {
            claim: &ticket.claim,
            latch: &job.latch,
        };
        let data = NonNull::new(Arc::into_raw(Arc::clone(&ticket)).cast_mut())
            .expect("an Arc is never null")
            .cast();
        // SAFETY: `execute_offer` takes back this share of the ticket once, and touches the job
        // only after winning its claim, which the owner then can no longer win: the owner does
        // not leave this block before the winner has set the latch (`_claim`), as its last
        // access to the job. The ticket's memory is this `TaskRef`'s share.
        push(unsafe { TaskRef::from_raw(data, execute_offer) });
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
