//! Bounds on the length of the pieces an executor runs, set by the fold ([`Job::piece_len`](crate::Job::piece_len)),
//! and the chunking rules that honour them, shared by every executor.
//!
//! The protocol: a job may ask for pieces (the ranges passed to [`Job::run`](crate::Job::run) or
//! [`Job::run_while_waiting`](crate::Job::run_while_waiting)) of at least [`PieceLen::min`] and at most [`PieceLen::max`]
//! indices (rayon's `with_min_len` / `with_max_len`). The executor keeps its own basesize
//! between the bounds:
//!
//! - **max**: no piece longer than `max`; an executor splits further where its basesize (or
//!   its budget of splits) would not.
//! - **min**: no piece shorter than `min`, unless the whole job is: a range is halved only
//!   while both halves keep `min` indices (rayon's rule), and a chunking executor cuts fewer,
//!   even chunks where its last one would be shorter ([`PieceLen::chunking`]).
//! - **min wins** where the two conflict: a range is never cut into a piece shorter than
//!   `min`, even when that leaves a piece longer than `max` (with `min = 3, max = 4`, a range of
//!   5 stays whole). Every piece is at most `max(max, 2 × min − 1)` long, the bound rayon's
//!   own test checks.
//! - A range run after the job stopped ([`Job::is_stopped`](crate::Job::is_stopped)) returns at once without folding,
//!   and may be of any length.
//!
//! Executors honour the bounds through the toolkit's chunking: [`PieceLen::split`] for the
//! halving executors, [`PieceLen::chunking`] for the chunking ones, [`run_pieces`](crate::exec::run_pieces) wherever a
//! range runs on one thread.

use std::fmt;
use std::num::NonZeroUsize;
use std::ops::Range;

/// Bounds on the length of a job's pieces ([`Job::piece_len`](crate::Job::piece_len)); unbounded by default
/// (`min` 1, `max` `usize::MAX`).
///
/// ```
/// use foldex_core::exec::PieceLen;
/// use std::num::NonZeroUsize;
/// let n = |n| NonZeroUsize::new(n).unwrap();
/// let bounds = PieceLen::ANY.at_least(n(3)).at_most(n(10));
/// assert_eq!((bounds.min(), bounds.max()), (3, 10));
/// // Split while longer than the basesize (4) or than max, and while both halves keep 3.
/// assert_eq!(bounds.split(0..40, 4), Some((0..20, 20..40)));
/// assert_eq!(bounds.split(0..20, 100), Some((0..10, 10..20)), "above max");
/// assert_eq!(bounds.split(0..10, 4), Some((0..5, 5..10)));
/// assert_eq!(bounds.split(0..5, 1), None, "a half of 2 would be under min");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PieceLen {
    min: usize,
    max: usize,
}

impl Default for PieceLen {
    fn default() -> Self {
        Self::ANY
    }
}

impl fmt::Debug for PieceLen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PieceLen({}..=", self.min)?;
        if self.max == usize::MAX {
            f.write_str("any)")
        } else {
            write!(f, "{})", self.max)
        }
    }
}

impl PieceLen {
    /// No bounds: pieces are whatever the executor makes them.
    pub const ANY: Self = Self {
        min: 1,
        max: usize::MAX,
    };

    /// These bounds with `min` raised to at least `min` (rayon's `with_min_len`).
    #[must_use]
    pub fn at_least(self, min: NonZeroUsize) -> Self {
        Self {
            min: self.min.max(min.get()),
            ..self
        }
    }

    /// These bounds with `max` lowered to at most `max` (rayon's `with_max_len`).
    #[must_use]
    pub fn at_most(self, max: NonZeroUsize) -> Self {
        Self {
            max: self.max.min(max.get()),
            ..self
        }
    }

    /// Both bounds at once, the tighter of each: for a source that reads two others (`zip`,
    /// `chain`).
    #[must_use]
    pub fn and(self, other: Self) -> Self {
        Self {
            min: self.min.max(other.min),
            max: self.max.min(other.max),
        }
    }

    /// The shortest piece asked for (at least 1).
    pub fn min(&self) -> usize {
        self.min
    }

    /// The longest piece asked for (`usize::MAX` when unbounded).
    pub fn max(&self) -> usize {
        self.max
    }

