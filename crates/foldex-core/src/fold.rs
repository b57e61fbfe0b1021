//! The typed fold API, and the job it builds for executors.
//!
//! Everything an executor author should not have to think about lives here: the types, panic
//! capture and the early-termination rule. The checks that catch a broken executor, and the
//! range every partial carries for them, live in `coverage`.
//!
//! A skipped piece holds a stand-in accumulator that never reaches the result (the accumulator
//! it had, or a fresh `init()`). If that `init()` panics, the piece is lost, and that panic is
//! re-raised whatever the Breaks.
//!
//! ## Panics and Breaks
//!
//! `try_fold` returns what the sequential `try_fold` returns. Sequentially, the fold ends at
//! the first index whose `step` breaks or panics, so a panic after a `Break` never happens.
//! Here every panic and every Break has a position:
//!
//! - `step` runs in blocks of at most [`STOP_CHECK_BLOCK`] items; a panic in it is placed at
//!   its block's first index, a Break at its block's last (`break_at`); a panic in `init` at
//!   the first index of its piece;
//! - a panic in `combine` of partials covering `a..m` and `m..b` is placed at `a`, the first
//!   index of the range whose result it makes.
//!
//! Once the executor has returned, the panic placed at the smallest index is re-raised with its
//! original payload, unless it is placed after `break_at`: then it is discarded and the result
//! is the Break's. Pieces do not overlap, so a panic's block starts after a Break's block ends
//! exactly when the panicking item comes after the breaking one: the rule is exact for `step`.
//! A panic in `combine` is discarded exactly when a Break lies strictly to the left of `a`,
//! that is, when the combined value is not part of the result.
//!
//! A panic placed at `p` stops the work after `p` at once; the work up to `p` goes on, since a
//! Break or an earlier panic there would still decide the outcome. So every fold, `fold` and
//! `sum` included, re-raises the panic the sequential fold would have met first, whatever the
//! timing.
//!
//! ## Combining
//!
//! A piece's partial is `Continue(a)`, `Break(a)` or `Skipped`. A left `Break` (or `Skipped`)
//! wins whatever lies to its right; `(Continue(a), Break(b))` is `Break(combine(a, b))`; and a
//! skipped piece only ever lies to the right of a `Break` or a panic, where it is absorbed. The
//! job records the smallest index known to be at or after a `Break`: pieces that start beyond
//! it return at once, and a running leaf checks between blocks of [`STOP_CHECK_BLOCK`] items,
//! so a `Break` near the start of a huge range ends the fold promptly on every executor.
//!
//! ## Inline
//!
//! A fold over a [`Source`] whose executor says it would run it whole, in order, on the caller
//! ([`Executor::runs_inline`]) gets no job: its blocks are folded right there, as
//! `job.run(0..len)` folds them, from one `init()`. On one thread nothing but a `Break` stops
//! a block, the first panic met is the sequential one and unwinds as it is, and a source that
//! hands its items out drops those not taken as it does on any path. A fold that can be
//! cancelled, or over a stream, always gets its job. When the executor asked for it
//! ([`RunsInline::Timed`]), the fold is timed, and a fold that ran to its end (no `Break`, no
//! panic) is reported to [`Executor::ran_inline`].

mod crc32;
mod encode;
mod in_place;
mod input;
mod leaf;
mod stream;

pub use input::Input;
pub use leaf::{Leaf, StopProbe, Summand};
use leaf::{LeafVisitor, ProbedStep, SumStep};
pub(crate) use leaf::{PlainStep, TryStep};

use crate::audited::Partial;
use crate::codec::{Init, PartialCodec};
use crate::coverage::{self, Bugs, Kind, Piece, Pieces};
use crate::executor::{Executor, Job, RunsInline};
use crate::panic::{LeftmostPanic, PanicPayload};
use crate::source::Source;
use std::iter::Sum;
use std::ops::{ControlFlow, Range};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// How many items a leaf folds between two checks for a stop (a `Break` or a panic to its
/// left). Large enough that the check costs nothing next to the fold, small enough that a
/// stop is seen within microseconds.
const STOP_CHECK_BLOCK: usize = 4096;

