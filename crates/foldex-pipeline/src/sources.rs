//! Where a pipeline starts: [`IntoPipeline`] for ranges of every primitive integer type
//! (`a..b` and `a..=b`), slices, vectors and arrays by reference, mutable slices and vectors;
//! [`from_vec`] for a `Vec` by value, and [`from_source`] for any other [`Source`].
//!
//! Integer ranges other than `Range<usize>` are not `Source`s in foldex-core on purpose: with
//! one `Source` impl per integer type, `ex.sum::<usize>(0..10)` would no longer infer `usize`
//! for the literals. Here they are sources only once `.pipe()` picks the type, so `(0..10).pipe()`
//! falls back to `i32` items as `(0..10).into_par_iter()` does in rayon.
//!
//! Beyond those, what a rayon user reaches for, each an ordinary [`Pipeline`] with its items
//! in the order std's iterator gives them, on every executor:
//!
//! - std's collections by reference (`map.pipe()`, `(&set).pipe()`, `(&mut deque).pipe()`)
//!   and by value ([`IntoOwnedPipeline::into_pipe`]): see [`collections`] for what each costs;
//! - a `&str`'s bytes, chars, lines, words and split pieces ([`PipeStr`]);
//! - a slice's `chunks_exact`, `rchunks`, `rchunks_exact` (indexable), `chunk_by` and `split`
//!   (methods of [`Pipeline`]);
//! - a `Vec`'s or `VecDeque`'s range moved out ([`PipeDrain::pipe_drain`]);
//! - [`repeat_n`], [`once`], [`empty`].
//!
//! What cannot be indexed item by item (the parts of a text, a slice's runs) is cut into
//! [`Blocks`] of positions, each yielding the items that start in it ([`Cut`]).

mod blocks;
pub mod collections;
mod drain;
mod repeat;
mod slices;
mod strings;

pub use blocks::{Blocks, Cut, Flatten, Pieces};
pub use collections::{Gathered, IntoOwnedPipeline};
pub use drain::PipeDrain;
pub use repeat::{empty, once, repeat_n, Empty, RepeatN};
pub use slices::{
    BlockRuns, BlockSlicePieces, ChunkByCut, ChunksExact, RChunks, RChunksExact, SplitSliceCut,
};
pub use strings::{
    AsciiWhitespace, BlockCharIndices, BlockPieces, CharIndicesCut, CharPattern, CharsCut, PipeStr,
    SplitCut, Whitespace,
};

use crate::pipeline::{IntoPipeline, Pipeline};
use crate::stage::{Id, Xf};
use crate::streamed::Streamed;
use foldex_core::source::{MutSlice, OwnedVec, RangeVisitor};
use foldex_core::{Source, Stream};
use std::ops::{Range, RangeInclusive};

/// The pipeline over any [`Source`] (a custom one, or a loader's dataset viewed as one).
///
/// ```
/// use foldex_core::Source;
/// use foldex_pipeline::from_source;
/// use foldex_seq::SequentialEx;
///
/// struct Squares(usize);
/// impl Source for Squares {
///     type Item = u64;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> u64 { (i * i) as u64 }
/// }
/// assert_eq!(from_source(Squares(4)).sum::<u64>(&SequentialEx), 14);
/// ```
pub fn from_source<S: Source>(source: S) -> Pipeline<S> {
    Pipeline {
        source,
        transform: Id,
        codec: None,
    }
}

/// An indexable pipeline is its own start (for `zip` and `chain`).
impl<S: Source> IntoPipeline for Pipeline<S, Id> {
    type Source = S;
    fn pipe(self) -> Pipeline<S> {
        self
    }
}

impl IntoPipeline for Range<usize> {
    type Source = Range<usize>;
    fn pipe(self) -> Pipeline<Range<usize>> {
        from_source(self)
    }
}

impl<'s, T: Sync> IntoPipeline for &'s [T] {
    type Source = &'s [T];
    fn pipe(self) -> Pipeline<&'s [T]> {
        from_source(self)
    }
}

impl<'s, T: Sync> IntoPipeline for &'s Vec<T> {
    type Source = &'s Vec<T>;
    fn pipe(self) -> Pipeline<&'s Vec<T>> {
        from_source(self)
    }
}

impl<'s, T: Sync, const N: usize> IntoPipeline for &'s [T; N] {
    type Source = &'s [T; N];
    fn pipe(self) -> Pipeline<&'s [T; N]> {
        from_source(self)
    }
}

