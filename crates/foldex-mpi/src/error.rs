//! Why a fold across ranks could not run: each error is raised on every rank alike.

use std::fmt;

/// Why [`MpiEx`](crate::MpiEx) could not be made or could not run a fold. A fold's error is the
/// same on every rank: the ranks agree on it collectively before any returns.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MpiError {
    /// MPI is not initialised in this process: call [`initialize`](crate::initialize) first.
    NotInitialized,
    /// MPI was finalised in this process (the [`Mpi`](crate::Mpi) guard was dropped); no MPI
    /// call can follow.
    Finalized,
    /// MPI was already initialised when [`initialize`](crate::initialize) was called (by this
    /// crate or another library); take the world with [`MpiEx::world`](crate::MpiEx::world).
    AlreadyInitialized,
    /// This MPI library provides less thread support than calls from one thread at a time
    /// (`MPI_THREAD_SERIALIZED`), which each [`MpiEx`](crate::MpiEx) needs (MPI is finalised
    /// again).
    ThreadSupport {
        /// The level it provides.
        provided: String,
    },
    /// The ranks built folds of different lengths: every rank must fold the same input.
    Lengths {
        /// Each rank's length, by rank.
        per_rank: Vec<u64>,
    },
    /// A rank's partial result could not be encoded or decoded.
    Codec {
        /// The rank whose partial it was.
        rank: usize,
        /// Why.
        why: String,
    },
}

impl fmt::Display for MpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotInitialized => f.write_str(
                "foldex-mpi: MPI is not initialised in this process; call \
                 foldex_mpi::initialize() first and keep its guard alive",
            ),
            Self::Finalized => f.write_str(
                "foldex-mpi: MPI was finalised in this process (its guard was dropped); no fold \
                 across ranks can run after that",
            ),
            Self::AlreadyInitialized => f.write_str(
                "foldex-mpi: MPI was already initialised in this process; take its world with \
                 MpiEx::world()",
            ),
            Self::ThreadSupport { provided } => write!(
                f,
                "foldex-mpi: this MPI provides thread support {provided}, less than calls from \
                 one thread at a time (MPI_THREAD_SERIALIZED)"
            ),
            Self::Lengths { per_rank } => write!(
                f,
                "foldex-mpi: the ranks built folds of different lengths {per_rank:?} (by rank); \
                 every rank must fold the same input"
            ),
            Self::Codec { rank, why } => write!(
                f,
                "foldex-mpi: the partial result of rank {rank} could not cross processes: {why}"
            ),
        }
    }
}

impl std::error::Error for MpiError {}
