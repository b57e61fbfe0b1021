//! What the typed fold API reads: an indexable [`Source`], split by index, or a [`Stream`],
//! pulled in batches.

use super::{in_place, run_fold, stream::drive_stream, Leaf};
use crate::codec::Init;
use crate::executor::Executor;
use crate::source::Source;
use crate::stream::Stream;
use std::ops::ControlFlow;

/// What a fold runs over: every [`Source`] (indexable, with a length; split by index) and every
/// [`Stream`] (an iterator, pulled in batches). Every method of
/// [`ExecutorExt`](crate::ExecutorExt) takes either, with the same rules: the result is the
/// sequential fold's, `Break` stops the fold, a panic is re-raised with its payload.
///
/// Implemented by the crate only; implement [`Source`] for a type of your own, or wrap an
/// iterator in a [`Stream`].
///
/// ```
/// use foldex_core::{ExecutorExt, Stream};
/// use foldex_seq::SequentialEx;
/// let data = [1u64, 2, 3];
/// assert_eq!(SequentialEx.sum::<u64>(&data), 6); // a Source
/// assert_eq!(SequentialEx.sum::<u64>(Stream::new(data.iter())), 6); // a Stream
/// ```
pub trait Input: sealed::Sealed {
    /// What one item of the input is.
    type Item;

    /// Runs the typed fold over this input (the fold API's one way in); a fold over a stream
    /// whose `init` carries a codec panics, since a stream is pulled in one process.
    #[doc(hidden)]
    fn drive_fold<E, L, I, C, A>(
        self,
        executor: &E,
        leaf: L,
        init: I,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        L: Leaf<A, Self::Item>,
        I: Init<A>,
        C: Fn(A, A) -> A + Sync,
        A: Send;

    /// The items in input order.
    #[doc(hidden)]
    fn collect_items<E: Executor + ?Sized>(self, executor: &E) -> Vec<Self::Item>
    where
        Self::Item: Send;
}

mod sealed {
    /// Keeps [`Input`](super::Input) to the crate's two kinds of input.
    pub trait Sealed {}
}

impl<S: Source> sealed::Sealed for S {}

impl<S: Source> Input for S {
    type Item = S::Item;

    #[inline]
    fn drive_fold<E, L, I, C, A>(
        self,
        executor: &E,
        leaf: L,
        init: I,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        L: Leaf<A, S::Item>,
        I: Init<A>,
        C: Fn(A, A) -> A + Sync,
        A: Send,
    {
        run_fold(executor, self, leaf, init, combine, None)
            .expect("a fold without a cancel flag is never cancelled")
    }

    fn collect_items<E: Executor + ?Sized>(self, executor: &E) -> Vec<S::Item>
    where
        S::Item: Send,
    {
        in_place::collect_vec(executor, self)
    }
}

impl<It> sealed::Sealed for Stream<It> {}

impl<It> Input for Stream<It>
where
    It: Iterator + Send,
    It::Item: Send,
{
    type Item = It::Item;

    fn drive_fold<E, L, I, C, A>(
        self,
        executor: &E,
        leaf: L,
        init: I,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        L: Leaf<A, It::Item>,
        I: Init<A>,
        C: Fn(A, A) -> A + Sync,
        A: Send,
    {
        drive_stream(executor, self, leaf, init, combine)
    }

    fn collect_items<E: Executor + ?Sized>(self, executor: &E) -> Vec<It::Item> {
        let step = super::PlainStep(|mut v: Vec<It::Item>, item| {
            v.push(item);
            v
        });
        let append = |mut a: Vec<It::Item>, mut b: Vec<It::Item>| {
            if a.is_empty() {
                return b;
            }
            a.append(&mut b);
            a
        };
        match drive_stream(executor, self, step, Vec::new, append) {
            ControlFlow::Continue(v) | ControlFlow::Break(v) => v,
        }
    }
}
