//! The `foldex` command as a library: [`run`] is the `foldex` binary; [`run_across`] is the same
//! command inside an MPI job, where `foldex bench --executors mpi` folds across the ranks
//! (foldex-mpi's `foldex` binary supplies the ranks through [`Across`]).
//!
//! Exit codes: 0 on success, 2 for bad input (clap's convention), 1 when a row or the chart
//! could not be made, 130 when interrupted with Ctrl-C.
#![forbid(unsafe_code)]

mod across;
mod advise;
mod app;
mod chart;
mod cli;
mod cputime;
mod executors;
mod load;
mod matrix;
mod measure;
mod parse;
mod pipeline;
mod reference;
mod report;
mod workload;

pub use app::{run, run_across, Across};
