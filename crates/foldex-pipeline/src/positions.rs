//! `positions`: the indices of the items for which a predicate holds, in order (rayon's
//! `positions`; `std`'s `enumerate().filter(..).map(|(i, _)| i)`).
//!
//! On an indexable pipeline an item's index is known where it is read (`enumerate`). After a
//! stage that changes the number of items, an index is the number of items before it, which a
//! piece right of the run's first item does not know: such a piece counts its own items and
//! holds the positions it found, relative to its start, until it is joined to the pieces on its
//! left (the boundary protocol of [`crate::stateful`], as `position_first` joins its counts).
//! The piece at the run's front passes positions on at once.

use crate::indexed::Enumerate;
use crate::pipeline::Pipeline;
use crate::stage::{Id, Route, Then, Transform, Xf};
use crate::streamed::PipeSource;
use foldex_core::{Source, StopProbe};
use std::ops::ControlFlow;

/// `positions` of an indexable pipeline: the index of each `(index, item)` for whose item
/// the predicate holds.
#[derive(Debug, Clone, Copy)]
pub struct IndexedPositions<P>(P);

impl<T, P: Fn(T) -> bool + Sync> Transform<(usize, T)> for IndexedPositions<P> {
    type Out = usize;
    type State = ();

    #[inline]
    fn start(&self) {}

    #[inline]
    fn step<A, K>(
        &self,
        _: &mut (),
        acc: A,
        (index, item): (usize, T),
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, usize) -> ControlFlow<A, A>,
    {
        match (self.0)(item) {
            true => sink(acc, index),
            false => ControlFlow::Continue(acc),
        }
    }
}

/// `positions` after a stage that changed the number of items: counts the items of a piece,
/// holding the positions found until the piece knows where it starts.
#[derive(Debug, Clone, Copy)]
pub struct Positions<P>(P);

/// The state of [`Positions`] for one piece.
#[derive(Debug)]
pub struct PositionsState {
    /// The piece begins at the run's first item: its positions are passed on at once.
    front: bool,
    /// The items the piece has seen.
    seen: usize,
    /// The positions found, counted from the piece's start (none in a front state).
    held: Vec<usize>,
}

impl PositionsState {
    fn new(front: bool) -> Self {
        Self {
            front,
            seen: 0,
            held: Vec::new(),
        }
    }
}

impl<In, P: Fn(In) -> bool + Sync> Transform<In> for Positions<P> {
    type Out = usize;
    type State = PositionsState;

    const MERGES: bool = true;

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.merging()
    }

    fn start(&self) -> PositionsState {
        PositionsState::new(false)
    }

    fn front(&self) -> PositionsState {
        PositionsState::new(true)
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut PositionsState,
        acc: A,
        item: In,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, usize) -> ControlFlow<A, A>,
    {
        let at = state.seen;
        state.seen += 1;
        if !(self.0)(item) {
            return ControlFlow::Continue(acc);
        }
        if state.front {
            return sink(acc, at);
        }
        state.held.push(at);
        ControlFlow::Continue(acc)
    }

    fn merge<A, K>(
        &self,
        left: &mut PositionsState,
        right: PositionsState,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, usize) -> ControlFlow<A, A>,
    {
        let offset = left.seen;
        left.seen += right.seen;
        let mut found = right.held.into_iter().map(|at| offset + at);
        if left.front {
            found.try_fold(acc, sink)
        } else {
            left.held.extend(found);
            ControlFlow::Continue(acc)
        }
    }
}

impl<S: Source, K> Pipeline<S, Id, K> {
    /// The indices of the items for which `pred` holds, in order (rayon's `positions`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let at: Vec<usize> = [3, 8, 5, 8].pipe().positions(|&x| x == 8).collect(&ThreadedEx::new());
    /// assert_eq!(at, [1, 3]);
    /// ```
    pub fn positions<P>(self, pred: P) -> Pipeline<Enumerate<S>, Xf<IndexedPositions<P>>, K>
    where
        P: Fn(S::Item) -> bool + Sync,
    {
        self.enumerate().then(IndexedPositions(pred))
    }
}

impl<S: PipeSource, T: Transform<S::Item>, K> Pipeline<S, Xf<T>, K> {
    /// The positions, among this pipeline's items, of those for which `pred` holds, in order
    /// (rayon's `positions`). A piece right of the run's first one holds the positions it
    /// finds until it is joined to the pieces on its left (module [`crate::stateful`]).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let odd = (0..20).pipe().filter(|x| x % 2 == 1);
    /// let at: Vec<usize> = odd.positions(|x| x % 3 == 0).collect(&ThreadedEx::new());
    /// assert_eq!(at, [1, 4, 7]);
    /// ```
    pub fn positions<P>(self, pred: P) -> Pipeline<S, Xf<Then<T, Positions<P>>>, K>
    where
        P: Fn(T::Out) -> bool + Sync,
    {
        self.then(Positions(pred))
    }
}
