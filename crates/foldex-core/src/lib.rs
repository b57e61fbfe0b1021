//! The foldex executor protocol, and the typed fold API built on it.
//!
//! Two layers keep executors small and user code typed:
//!
//! - **The protocol** ([`Executor`], [`Job`], [`Partial`]) is object-safe. An executor receives a
//!   type-erased job over the indices `0..len` and decides how to split it, where the pieces
//!   run, and in which tree their partial results are combined. `Box<dyn Executor>` works, so the
//!   executor can be chosen at run time.
//! - **The typed API** ([`ExecutorExt`]: `fold`, `try_fold`, `for_each`, `map_reduce`, `sum`,
//!   `collect_vec`) builds the job from closures over a [`Source`], catches panics, and holds the
//!   early-termination rule, so that executor authors deal with none of it.
//! - **Non-blocking folds** ([`SpawnExt`]: `spawn_fold`, `spawn_try_fold`, `spawn_for_each`)
//!   start a fold on any executor and return a [`FoldHandle`] at once; dropping the handle
//!   cancels the fold.
//!
//! Executors share the pieces they all need from here: [`Basesize`] and [`split`]/[`chunks`] for
//! chunking, [`OrderedCombiner`] for combining out-of-order results, [`task_scope`] for running
//! borrowed work on a pool's `'static` threads, [`join_stack`] for a fork-join that allocates
//! nothing, and [`Latch`]/[`JoinLatch`] for completion. A thread that calls `execute` only on
//! behalf of another thread that helps (a loader's driver) says so with
//! [`stand_in_for_helper`].
//!
//! ```
//! use foldex_core::{Executor, ExecutorExt};
//! use foldex_seq::SequentialEx;
//! let ex: Box<dyn Executor> = Box::new(SequentialEx);
//! let data: Vec<u64> = (1..=1000).collect();
//! assert_eq!(ex.sum::<u64>(&data), 500_500);
//! assert_eq!(ex.fold(&data, || 0, |n, &x| n + (x % 2 == 0) as usize, |a, b| a + b), 500);
//! ```
#![deny(unsafe_code)] // allowed in `audited` alone, the audited module
#![warn(missing_docs)]

#[allow(unsafe_code)] // the audited module: see its doc
mod audited;
mod chunk;
mod claim;
mod config;
mod coverage;
mod executor;
mod fold;
mod helping;
mod in_place;
mod latch;
mod once_bits;
mod panic;
mod source;
mod spawn;
mod stand_in;
mod sync;

pub use audited::{
    join_stack, offer, task_scope, Brand, MutSlice, OwnedVec, Partial, RangeWriter, Scope, Taken,
    TaskRef, VecWriter, Written,
};
pub use chunk::{chunk, chunks, split, OrderedCombiner};
pub use config::{available_parallelism, Basesize, ConfigError};
pub use executor::{Executor, Job};
pub use fold::{ExecutorExt, StopProbe, Summand};
pub use helping::{as_helper, is_helping};
pub use latch::{JoinLatch, Latch, ScopeLatch};
pub use panic::{PanicPayload, PanicSlot};
pub use source::{RangeVisitor, Source};
pub use spawn::{FoldHandle, SpawnExt};
pub use stand_in::{is_standing_in, stand_in_for_helper};
