//! More ways to cut a slice: `chunks_exact`, `rchunks` and `rchunks_exact` (indexable, like
//! `chunks`), and `chunk_by` and `split` (runs and pieces found by a predicate, so not
//! indexable: cut as [`Blocks`](super::Blocks) of elements, each yielding the runs or pieces
//! that start in it).

use super::blocks::{pieces, Cut, Pieces};
use crate::indexed::SliceSource;
use crate::pipeline::Pipeline;
use crate::stage::Id;
use foldex_core::source::RangeVisitor;
use foldex_core::{ConfigError, Source};
use std::ops::Range;

/// `chunks_exact(size)` of a slice: item `i` is `slice[size * i..size * (i + 1)]`; the
/// remainder (fewer than `size` elements at the end) is not an item.
#[derive(Debug, Clone, Copy)]
pub struct ChunksExact<'s, T> {
    slice: &'s [T],
    size: usize,
}

impl<'s, T: Sync> Source for ChunksExact<'s, T> {
    type Item = &'s [T];
    #[inline]
    fn len(&self) -> usize {
        self.slice.len() / self.size
    }
    #[inline]
    fn get(&self, index: usize) -> &'s [T] {
        &self.slice[index * self.size..(index + 1) * self.size]
    }
    #[inline]
    fn visit_range<V: RangeVisitor<&'s [T]>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        visitor.visit(self.slice[start * self.size..end * self.size].chunks_exact(self.size))
    }
}

/// `rchunks(size)` of a slice: chunks from the end, item `i` the `size` elements before the
/// last `size * i` (the last item shorter if `size` does not divide the length).
#[derive(Debug, Clone, Copy)]
pub struct RChunks<'s, T> {
    slice: &'s [T],
    size: usize,
}

impl<'s, T: Sync> RChunks<'s, T> {
    /// The elements of chunks `range`.
    fn elements(&self, range: Range<usize>) -> &'s [T] {
        let n = self.slice.len();
        let high = n.saturating_sub(range.start.saturating_mul(self.size));
        let low = n.saturating_sub(range.end.saturating_mul(self.size));
        &self.slice[low..high]
    }
}

impl<'s, T: Sync> Source for RChunks<'s, T> {
    type Item = &'s [T];
    #[inline]
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
    #[inline]
    fn get(&self, index: usize) -> &'s [T] {
        assert!(
            index < self.len(),
            "index {index} out of {} chunks",
            self.len()
        );
        self.elements(index..index + 1)
    }
    #[inline]
    fn visit_range<V: RangeVisitor<&'s [T]>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        visitor.visit(self.elements(range).rchunks(self.size))
    }
}

/// `rchunks_exact(size)` of a slice: chunks of exactly `size` from the end; the remainder at
/// the start is not an item.
#[derive(Debug, Clone, Copy)]
pub struct RChunksExact<'s, T> {
    slice: &'s [T],
    size: usize,
}

impl<'s, T: Sync> Source for RChunksExact<'s, T> {
    type Item = &'s [T];
    #[inline]
    fn len(&self) -> usize {
        self.slice.len() / self.size
    }
    #[inline]
    fn get(&self, index: usize) -> &'s [T] {
        let n = self.slice.len();
        &self.slice[n - (index + 1) * self.size..n - index * self.size]
    }
    #[inline]
    fn visit_range<V: RangeVisitor<&'s [T]>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        let n = self.slice.len();
        let items = &self.slice[n - end * self.size..n - start * self.size];
        visitor.visit(items.rchunks_exact(self.size))
    }
}

/// The runs of `slice::chunk_by`: a run starts at 0 and at each `i` where
/// `same(&slice[i - 1], &slice[i])` fails.
#[derive(Debug, Clone, Copy)]
pub struct ChunkByCut<'s, T, P> {
    slice: &'s [T],
    same: P,
}

/// The runs of a `chunk_by` that start in one block.
#[derive(Debug, Clone)]
pub struct BlockRuns<'s, T, P> {
    slice: &'s [T],
    same: P,
    next: usize,
    end: usize,
}

