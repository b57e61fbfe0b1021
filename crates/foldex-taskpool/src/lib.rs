//! [`TaskPoolEx`]: `ntasks` persistent workers take chunks of `basesize` consecutive indices
//! from a shared cursor, in index order, with at most `ntasks` chunks in flight.
//!
//! The executor for work that waits (file or network I/O, decoding behind a lock), where
//! `ntasks` may well exceed the number of cores; for back pressure and bounded memory (chunks
//! start in index order, never more than `ntasks` at once); and, with
//! [`background(true)`](TaskPoolEx::background), for keeping the calling thread free
//! (FoldsThreads' `TaskPoolEx(background = true)`, DataLoaders.jl's `useprimary = false`).
//!
//! A fold nested in a step of a fold on the same pool runs whole on the thread that started it
//! while all `ntasks` of the pool run chunks, at the cost of its loop; while a task is free,
//! it queues lanes for it as any fold does (see [`TaskPoolEx`]).
//!
//! ```
//! use foldex_core::{ExecutorExt, SpawnExt};
//! use foldex_taskpool::TaskPoolEx;
//!
//! let pool = TaskPoolEx::new().ntasks(4);
//! assert_eq!(pool.sum::<usize>(0..1000), 499_500);
//!
//! // Non-blocking: the fold runs on the pool while this thread does something else.
//! let handle = pool.clone().background(true).spawn_fold(0..1000, || 0, |n, i| n + i, |a, b| a + b);
//! assert_eq!(handle.join(), 499_500);
//! ```
#![forbid(unsafe_code)]

mod executor;
mod pool;
mod run;
mod waiting;

pub use executor::TaskPoolEx;
