//! `flat_map_pipe` and `flatten_pipe`: rayon's `flat_map` and `flatten` to *parallel* inner
//! iterators, whose inner sequences are foldex pipelines over an indexable source, so that a
//! search walks each inner pipeline from whichever end it searches from.
//!
//! A pipeline's parallelism is over its source's items: the [`Transform`] protocol hands a
//! stage one item and the fold's [`StopProbe`], not the executor. So each inner pipeline runs
//! sequentially, inside the piece that holds its outer item, as one fold of its own: its
//! stages start with [`Transform::front`] (nothing precedes its first item), its items are
//! read in index order (`find_first`, `collect`, every fold) or, in a search from the right
//! ([`crate::from_right`]), from its last item through [`Transform::find_back`], stopping at
//! the first match. The stop probe of the outer fold is looked at every
//! [`INNER_CHECK`](crate::transform::INNER_CHECK) inner items, as `flat_map` does.
//!
//! What differs from `flat_map` over a `std` iterator is only the way back: the items, their
//! order and every closure's effects in a forward run are those of
//! `Iterator::flat_map(|x| f(x).into_iter())` over the inner pipeline's items.

use crate::indexed::{ByRef, Rev};
use crate::pipeline::Pipeline;
use crate::stage::{Append, Transform};
use crate::stages::INNER_CHECK;
use crate::streamed::PipeSource;
use foldex_core::source::RangeVisitor;
use foldex_core::{Source, StopProbe};
use std::cell::Cell;
use std::ops::ControlFlow;

mod sealed {
    /// Keeps [`InnerPipe`](super::InnerPipe) to the crate's pipelines.
    pub trait Sealed {}
}

/// An inner sequence of [`flat_map_pipe`](Pipeline::flat_map_pipe): a pipeline over an
/// indexable source (a range of at most `usize::MAX` items, a slice, a `Vec`, their
/// index-preserving adapters), with any stages. Implemented by the crate for every such
/// [`Pipeline`]; named in bounds.
pub trait InnerPipe: sealed::Sealed {
    /// What the inner pipeline passes on.
    type Item;

    /// Passes the pipeline's items on to `sink` in order, looking at the outer fold's `probe`
    /// every [`INNER_CHECK`] items: `Break(acc)` where `sink` stops or the block is no longer
    /// needed. A stage of the inner pipeline that stops (`take_while`) ends only this inner
    /// run.
    #[doc(hidden)]
    fn walk<A, K>(&self, acc: A, sink: &mut K, probe: &StopProbe) -> ControlFlow<A, A>
    where
        K: FnMut(A, Self::Item) -> ControlFlow<A, A>;

    /// `found`'s answer for the last item it answers `Some` for, searched from the last item
    /// where the inner stages map each item alone ([`Transform::PER_ITEM`]), else in order;
    /// `Break(())` once the block is no longer needed.
    #[doc(hidden)]
    fn find_back<R, G>(&self, found: &mut G, probe: &StopProbe) -> ControlFlow<(), Option<R>>
    where
        G: FnMut(Self::Item) -> ControlFlow<(), Option<R>>;
}

impl<S: Source, X: Transform<S::Item>, K> sealed::Sealed for Pipeline<S, X, K> {}

impl<S: Source, X: Transform<S::Item>, K> InnerPipe for Pipeline<S, X, K> {
    type Item = X::Out;

    fn walk<A, Snk>(&self, acc: A, sink: &mut Snk, probe: &StopProbe) -> ControlFlow<A, A>
    where
        Snk: FnMut(A, X::Out) -> ControlFlow<A, A>,
    {
        start_fold(&self.source);
        let mut state = self.transform.front();
        // Whether what comes after this inner run stopped it (not a stage of its own).
        let outer = Cell::new(false);
        let mut pass = |acc, out| {
            let next = sink(acc, out);
            if next.is_break() {
                outer.set(true);
            }
            next
        };
        let walk = Walk {
            acc,
            stages: &self.transform,
            state: &mut state,
            pass: &mut pass,
            probe,
        };
        match self.source.visit_range(0..self.source.len(), walk) {
            ControlFlow::Break(acc) if outer.get() || probe.is_stopped() => ControlFlow::Break(acc),
            ControlFlow::Break(acc) | ControlFlow::Continue(acc) => match self.transform.merges() {
                true => self.transform.finish(state, acc, &mut pass),
                false => ControlFlow::Continue(acc),
            },
        }
    }

