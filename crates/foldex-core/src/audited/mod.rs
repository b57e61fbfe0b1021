//! The audited module: the only `unsafe` code in foldex.
//!
//! Five things cannot be written in safe Rust, and all are wrapped here behind safe APIs, one
//! file each (`partial`, `scope` with `task`, `stack` with `pending`, `slots`, `merge`):
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
//!    `TaskRef` is two words (an address and the function that runs or drops what is there),
//!    so a spawned closure is boxed; a closure of at most three words (a few borrows) goes in a
//!    box of one shape that its thread reuses for the next spawn.
//! 3. **Fork-join without allocating, forks that stay pending, and offers that can be taken
//!    back.** [`join_stack`] is
//!    rayon's `join` with a `StackJob`: the forked closure, its result slot and its
//!    [`JoinLatch`] live on the forking frame, and the [`TaskRef`] handed to other threads is a
//!    pointer to them. `join_stack` does not return or unwind until the latch is set, or until
//!    its owner took its `TaskRef` back unrun ([`Forked::take_back`]: then the closure runs on
//!    the owner with no synchronisation, as rayon runs a job it pops back); the latch is set
//!    exactly once, by the `TaskRef` that ran or dropped the closure, as its last access
//!    to the frame; and the latch's own setter never touches it after the store that sets it
//!    (so the owner may return at once). A fork costs no allocation and no reference count,
//!    where a one-task [`task_scope`] costs one of each (its scope's state). [`offer`] is the
//!    same with a claim flag in an `Arc`: whichever of the `TaskRef` and the owner claims the
//!    closure first runs it, so that an owner whose offer nobody has started can take it back
//!    and run it, without waiting for the `TaskRef` (the loser only reads the flag, never the
//!    frame). [`join_pending`] is `join_stack` with the `TaskRef` not made at the fork: the
//!    fork is a record (the job's address) on its thread's [`PendingForks`], and becomes a
//!    `TaskRef` only if the thread promotes it ([`PendingForks::promote_oldest`]) before its
//!    first half returns; otherwise the second half runs inline and no other thread ever saw
//!    the job.
//!
//! 4. **Elements handed out to many threads, each once.** A fold over a `&mut [T]`
//!    ([`MutSlice`]) or a `Vec<T>` by value ([`OwnedVec`]) gives each piece `&mut` access to,
//!    or ownership of, the elements of its range, and an in-place collect ([`VecWriter`])
//!    lets each piece write its range of the output. Safe code cannot split one buffer
//!    among pieces whose ranges are chosen at run time by an executor it does not trust.
//! 5. **Elements moved without `Clone`.** A stable parallel sort merges sorted runs
//!    (`merge_sort`): each merge moves the elements, bitwise, between the caller's slice and
//!    a scratch buffer, as std's merge sort does, and a panicking comparator must leave every
//!    element in the slice once.
//!
//! What needs no `unsafe` lives elsewhere, but these arguments also rest on it, and an audit of
//! this module takes it in: the latches in `latch.rs` ([`ScopeLatch`], whose crate-private
//! `count_up`/`count_down` only this module calls; [`JoinLatch`], whose crate-private `set` only
//! `StackJob::execute` calls, and whose protocol `tests/loom.rs` model-checks), and the claim
//! flag of `offer` in `claim.rs` (`Claim`, one winner per flag; `ClaimOrWait`, the owner's guard
//! that claims or waits for the latch), and the set in `once_bits.rs` that hands each index of a
//! buffer out at most once (`OnceBits`, also model-checked in `tests/loom.rs`).
//!
//! ## The ways in from safe code, and why each is sound
//!
//! - [`Brand::wrap`] / [`Brand::unwrap`]: the only constructor of a [`Partial`] is `wrap`, and
//!   `unwrap` checks the brand's unique id before it reads, so a value is only ever read back
//!   as the type it was written as.
//! - [`task_scope`] and [`Scope::spawn`]: a spawned task is counted on the scope's latch, and
//!   only running or dropping its [`TaskRef`] counts it down, after the closure was called or
//!   dropped. The body and the waiter see the latch only as a [`ScopeLatch`], which code
//!   outside the crate can wait on but never count down (its `count_up`/`count_down` are
//!   crate-private, and only this module calls them), so safe code cannot release a scope
//!   while a task that borrows from it lives. A leaked `TaskRef` keeps the scope waiting forever (a hang, never a
//!   dangling borrow).
//! - [`join_stack`] and [`offer`]: the frame is left (by return or unwind) only once the latch
//!   of its `StackJob` is set, or, for `join_stack`, once its `TaskRef` was taken back, or, for
//!   `offer`, once the owner has claimed the closure itself (`ClaimOrWait`); `JoinLatch::set`
//!   is crate-private, and is called once, by the `TaskRef` that claimed the job, as its last
//!   access to the frame.
//! - [`join_pending`] and [`PendingForks::promote_oldest`]: a record is pushed by the fork
//!   and removed by it on every way out (`RecordGuard`), after waiting, if it was promoted, for
//!   the latch its `TaskRef` sets as its last access (or for that `TaskRef` to be taken back).
//!   `PendingForks` is neither `Send` nor `Sync`, so every record on it belongs to a frame
//!   below the current one on this thread's stack, alive until that frame removes it; forks
//!   nest, so records are removed newest first, and promotion goes oldest first, so the
//!   promoted ones are a prefix: each record is promoted at most once, and a promoted fork
//!   always takes the waiting path. A `TaskRef` so made that is leaked keeps its fork waiting
//!   forever (a hang, never a dangling borrow).
//! - [`Forked::take_back`]: consumes a `TaskRef` unexecuted only if its address is this very
//!   fork's `StackJob`. A live `TaskRef`'s address is a live `StackJob` that no other
//!   `TaskRef` points to, or memory that `TaskRef` owns (a boxed task, an offer's ticket), and
//!   this fork's job is alive on the owner's frame, so that `TaskRef` is this fork's only one,
//!   and no thread can reach the frame through it any more; the owner then runs the closure
//!   itself. `Forked` is neither `Send` nor `Sync`, so the flag it sets is the owner's alone.
//! - [`TaskRef::run`] and dropping a `TaskRef`: each calls the task's `execute` once (`run`
//!   consumes the `TaskRef` without dropping it), on any thread (`TaskRef` is `Send`, not
//!   `Sync`). Every `TaskRef` is made by `TaskRef::from_raw`, whose contract each of the three
//!   makers (`Scope::spawn`, `join_stack`, `offer`) meets and argues at the call.
//! - [`MutSlice::take`], [`OwnedVec::take`] and [`VecWriter::write`]: each first marks its whole
//!   range in the buffer's `OnceBits`, and panics, touching no element, if any index of it was
//!   marked before; so each element is lent, moved out or written by one range only, whatever
//!   ranges a broken executor asks for. A [`Written`] range owns the elements it covers
//!   (it drops them, or hands them to the next by [`Written::join`]); only a range covering
//!   the whole buffer becomes the `Vec` ([`VecWriter::finish`]).
//! - `merge_sort` (public as `foldex_core::merge::merge_sort`, in `merge.rs` outside this
//!   module, whose crate-private `Join` is the executor's `ExecutorExt::join`): every element
//!   is in exactly one of its two slots (the slice's, the scratch buffer's) at every moment, and each node of the sort's tree, and each merge, ends
//!   (by return, by unwind, or dropped unrun by an executor that never ran it) with every
//!   element of its range in the side it promised, the root's being the slice; the argument,
//!   step by step, heads `merge.rs`. The caller's comparator and leaf sort are safe code that
//!   sees elements only where they are, and the executor can only choose where the halves of
//!   a join run (`join` runs each at most once and drops the others before it returns).

mod merge;
mod partial;
mod pending;
mod scope;
mod slots;
mod stack;
mod task;

pub(crate) use merge::{merge_sort, Join};
pub use partial::{Brand, Partial};
pub use pending::{join_pending, PendingForks};
pub use scope::{task_scope, Scope};
pub use slots::{MutSlice, OwnedVec, RangeWriter, Taken, VecWriter, Written};
pub use stack::{join_stack, offer, Forked};
pub use task::TaskRef;
