//! The typed fold API, and the job it builds for executors.
//!
//! Everything an executor author should not have to think about lives here: the types, panic
//! capture, the early-termination rule, and the checks that catch a broken executor.
//!
//! ## Every partial knows its range
//!
//! `run(start..end)` makes a partial that covers `start..end`; `combine(left, right)` one that
//! covers `left.start..right.end`. These are executor bugs, and the fold panics on its caller
//! with "foldex: executor bug: " and the ranges involved, instead of returning a wrong answer:
//! `run` of a range that ends before it starts or past `len` (refused before the source is
//! touched); `combine` of partials that are not neighbours, left first (`left.end` must be
//! `right.start`); a result that does not cover `0..len` (`0..0` for an empty job). The one
//! exception: nothing at or after a stopped index ([`Job::is_stopped`]) can change the result,
//! so a gap that starts there, and a result that ends there, are accepted.
//!
//! `run` and `combine` never unwind: a bug they see (perhaps on a pool thread) is recorded,
//! halts the job, and is raised on the caller once the executor has returned, ahead of any
//! panic of user code. A partial the executor makes and then drops is not seen: a range run
//! twice, one partial thrown away, still gives the right answer.
//!
//! Every partial holds an accumulator, so that with the range and the kind packed into one
//! never-zero word ([`Packed`], for jobs of at most [`PACKED_MAX_LEN`] indices) a one-word
//! accumulator makes a pair of scalars: it moves in registers and fits a [`Partial`] in place.
//! A skipped piece holds a stand-in that never reaches the result (the accumulator it had, or
//! a fresh `init()`). If that `init()` panics, the piece is lost, and that panic is re-raised
//! whatever the Breaks.
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

use crate::erased::{Brand, Partial};
use crate::executor::{Executor, Job};
use crate::panic::{LeftmostPanic, PanicPayload};
use crate::source::{RangeVisitor, Source};
use std::iter::Sum;
use std::num::NonZeroU64;
use std::ops::{ControlFlow, Range};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// How many items a leaf folds between two checks for a stop (a `Break` or a panic to its
/// left). Large enough that the check costs nothing next to the fold, small enough that a
/// stop is seen within microseconds.
const STOP_CHECK_BLOCK: usize = 4096;

/// What a piece came to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Continue,
    /// A `step` returned `Break` inside this piece; everything to its right is irrelevant.
    Break,
    /// Not run (or abandoned) because a `Break` or a panic to its left, an executor bug or a
    /// cancellation made it irrelevant. Its accumulator is a stand-in that never reaches the
    /// result.
    Skipped,
}

/// A partial as the typed layer sees it: what it came to, and the indices `start..end` it
/// covers.
struct Piece<A> {
    kind: Kind,
    acc: A,
    start: usize,
    end: usize,
}

impl<A> Piece<A> {
    fn new(kind: Kind, acc: A, start: usize, end: usize) -> Self {
        Self {
            kind,
            acc,
            start,
            end,
        }
    }
}

/// The longest job whose partials travel as [`Packed`]: a start or an end takes 31 bits.
const PACKED_MAX_LEN: usize = (1 << 31) - 1;

/// A piece's kind and range in one word: the kind in bits 62..64 (1, 2 or 3, so the word is
/// never zero: the niche that gives [`Packed`] its `Lost` for free), the start in bits 31..62
/// and the end in bits 0..31.
struct Span(NonZeroU64);

impl Span {
    const CONTINUE: NonZeroU64 = NonZeroU64::new(1 << 62).expect("not zero");
    const BREAK: NonZeroU64 = NonZeroU64::new(2 << 62).expect("not zero");
    const SKIPPED: NonZeroU64 = NonZeroU64::new(3 << 62).expect("not zero");
    const FIELD: u64 = PACKED_MAX_LEN as u64;
}

/// A piece of a job of at most [`PACKED_MAX_LEN`] indices, or `None` (`Lost`).
///
/// One word larger than the accumulator, and with no other variant that holds data, so that
/// a one-word accumulator makes a pair of scalars, which moves through registers and fits a
/// [`Partial`] in place.
enum Packed<A> {
    Piece(Span, A),
    Lost,
}