    fn find_back<R, G>(&self, found: &mut G, probe: &StopProbe) -> ControlFlow<(), Option<R>>
    where
        G: FnMut(X::Out) -> ControlFlow<(), Option<R>>,
    {
        if !X::PER_ITEM {
            // Stages with state or a stop decide an item by what precedes it: run in order.
            let mut last = None;
            let mut note = |(), out| {
                if let Some(hit) = found(out)? {
                    last = Some(hit);
                }
                ControlFlow::Continue(())
            };
            self.walk((), &mut note, probe)?;
            return ControlFlow::Continue(last);
        }
        start_fold(&self.source);
        let search = Search {
            stages: &self.transform,
            state: &mut self.transform.start(),
            found,
            probe,
        };
        Rev(ByRef(&self.source)).visit_range(0..self.source.len(), search)
    }
}

/// Accepts the fold of an inner source, as every fold over a [`Source`] does: one that hands
/// its items out once serves one fold, and the second panics naming it.
fn start_fold<S: Source>(source: &S) {
    if let Err(spent) = source.start_fold() {
        panic!("{spent}");
    }
}

/// One inner run in order: each item through the inner stages to `pass`.
struct Walk<'w, X: Transform<In>, In, A, P> {
    acc: A,
    stages: &'w X,
    state: &'w mut X::State,
    pass: &'w mut P,
    probe: &'w StopProbe<'w>,
}

impl<In, X, A, P> RangeVisitor<In> for Walk<'_, X, In, A, P>
where
    X: Transform<In>,
    P: FnMut(A, X::Out) -> ControlFlow<A, A>,
{
    type Output = ControlFlow<A, A>;

    fn visit<I: Iterator<Item = In>>(self, items: I) -> ControlFlow<A, A> {
        let Walk {
            acc,
            stages,
            state,
            pass,
            probe,
        } = self;
        crate::stages::inner_try_fold(
            items,
            acc,
            |acc, item| stages.step(state, acc, item, pass, probe),
            probe,
        )
    }
}

/// One inner search from the last item: the first answer met is the last one in order.
struct Search<'w, X: Transform<In>, In, G> {
    stages: &'w X,
    state: &'w mut X::State,
    found: &'w mut G,
    probe: &'w StopProbe<'w>,
}

impl<In, X, R, G> RangeVisitor<In> for Search<'_, X, In, G>
where
    X: Transform<In>,
    G: FnMut(X::Out) -> ControlFlow<(), Option<R>>,
{
    type Output = ControlFlow<(), Option<R>>;

    fn visit<I: Iterator<Item = In>>(self, items: I) -> ControlFlow<(), Option<R>> {
        let mut until_check = INNER_CHECK;
        for item in items {
            until_check -= 1;
            if until_check == 0 {
                until_check = INNER_CHECK;
                if self.probe.is_stopped() {
                    return ControlFlow::Break(());
                }
            }
            if let Some(hit) = self
                .stages
                .find_back(self.state, item, self.found, self.probe)?
            {
                return ControlFlow::Continue(Some(hit));
            }
        }
        ControlFlow::Continue(None)
    }
}

/// Passes on every item of the inner pipeline each item maps to, in order: the stage of
/// [`flat_map_pipe`](Pipeline::flat_map_pipe) and [`flatten_pipe`](Pipeline::flatten_pipe).
/// It maps each item alone ([`Transform::PER_ITEM`]), and searches an inner pipeline from its
/// last item in a search from the right ([`Transform::find_back`]).
#[derive(Clone, Copy)]
pub struct FlatMapPipe<F>(pub(crate) F);

