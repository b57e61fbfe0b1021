//! The input of a run through stages that merge ([`crate::stateful`]): each item with its
//! position, and a panic in the source (an adapter's closure, a stream's `next`) caught and
//! handed on as the item at its position, so that the piece it falls in decides, as for a
//! panic in a stage, whether the sequential run would have met it (`run.rs`).

use crate::indexed::ByRef;
use foldex_core::exec::PanicPayload;
use foldex_core::source::{RangeVisitor, Spent};
use foldex_core::{Source, Stream};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};

/// An item at its position, or the panic the source raised making it.
pub(crate) type Positioned<T> = (usize, Result<T, PanicPayload>);

/// A source whose items come [`Positioned`].
pub struct GuardedSource<'s, S>(pub(crate) ByRef<'s, S>);

impl<S: Source> Source for GuardedSource<'_, S> {
    type Item = Positioned<S::Item>;

    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = S::MAY_HAVE_SIDE_EFFECT;

    fn start_fold(&self) -> Result<(), Spent> {
        self.0.start_fold()
    }

    fn piece_len(&self) -> foldex_core::exec::PieceLen {
        self.0.piece_len()
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, index: usize) -> Self::Item {
        (
            index,
            panic::catch_unwind(AssertUnwindSafe(|| self.0.get(index))),
        )
    }

    fn visit_range<V: RangeVisitor<Self::Item>>(
        &self,
        range: Range<usize>,
        visitor: V,
    ) -> V::Output {
        let next = range.start;
        self.0.visit_range(range, Guard { next, visitor })
    }
}

/// Hands a range's items on [`Positioned`], numbered from `next`.
struct Guard<V> {
    next: usize,
    visitor: V,
}

impl<T, V: RangeVisitor<Positioned<T>>> RangeVisitor<T> for Guard<V> {
    type Output = V::Output;
    fn visit<I: Iterator<Item = T>>(self, items: I) -> V::Output {
        self.visitor.visit(Guarded::new(items, self.next))
    }
}

/// An iterator's items [`Positioned`]; it ends after the first panic of the inner `next`,
/// which is never called again.
pub struct Guarded<I> {
    items: I,
    next: usize,
    over: bool,
}

impl<I> Guarded<I> {
    fn new(items: I, next: usize) -> Self {
        Self {
            items,
            next,
            over: false,
        }
    }
}

impl<I: Iterator> Iterator for Guarded<I> {
    type Item = Positioned<I::Item>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.over {
            return None;
        }
        let at = self.next;
        match panic::catch_unwind(AssertUnwindSafe(|| self.items.next())) {
            Ok(Some(item)) => {
                self.next += 1;
                Some((at, Ok(item)))
            }
            Ok(None) => {
                self.over = true;
                None
            }
            Err(payload) => {
                self.over = true;
                Some((at, Err(payload)))
            }
        }
    }
}

/// A stream whose items come [`Positioned`] (positions count from its first item).
pub(crate) fn guard_stream<I: Iterator>(stream: Stream<I>) -> Stream<Guarded<I>> {
    stream.adapt(|items| Guarded::new(items, 0))
}
