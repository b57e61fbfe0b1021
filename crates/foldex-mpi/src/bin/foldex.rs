//! The `foldex` command in an MPI job: `mpirun -n 2 foldex bench --executors mpi` folds each
//! row of the benchmark matrix across the ranks, one thread per rank, and rank 0 prints the
//! table. Every rank must be started with the same arguments.
#![forbid(unsafe_code)]

use foldex_cli::Across;
use foldex_core::Executor;
use foldex_mpi::MpiEx;
use foldex_seq::SequentialEx;
use std::process::ExitCode;
use std::sync::Arc;

/// The ranks of this job.
struct Ranks {
    rank: usize,
    size: usize,
}

impl Across for Ranks {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn executor(&self) -> Result<Box<dyn Executor>, String> {
        let ex = MpiEx::world().map_err(|e| e.to_string())?;
        Ok(Box::new(ex.local(SequentialEx)))
    }
}

/// Why MPI could not start; `main` returning it prints "Error: " and this, and exits with 1.
struct Failed(foldex_mpi::MpiError);

impl std::fmt::Debug for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

fn main() -> Result<ExitCode, Failed> {
    let mpi = foldex_mpi::initialize().map_err(Failed)?;
    let world = mpi.executor().map_err(Failed)?;
    let ranks = Ranks {
        rank: world.rank(),
        size: world.size(),
    };
    drop(world);
    let code = foldex_cli::run_across(Arc::new(ranks));
    drop(mpi);
    Ok(code)
}
