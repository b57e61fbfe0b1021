//! Side effects of the items that index-preserving adapters drop.
//!
//! A source whose reads run code ([`Source::MAY_HAVE_SIDE_EFFECT`]: `map`, `update`, or an
//! adapter over one) is read where the same chain on `std::iter` reads it, dropped items
//! included, so that a counter in a `map` before `skip` ends where std's ends:
//!
//! - `skip(n)`: the piece that holds the first item reads the `n` dropped items first; a
//!   `skip` that leaves no item reads them when the fold starts, as std's first pull does.
//! - `step_by(k)`: item `i > 0` reads the `k - 1` items before it first; the piece that ends
//!   the pipeline reads the tail after the last item once the reduction has taken that item. A `take` after it reads no further
//!   (as std's `take`, which never pulls past its `n`-th item).
//! - `zip` reads the shorter length from both sides (as std's, which never pulls the longer
//!   side past it going forward), and `chain` reads both sides through.
//! - `rev` reads items by index, backwards, as std's `next_back` does: the dropped prefix of
//!   a `skip` is not read, the items a `take` dropped are (before the first item), the items
//!   between those of a `step_by` are, and so is what the longer side of a `zip` has beyond
//!   the shorter one.
//!
//! Where this differs from std: a `skip` that leaves no item, under `take`, `zip` or `rev`,
//! still reads what it drops when the fold starts (std's `rev` and `zip` never pull it, nor
//! do std's `collect` and `count` of a `take` of it, though a `for` loop over that `take`
//! does); a
//! reduction that stops early (`find_first`, `take_while`) on a parallel executor may read
//! items to the right of its stop, as it may run any closure there (docs/pipelines.md); and a
//! `rev` of a `rev` reads forwards with the backward rules above. Sources without side effects
//! (slices, ranges, `copied`, `enumerate` of them) read only the items they give.

use foldex_core::source::RangeVisitor;
#[cfg(doc)]
use foldex_core::Source;

/// Reads every item of a range and drops it.
pub(crate) struct Drain;

impl<T> RangeVisitor<T> for Drain {
    type Output = ();
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) {
        items.for_each(drop);
    }
}

/// Hands `visitor` the items after the first `n`, which are read and dropped (std's `Skip`).
pub(crate) struct SkipFirst<V> {
    pub(crate) n: usize,
    pub(crate) visitor: V,
}

impl<T, V: RangeVisitor<T>> RangeVisitor<T> for SkipFirst<V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) -> V::Output {
        self.visitor.visit(items.skip(self.n))
    }
}

/// Hands `visitor` item `lead`, then every `step`-th item after it, reading the ones between
/// (std's `StepBy` after a `Skip` of `lead`: each `next` is one `nth`); where `tail` is set,
/// reads the items after the last one once `visitor` has taken all `count` of them, as std's
/// `StepBy` pulled to its end does (a consumer that knows the length stops at the last item).
pub(crate) struct Stepped<V> {
    pub(crate) lead: usize,
    pub(crate) step: usize,
    pub(crate) count: usize,
    pub(crate) tail: bool,
    pub(crate) visitor: V,
}

impl<T, V: RangeVisitor<T>> RangeVisitor<T> for Stepped<V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, mut items: I) -> V::Output {
        let mut taken = 0;
        let stepped = items.by_ref().skip(self.lead).step_by(self.step);
        let out = self.visitor.visit(stepped.inspect(|_| taken += 1));
        if self.tail && taken == self.count {
            items.for_each(drop);
        }
        out
    }
}