    /// `true` for [`PieceLen::ANY`].
    pub fn is_any(&self) -> bool {
        *self == Self::ANY
    }

    /// The two halves of `range`, or `None` for a leaf: split while it is longer than
    /// `basesize` or than `max`, but only while both halves keep `min` indices (min wins). An
    /// executor that would not split at all (a budget of splits spent) passes `usize::MAX` as
    /// `basesize`, and still splits above `max`.
    #[inline]
    pub fn split(
        &self,
        range: Range<usize>,
        basesize: usize,
    ) -> Option<(Range<usize>, Range<usize>)> {
        let len = range.end.saturating_sub(range.start);
        if len / 2 < self.min {
            return None;
        }
        let floor = basesize.min(self.max);
        crate::chunk::split(range, floor)
    }

    /// The chunk length for a chunking executor whose own choice is `chunk`: `chunk` clamped
    /// to the bounds, `min` winning a conflict. [`chunking`](Self::chunking) cuts a job with
    /// it.
    ///
    /// ```
    /// use foldex_core::exec::PieceLen;
    /// use std::num::NonZeroUsize;
    /// let at_most_8 = PieceLen::ANY.at_most(NonZeroUsize::new(8).unwrap());
    /// assert_eq!(at_most_8.chunk_len(100), 8);
    /// assert_eq!(at_most_8.chunk_len(5), 5);
    /// let conflict = at_most_8.at_least(NonZeroUsize::new(20).unwrap());
    /// assert_eq!(conflict.chunk_len(5), 20, "min wins");
    /// ```
    pub fn chunk_len(&self, chunk: usize) -> usize {
        chunk.min(self.max).max(self.min).max(1)
    }

    /// How a chunking executor whose own chunk length is `chunk` cuts `0..len` within these
    /// bounds: chunks of [`chunk_len`](Self::chunk_len)`(chunk)` (the last one shorter), as
    /// [`chunks`](crate::exec::chunks) cuts them, unless that last chunk would be shorter
    /// than `min`; then fewer chunks, as even as can be, so that none is (min wins over `max`).
    /// With no `min`, exactly `chunks(len, chunk)`.
    ///
    /// ```
    /// use foldex_core::exec::PieceLen;
    /// use std::num::NonZeroUsize;
    /// let at_least_3 = PieceLen::ANY.at_least(NonZeroUsize::new(3).unwrap());
    /// let cut = at_least_3.chunking(10, 4);
    /// assert_eq!((0..cut.count()).map(|i| cut.chunk(i)).collect::<Vec<_>>(), [0..4, 4..7, 7..10]);
    /// let cut = PieceLen::ANY.chunking(10, 4);
    /// assert_eq!((0..cut.count()).map(|i| cut.chunk(i)).collect::<Vec<_>>(), [0..4, 4..8, 8..10]);
    /// ```
    pub fn chunking(&self, len: usize, chunk: usize) -> Chunking {
        let size = self.chunk_len(chunk);
        let exact = len.div_ceil(size);
        let last = len - exact.saturating_sub(1) * size;
        if exact <= 1 || last >= self.min {
            return Chunking {
                len,
                count: exact,
                size,
                extra: None,
            };
        }
        // `len ≥ size ≥ min` here, so at least one chunk of `min`.
        let count = exact.min(len / self.min).max(1);
        Chunking {
            len,
            count,
            size: len / count,
            extra: Some(len % count),
        }
    }

    /// Consecutive pieces that cover `range`, no longer than `max` and no shorter than `min`
    /// (unless `range` itself is; min wins): how a range that runs on one thread honours the
    /// bounds. One piece, `range` itself, when it is within `max`.
    ///
    /// ```
    /// use foldex_core::exec::PieceLen;
    /// use std::num::NonZeroUsize;
    /// let at_most_4 = PieceLen::ANY.at_most(NonZeroUsize::new(4).unwrap());
    /// assert_eq!(at_most_4.pieces(0..10).collect::<Vec<_>>(), [0..4, 4..8, 8..10]);
    /// assert_eq!(PieceLen::ANY.pieces(3..9).collect::<Vec<_>>(), [3..9]);
    /// ```
    pub fn pieces(&self, range: Range<usize>) -> impl Iterator<Item = Range<usize>> + Clone {
        let start = range.start;
        let cut = self.chunking(range.end.saturating_sub(start), self.max);
        // An empty range is one empty piece.
        (0..cut.count().max(1)).map(move |i| {
            let piece = cut.chunk(i);
            start + piece.start..start + piece.end
        })
    }
}

