//! Whether this thread runs work inside [`AutoEx::help`](crate::AutoEx): a fold on `AutoEx`
//! nested in such work hands its pools a
//! [`WhileWaiting`](foldex_core::exec::WhileWaiting) job, since the pool that ran the outer
//! piece may not be the one that runs the nested fold.

use foldex_core::exec::WaitDepth;
use std::cell::Cell;

std::thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// This thread's waits inside `AutoEx::help`.
pub(crate) static WAITING: WaitDepth = WaitDepth::new(&DEPTH);
