//! Synchronisation primitives, swapped for loom's model-checked ones under `cfg(loom)`.
//!
//! Only the protocols that loom tests (the completion latches, an offer's claim, `OnceBits`) go through
//! this shim; the rest of the crate uses `std` directly.

#[cfg(loom)]
pub(crate) use loom::{
    sync::{
        atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering},
        Arc, Condvar, Mutex, MutexGuard,
    },
    thread::yield_now,
};

#[cfg(not(loom))]
pub(crate) use std::{
    sync::{
        atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering},
        Arc, Condvar, Mutex, MutexGuard,
    },
    thread::yield_now,
};
