//! A pipeline lent to a reduction: its source, stages and codec by reference, so that a
//! reduction taking `&self` can add a stage and run another reduction through it
//! (`find_map_last` is `filter_map` then `find_last`), whatever the source (a stream
//! included) and without cloning anything.

use crate::guarded::Positioned;
use crate::pipeline::Pipeline;
use crate::stage::{Route, Then, Transform, Xf};
use crate::streamed::PipeSource;
use foldex_core::codec::Init;
use foldex_core::{Codec, Executor, StopProbe};
use std::ops::ControlFlow;

/// A source by reference: it reads what the source it borrows reads.
pub(crate) struct LentSource<'p, S>(&'p S);

impl<S: PipeSource> PipeSource for LentSource<'_, S> {
    type Item = S::Item;
    type Input<'q>
        = S::Input<'q>
    where
        Self: 'q;

    #[inline]
    fn input(&self) -> S::Input<'_> {
        self.0.input()
    }

    type Guarded<'q>
        = S::Guarded<'q>
    where
        Self: 'q;

    #[inline]
    fn guarded_input(&self) -> S::Guarded<'_> {
        self.0.guarded_input()
    }

    type Indexed = S::Indexed;

    #[inline]
    fn as_indexed(&self) -> Option<&S::Indexed> {
        self.0.as_indexed()
    }

    #[inline]
    fn runs_backwards(&self) -> bool {
        self.0.runs_backwards()
    }

    #[inline]
    fn try_fold_items<E, A, I, F, C>(
        &self,
        ex: &E,
        backwards: bool,
        init: I,
        step: F,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Init<A>,
        F: Fn(A, S::Item, &StopProbe) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        self.0.try_fold_items(ex, backwards, init, step, combine)
    }

    #[inline]
    fn fold_items<E, A, I, F, C>(&self, ex: &E, backwards: bool, init: I, step: F, combine: C) -> A
    where
        E: Executor + ?Sized,
        A: Send,
        I: Init<A>,
        F: Fn(A, S::Item) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        self.0.fold_items(ex, backwards, init, step, combine)
    }

    #[inline]
    fn try_fold_guarded<E, A, I, F, C>(
        &self,
        ex: &E,
        init: I,
        step: F,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Init<A>,
        F: Fn(A, Positioned<S::Item>, &StopProbe) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        self.0.try_fold_guarded(ex, init, step, combine)
    }
}

/// Stages by reference: every call, constant and route is the borrowed stages'.
pub(crate) struct LentStages<'p, X>(&'p X);

impl<In, X: Transform<In>> Transform<In> for LentStages<'_, X> {
    type Out = X::Out;
    type State = X::State;
    const ONE_TO_ONE: bool = X::ONE_TO_ONE;
    const BREAKS: bool = X::BREAKS;
    const MERGES: bool = X::MERGES;
    const PER_ITEM: bool = X::PER_ITEM;

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
    fn start(&self) -> X::State {
        self.0.start()
    }

    #[inline]
    fn front(&self) -> X::State {
        self.0.front()
    }

    #[inline]
    fn one_to_one(&self, item: In) -> Option<X::Out> {
        self.0.one_to_one(item)
    }

    #[inline]
    fn merge<A, K>(
        &self,
        left: &mut X::State,
        right: X::State,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, X::Out) -> ControlFlow<A, A>,
    {
        self.0.merge(left, right, acc, sink)
    }

    #[inline]
    fn step<A, K>(
        &self,
        state: &mut X::State,
        acc: A,
        item: In,
        sink: &mut K,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, X::Out) -> ControlFlow<A, A>,
    {
        self.0.step(state, acc, item, sink, probe)
    }

    #[inline]
    fn find_back<R, G>(
        &self,
        state: &mut X::State,
        item: In,
        found: &mut G,
        probe: &StopProbe,
    ) -> ControlFlow<(), Option<R>>
    where
        G: FnMut(X::Out) -> ControlFlow<(), Option<R>>,
    {
        self.0.find_back(state, item, found, probe)
    }
}

/// A codec by reference.
pub(crate) struct LentCodec<'p, K>(&'p K);

impl<A, K: Codec<A>> Codec<A> for LentCodec<'_, K> {
    fn encode(&self, acc: &A, out: &mut Vec<u8>) -> Result<(), String> {
        self.0.encode(acc, out)
    }

    fn decode(&self, bytes: &[u8]) -> Result<A, String> {
        self.0.decode(bytes)
    }
}

/// A pipeline lent with one more stage after its own.
pub(crate) type LentThen<'p, S, X, K, U> =
    Pipeline<LentSource<'p, S>, Xf<Then<LentStages<'p, X>, U>>, LentCodec<'p, K>>;

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// This pipeline, borrowed, with `next` after its stages: runs as `self` would with `next`
    /// appended.
    pub(crate) fn lent_then<U>(&self, next: U) -> LentThen<'_, S, X, K, U> {
        Pipeline {
            source: LentSource(&self.source),
            transform: Xf(Then(LentStages(&self.transform), next)),
            codec: self.codec.as_ref().map(LentCodec),
        }
    }
}
