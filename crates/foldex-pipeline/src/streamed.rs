//! Pipelines over inputs that cannot be indexed: a [`Stream`], pulled in batches.

use crate::guarded::{guard_stream, Guarded, GuardedSource, Positioned};
use crate::indexed::{ByRef, Rev};
use foldex_core::codec::Init;
use foldex_core::{Executor, ExecutorExt, Input, Source, StopProbe, Stream};
use std::fmt;
use std::ops::ControlFlow;
use std::sync::{Mutex, PoisonError};

/// What a pipeline reads: any [`Source`] (run as often as you like), or a stream started with
/// [`from_stream`](crate::from_stream) (run once: its iterator is consumed). Implemented by the crate; named in
/// the bounds of a pipeline's reductions.
pub trait PipeSource: Sync + Sized {
    /// What one item is.
    type Item;

    /// What one run of the pipeline folds over.
    type Input<'p>: Input<Item = Self::Item>
    where
        Self: 'p;

    /// The input of one run.
    ///
    /// # Panics
    /// A stream's second run panics: its iterator was consumed by the first.
    fn input(&self) -> Self::Input<'_>;

    /// What one run folds over when its stages hold items at a piece's edge: the items with
    /// their positions, and a panic of the source caught as the item it was making
    /// (`guarded.rs`).
    #[doc(hidden)]
    type Guarded<'p>: Input<Item = Positioned<Self::Item>>
    where
        Self: 'p;

    /// The guarded input of one run.
    #[doc(hidden)]
    fn guarded_input(&self) -> Self::Guarded<'_>;

    /// The source itself, when it is indexable (a `Vec` is then collected in place).
    #[doc(hidden)]
    type Indexed: Source<Item = Self::Item>;

    /// The source itself, when it is indexable.
    #[doc(hidden)]
    fn as_indexed(&self) -> Option<&Self::Indexed>;

    /// Whether [`try_fold_items`](PipeSource::try_fold_items) may run `backwards`: the items
    /// from the last (`find_last`'s search from the right).
    #[doc(hidden)]
    #[inline]
    fn runs_backwards(&self) -> bool {
        self.as_indexed().is_some()
    }

    /// The fold of one run over the items, in order or `backwards` (where
    /// [`runs_backwards`](PipeSource::runs_backwards)): by default the executor's fold over
    /// [`input`](PipeSource::input), or over the indexable source reversed.
    #[doc(hidden)]
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
        F: Fn(A, Self::Item, &StopProbe) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        match backwards {
            false => ex.try_fold_probed(self.input(), init, step, combine),
            true => ex.try_fold_probed(Rev(ByRef(indexed(self))), init, step, combine),
        }
    }

    /// [`try_fold_items`](PipeSource::try_fold_items) with a `step` that never stops the fold.
    #[doc(hidden)]
    #[inline]
    fn fold_items<E, A, I, F, C>(&self, ex: &E, backwards: bool, init: I, step: F, combine: C) -> A
    where
        E: Executor + ?Sized,
        A: Send,
        I: Init<A>,
        F: Fn(A, Self::Item) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        match backwards {
            false => ex.fold(self.input(), init, step, combine),
            true => ex.fold(Rev(ByRef(indexed(self))), init, step, combine),
        }
    }

    /// The fold of one run over the [guarded](PipeSource::guarded_input) items, in order.
    #[doc(hidden)]
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
        F: Fn(A, Positioned<Self::Item>, &StopProbe) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        ex.try_fold_probed(self.guarded_input(), init, step, combine)
    }
}

/// The indexable source a run backwards reads.
#[track_caller]
fn indexed<S: PipeSource>(source: &S) -> &S::Indexed {
    source
        .as_indexed()
        .expect("foldex: only a source that runs_backwards is folded backwards")
}

impl<S: Source> PipeSource for S {
    type Item = S::Item;
    type Input<'p>
        = ByRef<'p, S>
    where
        S: 'p;

    #[inline]
    fn input(&self) -> ByRef<'_, S> {
        ByRef(self)
    }

    type Guarded<'p>
        = GuardedSource<'p, S>
    where
        S: 'p;

    #[inline]
    fn guarded_input(&self) -> GuardedSource<'_, S> {
        GuardedSource(ByRef(self))
    }

    type Indexed = S;

    #[inline]
    fn as_indexed(&self) -> Option<&S> {
        Some(self)
    }
}

/// The start of a pipeline over a [`Stream`]: see [`from_stream`](crate::from_stream).
pub struct Streamed<I> {
    stream: Mutex<Option<Stream<I>>>,
}

impl<I> Streamed<I> {
    pub(crate) fn new(stream: Stream<I>) -> Self {
        Self {
            stream: Mutex::new(Some(stream)),
        }
    }

    /// The same start over the iterator `adapt` makes of this one's (a stream already run
    /// stays run).
    pub(crate) fn adapt<J>(self, adapt: impl FnOnce(I) -> J) -> Streamed<J>
    where
        J: Iterator,
    {
        let stream = self
            .stream
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        Streamed {
            stream: Mutex::new(stream.map(|stream| stream.adapt(adapt))),
        }
    }
}

impl<I> fmt::Debug for Streamed<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unread = self
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some();
        f.debug_struct("Streamed").field("unread", &unread).finish()
    }
}

impl<I> PipeSource for Streamed<I>
where
    I: Iterator + Send,
    I::Item: Send,
{
    type Item = I::Item;
    type Input<'p>
        = Stream<I>
    where
        I: 'p;

    #[track_caller]
    fn input(&self) -> Stream<I> {
        let taken = self
            .stream
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        taken.expect(
            "foldex: a pipeline over a stream runs once (its iterator is consumed); start a new \
             one with from_stream for another run",
        )
    }

    type Guarded<'p>
        = Stream<Guarded<I>>
    where
        I: 'p;

    #[track_caller]
    fn guarded_input(&self) -> Stream<Guarded<I>> {
        guard_stream(self.input())
    }

    type Indexed = Unindexed<I::Item>;

    fn as_indexed(&self) -> Option<&Unindexed<I::Item>> {
        None
    }
}

/// The indexable source a stream does not have.
#[doc(hidden)]
#[derive(Debug)]
pub struct Unindexed<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Source for Unindexed<T> {
    type Item = T;
    fn len(&self) -> usize {
        0
    }
    fn get(&self, index: usize) -> T {
        unreachable!("a stream has no index {index}")
    }
}
