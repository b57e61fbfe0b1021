//! Names that lived at the crate root before they moved into its modules, kept as deprecated
//! aliases: code written against them still builds, and the warning names the new path.
//! Hidden from the docs, which show each item once, where it lives.
//!
//! `foldex::core`, renamed `foldex::protocol`, has no alias: a module of that name at the root
//! would shadow the standard library's `core` in every program that imports `foldex::*`. The
//! protocol module's docs answer to a search for `core`.
#![allow(deprecated)]

/// Moved to [`loader::StreamLoader`](crate::loader::StreamLoader).
#[deprecated(note = "moved to `foldex::loader::StreamLoader`")]
pub type StreamLoader<
    R,
    T,
    C = foldex_dataset::VecCollate,
    W = foldex_loader::stream::Computed<R, T>,
> = foldex_loader::StreamLoader<R, T, C, W>;

/// Moved to [`pipeline::Pipeline`](crate::pipeline::Pipeline).
#[deprecated(note = "moved to `foldex::pipeline::Pipeline`")]
pub type Pipeline<S, X = foldex_pipeline::transform::Id, K = foldex_pipeline::NoCodec> =
    foldex_pipeline::Pipeline<S, X, K>;

/// Moved to [`pipeline::from_stream`](crate::pipeline::from_stream).
#[deprecated(note = "moved to `foldex::pipeline::from_stream`")]
pub fn from_stream<I>(
    stream: foldex_core::Stream<I>,
) -> foldex_pipeline::Pipeline<
    foldex_pipeline::Streamed<I>,
    foldex_pipeline::transform::Xf<foldex_pipeline::transform::Id>,
>
where
    I: Iterator + Send,
    I::Item: Send,
{
    foldex_pipeline::from_stream(stream)
}

/// Moved to [`threaded::PoolError`](crate::threaded::PoolError).
#[deprecated(note = "moved to `foldex::threaded::PoolError`")]
pub type PoolError = foldex_threaded::PoolError;

/// Moved to [`protocol::ConfigError`](crate::protocol::ConfigError).
#[deprecated(note = "moved to `foldex::protocol::ConfigError`")]
pub type ConfigError = foldex_core::ConfigError;

/// Moved to [`protocol::FoldHandle`](crate::protocol::FoldHandle).
#[deprecated(note = "moved to `foldex::protocol::FoldHandle`")]
pub type FoldHandle<T> = foldex_core::FoldHandle<T>;

/// Moved to [`protocol::Partial`](crate::protocol::Partial).
#[deprecated(note = "moved to `foldex::protocol::Partial`")]
pub type Partial<'a> = foldex_core::Partial<'a>;

/// Moved to [`protocol::Stream`](crate::protocol::Stream).
#[deprecated(note = "moved to `foldex::protocol::Stream`")]
pub type Stream<I> = foldex_core::Stream<I>;

/// Moved to [`dataset::EpochOrder`](crate::dataset::EpochOrder).
#[deprecated(note = "moved to `foldex::dataset::EpochOrder`")]
pub type EpochOrder = foldex_dataset::EpochOrder;

/// Moved to [`dataset::ItemError`](crate::dataset::ItemError).
#[deprecated(note = "moved to `foldex::dataset::ItemError`")]
pub type ItemError<E> = foldex_dataset::ItemError<E>;

/// Moved to [`dataset::Fallible`](crate::dataset::Fallible).
#[deprecated(note = "moved to `foldex::dataset::Fallible`")]
pub type Fallible<D> = foldex_dataset::Fallible<D>;

/// Renamed [`auto::Choice`](crate::auto::Choice).
#[deprecated(note = "renamed `foldex::auto::Choice`")]
pub type AutoChoice = foldex_auto::Choice;