/// Each element lent to one piece, mutably: `for_each` over `&mut [T]`, `zip` with an output
/// slice, [`chunks_mut`](Pipeline::chunks_mut). The pipeline runs once: a second run panics
/// before it lends anything, saying so, as the elements' borrows from the first may still be
/// alive.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_threaded::ThreadedEx;
/// let mut v: Vec<u64> = (0..1000).collect();
/// (&mut v[..]).pipe().for_each(&ThreadedEx::new(), |x| *x *= 2);
/// assert_eq!(v[999], 1998);
/// ```
impl<'s, T: Send> IntoPipeline for &'s mut [T] {
    type Source = MutSlice<'s, T>;
    fn pipe(self) -> Pipeline<MutSlice<'s, T>> {
        from_source(MutSlice::new(self))
    }
}

/// As for `&mut [T]`.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
/// let input = [1, 2, 3];
/// let mut out = vec![0; 3];
/// input.pipe().zip(&mut out).for_each(&SequentialEx, |(x, o)| *o = x * x);
/// assert_eq!(out, [1, 4, 9]);
/// ```
impl<'s, T: Send> IntoPipeline for &'s mut Vec<T> {
    type Source = MutSlice<'s, T>;
    fn pipe(self) -> Pipeline<MutSlice<'s, T>> {
        from_source(MutSlice::new(self))
    }
}

/// The pipeline over a `Vec`'s items by value: each piece moves its items out, and items the
/// run did not reach (after an early stop) are dropped with the pipeline. The pipeline runs
/// once: a second run panics before it reads anything, saying so, as the items are gone.
///
/// A function rather than `IntoPipeline for Vec<T>`, so that `v.pipe()` keeps borrowing `v`.
///
/// ```
/// use foldex_pipeline::from_vec;
/// use foldex_seq::SequentialEx;
/// let words = vec![String::from("fold"), String::from("ex")];
/// let joined: String = from_vec(words).collect(&SequentialEx);
/// assert_eq!(joined, "foldex");
/// ```
pub fn from_vec<T: Send>(vec: Vec<T>) -> Pipeline<OwnedVec<T>> {
    from_source(OwnedVec::new(vec))
}

/// The integers `start`, `start + 1`, ... (`len` of them): an indexable range of an integer
/// type other than `usize` as a [`Source`], and a block of a [`Wide`](crate::adapters::Wide)
/// range.
#[derive(Debug, Clone, Copy)]
pub struct Ints<T> {
    pub(crate) start: T,
    pub(crate) len: usize,
}

macro_rules! int_sources {
    ($($t:ty as $wide:ty),*) => {$(
        impl Source for Ints<$t> {
            type Item = $t;
            #[inline]
            fn len(&self) -> usize {
                self.len
            }
            #[inline]
            fn get(&self, index: usize) -> $t {
                assert!(index < self.len, "index {index} out of a range of {}", self.len);
                // The true value is in range, so the wrapping sum of the truncated offset is it.
                self.start.wrapping_add(index as $t)
            }
            #[inline]
            fn visit_range<V: RangeVisitor<$t>>(
                &self,
                range: Range<usize>,
                visitor: V,
            ) -> V::Output {
                let end = range.end.min(self.len);
                let start = range.start.min(end);
                if start == end {
                    return visitor.visit(self.start..self.start);
                }
                let first = self.start.wrapping_add(start as $t);
                let last = self.start.wrapping_add((end - 1) as $t);
                visitor.visit(first..=last)
            }
        }
    )*};
}

/// `a..b` of each type as a pipeline over [`Ints`].
macro_rules! int_pipes {
    ($($t:ty as $wide:ty),*) => {$(
        impl IntoPipeline for Range<$t> {
            type Source = Ints<$t>;
            #[track_caller]
            fn pipe(self) -> Pipeline<Ints<$t>> {
                let len = if self.end <= self.start {
                    Some(0)
                } else {
                    (self.end as $wide)
                        .checked_sub(self.start as $wide)
                        .and_then(|span| usize::try_from(span).ok())
                }
                .unwrap_or_else(|| too_long(&self.start, &self.end, ".."));
                from_source(Ints { start: self.start, len })
            }
        }
    )*};
}

