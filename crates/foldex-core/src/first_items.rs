//! What a job's first items cost, measured on the calling thread: how `AutoEx` chooses, and a
//! tool for any executor that wants to size its pieces from measured cost.
//!
//! Running the first items on the caller before any other thread starts is a promise an
//! executor makes about its folds: items of one fold must not wait for each other (a barrier
//! across items would never open). The built-in executors' `Basesize::Auto` therefore does not
//! measure; `AutoEx` does, and says so.
//!
//! [`measure_first_items`] runs the job's first items on the caller in pieces of 1, 2, 4, ...
//! items, reading the clock after each, until they took [`MEASURE_FOR`] (or the job is done or
//! stopped). Then:
//!
//! - a job whose whole cost, measured or estimated, stays below [`WAKE_UP`] (what waking a
//!   worker and handing it work costs) runs to its end on the caller: no thread is touched, and
//!   a fold of a few cheap items returns in well under a microsecond;
//! - otherwise the rest of the job, `done..len`, goes to the executor as a job of its own
//!   ([`Rest::job`]), with a leaf length that makes a leaf take about [`LEAF_TIME`]
//!   ([`Rest::leaf_len`]), and its partial joins the first items' ([`Rest::finish`]).
//!
//! The measurement changes only who runs the first items, never which ranges run or in what
//! order they combine: ordering, early termination and panics are the fold's as always. A timer
//! that does not advance makes the measurement run longer (up to a share of the job), never
//! gives a leaf length of zero or divides by zero; the executor then falls back to its
//! structural split.

use crate::audited::Partial;
use crate::executor::{Caller, Job};
use crate::in_order::run_pieces;
use crate::piece_len::PieceLen;
use std::num::NonZeroUsize;
use std::ops::Range;
use std::time::{Duration, Instant};

/// How long the measurement measures before it decides: long enough for a steady reading, short next
/// to the wake-up it may save.
pub const MEASURE_FOR: Duration = Duration::from_micros(4);

/// What starting work on another thread costs (a wake-up and a hand-over): a job whose whole
/// cost is below it runs on the caller.
pub const WAKE_UP: Duration = Duration::from_micros(20);

/// What a leaf of the automatic basesize aims to cost: large next to a fork, small enough that
/// idle workers can balance uneven work.
pub const LEAF_TIME: Duration = Duration::from_micros(20);

/// What [`measure_first_items`] decided.
pub enum FirstItems<'j, 'a> {
    /// The whole job's partial: it finished during the measurement, stopped, or was too small to be
    /// worth another thread and ran to its end on the caller.
    Done(Partial<'a>),
    /// The job's first items ran on the caller; the rest is for the executor to split.
    Rest(Rest<'j, 'a>),
}

/// The part of a job that the measurement left to the executor.
pub struct Rest<'j, 'a> {
    head: Partial<'a>,
    tail: Tail<'j, 'a>,
    leaf: Option<NonZeroUsize>,
    measured: Duration,
}

impl<'j, 'a> Rest<'j, 'a> {
    /// The rest of the job, `done..len`, as a job of its own over `0..len - done`.
    pub fn job(&self) -> &(dyn Job<'a> + 'j) {
        &self.tail
    }

    /// The leaf length that makes a leaf cost about [`LEAF_TIME`], from the measurement's
    /// measurement; `None` when the clock did not advance (the executor's structural split
    /// applies then).
    pub fn leaf_len(&self) -> Option<NonZeroUsize> {
        self.leaf
    }

    /// How many first items ran on the caller, and how long they took.
    pub fn measured(&self) -> (usize, Duration) {
        (self.tail.start, self.measured)
    }

    /// The whole job's partial, from the partial of [`Rest::job`].
    pub fn finish(self, rest: Partial<'a>) -> Partial<'a> {
        self.tail.job.combine(self.head, rest)
    }
}

/// A job's indices from `start` on, as a job over `0..len - start`.
struct Tail<'j, 'a> {
    job: &'j dyn Job<'a>,
    start: usize,
}

impl<'a> Job<'a> for Tail<'_, 'a> {
    fn len(&self) -> usize {
        self.job.len() - self.start
    }

