//! Index-preserving adapters: each is a [`Source`] again, item `i` of the result a function of
//! the inner sources' items at known indices, so executors split them like any source and
//! [`Source::visit_range`] stays the inner source's fast iterator wherever the adapter allows.
//! Each forwards [`Source::HANDS_OUT_ONCE`] and [`Source::start_fold`] to the sources it reads,
//! so that a pipeline over a mutable slice or a `Vec` by value refuses a second run, saying so.
//! Those whose item `i` is item `i` of their sources forward [`Source::piece_len`] too (the
//! tighter bounds of both, for `zip` and `chain`), so that `with_max_len` holds after them.

use crate::effects::{Drain, SkipFirst, Stepped};
use crate::stage::Transform;
use foldex_core::exec::PieceLen;
use foldex_core::source::{MutSlice, RangeVisitor, Spent};
use foldex_core::Source;
use std::ops::Range;

/// A source borrowed, so that a pipeline can be run more than once.
#[derive(Debug)]
pub struct ByRef<'p, S>(pub(crate) &'p S);

impl<S: Source> Source for ByRef<'_, S> {
    type Item = S::Item;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.0.start_fold()
    }

    fn piece_len(&self) -> PieceLen {
        self.0.piece_len()
    }
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn get(&self, index: usize) -> S::Item {
        self.0.get(index)
    }
    #[inline]
    fn visit_range<V: RangeVisitor<S::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        self.0.visit_range(range, visitor)
    }
}

/// `map` on an indexable pipeline: item `i` is `f(inner[i])`.
#[derive(Clone, Copy)]
pub struct Map<S, F> {
    pub(crate) inner: S,
    pub(crate) f: F,
}

/// The source, without the closure (as rayon prints its adapters).
impl<S: std::fmt::Debug, F> std::fmt::Debug for Map<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Map")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

struct MapVisitor<'f, F, V> {
    f: &'f F,
    visitor: V,
}

impl<In, R, F: Fn(In) -> R, V: RangeVisitor<R>> RangeVisitor<In> for MapVisitor<'_, F, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = In>>(self, items: I) -> V::Output {
        self.visitor.visit(items.map(self.f))
    }
}

impl<S: Source, R, F: Fn(S::Item) -> R + Sync> Source for Map<S, F> {
    type Item = R;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = true;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.inner.start_fold()
    }

    fn piece_len(&self) -> PieceLen {
        self.inner.piece_len()
    }
    #[inline]
    fn len(&self) -> usize {
        self.inner.len()
    }
    #[inline]
    fn get(&self, index: usize) -> R {
        (self.f)(self.inner.get(index))
    }
    #[inline]
    fn visit_range<V: RangeVisitor<R>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let f = &self.f;
        self.inner.visit_range(range, MapVisitor { f, visitor })
    }
}

/// `enumerate`: item `i` is `(i, inner[i])`, with `i` the global index whatever the split.
#[derive(Debug, Clone, Copy)]
pub struct Enumerate<S>(pub(crate) S);

struct EnumerateVisitor<V> {
    start: usize,
    visitor: V,
}

impl<T, V: RangeVisitor<(usize, T)>> RangeVisitor<T> for EnumerateVisitor<V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) -> V::Output {
        let start = self.start;
        self.visitor
            .visit(items.enumerate().map(move |(k, item)| (start + k, item)))
    }
}

impl<S: Source> Source for Enumerate<S> {
    type Item = (usize, S::Item);
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.0.start_fold()
    }

    fn piece_len(&self) -> PieceLen {
        self.0.piece_len()
    }
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn get(&self, index: usize) -> (usize, S::Item) {
        (index, self.0.get(index))
    }
    #[inline]
    fn visit_range<V: RangeVisitor<Self::Item>>(
        &self,
        range: Range<usize>,
        visitor: V,
    ) -> V::Output {
        let start = range.start;
        self.0
            .visit_range(range, EnumerateVisitor { start, visitor })
    }
}

