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

/// `AutoEx`, the model it chooses by ([`Estimate`](auto::Estimate)) and its constants.
#[doc(inline)]
pub use foldex_auto as auto;
pub use foldex_auto::AutoEx;
/// The executor protocol and the typed fold API: [`Source`](protocol::Source) for custom
/// inputs, the pieces an executor's author builds on, and the settings every executor shares.
#[doc(inline)]
pub use foldex_core as protocol;
pub use foldex_core::{Basesize, Executor, ExecutorExt, SpawnExt};
pub use foldex_dataset::from_fn;
pub use foldex_loader::{eachobsparallel, Loader};
pub use foldex_seq::SequentialEx;
pub use foldex_taskpool::TaskPoolEx;
pub use foldex_threaded::{Pool, ThreadedEx};

/// `ThreadedEx`'s pools: [`Pool`], its builder and its errors.
#[doc(inline)]
pub use foldex_threaded as threaded;

/// The data layer under the loader, with no threads: [`Dataset`](dataset::Dataset), samplers,
/// shuffles, sharding, collates and each observation's generator.
#[doc(inline)]
pub use foldex_dataset as dataset;

/// The data loader: [`Loader`], [`StreamLoader`](loader::StreamLoader) and [`eachobsparallel`], their error policies,
/// checkpoints and statistics.
#[doc(inline)]
pub use foldex_loader as loader;

/// A [`Loader`] over `dataset` on the executor that suits most loads: [`ThreadedEx`] with a
/// batch per piece (`basesize(1)`), on the global pool. [`Loader::new`]`(dataset, executor)`
/// chooses another, as PyTorch's `num_workers` does.
///
/// ```
/// let loader = foldex::load(vec![1u32, 2, 3, 4, 5]).batch_size(2).shuffle(7);
/// for epoch in 0..2 {
///     let seen: usize = loader.iter().map(|batch| batch.len()).sum();
///     assert_eq!(seen, 5, "epoch {epoch}");
/// }
/// ```
pub fn load<D: foldex_loader::Loadable>(dataset: D) -> Loader<D> {
    Loader::new(dataset, ThreadedEx::new().basesize(1))
}

/// Datasets around the loader: views, splits, folds, filters and resampling ([`DatasetExt`](data::DatasetExt)).
#[doc(inline)]
pub use foldex_data as data;

/// Pipelines: `source.pipe()`, adapters and transforms, and reductions that take the executor.
#[doc(inline)]
pub use foldex_pipeline as pipeline;
pub use foldex_pipeline::IntoPipeline;

/// The names a program using foldex needs: the executors, the traits that give `fold` and
/// friends on executors and `.pipe()` on collections, and the loader.
///
/// Importing it changes the meaning of no other code: none of its traits has a method that
/// `std` types also have (`Source` and `Dataset`, whose `len` and `get` would shadow those of
/// `Vec`, slices and ranges, are imported by name where a program implements them:
/// `foldex::protocol::Source`, `foldex::dataset::Dataset`).
pub mod prelude {
    pub use crate::load;
    pub use foldex_auto::AutoEx;
    pub use foldex_core::{Basesize, Executor, ExecutorExt, SpawnExt};
    pub use foldex_loader::{eachobsparallel, Loader};
    pub use foldex_pipeline::IntoPipeline;
    pub use foldex_seq::SequentialEx;
    pub use foldex_taskpool::TaskPoolEx;
    pub use foldex_threaded::{Pool, ThreadedEx};
}

// Every Rust block of the README and of docs/ runs as a doc test (docs/distributed.md in
// foldex-mpi, which it needs); `tests/doc_examples.rs` checks that none is left out.

/// The README's examples, compiled and run as doc tests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;

/// docs/architecture.md: no Rust block, included so that none goes untested.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/architecture.md")]
struct ArchitectureExamples;

/// docs/benchmarks.md: no Rust block, included so that none goes untested.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/benchmarks.md")]
struct BenchmarksExamples;

/// The examples of docs/choosing-an-executor.md, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/choosing-an-executor.md")]
struct ChoosingAnExecutorExamples;

/// The examples of docs/custom-executor.md, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/custom-executor.md")]
struct CustomExecutorExamples;

/// The examples of docs/datasets.md, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/datasets.md")]
struct DatasetsExamples;

/// The examples of docs/loader.md, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/loader.md")]
struct LoaderExamples;

/// The examples of docs/pipelines.md, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/pipelines.md")]
struct PipelinesExamples;

/// The examples of docs/streams.md, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/streams.md")]
struct StreamsExamples;