impl<A> Packed<A> {
    fn pack(piece: Option<Piece<A>>) -> Self {
        let Some(piece) = piece else {
            return Packed::Lost;
        };
        let kind = match piece.kind {
            Kind::Continue => Span::CONTINUE,
            Kind::Break => Span::BREAK,
            Kind::Skipped => Span::SKIPPED,
        };
        let (start, end) = (piece.start as u64, piece.end as u64);
        Packed::Piece(Span(kind | start << 31 | end), piece.acc)
    }

    fn unpack(self) -> Option<Piece<A>> {
        let Packed::Piece(Span(bits), acc) = self else {
            return None;
        };
        let bits = bits.get();
        let kind = match bits >> 62 {
            1 => Kind::Continue,
            2 => Kind::Break,
            _ => Kind::Skipped,
        };
        let (start, end) = (bits >> 31 & Span::FIELD, bits & Span::FIELD);
        Some(Piece::new(kind, acc, start as usize, end as usize))
    }
}

/// Folds one block of items, in order, into an accumulator.
pub(crate) trait Leaf<A, Item>: Sync {
    fn fold<I: Iterator<Item = Item>>(&self, acc: A, items: I) -> ControlFlow<A, A>;
}

/// A step that cannot stop early: folds with `Iterator::fold`, which vectorises best.
pub(crate) struct PlainStep<F>(pub(crate) F);

impl<A, Item, F: Fn(A, Item) -> A + Sync> Leaf<A, Item> for PlainStep<F> {
    fn fold<I: Iterator<Item = Item>>(&self, acc: A, items: I) -> ControlFlow<A, A> {
        ControlFlow::Continue(items.fold(acc, &self.0))
    }
}

/// A step that may return `Break`.
pub(crate) struct TryStep<F>(pub(crate) F);

impl<A, Item, F: Fn(A, Item) -> ControlFlow<A, A> + Sync> Leaf<A, Item> for TryStep<F> {
    fn fold<I: Iterator<Item = Item>>(&self, acc: A, mut items: I) -> ControlFlow<A, A> {
        items.try_fold(acc, &self.0)
    }
}

/// An item that can be summed into a `T` (any `Item` for which `T: Sum<Item>`); the bound of
/// [`ExecutorExt::sum`], so that the sum's type is the only one a caller names.
pub trait Summand<T>: Sized {
    /// `T::sum(items)`.
    fn sum_into<I: Iterator<Item = Self>>(items: I) -> T;
}

impl<T: Sum<Item>, Item> Summand<T> for Item {
    fn sum_into<I: Iterator<Item = Item>>(items: I) -> T {
        items.sum()
    }
}

/// `Iterator::sum` per block, so that summing a slice is the standard library's loop.
struct SumStep;

impl<T: Sum<T>, Item: Summand<T>> Leaf<T, Item> for SumStep {
    fn fold<I: Iterator<Item = Item>>(&self, acc: T, items: I) -> ControlFlow<T, T> {
        let block = Item::sum_into(items);
        ControlFlow::Continue([acc, block].into_iter().sum())
    }
}

struct LeafVisitor<'l, L, A> {
    leaf: &'l L,
    acc: A,
}

impl<A, Item, L: Leaf<A, Item>> RangeVisitor<Item> for LeafVisitor<'_, L, A> {
    type Output = ControlFlow<A, A>;
    fn visit<I: Iterator<Item = Item>>(self, items: I) -> ControlFlow<A, A> {
        self.leaf.fold(self.acc, items)
    }
}

