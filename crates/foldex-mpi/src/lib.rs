//! Scale-out for foldex: [`MpiEx`] runs a fold across the ranks of an MPI job, on MPICH through
//! the `mpi` crate.
//!
//! SPMD: every rank runs the same program. A fold's `0..len` is cut into one contiguous block
//! per rank; each rank folds its block on a local executor; the partials are encoded with
//! `postcard`, gathered on every rank and combined in rank order, so every rank returns the
//! sequential answer. `try_fold` stops the ranks after a `Break` early (the protocol is in
//! `notice.rs`), and a panic on any rank is raised on every rank.
//!
//! ```no_run
//! // mpirun -n 2 cargo run --release --manifest-path crates/foldex-mpi/Cargo.toml --example wordcount
//! let mpi = foldex_mpi::initialize()?; // finalises MPI when dropped
//! let ex = mpi.executor()?;
//! let total: u64 = ex.fold(1..1_001usize, || 0, |s, x| s + x as u64, |a, b| a + b)?;
//! assert_eq!(total, 500_500);
//! # Ok::<(), foldex_mpi::MpiError>(())
//! ```
//!
//! Partials cross processes through `serde` with `postcard`: a compact, documented wire format
//! (varint integers), no schema, and the same on every platform; a fold whose accumulator does
//! not implement `Serialize` and `DeserializeOwned` does not compile on `MpiEx`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod across;
mod block;
mod error;
mod executor;
mod notice;
mod outcome;

pub use error::MpiError;
pub use executor::MpiEx;
pub use foldex_core::codec::Postcard;
pub use mpi;

use mpi::environment::{Threading, Universe};

/// MPI, initialised for this process: finalised when dropped. Keep it alive as long as the
/// program folds across ranks.
pub struct Mpi {
    _universe: Universe,
}

impl std::fmt::Debug for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mpi").finish_non_exhaustive()
    }
}

/// Initialises MPI for this process, for calls from one thread at a time
/// (`MPI_THREAD_SERIALIZED`): each [`MpiEx`] makes its MPI calls from the thread that made it;
/// the local executors' threads never call MPI.
///
/// # Errors
/// [`MpiError::AlreadyInitialized`] if MPI was initialised already (take the world with
/// [`MpiEx::world`]), [`MpiError::Finalized`] after it was finalised,
/// [`MpiError::ThreadSupport`] if this MPI cannot take calls from any one thread at a time.
pub fn initialize() -> Result<Mpi, MpiError> {
    if mpi::environment::is_finalized() {
        return Err(MpiError::Finalized);
    }
    let (universe, provided) = mpi::initialize_with_threading(Threading::Serialized)
        .ok_or(MpiError::AlreadyInitialized)?;
    if provided < Threading::Serialized {
        // Finalised when `universe` drops.
        return Err(MpiError::ThreadSupport {
            provided: format!("{provided:?}"),
        });
    }
    Ok(Mpi {
        _universe: universe,
    })
}

impl Mpi {
    /// An executor over every rank ([`MpiEx::world`]). Collective: every rank calls it.
    ///
    /// # Errors
    /// As [`MpiEx::world`].
    pub fn executor(&self) -> Result<MpiEx, MpiError> {
        MpiEx::world()
    }
}

/// The examples of docs/distributed.md, compiled as doc tests (`no_run`: they need `mpirun`).
#[cfg(doctest)]
#[doc = include_str!("../../../docs/distributed.md")]
struct DistributedExamples;
