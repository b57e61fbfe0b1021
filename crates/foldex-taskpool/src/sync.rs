//! Synchronisation primitives, swapped for loom's model-checked ones under `cfg(loom)`, so that
//! the loom tests explore the pool's queue, sleep and wake-up, and the fold's cursor.

#[cfg(loom)]
pub(crate) use loom::{
    sync::{atomic::AtomicUsize, Condvar, Mutex, MutexGuard},
    thread,
};

#[cfg(not(loom))]
pub(crate) use std::{
    sync::{atomic::AtomicUsize, Condvar, Mutex, MutexGuard},
    thread,
};
