//! The pipeline value and its adapters.

use crate::indexed::{
    Chain, ChunksMut, Cloned, Enumerate, Map, Rev, SliceSource, StepBy, Window, Windows, Zip,
};
use crate::stage::{Append, Id, Then, Transform, Xf};
use crate::stages::{Filter, FilterMap, FlatMap, Inspect, MapInit, MapStage, MapWhile, TakeWhile};
use crate::stateful::{Dedup, SkipWhile, Unique};
use crate::streamed::PipeSource;
use foldex_core::source::MutSlice;
use foldex_core::{Codec, ConfigError, Source};

/// Makes a [`Pipeline`] of its items: `(0..n).pipe()`, `(1..=n).pipe()`, `slice.pipe()`,
/// `vec.pipe()` (by reference), `array.pipe()`.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
/// assert_eq!((1..=4u8).pipe().map(u32::from).sum::<u32>(&SequentialEx), 10);
/// assert_eq!((-3..3i64).pipe().filter(|x| x % 2 == 0).count(&SequentialEx), 3);
/// ```
pub trait IntoPipeline {
    /// The source the pipeline reads: a [`Source`] (indexable), or a
    /// [`Wide`](crate::adapters::Wide) range that may be longer than `usize::MAX`.
    type Source: PipeSource;
    /// The pipeline over these items, with no adapters yet.
    fn pipe(self) -> Pipeline<Self::Source>;
}

/// A computation over the items of a [`Source`]: index-preserving adapters, then transforms
/// that may change the number of items, then a reduction that runs it on an executor given as
/// its argument.
///
/// Built once, a pipeline can be run any number of times, on any executors (`&dyn Executor`
/// included), and gives the same answer on each: the value and the panic of the same chain on
/// `std::iter`. A pipeline whose items are moved or lent out (a `Vec` by value, a mutable
/// slice) or pulled (a stream) runs once, and says so when run again. Executors never see the
/// pipeline: a reduction is one typed fold ([`foldex_core::ExecutorExt::try_fold`]), so
/// ordering, early termination and panics follow the fold's rules; docs/pipelines.md says
/// which closures may run ahead of the sequential order on a parallel executor.
///
/// `S` is the source with its index-preserving adapters; `X` the transforms after it ([`Id`](crate::transform::Id)
/// while there are none, and the pipeline is still indexable); `K` the codec of its reductions'
/// accumulators ([`NoCodec`] unless set by [`encoded`](Pipeline::encoded)).
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
/// use foldex_threaded::ThreadedEx;
///
/// let data: Vec<u64> = (0..1000).collect();
/// let odd_squares = data.pipe().map(|&x| x * x).filter(|x| x % 2 == 1);
/// let total: u64 = odd_squares.sum(&ThreadedEx::new());
/// assert_eq!(total, odd_squares.sum::<u64>(&SequentialEx));
/// assert_eq!(total, data.iter().map(|&x| x * x).filter(|x| x % 2 == 1).sum());
/// ```
#[derive(Debug, Clone, Copy)]
#[must_use = "a pipeline does nothing until a reduction runs it"]
pub struct Pipeline<S, X = Id, K = NoCodec> {
    pub(crate) source: S,
    pub(crate) transform: X,
    /// Writes the accumulators of the reductions: `None` unless set by
    /// [`encoded`](Pipeline::encoded).
    pub(crate) codec: Option<K>,
}

/// The codec of a pipeline that has none (the `K` of [`Pipeline`] until
/// [`encoded`](Pipeline::encoded) sets one): no value of it exists, so it writes nothing, and
/// every accumulator has it.
#[derive(Debug, Clone, Copy)]
pub enum NoCodec {}

impl<A> Codec<A> for NoCodec {
    fn encode(&self, _: &A, _: &mut Vec<u8>) -> Result<(), String> {
        match *self {}
    }

    fn decode(&self, _: &[u8]) -> Result<A, String> {
        match *self {}
    }
}

