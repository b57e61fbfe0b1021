//! Pipelines: composable transforms and named reductions over a
//! [`Source`](foldex_core::Source), run on any
//! [`Executor`](foldex_core::Executor) given at the end, as Transducers.jl and Folds.jl
//! compose them, and as rayon's parallel iterators read.
//!
//! ```
//! use foldex_pipeline::IntoPipeline;
//! use foldex_threaded::ThreadedEx;
//!
//! let words = ["fold", "on", "any", "executor"];
//! let ex = ThreadedEx::new();
//! let long = words.pipe().filter(|w| w.len() > 2).map(|w| w.len()).sum::<usize>(&ex);
//! assert_eq!(long, 4 + 3 + 8);
//! let first_short = words.pipe().position_first(&ex, |w| w.len() < 3);
//! assert_eq!(first_short, Some(1));
//! ```
//!
//! The layer sits above the executor protocol: a reduction is one typed fold
//! ([`foldex_core::ExecutorExt::try_fold`]) over the pipeline's source, with the transforms
//! composed into its step. So every executor (a custom one, `&dyn Executor`) runs every
//! pipeline, and every pipeline gives what the same chain gives on `std::iter`:
//!
//! - **Index-preserving adapters** (`map`, `update`, `copied`, `cloned`, `enumerate`, `zip`,
//!   `zip_eq`, `interleave`, `take`, `skip`, `step_by`, `rev`, `chain`, `chunks`, and `windows`
//!   of slices) make a new
//!   [`Source`](foldex_core::Source): item `i` comes from known indices, so `enumerate` gives exact indices
//!   whatever the split, and a slice's fast iterator stays the inner loop. They are there while
//!   the pipeline is indexable (its transform is [`transform::Id`]).
//! - **Transforms** that change the number of items (`filter`, `filter_map`, `flat_map`,
//!   `flat_map_pipe`, `inspect`, `take_while`, `map_while`, `map_init`) wrap the reduction's step
//!   ([`transform::Transform`]); their state lives in a piece's accumulator. `chain` after them
//!   sends each side's items through that side's stages. `take_while` and `map_while`
//!   stop the fold with a `Break` at the first item that ends them, so the result equals the
//!   sequential one on every executor and basesize. `flat_map_ref` lends pieces borrowed from
//!   each item (the `&str` words of owned lines) to the stages and reduction after it
//!   ([`borrowed`]).
//! - **Reductions** take the executor: `fold`, `try_fold`, `for_each`, `count`, `sum`,
//!   `product`, `min`/`max` and their `_by`/`_by_key` forms, `reduce`, `reduce_with`, `any`,
//!   `all`, `find_first`/`find_last`/`find_any`, `position_first`/`position_last` and
//!   `collect` ([`FromPipeline`]), `unzip`, `partition`, `try_for_each` and `try_reduce` over
//!   `Result`/`Option` ([`Outcome`]: the first failure by index), and `group_by` with a
//!   per-group [`group::Reducer`] (word count in one line:
//!   `words.pipe().group_by(&ex, |w| *w, group::count())`), `group_pairs` (the key taken by
//!   value) and `counts`; `reduce_all` runs any [`reducers::Reducer`], or several in one pass
//!   (`reduce_all(&ex, (count(), sum::<u64>(), max()))`).
//! - **rayon's other reductions**: `find_map_first`/`find_map_last`/`find_map_any`,
//!   `position_any`, `sum`/`product` into `Result`/`Option`, `partition_map` ([`Either`]),
//!   `par_extend` ([`ParallelExtend`]) and, on indexable pipelines, `cmp`, `partial_cmp`, `eq`,
//!   `ne`, `lt`, `le`, `gt`, `ge`.
//! - **Progress**: [`Pipeline::with_progress`] counts a run's items into a [`Progress`],
//!   read from any thread while the run goes on (done of total), without a lock or an atomic
//!   operation per item; with the cargo feature `indicatif`, `Progress::drive_bar` shows it on
//!   a progress bar.
//! - **A codec** for the reductions' accumulators is a setting of the pipeline
//!   ([`Pipeline::encoded`]; none by default, [`NoCodec`]): with one, every reduction runs on an
//!   executor whose pieces run in other processes (`foldex_mpi::MpiEx`).
#![forbid(unsafe_code)]

pub mod borrowed;
pub mod boxed;
mod chained;
mod chunked;
mod collect;
mod collections;
mod compare;
mod copied;
mod effects;
mod extend;
mod fallible;
mod find_map;
mod flatten;
mod from_right;
pub mod group;
mod guarded;
mod indexed;
mod interleave;
mod intersperse;
mod lent;
mod make_value;
mod nested;
mod partition_map;
mod piece_len;
mod pieces;
mod pipeline;
mod positions;
mod progress;
mod reduce;
pub mod reducers;
mod run;
mod scan;
pub mod sort;
pub mod sources;
mod stage;
mod stages;
pub mod stateful;
mod streamed;
mod sum;
mod update;
mod wide;
mod with;

pub use collect::FromPipeline;
/// The `Left` or `Right` of [`Pipeline::partition_map`]: the `either` crate's, as rayon
/// re-exports it.
pub use either::Either;
pub use extend::ParallelExtend;
pub use fallible::Outcome;
pub use foldex_core::progress::Progress;
pub use pipeline::{IntoPipeline, NoCodec, Pipeline};
pub use sources::{from_source, from_stream, from_vec};
pub use streamed::{PipeSource, Streamed};

/// Transforms that may change the number of items, as reducer transformers: each wraps the
/// step of whatever comes after it, so that any reduction at the end of a pipeline can run
/// through them. Their state (a [`map_init`](crate::Pipeline::map_init) scratch value) lives in
/// the accumulator of a piece, made once per piece by [`Transform::start`](crate::transform::Transform::start), never per block.
pub mod transform {
    pub use crate::copied::ClonedStage;
    pub use crate::intersperse::Intersperse;
    pub use crate::make_value::{CloneOf, MakeValue};
    pub use crate::nested::{FlatMapPipe, InnerPipe};
    pub use crate::pieces::{FoldPieces, TryFoldPieces};
    pub use crate::positions::{IndexedPositions, Positions, PositionsState};
    pub use crate::stage::*;
    pub use crate::stages::*;
}

/// The sources that index-preserving adapters and integer ranges make: the `S` of a
/// [`Pipeline<S, X>`](Pipeline), named in signatures and rarely written by hand; and
/// [`WideMap`](adapters::WideMap), `map` over a range that may be longer than `usize::MAX`.
pub mod adapters {
    pub use crate::chained::{Routed, Side, Sides};
    pub use crate::chunked::{ChunkSource, VecChunks};
    pub use crate::indexed::{
        ByRef, Chain, Chunks, ChunksMut, Cloned, Enumerate, Map, Rev, SliceSource, StepBy, Window,
        Windows, Zip,
    };
    pub use crate::interleave::Interleave;
    pub use crate::piece_len::Bounded;
    pub use crate::sources::Ints;
    pub use crate::sources::{ChunksExact, RChunks, RChunksExact};
    pub use crate::update::{Update, UpdateStage};
    pub use crate::wide::{Wide, WideInt, WideMap};
}