/// A typed fold, erased into a [`Job`] for the executor.
struct FoldJob<'c, S, L, I, C, A> {
    source: S,
    leaf: L,
    init: I,
    combine: C,
    len: usize,
    /// `len <= PACKED_MAX_LEN`: partials travel as [`Packed`] (branded by `packed_brand`),
    /// else as an `Option<Piece>` (branded by `wide_brand`).
    packed: bool,
    packed_brand: Brand<Packed<A>>,
    wide_brand: Brand<Option<Piece<A>>>,
    /// The last index of the leftmost block known to hold a `Break` (`usize::MAX`: none yet).
    break_at: AtomicUsize,
    /// Every index after this one is stopped: the smaller of `break_at` and the index of the
    /// leftmost panic.
    stop_after: AtomicUsize,
    /// Every index is stopped: an executor bug was seen.
    halted: AtomicBool,
    panics: LeftmostPanic,
    /// The first executor bug seen, to raise on the caller.
    bug: Mutex<Option<String>>,
    /// Set by the owner of a non-blocking fold ([`FoldHandle`](crate::FoldHandle)) that gave
    /// up on the result: every index counts as stopped, so executors stop scheduling and
    /// running pieces as they would after an early `Break` at index 0.
    cancel: Option<&'c AtomicBool>,
}

impl<S, L, I, C, A> FoldJob<'_, S, L, I, C, A>
where
    S: Source,
    L: Leaf<A, S::Item>,
    I: Fn() -> A + Sync,
    C: Fn(A, A) -> A + Sync,
{
    fn wrap<'a>(&self, piece: Option<Piece<A>>) -> Partial<'a>
    where
        A: Send + 'a,
    {
        if self.packed {
            self.packed_brand.wrap(Packed::pack(piece))
        } else {
            self.wide_brand.wrap(piece)
        }
    }

    /// # Panics
    /// If another job's brand made `partial`.
    fn unwrap(&self, partial: Partial<'_>) -> Option<Piece<A>> {
        if self.packed {
            self.packed_brand.unwrap(partial).unpack()
        } else {
            self.wide_brand.unwrap(partial)
        }
    }

    fn stopped(&self, from: usize) -> bool {
        from > self.stop_after.load(Ordering::Relaxed)
            || self.halted.load(Ordering::Relaxed)
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
        match panic::catch_unwind(AssertUnwindSafe(&self.init)) {
            Ok(acc) => Some(acc),
            Err(payload) => {
                self.record_panic(at, payload);
                None
            }
        }
    }

    /// A skipped piece covering `start..end`, or `None` when no stand-in could be made.
    fn skipped(&self, acc: Option<A>, start: usize, end: usize) -> Option<Piece<A>> {
        let acc = acc.or_else(|| self.stand_in(start))?;
        Some(Piece::new(Kind::Skipped, acc, start, end))
    }

    /// Records an executor bug (the first one is raised on the caller) and halts the job.
    #[cold]
    fn record_bug(&self, what: String) {
        let mut bug = self.bug.lock().unwrap_or_else(PoisonError::into_inner);
        bug.get_or_insert(format!("foldex: executor bug: {what}"));
        self.halted.store(true, Ordering::Relaxed);
    }

    /// Folds `start..end` (in bounds), block by block; `at` follows the block being folded.
    fn fold_range(&self, start: usize, end: usize, at: &mut usize) -> (Kind, A) {
        let mut acc = (self.init)();
        let mut from = start;
        while from < end {
            if from != start && self.stopped(from) {
                return (Kind::Skipped, acc);
            }
            *at = from;
            let to = from + STOP_CHECK_BLOCK.min(end - from);
            let visitor = LeafVisitor {
                leaf: &self.leaf,
                acc,
            };
            match self.source.visit_range(from..to, visitor) {
                ControlFlow::Continue(next) => acc = next,
                ControlFlow::Break(done) => {
                    // The Break is somewhere in from..to, and no other piece overlaps this
                    // block: every piece starting after `to - 1` is to its right.
                    self.break_at.fetch_min(to - 1, Ordering::Relaxed);
                    self.stop_after.fetch_min(to - 1, Ordering::Relaxed);
                    return (Kind::Break, done);
                }
            }
            from = to;
        }
        (Kind::Continue, acc)
    }

    /// `run` of a range that is not a part of `0..len`.
    #[cold]
    #[inline(never)]
    fn bad_range(&self, start: usize, end: usize) -> Option<Piece<A>> {
        let len = self.len;
        self.record_bug(if start > end {
            format!("ran {start}..{end}, a range that ends before it starts (the job is 0..{len})")
        } else {
            format!("ran {start}..{end}, past the end of the job's 0..{len}")
        });
        let end = end.min(len);
        self.skipped(None, start.min(end), end)
    }

    /// `combine` of pieces covering `left` and `right` that are not neighbours, the left one
    /// first.
    #[cold]
    #[inline(never)]
    fn not_adjacent(&self, left: Range<usize>, right: Range<usize>, acc: A) -> Option<Piece<A>> {
        let how = if right.end <= left.start {
            "the right one first"
        } else if left.end < right.start {
            "with a gap between them"
        } else {
            "they overlap"
        };
        self.record_bug(format!(
            "combined non-adjacent partials {left:?} and {right:?} ({how}; the left one must end \
             where the right one starts)"
        ));
        let (start, end) = (left.start.min(right.start), left.end.max(right.end));
        self.skipped(Some(acc), start, end)
    }
}