    fn run(&self, range: Range<usize>) -> Partial<'a> {
        self.job
            .run(range.start + self.start..range.end + self.start)
    }

    fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a> {
        self.job.combine(left, right)
    }

    fn is_stopped(&self, from: usize) -> bool {
        self.job.is_stopped(from + self.start)
    }

    fn caller(&self) -> Caller {
        self.job.caller()
    }

    fn run_while_waiting(&self, range: Range<usize>) -> Partial<'a> {
        self.job
            .run_while_waiting(range.start + self.start..range.end + self.start)
    }

    fn piece_len(&self) -> PieceLen {
        self.job.piece_len()
    }
}

/// Where a measured piece of about `piece` items from `done` ends: within `bounds`, and never
/// leaving a rest shorter than their `min` (the rest is a job of its own, whose pieces must
/// keep `min`).
fn piece_end(bounds: PieceLen, len: usize, done: usize, piece: usize) -> usize {
    let end = len.min(done.saturating_add(bounds.chunk_len(piece)));
    let (rest, min) = (len - end, bounds.min());
    if rest == 0 || rest >= min {
        end
    } else if len - done >= min.saturating_mul(2) {
        len - min
    } else {
        len
    }
}

/// Runs `job`'s first items on the calling thread and decides what is left for an executor with
/// `workers` threads; see the module docs.
pub fn measure_first_items<'j, 'a>(job: &'j dyn Job<'a>, workers: usize) -> FirstItems<'j, 'a> {
    let len = job.len();
    // A share of the job that the measurement never exceeds, whatever the clock says.
    let most = (len / (2 * workers.max(1))).max(1024);
    // Pieces of 1, 2, 4, ... items, kept within the job's bounds on piece lengths.
    let bounds = job.piece_len();
    let started = Instant::now();
    let first = piece_end(bounds, len, 0, 1);
    let mut head = job.run(0..first);
    let mut done = first;
    let mut elapsed = started.elapsed();
    // The rate comes from the last piece, the largest and the warmest: the first item pays
    // for cold caches and lazy set-ups that the rest do not.
    let mut rate = (elapsed, done);
    let mut piece = 2 * first.max(1);
    // A second piece runs unless the first item alone cost a wake-up: a first item made slow
    // by cold caches must not decide alone.
    let mut pieces = 1;
    while done < len
        && (elapsed < MEASURE_FOR || (pieces == 1 && elapsed < WAKE_UP))
        && done < most
        && !job.is_stopped(done)
    {
        pieces += 1;
        let end = piece_end(bounds, len, done, piece);
        let before = elapsed;
        head = job.combine(head, job.run(done..end));
        elapsed = started.elapsed();
        rate = (elapsed - before, end - done);
        done = end;
        piece = piece.saturating_mul(2);
    }
    if done == len {
        return FirstItems::Done(head);
    }
    let tail = Tail { job, start: done };
    if job.is_stopped(done) {
        // Cheap: a stopped range returns at once, but it must still give its partial.
        let rest = run_pieces(&tail, 0..len - done, |r| tail.run(r));
        return FirstItems::Done(job.combine(head, rest));
    }
    let (nanos, items) = (rate.0.as_nanos(), rate.1 as u128);
    let leaf = (nanos > 0).then(|| {
        // Items per LEAF_TIME at the measured rate, at least 1.
        let per_leaf = LEAF_TIME.as_nanos().saturating_mul(items) / nanos;
        NonZeroUsize::new(usize::try_from(per_leaf).unwrap_or(usize::MAX).max(1))
            .expect("at least 1")
    });
    let rest_cost = nanos.saturating_mul((len - done) as u128) / items;
    if nanos > 0 && rest_cost < WAKE_UP.as_nanos() {
        let rest = run_pieces(&tail, 0..len - done, |r| tail.run(r));
        return FirstItems::Done(job.combine(head, rest));
    }
    FirstItems::Rest(Rest {
        head,
        tail,
        leaf,
        measured: elapsed,
    })
}
