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
//! Executors share the pieces they all need from [`exec`], the toolkit for executor authors
//! (chunking, ordered combining, borrowed tasks on a pool's threads, fork-join, latches, panic
//! capture); the root holds the protocol, the typed API and the settings.
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
mod choice_table;
mod chunk;
mod claim;
pub mod codec;
mod config;
mod coverage;
mod executor;
mod first_items;
mod fold;
mod in_order;
mod join;
mod latch;
pub mod merge;
mod once_bits;
mod panic;
mod piece_len;
#[cfg(feature = "serde")]
mod postcard;
pub mod progress;
mod roles;
pub mod source;
mod spawn;
mod spent;
pub mod stream;
mod worker_start;

pub use audited::{Brand, Partial};
pub use codec::Codec;
pub use config::{available_parallelism, Basesize, ConfigError};
pub use executor::{Caller, Executor, Job, RunsInline};
pub use fold::{ExecutorExt, Input, StopProbe, Summand};
pub use source::Source;
pub use spawn::{FoldHandle, SpawnExt};
pub use stream::Stream;

/// The toolkit for writing an executor: what the built-in executors share, so that a new one
/// needs none of its own chunking, combining, completion or panic capture.
///
/// - Chunking and combining: [`split`](exec::split), [`chunks`](exec::chunks),
///   [`chunk`](exec::chunk), and [`OrderedCombiner`](exec::OrderedCombiner) for partials that
///   finish out of order; bounds a fold sets on its pieces' lengths ([`Job::piece_len`]):
///   [`PieceLen`](exec::PieceLen), [`Chunking`](exec::Chunking) and
///   [`run_pieces`](exec::run_pieces).
/// - Borrowed work on a pool's `'static` threads: [`task_scope`](exec::task_scope) with
///   [`Scope`](exec::Scope) and [`TaskRef`](exec::TaskRef); a fork-join that allocates
///   nothing: [`join_stack`](exec::join_stack); work offered to a pool that its owner can take
///   back: [`offer`](exec::offer); forks that stay on their thread until another thread wants
///   work: [`join_pending`](exec::join_pending) with [`PendingForks`](exec::PendingForks).
/// - The halves of a fork–join, for [`Executor::join_halves`]: [`JoinHalf`](exec::JoinHalf).
/// - Completion: [`Latch`](exec::Latch), [`JoinLatch`](exec::JoinLatch),
///   [`ScopeLatch`](exec::ScopeLatch); panics: [`PanicSlot`](exec::PanicSlot).
/// - Partials that cross processes: [`PartialCodec`](exec::PartialCodec), from
///   [`Job::codec`]; a panic's message: [`message`](exec::message).
/// - Jobs in a role of the protocol: [`StandIn`](exec::StandIn), called for by a thread that
///   stands in for a helper (see [`Caller`]); [`WhileWaiting`](exec::WhileWaiting), run while
///   the thread waits (see [`Job::run_while_waiting`]).
/// - A pool's worker threads, started one at a time so that running out of memory is an error,
///   not an abort: [`spawn_running`](exec::spawn_running).
/// - What a job's first items cost, measured on the caller: [`measure_first_items`](exec::measure_first_items);
///   what was chosen for folds of each length, recalled without a lock or a clock:
///   [`ChoiceTable`](exec::ChoiceTable).
/// - Synchronisation that loom model-checks under `cfg(loom)`: [`sync`](exec::sync).
/// - Elements of one buffer handed to pieces, each once: [`VecWriter`](exec::VecWriter) and the
///   types [`MutSlice`](source::MutSlice) and [`OwnedVec`](source::OwnedVec) hand out.
///
/// docs/custom-executor.md walks through an executor built from these.
pub mod exec {
    pub use crate::audited::{
        join_pending, join_stack, offer, task_scope, Forked, PendingForks, RangeWriter, Scope,
        Taken, TaskRef, VecWriter, Written,
    };
    pub use crate::choice_table::{ChoiceTable, Recalled};
    pub use crate::chunk::{chunk, chunks, split};
    pub use crate::codec::PartialCodec;
    pub use crate::executor::JoinHalf;
    pub use crate::first_items::{
        measure_first_items, FirstItems, Rest, LEAF_TIME, MEASURE_FOR, WAKE_UP,
    };
    pub use crate::in_order::{run_pieces, OrderedCombiner};
    pub use crate::latch::{JoinLatch, Latch, ScopeLatch};
    pub use crate::panic::{message, PanicPayload, PanicSlot};
    pub use crate::piece_len::{Chunking, PieceLen};
    pub use crate::roles::{StandIn, WaitDepth, WhileWaiting};
    pub use crate::worker_start::spawn_running;
    #[cfg(loom)]
    #[doc(hidden)]
    pub use loom::thread_local as loom_thread_local;

    pub mod sync;
}