impl<'s, T, P: Fn(&T, &T) -> bool> Iterator for BlockRuns<'s, T, P> {
    type Item = &'s [T];
    #[inline]
    fn next(&mut self) -> Option<&'s [T]> {
        let start = self.next;
        if start >= self.end {
            return None;
        }
        let mut stop = start + 1;
        while stop < self.slice.len() && (self.same)(&self.slice[stop - 1], &self.slice[stop]) {
            stop += 1;
        }
        self.next = stop;
        Some(&self.slice[start..stop])
    }
}

impl<'s, T: Sync, P: Fn(&T, &T) -> bool + Clone + Sync> Cut for ChunkByCut<'s, T, P> {
    type Block = BlockRuns<'s, T, P>;
    fn positions(&self) -> usize {
        self.slice.len()
    }
    #[inline]
    fn starting_in(&self, range: Range<usize>) -> BlockRuns<'s, T, P> {
        let s = self.slice;
        let first = range
            .clone()
            .find(|&i| i == 0 || !(self.same)(&s[i - 1], &s[i]))
            .unwrap_or(range.end);
        BlockRuns {
            slice: s,
            same: self.same.clone(),
            next: first,
            end: range.end,
        }
    }
}

/// The pieces of `slice::split`: a piece starts at 0 and after each element that is a
/// separator (so there is one more piece than separators, empty ones included).
#[derive(Debug, Clone, Copy)]
pub struct SplitSliceCut<'s, T, P> {
    slice: &'s [T],
    separator: P,
}

/// The pieces of a slice's `split` that start in one block.
#[derive(Debug, Clone)]
pub struct BlockSlicePieces<'s, T, P> {
    slice: &'s [T],
    separator: P,
    next: usize,
    end: usize,
}

impl<'s, T, P: Fn(&T) -> bool> Iterator for BlockSlicePieces<'s, T, P> {
    type Item = &'s [T];
    #[inline]
    fn next(&mut self) -> Option<&'s [T]> {
        let start = self.next;
        if start >= self.end {
            return None;
        }
        let rest = &self.slice[start..];
        let stop = rest.iter().position(&self.separator).unwrap_or(rest.len());
        // Past the end of the block when this was the last piece.
        self.next = start + stop + 1;
        Some(&rest[..stop])
    }
}

impl<'s, T: Sync, P: Fn(&T) -> bool + Clone + Sync> Cut for SplitSliceCut<'s, T, P> {
    type Block = BlockSlicePieces<'s, T, P>;
    fn positions(&self) -> usize {
        // A piece may start just past the last element (after a separator there, or in an
        // empty slice).
        self.slice.len() + 1
    }
    #[inline]
    fn starting_in(&self, range: Range<usize>) -> BlockSlicePieces<'s, T, P> {
        let s = self.slice;
        let first = range
            .clone()
            .find(|&i| i == 0 || (self.separator)(&s[i - 1]))
            .unwrap_or(range.end);
        BlockSlicePieces {
            slice: s,
            separator: self.separator.clone(),
            next: first,
            end: range.end,
        }
    }
}

/// More sub-slices of a slice's pipeline (rayon's `par_chunks_exact`, `par_rchunks`,
/// `par_rchunks_exact`, `par_chunk_by`, `par_split`).
impl<'s, S: SliceSource<'s>, K> Pipeline<S, Id, K> {
    fn sliced<T: Source>(self, source: T) -> Pipeline<T, Id, K> {
        Pipeline {
            source,
            transform: Id,
            codec: self.codec,
        }
    }