/// `zip`: item `i` is `(a[i], b[i])`, over the shorter of the two (as `Iterator::zip`).
#[derive(Debug, Clone, Copy)]
pub struct Zip<A, B> {
    pub(crate) a: A,
    pub(crate) b: B,
}

struct ZipFirst<'b, B, V> {
    b: &'b B,
    range: Range<usize>,
    visitor: V,
}

struct ZipSecond<IA, V> {
    a_items: IA,
    visitor: V,
}

impl<TA, B: Source, V: RangeVisitor<(TA, B::Item)>> RangeVisitor<TA> for ZipFirst<'_, B, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = TA>>(self, a_items: I) -> V::Output {
        let visitor = self.visitor;
        self.b
            .visit_range(self.range, ZipSecond { a_items, visitor })
    }
}

impl<IA: Iterator, TB, V: RangeVisitor<(IA::Item, TB)>> RangeVisitor<TB> for ZipSecond<IA, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = TB>>(self, b_items: I) -> V::Output {
        self.visitor.visit(self.a_items.zip(b_items))
    }
}

impl<A: Source, B: Source> Source for Zip<A, B> {
    type Item = (A::Item, B::Item);
    const HANDS_OUT_ONCE: bool = A::HANDS_OUT_ONCE || B::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = A::MAY_HAVE_SIDE_EFFECT || B::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.a.start_fold()?;
        self.b.start_fold()
    }

    fn piece_len(&self) -> PieceLen {
        self.a.piece_len().and(self.b.piece_len())
    }
    #[inline]
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }
    /// Reading by index is reading backwards (`rev`): the last item first reads what the
    /// longer side has beyond it, as `std`'s `Zip::next_back` does.
    #[inline]
    fn get(&self, index: usize) -> Self::Item {
        if Self::MAY_HAVE_SIDE_EFFECT && index + 1 == self.len() {
            self.a.visit_range(index + 1..self.a.len(), Drain);
            self.b.visit_range(index + 1..self.b.len(), Drain);
        }
        (self.a.get(index), self.b.get(index))
    }
    #[inline]
    fn visit_range<V: RangeVisitor<Self::Item>>(
        &self,
        range: Range<usize>,
        visitor: V,
    ) -> V::Output {
        let (b, second) = (&self.b, range.clone());
        self.a.visit_range(
            range,
            ZipFirst {
                b,
                range: second,
                visitor,
            },
        )
    }
}

/// `skip(n)` then `take(m)` in one: the window `start..start + len` of the inner source.
#[derive(Debug, Clone, Copy)]
pub struct Window<S> {
    pub(crate) inner: S,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl<S: Source> Window<S> {
    pub(crate) fn new(inner: S, start: usize, len: usize) -> Self {
        let start = start.min(inner.len());
        let len = len.min(inner.len() - start);
        Self { inner, start, len }
    }
}

impl<S: Source> Source for Window<S> {
    type Item = S::Item;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;
    /// A `skip` that leaves no item reads what it drops here, as `std`'s reads it at the
    /// first pull (the rule: `effects.rs`).
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.inner.start_fold()?;
        if S::MAY_HAVE_SIDE_EFFECT && self.len == 0 && self.start == self.inner.len() {
            self.inner.visit_range(0..self.start, Drain);
        }
        Ok(())
    }

    fn piece_len(&self) -> PieceLen {
        self.inner.piece_len()
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    /// Reading by index is reading backwards (`rev`): the last item first reads what a `take`
    /// dropped after it, as `std`'s `Take::next_back` does.
    #[inline]
    fn get(&self, index: usize) -> S::Item {
        assert!(
            index < self.len,
            "index {index} out of a pipeline of {}",
            self.len
        );
        let at = self.start + index;
        if S::MAY_HAVE_SIDE_EFFECT && index + 1 == self.len {
            self.inner.visit_range(at + 1..self.inner.len(), Drain);
        }
        self.inner.get(at)
    }
    /// The piece that holds the first item reads the dropped prefix first, as `std`'s `Skip`.
    #[inline]
    fn visit_range<V: RangeVisitor<S::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let end = range.end.min(self.len);
        let start = range.start.min(end);
        if S::MAY_HAVE_SIDE_EFFECT && start == 0 && end > 0 && self.start > 0 {
            let n = self.start;
            return self
                .inner
                .visit_range(0..self.start + end, SkipFirst { n, visitor });
        }
        self.inner
            .visit_range(self.start + start..self.start + end, visitor)
    }
}

