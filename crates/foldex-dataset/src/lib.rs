//! The data layer below the foldex loader, with no threads: what a dataset is, which
//! observations an epoch visits and in which order, how observations become a batch, and the
//! randomness of each observation.
//!
//! - **Datasets**: [`Dataset`] (observations by index: a `Vec`, a slice, [`from_fn`], an
//!   `Arc<D>`, a `Box<dyn Dataset>`) and [`TryDataset`] (loads that may fail, [`ItemError`]).
//! - **Order** ([`sampler`], [`order`]): a [`Sampler`] turns `(length, epoch)` into an
//!   [`EpochOrder`] (the identity, a [`Permutation`] that takes O(1) memory, or a list of
//!   draws), and a [`Shard`] takes one rank's part of it.
//! - **Batches** ([`collate`]): a [`Collate`] makes a batch of observations, [`VecCollate`] by
//!   default.
//! - **Randomness**: [`ItemContext`] tells a load its epoch, index and worker, and
//!   [`rng_for`]`(seed, epoch, index)` gives each observation a generator of its own.
//!
//! Every function here is pure: no executor, thread count or timing changes an order, a batch
//! or a draw. The loader (`foldex-loader`) runs these on an executor's threads.
//!
//! ```
//! use foldex_dataset::sampler::Shuffled;
//! use foldex_dataset::{from_fn, Dataset, Sampler};
//!
//! let squares = from_fn(10, |i| i * i);
//! let order = Shuffled::new(7).order(squares.len(), 0);
//! let mut seen: Vec<usize> = order.iter().map(|i| squares.get(i)).collect();
//! seen.sort();
//! assert_eq!(seen, (0..10).map(|i| i * i).collect::<Vec<_>>());
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod collate;
mod context;
mod dataset;
pub mod order;
mod permutation;
mod rng;
pub mod sampler;
mod shard;

pub use collate::{Collate, VecCollate};
pub use context::ItemContext;
pub use dataset::{from_fn, Dataset, Fallible, FromFn, ItemError, Mapped, TryDataset};
pub use order::{EpochOrder, Permutation};
pub use rng::{rng_for, ItemRng};
pub use sampler::Sampler;
pub use shard::{Shard, Tail};
