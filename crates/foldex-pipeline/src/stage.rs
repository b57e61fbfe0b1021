//! The transform stages and their protocol; re-exported, with the stages other files define, as
//! [`crate::transform`].

use foldex_core::StopProbe;
use std::marker::PhantomData;
use std::ops::ControlFlow;

/// A stage of a pipeline between its source and its reduction: it receives each item of type
/// `In` and passes zero or more items of type [`Transform::Out`] on to `sink`.
///
/// The pipeline's methods build these; a user names them only in bounds.
pub trait Transform<In>: Sync {
    /// What the stage passes on.
    type Out;
    /// Per-piece state, made by [`Transform::start`] (or [`Transform::front`]) when a piece
    /// begins.
    type State: Send;

    /// Whether every item becomes exactly one item, in order, with no state: then
    /// [`Transform::one_to_one`] gives it, and the pipeline stays indexable (a `Vec` is
    /// collected in place).
    const ONE_TO_ONE: bool = false;

    /// Whether a stage of this type may stop the fold with `Break` (then the fold checks for
    /// it). A constant, so that a pipeline compiles only the fold it runs.
    const BREAKS: bool = false;

    /// Whether a stage of this type may hold items back at a piece's left edge until it knows
    /// what precedes them (`dedup`, `unique`, `skip_while`): then pieces begin with
    /// [`Transform::front`] or [`Transform::start`], and adjacent pieces are joined with
    /// [`Transform::merge`]. The boundary protocol is explained in [`crate::stateful`].
    const MERGES: bool = false;

    /// Whether what one item becomes depends on that item alone, with no state and no stop
    /// (`map`, `filter`, `filter_map`, `flat_map`, `flat_map_pipe`, `inspect`): then a search
    /// from the right (`find_last`) may visit the items in reverse, search each item's outputs
    /// with [`find_back`](Transform::find_back), and stop at the last match.
    const PER_ITEM: bool = false;

    /// Whether this stage may stop the fold: [`BREAKS`](Transform::BREAKS), unless the type
    /// says so only as a maybe (a [`Boxed`](crate::boxed::Boxed) chain asks the chain it erases).
    #[inline]
    fn breaks(&self) -> bool {
        Self::BREAKS
    }

    /// Whether this stage holds items at a piece's edge: [`MERGES`](Transform::MERGES),
    /// unless the type says so only as a maybe (a [`Boxed`](crate::boxed::Boxed) chain asks the chain it erases).
    #[inline]
    fn merges(&self) -> bool {
        Self::MERGES
    }

    /// Hands `route` the fold that a run through this stage needs: plain, one that tells a
    /// stage's stop from the caller's `Break`, or one that joins held items. A choice by type,
    /// not by a branch on [`BREAKS`](Transform::BREAKS) and [`MERGES`](Transform::MERGES):
    /// the folds a chain cannot need are then never compiled for it. Stages that may stop
    /// answer `route.stopping()`, stages that hold items `route.merging()`, stages that pass
    /// items on only at joins and at the end `route.joining()`.
    #[doc(hidden)]
    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.plain()
    }

    /// The state for a new piece, which items may precede.
    fn start(&self) -> Self::State;

    /// The state for the piece that begins at the run's first item: nothing precedes it, so a
    /// stage that [`merges`](Transform::merges) decides every item at once and holds none back.
    #[inline]
    fn front(&self) -> Self::State {
        self.start()
    }

    /// What `item` becomes, for a stage that is [`ONE_TO_ONE`](Transform::ONE_TO_ONE);
    /// `None` for any other.
    #[inline]
    fn one_to_one(&self, item: In) -> Option<Self::Out> {
        drop(item);
        None
    }

    /// Joins `right`, the state of the piece just right of `left`'s, into `left`: each item
    /// `right` held back is either passed on to `sink` (into the left piece's accumulator,
    /// after its items) or dropped, or kept held in `left`. Into a [`front`](Transform::front)
    /// state, every held item is decided, and `left` stays a front state.
    #[inline]
    fn merge<A, K>(
        &self,
        left: &mut Self::State,
        right: Self::State,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, Self::Out) -> ControlFlow<A, A>,
    {
        let _ = (left, sink);
        drop(right);
        ControlFlow::Continue(acc)
    }

    /// Ends the run for `state`, the state of the whole run once every piece is joined (a
    /// [`merges`](Transform::merges) stage only; other runs never call it): a stage that
    /// passes items on only at a piece's end (`fold_pieces`) passes its last ones to `sink`.
    /// Called unless the reduction's `step` stopped the run; after a stage's stop
    /// (`take_while`), a chain ends only the stages after the one that stopped ([`Then`]).
    #[inline]
    fn finish<A, K>(&self, state: Self::State, acc: A, sink: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, Self::Out) -> ControlFlow<A, A>,
    {
        let _ = sink;
        drop(state);
        ControlFlow::Continue(acc)
    }

    /// Passes what `item` becomes on to `sink`, or stops the fold with `Break(acc)`. A stage
    /// that loops long over one item checks `probe` now and then, and returns `Break(acc)` once
    /// the fold no longer needs the block.
    fn step<A, K>(
        &self,
        state: &mut Self::State,
        acc: A,
        item: In,
        sink: &mut K,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, Self::Out) -> ControlFlow<A, A>;

    /// For a [`PER_ITEM`](Transform::PER_ITEM) stage: `found`'s answer for the last of what
    /// `item` becomes that it answers `Some` for, or `Break(())` once `probe` (or `found`) says
    /// the block is no longer needed. A stage that can look at its outputs from the last
    /// ([`FlatMapPipe`](crate::transform::FlatMapPipe)) stops at the first answer from the
    /// right; the default runs [`step`](Transform::step) and keeps the last answer. A
    /// search from the right ([`find_last`](crate::Pipeline::find_last)) asks it of each item.
    #[inline]
    fn find_back<R, G>(
        &self,
        state: &mut Self::State,
        item: In,
        found: &mut G,
        probe: &StopProbe,
    ) -> ControlFlow<(), Option<R>>
    where
        G: FnMut(Self::Out) -> ControlFlow<(), Option<R>>,
    {
        let mut last = None;
        let mut note = |(), out| {
            if let Some(hit) = found(out)? {
                last = Some(hit);
            }
            ControlFlow::Continue(())
        };
        self.step(state, (), item, &mut note, probe)?;
        ControlFlow::Continue(last)
    }
}