/// `step_by(step)`: item `i` is `inner[i * step]`.
#[derive(Debug, Clone, Copy)]
pub struct StepBy<S> {
    pub(crate) inner: S,
    pub(crate) step: usize,
}

struct StepByVisitor<V> {
    step: usize,
    visitor: V,
}

impl<T, V: RangeVisitor<T>> RangeVisitor<T> for StepByVisitor<V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) -> V::Output {
        self.visitor.visit(items.step_by(self.step))
    }
}

impl<S: Source> Source for StepBy<S> {
    type Item = S::Item;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.inner.start_fold()
    }
    #[inline]
    fn len(&self) -> usize {
        self.inner.len().div_ceil(self.step)
    }
    /// Reading by index is reading backwards (`rev`): item `i` first reads the items between
    /// it and the next one (the tail, for the last), as `std`'s `StepBy::next_back` does.
    #[inline]
    fn get(&self, index: usize) -> S::Item {
        let at = index * self.step;
        if S::MAY_HAVE_SIDE_EFFECT {
            let next = at.saturating_add(self.step).min(self.inner.len());
            self.inner.visit_range(at + 1..next, Drain);
        }
        self.inner.get(at)
    }
    /// With side effects, item `i > 0` reads the items between it and the one before first,
    /// and the piece that ends the pipeline reads the tail after its last item, as `std`'s
    /// `StepBy` does when pulled to its end.
    #[inline]
    fn visit_range<V: RangeVisitor<S::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let len = self.len();
        let end = range.end.min(len);
        let start = range.start.min(end);
        if start == end {
            return visitor.visit(std::iter::empty());
        }
        if S::MAY_HAVE_SIDE_EFFECT {
            let lead = if start == 0 { 0 } else { self.step - 1 };
            let first = start * self.step - lead;
            let last = if end == len {
                self.inner.len()
            } else {
                (end - 1) * self.step + 1
            };
            let visitor = Stepped {
                lead,
                step: self.step,
                count: end - start,
                tail: end == len,
                visitor,
            };
            return self.inner.visit_range(first..last, visitor);
        }
        // From the first item's index to just past the last one's.
        let inner = start * self.step..(end - 1) * self.step + 1;
        let step = self.step;
        self.inner
            .visit_range(inner, StepByVisitor { step, visitor })
    }
}

/// `rev`: item `i` is `inner[len - 1 - i]` (by index: a range visitor gets a forward iterator).
#[derive(Debug, Clone, Copy)]
pub struct Rev<S>(pub(crate) S);

impl<S: Source> Source for Rev<S> {
    type Item = S::Item;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.0.start_fold()
    }

    fn piece_len(&self) -> PieceLen {
        self.0.piece_len()
    }
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn get(&self, index: usize) -> S::Item {
        self.0.get(self.0.len() - 1 - index)
    }
}

/// `chain`: the items of `a`, then those of `b`.
#[derive(Debug, Clone, Copy)]
pub struct Chain<A, B> {
    pub(crate) a: A,
    pub(crate) b: B,
}

struct ChainFirst<'b, B, V> {
    b: &'b B,
    range: Range<usize>,
    visitor: V,
}

struct ChainSecond<IA, V> {
    a_items: IA,
    visitor: V,
}

