//! The typed fold API, and the job it builds for executors.
//!
//! Everything an executor author should not have to think about lives here: the types, panic
//! capture, and the early-termination rule.

use crate::erased::{Brand, Partial};
use crate::executor::{Executor, Job};
use crate::panic::PanicSlot;
use crate::source::{RangeVisitor, Source};
use std::iter::Sum;
use std::ops::{ControlFlow, Range};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How many items a leaf folds between two checks for a stop (an early `Break` to its left, or
/// a panic anywhere). Large enough that the check costs nothing next to the fold, small enough
/// that a stop is seen within microseconds.
const STOP_CHECK_BLOCK: usize = 4096;

/// The partial result the typed layer passes through executors.
enum State<A> {
    Continue(A),
    /// A `step` returned `Break` inside this piece; everything to its right is irrelevant.
    Break(A),
    /// Not run (or abandoned) because a `Break` to its left or a panic made it irrelevant.
    Skipped,
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
    brand: Brand<State<A>>,
    /// The smallest index known to be at or after a `Break` (`usize::MAX`: none yet).
    break_at: AtomicUsize,
    panic: PanicSlot,
    /// Set by the owner of a non-blocking fold ([`FoldHandle`](crate::FoldHandle)) that gave
    /// up on the result: every index counts as stopped, so executors stop scheduling and
    /// running pieces as they would after an early `Break` at index 0.
    cancel: Option<&'c AtomicBool>,
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
        self.source.len()
    }

    fn run(&self, range: Range<usize>) -> Partial<'a> {
        if self.is_stopped(range.start) {
            return self.brand.wrap(State::Skipped);
        }
        let state = self.panic.catch(|| {
            let mut acc = (self.init)();
            let mut start = range.start;
            while start < range.end {
                if start != range.start && self.is_stopped(start) {
                    return State::Skipped;
                }
                let end = start + STOP_CHECK_BLOCK.min(range.end - start);
                let visitor = LeafVisitor {
                    leaf: &self.leaf,
                    acc,
                };
                match self.source.visit_range(start..end, visitor) {
                    ControlFlow::Continue(next) => acc = next,
                    ControlFlow::Break(done) => {
                        // The Break is somewhere in start..end, and no other piece overlaps
                        // this block: every piece starting after `end - 1` is to its right.
                        self.break_at.fetch_min(end - 1, Ordering::Relaxed);
                        return State::Break(done);
                    }
                }
                start = end;
            }
            State::Continue(acc)
        });
        self.brand.wrap(state.unwrap_or(State::Skipped))
    }

    fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a> {
        let left = self.brand.unwrap(left);
        let right = self.brand.unwrap(right);
        let state = match (left, right) {
            // A left Break wins: nothing to its right matters.
            (State::Break(a), _) => State::Break(a),
            (State::Skipped, _) | (State::Continue(_), State::Skipped) => State::Skipped,
            (State::Continue(_), _) if self.panic.has_panicked() => State::Skipped,
            (State::Continue(a), State::Continue(b)) => self
                .panic
                .catch(|| State::Continue((self.combine)(a, b)))
                .unwrap_or(State::Skipped),
            (State::Continue(a), State::Break(b)) => self
                .panic
                .catch(|| State::Break((self.combine)(a, b)))
                .unwrap_or(State::Skipped),
        };
        self.brand.wrap(state)
    }

    fn is_stopped(&self, from: usize) -> bool {
        from > self.break_at.load(Ordering::Relaxed)
            || self.panic.has_panicked()
            || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
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
    let job = FoldJob {
        source,
        leaf,
        init,
        combine,
        brand: Brand::new(),
        break_at: AtomicUsize::new(usize::MAX),
        panic: PanicSlot::new(),
        cancel,
    };
    let partial = executor.execute(&job);
    let state = job.brand.unwrap(partial);
    job.panic.resume();
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        // Pieces may have been skipped anywhere: whatever was combined is not the fold's result.
        return None;
    }
    match state {
        State::Continue(acc) => Some(ControlFlow::Continue(acc)),
        State::Break(acc) => Some(ControlFlow::Break(acc)),
        State::Skipped => panic!(
            "foldex: the executor returned a skipped partial for the whole range \
             (it combined pieces out of order or dropped one)"
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
/// started, the original payload is re-raised here.
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
    /// `Break(combine(left, b))`.
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
