//! Synchronisation primitives, swapped for loom's model-checked ones under `cfg(loom)`.
//!
//! Only the protocols that loom tests (the completion latches) go through this shim; the rest
//! of the crate uses `std` directly.

#[cfg(loom)]
pub(crate) use loom::{
    sync::{
        atomic::{fence, AtomicUsize, Ordering},
        Condvar, Mutex, MutexGuard,
    },
    thread::yield_now,
};

#[cfg(not(loom))]
pub(crate) use std::{
    sync::{
        atomic::{fence, AtomicUsize, Ordering},
        Condvar, Mutex, MutexGuard,
    },
    thread::yield_now,
};