/// A typed fold, erased into a [`Job`] for the executor.
struct FoldJob<'c, S, L, I, C, A> {
    source: S,
    leaf: L,
    init: I,
    combine: C,
    len: usize,
    pieces: Pieces<A>,
    /// The last index of the leftmost block known to hold a `Break` (`usize::MAX`: none yet).
    break_at: AtomicUsize,
    /// Every index after this one is stopped: the smaller of `break_at` and the index of the
    /// leftmost panic.
    stop_after: AtomicUsize,
    panics: LeftmostPanic,
    /// Every index is stopped once an executor bug was seen.
    bugs: Bugs,
    /// Set by the owner of a non-blocking fold ([`FoldHandle`](crate::FoldHandle)) that gave
    /// up on the result: every index counts as stopped, so executors stop scheduling and
    /// running pieces as they would after an early `Break` at index 0.
    cancel: Option<&'c AtomicBool>,
}

impl<S, L, I, C, A> FoldJob<'_, S, L, I, C, A>
where
    S: Source,
    L: Leaf<A, S::Item>,
    I: Init<A>,
    C: Fn(A, A) -> A + Sync,
{
    fn stopped(&self, from: usize) -> bool {
        from > self.stop_after.load(Ordering::Relaxed)
            || self.bugs.halted()
            || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Records a panic of user code placed at index `at`.
    #[cold]
    fn record_panic(&self, at: usize, payload: PanicPayload) {
        self.stop_after.fetch_min(at, Ordering::Relaxed);
        self.panics.keep(at, payload);
    }

    /// An accumulator for a skipped piece starting at `at` that has none: `init()`, or `None`
    /// if that panics too (the panic is recorded at `at`).
    #[cold]
    fn stand_in(&self, at: usize) -> Option<A> {
        match panic::catch_unwind(AssertUnwindSafe(|| self.init.init())) {
            Ok(acc) => Some(acc),
            Err(payload) => {
                self.record_panic(at, payload);
                None
            }
        }
    }

    /// A skipped piece covering `range`, or `None` when no stand-in could be made.
    fn skipped(&self, acc: Option<A>, range: Range<usize>) -> Option<Piece<A>> {
        let acc = acc.or_else(|| self.stand_in(range.start))?;
        Some(Piece::new(Kind::Skipped, acc, range.start, range.end))
    }

    /// The piece covering `from..end` that folding `start..end` (in bounds) into the
    /// accumulator `acc()` makes; a panic there (in `acc()` too) is recorded at its block, and
    /// the piece is then a skipped one.
    fn piece(
        &self,
        acc: impl FnOnce() -> A,
        from: usize,
        start: usize,
        end: usize,
    ) -> Option<Piece<A>> {
        let mut at = start;
        let folded = panic::catch_unwind(AssertUnwindSafe(|| {
            self.fold_range(acc(), start, end, &mut at)
        }));
        match folded {
            Ok((kind, acc)) => Some(Piece::new(kind, acc, from, end)),
            Err(payload) => {
                self.record_panic(at, payload);
                self.skipped(None, from..end)
            }
        }
    }

    /// Folds `start..end` (in bounds) into `acc`, block by block; `at` follows the block being
    /// folded.
    fn fold_range(&self, acc: A, start: usize, end: usize, at: &mut usize) -> (Kind, A) {
        let stopped = |from| self.stopped(from);
        let (kind, acc) = fold_blocks(&self.source, &self.leaf, acc, start..end, &stopped, at);
        if kind == Kind::Break {
            // The Break is somewhere in the block that starts at `at`, and no other piece
            // overlaps that block: every piece starting after its last index is to its right.
            let last = (*at + STOP_CHECK_BLOCK).min(end) - 1;
            self.break_at.fetch_min(last, Ordering::Relaxed);
            self.stop_after.fetch_min(last, Ordering::Relaxed);
        }
        (kind, acc)
    }
}

/// Folds the items of `range` (in bounds) of `source` into `acc` with `leaf`, in blocks of
/// [`STOP_CHECK_BLOCK`] items: `Break` when a step broke (in the block starting at `at`, which
/// follows the block being folded), `Skipped` when `stopped` said so for a block after the
/// first, `Continue` when every item was folded. A block's [`StopProbe`] asks `stopped` of its
/// first index.
#[inline]
fn fold_blocks<S, L, A>(
    source: &S,
    leaf: &L,
    mut acc: A,
    range: Range<usize>,
    stopped: &impl Fn(usize) -> bool,
    at: &mut usize,
) -> (Kind, A)
where
    S: Source,
    L: Leaf<A, S::Item>,
{
    let Range { start, end } = range;
    let mut from = start;
    while from < end {
        if from != start && stopped(from) {
            return (Kind::Skipped, acc);
        }
        *at = from;
        let to = from + STOP_CHECK_BLOCK.min(end - from);
        let block_stopped = || stopped(from);
        let visitor = LeafVisitor {
            leaf,
            acc,
            probe: &StopProbe(&block_stopped),
        };
        match source.visit_range(from..to, visitor) {
            ControlFlow::Continue(next) => acc = next,
            ControlFlow::Break(done) => return (Kind::Break, done),
        }
        from = to;
    }
    (Kind::Continue, acc)
}

/// The fold of all of `source` (`len` items) as one piece on the calling thread, for an
/// executor that runs it so ([`Executor::runs_inline`]): the blocks `job.run(0..len)` folds,
/// from one `init()`, with nothing to stop them but a `Break`; a panic unwinds from here with
/// its own payload.
fn fold_inline<S, L, I, A>(source: &S, len: usize, leaf: &L, init: &I) -> ControlFlow<A, A>
where
    S: Source,
    L: Leaf<A, S::Item>,
    I: Init<A>,
{
    let never = |_| false;
    match fold_blocks(source, leaf, init.init(), 0..len, &never, &mut 0) {
        (Kind::Break, acc) => ControlFlow::Break(acc),
        (_, acc) => ControlFlow::Continue(acc),
    }
}

impl<'a, S, L, I, C, A> Job<'a> for FoldJob<'_, S, L, I, C, A>
where
    S: Source,
    L: Leaf<A, S::Item>,
    I: Init<A>,
    C: Fn(A, A) -> A + Sync,
    A: Send + 'a,
{
    fn len(&self) -> usize {
        self.len
    }

    fn run(&self, range: Range<usize>) -> Partial<'a> {
        let Range { start, end } = range;
        if let Err(part) = self.bugs.check_run(start, end, self.len) {
            return self.pieces.wrap(self.skipped(None, part));
        }
        if self.stopped(start) {
            return self.pieces.wrap(self.skipped(None, start..end));
        }
        self.pieces
            .wrap(self.piece(|| self.init.init(), start, start, end))
    }

    fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a> {
        let (Some(left), Some(right)) = (self.pieces.unwrap(left), self.pieces.unwrap(right))
        else {
            // A lost piece absorbs its neighbours; the panic that lost it will be raised.
            return self.pieces.wrap(None);
        };
        let (left_kind, a, start, left_end) = (left.kind, left.acc, left.start, left.end);
        let (right_kind, b, right_start, end) = (right.kind, right.acc, right.start, right.end);
        let adjacent = self
            .bugs
            .check_combine(start..left_end, right_start..end, |at| self.stopped(at));
        let gap = match adjacent {
            Ok(gap) => gap,
            Err(whole) => return self.pieces.wrap(self.skipped(Some(a), whole)),
        };
        let (kind, acc) = match (left_kind, right_kind) {
            // A left Break wins: nothing to its right matters.
            (Kind::Break | Kind::Skipped, _) => (left_kind, a),
            (Kind::Continue, Kind::Skipped) => (Kind::Skipped, a),
            // Past a gap, or past a stop, the right side does not count.
            (Kind::Continue, _) if gap || self.stopped(start) => (Kind::Skipped, a),
            (Kind::Continue, kind) => {
                match panic::catch_unwind(AssertUnwindSafe(|| (self.combine)(a, b))) {
                    Ok(acc) => (kind, acc),
                    Err(payload) => {
                        self.record_panic(start, payload);
                        return self.pieces.wrap(self.skipped(None, start..end));
                    }
                }
            }
        };
        self.pieces.wrap(Some(Piece::new(kind, acc, start, end)))
    }

    fn is_stopped(&self, from: usize) -> bool {
        self.stopped(from)
    }

    fn codec(&self) -> Option<&dyn PartialCodec<'a>> {
        self.init.codec().map(|_| self as &dyn PartialCodec<'a>)
    }

    fn piece_len(&self) -> crate::exec::PieceLen {
        self.source.piece_len()
    }
}