/// How a chunking executor cuts a job into numbered chunks within its bounds on piece
/// lengths ([`PieceLen::chunking`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunking {
    len: usize,
    count: usize,
    size: usize,
    /// `None`: chunks of `size`, the last shorter. `Some(extra)`: `count` even chunks, the
    /// first `extra` of them one longer than `size`.
    extra: Option<usize>,
}

impl Chunking {
    /// How many chunks cover `0..len` (none for an empty job).
    pub fn count(&self) -> usize {
        self.count
    }

    /// Chunk number `index` (an empty range at `len` past the last).
    pub fn chunk(&self, index: usize) -> Range<usize> {
        match self.extra {
            None => crate::chunk::chunk(self.len, self.size, index),
            Some(_) if index >= self.count => self.len..self.len,
            Some(extra) => {
                let start = index * self.size + index.min(extra);
                start..start + self.size + usize::from(index < extra)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(min: usize, max: usize) -> PieceLen {
        PieceLen::ANY
            .at_least(NonZeroUsize::new(min).unwrap())
            .at_most(NonZeroUsize::new(max).unwrap())
    }

    fn leaves(b: PieceLen, range: Range<usize>, basesize: usize) -> Vec<Range<usize>> {
        match b.split(range.clone(), basesize) {
            None => vec![range],
            Some((l, r)) => [leaves(b, l, basesize), leaves(b, r, basesize)].concat(),
        }
    }

    /// Consecutive, covering `0..len`, each at least `min` (unless there is one) and at most
    /// `max(max, 2 min - 1)`.
    fn check(b: PieceLen, len: usize, got: &[Range<usize>], what: &str) {
        assert_eq!(got.first().map_or(0, |r| r.start), 0, "{what}");
        assert_eq!(got.last().map_or(0, |r| r.end), len, "{what}");
        assert!(got.windows(2).all(|w| w[0].end == w[1].start), "{what}");
        let longest = b.max().max(2 * b.min() - 1);
        for r in got {
            assert!(
                r.len() >= b.min() || got.len() == 1,
                "{what}: {b:?} {len} {got:?}"
            );
            assert!(r.len() <= longest, "{what}: {b:?} {len} {got:?}");
        }
    }

    #[test]
    fn split_chunking_and_pieces_keep_within_bounds() {
        for min in 1..8 {
            for max in 1..20 {
                let b = bounds(min, max);
                for len in 0..200 {
                    for basesize in [1, 3, 50, usize::MAX] {
                        check(b, len, &leaves(b, 0..len, basesize), "split");
                        let cut = b.chunking(len, basesize);
                        let chunks: Vec<_> = (0..cut.count()).map(|i| cut.chunk(i)).collect();
                        check(b, len, &chunks, "chunking");
                        assert!(cut.chunk(cut.count()).is_empty());
                    }
                    check(b, len, &b.pieces(0..len).collect::<Vec<_>>(), "pieces");
                }
            }
        }
    }

    #[test]
    fn no_bounds_keep_the_executors_own_cut() {
        for len in 0..100 {
            for chunk in 1..12 {
                let cut = PieceLen::ANY.chunking(len, chunk);
                let got: Vec<_> = (0..cut.count()).map(|i| cut.chunk(i)).collect();
                assert_eq!(got, crate::chunk::chunks(len, chunk).collect::<Vec<_>>());
                assert_eq!(
                    PieceLen::ANY.split(0..len, chunk),
                    crate::chunk::split(0..len, chunk)
                );
            }
        }
    }

    #[test]
    fn min_wins_over_max() {
        let b = bounds(3, 4);
        let whole = Some(0..5);
        assert_eq!(leaves(b, 0..5, 1).into_iter().reduce(|_, r| r), whole);
        assert_eq!(leaves(b, 0..5, 1).len(), 1);
        assert_eq!(b.pieces(0..5).collect::<Vec<_>>().len(), 1);
        assert_eq!(bounds(10, 2).chunk_len(1), 10);
    }
}
