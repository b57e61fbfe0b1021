//! [`MpiEx`]: a fold's input cut into one block per rank, each folded on a local executor, the
//! partials combined in rank order on every rank.

use crate::block::{block, Slice};
use crate::error::MpiError;
use crate::notice::Notices;
use crate::outcome::{gather, Outcome};
use foldex_core::{Executor, ExecutorExt, Source};
use foldex_loader::{Loadable, Loader};
use foldex_threaded::ThreadedEx;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::Any;
use std::fmt;
use std::ops::ControlFlow;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a piece of a rank's block folds before the rank looks for a stop notice: the
/// latency of early termination across ranks, against one local fold's start per piece.
const PIECE_TIME: Duration = Duration::from_millis(4);

/// Folds across the ranks of an MPI job (SPMD: every rank runs the same program and calls the
/// same folds in the same order). `0..len` is cut into one contiguous block per rank; each rank
/// folds its block on a local executor (`ThreadedEx` by default); the partials cross processes
/// encoded with `postcard` and are combined in rank order, so `combine` need not be
/// commutative; every rank returns the result.
///
/// ```no_run
/// let mpi = foldex_mpi::initialize()?;
/// let ex = mpi.executor()?;
/// let words = ex.map_reduce(0..1_000_000usize, |i| i % 7, || 0, |a, b| a + b)?;
/// if ex.rank() == 0 {
///     println!("{words} on {} ranks", ex.size());
/// }
/// # Ok::<(), foldex_mpi::MpiError>(())
/// ```
///
/// Early termination is deterministic across ranks: a `Break` in rank `r`'s block stops the
/// ranks after `r` at their next poll (they fold in pieces of about 4 ms and probe between
/// pieces), the ranks before `r` finish, and the result is the sequential `try_fold`'s. A panic
/// stops the later ranks the same way and is raised on every rank with its message (the
/// original payload on its own rank), after the earlier ranks finished, as in a sequential
/// fold. Ranks that fold different lengths get [`MpiError::Lengths`] on every rank.
pub struct MpiEx {
    /// Always `Some` until dropped: taken out on drop when MPI was finalised already, when
    /// freeing it would be an MPI call after finalisation.
    comm: Option<SimpleCommunicator>,
    /// The communicator's rank and size, kept so that reading them needs no MPI call.
    rank: usize,
    size: usize,
    local: Arc<dyn Executor>,
}

impl Drop for MpiEx {
    fn drop(&mut self) {
        if mpi::environment::is_finalized() {
            std::mem::forget(self.comm.take());
        }
    }
}

impl fmt::Debug for MpiEx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MpiEx")
            .field("rank", &self.rank())
            .field("size", &self.size())
            .finish_non_exhaustive()
    }
}

impl MpiEx {
    /// An executor over every rank of the job (a duplicate of the world communicator, so that
    /// its messages never meet the program's). Collective: every rank calls it.
    ///
    /// # Errors
    /// [`MpiError::NotInitialized`] before MPI is initialised, [`MpiError::Finalized`] after.
    pub fn world() -> Result<Self, MpiError> {
        check_running()?;
        let comm = SimpleCommunicator::world().duplicate();
        Ok(Self {
            rank: comm.rank() as usize,
            size: comm.size() as usize,
            comm: Some(comm),
            local: Arc::new(ThreadedEx::new()),
        })
    }