impl<S, X, K> Pipeline<S, X, K> {
    /// The same pipeline, its reductions writing their accumulators with `codec`, so that an
    /// executor whose pieces run in other processes (`foldex_mpi::MpiEx`, with
    /// `foldex_core::codec::Postcard` for serde items) can run them. Each reduction gives what it gives
    /// without a codec, on every executor; it compiles only where `codec` can write that
    /// reduction's accumulator (for a serde codec, where the items serialise), and executors in
    /// this process ignore the codec. A pipeline over a stream, or with `dedup`, `unique` or
    /// `skip_while` (which hold items at a piece's edge), cannot send its partials elsewhere:
    /// given a codec, its reductions panic saying so.
    ///
    /// ```
    /// use foldex_core::Codec;
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    ///
    /// /// Writes a `usize` as a little-endian word.
    /// struct Words;
    /// impl Codec<usize> for Words {
    ///     fn encode(&self, n: &usize, out: &mut Vec<u8>) -> Result<(), String> {
    ///         out.extend_from_slice(&(*n as u64).to_le_bytes());
    ///         Ok(())
    ///     }
    ///     fn decode(&self, b: &[u8]) -> Result<usize, String> {
    ///         Ok(u64::from_le_bytes(b.try_into().map_err(|_| "8 bytes")?) as usize)
    ///     }
    /// }
    ///
    /// let evens = (0..1000u64).pipe().filter(|x| x % 2 == 0);
    /// assert_eq!(evens.encoded(Words).count(&SequentialEx), 500);
    /// ```
    pub fn encoded<J>(self, codec: J) -> Pipeline<S, X, J> {
        Pipeline {
            source: self.source,
            transform: self.transform,
            codec: Some(codec),
        }
    }
}

/// Index-preserving adapters: available while the pipeline has no transform that changes the
/// number of items, so that item `i` still comes from known indices of the source.
impl<S: Source, K> Pipeline<S, Id, K> {
    fn indexed<T: Source>(codec: Option<K>, source: T) -> Pipeline<T, Id, K> {
        Pipeline {
            source,
            transform: Id,
            codec,
        }
    }

    /// The number of items.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// assert_eq!((0..10).pipe().skip(3).len(), 7);
    /// ```
    pub fn len(&self) -> usize {
        self.source.len()
    }

