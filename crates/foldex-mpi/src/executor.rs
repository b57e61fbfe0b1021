//! [`MpiEx`]: a fold's input cut into one block per rank, each folded on a local executor, the
//! partials combined in rank order on every rank.

use crate::across::{inside_a_fold_across_ranks, OnError, Ranks, Refused};
use crate::error::MpiError;
use foldex_core::codec::Encoded;
use foldex_core::codec::Postcard;
use foldex_core::exec::PartialCodec;
use foldex_core::{Executor, ExecutorExt, Job, Partial, Source};
use foldex_loader::{Loadable, Loader};
use foldex_threaded::ThreadedEx;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;
use std::ops::ControlFlow;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

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
    /// The thread that made it: the one that calls MPI for it (MPI is initialised for calls
    /// from one thread at a time, `MPI_THREAD_SERIALIZED`).
    thread: std::thread::ThreadId,
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
            thread: std::thread::current().id(),
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
    /// from its rank on; the loader's [`Tail`](foldex_dataset::Tail) decides what happens to the
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

    /// The communicator, this rank and the local executor, for one fold.
    fn ranks(&self) -> Ranks<'_> {
        Ranks {
            comm: self.communicator(),
            rank: self.rank,
            size: self.size,
            local: &*self.local,
        }
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
    /// decides, blocks after it stop early, blocks before it are combined whole. The same
    /// fold as [`ExecutorExt::try_fold`](foldex_core::ExecutorExt::try_fold) with an `init`
    /// encoded with [`Postcard`](crate::Postcard) ([`Encoded`]) on this executor, with errors
    /// returned instead of raised.
    ///
    /// # Errors
    /// The ranks' lengths differ ([`MpiError::Lengths`]), a partial cannot be encoded or
    /// decoded ([`MpiError::Codec`]), or MPI is not running; the same error on every rank.
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
        self.refuse_where_ranks_could_part();
        // A `len` that panics on one rank must not leave the others in the comparison.
        let len = panic::catch_unwind(AssertUnwindSafe(|| source.len()));
        self.same_length_everywhere(len.as_ref().ok().copied())?;
        if let Err(payload) = len {
            panic::resume_unwind(payload);
        }
        let compared = LengthsCompared(self);
        let run = || compared.try_fold(source, Encoded(init, Postcard), step, combine);
        panic::catch_unwind(AssertUnwindSafe(run)).map_err(|payload| {
            match payload.downcast::<Refused>() {
                Ok(refused) => refused.0,
                Err(payload) => panic::resume_unwind(payload),
            }
        })
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

    /// Panics, before any MPI call, where a fold across ranks could make its collective calls on
    /// some ranks only: on a thread other than the one that made this executor (only that one
    /// calls MPI), or inside a step of another fold across ranks (whose items run on some ranks
    /// only). Either is the same at the same item on every rank, so the panic is too.
    fn refuse_where_ranks_could_part(&self) {
        if std::thread::current().id() != self.thread {
            panic!(
                "foldex-mpi: a fold across ranks was started on a thread other than the one \
                 that made its MpiEx (only that thread calls MPI); start it there, not from \
                 inside another fold"
            );
        }
        if inside_a_fold_across_ranks() {
            panic!(
                "foldex-mpi: a fold across ranks was started inside a step of another fold \
                 across ranks, whose items run on some ranks only; fold the inner input on a \
                 local executor"
            );
        }
    }

    /// The codec of a job given to this executor; panics, the same on every rank, where there
    /// is none, or where MPI cannot be called from here.
    fn codec_of<'j, 'a>(&self, job: &'j dyn Job<'a>) -> &'j dyn PartialCodec<'a> {
        if let Err(error) = check_running() {
            panic!("{error}");
        }
        self.refuse_where_ranks_could_part();
        job.codec().unwrap_or_else(|| {
            panic!(
                "foldex-mpi: this fold's partials cannot cross ranks: it was given no codec. \
                 Give its `init` a codec (`foldex_core::codec::Encoded(init, \
                 foldex_mpi::Postcard)`), a pipeline one (`pipeline.encoded(Postcard)`), or \
                 use MpiEx's own `fold` / `try_fold`; a stream cannot be split across ranks"
            )
        })
    }
}

/// Runs every fold across the ranks, as the typed methods do, raising as a panic (the same on
/// every rank) what they return as an error. The job needs a codec: folds whose `init` carries
/// one ([`Encoded`]), and the reductions of a pipeline given one (`pipeline.encoded(codec)`),
/// have one; any other panics with a message saying so, on every rank.
impl Executor for MpiEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let codec = self.codec_of(job);
        if let Err(error) = self.same_length_everywhere(Some(job.len())) {
            panic!("{error}");
        }
        self.ranks().run(job, codec, OnError::Panic)
    }

    fn workers(&self) -> usize {
        self.local.workers()
    }
}

/// `MpiEx` for a fold whose lengths the typed methods compared already, returning what fails
/// on every rank as a [`Refused`] payload.
struct LengthsCompared<'e>(&'e MpiEx);

impl Executor for LengthsCompared<'_> {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let codec = self.0.codec_of(job);
        self.0.ranks().run(job, codec, OnError::Unwind)
    }

    fn workers(&self) -> usize {
        self.0.local.workers()
    }
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
