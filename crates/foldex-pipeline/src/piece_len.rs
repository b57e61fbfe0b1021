//! `with_min_len(n)` / `with_max_len(n)` (rayon's names): bounds a pipeline sets on the
//! length of the pieces its reductions run in, whatever the executor's basesize. They travel
//! to the executor as the source's [`Source::piece_len`], which the fold's job hands on
//! ([`Job::piece_len`](foldex_core::Job::piece_len)); the rule (min wins a conflict) is
//! [`PieceLen`]'s.

use crate::pipeline::Pipeline;
use crate::stage::Id;
use foldex_core::exec::PieceLen;
use foldex_core::source::{RangeVisitor, Spent};
use foldex_core::{ConfigError, Source};
use std::num::NonZeroUsize;
use std::ops::Range;

/// A source whose folds run in pieces within `bounds` (made by
/// [`with_min_len`](Pipeline::with_min_len) and [`with_max_len`](Pipeline::with_max_len));
/// item `i` is its source's item `i`.
#[derive(Debug, Clone, Copy)]
pub struct Bounded<S> {
    inner: S,
    bounds: PieceLen,
}

impl<S: Source> Source for Bounded<S> {
    type Item = S::Item;

    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;

    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;

    fn len(&self) -> usize {
        self.inner.len()
    }

    fn get(&self, index: usize) -> S::Item {
        self.inner.get(index)
    }

    fn start_fold(&self) -> Result<(), Spent> {
        self.inner.start_fold()
    }

    /// The inner source's bounds, tightened by this one's.
    fn piece_len(&self) -> PieceLen {
        self.inner.piece_len().and(self.bounds)
    }

    #[inline]
    fn visit_range<V: RangeVisitor<S::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        self.inner.visit_range(range, visitor)
    }
}

impl<S: Source, K> Pipeline<S, Id, K> {
    fn bounded(self, bounds: PieceLen) -> Pipeline<Bounded<S>, Id, K> {
        Pipeline {
            source: Bounded {
                inner: self.source,
                bounds,
            },
            transform: Id,
            codec: self.codec,
        }
    }

    /// Pieces of at least `min` items (rayon's `with_min_len`): an executor splits a range only
    /// while both halves keep `min` items, so no piece is shorter except one that is all that
    /// is left (the whole input, or a chunking executor's last chunk). For items so cheap that
    /// a piece must hold many to be worth a thread. Bounds set twice keep the tighter; where
    /// `min` and [`with_max_len`](Self::with_max_len) conflict, `min` wins (as in rayon).
    /// `with_min_len(0)` is no bound, as `with_min_len(1)` and as in rayon.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let ex = ThreadedEx::new().basesize(1);
    /// // One `Vec` per piece: every piece has at least 10 items, but the last may be shorter.
    /// let pieces = (0..100).pipe().with_min_len(10).fold_pieces(Vec::new, |mut v, x| {
    ///     v.push(x);
    ///     v
    /// });
    /// let lens: Vec<usize> = pieces.collect::<Vec<_>>(&ex).iter().map(Vec::len).collect();
    /// assert_eq!(lens.iter().sum::<usize>(), 100);
    /// assert!(lens.iter().all(|&n| n >= 10), "{lens:?}");
    /// ```
    pub fn with_min_len(self, min: usize) -> Pipeline<Bounded<S>, Id, K> {
        let bounds = match NonZeroUsize::new(min) {
            Some(min) => PieceLen::ANY.at_least(min),
            None => PieceLen::ANY,
        };
        self.bounded(bounds)
    }

    /// Pieces of at most `max` items (rayon's `with_max_len`): an executor splits further
    /// where its basesize would not, so that a few expensive items spread over its threads
    /// (`with_max_len(1)`: one item per piece) while the executor keeps its automatic
    /// basesize for other pipelines. Bounds set twice keep the tighter; where
    /// [`with_min_len`](Self::with_min_len) asks for more, `min` wins.
    ///
    /// # Panics
    /// If `max` is 0: "with_max_len must be at least 1, got 0" (rayon treats 0 as 1; a piece
    /// of no items is a bug worth naming).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// use foldex_threaded::ThreadedEx;
    /// let sum = |ex: &dyn foldex_core::Executor| (0..1000u64).pipe().with_max_len(16).sum::<u64>(ex);
    /// assert_eq!(sum(&ThreadedEx::new()), 499_500);
    /// // Every executor keeps the bound, the sequential one too (in order, on the caller).
    /// let lens = (0..40).pipe().with_max_len(16).fold_pieces(|| 0, |n, _| n + 1);
    /// assert!(lens.collect::<Vec<usize>>(&SequentialEx).iter().all(|&n| n <= 16));
    /// ```
    #[track_caller]
    pub fn with_max_len(self, max: usize) -> Pipeline<Bounded<S>, Id, K> {
        let max = ConfigError::require_nonzero("with_max_len", max);
        self.bounded(PieceLen::ANY.at_most(max))
    }
}
