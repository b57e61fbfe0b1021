//! `zip_eq`, `interleave` and `interleave_shortest` (rayon's names): index-preserving adapters
//! that pair or alternate the items of two indexable pipelines.

use crate::indexed::{Window, Zip};
use crate::pipeline::{IntoPipeline, Pipeline};
use crate::stage::Id;
use foldex_core::source::{RangeVisitor, Spent};
use foldex_core::Source;
use std::ops::Range;

/// `interleave`: the items of `a` and `b` in turn, `a` first, then the rest of the longer one.
#[derive(Debug, Clone, Copy)]
pub struct Interleave<A, B> {
    pub(crate) a: A,
    pub(crate) b: B,
}

impl<A: Source, B: Source> Interleave<A, B> {
    /// How many items of `a` and of `b` come before item `k`.
    fn before(&self, k: usize) -> (usize, usize) {
        let (a, b) = (self.a.len(), self.b.len());
        let both = a.min(b);
        if k <= 2 * both {
            (k.div_ceil(2), k / 2)
        } else if a > b {
            (k - both, both)
        } else {
            (both, k - both)
        }
    }
}

/// Alternates two iterators, `a` first when `a_next`; once one ends, the other's rest.
struct Alternate<IA, IB> {
    a: IA,
    b: IB,
    a_next: bool,
}

impl<T, IA: Iterator<Item = T>, IB: Iterator<Item = T>> Iterator for Alternate<IA, IB> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.a_next {
            match self.a.next() {
                Some(item) => {
                    self.a_next = false;
                    Some(item)
                }
                None => self.b.next(),
            }
        } else {
            match self.b.next() {
                Some(item) => {
                    self.a_next = true;
                    Some(item)
                }
                None => self.a.next(),
            }
        }
    }
}

struct FirstSide<'b, B, V> {
    b: &'b B,
    range: Range<usize>,
    a_next: bool,
    visitor: V,
}

struct SecondSide<IA, V> {
    a_items: IA,
    a_next: bool,
    visitor: V,
}

impl<T, B: Source<Item = T>, V: RangeVisitor<T>> RangeVisitor<T> for FirstSide<'_, B, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, a_items: I) -> V::Output {
        let (a_next, visitor) = (self.a_next, self.visitor);
        self.b.visit_range(
            self.range,
            SecondSide {
                a_items,
                a_next,
                visitor,
            },
        )
    }
}

impl<T, IA: Iterator<Item = T>, V: RangeVisitor<T>> RangeVisitor<T> for SecondSide<IA, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, b_items: I) -> V::Output {
        self.visitor.visit(Alternate {
            a: self.a_items,
            b: b_items,
            a_next: self.a_next,
        })
    }
}

impl<A: Source, B: Source<Item = A::Item>> Source for Interleave<A, B> {
    type Item = A::Item;
    const HANDS_OUT_ONCE: bool = A::HANDS_OUT_ONCE || B::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = A::MAY_HAVE_SIDE_EFFECT || B::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.a.start_fold()?;
        self.b.start_fold()
    }
    #[inline]
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("interleave: the two lengths overflow usize")
    }
    #[inline]
    fn get(&self, index: usize) -> A::Item {
        let (a, b) = self.before(index);
        if self.before(index + 1).0 > a {
            self.a.get(a)
        } else {
            self.b.get(b)
        }
    }
    #[inline]
    fn visit_range<V: RangeVisitor<A::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        let (a_start, b_start) = self.before(start);
        let (a_end, b_end) = self.before(end);
        // Inside the alternating part, `a` gives the even items; past it, one side is empty.
        let a_next = start.is_multiple_of(2);
        self.a.visit_range(
            a_start..a_end,
            FirstSide {
                b: &self.b,
                range: b_start..b_end,
                a_next,
                visitor,
            },
        )
    }
}

/// `zip_eq`, `interleave` and `interleave_shortest`, on indexable pipelines.
impl<S: Source, K> Pipeline<S, Id, K> {
    /// Pairs item `i` with item `i` of `other`, as [`zip`](Pipeline::zip), for two pipelines of
    /// the same length (rayon's `zip_eq`, itertools' `zip_eq`).
    ///
    /// # Panics
    /// When the lengths differ, naming both: "zip_eq: this pipeline has 3 items and the other
    /// 4".
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let dot: i32 = [1, 2, 3].pipe().zip_eq(&[4, 5, 6]).map(|(a, b)| a * b).sum(&SequentialEx);
    /// assert_eq!(dot, 32);
    /// ```
    #[track_caller]
    pub fn zip_eq<T>(self, other: T) -> Pipeline<Zip<S, T::Source>, Id, K>
    where
        T: IntoPipeline<Source: Source>,
    {
        let other = other.pipe();
        let (a, b) = (self.source.len(), other.source.len());
        assert!(
            a == b,
            "zip_eq: this pipeline has {a} items and the other {b}"
        );
        self.zip(other)
    }

    /// The items of this pipeline and of `other` in turn, this one's first; once one runs
    /// out, the rest of the other (rayon's `interleave`, itertools' `interleave`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = (0..3).pipe().interleave(10..15).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(v, [0, 10, 1, 11, 2, 12, 13, 14]);
    /// ```
    pub fn interleave<T>(self, other: T) -> Pipeline<Interleave<S, T::Source>, Id, K>
    where
        T: IntoPipeline,
        T::Source: Source<Item = S::Item>,
    {
        Pipeline {
            source: Interleave {
                a: self.source,
                b: other.pipe().source,
            },
            transform: Id,
            codec: self.codec,
        }
    }

    /// The items of this pipeline and of `other` in turn, this one's first, until the one
    /// whose turn it is has run out (rayon's `interleave_shortest`, itertools'
    /// `interleave_shortest`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = (0..3).pipe().interleave_shortest(10..15).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(v, [0, 10, 1, 11, 2, 12]);
    /// let w = (0..5).pipe().interleave_shortest(10..12).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(w, [0, 10, 1, 11, 2]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn interleave_shortest<T>(
        self,
        other: T,
    ) -> Pipeline<Interleave<Window<S>, Window<T::Source>>, Id, K>
    where
        T: IntoPipeline,
        T::Source: Source<Item = S::Item>,
    {
        let b = other.pipe().source;
        let (a_len, b_len) = (self.source.len(), b.len());
        let (a_take, b_take) = if a_len <= b_len {
            (a_len, a_len)
        } else {
            (b_len + 1, b_len)
        };
        Pipeline {
            source: Interleave {
                a: Window::new(self.source, 0, a_take),
                b: Window::new(b, 0, b_take),
            },
            transform: Id,
            codec: self.codec,
        }
    }
}