    /// `true` when there are no items.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// assert!((5..5).pipe().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.source.len() == 0
    }

    /// Item `i` becomes `f(item)`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((1..4).pipe().map(|x| x * 10).collect::<Vec<_>>(&SequentialEx), [10, 20, 30]);
    /// ```
    pub fn map<R, F>(self, f: F) -> Pipeline<Map<S, F>, Id, K>
    where
        F: Fn(S::Item) -> R + Sync,
    {
        Self::indexed(
            self.codec,
            Map {
                inner: self.source,
                f,
            },
        )
    }

    /// Copies items out of references.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [3u8, 4];
    /// assert_eq!(v.pipe().copied().sum::<u8>(&SequentialEx), 7);
    /// ```
    pub fn copied<'a, T>(self) -> Pipeline<Cloned<S>, Id, K>
    where
        S: Source<Item = &'a T>,
        T: Copy + 'a,
    {
        Self::indexed(self.codec, Cloned(self.source))
    }

    /// Clones items out of references.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let names = [String::from("a"), String::from("b")];
    /// let owned: Vec<String> = names.pipe().cloned().collect(&SequentialEx);
    /// assert_eq!(owned, names);
    /// ```
    pub fn cloned<'a, T>(self) -> Pipeline<Cloned<S>, Id, K>
    where
        S: Source<Item = &'a T>,
        T: Clone + 'a,
    {
        Self::indexed(self.codec, Cloned(self.source))
    }

    /// Pairs each item with its index in this pipeline, exact whatever the executor's split.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = ["a", "b"];
    /// assert_eq!(v.pipe().enumerate().collect::<Vec<_>>(&SequentialEx), [(0, &"a"), (1, &"b")]);
    /// ```
    pub fn enumerate(self) -> Pipeline<Enumerate<S>, Id, K> {
        Self::indexed(self.codec, Enumerate(self.source))
    }

    /// Pairs item `i` with item `i` of `other` (anything with `.pipe()`, or an indexable
    /// pipeline), over the shorter of the two (as `Iterator::zip`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let dot: i32 = [1, 2, 3].pipe().zip(&[4, 5, 6, 7]).map(|(a, b)| a * b).sum(&SequentialEx);
    /// assert_eq!(dot, 32);
    /// ```
    pub fn zip<T>(self, other: T) -> Pipeline<Zip<S, T::Source>, Id, K>
    where
        T: IntoPipeline<Source: Source>,
    {
        Self::indexed(
            self.codec,
            Zip {
                a: self.source,
                b: other.pipe().source,
            },
        )
    }

    /// The items of this pipeline, then those of `other`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((0..2).pipe().chain(5..7).collect::<Vec<_>>(&SequentialEx), [0, 1, 5, 6]);
    /// ```
    pub fn chain<T>(self, other: T) -> Pipeline<Chain<S, T::Source>, Id, K>
    where
        T: IntoPipeline,
        T::Source: Source<Item = S::Item>,
    {
        Self::indexed(
            self.codec,
            Chain {
                a: self.source,
                b: other.pipe().source,
            },
        )
    }

    /// The first `n` items (all of them if there are fewer).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((0..100).pipe().take(3).collect::<Vec<_>>(&SequentialEx), [0, 1, 2]);
    /// ```
    pub fn take(self, n: usize) -> Pipeline<Window<S>, Id, K> {
        Self::indexed(self.codec, Window::new(self.source, 0, n))
    }

    /// All but the first `n` items (none if there are fewer). After a `map`, the `n` items
    /// dropped are still made, as `Iterator::skip` makes them (and rayon's `skip`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((0..10).pipe().skip(2).take(3).collect::<Vec<_>>(&SequentialEx), [2, 3, 4]);
    /// ```
    pub fn skip(self, n: usize) -> Pipeline<Window<S>, Id, K> {
        Self::indexed(self.codec, Window::new(self.source, n, usize::MAX))
    }

    /// Every `step`-th item, starting with the first. After a `map`, the items between and
    /// after them are still made, as `Iterator::step_by` makes them when run to its end.
    ///
    /// # Panics
    /// If `step` is 0: "step must be at least 1, got 0" (as `Iterator::step_by`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((0..10).pipe().step_by(4).collect::<Vec<_>>(&SequentialEx), [0, 4, 8]);
    /// ```
    #[track_caller]
    pub fn step_by(self, step: usize) -> Pipeline<StepBy<S>, Id, K> {
        let step = ConfigError::require_nonzero("step", step).get();
        Self::indexed(
            self.codec,
            StepBy {
                inner: self.source,
                step,
            },
        )
    }

    /// The items in reverse order.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((0..3).pipe().rev().collect::<Vec<_>>(&SequentialEx), [2, 1, 0]);
    /// ```
    pub fn rev(self) -> Pipeline<Rev<S>, Id, K> {
        Self::indexed(self.codec, Rev(self.source))
    }

    /// Overlapping sub-slices of `size` items, as `slice::windows`.
    ///
    /// # Panics
    /// If `size` is 0: "window size must be at least 1, got 0".
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [1, 4, 9, 16];
    /// let steps = v.pipe().windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(steps, [3, 5, 7]);
    /// ```
    #[track_caller]
    pub fn windows<'s>(self, size: usize) -> Pipeline<Windows<'s, S::Elem>, Id, K>
    where
        S: SliceSource<'s>,
    {
        let size = ConfigError::require_nonzero("window size", size).get();
        let slice = self.source.as_slice();
        Self::indexed(self.codec, Windows { slice, size })
    }
}