/// The folds a run may need, one of which [`Transform::route`] picks.
#[doc(hidden)]
pub trait Route<R> {
    /// No stage stops the fold or holds items.
    fn plain(self) -> R;
    /// A stage may stop the fold; none holds items.
    fn stopping(self) -> R;
    /// A stage holds items at a piece's edge.
    fn merging(self) -> R;
    /// A stage passes items on when pieces are joined and when the run ends
    /// ([`Transform::merge`], [`Transform::finish`]), but decides every item where it is read,
    /// without knowing what precedes its piece (`fold_pieces`, `intersperse`); none stops the
    /// fold. A route that cannot tell it apart takes the one for stages that hold items.
    fn joining(self) -> R
    where
        Self: Sized,
    {
        self.merging()
    }
}

/// The route of [`Then`] once its first stage has answered: the second stage decides what
/// the first one left open.
struct Second<'u, U, P, Mid> {
    second: &'u U,
    route: P,
    mid: PhantomData<fn(Mid)>,
}

impl<R, Mid, U: Transform<Mid>, P: Route<R>> Route<R> for Second<'_, U, P, Mid> {
    fn plain(self) -> R {
        self.second.route(self.route)
    }

    fn stopping(self) -> R {
        self.second.route(AtLeastStopping(self.route))
    }

    fn merging(self) -> R {
        self.route.merging()
    }

    fn joining(self) -> R {
        self.second.route(AtLeastJoining(self.route))
    }
}

/// A route on which a stage already may stop: plain becomes stopping.
struct AtLeastStopping<P>(P);

impl<R, P: Route<R>> Route<R> for AtLeastStopping<P> {
    fn plain(self) -> R {
        self.0.stopping()
    }

    fn stopping(self) -> R {
        self.0.stopping()
    }

    fn merging(self) -> R {
        self.0.merging()
    }

    fn joining(self) -> R {
        // A stage that stops before one that joins: the joins must know where it stopped.
        self.0.merging()
    }
}

/// A route on which a stage already joins pieces: plain becomes joining, and a stage that
/// stops (the joins must know where) or holds items makes it merging.
struct AtLeastJoining<P>(P);

impl<R, P: Route<R>> Route<R> for AtLeastJoining<P> {
    fn plain(self) -> R {
        self.0.joining()
    }

    fn stopping(self) -> R {
        self.0.merging()
    }

    fn merging(self) -> R {
        self.0.merging()
    }

    fn joining(self) -> R {
        self.0.joining()
    }
}

/// The empty stage: every item passes unchanged. A pipeline with it is still indexable, so
/// index-preserving adapters (`enumerate`, `zip`, ...) apply to its source.
#[derive(Debug, Clone, Copy, Default)]
pub struct Id;

