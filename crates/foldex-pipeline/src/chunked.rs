//! `chunks(n)` of any indexable pipeline (rayon's `IndexedParallelIterator::chunks`): the
//! source chooses what a chunk is ([`ChunkSource`]), a sub-slice for a slice, a `Vec` of the
//! items for any other source.

use crate::indexed::{
    ByRef, Chain, Chunks, ChunksMut, Cloned, Enumerate, Map, Rev, StepBy, Window, Windows, Zip,
};
use crate::interleave::Interleave;
use crate::pipeline::Pipeline;
use crate::sources::{ChunksExact, Empty, Gathered, Ints, RChunks, RChunksExact, RepeatN};
use crate::stage::Id;
use crate::update::Update;
use foldex_core::progress::Tracked;
use foldex_core::source::{MutSlice, OwnedVec, RangeVisitor, Spent};
use foldex_core::{ConfigError, Source};
use std::num::NonZeroUsize;
use std::ops::Range;

/// A source that can be cut into chunks of consecutive items: what
/// [`Pipeline::chunks`](crate::Pipeline::chunks) makes of it.
///
/// A slice (`&[T]`, `&Vec<T>`, `&[T; N]`) gives sub-slices, as `slice::chunks` (rayon's
/// `par_chunks`), so that no item is copied; every other source gives [`VecChunks`], each
/// chunk a `Vec` of its items (rayon's `IndexedParallelIterator::chunks`). One name, one
/// meaning: "the next `n` items, together". For a source of your own:
///
/// ```
/// use foldex_core::Source;
/// use foldex_pipeline::adapters::{ChunkSource, VecChunks};
/// use foldex_pipeline::from_source;
/// use foldex_seq::SequentialEx;
/// use std::num::NonZeroUsize;
///
/// struct Squares(usize);
/// impl Source for Squares {
///     type Item = u64;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> u64 { (i * i) as u64 }
/// }
/// impl ChunkSource for Squares {
///     type Chunks = VecChunks<Self>;
///     fn chunks(self, size: NonZeroUsize) -> VecChunks<Self> {
///         VecChunks::new(self, size)
///     }
/// }
/// let pairs = from_source(Squares(5)).chunks(2).collect::<Vec<_>>(&SequentialEx);
/// assert_eq!(pairs, [vec![0, 1], vec![4, 9], vec![16]]);
/// ```
pub trait ChunkSource: Source + Sized {
    /// The source of the chunks.
    type Chunks: Source;
    /// This source cut into chunks of `size` items (the last one shorter if `size` does not
    /// divide the length).
    fn chunks(self, size: NonZeroUsize) -> Self::Chunks;
}

/// `chunks(size)` of any source: item `i` is a `Vec` of the items `size * i..` (at most
/// `size` of them).
#[derive(Debug, Clone, Copy)]
pub struct VecChunks<S> {
    inner: S,
    size: usize,
}

impl<S: Source> VecChunks<S> {
    /// `inner` cut into chunks of `size` items.
    pub fn new(inner: S, size: NonZeroUsize) -> Self {
        Self {
            inner,
            size: size.get(),
        }
    }

    /// The items of chunks `range` in `inner`.
    fn items(&self, range: Range<usize>) -> Range<usize> {
        let len = self.inner.len();
        let end = range.end.saturating_mul(self.size).min(len);
        range.start.saturating_mul(self.size).min(end)..end
    }
}

/// Groups an iterator's items into `Vec`s of `size`.
struct Grouped<I> {
    items: I,
    size: usize,
}

impl<I: Iterator> Iterator for Grouped<I> {
    type Item = Vec<I::Item>;
    #[inline]
    fn next(&mut self) -> Option<Vec<I::Item>> {
        let chunk: Vec<I::Item> = self.items.by_ref().take(self.size).collect();
        (!chunk.is_empty()).then_some(chunk)
    }
}

struct GroupVisitor<V> {
    size: usize,
    visitor: V,
}

impl<T, V: RangeVisitor<Vec<T>>> RangeVisitor<T> for GroupVisitor<V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) -> V::Output {
        let size = self.size;
        self.visitor.visit(Grouped { items, size })
    }
}

/// Collects a range's items.
struct Collect;