/// Runs a typed fold over a source: builds its job and hands it to `executor` (every fold over
/// a [`Source`] comes here, with a codec when its `init` carries one), or, when the executor
/// runs folds of that length inline and the fold cannot be cancelled, folds the source on the
/// caller without a job (timed and reported when the executor asked: [`RunsInline::Timed`]). `None` when `cancel` was set before a result covering the whole range
/// was made.
///
/// # Panics
/// With the payload of a panic in user code (see the module doc for which one, and when it is
/// discarded), with "foldex: executor bug: ..." when the executor broke its contract, or, before
/// the executor sees the job, with the [`Spent`](crate::source::Spent) of a source that refuses the
/// fold ([`Source::start_fold`]).
pub(crate) fn run_fold<E, S, L, I, C, A>(
    executor: &E,
    source: S,
    leaf: L,
    init: I,
    combine: C,
    cancel: Option<&AtomicBool>,
) -> Option<ControlFlow<A, A>>
where
    E: Executor + ?Sized,
    S: Source,
    L: Leaf<A, S::Item>,
    I: Init<A>,
    C: Fn(A, A) -> A + Sync,
    A: Send,
{
    if let Err(spent) = source.start_fold() {
        panic!("{spent}");
    }
    let len = source.len();
    // One piece of `len` on the caller: only where the source's bounds allow it.
    if cancel.is_none() && len <= source.piece_len().max() {
        match executor.runs_inline(len) {
            RunsInline::No => {}
            RunsInline::Yes => return Some(fold_inline(&source, len, &leaf, &init)),
            RunsInline::Timed => {
                let started = Instant::now();
                let flow = fold_inline(&source, len, &leaf, &init);
                if flow.is_continue() {
                    executor.ran_inline(len, started.elapsed());
                }
                return Some(flow);
            }
        }
    }
    let job = FoldJob::new(source, leaf, init, combine, len, cancel);
    let partial = executor.execute(&job);
    job.conclude(partial, len)
}