impl<'a, S, L, I, C, A> Job<'a> for FoldJob<'_, S, L, I, C, A>
where
    S: Source,
    L: Leaf<A, S::Item>,
    I: Fn() -> A + Sync,
    C: Fn(A, A) -> A + Sync,
    A: Send + 'a,
{
    fn len(&self) -> usize {
        self.len
    }

    fn run(&self, range: Range<usize>) -> Partial<'a> {
        let Range { start, end } = range;
        if start > end || end > self.len {
            return self.wrap(self.bad_range(start, end));
        }
        if self.stopped(start) {
            return self.wrap(self.skipped(None, start, end));
        }
        let mut at = start;
        let piece =
            match panic::catch_unwind(AssertUnwindSafe(|| self.fold_range(start, end, &mut at))) {
                Ok((kind, acc)) => Some(Piece::new(kind, acc, start, end)),
                Err(payload) => {
                    self.record_panic(at, payload);
                    self.skipped(None, start, end)
                }
            };
        self.wrap(piece)
    }

    fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a> {
        let (Some(left), Some(right)) = (self.unwrap(left), self.unwrap(right)) else {
            // A lost piece absorbs its neighbours; the panic that lost it will be raised.
            return self.wrap(None);
        };
        let (left_kind, a, start, left_end) = (left.kind, left.acc, left.start, left.end);
        let (right_kind, b, right_start, end) = (right.kind, right.acc, right.start, right.end);
        let gap = left_end != right_start;
        if gap && !(left_end < right_start && self.stopped(left_end)) {
            return self.wrap(self.not_adjacent(start..left_end, right_start..end, a));
        }
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
                        return self.wrap(self.skipped(None, start, end));
                    }
                }
            }
        };
        self.wrap(Some(Piece::new(kind, acc, start, end)))
    }

    fn is_stopped(&self, from: usize) -> bool {
        self.stopped(from)
    }
}

fn drive<E, S, L, I, C, A>(
    executor: &E,
    source: S,
    leaf: L,
    init: I,
    combine: C,
) -> ControlFlow<A, A>
where
    E: Executor + ?Sized,
    S: Source,
    L: Leaf<A, S::Item>,
    I: Fn() -> A + Sync,
    C: Fn(A, A) -> A + Sync,
    A: Send,
{
    drive_cancellable(executor, source, leaf, init, combine, None)
        .expect("a fold without a cancel flag is never cancelled")
}