impl<T> RangeVisitor<T> for Collect {
    type Output = Vec<T>;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) -> Vec<T> {
        items.collect()
    }
}

impl<S: Source> Source for VecChunks<S> {
    type Item = Vec<S::Item>;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.inner.start_fold()
    }
    #[inline]
    fn len(&self) -> usize {
        self.inner.len().div_ceil(self.size)
    }
    #[inline]
    fn get(&self, index: usize) -> Vec<S::Item> {
        self.inner
            .visit_range(self.items(index..index + 1), Collect)
    }
    #[inline]
    fn visit_range<V: RangeVisitor<Vec<S::Item>>>(
        &self,
        range: Range<usize>,
        visitor: V,
    ) -> V::Output {
        let size = self.size;
        self.inner
            .visit_range(self.items(range), GroupVisitor { size, visitor })
    }
}

/// Slices give sub-slices.
macro_rules! slice_chunks {
    ($([$($g:tt)*] $ty:ty;)*) => {$(
        impl<'s, T: Sync, $($g)*> ChunkSource for $ty {
            type Chunks = Chunks<'s, T>;
            fn chunks(self, size: NonZeroUsize) -> Chunks<'s, T> {
                let slice: &'s [T] = &self[..];
                Chunks {
                    slice,
                    size: size.get(),
                }
            }
        }
    )*};
}

slice_chunks! {
    [] &'s [T];
    [] &'s Vec<T>;
    [const N: usize] &'s [T; N];
}

/// Every other source of the crate gives `Vec`s.
macro_rules! vec_chunks {
    ($([$($g:tt)*] $ty:ty $(where [$($bound:tt)*])?;)*) => {$(
        impl<$($g)*> ChunkSource for $ty where $ty: Source, $($($bound)*)? {
            type Chunks = VecChunks<Self>;
            fn chunks(self, size: NonZeroUsize) -> VecChunks<Self> {
                VecChunks::new(self, size)
            }
        }
    )*};
}

vec_chunks! {
    [] Range<usize>;
    [T] Ints<T>;
    ['p, S] ByRef<'p, S>;
    [S, F] Map<S, F>;
    [S] Cloned<S>;
    [S] Enumerate<S>;
    [A, B] Zip<A, B>;
    [S] Window<S>;
    [S] StepBy<S>;
    [S] Rev<S>;
    [A, B] Chain<A, B>;
    [A, B] Interleave<A, B>;
    [S, F] Update<S, F>;
    [S] VecChunks<S>;
    ['s, T] Chunks<'s, T>;
    ['s, T] Windows<'s, T>;
    ['s, T] ChunksMut<'s, T>;
    ['s, T] MutSlice<'s, T>;
    [T] OwnedVec<T>;
    [T] Gathered<T>;
    [T] RepeatN<T>;
    [T] Empty<T>;
    ['s, T] ChunksExact<'s, T>;
    ['s, T] RChunks<'s, T>;
    ['s, T] RChunksExact<'s, T>;
    ['p, S] Tracked<'p, S>;
}

/// `chunks` on every indexable pipeline whose source says what its chunks are.
impl<S: Source, K> Pipeline<S, Id, K> {
    /// Chunks of `size` consecutive items (the last one shorter if `size` does not divide the
    /// length): sub-slices of a slice, as `slice::chunks` (rayon's `par_chunks`), and `Vec`s
    /// of the items of any other indexable pipeline (rayon's `chunks`). The source chooses
    /// ([`ChunkSource`]): one name for one meaning, and no copy
    /// where the items are already contiguous.
    ///
    /// # Panics
    /// If `size` is 0: "chunk size must be at least 1, got 0".
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [1, 2, 3, 4, 5];
    /// let sums = v.pipe().chunks(2).map(|c| c.iter().sum::<i32>()).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(sums, [3, 7, 5]);
    /// let rows = (0..5).pipe().map(|x| x * 10).chunks(2).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(rows, [vec![0, 10], vec![20, 30], vec![40]]);
    /// ```
    #[track_caller]
    pub fn chunks(self, size: usize) -> Pipeline<S::Chunks, Id, K>
    where
        S: ChunkSource,
    {
        let size = ConfigError::require_nonzero("chunk size", size);
        Pipeline {
            source: self.source.chunks(size),
            transform: Id,
            codec: self.codec,
        }
    }
}