impl<In> Transform<In> for Id {
    type Out = In;
    type State = ();
    const ONE_TO_ONE: bool = true;
    const PER_ITEM: bool = true;

    #[inline]
    fn start(&self) {}

    #[inline]
    fn one_to_one(&self, item: In) -> Option<In> {
        Some(item)
    }

    #[inline]
    fn step<A, K>(
        &self,
        _: &mut (),
        acc: A,
        item: In,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        sink(acc, item)
    }
}

/// One or more stages that may change the number of items (a pipeline past `filter` and the
/// like, no longer indexable).
#[derive(Debug, Clone, Copy)]
pub struct Xf<T>(pub(crate) T);

impl<In, T: Transform<In>> Transform<In> for Xf<T> {
    type Out = T::Out;
    type State = T::State;
    const BREAKS: bool = T::BREAKS;
    const MERGES: bool = T::MERGES;
    const PER_ITEM: bool = T::PER_ITEM;

    #[inline]
    fn breaks(&self) -> bool {
        self.0.breaks()
    }

    #[inline]
    fn merges(&self) -> bool {
        self.0.merges()
    }

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        self.0.route(route)
    }

    #[inline]
    fn start(&self) -> T::State {
        self.0.start()
    }

    #[inline]
    fn front(&self) -> T::State {
        self.0.front()
    }

    #[inline]
    fn merge<A, K>(
        &self,
        left: &mut T::State,
        right: T::State,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, T::Out) -> ControlFlow<A, A>,
    {
        self.0.merge(left, right, acc, sink)
    }

    #[inline]
    fn finish<A, K>(&self, state: T::State, acc: A, sink: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, T::Out) -> ControlFlow<A, A>,
    {
        self.0.finish(state, acc, sink)
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut T::State,
        acc: A,
        item: In,
        sink: &mut K,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, T::Out) -> ControlFlow<A, A>,
    {
        self.0.step(state, acc, item, sink, probe)
    }

    #[inline]
    fn find_back<R, G>(
        &self,
        state: &mut T::State,
        item: In,
        found: &mut G,
        probe: &StopProbe,
    ) -> ControlFlow<(), Option<R>>
    where
        G: FnMut(T::Out) -> ControlFlow<(), Option<R>>,
    {
        self.0.find_back(state, item, found, probe)
    }
}

/// Adds a stage after the ones a pipeline has.
pub trait Append<U> {
    /// The stages with `U` at the end.
    type Output;
    /// `self`, then `next`.
    fn append(self, next: U) -> Self::Output;
}

impl<U> Append<U> for Id {
    type Output = Xf<U>;
    fn append(self, next: U) -> Xf<U> {
        Xf(next)
    }
}

impl<T, U> Append<U> for Xf<T> {
    type Output = Xf<Then<T, U>>;
    fn append(self, next: U) -> Xf<Then<T, U>> {
        Xf(Then(self.0, next))
    }
}

/// Two stages, the first one's output going to the second.
///
/// A chain that may both stop the run and hold items at a piece's edge
/// ([`BREAKS`](Transform::BREAKS) and [`MERGES`](Transform::MERGES)) records in its state which
/// side stopped ([`StopAt`]), in `step` and in `merge`, and a join carries the right piece's
/// record to the left. At the run's end, [`finish`](Transform::finish) then ends only the
/// stages after the stop: `take_while(p).fold_pieces(..)` passes on the accumulator of the
/// items before the stop, and `fold_pieces(..).take_while(p)` passes nothing more through the
/// `take_while` that stopped.
#[derive(Debug, Clone, Copy)]
pub struct Then<T, U>(pub(crate) T, pub(crate) U);

/// Which side of a [`Then`] stopped the run, as far as a piece knows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StopAt {
    /// Neither side has stopped.
    #[default]
    Nowhere,
    /// The first stage stopped (a `take_while` in it): the second stage's held items come
    /// from items before the stop, and are passed on at the run's end.
    First,
    /// The second stage, or what follows it, stopped: nothing more goes through the second.
    Second,
}

impl StopAt {
    /// The side that stopped, given whether the second stage's last call broke.
    fn after(second_broke: bool) -> Self {
        if second_broke {
            StopAt::Second
        } else {
            StopAt::First
        }
    }
}

/// `flow`, noting in `broke` whether it is a `Break`.
#[inline]
fn noted<A>(broke: &mut bool, flow: ControlFlow<A, A>) -> ControlFlow<A, A> {
    *broke = flow.is_break();
    flow
}