impl<'c, S, L, I, C, A> FoldJob<'c, S, L, I, C, A>
where
    S: Source,
    L: Leaf<A, S::Item>,
    I: Init<A>,
    C: Fn(A, A) -> A + Sync,
    A: Send,
{
    /// What `combine(prefix, run(range))` gives, for `range` right after `prefix`: its items
    /// are folded on into the prefix's accumulator (no `init`, no `combine`) when the prefix
    /// is a `Continue` that ends where `range` starts.
    pub(super) fn extend<'a>(&self, prefix: Partial<'a>, range: Range<usize>) -> Partial<'a>
    where
        A: 'a,
    {
        let Some(prefix) = self.pieces.unwrap(prefix) else {
            return self.pieces.wrap(None);
        };
        let Range { start, end } = range;
        let on_from = prefix.kind == Kind::Continue && prefix.end == start && start <= end;
        if !on_from || self.stopped(start) {
            let prefix = self.pieces.wrap(Some(prefix));
            return self.combine(prefix, self.run(range));
        }
        let acc = prefix.acc;
        self.pieces
            .wrap(self.piece(|| acc, prefix.start, start, end))
    }

    /// The job of a fold over the indices `0..len` of `source`.
    fn new(
        source: S,
        leaf: L,
        init: I,
        combine: C,
        len: usize,
        cancel: Option<&'c AtomicBool>,
    ) -> Self {
        Self {
            source,
            leaf,
            init,
            combine,
            len,
            pieces: Pieces::new(len),
            break_at: AtomicUsize::new(usize::MAX),
            stop_after: AtomicUsize::new(usize::MAX),
            panics: LeftmostPanic::default(),
            bugs: Bugs::default(),
            cancel,
        }
    }

    /// The fold's result from `partial`, which must cover `0..len` (or stop where the job
    /// stopped); `None` when the fold was cancelled.
    ///
    /// # Panics
    /// With the first executor bug, else with the panic of user code that the sequential fold
    /// would have met first.
    fn conclude(&self, partial: Partial<'_>, len: usize) -> Option<ControlFlow<A, A>> {
        let piece = self.pieces.unwrap(partial);
        self.bugs.raise();
        let leftmost_panic = self.panics.take();
        let Some(piece) = piece else {
            // Lost: `init` panicked where a skipped piece needed a stand-in, and that was
            // recorded.
            let (_, payload) = leftmost_panic.expect("a lost piece follows a recorded panic");
            panic::resume_unwind(payload);
        };
        coverage::check_result(piece.start, piece.end, len, |end| self.stopped(end));
        if let Some((at, payload)) = leftmost_panic
            && at <= self.break_at.load(Ordering::Relaxed)
        {
            panic::resume_unwind(payload);
        }
        // Placed after a Break: the sequential fold never got there.
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            // Pieces may have been skipped anywhere: whatever was combined is not the fold's
            // result.
            return None;
        }
        match piece.kind {
            Kind::Continue => Some(ControlFlow::Continue(piece.acc)),
            Kind::Break => Some(ControlFlow::Break(piece.acc)),
            Kind::Skipped => coverage::whole_job_skipped(),
        }
    }
}

