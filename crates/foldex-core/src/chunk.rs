//! Splitting an index range into pieces: arithmetic on ranges alone, which the protocol's
//! piece bounds ([`PieceLen`](crate::exec::PieceLen)) build on.

use std::ops::Range;

/// Splits `range` into two halves, or returns `None` when it is not longer than `basesize`
/// (or cannot be split any further).
///
/// ```
/// use foldex_core::exec::split;
/// assert_eq!(split(0..10, 4), Some((0..5, 5..10)));
/// assert_eq!(split(0..4, 4), None);
/// ```
#[inline]
pub fn split(range: Range<usize>, basesize: usize) -> Option<(Range<usize>, Range<usize>)> {
    let len = range.end.saturating_sub(range.start);
    if len <= basesize.max(1) {
        return None;
    }
    let mid = range.start + len / 2;
    Some((range.start..mid, mid..range.end))
}

/// The consecutive chunks of `chunk` indices (the last may be shorter) that cover `0..len`.
///
/// ```
/// use foldex_core::exec::chunks;
/// assert_eq!(chunks(7, 3).collect::<Vec<_>>(), vec![0..3, 3..6, 6..7]);
/// assert_eq!(chunks(0, 3).count(), 0);
/// ```
pub fn chunks(len: usize, chunk: usize) -> impl ExactSizeIterator<Item = Range<usize>> + Clone {
    let chunk = chunk.max(1);
    (0..len.div_ceil(chunk)).map(move |i| {
        let start = i * chunk;
        start..(start + chunk).min(len)
    })
}

/// The chunk with number `index` in [`chunks`]`(len, chunk)`.
pub fn chunk(len: usize, chunk: usize, index: usize) -> Range<usize> {
    let chunk = chunk.max(1);
    let start = index.saturating_mul(chunk).min(len);
    start..start.saturating_add(chunk).min(len)
}