/// Runs a typed fold whose owner may cancel it by setting `cancel`; `None` when it was
/// cancelled before a result covering the whole range was made.
///
/// # Panics
/// With the payload of a panic in user code (see the module doc for which one, and when it is
/// discarded), or with "foldex: executor bug: ..." when the executor broke its contract.
pub(crate) fn drive_cancellable<E, S, L, I, C, A>(
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
    I: Fn() -> A + Sync,
    C: Fn(A, A) -> A + Sync,
    A: Send,
{
    let len = source.len();
    let job = FoldJob {
        source,
        leaf,
        init,
        combine,
        len,
        packed: len <= PACKED_MAX_LEN,
        packed_brand: Brand::new(),
        wide_brand: Brand::new(),
        break_at: AtomicUsize::new(usize::MAX),
        stop_after: AtomicUsize::new(usize::MAX),
        halted: AtomicBool::new(false),
        panics: LeftmostPanic::default(),
        bug: Mutex::new(None),
        cancel,
    };
    let partial = executor.execute(&job);
    let piece = job.unwrap(partial);
    let bug = job
        .bug
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    if let Some(bug) = bug {
        panic!("{bug}");
    }
    let leftmost_panic = job.panics.take();
    let Some(piece) = piece else {
        // Lost: `init` panicked where a skipped piece needed a stand-in, and that was recorded.
        let (_, payload) = leftmost_panic.expect("a lost piece follows a recorded panic");
        panic::resume_unwind(payload);
    };
    if piece.start != 0 || (piece.end != len && !job.stopped(piece.end)) {
        panic!(
            "foldex: executor bug: the result covers {}..{} of 0..{len} (every index must be \
             run once, and the partials combined into one)",
            piece.start, piece.end
        );
    }
    if let Some((at, payload)) = leftmost_panic {
        if at <= job.break_at.load(Ordering::Relaxed) {
            panic::resume_unwind(payload);
        }
        // Placed after a Break: the sequential fold never got there.
    }
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        // Pieces may have been skipped anywhere: whatever was combined is not the fold's result.
        return None;
    }
    match piece.kind {
        Kind::Continue => Some(ControlFlow::Continue(piece.acc)),
        Kind::Break => Some(ControlFlow::Break(piece.acc)),
        Kind::Skipped => panic!(
            "foldex: executor bug: the result for the whole range was skipped, with no Break, \
             panic or cancellation to its left"
        ),
    }
}

fn into_inner<A>(flow: ControlFlow<A, A>) -> A {
    match flow {
        ControlFlow::Continue(acc) | ControlFlow::Break(acc) => acc,
    }
}

/// The typed fold API, available on every [`Executor`] (`dyn Executor`, `Box<dyn Executor>` and
/// `Arc<dyn Executor>` included).
///
/// `init` must return an identity of `combine`, and `combine` must be associative; it need not
/// be commutative, since partial results are always combined left to right. Then every
/// executor returns what the sequential fold returns.
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
        S: Source,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, S::Item) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        into_inner(drive(self, source, PlainStep(step), init, combine))
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
        S: Source,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, S::Item) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        drive(self, source, TryStep(step), init, combine)
    }

    /// Calls `f` on every item.
    fn for_each<S, F>(&self, source: S, f: F)
    where
        S: Source,
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
        S: Source,
        R: Send,
        M: Fn(S::Item) -> R + Sync,
        I: Fn() -> R + Sync,
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
    fn sum<T>(&self, source: impl Source<Item: Summand<T>>) -> T
    where
        T: Send + Sum<T>,
    {
        let zero = || std::iter::empty::<T>().sum();
        let plus = |a: T, b: T| [a, b].into_iter().sum();
        into_inner(drive(self, source, SumStep, zero, plus))
    }

    /// The items in index order.
    ///
    /// ```
    /// use foldex_core::ExecutorExt;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!(SequentialEx.collect_vec(2..5), vec![2, 3, 4]);
    /// ```
    fn collect_vec<S>(&self, source: S) -> Vec<S::Item>
    where
        S: Source,
        S::Item: Send,
    {
        self.fold(
            source,
            Vec::new,
            |mut acc, item| {
                acc.push(item);
                acc
            },
            |mut left, mut right| {
                left.append(&mut right);
                left
            },
        )
    }
}

impl<E: Executor + ?Sized> ExecutorExt for E {}

#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::Packed;
    use std::mem::size_of;

    /// A one-word accumulator and its packed range fit the two words a `Partial` holds in place.
    #[test]
    fn one_word_accumulators_stay_in_two_words() {
        assert_eq!(size_of::<Packed<u64>>(), 16);
        assert_eq!(size_of::<Packed<f64>>(), 16);
        assert_eq!(size_of::<Packed<()>>(), 8);
        assert_eq!(size_of::<Packed<Option<&u8>>>(), 16);
    }
}