impl<T, B: Source<Item = T>, V: RangeVisitor<T>> RangeVisitor<T> for ChainFirst<'_, B, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, a_items: I) -> V::Output {
        let visitor = self.visitor;
        self.b
            .visit_range(self.range, ChainSecond { a_items, visitor })
    }
}

impl<T, IA: Iterator<Item = T>, V: RangeVisitor<T>> RangeVisitor<T> for ChainSecond<IA, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, b_items: I) -> V::Output {
        self.visitor.visit(self.a_items.chain(b_items))
    }
}

impl<A: Source, B: Source<Item = A::Item>> Source for Chain<A, B> {
    type Item = A::Item;
    const HANDS_OUT_ONCE: bool = A::HANDS_OUT_ONCE || B::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = A::MAY_HAVE_SIDE_EFFECT || B::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.a.start_fold()?;
        self.b.start_fold()
    }

    fn piece_len(&self) -> PieceLen {
        self.a.piece_len().and(self.b.piece_len())
    }
    #[inline]
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("chain: the two lengths overflow usize")
    }
    #[inline]
    fn get(&self, index: usize) -> A::Item {
        let split = self.a.len();
        if index < split {
            self.a.get(index)
        } else {
            self.b.get(index - split)
        }
    }
    #[inline]
    fn visit_range<V: RangeVisitor<A::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let split = self.a.len();
        if range.end <= split {
            self.a.visit_range(range, visitor)
        } else if range.start >= split {
            self.b
                .visit_range(range.start - split..range.end - split, visitor)
        } else {
            let (b, second) = (&self.b, 0..range.end - split);
            self.a.visit_range(
                range.start..split,
                ChainFirst {
                    b,
                    range: second,
                    visitor,
                },
            )
        }
    }
}

/// `chunks(size)` of a slice: item `i` is the sub-slice `size * i..` of at most `size` items.
#[derive(Debug, Clone, Copy)]
pub struct Chunks<'s, T> {
    pub(crate) slice: &'s [T],
    pub(crate) size: usize,
}

impl<'s, T: Sync> Source for Chunks<'s, T> {
    type Item = &'s [T];
    #[inline]
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
    #[inline]
    fn get(&self, index: usize) -> &'s [T] {
        let start = index * self.size;
        &self.slice[start..(start + self.size).min(self.slice.len())]
    }
    #[inline]
    fn visit_range<V: RangeVisitor<&'s [T]>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let len = self.slice.len();
        let start = (range.start * self.size).min(len);
        let end = range.end.saturating_mul(self.size).min(len);
        visitor.visit(self.slice[start..end].chunks(self.size))
    }
}

/// `chunks_mut(size)` of a mutable slice: item `i` is the sub-slice `size * i..` of at most
/// `size` items, lent to the piece that visits it.
#[derive(Debug)]
pub struct ChunksMut<'s, T> {
    pub(crate) slice: MutSlice<'s, T>,
    pub(crate) size: usize,
}

impl<'s, T: Send> ChunksMut<'s, T> {
    /// The elements of chunks `range` (clipped to the slice).
    fn elements(&self, range: Range<usize>) -> Range<usize> {
        let len = self.slice.len();
        let end = range.end.saturating_mul(self.size).min(len);
        (range.start.saturating_mul(self.size)).min(end)..end
    }
}

impl<'s, T: Send> Source for ChunksMut<'s, T> {
    type Item = &'s mut [T];
    const HANDS_OUT_ONCE: bool = true;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.slice.start_fold()
    }
    #[inline]
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }
    #[inline]
    fn get(&self, index: usize) -> &'s mut [T] {
        self.slice.take(self.elements(index..index + 1))
    }
    #[inline]
    fn visit_range<V: RangeVisitor<&'s mut [T]>>(
        &self,
        range: Range<usize>,
        visitor: V,
    ) -> V::Output {
        visitor.visit(self.slice.take(self.elements(range)).chunks_mut(self.size))
    }
}

/// `windows(size)` of a slice: item `i` is `slice[i..i + size]`.
#[derive(Debug, Clone, Copy)]
pub struct Windows<'s, T> {
    pub(crate) slice: &'s [T],
    pub(crate) size: usize,
}