impl<In, T, U> Transform<In> for Then<T, U>
where
    T: Transform<In>,
    U: Transform<T::Out>,
{
    type Out = U::Out;
    type State = (T::State, U::State, StopAt);
    const BREAKS: bool = T::BREAKS || U::BREAKS;
    const MERGES: bool = T::MERGES || U::MERGES;
    const PER_ITEM: bool = T::PER_ITEM && U::PER_ITEM;

    #[inline]
    fn breaks(&self) -> bool {
        self.0.breaks() || self.1.breaks()
    }

    #[inline]
    fn merges(&self) -> bool {
        self.0.merges() || self.1.merges()
    }

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        self.0.route(Second {
            second: &self.1,
            route,
            mid: PhantomData,
        })
    }

    #[inline]
    fn start(&self) -> Self::State {
        (self.0.start(), self.1.start(), StopAt::Nowhere)
    }

    #[inline]
    fn front(&self) -> Self::State {
        (self.0.front(), self.1.front(), StopAt::Nowhere)
    }

    /// What the first stage lets through at the boundary goes on through the second with the
    /// left piece's state (it comes after the left piece's items and before the right one's);
    /// then the second stage joins its own states. The joined state keeps the right piece's
    /// record of a stop, or the one the join made.
    fn merge<A, K>(
        &self,
        (left_first, left_second, left_stop): &mut Self::State,
        (right_first, right_second, right_stop): Self::State,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, U::Out) -> ControlFlow<A, A>,
    {
        let mut second_broke = false;
        let mut next = |acc, mid| {
            let flow = self.1.step(left_second, acc, mid, sink, &StopProbe::NEVER);
            noted(&mut second_broke, flow)
        };
        let acc = match self.0.merge(left_first, right_first, acc, &mut next) {
            ControlFlow::Continue(acc) => acc,
            done => {
                *left_stop = StopAt::after(second_broke);
                return done;
            }
        };
        let flow = self.1.merge(left_second, right_second, acc, sink);
        *left_stop = match flow {
            ControlFlow::Break(_) => StopAt::Second,
            ControlFlow::Continue(_) if *left_stop == StopAt::Nowhere => right_stop,
            ControlFlow::Continue(_) => *left_stop,
        };
        flow
    }

    /// What the first stage passes on at the end goes through the second, which then ends;
    /// after a stop in the second (or after it), only the second ends. A stage that stops
    /// while the chain ends (a `take_while` after a `fold_pieces`) ends what it passes on, not
    /// the stages after it: the result is `Break` only where `sink` made one.
    fn finish<A, K>(
        &self,
        (first, mut second, stop): Self::State,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, U::Out) -> ControlFlow<A, A>,
    {
        if stop == StopAt::Second {
            return self.1.finish(second, acc, sink);
        }
        let mut sink_broke = false;
        let mut down = |acc, out| noted(&mut sink_broke, sink(acc, out));
        let mut next = |acc, mid| {
            self.1
                .step(&mut second, acc, mid, &mut down, &StopProbe::NEVER)
        };
        let acc = match self.0.finish(first, acc, &mut next) {
            ControlFlow::Break(acc) if sink_broke => return ControlFlow::Break(acc),
            // Otherwise the second stage stopped (its state says where): it ends as it is.
            ControlFlow::Continue(acc) | ControlFlow::Break(acc) => acc,
        };
        self.1.finish(second, acc, sink)
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut Self::State,
        acc: A,
        item: In,
        sink: &mut K,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, U::Out) -> ControlFlow<A, A>,
    {
        let (first, second, stop) = state;
        if !(Self::BREAKS && Self::MERGES) {
            // Nothing to record: the run's end never follows a stop here.
            let mut next = |acc, mid| self.1.step(second, acc, mid, sink, probe);
            return self.0.step(first, acc, item, &mut next, probe);
        }
        let mut second_broke = false;
        let mut next = |acc, mid| {
            noted(
                &mut second_broke,
                self.1.step(second, acc, mid, sink, probe),
            )
        };
        let flow = self.0.step(first, acc, item, &mut next, probe);
        if flow.is_break() {
            *stop = StopAt::after(second_broke);
        }
        flow
    }

    /// The first stage's search, each of its outputs searched by the second stage.
    #[inline]
    fn find_back<R, G>(
        &self,
        (first, second, _): &mut Self::State,
        item: In,
        found: &mut G,
        probe: &StopProbe,
    ) -> ControlFlow<(), Option<R>>
    where
        G: FnMut(U::Out) -> ControlFlow<(), Option<R>>,
    {
        let mut next = |mid| self.1.find_back(second, mid, found, probe);
        self.0.find_back(first, item, &mut next, probe)
    }
}
