//! Synchronisation primitives of the sleep protocol, swapped for loom's model-checked ones under
//! `cfg(loom)`.

#[cfg(loom)]
pub(crate) use loom::sync::{
    atomic::{fence, AtomicUsize, Ordering},
    Condvar, Mutex, MutexGuard,
};

#[cfg(not(loom))]
pub(crate) use std::sync::{
    atomic::{fence, AtomicUsize, Ordering},
    Condvar, Mutex, MutexGuard,
};
