//! foldex: folds (reductions) on pluggable executors, pipelines of transforms on them, and a
//! parallel data loader on top.
//!
//! Write the computation once, as a pipeline or as a fold of `init`, `step` and an associative
//! `combine`; pick the executor per workload, even at run time. Every executor gives the
//! sequential answer, stops early deterministically and re-raises a panic's own payload.
//!
//! ```
//! use foldex::prelude::*;
//!
//! let data: Vec<u64> = (1..=1_000).collect();
//! let odd_squares = data.pipe().map(|&x| x * x).filter(|x| x % 2 == 1);
//!
//! // The executor is a choice, made per call: work stealing, a task pool, the calling thread,
//! // or one chosen at run time behind `&dyn Executor`.
//! let threads = ThreadedEx::new();
//! let total: u64 = odd_squares.sum(&threads);
//! let picked: Box<dyn Executor> = Box::new(TaskPoolEx::new().ntasks(4));
//! assert_eq!(odd_squares.sum::<u64>(&*picked), total);
//! assert_eq!(odd_squares.find_first(&SequentialEx, |&x| x > 1_000), Some(1_089));
//!
//! // A loader feeds a training loop: batches of a shuffled dataset, loaded in parallel.
//! let loader = foldex::load(data).batch_size(100).shuffle(7);
//! for epoch in 0..2 {
//!     let seen: usize = loader.iter().map(|batch| batch.len()).sum();
//!     assert_eq!(seen, 1_000, "epoch {epoch}");
//! }
//! ```
//!
//! Where to go next: [`pipeline`] for the adapters and reductions, [`ExecutorExt`] for folds,
//! [`loader`] and [`dataset`] for the loader, [`protocol`] to write an executor of your own.
#![forbid(unsafe_code)]

/// `AutoEx`, the model it chooses by ([`Estimate`](auto::Estimate)) and its constants.
#[doc(inline)]
pub use foldex_auto as auto;
pub use foldex_auto::AutoEx;
/// The executor protocol and the typed fold API: [`Source`](protocol::Source) for custom
/// inputs, the pieces an executor's author builds on, and the settings every executor shares.
/// (Its crate is `foldex-core`; this module was once `foldex::core`.)
#[doc(inline, alias = "core")]
pub use foldex_core as protocol;
pub use foldex_core::{Basesize, Executor, ExecutorExt, SpawnExt};
pub use foldex_dataset::from_fn;
pub use foldex_loader::{eachobsparallel, Loader};
pub use foldex_seq::{NonThreadedEx, SequentialEx};
pub use foldex_taskpool::TaskPoolEx;
pub use foldex_threaded::{DepthFirstEx, Pool, ThreadedEx};

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
/// friends on executors, `.pipe()` on collections (`.into_pipe()` to move one in,
/// `.pipe_lines()` and friends on `&str`, `.pipe_drain(range)` on a `Vec`), and the loader.
///
/// Importing it changes the meaning of no other code: none of its traits has a method that
/// `std` types also have (`Source` and `Dataset`, whose `len` and `get` would shadow those of
/// `Vec`, slices and ranges, are imported by name where a program implements them:
/// `foldex::protocol::Source`, `foldex::dataset::Dataset`), nor one that rayon's prelude has
/// (`ParallelExtend::par_extend` and `ParallelSort::par_sort`, which would make rayon's calls
/// ambiguous, are imported by name: `foldex::pipeline::ParallelExtend`,
/// `foldex::pipeline::sort::ParallelSort`).
pub mod prelude {
    pub use crate::load;
    pub use foldex_auto::AutoEx;
    pub use foldex_core::{Basesize, Executor, ExecutorExt, SpawnExt};
    pub use foldex_loader::{eachobsparallel, Loader};
    pub use foldex_pipeline::adapters::WideMap;
    pub use foldex_pipeline::sources::{IntoOwnedPipeline, PipeDrain, PipeStr};
    pub use foldex_pipeline::IntoPipeline;
    pub use foldex_seq::{NonThreadedEx, SequentialEx};
    pub use foldex_taskpool::TaskPoolEx;
    pub use foldex_threaded::{DepthFirstEx, Pool, ThreadedEx};
}

// The member crates under their own names, for the paths rustc suggests in its hints (it names
// an item by the crate that defines it: `foldex::foldex_dataset::Dataset`). The docs show each
// item once, in the modules above.
#[doc(hidden)]
pub use {
    foldex_auto, foldex_core, foldex_data, foldex_dataset, foldex_loader, foldex_pipeline,
    foldex_seq, foldex_taskpool, foldex_threaded,
};

mod moved;
#[doc(hidden)]
#[allow(deprecated)]
pub use moved::*;

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

/// docs/burn.md: no Rust block (foldex-burn is a workspace of its own), included so that
/// none goes untested.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/burn.md")]
struct BurnExamples;

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

/// docs/rayon-port.md: no Rust block, included so that none goes untested.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/rayon-port.md")]
struct RayonPortExamples;

/// The examples of docs/streams.md, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/streams.md")]
struct StreamsExamples;
