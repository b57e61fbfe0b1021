//! The synchronisation primitives of the workspace's concurrent protocols: `loom`'s
//! model-checked ones when the crate is built with `--cfg loom`, `std`'s otherwise.
//!
//! One shim for every crate, so that a protocol that loom tests (the completion latches, an
//! offer's claim, `OnceBits`, the threaded pool's sleep, the task pool's queue, the loader's
//! channel) compiles against loom in a loom build and the very same code runs on `std` in any
//! other. Code that loom does not test uses `std` directly. Under `cfg(loom)` these types only
//! work inside `loom::model`.
//!
//! ```
//! use foldex_core::exec::sync::{Arc, AtomicUsize, Ordering};
//! let n = Arc::new(AtomicUsize::new(0));
//! n.fetch_add(1, Ordering::Relaxed);
//! assert_eq!(n.load(Ordering::Relaxed), 1);
//! ```

#[cfg(loom)]
pub use loom::{
    sync::{
        atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering},
        Arc, Condvar, Mutex, MutexGuard,
    },
    thread,
};

#[cfg(not(loom))]
pub use std::{
    sync::{
        atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering},
        Arc, Condvar, Mutex, MutexGuard,
    },
    thread,
};
