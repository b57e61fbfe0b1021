//! How a leaf folds one block of items: the step kinds (plain, breaking, probed, summing) and
//! the probe that tells a long step its block no longer matters.

use crate::source::RangeVisitor;
use std::iter::Sum;
use std::ops::ControlFlow;

/// Folds one block of items, in order, into an accumulator; `probe` says whether the block
/// still matters, for steps that spend long on one item.
pub trait Leaf<A, Item>: Sync {
    fn fold<I: Iterator<Item = Item>>(
        &self,
        acc: A,
        items: I,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>;
}

/// Tells a step that runs long on one item (the inner loop of a `flat_map`) whether the fold
/// still needs the block it works on: `true` once a `Break` or a panic to its left, a cancelled
/// fold or an executor bug made the block irrelevant. The step may then return `Break` at once;
/// that changes nothing in the result, since a stopped block never reaches it.
///
/// ```
/// use foldex_core::ExecutorExt;
/// use foldex_seq::SequentialEx;
/// use std::ops::ControlFlow::{Break, Continue};
/// // Each item expands into a long loop that gives up as soon as the fold no longer needs it.
/// let r = SequentialEx.try_fold_probed(
///     0..4usize,
///     || 0,
///     |acc, i, probe| {
///         let mut acc = acc;
///         for j in 0..1000 {
///             if j % 64 == 0 && probe.is_stopped() {
///                 return Break(acc);
///             }
///             acc += i * j;
///         }
///         Continue(acc)
///     },
///     |a, b| a + b,
/// );
/// assert_eq!(r, Continue((0..4).map(|i| i * 499_500).sum()));
/// ```
pub struct StopProbe<'p>(pub(crate) &'p (dyn Fn() -> bool + 'p));

impl StopProbe<'_> {
    /// A probe that never reports a stop.
    pub const NEVER: StopProbe<'static> = StopProbe(&|| false);

    /// `true` once nothing from the current block on can change the fold's result.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for StopProbe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StopProbe")
            .field("stopped", &self.is_stopped())
            .finish()
    }
}

/// A step that cannot stop early: folds with `Iterator::fold`, which vectorises best.
pub(crate) struct PlainStep<F>(pub(crate) F);

impl<A, Item, F: Fn(A, Item) -> A + Sync> Leaf<A, Item> for PlainStep<F> {
    fn fold<I: Iterator<Item = Item>>(&self, acc: A, items: I, _: &StopProbe) -> ControlFlow<A, A> {
        ControlFlow::Continue(items.fold(acc, &self.0))
    }
}

/// A step that may return `Break`.
pub(crate) struct TryStep<F>(pub(crate) F);

impl<A, Item, F: Fn(A, Item) -> ControlFlow<A, A> + Sync> Leaf<A, Item> for TryStep<F> {
    fn fold<I: Iterator<Item = Item>>(
        &self,
        acc: A,
        mut items: I,
        _: &StopProbe,
    ) -> ControlFlow<A, A> {
        items.try_fold(acc, &self.0)
    }
}

/// A step that may return `Break`, and is given the block's [`StopProbe`].
pub(super) struct ProbedStep<F>(pub(super) F);

impl<A, Item, F> Leaf<A, Item> for ProbedStep<F>
where
    F: Fn(A, Item, &StopProbe) -> ControlFlow<A, A> + Sync,
{
    fn fold<I: Iterator<Item = Item>>(
        &self,
        acc: A,
        mut items: I,
        probe: &StopProbe,
    ) -> ControlFlow<A, A> {
        items.try_fold(acc, |acc, item| (self.0)(acc, item, probe))
    }
}

/// An item that can be summed into a `T` (any `Item` for which `T: Sum<Item>`); the bound of
/// [`ExecutorExt::sum`](crate::ExecutorExt::sum), so that the sum's type is the only one a caller names.
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
pub(super) struct SumStep;

impl<T: Sum<T>, Item: Summand<T>> Leaf<T, Item> for SumStep {
    fn fold<I: Iterator<Item = Item>>(&self, acc: T, items: I, _: &StopProbe) -> ControlFlow<T, T> {
        let block = Item::sum_into(items);
        ControlFlow::Continue([acc, block].into_iter().sum())
    }
}

pub(super) struct LeafVisitor<'l, L, A> {
    pub(super) leaf: &'l L,
    pub(super) acc: A,
    pub(super) probe: &'l StopProbe<'l>,
}

impl<A, Item, L: Leaf<A, Item>> RangeVisitor<Item> for LeafVisitor<'_, L, A> {
    type Output = ControlFlow<A, A>;
    fn visit<I: Iterator<Item = Item>>(self, items: I) -> ControlFlow<A, A> {
        self.leaf.fold(self.acc, items, self.probe)
    }
}
