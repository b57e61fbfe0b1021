//! What a fold runs over: anything indexable with a length ([`Source`]), and the types its
//! methods hand out.

pub use crate::audited::{MutSlice, OwnedVec};
use crate::piece_len::PieceLen;
pub use crate::spent::Spent;
use std::ops::Range;

/// Receives the items of one range as an iterator. [`Source::visit_range`] hands it the
/// fastest iterator the source has (a slice iterator for slices), so that folds over it compile
/// to tight, vectorisable loops.
pub trait RangeVisitor<Item> {
    /// What visiting the range gives.
    type Output;
    /// Consumes the items of the range, in index order.
    fn visit<I: Iterator<Item = Item>>(self, items: I) -> Self::Output;
}

/// An indexable collection with a length, folded over by index.
///
/// Implemented for `Range<usize>`, `&[T]`, `&Vec<T>` and `&[T; N]`. Implement it for your own
/// types by giving `len` and `get`; override [`Source::visit_range`] if you can iterate a range
/// faster than by calling `get` per index.
///
/// ```
/// use foldex_core::{ExecutorExt, Source};
/// use foldex_seq::SequentialEx;
///
/// struct Squares(usize);
/// impl Source for Squares {
///     type Item = u64;
///     fn len(&self) -> usize { self.0 }
///     fn get(&self, i: usize) -> u64 { (i * i) as u64 }
/// }
/// assert_eq!(SequentialEx.sum::<u64>(Squares(4)), 0 + 1 + 4 + 9);
/// ```
///
/// A source that reads another (an adapter) forwards [`Source::HANDS_OUT_ONCE`] and
/// [`Source::start_fold`] to it, so that a source over a [`MutSlice`] or an [`OwnedVec`] serves
/// one fold as they do, and says so when asked for a second.
pub trait Source: Sync {
    /// What one index yields.
    type Item;

    /// `true` when each item can be read once only: the source moves it out or lends it
    /// mutably ([`OwnedVec`], [`MutSlice`]), or reads a source that does. Such a source serves
    /// one fold (see [`Source::start_fold`]), and a reader that needs an item twice keeps it
    /// the first time. `false` (the default): an item can be read any number of times.
    const HANDS_OUT_ONCE: bool = false;

    /// `true` when reading an item may run code whose effects a caller can see (the closure of
    /// a pipeline's `map`): an adapter that drops items (`skip`, `step_by`) then still reads
    /// those that the same adapter of `std::iter` reads, for their effects. `false` (the
    /// default): reading an item gives its value and nothing else, so a dropped item need not
    /// be read, and a slice or a range keeps its fast path.
    const MAY_HAVE_SIDE_EFFECT: bool = false;

    /// The number of items; indices are `0..len()`.
    fn len(&self) -> usize;

    /// `true` when there are no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The item at `index` (`index < len()`).
    fn get(&self, index: usize) -> Self::Item;

    /// Called by every fold over the source once, before it reads an item. A source whose
    /// items are handed out once ([`Source::HANDS_OUT_ONCE`]) accepts its first fold and
    /// refuses every later one with [`Spent`], which the fold panics with; the default accepts
    /// every fold.
    fn start_fold(&self) -> Result<(), Spent> {
        Ok(())
    }

    /// Bounds on the length of the pieces a fold over this source runs in, which the fold's
    /// job hands its executor ([`Job::piece_len`](crate::Job::piece_len)); a pipeline's
    /// `with_min_len` / `with_max_len` set them. [`PieceLen::ANY`] (the default) leaves piece
    /// lengths to the executor. An adapter whose item `i` is its source's item `i` (or items
    /// `i` of two sources) forwards them.
    fn piece_len(&self) -> PieceLen {
        PieceLen::ANY
    }

    /// Hands the items of `range` to `visitor` as one iterator. The default calls `get` per
    /// index; sources that can iterate faster override it.
    fn visit_range<V: RangeVisitor<Self::Item>>(
        &self,
        range: Range<usize>,
        visitor: V,
    ) -> V::Output {
        visitor.visit(range.map(|i| self.get(i)))
    }
}

impl Source for Range<usize> {
    type Item = usize;

    fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    fn get(&self, index: usize) -> usize {
        self.start + index
    }

    fn visit_range<V: RangeVisitor<usize>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        visitor.visit(self.start + range.start..self.start + range.end)
    }
}

impl<'s, T: Sync> Source for &'s [T] {
    type Item = &'s T;

    fn len(&self) -> usize {
        <[T]>::len(self)
    }

    fn get(&self, index: usize) -> &'s T {
        let slice: &'s [T] = self;
        &slice[index]
    }

    fn visit_range<V: RangeVisitor<&'s T>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let slice: &'s [T] = self;
        visitor.visit(slice[range].iter())
    }
}

macro_rules! forward_to_slice {
    ($($(#[$meta:meta])* [$($generics:tt)*] $ty:ty;)*) => {$(
        $(#[$meta])*
        impl<'s, T: Sync, $($generics)*> Source for $ty {
            type Item = &'s T;

            fn len(&self) -> usize {
                self.as_slice().len()
            }

            fn get(&self, index: usize) -> &'s T {
                let slice: &'s [T] = &(**self)[..];
                &slice[index]
            }

            fn visit_range<V: RangeVisitor<&'s T>>(
                &self,
                range: Range<usize>,
                visitor: V,
            ) -> V::Output {
                let slice: &'s [T] = &(**self)[..];
                slice.visit_range(range, visitor)
            }
        }
    )*};
}

forward_to_slice! {
    [] &'s Vec<T>;
    [const N: usize] &'s [T; N];
}

/// Sources that hand their elements out: by value and by reference (so that a caller can keep
/// the source and see that a second fold over it is refused).
macro_rules! handing_out {
    ($($(#[$meta:meta])* [$($generics:tt)*] $ty:ty => $item:ty, from $inner:ty, |$this:ident, $range:ident| $take:expr;)*) => {$(
        $(#[$meta])*
        impl<$($generics)*> Source for $ty {
            type Item = $item;

            const HANDS_OUT_ONCE: bool = true;

            fn len(&self) -> usize {
                let $this: &$inner = self;
                $this.len()
            }

            fn start_fold(&self) -> Result<(), Spent> {
                let $this: &$inner = self;
                $this.claim_fold()
            }

            fn get(&self, index: usize) -> $item {
                let $this: &$inner = self;
                let $range = index..index + 1;
                let mut one = $take;
                one.next().expect("a range of one element yields one")
            }

            fn visit_range<V: RangeVisitor<$item>>(&self, $range: Range<usize>, visitor: V) -> V::Output {
                let $this: &$inner = self;
                visitor.visit($take)
            }
        }
    )*};
}

handing_out! {
    /// Lends each element once, mutably; see [`MutSlice`].
    ['a, T: Send] MutSlice<'a, T> => &'a mut T, from MutSlice<'a, T>, |this, range| this.take(range).iter_mut();
    /// Lends each element once, mutably; see [`MutSlice`].
    ['m, 'a, T: Send] &'m MutSlice<'a, T> => &'a mut T, from MutSlice<'a, T>, |this, range| this.take(range).iter_mut();
    /// Moves each element out once; see [`OwnedVec`].
    [T: Send] OwnedVec<T> => T, from OwnedVec<T>, |this, range| this.take(range);
    /// Moves each element out once; see [`OwnedVec`].
    ['v, T: Send] &'v OwnedVec<T> => T, from OwnedVec<T>, |this, range| this.take(range);
}