/// `a..=b` of each type as a pipeline over [`Ints`].
macro_rules! int_inclusive_pipes {
    ($($t:ty as $wide:ty),*) => {$(
        impl IntoPipeline for RangeInclusive<$t> {
            type Source = Ints<$t>;
            #[track_caller]
            fn pipe(self) -> Pipeline<Ints<$t>> {
                let (start, end) = (*self.start(), *self.end());
                let len = if self.is_empty() {
                    Some(0)
                } else {
                    (end as $wide)
                        .checked_sub(start as $wide)
                        .and_then(|span| usize::try_from(span).ok())
                        .and_then(|span| span.checked_add(1))
                }
                .unwrap_or_else(|| too_long(&start, &end, "..="));
                from_source(Ints { start, len })
            }
        }
    )*};
}

int_sources!(
    u8 as u128,
    u16 as u128,
    u32 as u128,
    u64 as u128,
    u128 as u128,
    i8 as i128,
    i16 as i128,
    i32 as i128,
    i64 as i128,
    i128 as i128,
    isize as i128
);

// Which ranges are indexable (docs/pipelines.md's table of sources): `a..b` of every type up
// to 64 bits, whose length fits a 64-bit `usize`, and `a..=b` of the types up to 32 bits.
// `a..=b` of `u64`, `i64`, `usize` and `isize` may hold `usize::MAX + 1` items (`0..=u64::MAX`),
// and every range of `u128` and `i128` more: those are `Wide` (wide.rs), as rayon's are not
// indexed. (`Range<usize>` is a `Source` in foldex-core.)
int_pipes!(
    u8 as u128,
    u16 as u128,
    u32 as u128,
    u64 as u128,
    i8 as i128,
    i16 as i128,
    i32 as i128,
    i64 as i128,
    isize as i128
);

int_inclusive_pipes!(
    u8 as u128,
    u16 as u128,
    u32 as u128,
    i8 as i128,
    i16 as i128,
    i32 as i128
);

impl Source for Ints<usize> {
    type Item = usize;
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn get(&self, index: usize) -> usize {
        assert!(
            index < self.len,
            "index {index} out of a range of {}",
            self.len
        );
        self.start + index
    }
    #[inline]
    fn visit_range<V: RangeVisitor<usize>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let end = range.end.min(self.len);
        let start = range.start.min(end);
        if start == end {
            return visitor.visit(self.start..self.start);
        }
        visitor.visit(self.start + start..=self.start + (end - 1))
    }
}

/// Only where `usize` is narrower than 64 bits: there a `u64` or `i64` range (or an inclusive
/// `u32` / `i32` one) may hold more items than a `usize` counts.
#[cold]
#[track_caller]
fn too_long<T: std::fmt::Debug>(start: &T, end: &T, op: &str) -> usize {
    panic!(
        "the range {start:?}{op}{end:?} has more than usize::MAX ({}) items, and an indexable \
         range counts its items with usize: a range of u128 or i128 has no such limit, and \
         serves every reduction that needs no index (`(a as u128..b as u128).pipe()`, then \
         `.map(|x| x as u64)` with foldex_pipeline::adapters::WideMap in scope)",
        usize::MAX
    )
}

/// The pipeline over the items of `stream`, in the order the iterator gives them: transforms
/// (`map`, `filter`, `flat_map`...) and reductions as on any pipeline, with the same results
/// as `std::iter`; index-preserving adapters (`zip`, `rev`, `skip`...) need an indexable
/// source. It runs once: a second reduction panics, since the iterator is consumed.
///
/// ```
/// use foldex_core::Stream;
/// use foldex_pipeline::from_stream;
/// use foldex_threaded::ThreadedEx;
/// use std::io::BufRead;
///
/// let text = "a bb\nccc\n\ndd e\n";
/// let lines = std::io::Cursor::new(text).lines().map(Result::unwrap);
/// let long_words = from_stream(Stream::new(lines))
///     .flat_map(|line| line.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
///     .filter(|w| w.len() > 1)
///     .count(&ThreadedEx::new());
/// assert_eq!(long_words, 3);
/// ```
pub fn from_stream<I>(stream: Stream<I>) -> Pipeline<Streamed<I>, Xf<Id>>
where
    I: Iterator + Send,
    I::Item: Send,
{
    Pipeline {
        source: Streamed::new(stream),
        transform: Xf(Id),
        codec: None,
    }
}