fn into_inner<A>(flow: ControlFlow<A, A>) -> A {
    match flow {
        ControlFlow::Continue(acc) | ControlFlow::Break(acc) => acc,
    }
}

/// The typed fold API, available on every [`Executor`] (`dyn Executor`, `Box<dyn Executor>` and
/// `Arc<dyn Executor>` included). Every method reads any [`Input`]: a [`Source`] (split by
/// index) or a [`Stream`](crate::Stream) (an iterator, pulled in batches), by the same rules.
///
/// `init` must return an identity of `combine`, and `combine` must be associative; it need not
/// be commutative, since partial results are always combined left to right. Then every
/// executor returns what the sequential fold returns. `init` is a closure, or one paired with a
/// codec for the accumulator ([`codec::Encoded`](crate::codec::Encoded)), which an executor
/// whose pieces run in other processes needs (`foldex-mpi`'s `MpiEx`) and every other executor
/// ignores: every method runs the same fold either way.
///
/// A panic in `step` or `combine` stops the fold; once the executor has finished every piece it
/// started, the original payload of the panic that the sequential fold would have met first is
/// re-raised here (in `try_fold`, none if the sequential fold meets a `Break` first: a panic
/// after it is discarded). An executor that breaks its contract (a range left out, run twice or
/// past the end; partials combined out of order) makes the fold panic with "foldex: executor
/// bug" instead of returning a wrong answer.
pub trait ExecutorExt: Executor {
    /// Folds `source` with `step` from `init()` per piece, combining pieces with `combine`.
    ///
    /// ```
    /// use foldex_core::ExecutorExt;
    /// use foldex_seq::SequentialEx;
    /// let words = ["fold", "ex"];
    /// let joined = SequentialEx.fold(&words[..], String::new, |s, w| s + w, |a, b| a + &b);
    /// assert_eq!(joined, "foldex");
    /// ```
    fn fold<S, A, I, F, C>(&self, source: S, init: I, step: F, combine: C) -> A
    where
        S: Input,
        A: Send,
        I: Init<A>,
        F: Fn(A, S::Item) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        into_inner(source.drive_fold(self, PlainStep(step), init, combine))
    }

    /// Like [`fold`](ExecutorExt::fold), but `step` may stop the fold with `Break`.
    ///
    /// Returns exactly what a sequential `try_fold` returns: work to the right of the first
    /// `Break` stops, work to its left goes on, and `combine(left, Break(b))` is
    /// `Break(combine(left, b))`. A panic at an item after the first `Break` is discarded, as
    /// the sequential fold never reaches that item; so is a panic in a `combine` whose result
    /// lies wholly after it.
    ///
    /// ```
    /// use foldex_core::ExecutorExt;
    /// use foldex_seq::SequentialEx;
    /// use std::ops::ControlFlow::{Break, Continue};
    /// // The sum of the items before the first one over 5.
    /// let r = SequentialEx.try_fold(
    ///     0..100,
    ///     || 0,
    ///     |acc, i| if i > 5 { Break(acc) } else { Continue(acc + i) },
    ///     |a, b| a + b,
    /// );
    /// assert_eq!(r, Break(15));
    /// ```
    fn try_fold<S, A, I, F, C>(&self, source: S, init: I, step: F, combine: C) -> ControlFlow<A, A>
    where
        S: Input,
        A: Send,
        I: Init<A>,
        F: Fn(A, S::Item) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        source.drive_fold(self, TryStep(step), init, combine)
    }

    /// Like [`try_fold`](ExecutorExt::try_fold), with a [`StopProbe`] for `step`: a step that
    /// spends long on one item checks it now and then and returns `Break` once the fold no
    /// longer needs its block.
    fn try_fold_probed<S, A, I, F, C>(
        &self,
        source: S,
        init: I,
        step: F,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        S: Input,
        A: Send,
        I: Init<A>,
        F: Fn(A, S::Item, &StopProbe) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        source.drive_fold(self, ProbedStep(step), init, combine)
    }

    /// Calls `f` on every item.
    fn for_each<S, F>(&self, source: S, f: F)
    where
        S: Input,
        F: Fn(S::Item) + Sync,
    {
        self.fold(source, || (), |(), item| f(item), |(), ()| ());
    }

    /// Maps every item with `map` and reduces the results with `reduce`, from `identity()`.
    ///
    /// ```
    /// use foldex_core::ExecutorExt;
    /// use foldex_seq::SequentialEx;
    /// let longest = SequentialEx.map_reduce(&["a", "abc", "ab"][..], |s| s.len(), || 0, usize::max);
    /// assert_eq!(longest, 3);
    /// ```
    fn map_reduce<S, R, M, I, C>(&self, source: S, map: M, identity: I, reduce: C) -> R
    where
        S: Input,
        R: Send,
        M: Fn(S::Item) -> R + Sync,
        I: Init<R>,
        C: Fn(R, R) -> R + Sync,
    {
        self.fold(
            source,
            identity,
            |acc, item| reduce(acc, map(item)),
            &reduce,
        )
    }

    /// The sum of the items, as `Iterator::sum` would give it.
    ///
    /// ```
    /// use foldex_core::ExecutorExt;
    /// use foldex_seq::SequentialEx;
    /// let v: Vec<u64> = (1..=100).collect();
    /// assert_eq!(SequentialEx.sum::<u64>(&v), 5050);
    /// ```
    fn sum<T>(&self, source: impl Input<Item: Summand<T>>) -> T
    where
        T: Send + Sum<T>,
    {
        let zero = || std::iter::empty::<T>().sum();
        let plus = |a: T, b: T| [a, b].into_iter().sum();
        into_inner(source.drive_fold(self, SumStep, zero, plus))
    }

    /// The items in index order, written in place: the `Vec` is allocated once, at its final
    /// length, and each piece writes its own range of it.
    ///
    /// ```
    /// use foldex_core::ExecutorExt;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!(SequentialEx.collect_vec(2..5), vec![2, 3, 4]);
    /// ```
    fn collect_vec<S>(&self, source: S) -> Vec<S::Item>
    where
        S: Input,
        S::Item: Send,
    {
        source.collect_items(self)
    }

    /// Runs `a` and `b`, perhaps at once, and returns both results: rayon's `join`, on any
    /// executor. Both closures always run; a panic in either is re-raised here once both are
    /// done (`a`'s first, as the sequential `(a(), b())` would meet it). Nesting never
    /// deadlocks, and the closures may borrow from the caller's stack.
    ///
    /// On a pool (`ThreadedEx`), `b` stays a record on this thread's stack, run right after
    /// `a`, unless another worker wants work meanwhile: then it is handed over. Divide and
    /// conquer is written as the recursion itself:
    ///
    /// ```
    /// use foldex_core::{Executor, ExecutorExt};
    /// fn sum(ex: &dyn Executor, v: &[u64]) -> u64 {
    ///     if v.len() <= 1024 {
    ///         return v.iter().sum();
    ///     }
    ///     let (left, right) = v.split_at(v.len() / 2);
    ///     let (a, b) = ex.join(|| sum(ex, left), || sum(ex, right));
    ///     a + b
    /// }
    /// let v: Vec<u64> = (0..100_000).collect();
    /// assert_eq!(sum(&foldex_seq::SequentialEx, &v), 4_999_950_000);
    /// ```
    ///
    /// An executor that does not implement [`Executor::join_halves`] runs `a`, then `b`.
    #[inline]
    fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        crate::join::join(self, a, b)
    }
}

impl<E: Executor + ?Sized> ExecutorExt for E {}