    /// Sub-slices of exactly `size` items, as `slice::chunks_exact` (the remainder, fewer than
    /// `size` items at the end, is left out).
    ///
    /// # Panics
    /// If `size` is 0: "chunk size must be at least 1, got 0".
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [1, 2, 3, 4, 5];
    /// let sums: Vec<i32> = v.pipe().chunks_exact(2).map(|c| c[0] + c[1]).collect(&SequentialEx);
    /// assert_eq!(sums, [3, 7]);
    /// ```
    #[track_caller]
    pub fn chunks_exact(self, size: usize) -> Pipeline<ChunksExact<'s, S::Elem>, Id, K> {
        let size = ConfigError::require_nonzero("chunk size", size).get();
        let slice = self.source.as_slice();
        self.sliced(ChunksExact { slice, size })
    }

    /// Sub-slices of `size` items from the end (the last one shorter if `size` does not divide
    /// the length), as `slice::rchunks`.
    ///
    /// # Panics
    /// If `size` is 0: "chunk size must be at least 1, got 0".
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [1, 2, 3, 4, 5];
    /// let got: Vec<&[i32]> = v.pipe().rchunks(2).collect(&SequentialEx);
    /// assert_eq!(got, [&[4, 5][..], &[2, 3], &[1]]);
    /// ```
    #[track_caller]
    pub fn rchunks(self, size: usize) -> Pipeline<RChunks<'s, S::Elem>, Id, K> {
        let size = ConfigError::require_nonzero("chunk size", size).get();
        let slice = self.source.as_slice();
        self.sliced(RChunks { slice, size })
    }

    /// Sub-slices of exactly `size` items from the end, as `slice::rchunks_exact` (the
    /// remainder at the start is left out).
    ///
    /// # Panics
    /// If `size` is 0: "chunk size must be at least 1, got 0".
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [1, 2, 3, 4, 5];
    /// let got: Vec<&[i32]> = v.pipe().rchunks_exact(2).collect(&SequentialEx);
    /// assert_eq!(got, [&[4, 5][..], &[2, 3]]);
    /// ```
    #[track_caller]
    pub fn rchunks_exact(self, size: usize) -> Pipeline<RChunksExact<'s, S::Elem>, Id, K> {
        let size = ConfigError::require_nonzero("chunk size", size).get();
        let slice = self.source.as_slice();
        self.sliced(RChunksExact { slice, size })
    }
}

/// Runs and pieces of a slice's pipeline, found by a predicate (rayon's `par_chunk_by`,
/// `par_split`).
impl<'s, S: SliceSource<'s>> Pipeline<S> {
    /// The runs of consecutive items for which `same(previous, next)` holds, as
    /// `slice::chunk_by`. Not indexable: the slice is cut into blocks, each yielding the runs
    /// that start in it, so `same` may be called more than once on a pair at a block's edge
    /// (give it no side effects).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let v = [1, 1, 2, 3, 3, 3, 1];
    /// let runs: Vec<usize> = v.pipe().chunk_by(|a, b| a == b).map(|r| r.len()).collect(&ThreadedEx::new());
    /// assert_eq!(runs, [2, 1, 3, 1]);
    /// ```
    pub fn chunk_by<P>(self, same: P) -> Pieces<ChunkByCut<'s, S::Elem, P>>
    where
        P: Fn(&S::Elem, &S::Elem) -> bool + Clone + Sync,
    {
        let slice = self.source.as_slice();
        pieces(ChunkByCut { slice, same })
    }

    /// The pieces between the items for which `separator` holds, as `slice::split` (a
    /// separator at either end, or two in a row, give an empty piece; an empty slice gives one
    /// empty piece). Not indexable: cut into blocks as [`chunk_by`](Pipeline::chunk_by), so
    /// `separator` may be called more than once on an item at a block's edge.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let v = [1, 0, 2, 3, 0, 0, 4];
    /// let sums: Vec<i32> = v.pipe().split(|&x| x == 0).map(|p| p.iter().sum()).collect(&ThreadedEx::new());
    /// assert_eq!(sums, [1, 5, 0, 4]);
    /// ```
    pub fn split<P>(self, separator: P) -> Pieces<SplitSliceCut<'s, S::Elem, P>>
    where
        P: Fn(&S::Elem) -> bool + Clone + Sync,
    {
        let slice = self.source.as_slice();
        pieces(SplitSliceCut { slice, separator })
    }
}