    /// Folds each rank's block on `local` (default `ThreadedEx::new()`).
    pub fn local<E: Executor + 'static>(mut self, local: E) -> Self {
        self.local = Arc::new(local);
        self
    }

    /// This process's rank, `0..size()`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// This rank's part of `loader`'s epochs (PyTorch's `DistributedSampler`):
    /// `loader.shard(rank, size)` from the communicator. Every rank computes the same epoch order
    /// from the loader's sampler (its seed and the epoch), and takes every `size`-th position
    /// from its rank on; the loader's [`Tail`](foldex_loader::Tail) decides what happens to the
    /// last `len % size` positions, and each rank's [`LoaderState`](foldex_loader::LoaderState)
    /// resumes that rank's part.
    pub fn shard<D: Loadable, C, M>(&self, loader: Loader<D, C, M>) -> Loader<D, C, M> {
        loader.shard(self.rank(), self.size())
    }

    /// The communicator the executor's messages travel on (its own duplicate of the world).
    fn communicator(&self) -> &SimpleCommunicator {
        self.comm
            .as_ref()
            .expect("present until the executor is dropped")
    }

    /// `fold` across ranks: every rank returns `combine` of all blocks' partials in rank order.
    ///
    /// # Errors
    /// See [`MpiEx::try_fold`].
    pub fn fold<S, A, I, F, C>(
        &self,
        source: S,
        init: I,
        step: F,
        combine: C,
    ) -> Result<A, MpiError>
    where
        S: Source,
        A: Serialize + DeserializeOwned + Send,
        I: Fn() -> A + Sync,
        F: Fn(A, S::Item) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        let flow = self.try_fold(
            source,
            init,
            |a, x| ControlFlow::Continue(step(a, x)),
            combine,
        )?;
        match flow {
            ControlFlow::Continue(a) | ControlFlow::Break(a) => Ok(a),
        }
    }

    /// `map` each item, then reduce with `combine` (identity `init()`), across ranks.
    ///
    /// # Errors
    /// See [`MpiEx::try_fold`].
    pub fn map_reduce<S, A, M, I, C>(
        &self,
        source: S,
        map: M,
        init: I,
        combine: C,
    ) -> Result<A, MpiError>
    where
        S: Source,
        A: Serialize + DeserializeOwned + Send,
        M: Fn(S::Item) -> A + Sync,
        I: Fn() -> A + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        self.fold(source, &init, |a, x| combine(a, map(x)), &combine)
    }

    /// `try_fold` across ranks, with the sequential answer: the first `Break` in index order
    /// decides, blocks after it stop early, blocks before it are combined whole.
    ///
    /// # Errors
    /// The ranks' lengths differ ([`MpiError::Lengths`]), a partial cannot be encoded or
    /// decoded ([`MpiError::Codec`]), or MPI is finalised; the same error on every rank.
    ///
    /// # Panics
    /// With the first panicking block's message, on every rank, when no `Break` comes before it.
    pub fn try_fold<S, A, I, F, C>(
        &self,
        source: S,
        init: I,
        step: F,
        combine: C,
    ) -> Result<ControlFlow<A, A>, MpiError>
    where
        S: Source,
        A: Serialize + DeserializeOwned + Send,
        I: Fn() -> A + Sync,
        F: Fn(A, S::Item) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        check_running()?;
        // A `len` that panics on one rank must not leave the others in the comparison.
        let len = panic::catch_unwind(AssertUnwindSafe(|| source.len()));
        self.same_length_everywhere(len.as_ref().ok().copied())?;
        let len = len.unwrap_or_else(|payload| panic::resume_unwind(payload));
        let (rank, size) = (self.rank(), self.size());
        let mut notices = Notices::new(self.communicator());
        let mine = block(len, size, rank);
        let folded = panic::catch_unwind(AssertUnwindSafe(|| {
            self.fold_block(&source, mine, &mut notices, &init, &step, &combine)
        }));
        let mut payload: Option<Box<dyn Any + Send>> = None;
        let outcome = match folded {
            Ok(Local::Done(a)) => encoded(&a).map_or_else(Outcome::Unencodable, Outcome::Done),
            Ok(Local::Broke(a)) => encoded(&a).map_or_else(Outcome::Unencodable, Outcome::Broke),
            Ok(Local::Stopped) => Outcome::Stopped,
            Err(p) => {
                let message = panic_message(&*p);
                payload = Some(p);
                Outcome::Panicked(message)
            }
        };
        if outcome.sent_notices() {
            notices.tell_later_ranks();
        }
        let gathered = gather(self.communicator(), &outcome);
        notices.settle(gathered.sent_notices[..rank].iter().filter(|&&s| s).count());
        combine_in_rank_order(gathered.outcomes?, rank, payload, init, combine)
    }

    /// Compares the ranks' lengths collectively: an error on every rank if any differs (a
    /// rank whose `len` panicked, `None`, counts as `u64::MAX`).
    fn same_length_everywhere(&self, len: Option<usize>) -> Result<(), MpiError> {
        let len = len.map_or(u64::MAX, |len| len as u64);
        let mut per_rank = vec![0u64; self.size()];
        self.communicator().all_gather_into(&len, &mut per_rank[..]);
        if per_rank.iter().all(|&l| l == len) {
            Ok(())
        } else {
            Err(MpiError::Lengths { per_rank })
        }
    }

    /// Folds `range` of `source` in pieces of about [`PIECE_TIME`], probing for a stop notice
    /// between pieces; tells nobody anything (the caller does).
    fn fold_block<S, A, I, F, C>(
        &self,
        source: &S,
        range: std::ops::Range<usize>,
        notices: &mut Notices<'_>,
        init: &I,
        step: &F,
        combine: &C,
    ) -> Local<A>
    where
        S: Source,
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(A, S::Item) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        let (mut at, mut piece) = (range.start, 1usize);
        let mut partial: Option<A> = None;
        let join = |left: Option<A>, right: A| match left {
            Some(left) => combine(left, right),
            None => right,
        };
        while at < range.end {
            if notices.stopped() {
                return Local::Stopped;
            }
            let end = at.saturating_add(piece).min(range.end);
            let started = Instant::now();
            let slice = Slice {
                source,
                range: at..end,
            };
            match self.local.try_fold(slice, init, step, combine) {
                ControlFlow::Continue(a) => partial = Some(join(partial, a)),
                ControlFlow::Break(a) => return Local::Broke(join(partial, a)),
            }
            let took = started.elapsed();
            if took < PIECE_TIME / 2 {
                piece = piece.saturating_mul(2);
            } else if took > PIECE_TIME * 2 {
                piece = (piece / 2).max(1);
            }
            at = end;
        }
        Local::Done(partial.unwrap_or_else(init))
    }
}

