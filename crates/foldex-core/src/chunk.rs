//! Splitting an index range into pieces, and combining pieces that finish out of order.

use crate::audited::Partial;
use crate::executor::Job;
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

/// Combines the partials of numbered chunks that arrive in any order, in index order.
///
/// Partials are combined as soon as they are adjacent to the finished prefix or to another
/// finished chunk, so it holds one partial per *gap*: per run of consecutive chunks that
/// finished ahead of a slower one to their left. A fold whose chunks finish roughly in order
/// holds one or two, and allocates nothing after its first out-of-order chunk.
///
/// ```
/// # use foldex_core::exec::OrderedCombiner;
/// # use foldex_core::Job;
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
    /// Finished runs of chunks past `next`, sorted, disjoint, none touching another.
    waiting: Vec<Waiting<'a>>,
}

/// Chunks `start..end`, combined into one partial (`None` only in the middle of a combine).
#[derive(Debug)]
struct Waiting<'a> {
    start: usize,
    end: usize,
    partial: Option<Partial<'a>>,
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
            waiting: Vec::new(),
        }
    }

    /// Makes room for `gaps` runs of chunks waiting at once (at most the chunks in flight), so
    /// that receiving them allocates nothing later.
    pub fn reserve(&mut self, gaps: usize) {
        self.waiting.reserve(gaps);
    }

    /// Receives the partial of chunk number `index` (each number once).
    pub fn push(&mut self, job: &dyn Job<'a>, index: usize, partial: Partial<'a>) {
        assert!(index >= self.next, "chunk {index} was combined twice");
        if index != self.next {
            self.set_aside(job, index, partial);
            return;
        }
        let mut acc = match self.prefix.take() {
            Some(prefix) => job.combine(prefix, partial),
            None => partial,
        };
        self.next += 1;
        if self.waiting.first().is_some_and(|w| w.start == self.next) {
            let run = self.waiting.remove(0);
            acc = job.combine(acc, run.partial.expect("a waiting run holds its partial"));
            self.next = run.end;
        }
        self.prefix = Some(acc);
    }

    /// The partial of every chunk before `index`, taken out, when those are all there is:
    /// the caller folds chunk `index` on from it and pushes the result as chunk `index`.
    pub(crate) fn take_prefix(&mut self, index: usize) -> Option<Partial<'a>> {
        if self.next == index {
            self.prefix.take()
        } else {
            None
        }
    }

    /// Keeps chunk `index` (past the prefix), merged into the runs it touches.
    fn set_aside(&mut self, job: &dyn Job<'a>, index: usize, partial: Partial<'a>) {
        // The first run that starts after `index`.
        let at = self.waiting.partition_point(|w| w.start <= index);
        let joins_left = at > 0 && {
            let left = &self.waiting[at - 1];
            assert!(left.end <= index, "chunk {index} was combined twice");
            left.end == index
        };
        let joins_right = self.waiting.get(at).is_some_and(|w| w.start == index + 1);
        match (joins_left, joins_right) {
            (false, false) => self.waiting.insert(
                at,
                Waiting {
                    start: index,
                    end: index + 1,
                    partial: Some(partial),
                },
            ),
            (true, false) => Self::extend(&mut self.waiting[at - 1], job, partial, index + 1),
            (false, true) => {
                let right = &mut self.waiting[at];
                let tail = right.partial.replace(partial);
                let end = right.end;
                Self::extend(
                    right,
                    job,
                    tail.expect("a waiting run holds its partial"),
                    end,
                );
                right.start = index;
            }
            (true, true) => {
                let right = self.waiting.remove(at);
                let left = &mut self.waiting[at - 1];
                Self::extend(left, job, partial, index + 1);
                let tail = right.partial.expect("a waiting run holds its partial");
                Self::extend(left, job, tail, right.end);
            }
        }
    }

    /// Appends `partial`, the chunks up to `end`, to `run`.
    fn extend(run: &mut Waiting<'a>, job: &dyn Job<'a>, partial: Partial<'a>, end: usize) {
        let head = run.partial.take().expect("a waiting run holds its partial");
        run.partial = Some(job.combine(head, partial));
        run.end = end;
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
