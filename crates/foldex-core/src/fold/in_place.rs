//! Collecting into a `Vec` in place: one allocation of the final length, each piece writing its
//! own range of it, and partials that join without copying ([`Written::join`]). The ranges are
//! the executor's: the audited [`VecWriter`] refuses any slot handed to two pieces.

use crate::audited::{RangeWriter, VecWriter, Written};
use crate::executor::Executor;
use crate::fold::ExecutorExt;
use crate::source::{RangeVisitor, Source};
use crate::spent::Spent;
use std::ops::Range;

/// `source`'s items, as one [`Written`] per visited range: a leaf that visits a range writes it
/// into `out` and folds the range's `Written` into its accumulator.
struct WriteInPlace<'w, S: Source> {
    source: S,
    out: &'w VecWriter<S::Item>,
}

struct Push<'r, 'w, T>(&'r mut RangeWriter<'w, T>);

impl<T> RangeVisitor<T> for Push<'_, '_, T> {
    type Output = ();
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) {
        self.0.fill(items);
    }
}

impl<'w, S> Source for WriteInPlace<'w, S>
where
    S: Source,
    S::Item: Send,
{
    type Item = Written<'w, S::Item>;

    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;

    fn len(&self) -> usize {
        self.source.len()
    }

    fn start_fold(&self) -> Result<(), Spent> {
        self.source.start_fold()
    }

    fn piece_len(&self) -> crate::exec::PieceLen {
        self.source.piece_len()
    }

    fn get(&self, index: usize) -> Self::Item {
        let mut writer = self.out.write(index..index + 1);
        writer.push(self.source.get(index));
        writer.finish()
    }

    fn visit_range<V: RangeVisitor<Self::Item>>(
        &self,
        range: Range<usize>,
        visitor: V,
    ) -> V::Output {
        let mut writer = self.out.write(range.clone());
        self.source.visit_range(range, Push(&mut writer));
        visitor.visit(std::iter::once(writer.finish()))
    }
}

/// The items of `source` in index order, written in place.
pub(crate) fn collect_vec<E, S>(executor: &E, source: S) -> Vec<S::Item>
where
    E: Executor + ?Sized,
    S: Source,
    S::Item: Send,
{
    let out = VecWriter::new(source.len());
    let written = executor.fold(
        WriteInPlace { source, out: &out },
        || out.nothing(),
        Written::join,
        Written::join,
    );
    out.finish(written)
}
