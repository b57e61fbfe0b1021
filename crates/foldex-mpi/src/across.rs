//! One job across the ranks: each rank folds its block on its local executor, in pieces with
//! a probe for stop notices between them ([`crate::notice`]), the partials cross in one gather
//! ([`crate::outcome`]) as the job's codec writes them, and every rank combines them all in
//! rank order. Every rank decodes every partial, its own included, so that every rank combines
//! the same values and returns the same answer; decoding a partial also tells the job of the
//! `Break` or panic it holds, so the fold's own rule (the leftmost `Break` wins, a panic after
//! it never happened) decides across ranks as it does within one.

use crate::block::block;
use crate::error::MpiError;
use crate::notice::Notices;
use crate::outcome::{gather, Outcome};
use foldex_core::exec::{message, PartialCodec};
use foldex_core::{Executor, Job, Partial};
use mpi::topology::SimpleCommunicator;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// How long a piece of a rank's block folds before the rank looks for a stop notice: the
/// latency of early termination across ranks, against one local fold's start per piece.
const PIECE_TIME: Duration = Duration::from_millis(4);

/// What a fold across ranks does with an error every rank agreed on.
#[derive(Clone, Copy)]
pub(crate) enum OnError {
    /// Panics with its message (a job given to `MpiEx` as an `Executor`).
    Panic,
    /// Unwinds with the error as the payload, without the panic hook (`MpiEx`'s typed
    /// methods catch it and return it).
    Unwind,
}

/// The payload of an [`OnError::Unwind`].
pub(crate) struct Refused(pub MpiError);

impl OnError {
    pub(crate) fn raise(self, error: MpiError) -> ! {
        match self {
            OnError::Panic => panic!("{error}"),
            OnError::Unwind => panic::resume_unwind(Box::new(Refused(error))),
        }
    }
}

/// The ranks' communicator and this rank's local executor.
pub(crate) struct Ranks<'e> {
    pub comm: &'e SimpleCommunicator,
    pub rank: usize,
    pub size: usize,
    pub local: &'e dyn Executor,
}

/// What this rank's block came to before the gather.
struct Local<'a> {
    /// The partial of `start..upto` (`None` while nothing was folded).
    partial: Option<Partial<'a>>,
    upto: usize,
    /// An earlier rank's notice stopped the block at `upto`.
    told_to_stop: bool,
}

