//! foldex: folds (reductions) on pluggable executors.
//!
//! Write the fold once; pick the executor per workload, even at run time.
//!
//! ```
//! use foldex::prelude::*;
//!
//! let data: Vec<u64> = (1..=1_000).collect();
//! let ex: Box<dyn Executor> = Box::new(SequentialEx);
//! let sum_of_squares = ex.map_reduce(&data, |&x| x * x, || 0, |a, b| a + b);
//! assert_eq!(sum_of_squares, 333_833_500);
//! ```
#![forbid(unsafe_code)]

pub use foldex_core as core;
pub use foldex_core::{
    Basesize, ConfigError, Executor, ExecutorExt, FoldHandle, Job, Partial, Source, SpawnExt,
};
pub use foldex_loader::{
    eachobsparallel, from_fn, Collate, Dataset, EpochOrder, Fallible, ItemError, Loader, TryDataset,
};
pub use foldex_seq::SequentialEx;
pub use foldex_taskpool::TaskPoolEx;
pub use foldex_threaded::{Pool, PoolError, ThreadedEx};

/// The data loader: [`Loader`], [`Dataset`] and [`eachobsparallel`], with every type they use.
pub use foldex_loader as loader;

/// Pipelines: `source.pipe()`, adapters and transforms, and reductions that take the executor.
pub use foldex_pipeline as pipeline;
pub use foldex_pipeline::{IntoPipeline, Pipeline};

/// The names a program using foldex needs: the executors, the traits that give `fold` and
/// friends, and `Source` for custom inputs.
pub mod prelude {
    pub use foldex_core::{Basesize, Executor, ExecutorExt, Source, SpawnExt};
    pub use foldex_loader::{eachobsparallel, Dataset, Loader, TryDataset};
    pub use foldex_pipeline::IntoPipeline;
    pub use foldex_seq::SequentialEx;
    pub use foldex_taskpool::TaskPoolEx;
    pub use foldex_threaded::{Pool, ThreadedEx};
}

/// The README's examples, compiled and run as doc tests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
