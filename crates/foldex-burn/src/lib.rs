//! foldex as the data loader of [burn](https://burn.dev) (0.22): a [`FoldexDataLoader`]
//! implements burn's `DataLoader<O>` trait, the one its `Learner` takes, over a foldex
//! `Loader`; [`FromBurn`], [`ToBurn`] and [`TryToBurn`] read burn datasets as foldex datasets
//! and back.
//!
//! ```
//! use burn::data::dataloader::DataLoader;
//! use burn::data::dataloader::batcher::Batcher;
//! use burn::data::dataset::InMemDataset;
//! use burn::tensor::{Device, Tensor, TensorData};
//! use foldex_burn::FoldexDataLoaderBuilder;
//! use std::sync::Arc;
//!
//! /// Feature vectors into one `[batch, 4]` tensor on the loader's device.
//! #[derive(Clone)]
//! struct Stack;
//! impl Batcher<[f32; 4], Tensor<2>> for Stack {
//!     fn batch(&self, items: Vec<[f32; 4]>, device: &Device) -> Tensor<2> {
//!         let n = items.len();
//!         Tensor::from_data(TensorData::new(items.concat(), [n, 4]), device)
//!     }
//! }
//!
//! let data = InMemDataset::new((0..100).map(|i| [i as f32; 4]).collect());
//! let handle = Arc::new(
//!     FoldexDataLoaderBuilder::new(Stack)
//!         .batch_size(32)
//!         .shuffle(42)   // epoch e's order: a function of (42, e) only
//!         .num_workers(2) // or .executor(any foldex executor)
//!         .build(data),
//! );
//! // What burn's `Learner` does with the `Arc<dyn DataLoader<_>>` it is given:
//! let train: Arc<dyn DataLoader<Tensor<2>>> = handle.to_device(&Device::default());
//! for _epoch in 0..2 {
//!     for batch in train.iter() {
//!         let batch = batch.unwrap(); // a dataset error fails its batch, not the epoch
//!         assert_eq!(batch.dims()[1], 4);
//!     }
//! }
//! // Beside burn's checkpoint: where the training loop stands, and how the epoch went.
//! let state = handle.state().unwrap();
//! assert_eq!((state.epoch, state.next_batch), (1, 4));
//! assert_eq!(handle.stats().unwrap().items, 100);
//! ```
//!
//! # What it does
//!
//! - **Any executor**: [`FoldexDataLoaderBuilder::num_workers`] as burn's builder has it
//!   (`n` threads of a pool of the loader's own, or 0: on the iterating thread), or
//!   [`executor`](FoldexDataLoaderBuilder::executor) with any foldex executor,
//!   `Arc<dyn Executor>` included. The batches are computed in parallel and delivered in the
//!   epoch's order, at most `buffer` of them waiting.
//! - **Shuffling** from `(seed, epoch)` alone, the same for any executor and number of
//!   workers, and another every epoch. burn's own loader with `n` workers shuffles the dataset
//!   once and splits it among its workers for good, each reshuffling only its own share every
//!   epoch: two items of different shares never meet in a batch, in any epoch (burn issue
//!   #3282), and the batches change with the number of workers (the test
//!   `burns_own_loader_keeps_each_workers_share_apart_and_foldex_does_not` shows both on burn
//!   0.22.1).
//! - **Batches as burn tensors**: the burn `Batcher` runs on the thread that loaded the batch,
//!   with the loader's device ([`FeatureBatcher`] stacks feature vectors and classes);
//!   `to_device` makes the same loader for another device. A batch whose item the dataset
//!   could not get is an `Err` with the dataset's error (burn's `DataLoaderIterator` yields
//!   results); the epoch goes on. [`ImageBatcher`] stacks the images of foldex-data's
//!   `ImageFolder` into one `[N, 3, H, W]` tensor, writing each pixel once.
//! - **Progress** in items, from the foldex epoch's state: a resumed epoch counts what was
//!   received before it stopped.
//! - **Resumption beside burn's checkpoints**: burn's `Learner` checkpoints the model, the
//!   optimizer and the learning-rate scheduler by epoch; the data loader is not part of its
//!   checkpoint, so the loader's state travels beside it. Keep the `Arc` of the loader given to the `Learner`
//!   (its `to_device` copies share one record of the latest epoch):
//!   [`state`](FoldexDataLoader::state) is a small `foldex_loader::LoaderState`
//!   (serde-serializable with this crate's `serde` feature), and
//!   [`resume_from`](FoldexDataLoader::resume_from) on the loader of a restarted run continues
//!   with exactly the next batch, then the epochs after it.
//! - **Stats**: [`stats`](FoldexDataLoader::stats) are the latest epoch's diagnostics
//!   (`foldex_loader::Stats`): where the time went, and a verdict.
//! - **Error policies**: a failed item's batch is an `Err` that names the item, or
//!   foldex-loader's `ErrorPolicy` applies ([`errors`](FoldexDataLoaderBuilder::errors)):
//!   fail fast (the epoch ends with the `Err`), skip (the item is left out of its batch and
//!   recorded in the stats) or retry.
//! - **`slice`** (burn's split among devices): a loader of a range of the dataset, with the
//!   same settings, going on with the epoch numbers.
//!
//! # Building
//!
//! A workspace of its own, out of the main workspace's commands: burn is a large build and
//! needs rustc 1.95. burn comes with `default-features = false` and the features `std`,
//! `ndarray` (the CPU backend; `Device::default()` is its device) and `dataset` (the data
//! API):
//!
//! ```text
//! cargo build --manifest-path crates/foldex-burn/Cargo.toml
//! cargo test --manifest-path crates/foldex-burn/Cargo.toml
//! ```
//!
//! Its loader against burn's own, on a training loop over decoded, augmented images
//! (docs/benchmarks.md, "foldex-burn: foldex's loader against burn's"):
//! `cargo run --release --manifest-path crates/foldex-burn/Cargo.toml --example loader_race`,
//! and the criterion bench `loader_vs_burn`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod batcher;
mod collate;
mod dataset;
mod image;
mod iter;
mod loader;
mod policy;

pub use self::image::{ImageBatch, ImageBatcher};
pub use batcher::{FeatureBatch, FeatureBatcher};
pub use dataset::{FromBurn, OutOfBounds, ToBurn, TryToBurn};
pub use loader::{FoldexDataLoader, FoldexDataLoaderBuilder};
