//! Searches that stop from the right: `find_last` and `position_last` run as `find_first` and
//! `position_first` over the source reversed, so that a match stops the fold and nothing wholly
//! to its left (in the pipeline's order) runs longer than it takes to notice.
//!
//! - **`find_last`** runs so on an indexable source whose stages map each item alone
//!   ([`Transform::PER_ITEM`]: `map`, `filter`, `filter_map`, `flat_map`, `flat_map_pipe`,
//!   `inspect`). The source's items are visited from the last; what one item becomes is
//!   searched by [`Transform::find_back`] ([`LastOf`]), stage after stage: each stage hands its
//!   outputs to the next one's search and keeps the last answer. A `flat_map_pipe` (or
//!   `flatten_pipe`) stage searches its inner pipeline from its last item and stops at the
//!   first answer ([`crate::transform::FlatMapPipe`]), so a search through nested inner
//!   pipelines visits only the outputs right of the match. The other stages visit one item's
//!   outputs in order (a `flat_map` over a `std` iterator has no way back), so the predicate
//!   may also run on outputs of the matching item that lie left of the match, which
//!   `Iterator::rfind` would not visit.
//! - **`position_last`** runs so on an indexable pipeline (no stage that changes the number of
//!   items): its position is the length less one less the position from the right. Past a
//!   `filter` (where `std` has no `rposition` either), the position counts every item to the
//!   left of the match, so the fold runs whole.
//!
//! Everything else (a stream, a stage with state or a stop: `take_while`, `map_while`,
//! `map_init`, `dedup`, `unique`, `skip_while`, a [`boxed`](crate::Pipeline::boxed) chain)
//! folds every item, as before.

use crate::guarded::GuardedSource;
use crate::indexed::{ByRef, Rev};
use crate::pipeline::Pipeline;
use crate::streamed::PipeSource;
use crate::transform::{Transform, Xf};
use foldex_core::codec::Init;
use foldex_core::{Codec, Executor, Source, StopProbe};
use std::ops::ControlFlow;

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// `find_last` as a search from the right, where the pipeline allows it
    /// (the module doc); `None` where it does not.
    pub(crate) fn find_last_from_right<E, F>(&self, ex: &E, f: &F) -> Option<Option<X::Out>>
    where
        E: Executor + ?Sized,
        X::Out: Send,
        F: Fn(&X::Out) -> bool + Sync,
        K: Codec<Option<X::Out>>,
    {
        if !X::PER_ITEM {
            return None;
        }
        let reversed = self.reversed(f)?;
        Some(reversed.find_first(ex, |_| true))
    }

    /// `position_last` as a search from the right, where the pipeline allows it
    /// (the module doc); `None` where it does not.
    pub(crate) fn position_last_from_right<E, F>(&self, ex: &E, f: &F) -> Option<Option<usize>>
    where
        E: Executor + ?Sized,
        F: Fn(X::Out) -> bool + Sync,
        K: Codec<(usize, Option<usize>)>,
    {
        if !X::ONE_TO_ONE {
            return None;
        }
        let len = self.source.as_indexed()?.len();
        let reversed = self.reversed(&|_: &X::Out| true)?;
        // One item per source item: position `p` from the right is `len - 1 - p` from the left.
        Some(reversed.position_first(ex, f).map(|p| len - 1 - p))
    }

    /// The pipeline over the source reversed, each source item becoming the last of its
    /// outputs for which `keep` holds; `None` for a source that cannot run backwards.
    #[allow(clippy::type_complexity)]
    fn reversed<'p, F>(
        &'p self,
        keep: &'p F,
    ) -> Option<Pipeline<Backwards<'p, S>, Xf<LastOf<'p, X, F>>, &'p K>>
    where
        F: Fn(&X::Out) -> bool + Sync,
    {
        if !self.source.runs_backwards() {
            return None;
        }
        Some(Pipeline {
            source: Backwards {
                source: &self.source,
                indexed: self.source.as_indexed().map(|source| Rev(ByRef(source))),
            },
            transform: Xf(LastOf {
                stages: &self.transform,
                keep,
            }),
            codec: self.codec.as_ref(),
        })
    }
}

/// A source that [runs backwards](PipeSource::runs_backwards), as a source whose items are
/// its items from the last: its folds are the source's folds backwards.
pub(crate) struct Backwards<'p, S: PipeSource> {
    source: &'p S,
    /// The source reversed, where it is indexable.
    indexed: Option<Rev<ByRef<'p, S::Indexed>>>,
}

impl<'p, S: PipeSource> Backwards<'p, S> {
    /// The source reversed, where it is indexable: a run through stages that hold items at a
    /// piece's edge reads it, and `find_last` never runs one.
    fn indexed(&self) -> &Rev<ByRef<'p, S::Indexed>> {
        self.indexed
            .as_ref()
            .expect("foldex: find_last runs no stage that holds items over a long range")
    }
}

impl<'p, S: PipeSource> PipeSource for Backwards<'p, S> {
    type Item = S::Item;
    type Input<'q>
        = ByRef<'q, Rev<ByRef<'p, S::Indexed>>>
    where
        Self: 'q;

    fn input(&self) -> Self::Input<'_> {
        ByRef(self.indexed())
    }

    type Guarded<'q>
        = GuardedSource<'q, Rev<ByRef<'p, S::Indexed>>>
    where
        Self: 'q;

    fn guarded_input(&self) -> Self::Guarded<'_> {
        GuardedSource(ByRef(self.indexed()))
    }

    type Indexed = Rev<ByRef<'p, S::Indexed>>;

    fn as_indexed(&self) -> Option<&Self::Indexed> {
        self.indexed.as_ref()
    }

    fn runs_backwards(&self) -> bool {
        true
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
        self.source
            .try_fold_items(ex, !backwards, init, step, combine)
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
        self.source.fold_items(ex, !backwards, init, step, combine)
    }
}

/// A stage that runs one item through `stages` (which map each item alone) and passes on the
/// last of its outputs for which `keep` holds, if any.
pub(crate) struct LastOf<'p, X, F> {
    stages: &'p X,
    keep: &'p F,
}

impl<In, X, F> Transform<In> for LastOf<'_, X, F>
where
    X: Transform<In>,
    F: Fn(&X::Out) -> bool + Sync,
{
    type Out = X::Out;
    type State = X::State;

    #[inline]
    fn start(&self) -> X::State {
        self.stages.start()
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
        let mut found = |out: X::Out| ControlFlow::Continue((self.keep)(&out).then_some(out));
        match self.stages.find_back(state, item, &mut found, probe) {
            // Only the probe stops these stages: the block is no longer needed.
            ControlFlow::Break(()) => ControlFlow::Break(acc),
            ControlFlow::Continue(Some(out)) => sink(acc, out),
            ControlFlow::Continue(None) => ControlFlow::Continue(acc),
        }
    }
}