/// Sub-slices of a mutable slice.
impl<'s, T: Send, K> Pipeline<MutSlice<'s, T>, Id, K> {
    /// Mutable sub-slices of `size` items (the last one shorter if `size` does not divide the
    /// length), as `slice::chunks_mut`, each lent to one piece.
    ///
    /// # Panics
    /// If `size` is 0: "chunk size must be at least 1, got 0".
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let mut image = vec![0u8; 12];
    /// (&mut image).pipe().chunks_mut(4).enumerate().for_each(&ThreadedEx::new(), |(row, px)| {
    ///     px.fill(row as u8);
    /// });
    /// assert_eq!(image, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    /// ```
    #[track_caller]
    pub fn chunks_mut(self, size: usize) -> Pipeline<ChunksMut<'s, T>, Id, K> {
        let size = ConfigError::require_nonzero("chunk size", size).get();
        Self::indexed(
            self.codec,
            ChunksMut {
                slice: self.source,
                size,
            },
        )
    }
}

/// `map` once the pipeline has a transform that changes the number of items.
impl<S: PipeSource, T: Transform<S::Item>, K> Pipeline<S, Xf<T>, K> {
    /// Each item becomes `f(item)`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = (0..6).pipe().filter(|x| x % 2 == 0).map(|x| x + 1);
    /// assert_eq!(v.collect::<Vec<_>>(&SequentialEx), [1, 3, 5]);
    /// ```
    pub fn map<R, F>(self, f: F) -> Pipeline<S, Xf<Then<T, MapStage<F>>>, K>
    where
        F: Fn(T::Out) -> R + Sync,
    {
        Pipeline {
            source: self.source,
            transform: Xf(Then(self.transform.0, MapStage(f))),
            codec: self.codec,
        }
    }
}