impl<'s, T: Sync> Source for Windows<'s, T> {
    type Item = &'s [T];
    #[inline]
    fn len(&self) -> usize {
        (self.slice.len() + 1).saturating_sub(self.size)
    }
    #[inline]
    fn get(&self, index: usize) -> &'s [T] {
        &self.slice[index..index + self.size]
    }
    #[inline]
    fn visit_range<V: RangeVisitor<&'s [T]>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        if range.start >= range.end {
            return visitor.visit(self.slice[..0].windows(self.size));
        }
        let items = &self.slice[range.start..range.end - 1 + self.size];
        visitor.visit(items.windows(self.size))
    }
}

/// A source that is a slice: what `chunks` and `windows` cut.
pub trait SliceSource<'s>: Source {
    /// The element type.
    type Elem: Sync + 's;
    /// The whole slice.
    fn as_slice(&self) -> &'s [Self::Elem];
}

impl<'s, T: Sync> SliceSource<'s> for &'s [T] {
    type Elem = T;
    fn as_slice(&self) -> &'s [T] {
        self
    }
}

impl<'s, T: Sync> SliceSource<'s> for &'s Vec<T> {
    type Elem = T;
    fn as_slice(&self) -> &'s [T] {
        let vec: &'s Vec<T> = self;
        vec.as_slice()
    }
}

impl<'s, T: Sync, const N: usize> SliceSource<'s> for &'s [T; N] {
    type Elem = T;
    fn as_slice(&self) -> &'s [T] {
        let array: &'s [T; N] = self;
        array.as_slice()
    }
}

/// `copied` / `cloned`: item `i` is `*inner[i]`, copied or cloned.
#[derive(Debug, Clone, Copy)]
pub struct Cloned<S>(pub(crate) S);

struct ClonedVisitor<V>(V);

impl<'a, T: Clone + 'a, V: RangeVisitor<T>> RangeVisitor<&'a T> for ClonedVisitor<V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = &'a T>>(self, items: I) -> V::Output {
        self.0.visit(items.cloned())
    }
}

impl<'a, T: Clone + 'a, S: Source<Item = &'a T>> Source for Cloned<S> {
    type Item = T;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.0.start_fold()
    }

    fn piece_len(&self) -> PieceLen {
        self.0.piece_len()
    }
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn get(&self, index: usize) -> T {
        self.0.get(index).clone()
    }
    #[inline]
    fn visit_range<V: RangeVisitor<T>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        self.0.visit_range(range, ClonedVisitor(visitor))
    }
}

/// The items of a pipeline whose transforms are one-to-one ([`Transform::ONE_TO_ONE`]), as a
/// source: item `i` is what item `i` of `source` becomes.
pub(crate) struct OneToOne<'p, S, X> {
    pub(crate) source: &'p S,
    pub(crate) transform: &'p X,
}

impl<S: Source, X: Transform<S::Item>> OneToOne<'_, S, X> {
    #[inline]
    fn pass(&self, item: S::Item) -> X::Out {
        match self.transform.one_to_one(item) {
            Some(out) => out,
            None => panic!("foldex: a stage with `ONE_TO_ONE = true` gave no item for an item"),
        }
    }
}

impl<S: Source, X: Transform<S::Item>> Source for OneToOne<'_, S, X> {
    type Item = X::Out;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.source.start_fold()
    }

    fn piece_len(&self) -> PieceLen {
        self.source.piece_len()
    }
    #[inline]
    fn len(&self) -> usize {
        self.source.len()
    }
    #[inline]
    fn get(&self, index: usize) -> X::Out {
        self.pass(self.source.get(index))
    }
    #[inline]
    fn visit_range<V: RangeVisitor<X::Out>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let f = |item| self.pass(item);
        self.source
            .visit_range(range, MapVisitor { f: &f, visitor })
    }
}
