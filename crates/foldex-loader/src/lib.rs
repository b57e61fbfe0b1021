//! A parallel data loader fed by any foldex executor: MLUtils.jl's `eachobsparallel` and
//! `DataLoader` for Rust, with bounded memory, clean cancellation and no hangs.
//!
//! A [`Dataset`](foldex_dataset::Dataset) (from `foldex-dataset`, the data layer below this
//! crate) gives observations by index; a [`Loader`] cuts each epoch into batches, computes them
//! on the threads of the executor it is given, and hands them to the training loop through a
//! bounded buffer:
//!
//! ```
//! use foldex_dataset::from_fn;
//! use foldex_loader::Loader;
//! use foldex_threaded::ThreadedEx;
//!
//! let images = from_fn(1_000, |i| vec![i as u8; 16]); // stands in for decoding file i
//! let loader = Loader::new(images, ThreadedEx::new().basesize(1))
//!     .batch_size(32)
//!     .buffer(8)
//!     .shuffle(42);
//! for epoch in 0..2 {
//!     let mut seen = 0;
//!     for batch in &loader {
//!         seen += batch.len(); // the training step
//!     }
//!     assert_eq!(seen, 1_000);
//! }
//! ```
//!
//! How it works, in one paragraph: iterating `&loader` starts an epoch, a fold through the
//! executor over the epoch's batches, run from a small driver thread. Each step of the fold
//! takes the next batch number, computes the batch and pushes it into the epoch's bounded
//! channel, waiting while the buffer (or, ordered, the reorder window) is full. The consumer
//! takes batches out; when it finds none, it lends its thread to the executor
//! ([`Executor::help`](foldex_core::Executor::help)) unless the executor keeps it free.
//! Dropping the iterator cancels the epoch and returns once the pieces in progress stop.
//!
//! The crate holds the epoch runtime ([`Loader`], [`Iter`], error policies, checkpoints), the
//! loader over streams ([`stream`]) and the diagnostics of an epoch ([`stats`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod blocked;
mod buffer_pool;
mod buffer_tune;
mod byte_gate;
mod byte_size;
#[cfg(loom)]
#[doc(hidden)]
pub mod channel;
#[cfg(not(loom))]
mod channel;
mod counted;
mod elastic;
mod epoch;
mod error;
mod failure;
mod loadable;
mod loader;
mod loading;
mod order;
mod policy;
mod produce;
mod stall;
mod state;
pub mod stats;
pub mod stream;
mod transport;

/// Batches in recycled memory ([`Loader::reuse_buffers`]): the batch modes and the batch a
/// consumer receives in each.
pub mod reuse {
    pub use crate::buffer_pool::Reused;
    pub use crate::loader::{BatchMode, Owned, Reuse, ReusedBatch};
}

pub use byte_size::ByteSize;
pub use channel::MAX_BUFFER;
pub use elastic::Remainder;
pub use error::{IterError, ResumeError};
pub use loadable::Loadable;
pub use loader::{eachobsparallel, Iter, Loader};
pub use policy::{Checked, ErrorPolicy};
pub use stall::Stalled;
pub use state::LoaderState;
pub use stats::Stats;
pub use stream::{StreamIter, StreamLoader};