/// The stage's name, without its closure (as rayon prints its adapters).
impl<F> std::fmt::Debug for FlatMapPipe<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlatMapPipe").finish_non_exhaustive()
    }
}

impl<In, F, P> Transform<In> for FlatMapPipe<F>
where
    F: Fn(In) -> P + Sync,
    P: InnerPipe,
{
    type Out = P::Item;
    type State = ();
    const PER_ITEM: bool = true;

    #[inline]
    fn start(&self) {}

    #[inline]
    fn step<A, K>(
        &self,
        _: &mut (),
        acc: A,
        item: In,
        sink: &mut K,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, P::Item) -> ControlFlow<A, A>,
    {
        (self.0)(item).walk(acc, sink, probe)
    }

    #[inline]
    fn find_back<R, G>(
        &self,
        _: &mut (),
        item: In,
        found: &mut G,
        probe: &StopProbe,
    ) -> ControlFlow<(), Option<R>>
    where
        G: FnMut(P::Item) -> ControlFlow<(), Option<R>>,
    {
        (self.0)(item).find_back(found, probe)
    }
}

/// The function of `flatten_pipe`: each item is its own inner pipeline.
type Itself<T> = fn(T) -> T;

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Replaces each item with the items of the pipeline `f` makes of it, in order: rayon's
    /// `flat_map` to a parallel iterator, where foldex's [`flat_map`](Pipeline::flat_map)
    /// (rayon's `flat_map_iter`) takes a `std` iterator. The inner pipeline is over an
    /// indexable source ([`InnerPipe`]: a range, slice or `Vec` with `.pipe()`, and any adapters
    /// and stages after it).
    ///
    /// Each inner pipeline runs sequentially inside the piece that holds its item, as a fold
    /// of its own that looks at the run's stop every
    /// [`INNER_CHECK`](crate::transform::INNER_CHECK) inner items: a stage is handed no
    /// executor, so one item's sequence is not split across workers (the parallelism is over
    /// this pipeline's items). A forward run gives what `flat_map` over the inner items gives;
    /// a search from the right (`find_last`, `find_map_last`) walks each inner pipeline from
    /// its last item and stops at the match, so it returns at once where one item becomes
    /// 10^18 items.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let ex = ThreadedEx::new();
    /// let tens = (1..4u64).pipe().flat_map_pipe(|n| (0..n).pipe().map(move |k| n * 10 + k));
    /// assert_eq!(tens.collect::<Vec<_>>(&ex), [10, 20, 21, 30, 31, 32]);
    /// // One item becomes 10^18 items; the search from the right visits one of them.
    /// let big = 1_000_000_000_000_000_000u64;
    /// let huge = (0..4u64).pipe().flat_map_pipe(|i| (0..big).pipe().map(move |j| (i, j)));
    /// assert_eq!(huge.find_last(&ex, |_| true), Some((3, big - 1)));
    /// ```
    #[doc(alias = "flat_map")]
    pub fn flat_map_pipe<P, F>(self, f: F) -> Pipeline<S, X::Output, K>
    where
        F: Fn(X::Out) -> P + Sync,
        P: InnerPipe,
        X: Append<FlatMapPipe<F>>,
    {
        self.then(FlatMapPipe(f))
    }

    /// Replaces each item, itself a pipeline over an indexable source ([`InnerPipe`]), with its
    /// items in order: rayon's `flatten` of parallel iterators, run as
    /// [`flat_map_pipe`](Pipeline::flat_map_pipe) runs its inner pipelines.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let rows = [vec![1, 2], vec![], vec![3]];
    /// let rows = rows.pipe().map(|row| row.pipe().copied());
    /// assert_eq!(rows.flatten_pipe().find_last(&SequentialEx, |x| x % 2 == 0), Some(2));
    /// ```
    pub fn flatten_pipe(self) -> Pipeline<S, X::Output, K>
    where
        X::Out: InnerPipe,
        X: Append<FlatMapPipe<Itself<X::Out>>>,
    {
        self.then(FlatMapPipe(std::convert::identity as Itself<X::Out>))
    }
}
