//! `chain` after a transform: the items of two pipelines, each through its own stages, one
//! after the other. The source reads both sources in turn, each item tagged with its side
//! ([`Side`]); one stage ([`Routed`]) sends each item through its side's stages, so the later
//! stages and the reduction see `std`'s order, and a `Break` after the join (`find_first`,
//! `take_while`) stops both sides.

use crate::indexed::Chain;
use crate::pipeline::Pipeline;
use crate::stage::{Route, Transform, Xf};
use foldex_core::source::{RangeVisitor, Spent};
use foldex_core::{Source, StopProbe};
use std::marker::PhantomData;
use std::ops::{ControlFlow, Range};

/// An item of [`Sides`]: from the first pipeline's source or from the second's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side<L, R> {
    /// An item of the first source.
    First(L),
    /// An item of the second source.
    Second(R),
}

/// The items of `a`, then those of `b`, each tagged with its [`Side`]: the source of a
/// `chain` after a transform.
#[derive(Debug, Clone, Copy)]
pub struct Sides<A, B>(Chain<A, B>);

/// Tags the first side's items, where a range holds none of the second's (`R` is its item).
struct TagFirst<V, R>(V, PhantomData<fn() -> R>);

impl<T, R, V: RangeVisitor<Side<T, R>>> RangeVisitor<T> for TagFirst<V, R> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) -> V::Output {
        self.0.visit(items.map(Side::First))
    }
}

/// Tags the second side's items; the first side's, already tagged, come before them.
struct TagSecond<'b, B, V> {
    b: &'b B,
    range: Range<usize>,
    visitor: V,
}

struct Both<IA, V> {
    first: IA,
    visitor: V,
}

impl<L, B: Source, V: RangeVisitor<Side<L, B::Item>>> RangeVisitor<L> for TagSecond<'_, B, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = L>>(self, a_items: I) -> V::Output {
        let first = a_items.map(Side::First);
        self.b.visit_range(
            self.range,
            Both {
                first,
                visitor: self.visitor,
            },
        )
    }
}

impl<L, R, IA: Iterator<Item = Side<L, R>>, V: RangeVisitor<Side<L, R>>> RangeVisitor<R>
    for Both<IA, V>
{
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = R>>(self, b_items: I) -> V::Output {
        self.visitor
            .visit(self.first.chain(b_items.map(Side::Second)))
    }
}

/// Tags the second side's items, where a range holds none of the first's (`L` is its item).
struct TagOnlySecond<V, L>(V, PhantomData<fn() -> L>);

impl<L, R, V: RangeVisitor<Side<L, R>>> RangeVisitor<R> for TagOnlySecond<V, L> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = R>>(self, items: I) -> V::Output {
        self.0.visit(items.map(Side::Second))
    }
}

impl<A: Source, B: Source> Source for Sides<A, B> {
    type Item = Side<A::Item, B::Item>;
    const HANDS_OUT_ONCE: bool = A::HANDS_OUT_ONCE || B::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = A::MAY_HAVE_SIDE_EFFECT || B::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.0.a.start_fold()?;
        self.0.b.start_fold()
    }
    #[inline]
    fn len(&self) -> usize {
        self.0
            .a
            .len()
            .checked_add(self.0.b.len())
            .expect("chain: the two lengths overflow usize")
    }
    #[inline]
    fn get(&self, index: usize) -> Self::Item {
        let split = self.0.a.len();
        if index < split {
            Side::First(self.0.a.get(index))
        } else {
            Side::Second(self.0.b.get(index - split))
        }
    }
    #[inline]
    fn visit_range<V: RangeVisitor<Self::Item>>(
        &self,
        range: Range<usize>,
        visitor: V,
    ) -> V::Output {
        let (a, b) = (&self.0.a, &self.0.b);
        let split = a.len();
        if range.end <= split {
            a.visit_range(range, TagFirst(visitor, PhantomData))
        } else if range.start >= split {
            b.visit_range(
                range.start - split..range.end - split,
                TagOnlySecond(visitor, PhantomData),
            )
        } else {
            let second = TagSecond {
                b,
                range: 0..range.end - split,
                visitor,
            };
            a.visit_range(range.start..split, second)
        }
    }
}

/// The stage of a `chain` after a transform: each item through its side's stages.
#[derive(Debug, Clone, Copy)]
pub struct Routed<XA, XB> {
    first: XA,
    second: XB,
}

impl<L, R, XA, XB> Transform<Side<L, R>> for Routed<XA, XB>
where
    XA: Transform<L>,
    XB: Transform<R, Out = XA::Out>,
{
    type Out = XA::Out;
    type State = (XA::State, XB::State);

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.plain()
    }

    #[inline]
    fn start(&self) -> Self::State {
        (self.first.start(), self.second.start())
    }

    #[inline]
    fn step<A, K>(
        &self,
        (first, second): &mut Self::State,
        acc: A,
        item: Side<L, R>,
        sink: &mut K,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, XA::Out) -> ControlFlow<A, A>,
    {
        match item {
            Side::First(item) => self.first.step(first, acc, item, sink, probe),
            Side::Second(item) => self.second.step(second, acc, item, sink, probe),
        }
    }
}

/// `chain` once the pipeline has a transform that changes the number of items.
impl<S: Source, T: Transform<S::Item>, K> Pipeline<S, Xf<T>, K> {
    /// The items of this pipeline, then those of `other`, each through its own stages, as
    /// `Iterator::chain`; later stages and the reduction see both, in that order, so a
    /// `find_first` or `take_while` after the join stops both sides.
    ///
    /// # Panics
    /// If either side has a stage that stops the run (`take_while`, `map_while`) or holds
    /// items at a piece's edge (`dedup`, `unique`, `skip_while`): their stop or their held
    /// items would reach across the join. Put those stages after the `chain`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let odd = (0..6).pipe().filter(|x| x % 2 == 1);
    /// let big = (10..20).pipe().map(|x| x * 10).filter(|x| x % 30 == 0);
    /// let both = odd.chain(big);
    /// let ex = ThreadedEx::new();
    /// assert_eq!(both.collect::<Vec<_>>(&ex), [1, 3, 5, 120, 150, 180]);
    /// assert_eq!(both.find_first(&ex, |x| *x > 5), Some(120));
    /// ```
    #[track_caller]
    pub fn chain<S2, X2, K2>(
        self,
        other: Pipeline<S2, X2, K2>,
    ) -> Pipeline<Sides<S, S2>, Xf<Routed<T, X2>>, K>
    where
        S2: Source,
        X2: Transform<S2::Item, Out = T::Out>,
    {
        let (first, second) = (self.transform.0, other.transform);
        assert!(
            !(first.breaks() || first.merges() || second.breaks() || second.merges()),
            "chain: a side with take_while, map_while, dedup, unique or skip_while cannot be \
             chained (its stop or its held items would reach across the join); put those \
             stages after the chain"
        );
        Pipeline {
            source: Sides(Chain {
                a: self.source,
                b: other.source,
            }),
            transform: Xf(Routed { first, second }),
            codec: self.codec,
        }
    }
}
