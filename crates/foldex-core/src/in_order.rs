//! Running a job's pieces and combining their partials in index order: [`run_pieces`] for a
//! range run on one thread within the job's piece bounds, [`OrderedCombiner`] for pieces that
//! finish in any order.

use crate::audited::Partial;
use crate::executor::Job;
use std::ops::Range;

/// Folds `range` of `job` on the calling thread as consecutive [`PieceLen::pieces`](crate::exec::PieceLen::pieces) of the
/// job's bounds, combined left to right: what an executor does wherever it would run a whole
/// range as one piece. `run` folds one piece (`|r| job.run(r)`, or
/// [`Job::run_while_waiting`]); with no bounds it is called once, on `range`.
///
/// ```
/// use foldex_core::exec::{run_pieces, PieceLen};
/// use foldex_core::{Executor, ExecutorExt, Job, Partial};
///
/// /// Runs the whole job on the calling thread, within its piece bounds.
/// struct Inline;
/// impl Executor for Inline {
///     fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
///         run_pieces(job, 0..job.len(), |r| job.run(r))
///     }
/// }
/// assert_eq!(Inline.sum::<usize>(0..10), 45);
/// ```
pub fn run_pieces<'a>(
    job: &dyn Job<'a>,
    range: Range<usize>,
    mut run: impl FnMut(Range<usize>) -> Partial<'a>,
) -> Partial<'a> {
    let bounds = job.piece_len();
    let mut pieces = bounds.pieces(range);
    let first = pieces.next().expect("pieces gives at least one range");
    let mut acc = run(first);
    for piece in pieces {
        // A stopped range still runs, at once, to give its partial.
        acc = job.combine(acc, run(piece));
    }
    acc
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
