//! Splitting an index range into pieces, and combining pieces that finish out of order.

use crate::erased::Partial;
use crate::executor::Job;
use std::collections::BTreeMap;
use std::ops::Range;

/// Splits `range` into two halves, or returns `None` when it is not longer than `basesize`
/// (or cannot be split any further).
///
/// ```
/// use foldex_core::split;
/// assert_eq!(split(0..10, 4), Some((0..5, 5..10)));
/// assert_eq!(split(0..4, 4), None);
/// ```
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
/// use foldex_core::chunks;
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

/// Combines the partials of numbered chunks that arrive in any order, in index order.
///
/// Partials are combined as soon as they are adjacent to the finished prefix, so it holds only
/// the chunks that finished ahead of a slower one to their left: at most the number of chunks
/// in flight.
///
/// ```
/// # use foldex_core::{OrderedCombiner, Job};
/// // Executors feed it (chunk number, partial) pairs as workers finish, then `finish` it.
/// # fn demo<'a>(job: &dyn Job<'a>) {
/// let mut combiner = OrderedCombiner::new();
/// combiner.push(job, 1, job.run(1..1));
/// combiner.push(job, 0, job.run(0..1));
/// let all = combiner.finish(job);
/// # }
/// ```
#[derive(Debug)]
pub struct OrderedCombiner<'a> {
    next: usize,
    prefix: Option<Partial<'a>>,
    waiting: BTreeMap<usize, Partial<'a>>,
}

impl Default for OrderedCombiner<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> OrderedCombiner<'a> {
    /// Empty: no chunk received yet.
    pub fn new() -> Self {
        Self {
            next: 0,
            prefix: None,
            waiting: BTreeMap::new(),
        }
    }

    /// Receives the partial of chunk number `index` (each number once).
    pub fn push(&mut self, job: &dyn Job<'a>, index: usize, partial: Partial<'a>) {
        if index != self.next {
            let previous = self.waiting.insert(index, partial);
            assert!(previous.is_none(), "chunk {index} was combined twice");
            return;
        }
        let mut acc = match self.prefix.take() {
            Some(prefix) => job.combine(prefix, partial),
            None => partial,
        };
        self.next += 1;
        while let Some(partial) = self.waiting.remove(&self.next) {
            acc = job.combine(acc, partial);
            self.next += 1;
        }
        self.prefix = Some(acc);
    }

    /// How many chunks, from chunk 0 on, are combined so far.
    pub fn combined(&self) -> usize {
        self.next
    }

    /// The partial of every chunk pushed, which must be chunks `0..n` for some `n`. With no chunk
    /// at all, this runs the empty range so that the job still yields its identity.
    pub fn finish(self, job: &dyn Job<'a>) -> Partial<'a> {
        assert!(
            self.waiting.is_empty(),
            "chunk {} never arrived, chunks after it did",
            self.next
        );
        self.prefix.unwrap_or_else(|| job.run(0..0))
    }
}