/// Transforms that may change the number of items, on any pipeline.
impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    pub(crate) fn then<U>(self, next: U) -> Pipeline<S, X::Output, K>
    where
        X: Append<U>,
    {
        Pipeline {
            source: self.source,
            transform: self.transform.append(next),
            codec: self.codec,
        }
    }

    /// Keeps the items for which `keep` holds.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!((0..10).pipe().filter(|x| x % 3 == 0).count(&SequentialEx), 4);
    /// ```
    pub fn filter<P>(self, keep: P) -> Pipeline<S, X::Output, K>
    where
        P: Fn(&X::Out) -> bool + Sync,
        X: Append<Filter<P>>,
    {
        self.then(Filter(keep))
    }

    /// Drops each item equal to the one before it, as `Vec::dedup` (and itertools' `dedup`).
    /// Correct in parallel: see [`crate::stateful`].
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let v = [1, 1, 2, 3, 3, 3, 1];
    /// let runs: Vec<i32> = v.pipe().copied().dedup().collect(&ThreadedEx::new());
    /// assert_eq!(runs, [1, 2, 3, 1]);
    /// ```
    pub fn dedup(self) -> Pipeline<S, X::Output, K>
    where
        X::Out: Clone + PartialEq + Send,
        X: Append<Dedup>,
    {
        self.then(Dedup)
    }

    /// Keeps the first occurrence of each item, in order (itertools' `unique`). Every item is
    /// held until the run ends: see [`crate::stateful`].
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let words = ["b", "a", "b", "c", "a"];
    /// let first: Vec<&str> = words.pipe().copied().unique().collect(&ThreadedEx::new());
    /// assert_eq!(first, ["b", "a", "c"]);
    /// ```
    pub fn unique(self) -> Pipeline<S, X::Output, K>
    where
        X::Out: Clone + Eq + std::hash::Hash + Send,
        X: Append<Unique>,
    {
        self.then(Unique)
    }

    /// Drops items while `skip` holds, then keeps every item, as `Iterator::skip_while`
    /// (Transducers.jl's `DropWhile`). `skip` may also be called on items after the first one it
    /// rejects (each piece tests its own leading items): see [`crate::stateful`].
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let v = [1, 2, 5, 1, 7];
    /// let rest: Vec<i32> = v.pipe().copied().skip_while(|&x| x < 3).collect(&ThreadedEx::new());
    /// assert_eq!(rest, [5, 1, 7]);
    /// ```
    #[doc(alias = "drop_while")]
    pub fn skip_while<P>(self, skip: P) -> Pipeline<S, X::Output, K>
    where
        X::Out: Send,
        P: Fn(&X::Out) -> bool + Sync,
        X: Append<SkipWhile<P>>,
    {
        self.then(SkipWhile(skip))
    }

    /// Keeps `y` for every item that `f` maps to `Some(y)`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let n: u32 = ["1", "x", "3"].pipe().filter_map(|s| s.parse::<u32>().ok()).sum(&SequentialEx);
    /// assert_eq!(n, 4);
    /// ```
    pub fn filter_map<R, F>(self, f: F) -> Pipeline<S, X::Output, K>
    where
        F: Fn(X::Out) -> Option<R> + Sync,
        X: Append<FilterMap<F>>,
    {
        self.then(FilterMap(f))
    }

    /// Replaces each item with the items of the iterator `f` makes of it, in order. For pieces
    /// borrowed from the item (the words of an owned line, which `f` cannot return: E0515),
    /// [`flat_map_ref`](Pipeline::flat_map_ref).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = (1..4).pipe().flat_map(|n| 0..n).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    pub fn flat_map<U, F>(self, f: F) -> Pipeline<S, X::Output, K>
    where
        F: Fn(X::Out) -> U + Sync,
        U: IntoIterator,
        X: Append<FlatMap<F>>,
    {
        self.then(FlatMap(f))
    }

    /// Calls `f` on each item by reference as it passes.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let seen = AtomicUsize::new(0);
    /// let n = (0..5).pipe().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).count(&SequentialEx);
    /// assert_eq!((n, seen.into_inner()), (5, 5));
    /// ```
    pub fn inspect<F>(self, f: F) -> Pipeline<S, X::Output, K>
    where
        F: Fn(&X::Out) + Sync,
        X: Append<Inspect<F>>,
    {
        self.then(Inspect(f))
    }

    /// The items before the first one for which `keep` fails; nothing after it runs, on any
    /// executor (as a `Break` there).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let n = (0..1_000_000).pipe().take_while(|&x| x * x < 1000).count(&ThreadedEx::new());
    /// assert_eq!(n, 32);
    /// ```
    pub fn take_while<P>(self, keep: P) -> Pipeline<S, X::Output, K>
    where
        P: Fn(&X::Out) -> bool + Sync,
        X: Append<TakeWhile<P>>,
    {
        self.then(TakeWhile(keep))
    }

    /// `y` for each item that `f` maps to `Some(y)`, until the first `None`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = ["1", "2", "x", "4"];
    /// let parsed = v.pipe().map_while(|s| s.parse::<u32>().ok()).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(parsed, [1, 2]);
    /// ```
    pub fn map_while<R, F>(self, f: F) -> Pipeline<S, X::Output, K>
    where
        F: Fn(X::Out) -> Option<R> + Sync,
        X: Append<MapWhile<F>>,
    {
        self.then(MapWhile(f))
    }

    /// Maps each item with `map`, which borrows a scratch value made by `init` once per piece
    /// of the fold (a buffer, a random number generator), as FLoops' `@init`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let lens = ["ab", "cde"].pipe().map_init(String::new, |buf, s| {
    ///     buf.clear();
    ///     buf.push_str(s);
    ///     buf.len()
    /// });
    /// assert_eq!(lens.sum::<usize>(&SequentialEx), 5);
    /// ```
    pub fn map_init<T, R, I, F>(self, init: I, map: F) -> Pipeline<S, X::Output, K>
    where
        I: Fn() -> T + Sync,
        F: Fn(&mut T, X::Out) -> R + Sync,
        T: Send,
        X: Append<MapInit<I, F>>,
    {
        self.then(MapInit { init, map })
    }
}