impl<'e> Ranks<'e> {
    /// Runs `job` across the ranks (whose lengths were compared) with `codec`; every rank
    /// returns the partial covering the whole job.
    pub(crate) fn run<'a>(
        &self,
        job: &dyn Job<'a>,
        codec: &dyn PartialCodec<'a>,
        on_error: OnError,
    ) -> Partial<'a> {
        let _inside = Inside::enter();
        // No block shorter than the job's `min` (`Job::piece_len`): fewer ranks get one, the
        // rest an empty block.
        let len = job.len();
        let used = self.size.min((len / job.piece_len().min()).max(1));
        let blocks: Vec<Range<usize>> = (0..self.size)
            .map(|r| {
                if r < used {
                    block(len, used, r)
                } else {
                    len..len
                }
            })
            .collect();
        let mine = blocks[self.rank].clone();
        let mut notices = Notices::new(self.comm);
        let folded = panic::catch_unwind(AssertUnwindSafe(|| {
            self.fold_block(job, &mine, &mut notices)
        }));
        let (outcome, mut local, lost) = match folded {
            _ if mine.is_empty() => (Outcome::Empty, None, false),
            Ok(local) if local.told_to_stop => (Outcome::Stopped, Some(local), false),
            Ok(local) => {
                let whole = complete(job, local, mine.end);
                let outcome = codec
                    .encode(whole)
                    .map_or_else(Outcome::Failed, Outcome::Part);
                (outcome, None, false)
            }
            Err(payload) => {
                let why = format!("its local executor panicked: {}", message(&*payload));
                (Outcome::Failed(why), None, true)
            }
        };
        // A Break or a panic in this block, or a block lost: nothing after it counts.
        let sent = matches!(outcome, Outcome::Part(_) | Outcome::Failed(_))
            && (job.is_stopped(mine.end) || lost);
        if sent {
            notices.tell_later_ranks();
        }
        let gathered = gather(self.comm, &outcome, sent);
        notices.settle(
            gathered.sent_notices[..self.rank]
                .iter()
                .filter(|&&s| s)
                .count(),
        );
        let outcomes = gathered.outcomes.unwrap_or_else(|e| on_error.raise(e));

        let mut acc: Option<Partial<'a>> = None;
        for (r, (outcome, range)) in outcomes.into_iter().zip(&blocks).enumerate() {
            // Every rank knows the same about the indices before `range` here (what it decoded),
            // so every rank takes the same branch.
            let after_a_stop = job.is_stopped(range.start);
            let failed = |why: String| -> Partial<'a> {
                // Needed only where no earlier block broke or panicked, as sequentially.
                if after_a_stop {
                    return job.run(range.clone());
                }
                on_error.raise(MpiError::Codec { rank: r, why })
            };
            let part = match outcome {
                Outcome::Empty => continue,
                // Nothing in it counts: not even decoded.
                Outcome::Part(_) if after_a_stop => job.run(range.clone()),
                Outcome::Part(bytes) => codec.decode(&bytes).unwrap_or_else(failed),
                Outcome::Failed(why) => failed(why),
                // Stopped by an earlier block, whose decoded partial stopped this job there:
                // running the rest is a skip.
                Outcome::Stopped => match local.take() {
                    Some(own) if r == self.rank => complete(job, own, range.end),
                    _ => job.run(range.clone()),
                },
            };
            acc = Some(match acc {
                Some(left) => job.combine(left, part),
                None => part,
            });
        }
        // Every block empty: the job is, and its one partial is that of `0..0`.
        acc.unwrap_or_else(|| job.run(0..0))
    }

    /// Folds `range` of `job` in pieces of about [`PIECE_TIME`] on the local executor,
    /// probing for a stop notice between pieces; tells nobody anything (the caller does).
    fn fold_block<'a>(
        &self,
        job: &dyn Job<'a>,
        range: &Range<usize>,
        notices: &mut Notices<'_>,
    ) -> Local<'a> {
        let (mut at, mut piece) = (range.start, 1usize);
        let mut partial: Option<Partial<'a>> = None;
        // Stops once this block broke or panicked: nothing after that counts.
        while at < range.end && !job.is_stopped(at) {
            if notices.stopped() {
                return Local {
                    partial,
                    upto: at,
                    told_to_stop: true,
                };
            }
            // No shorter than the job's `min`, and leaving no rest shorter than it: the local
            // executor keeps the bounds inside the piece.
            let min = job.piece_len().min();
            let mut end = at.saturating_add(piece.max(min)).min(range.end);
            if range.end - end < min {
                end = range.end;
            }
            let started = Instant::now();
            let part = self.local.execute(&Offset {
                job,
                start: at,
                len: end - at,
            });
            partial = Some(match partial {
                Some(left) => job.combine(left, part),
                None => part,
            });
            let took = started.elapsed();
            if took < PIECE_TIME / 2 {
                piece = piece.saturating_mul(2);
            } else if took > PIECE_TIME * 2 {
                piece = (piece / 2).max(1);
            }
            at = end;
        }
        Local {
            partial,
            upto: at,
            told_to_stop: false,
        }
    }
}

/// `local`'s partial extended to `end`: the indices it did not fold are stopped (by this
/// block's own stop, or by an earlier block's, decoded), so running them is a skip.
fn complete<'a>(job: &dyn Job<'a>, local: Local<'a>, end: usize) -> Partial<'a> {
    match local.partial {
        Some(folded) if local.upto == end => folded,
        Some(left) => job.combine(left, job.run(local.upto..end)),
        None => job.run(local.upto..end),
    }
}

/// `len` indices of `job` from `start`, indexed from 0: a piece of a rank's block, as the
/// local executor sees it. Its partials are the job's own, covering the job's indices.
struct Offset<'j, 'a> {
    job: &'j dyn Job<'a>,
    start: usize,
    len: usize,
}

impl<'a> Job<'a> for Offset<'_, 'a> {
    fn len(&self) -> usize {
        self.len
    }

    fn run(&self, range: Range<usize>) -> Partial<'a> {
        if range.start > range.end || range.end > self.len {
            // Past the piece: shown to the job as past its end, an executor bug it reports.
            let past = self.job.len().saturating_add(1);
            return self.job.run(past..past);
        }
        self.job
            .run(self.start + range.start..self.start + range.end)
    }

    fn combine(&self, left: Partial<'a>, right: Partial<'a>) -> Partial<'a> {
        self.job.combine(left, right)
    }

    fn is_stopped(&self, from: usize) -> bool {
        self.job.is_stopped(self.start.saturating_add(from))
    }

    fn caller(&self) -> foldex_core::Caller {
        self.job.caller()
    }

    fn piece_len(&self) -> foldex_core::exec::PieceLen {
        self.job.piece_len()
    }
}

thread_local! {
    /// Set while this thread runs a fold across ranks.
    static INSIDE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as running a fold across ranks, until dropped.
struct Inside;

impl Inside {
    fn enter() -> Self {
        INSIDE.with(|inside| inside.set(true));
        Inside
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.with(|inside| inside.set(false));
    }
}

/// Whether the calling thread is running a fold across ranks: one started there now (from a
/// step of that fold) would make collective calls inside it, on some ranks only.
pub(crate) fn inside_a_fold_across_ranks() -> bool {
    INSIDE.with(std::cell::Cell::get)
}