/// What a rank's own block came to.
enum Local<A> {
    Done(A),
    Broke(A),
    Stopped,
}

/// `a` encoded, or why not: an error, or a panic in its `Serialize` (caught, since every other
/// rank is about to wait for this one in the gather).
fn encoded<A: Serialize>(a: &A) -> Result<Vec<u8>, String> {
    panic::catch_unwind(AssertUnwindSafe(|| postcard::to_stdvec(a)))
        .map_err(|payload| format!("encoding panicked: {}", panic_message(&*payload)))?
        .map_err(|e| e.to_string())
}

/// Every rank's outcome combined left to right, as a sequential fold would: the first block
/// that broke or panicked decides.
fn combine_in_rank_order<A, I, C>(
    all: Vec<Outcome>,
    rank: usize,
    own_panic: Option<Box<dyn Any + Send>>,
    init: I,
    combine: C,
) -> Result<ControlFlow<A, A>, MpiError>
where
    A: DeserializeOwned,
    I: Fn() -> A,
    C: Fn(A, A) -> A,
{
    let decode = |r: usize, bytes: &[u8]| -> Result<A, MpiError> {
        postcard::from_bytes(bytes).map_err(|e| MpiError::Codec {
            rank: r,
            why: e.to_string(),
        })
    };
    let mut acc: Option<A> = None;
    for (r, outcome) in all.iter().enumerate() {
        match outcome {
            Outcome::Done(bytes) => {
                let a = decode(r, bytes)?;
                acc = Some(match acc {
                    Some(left) => combine(left, a),
                    None => a,
                });
            }
            Outcome::Broke(bytes) => {
                let a = decode(r, bytes)?;
                return Ok(ControlFlow::Break(match acc {
                    Some(left) => combine(left, a),
                    None => a,
                }));
            }
            Outcome::Panicked(message) => match own_panic {
                Some(payload) if r == rank => panic::resume_unwind(payload),
                _ => panic::resume_unwind(Box::new(message.clone())),
            },
            // Needed only where no earlier block broke or panicked, as in a sequential fold.
            Outcome::Unencodable(why) => {
                return Err(MpiError::Codec {
                    rank: r,
                    why: why.clone(),
                })
            }
            Outcome::Stopped => {
                unreachable!("a block stops only after an earlier one broke or panicked")
            }
        }
    }
    Ok(ControlFlow::Continue(acc.unwrap_or_else(init)))
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a rank panicked with a payload that is not a string".to_owned())
}

/// Refuses to touch MPI before it is initialised or after it is finalised.
pub(crate) fn check_running() -> Result<(), MpiError> {
    if mpi::environment::is_finalized() {
        Err(MpiError::Finalized)
    } else if !mpi::environment::is_initialized() {
        Err(MpiError::NotInitialized)
    } else {
        Ok(())
    }
}
